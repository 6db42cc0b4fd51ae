"""The deadline runner's background tasks under Redis trouble (service/deadlines.py,
service/seats.py): real Redis servers of each test's own, paused (SIGSTOP), killed and started
again on their append-only file (everysec, as ``serve`` runs it), and real replicas on them, one
of which stops mid-way. Every seat's player here never moves, so every step after the game
starts is one timeout (its bot's decision): the seats' timeouts add up to the versions past the
start when each was applied exactly once, and a game whose version stands still while its clock
has run out is a timeout waiting."""

from __future__ import annotations

import asyncio
import os
import pathlib
import signal
import time

import pytest
import redis.asyncio as aioredis

from conftest import run
from hustings.client import Client
from hustings.service import deadlines
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import SOLE_CLIENT, Replica, ReplicaConfig
from hustings.v1 import game_pb2
from service_helpers import replica_and_client

PLAYERS = 3


async def _clocked_games(client: Client, count: int, level: str) -> list[str]:
    """``count`` Stimmvieh games whose players never move: every decision times out after 1 s and
    the table's ``level`` of bot makes it (seats never go absent within the test)."""
    settings = game_pb2.TableSettings(decision_seconds=1, absent_after_timeouts=100, bot_level=level)
    games = []
    for _ in range(count):
        game_id = (await client.create_game("stimmvieh", PLAYERS, table=settings)).game_id
        for seat in range(PLAYERS):
            await client.join(game_id, f"P{seat}")
        games.append(game_id)
    return games


async def _versions(client: Client, games: list[str]) -> dict[str, int]:
    return {game_id: (await client.view(game_id)).version for game_id in games}


async def _first_steps_after(client: Client, games: list[str], since: dict[str, int], began: float, within_s: float) -> dict[str, float]:
    """How long after ``began`` each game first moved past ``since`` (games that did not within
    ``within_s`` are left out); views every 50 ms, bounded."""
    moved: dict[str, float] = {}
    ends = began + within_s
    while len(moved) < len(games) and time.monotonic() < ends:
        for game_id in games:
            if game_id not in moved and (await client.view(game_id)).version > since[game_id]:
                moved[game_id] = time.monotonic() - began
        await asyncio.sleep(0.05)
    return moved


async def _timeouts_counted_once(client: Client, games: list[str], started: dict[str, int]) -> list[tuple[str, int, int]]:
    """Games whose seats' timeouts do not add up to the steps since ``started`` (none expected)."""
    wrong = []
    for game_id in games:
        view = await client.view(game_id)
        counted = sum(seat.timeouts for seat in view.seats)
        if counted != view.version - started[game_id]:
            wrong.append((game_id, counted, view.version - started[game_id]))
    return wrong


def _first_deadline_s(views: list[game_pb2.GameView], now_ms: int) -> float:
    return (min(seat.deadline_unix_ms for view in views for seat in view.seats if seat.deadline_unix_ms) - now_ms) / 1000


def test_a_redis_pause_while_tens_of_games_time_out_loses_and_repeats_no_timeout(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """30 games' clocks run out together; Redis is frozen (SIGSTOP) for 2.5 s as they do, so
    polls, claims, reads and commits wait in the middle. Once it goes on, every game takes its
    timeouts within a couple of polls (not a lease later), and each exactly once."""
    monkeypatch.setattr(deadlines, "LEASE_MS", 4_000)

    async def scenario(server: EmbeddedRedis) -> None:
        async with replica_and_client(server.url, **SOLE_CLIENT) as (replica, client):
            games = await _clocked_games(client, 30, "random")
            started = await _versions(client, games)
            views = [await client.view(game_id) for game_id in games]
            await asyncio.sleep(max(0.0, _first_deadline_s(views, replica.host._now_ms()) + 0.05))
            os.kill(server.pid, signal.SIGSTOP)  # type: ignore[arg-type]
            try:
                await asyncio.sleep(2.5)
            finally:
                os.kill(server.pid, signal.SIGCONT)  # type: ignore[arg-type]
            resumed = time.monotonic()
            moved = await _first_steps_after(client, games, started, resumed, 6.0)
            assert len(moved) == len(games), f"{len(games) - len(moved)} games took no timeout within 6 s of Redis going on"
            assert max(moved.values()) < deadlines.LEASE_MS / 2000, sorted(moved.values())
            await asyncio.sleep(1.2)  # another round of timeouts
            assert await _timeouts_counted_once(client, games, started) == []

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server), 60)


