"""Replicas agree on the time: a replica whose machine clock is off keeps the tables' deadlines by
the Redis server's clock (service/clock.py), so it neither times seats out early nor grants them
extra time."""

from __future__ import annotations

import asyncio
import time

import redis

from conftest import run
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
