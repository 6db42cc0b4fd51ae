"""The commits' lane (service/lane.py): one pooled connection, commands queued together written in
one go, replies handed out in order, and a lost connection redialled without a step applied
twice. Against a real Redis, and through a real loopback TCP proxy that cuts a reply."""

from __future__ import annotations

import asyncio
import contextlib
import os
import pathlib
import signal
import time
from typing import AsyncIterator

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.lane import RESEND_PAUSE_S, RESENDS, Lane
from hustings.service.store import Store, game_key
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2
from service_helpers import CommitReplyCutter

TIMEOUT_S = 20.0


def _client(url: str, max_connections: int = 4) -> aioredis.Redis:
    pool = aioredis.BlockingConnectionPool.from_url(url, max_connections=max_connections, timeout=5, socket_timeout=5)
    return aioredis.Redis.from_pool(pool)


async def _in_use(client: aioredis.Redis) -> int:
    return len(client.connection_pool._in_use_connections)  # type: ignore[attr-defined]


@contextlib.asynccontextmanager
async def lane_on(url: str) -> AsyncIterator[tuple[aioredis.Redis, Lane]]:
    """A client of ``url`` and a lane over its pool, both closed afterwards (the lane first)."""
    client = _client(url)
    lane = Lane(client)
    try:
        yield client, lane
    finally:
        await lane.close()
        await client.aclose()


