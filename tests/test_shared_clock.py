"""Replicas agree on the time: a replica whose machine clock is off keeps the tables' deadlines by
the Redis server's clock (service/clock.py), so it neither times seats out early nor grants them
extra time."""

from __future__ import annotations

import asyncio
import pathlib
import time

import redis

from conftest import HeldClock, run
from service_helpers import stimmvieh_options
from hustings.client import Client
from hustings.service.clock import SharedClock
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import Replica, ReplicaConfig
from hustings.v1 import game_pb2, game_service_pb2

SKEW_S = 120.0  # the machine clock of the skewed replica runs two minutes fast
DECISION_S = 30
TOLERANCE_MS = 2_000


def _redis_now_ms(url: str) -> int:
    seconds, microseconds = redis.Redis.from_url(url).time()
    return seconds * 1000 + microseconds // 1000


def _fast() -> float:
    return time.time() + SKEW_S


def test_the_offset_from_redis_is_measured(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        client = redis.asyncio.Redis.from_url(redis_server.url)
        try:
            clock = SharedClock(client, local=_fast)
            offset = await clock.calibrate()
            assert abs(offset + SKEW_S) < TOLERANCE_MS / 1000
            assert abs(clock.time() * 1000 - _redis_now_ms(redis_server.url)) < TOLERANCE_MS
        finally:
            await client.aclose()

    run(scenario())


def test_a_replica_with_a_fast_clock_neither_times_out_early_nor_writes_late_deadlines(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        true = await Replica(ReplicaConfig(redis_url=redis_server.url, address="127.0.0.1:0", grace_s=0.5)).start()
        fast = await Replica(
            ReplicaConfig(redis_url=redis_server.url, address="127.0.0.1:0", grace_s=0.5, local_clock=_fast)
        ).start()
        on_true, on_fast = Client(f"127.0.0.1:{true.port}"), Client(f"127.0.0.1:{fast.port}")
        try:
            for creator in (on_true, on_fast):
                request = game_service_pb2.CreateGameRequest(kind="stimmvieh", options=stimmvieh_options(3))
                request.table.CopyFrom(game_pb2.TableSettings(decision_seconds=DECISION_S))
                game_id = (await creator.stub.CreateGame(request)).game_id
                for name in ("Ada", "Bo", "Cy"):
                    await creator.join(game_id, name)
                view = await creator.view(game_id)
                expected = _redis_now_ms(redis_server.url) + DECISION_S * 1000
                assert all(abs(s.deadline_unix_ms - expected) < TOLERANCE_MS for s in view.seats), (
                    [s.deadline_unix_ms for s in view.seats], expected
                )
                # Both replicas poll the deadlines several times meanwhile (every 0.25 s).
                await asyncio.sleep(2.0)
                later = await on_true.view(game_id)
                assert later.version == view.version  # nothing was applied: no seat timed out
                assert not any(s.timeouts for s in later.seats)
        finally:
            await on_true.close()
            await on_fast.close()
            await fast.stop()
            await true.stop()

    run(scenario())


def test_the_lobby_repair_keeps_time_by_the_shared_clock(tmp_path: pathlib.Path) -> None:
    """The repair gives an entry whose game does not exist yet (a CreateGame indexes its game
    before the commit) a minute for its commit, by the clock every replica shares, as the entry's
    creation time was written. It read the machine clock instead: on a replica whose clock ran a
    minute or more fast, a game created on another replica could lose its entry before its commit
    and stay out of the lobby until its first join."""
    clock = HeldClock()

    async def scenario(url: str) -> None:
        replica = await Replica(ReplicaConfig(redis_url=url, address="127.0.0.1:0", grace_s=0.5, local_clock=clock)).start()
        try:
            host = replica.host
            ghost = game_pb2.GameSummary(
                game_id="g" + "7" * 24, kind="stimmvieh", status=game_pb2.GAME_STATUS_OPEN, version=1, created_at=int(host._clock())
            )
            assert await host.store.index(ghost)
            await host.lobby_repair.repair_once()
            assert await host.store.in_lobby([ghost.game_id]) == [True]  # within its minute
            clock.now += 61  # a minute on, by the shared clock
            await host.lobby_repair.repair_once()
            assert await host.store.in_lobby([ghost.game_id]) == [False]
        finally:
            await replica.stop()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url))
