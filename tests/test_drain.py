"""Stopping a replica behind a balancer: `--drain-seconds` (README Many replicas, deploy/README.md).

A balancer learns that a replica is going away by polling its health. A replica that stops
serving the moment it is told to stop refuses (or resets) the calls that the balancer still
sends it until its next poll; with a drain it reports NOT_SERVING at once and goes on serving
every call and stream for the drain's length, then stops as before. A second signal stops it
at once.
"""

from __future__ import annotations

import asyncio
import pathlib
import secrets
import signal
import subprocess
import time

import aiohttp
import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from conftest import run, serve_process
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.grpc_api import SERVICE_NAME
from hustings.service.replica import SOLE_CLIENT, Replica, ReplicaConfig
from hustings.service.rest import READY_PATH
from hustings.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc

LONG_DRAIN_S = 60.0  # far longer than the test: only the second signal (hurry) ends it
SERVING, NOT_SERVING = health_pb2.HealthCheckResponse.SERVING, health_pb2.HealthCheckResponse.NOT_SERVING


async def _health(channel: grpc.aio.Channel) -> int:
    return (await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME), timeout=5)).status


async def _until_not_serving(channel: grpc.aio.Channel) -> None:
    for _attempt in range(100):  # bounded: 5 s
        if await _health(channel) == NOT_SERVING:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the replica never reported NOT_SERVING")


def test_a_draining_replica_is_not_ready_yet_serves_calls_and_streams_until_hurried(tmp_path: pathlib.Path) -> None:
    # A Redis of its own: a replica with a secret of its own on the session's Redis would make
    # other replicas started there later refuse to start (a different server secret).
    async def scenario(server: EmbeddedRedis) -> None:
        config = ReplicaConfig(redis_url=server.url, address="127.0.0.1:0", http_address="127.0.0.1:0",
                               grace_s=1.0, drain_s=LONG_DRAIN_S, secret=secrets.token_bytes(32), **SOLE_CLIENT)
        replica = await Replica(config).start()
        hurry = asyncio.Event()
        stopping = asyncio.ensure_future(replica.stop(hurry))
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}") as channel:
                await _until_not_serving(channel)
                async with aiohttp.ClientSession() as http:
                    base = f"http://127.0.0.1:{replica.http_port}"
                    async with http.get(base + READY_PATH, timeout=aiohttp.ClientTimeout(total=5)) as ready:
                        assert (ready.status, (await ready.json())["status"]) == (503, "NOT_SERVING")
                    # Yet everything is served: a call over each face, and a new stream.
                    async with http.get(base + "/v1/games", timeout=aiohttp.ClientTimeout(total=5)) as listed:
                        assert listed.status == 200, await listed.text()
                games = game_service_pb2_grpc.GameServiceStub(channel)
                created = await games.CreateGame(
                    game_service_pb2.CreateGameRequest(kind="stimmvieh", options=game_pb2.GameOptions(players=3), request_id="drain-create-00001"), timeout=5
                )
                stream = games.WatchGame(game_service_pb2.WatchGameRequest(game_id=created.game_id), timeout=10)
                first = await asyncio.wait_for(stream.read(), 5)
                assert first.version == created.view.version
                assert not stopping.done()
                hurry.set()  # as a second signal does
                await asyncio.wait_for(stopping, 10)
                # Stopped: the stream was ended for clients to resume elsewhere, and calls fail.
                with pytest.raises(grpc.aio.AioRpcError) as ended:
                    while True:  # bounded: the stream ends with the replica
                        await asyncio.wait_for(stream.read(), 5)
                assert ended.value.code() == grpc.StatusCode.UNAVAILABLE
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await games.ListGames(game_service_pb2.ListGamesRequest(), timeout=2)
                assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
        finally:
            hurry.set()
            await stopping

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server), 60)


def test_serve_drains_on_sigterm_and_stops_on_a_second_signal(redis_server: EmbeddedRedis) -> None:
    """The command line: the first SIGTERM starts the drain (the replica still answers), the
    second one stops it at once, with exit status 0."""
    with serve_process("--redis-url", redis_server.url, "--drain-seconds", str(LONG_DRAIN_S)) as (process, port):
        async def calls_during_drain() -> None:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                assert await _health(channel) == SERVING
                process.send_signal(signal.SIGTERM)
                await _until_not_serving(channel)
                answer = await game_service_pb2_grpc.GameServiceStub(channel).ListGames(game_service_pb2.ListGamesRequest(), timeout=5)
                assert answer is not None
                assert process.poll() is None

        run(calls_during_drain(), 30)
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        try:
            status = process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            raise AssertionError("a second SIGTERM did not stop the draining replica") from None
        assert status == 0
        assert time.monotonic() - started < LONG_DRAIN_S / 2  # stopped by the signal, not by the drain's end
    assert "replica_draining" in process.log_text  # type: ignore[attr-defined]


def test_drain_seconds_is_checked_at_start() -> None:
    from hustings.cli import _parser

    assert _parser().parse_args(["serve"]).drain_seconds == 0  # by default a replica stops at once
    assert _parser().parse_args(["serve", "--drain-seconds", "7.5"]).drain_seconds == 7.5
    for bad in ("-1", "601", "soon", "nan"):
        with pytest.raises(SystemExit) as refused:
            _parser().parse_args(["serve", "--drain-seconds", bad])
        assert refused.value.code == 2