def test_commands_queued_together_go_out_in_one_batch_with_their_own_replies(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with lane_on(redis_server.url) as (client, lane):
            await client.delete("lane:a", "lane:b", "lane:n")
            futures = [lane.call("SET", f"lane:{name}", name.upper()) for name in "ab"]
            futures += [lane.call("INCRBY", "lane:n", str(i)) for i in range(1, 6)]
            futures.append(lane.call(b"GET", b"lane:a"))
            replies = await asyncio.wait_for(asyncio.gather(*futures), TIMEOUT_S)
            assert replies == [b"OK", b"OK", 1, 3, 6, 10, 15, b"A"]  # raw replies: no redis-py callbacks
            assert (lane.batches, lane.commands) == (1, 8)
            # A call made while the loop is idle goes at once, in a batch of its own.
            assert await asyncio.wait_for(lane.call("GET", "lane:b"), TIMEOUT_S) == b"B"
            assert (lane.batches, lane.commands) == (2, 9)
            assert await _in_use(client) == 1  # the lane holds one connection of the pool, no more
            await lane.close()
            assert await _in_use(client) == 0

    asyncio.run(scenario())


def test_a_refused_command_fails_alone(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with lane_on(redis_server.url) as (client, lane):
            await client.set("lane:text", "not a number")
            before = lane.call("SET", "lane:c", "1")
            refused = lane.call("INCR", "lane:text")
            unknown = lane.call("EVALSHA", "0" * 40, "0")
            after = lane.call("GET", "lane:c")
            results = await asyncio.wait_for(asyncio.gather(before, refused, unknown, after, return_exceptions=True), TIMEOUT_S)
            assert results[0] == b"OK" and results[3] == b"1"
            assert isinstance(results[1], ResponseError) and "not an integer" in str(results[1])
            assert isinstance(results[2], NoScriptError)
            assert lane.batches == 1

    asyncio.run(scenario())


def test_a_killed_connection_is_redialled(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with lane_on(redis_server.url) as (client, lane):
            first = await asyncio.wait_for(lane.call("CLIENT", "ID"), TIMEOUT_S)
            assert await client.client_kill_filter(_id=first) == 1
            await client.set("lane:after-kill", "still here")
            assert await asyncio.wait_for(lane.call("GET", "lane:after-kill"), TIMEOUT_S) == b"still here"
            second = await asyncio.wait_for(lane.call("CLIENT", "ID"), TIMEOUT_S)
            assert second != first
            assert await _in_use(client) == 1

    asyncio.run(scenario())


def test_close_answers_what_is_queued_and_returns_the_connection(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        client = _client(redis_server.url)
        lane = Lane(client)
        await asyncio.wait_for(lane.call("PING"), TIMEOUT_S)
        queued = lane.call("PING")
        await lane.close()
        with pytest.raises(RedisConnectionError):
            await queued
        with pytest.raises(RedisConnectionError):
            await lane.call("PING")
        assert await _in_use(client) == 0
        await client.aclose()

    asyncio.run(scenario())


def test_a_silent_redis_times_the_batch_out_and_the_connection_gets_its_timeout_back(tmp_path: pathlib.Path) -> None:
    """The lane's connection writes without redis-py's per-write timeout: the batch's own bound
    (the pool's socket timeout) must still end a batch that Redis never answers, and the
    connection returned to the pool must carry its socket timeout again."""
    socket_timeout_s = 0.5

    async def scenario(server: EmbeddedRedis) -> None:
        pool = aioredis.BlockingConnectionPool.from_url(server.url, max_connections=2, timeout=5, socket_timeout=socket_timeout_s)
        client = aioredis.Redis.from_pool(pool)
        lane = Lane(client)
        try:
            assert await asyncio.wait_for(lane.call("PING"), TIMEOUT_S) in (b"PONG", True)
            held = lane._connection
            assert held is not None and held.socket_timeout is None  # the batch bounds it instead
            pid = server._process.pid  # type: ignore[union-attr]
            os.kill(pid, signal.SIGSTOP)
            started = time.monotonic()
            try:
                with pytest.raises(RedisTimeoutError):
                    await asyncio.wait_for(lane.call("PING"), TIMEOUT_S)
            finally:
                os.kill(pid, signal.SIGCONT)
            took = time.monotonic() - started
            print(f"gave up after {took:.2f} s")
            # Each of the 1 + RESENDS attempts waits one bound, with short pauses between.
            assert took <= (1 + RESENDS) * socket_timeout_s + sum(RESEND_PAUSE_S) + 2.0
            assert held.socket_timeout == socket_timeout_s  # given back to the pool as it came
            assert await asyncio.wait_for(lane.call("PING"), TIMEOUT_S) in (b"PONG", True)  # and the lane goes on
        finally:
            await lane.close()
            await client.aclose()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        asyncio.run(asyncio.wait_for(scenario(server), 60))


def test_a_lane_without_redis_gives_up_with_a_connection_error(tmp_path: object) -> None:
    async def scenario(url: str) -> None:
        async with lane_on(url) as (client, lane):
            with pytest.raises(RedisConnectionError):
                await asyncio.wait_for(lane.call("PING"), TIMEOUT_S)
            assert await _in_use(client) == 0

    from hustings.service.embedded_redis import free_port

    asyncio.run(scenario(f"redis://127.0.0.1:{free_port()}/0"))  # nothing listens there


def test_a_commit_whose_reply_is_lost_is_sent_again_and_applied_once(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        # The step's commit carries its request key: its first reply is lost.
        async with CommitReplyCutter(redis_server.port, b"move-key").running() as proxy:
            store = Store.from_url(proxy.url, max_connections=4)
            try:
                game = storage_pb2.StoredGame(game_id="lane-lost-reply", kind="stimmvieh", version=1, status=game_pb2.GAME_STATUS_ACTIVE)
                await store.client.delete(game_key(game.game_id))
                created = await store.commit(game, 0, storage_pb2.LogEntry(version=1), "create-key", "f0")
                assert created.status == "OK"
                step = storage_pb2.StoredGame()
                step.CopyFrom(game)
                step.version = 2
                result = await asyncio.wait_for(store.commit(step, 1, storage_pb2.LogEntry(version=2), "move-key", "f1"), TIMEOUT_S)
                assert proxy.cut == 1  # the first reply was lost on the way back
                # Sent again on a new connection, the step is recognised by its request key.
                assert result.status == "DUPLICATE" and result.recorded is not None
                assert (result.recorded.version, result.recorded.fingerprint) == (2, "f1")
                assert await store.version_of(game.game_id) == 2
                assert await store.client.xlen(f"hustings:{{{game.game_id}}}:log") == 2
            finally:
                await store.close()

    asyncio.run(scenario())


def test_a_replica_needs_three_connections_one_for_the_lane(capsys: pytest.CaptureFixture[str]) -> None:
    """README: the pool holds the update subscription and the lane, so at least 3 (2 on a
    Cluster, which has no lane)."""
    from hustings.cli import main

    with pytest.raises(SystemExit) as exited:
        main(["serve", "--redis-max-connections", "2"])
    assert exited.value.code == 2
    assert "at least 3" in capsys.readouterr().err
    with pytest.raises(ValueError, match="at least 3"):
        Store.from_url("redis://127.0.0.1:1/0", max_connections=2)
    cluster = Store.from_url("redis+cluster://127.0.0.1:1", max_connections=2)
    assert cluster.lane is None
    asyncio.run(cluster.close())
    # A scheme in capitals is the same scheme (URL schemes ignore case).
    shouting = Store.from_url("REDIS+CLUSTER://127.0.0.1:1", max_connections=2)
    assert shouting.lane is None
    asyncio.run(shouting.close())