def test_games_being_applied_when_redis_restarts_are_decided_soon_after_it_is_back(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """8 games of strong bots time out together, so the runner is applying them all (one bot
    thinks at a time, the others wait at the thinking place) when Redis is killed and started
    again on its append-only file a second later. Each task then fails on a ConnectionError
    (``deadline_failed``); its claim, which stood until the lease ran out (10 s in service, 6 s
    here) with every clock of those games, is handed back due at the first poll that Redis
    answers, as ``stop`` hands back."""
    monkeypatch.setattr(deadlines, "LEASE_MS", 6_000)

    async def scenario(server: EmbeddedRedis) -> None:
        async with replica_and_client(server.url, **SOLE_CLIENT) as (replica, client):
            host = replica.host
            games = await _clocked_games(client, 8, "strong")
            started = await _versions(client, games)
            views = [await client.view(game_id) for game_id in games]
            await asyncio.sleep(max(0.0, _first_deadline_s(views, host._now_ms()) + 1.2))  # claimed, on disk
            server.kill()
            await asyncio.sleep(1.0)
            await asyncio.to_thread(server.start)
            back = time.monotonic()
            admin = aioredis.Redis.from_url(server.url)
            try:
                now = host._now_ms()
                leased = [g for g in games if (await admin.zscore(deadlines.bucket_key(g), g) or 0) > now + 1_000]
            finally:
                await admin.aclose()
            assert leased, "no claim was held when Redis went away (the test did not catch the games being applied)"
            since = await _versions(client, games)
            # Due at once and the thinking place free again: 8 decisions of 0.2 s each.
            moved = await _first_steps_after(client, games, since, back, deadlines.LEASE_MS / 1000 + 2)
            waited = sorted(round(moved.get(g, float("inf")), 2) for g in games)
            assert max(waited) < deadlines.LEASE_MS / 2000, (
                f"{len(leased)} of {len(games)} games still claimed when Redis came back; "
                f"seconds until each game's next decision after Redis was back: {waited}"
            )
            assert await _timeouts_counted_once(client, games, started) == []

    with EmbeddedRedis(tmp_path / "redis", appendonly=True, appendfsync="everysec") as server:
        run(scenario(server), 60)


def test_a_replica_stopping_mid_way_hands_its_games_to_the_other_and_none_is_decided_twice(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two replicas on one Redis apply the timeouts of 6 tables of strong bots and 10 of random
    ones; one replica stops mid-way (its games being applied cancelled and handed back). The
    other takes them: every game goes on taking timeouts after the stop, each counted once, and
    the random tables' clocks do not wait behind the strong bots' thinking or for a lease."""
    monkeypatch.setattr(deadlines, "LEASE_MS", 4_000)

    async def scenario(server: EmbeddedRedis) -> None:
        first = await Replica(ReplicaConfig(redis_url=server.url, address="127.0.0.1:0", grace_s=1.0, **SOLE_CLIENT)).start()
        stopping = None
        try:
            async with replica_and_client(server.url, **SOLE_CLIENT) as (_second, client):
                strong = await _clocked_games(client, 6, "strong")
                plain = await _clocked_games(client, 10, "random")
                games = strong + plain
                started = await _versions(client, games)
                await asyncio.sleep(2.0)  # both replicas apply timeouts
                stopping = asyncio.ensure_future(first.stop())
                stopped = time.monotonic()
                since = await _versions(client, games)
                moved = await _first_steps_after(client, games, since, stopped, deadlines.LEASE_MS / 1000)
                assert set(moved) == set(games), f"{len(set(games) - set(moved))} games stood still after the other replica stopped"
                # Before a lease runs out (4 s): 1.9-2.0 s on a quiet machine, 2.1 s once in a loaded run.
                assert max(moved[g] for g in plain) < deadlines.LEASE_MS * 0.75 / 1000, sorted(moved[g] for g in plain)
                await stopping
                assert await _timeouts_counted_once(client, games, started) == []
        finally:
            if stopping is None:
                await first.stop()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server), 60)
