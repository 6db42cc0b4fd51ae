"""The repair's sweep of the filter sets of kinds this build does not play, in a keyspace of a
crowd's size, against a real Redis of its own (one server, and a three-master Cluster): the
kinds filed are named in a set of their own, which the sweep reads, rather than found by a
search of the keyspace a thousand keys a pass; sets filed by the release before, which names no
kind there, are still found and swept."""

from __future__ import annotations

import pathlib
import subprocess
import time

import pytest
import redis.asyncio as aioredis

from conftest import run
from hustings.engine import games
from hustings.service.lobby import _SWEPT_KEYS, LobbyRepair
from hustings.service.store import LOBBY_KEY, Store, index_call, lobby_filter_key, lobby_position
from hustings.v1 import game_pb2
from service_helpers import empty_store

OPEN = game_pb2.GAME_STATUS_OPEN
RETIRED = "retired_kind"  # kinds no build of this test plays
OTHER_RETIRED = "other_retired_kind"
# Keys in the lobby's slot besides the lobby's own (games' keys whose ids hash there; all of a
# server's): a search of the keyspace, 1,000 keys a pass, goes round in some 200 passes.
CROWD_KEYS = 200_000
ROUND = len(_SWEPT_KEYS) + 4  # a round of the sweep: its keys and one retired kind's four sets
MAX_PASSES = 60  # passes of a keyspace of a few keys: the search goes round in one or two
EARLIER = "d3f17c2"  # the release before the set of kinds filed
REPO = pathlib.Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def earlier_index_lua() -> str:
    """The index script of the release before the set of kinds filed (it files a game under its
    kind and status, and names the kind nowhere else)."""
    try:
        return subprocess.run(
            ["git", "-C", str(REPO), "show", f"{EARLIER}:service/lua/index.lua"], check=True, capture_output=True, timeout=60, text=True
        ).stdout
    except (OSError, subprocess.CalledProcessError) as failure:
        pytest.skip(f"commit {EARLIER} is not in this checkout: {failure}")


def _lobby_node(store: Store) -> aioredis.Redis:
    """A client of the server, or of the Cluster node that serves the lobby's slot."""
    if store.lane is not None:
        return store.client  # type: ignore[return-value]
    node = store.client.get_node_from_key(LOBBY_KEY)
    return aioredis.Redis(host=node.host, port=node.port)


async def _scans(node: aioredis.Redis) -> int:
    return int((await node.info("commandstats")).get("cmdstat_scan", {}).get("calls", 0))


def _summary(game_id: str, kind: str, created_at: int) -> game_pb2.GameSummary:
    return game_pb2.GameSummary(game_id=game_id, kind=kind, status=OPEN, version=1, created_at=created_at)


async def _left_behind(store: Store, kind: str, game_id: str, created_at: int, index_lua: str = "") -> str:
    """A game of ``kind`` indexed (by this release's index script, or the given one) that left
    the lobby with no summary to name its kind: its position stays in the kind's sets alone.
    Returns that position."""
    summary = _summary(game_id, kind, created_at)
    if index_lua:
        keys, args = index_call(summary)
        await store.client.register_script(index_lua)(keys=keys, args=args)
    else:
        assert await store.index(summary)
    await store.unindex(game_id, ())  # the lobby and the status sets only
    position = lobby_position(created_at, game_id)
    assert await store.client.zscore(lobby_filter_key(kind), position) is not None
    return position


async def _passes_until_gone(repair: LobbyRepair, store: Store, kind: str, position: str, most: int) -> int:
    """Repair passes until ``position`` leaves ``kind``'s filter sets (at most ``most``): how many."""
    for done in range(1, most + 1):
        await repair.repair_once()
        if await store.client.zscore(lobby_filter_key(kind), position) is None:
            assert await store.client.zscore(lobby_filter_key(kind, OPEN), position) is None
            return done
    raise AssertionError(f"a position of {kind} left in its sets after {most} passes")


def test_a_retired_kinds_left_position_is_swept_in_one_round_whatever_the_keyspace(lobby_url: str) -> None:
    """The lobby's slot holds 200,000 other keys. A kind this build does not play, filed by this
    release (a replica that still plays it, or before the kind left the build), left the
    position of a game gone with no summary in its sets: the sweep drops it in its first round
    of passes (here the 7th), and keeps the position of the kind's game still listed. Before, the
    sweep found the kind's sets only when its search of the keyspace, 1,000 keys a pass, met
    them: some 100 passes here on average, 40,000 (about 42 hours) at 40 million keys."""

    async def scenario() -> None:
        store = await empty_store(lobby_url)
        node = _lobby_node(store)
        try:
            await node.execute_command("DEBUG", "POPULATE", CROWD_KEYS, "hustings:{lobby}:crowd")
            now = int(time.time())
            left = await _left_behind(store, RETIRED, "ggone", now - 10)
            assert await store.index(_summary("glisted", RETIRED, now))
            listed = lobby_position(now, "glisted")

            repair = LobbyRepair(store, ghost_grace_s=3600)  # the listed game's entry waits for no commit here
            assert RETIRED not in games()
            passes = await _passes_until_gone(repair, store, RETIRED, left, 3 * ROUND)
            assert passes <= ROUND, f"the sweep took {passes} passes to reach a retired kind's sets"
            assert await store.client.zscore(lobby_filter_key(RETIRED), listed) is not None
            assert await store.client.zscore(lobby_filter_key(RETIRED, OPEN), listed) is not None
        finally:
            if node is not store.client:
                await node.aclose()
            await store.close()

    run(scenario(), 90)


def test_sets_the_release_before_filed_are_found_until_the_keyspace_was_searched_once(lobby_url: str, earlier_index_lua: str) -> None:
    """The release before named no kind it filed. A retired kind's sets it left a position in
    are found by the search of the keyspace, as before, and the position is dropped; once that
    search has gone round (its place shared by the replicas in Redis), no pass searches again.
    A game of another retired kind that a replica of the release before lists afterwards (its
    replicas run beside this one's while a deployment upgrades) is named by the repair's refile
    as it files the lobby, so a position that kind's game leaves behind is swept too."""

    async def scenario() -> None:
        store = await empty_store(lobby_url)
        node = _lobby_node(store)
        try:
            now = int(time.time())
            left = await _left_behind(store, RETIRED, "ggone", now - 10, earlier_index_lua)
            repair = LobbyRepair(store, ghost_grace_s=3600)
            await _passes_until_gone(repair, store, RETIRED, left, MAX_PASSES)
            for _ in range(MAX_PASSES):  # the search goes round, and is not taken again
                before = await _scans(node)
                await repair.repair_once()
                if await _scans(node) == before:
                    break
            another = LobbyRepair(store, ghost_grace_s=3600)  # another replica, or this one restarted
            before = await _scans(node)
            for _ in range(ROUND):
                await another.repair_once()
            assert await _scans(node) == before, "the keyspace was searched again after it had gone round"

            # A replica of the release before lists a game of another retired kind, then a game
            # of that kind leaves a position behind.
            keys, args = index_call(_summary("glisted", OTHER_RETIRED, now))
            await store.client.register_script(earlier_index_lua)(keys=keys, args=args)
            left = await _left_behind(store, OTHER_RETIRED, "galso", now - 5, earlier_index_lua)
            await _passes_until_gone(another, store, OTHER_RETIRED, left, 3 * ROUND)
            listed = lobby_position(now, "glisted")
            assert await store.client.zscore(lobby_filter_key(OTHER_RETIRED), listed) is not None
        finally:
            if node is not store.client:
                await node.aclose()
            await store.close()

    run(scenario(), 90)
