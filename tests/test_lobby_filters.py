"""A filtered lobby (ListGames by kind, status or both) reads the games that match, not the lobby.

The lobby's filter sets (``service/store.py``) are kept by the index script beside the main
index; a filtered page reads them, so it never walks past games of other kinds or statuses, and
no ListGames call reads more than ``PAGE_SCAN_LIMIT`` entries whatever it has to pass over. The
pages are compared with a brute-force filter of the whole lobby; the lobby repair files games
indexed without the sets and drops what has left the lobby. A Redis server of this module's own,
so that its command counts are the module's alone; the games are made once through a real
replica, the last test expires some of them.
"""

from __future__ import annotations

import asyncio
import pathlib
import random
from dataclasses import dataclass
from typing import Any, Iterator

import pytest
import redis.asyncio as aioredis

from conftest import redis_cluster, run
from service_helpers import replica_and_client
from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.lobby import PAGE_SCAN_LIMIT, REFILE_BATCH, LobbyRepair
from hustings.service.replica import SOLE_CLIENT
from hustings.service.store import (
    FILED_STATUSES,
    LOBBY_FILTER_PREFIX,
    LOBBY_KEY,
    Store,
    game_key,
    lobby_filter_key,
    lobby_position,
)
from hustings.v1 import game_pb2

PLAYERS = {"stimmvieh": 3, "wahlspiel": 2, "spin_doctors": 3}
KINDS = tuple(PLAYERS)
STATUSES = (0, *FILED_STATUSES)
BULK_OPEN = 450  # open Stimmvieh games: more than one call may read
MIXED = 36  # games of every kind in every status, at random
BOT_GAMES = 3  # Stimmvieh tables of bots only, played to the end
REPAIR_LEASE = "hustings:{lobby}:lock:repair"


@dataclass
class Lobby:
    """The module's Redis and the games made in it."""

    server: EmbeddedRedis
    bulk: list[str]  # the open Stimmvieh games, oldest first


async def _await_finished(client: Client, store: Store, game_ids: list[str]) -> None:
    """Wait (bounded) until the bots have played each game to the end and its last summary is in
    the lobby, so that the lobby stays as it is while it is compared."""
    for _ in range(600):
        views = [await client.view(g) for g in game_ids]
        summaries = await store.lobby_summaries(game_ids)
        if all(v.status == game_pb2.GAME_STATUS_FINISHED for v in views) and all(
            summaries[g].status == game_pb2.GAME_STATUS_FINISHED for g in game_ids
        ):
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the bots did not finish their games in 30 s")


async def _make_games(url: str) -> list[str]:
    """Games of every kind and status through a real replica; returns the bulk's ids."""
    rng = random.Random(1517)
    async with replica_and_client(url, **SOLE_CLIENT) as (replica, client):
        store = replica.host.store
        for _ in range(MIXED):
            kind = rng.choice(KINDS)
            created = await client.create_game(kind, PLAYERS[kind])
            joins = rng.choice([0, 1, PLAYERS[kind]])  # open, open with a seat taken, active
            for seat in range(joins):
                await client.join(created.game_id, f"P{seat}")
        bots = game_pb2.TableSettings(bot_seats=[0, 1, 2], bot_level="random")
        finished = [(await client.create_game("stimmvieh", 3, table=bots)).game_id for _ in range(BOT_GAMES)]
        bulk = [(await client.create_game("stimmvieh", 3)).game_id for _ in range(BULK_OPEN)]
        await _await_finished(client, store, finished)
    return bulk


@pytest.fixture(scope="module")
def lobby(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lobby]:
    """A Redis of the module's own with its games made."""
    server = EmbeddedRedis(tmp_path_factory.mktemp("lobby-redis"), appendonly=False).start()
    try:
        bulk = run(_make_games(server.url), 120)
        yield Lobby(server, bulk)  # type: ignore[arg-type]
    finally:
        server.stop()


async def _brute_force(store: Store, kind: str = "", status: int = 0) -> list[str]:
    """The games a filtered lobby lists, newest first: the whole lobby read and filtered here,
    with each game's own status, as ListGames did before it had filter sets."""
    ids = await store.lobby_ids(0, 100_000)
    summaries, heads = await store.lobby_summaries(ids), await store.heads(ids)
    listed = []
    for game_id in ids:
        summary, head = summaries.get(game_id), heads.get(game_id)
        if summary is None or head is None:
            continue
        if (kind and summary.kind != kind) or (status and (head[1] or summary.status) != status):
            continue
        listed.append(game_id)
    return listed


