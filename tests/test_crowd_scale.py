"""What grows with the size of a deployment rather than with its load, pinned at the size of a
test: each test counts entries, keys or Redis commands (INFO commandstats) in a real Redis, never
time.

The lobby's repair (``service/lobby.py``) is run with small batches, the caps of a lobby of
100,000 games at the size of a test.
"""

from __future__ import annotations

import asyncio
import pathlib
import time

import pytest

from conftest import run, running_replica
from hustings.client import Client
from hustings.service import lobby, table
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.lobby import LobbyRepair
from hustings.service.store import LOBBY_KEY, LOBBY_LIVE_KEY, Store, game_key, log_key
from hustings.v1 import game_pb2

FINISHED_GAMES = 6  # two batches of the prune, the lobby's oldest
OPEN_GAMES = 24  # kept: eight batches
WALK_PASSES = 3  # passes over a lobby where nothing has expired, before the oldest games expire
GHOSTS = 30  # open games left by a burst that expired together, in two batches of the live set


async def _games(url: str, finished_count: int, open_count: int) -> tuple[list[str], list[str]]:
    """Games of bots alone played to the end, then (a second later, so that every one is newer)
    open games, made through a replica that is stopped again (so that only the test's repair runs)."""
    bots = game_pb2.TableSettings(bot_seats=[0, 1, 2], bot_level="random")
    async with running_replica(url) as replica:
        async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
            finished = [(await client.create_game("stimmvieh", 3, table=bots)).game_id for _ in range(finished_count)]
            for _ in range(600):
                views = [await client.view(game_id) for game_id in finished]
                if all(v.status == game_pb2.GAME_STATUS_FINISHED for v in views):
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError("the bots did not finish their games in 30 s")
            if finished:
                await asyncio.sleep(1.0)  # creation times are in seconds
            open_games = [(await client.create_game("stimmvieh", 3)).game_id for _ in range(open_count)]
    return finished, open_games


async def _expire_now(store: Store, game_ids: list[str]) -> None:
    """Let the games' keys expire as their retention would, a millisecond from now (bounded wait)."""
    for game_id in game_ids:
        for key in (game_key(game_id), log_key(game_id)):
            await store.client.pexpire(key, 1)
    for _ in range(200):
        if not await store.client.exists(*[game_key(g) for g in game_ids]):
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the games' keys did not expire within 2 s")


def test_games_expiring_at_the_lobbys_old_end_leave_it_in_one_pass_wherever_the_walk_is(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Finished games expire a retention after their end, so in a steady state they leave the
    lobby at its oldest end (open and running games are dropped by the repair of the live set).
    The prune started each pass where the last one stopped, and a pass over kept games moves on
    by one batch: once past the oldest end, games expiring there stayed listed until the walk
    had crossed the whole lobby and come back (a lobby of L entries: L / 500 passes), so a
    deployment creating R games a second held about R * L / 130 dead entries, R squared for a
    fixed retention. A pass now looks at the oldest end first."""
    monkeypatch.setattr(lobby, "REPAIR_BATCH", 3)
    monkeypatch.setattr(table, "BOT_ONLY_STEP_MS", 1)  # the finished games' bots at a quick pace

    async def scenario(url: str) -> None:
        finished, open_games = await _games(url, FINISHED_GAMES, OPEN_GAMES)
        store = Store.from_url(url)
        try:
            assert set(await store.oldest_lobby_ids(FINISHED_GAMES)) == set(finished)
            assert await store.client.zmscore(LOBBY_LIVE_KEY, finished) == [None] * FINISHED_GAMES  # not live: the prune's to drop
            repair = LobbyRepair(store, clock=lambda: time.time() + 3600)  # every game is past its grace
            for _pass in range(WALK_PASSES):  # nothing has expired: the walk moves on
                await repair.repair_once()
            assert await store.client.zcard(LOBBY_KEY) == FINISHED_GAMES + OPEN_GAMES
            await _expire_now(store, finished)
            await repair.repair_once()  # one pass
            listed = set(await store.oldest_lobby_ids(FINISHED_GAMES + OPEN_GAMES))
            assert not listed & set(finished), f"{len(listed & set(finished))} of {FINISHED_GAMES} expired entries left"
            assert listed == set(open_games)  # the games that are kept stay
        finally:
            await store.close()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url))


async def _script_loads(store: Store) -> int:
    """SCRIPT LOAD calls since the last CONFIG RESETSTAT: one for each batch of unindex scripts."""
    stats = await store.client.info("commandstats")
    return int(stats.get("cmdstat_script", {}).get("calls", 0))


def test_expired_open_games_leave_the_live_set_a_batch_at_a_time(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Open games made in a burst and never joined expire together a day later, and the repair
    of the live set finds them. It dropped each on its own, in three round trips (its summary,
    the script, the unindex): 10,000 of them behind 5,000 kept games took 5.3 s of the replica's
    CPU over five passes. A batch's expired games are now dropped together, as the prune drops
    its batch: one script load and one pipeline for the batch (0.4 s)."""
    monkeypatch.setattr(lobby, "REPAIR_BATCH", 20)

    async def scenario(url: str) -> None:
        _finished, kept = await _games(url, 0, 4)
        store = Store.from_url(url)
        try:
            repair = LobbyRepair(store, clock=lambda: time.time() + 3600)
            await repair.repair_once()  # Redis learns the repair's scripts: a later load is an unindex batch's
            for i in range(GHOSTS):  # entries whose games are gone, newer than the kept games
                summary = game_pb2.GameSummary(
                    game_id=f"gopenandexpired{i:04d}", kind="stimmvieh", version=1,
                    created_at=int(time.time()) + 60 + i, status=game_pb2.GAME_STATUS_OPEN,
                )
                assert await store.index(summary)
            assert await store.client.zcard(LOBBY_LIVE_KEY) == GHOSTS + len(kept)
            await store.client.config_resetstat()
            await repair.repair_once()  # one pass
            assert set(await store.oldest_lobby_ids(100)) == set(kept)  # every expired one left
            batches = -(-(GHOSTS + len(kept)) // lobby.REPAIR_BATCH)
            assert await _script_loads(store) <= batches, "the expired games were dropped one at a time"
        finally:
            await store.close()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url))