async def _walk(client: Client, kind: str, status: int, size: int, token: str = "") -> list[list[str]]:
    """Every page of a query from ``token`` on, following its tokens (bounded)."""
    pages = []
    for _ in range(2_000):
        page = await client.games(kind=kind, status=status, page_size=size, page_token=token)
        pages.append([g.game_id for g in page.games])
        assert all(not kind or g.kind == kind for g in page.games)
        assert all(not status or g.status == status for g in page.games)
        if not page.next_page_token:
            return pages
        token = page.next_page_token
    raise AssertionError("the pages did not end")


async def _command_calls(client: aioredis.Redis) -> dict[str, int]:
    """Calls per command since the last CONFIG RESETSTAT, without INFO's own."""
    stats = await client.info("commandstats")
    return {name.removeprefix("cmdstat_"): int(entry["calls"]) for name, entry in stats.items() if name != "cmdstat_info"}


def test_a_filtered_page_reads_the_games_that_match_and_not_the_lobby_between_them(lobby: Lobby) -> None:
    """With the lobby repair held off (its lease taken here), the Redis reads of one ListGames are
    all the call's own: HMGET is one read of summaries per batch plus one head per entry read, so
    a filter that matches nothing reads no entry, and one that matches a few reads those few."""

    async def scenario() -> None:
        async with replica_and_client(lobby.server.url, **SOLE_CLIENT) as (replica, client):
            raw = replica.host.store.client
            await raw.set(REPAIR_LEASE, "test", px=60_000)
            try:
                for kind in ("wahlspiel", "spin_doctors"):  # only Stimmvieh games finished
                    status = game_pb2.GAME_STATUS_FINISHED
                    await raw.config_resetstat()
                    page = await client.games(kind=kind, status=status, page_size=200)
                    calls = await _command_calls(raw)
                    assert not page.games and not page.next_page_token
                    # Before the filter sets: every one of the ~490 entries' heads was read.
                    assert calls.get("hmget", 0) == 0, calls
                    assert calls.get("zrevrange", 0) == 0, calls  # the whole lobby is not walked
                wanted = await _brute_force(replica.host.store, "wahlspiel", game_pb2.GAME_STATUS_OPEN)
                assert 0 < len(wanted) < 50  # a few among many
                await raw.config_resetstat()
                page = await client.games(kind="wahlspiel", status=game_pb2.GAME_STATUS_OPEN, page_size=200)
                calls = await _command_calls(raw)
                assert [g.game_id for g in page.games] == wanted
                assert calls.get("hmget", 0) == len(wanted) + 1, calls  # their heads and one read of summaries
                assert calls.get("zrevrangebylex", 0) == 1, calls
            finally:
                await raw.delete(REPAIR_LEASE)

    run(scenario(), 60)


def test_filtered_pages_list_exactly_what_a_filter_of_the_whole_lobby_lists(lobby: Lobby) -> None:
    """Every kind and status (and both), at page sizes 1, 7 and 200: the pages, followed by their
    tokens, list the brute-force filter's games in its order, every page full but the last; a
    lobby offset (the token of a replica that scanned the whole lobby) goes on after that entry."""

    async def scenario() -> None:
        async with replica_and_client(lobby.server.url, **SOLE_CLIENT) as (replica, client):
            store = replica.host.store
            for kind in ("", *KINDS):
                for status in STATUSES:
                    wanted = await _brute_force(store, kind, status)
                    for size in (7, 200) if len(wanted) > 60 else (1, 7, 200):
                        pages = await _walk(client, kind, status, size)
                        assert [g for page in pages for g in page] == wanted, (kind, status, size)
                        assert all(len(page) == size for page in pages[:-1]), (kind, status, size)
            everything = await store.lobby_ids(0, 100_000)
            for offset in (1, 17, 300, len(everything) - 2):
                # ("", 0): the whole lobby, whose count tokens earlier replicas gave out.
                queries = (("stimmvieh", game_pb2.GAME_STATUS_OPEN), ("", game_pb2.GAME_STATUS_ACTIVE), ("wahlspiel", 0), ("", 0))
                for kind, status in queries:
                    after = set(everything[offset:])
                    wanted = [g for g in await _brute_force(store, kind, status) if g in after]
                    pages = await _walk(client, kind, status, 50, str(offset))
                    assert [g for page in pages for g in page] == wanted, (offset, kind, status)
            past_the_end = await client.games(kind="stimmvieh", page_token=str(len(everything) + 5))
            assert not past_the_end.games and not past_the_end.next_page_token
            # A filtered page's token is a lobby position too: the whole lobby goes on after it.
            filtered = await client.games(kind="stimmvieh", page_size=3)
            last = filtered.games[-1].game_id
            onwards = await client.games(page_token=filtered.next_page_token, page_size=5)
            assert [g.game_id for g in onwards.games] == everything[everything.index(last) + 1 :][:5]
            # Filters that name no game answer an empty page without reading anything.
            for kind, status in (("Stimmvieh", 0), ("x" * 41, 0), ("stimmvieh", 99)):
                nothing = await client.games(kind=kind, status=status)
                assert not nothing.games and not nothing.next_page_token

    run(scenario(), 120)


async def _filter_keys(raw: Any) -> list[bytes]:
    return [k async for k in raw.scan_iter(match=LOBBY_FILTER_PREFIX + "*", count=1000)]


def test_the_repair_files_games_indexed_without_the_filter_sets(lobby: Lobby) -> None:
    """A lobby written before the filter sets existed (none of them in Redis), a game filed under
    a status it has left (a replica without the sets moved it) and a position whose game has left
    the lobby: one repair pass per ``REFILE_BATCH`` entries files every game as its summary says,
    after which the filtered pages again list what the brute-force filter lists."""

    async def scenario() -> None:
        async with replica_and_client(lobby.server.url, **SOLE_CLIENT) as (replica, client):
            store = replica.host.store
            raw = store.client
            await raw.set(REPAIR_LEASE, "test", px=60_000)  # the replica's own repair stays off
            try:
                wanted = {(k, s): await _brute_force(store, k, s) for k in ("", *KINDS) for s in STATUSES}
                await raw.delete(*await _filter_keys(raw))
                assert not (await client.games(kind="stimmvieh", status=game_pb2.GAME_STATUS_OPEN)).games
                finished = wanted[("stimmvieh", game_pb2.GAME_STATUS_FINISHED)][0]
                summary = (await store.lobby_summaries([finished]))[finished]
                stale = lobby_position(summary.created_at, finished)
                await raw.zadd(lobby_filter_key("", game_pb2.GAME_STATUS_ACTIVE), {stale: 0})
                await raw.zadd(lobby_filter_key("stimmvieh", game_pb2.GAME_STATUS_ACTIVE), {stale: 0})
                gone = lobby_position(summary.created_at, "gleftthelobby")
                await raw.zadd(lobby_filter_key("", game_pb2.GAME_STATUS_OPEN), {gone: 0})
                await raw.zadd(lobby_filter_key("stimmvieh", game_pb2.GAME_STATUS_OPEN), {gone: 0})
                await raw.zadd(lobby_filter_key("stimmvieh"), {gone: 0})
                repair = LobbyRepair(store)
                lobby_size = await raw.zcard(LOBBY_KEY)
                for _ in range(lobby_size // REFILE_BATCH + 1):
                    await repair.repair_once()
                for (kind, status), games in wanted.items():
                    pages = await _walk(client, kind, status, 200)
                    assert [g for page in pages for g in page] == games, (kind, status)
                active = lobby_filter_key("", game_pb2.GAME_STATUS_ACTIVE)
                assert await raw.zscore(active, stale) is None
                assert await raw.zscore(lobby_filter_key("", game_pb2.GAME_STATUS_FINISHED), stale) == 0
                for key in await _filter_keys(raw):
                    assert await raw.zscore(key, gone) is None, key
            finally:
                await raw.delete(REPAIR_LEASE)

    run(scenario(), 60)


def test_expired_games_leave_the_filter_sets_with_the_lobby_and_a_call_reads_a_bounded_number(lobby: Lobby) -> None:
    """The bulk's games expire (their keys go, as Redis's expiry takes them): before the repair
    drops them, a filtered page passes over at most ``PAGE_SCAN_LIMIT`` of them per call and hands
    on a token; the repair then drops each from the lobby and from every filter set at once.
    Finished games are filed under FINISHED only."""

    async def scenario() -> None:
        async with replica_and_client(lobby.server.url, **SOLE_CLIENT) as (replica, client):
            store = replica.host.store
            raw = store.client
            await raw.set(REPAIR_LEASE, "test", px=60_000)
            try:
                for finished in await _brute_force(store, "", game_pb2.GAME_STATUS_FINISHED):
                    summary = (await store.lobby_summaries([finished]))[finished]
                    position = lobby_position(summary.created_at, finished)
                    filed = [k for k in await _filter_keys(raw) if await raw.zscore(k, position) is not None]
                    finished_keys = (lobby_filter_key("stimmvieh"), lobby_filter_key("", 3), lobby_filter_key("stimmvieh", 3))
                    assert sorted(filed) == sorted(k.encode() for k in finished_keys)
                still_open = [g for g in await _brute_force(store, "stimmvieh", game_pb2.GAME_STATUS_OPEN) if g not in lobby.bulk]
                await raw.delete(*(game_key(g) for g in lobby.bulk))
                calls, pages = 0, []
                token = ""
                for _ in range(20):
                    await raw.config_resetstat()
                    page = await client.games(
                        kind="stimmvieh", status=game_pb2.GAME_STATUS_OPEN, page_size=200, page_token=token
                    )
                    heads_read = (await _command_calls(raw)).get("hmget", 0)
                    assert heads_read <= PAGE_SCAN_LIMIT + 2, heads_read  # and a read of summaries per batch
                    calls += 1
                    pages.append([g.game_id for g in page.games])
                    token = page.next_page_token
                    if not token:
                        break
                assert [g for page in pages for g in page] == still_open
                assert calls >= BULK_OPEN // PAGE_SCAN_LIMIT + 1  # some pages were short, and went on
                repair = LobbyRepair(store, ghost_grace_s=0)
                for _ in range(BULK_OPEN // 500 + 2):
                    await repair.repair_once()
                assert not set(lobby.bulk) & set(await store.lobby_ids(0, 100_000))
                members = set()
                for key in await _filter_keys(raw):
                    members |= {m.decode().partition(":")[2] for m in await raw.zrange(key, 0, -1)}
                assert not members & set(lobby.bulk)
                page = await client.games(kind="stimmvieh", status=game_pb2.GAME_STATUS_OPEN, page_size=200)
                assert [g.game_id for g in page.games] == still_open
            finally:
                await raw.delete(REPAIR_LEASE)

    run(scenario(), 60)


def test_filtered_pages_and_the_repair_on_a_cluster(tmp_path: pathlib.Path) -> None:
    """On a three-master Cluster (the games on every shard, the lobby and its filter sets on one):
    filtered pages list what the brute-force filter lists, and the repair refiles a lobby that
    has lost its filter sets."""

    async def scenario(nodes: list[EmbeddedRedis]) -> None:
        rng = random.Random(8)
        url = f"redis+cluster://127.0.0.1:{nodes[0].port}"
        shards = [aioredis.Redis.from_url(node.url) for node in nodes]
        async with replica_and_client(url, **SOLE_CLIENT) as (replica, client):
            store = replica.host.store
            # The replica's own repair stays off (its lease taken here): a pass of it during a
            # walk would read the whole lobby, and a test longer than its first wait meets one.
            await store.client.set(REPAIR_LEASE, "test", px=60_000)
            for _ in range(24):
                kind = rng.choice(KINDS)
                created = await client.create_game(kind, PLAYERS[kind])
                for seat in range(rng.choice([0, PLAYERS[kind]])):
                    await client.join(created.game_id, f"P{seat}")
            for _ in range(2):
                for kind in ("", *KINDS):
                    for status in STATUSES:
                        wanted = await _brute_force(store, kind, status)
                        for shard in shards:
                            await shard.config_resetstat()
                        pages = await _walk(client, kind, status, 5)
                        assert [g for page in pages for g in page] == wanted, (kind, status)
                        if kind or status:  # read from the filter set, not the whole lobby
                            calls = [await _command_calls(shard) for shard in shards]
                            assert sum(c.get("zrevrange", 0) for c in calls) == 0, (kind, status)
                            assert sum(c.get("zrevrangebylex", 0) for c in calls) == len(pages), (kind, status)
                await store.client.set(REPAIR_LEASE, "test", px=60_000)
                for kind in KINDS:
                    await store.client.delete(*(lobby_filter_key(kind, s) for s in STATUSES))
                await store.client.delete(*(lobby_filter_key("", s) for s in FILED_STATUSES))
                await LobbyRepair(store).repair_once()
            await store.client.delete(REPAIR_LEASE)
        for shard in shards:
            await shard.aclose()

    with redis_cluster(tmp_path) as nodes:
        run(scenario(nodes), 120)
