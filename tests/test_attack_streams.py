"""Streams opened by one client against the others, over gRPC and the REST event stream, on a
real replica and Redis on loopback: a stream that is refused pays for what its refusal read
(a game that is not there, a version ahead, a foreign token) as a unary call does, a client over
its rate of calls is refused before anything is read, and refusals any client can cause at will
are logged sparsely rather than one line each.

The replica's rate of calls is small (a burst of ``BURST``, one a second after it), so that a
few dozen requests show what a loop of them would do; every wait is bounded."""

from __future__ import annotations

import contextlib
import math
import time
from typing import AsyncIterator

import aiohttp
import grpc
import structlog

from conftest import run
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import Replica, ReplicaConfig
from hustings.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc
from test_watchers import reason_of

BURST = 10  # calls one address may make at once
TRIES = 4 * BURST  # requests sent in a loop, far past the burst
NO_GAME = "g" + "0" * 24  # a well-formed game id of no game
WAIT_S = 30.0  # bound on any one request


@contextlib.asynccontextmanager
async def small_rate_replica(redis_url: str) -> AsyncIterator[Replica]:
    """A replica with gRPC and REST on free ports whose addresses may call ``BURST`` times at
    once and once a second after that."""
    replica = await Replica(
        ReplicaConfig(
            redis_url=redis_url,
            address="127.0.0.1:0",
            http_address="127.0.0.1:0",
            grace_s=1.0,
            calls_per_client_per_second=1.0,
            call_burst=BURST,
        )
    ).start()
    try:
        yield replica
    finally:
        await replica.stop()


async def grpc_watch_refusal(stub: game_service_pb2_grpc.GameServiceStub, game_id: str, from_version: int) -> str:
    """The reason a WatchGame stream is refused with ("" when it sends an update)."""
    call = stub.WatchGame(game_service_pb2.WatchGameRequest(game_id=game_id, from_version=from_version), timeout=WAIT_S)
    try:
        async for _update in call:
            return ""
    except grpc.aio.AioRpcError as error:
        return reason_of(error)
    finally:
        call.cancel()
    return ""


# An address far past its rate (more calls refused than a burst, faster than its rate) has its
# REST connections closed after a 429 and its new ones reset for a while: a refusal for its rate
# too, without an answer.
RESET = "CONNECTION_RESET"


async def rest_watch_refusal(session: aiohttp.ClientSession, base: str, game_id: str, from_version: int) -> str:
    """The reason an event stream is refused with before it starts ("" when it starts;
    ``RESET`` for a connection closed without an answer)."""
    try:
        async with session.get(f"{base}/v1/games/{game_id}:watch?fromVersion={from_version}") as response:
            if response.status == 200:
                return ""
            body = await response.json()
            reason: str = body["details"][0]["reason"]
            return reason
    except (aiohttp.ClientOSError, aiohttp.ServerDisconnectedError):
        return RESET


def test_grpc_streams_refused_after_a_read_count_towards_the_rate(redis_server: EmbeddedRedis) -> None:
    """A WatchGame for a game that is not there, or from a version ahead, read the game and was
    refused without counting as a call: one address had a Redis read and a log line each, as
    fast as it could send them, while its GetView calls were refused CALL_RATE_EXCEEDED."""

    async def scenario() -> dict[str, dict[str, int]]:
        async with small_rate_replica(redis_server.url) as replica:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}") as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                created = await stub.CreateGame(
                    game_service_pb2.CreateGameRequest(kind="stimmvieh", options=game_pb2.GameOptions(players=3))
                )
                seen: dict[str, dict[str, int]] = {}
                for name, game_id, from_version in (("no game", NO_GAME, 0), ("ahead", created.game_id, 10**9)):
                    reasons = seen[name] = {}
                    for _ in range(TRIES):
                        reason = await grpc_watch_refusal(stub, game_id, from_version)
                        reasons[reason] = reasons.get(reason, 0) + 1
                return seen

    seen = run(scenario())
    assert isinstance(seen, dict)
    assert seen["no game"].get("GAME_NOT_FOUND", 0) <= BURST, seen
    assert seen["no game"].get("CALL_RATE_EXCEEDED", 0) >= TRIES - BURST - 2, seen
    assert seen["ahead"].get("FROM_VERSION_AHEAD", 0) <= 2, seen  # the burst is spent by now
    assert seen["ahead"].get("CALL_RATE_EXCEEDED", 0) >= TRIES - 2, seen


def test_event_streams_are_refused_for_the_rate_before_the_game_is_read(redis_server: EmbeddedRedis) -> None:
    """Over REST an event stream read the game (a GetView) before its rate was looked at, and
    a refusal after that read (no game, a version ahead) counted nothing: an address over its
    rate still had every such request answered 404 or 400, each after a read of Redis."""

    async def scenario() -> dict[str, dict[str, int]]:
        async with small_rate_replica(redis_server.url) as replica:
            base = f"http://127.0.0.1:{replica.http_port}"
            timeout = aiohttp.ClientTimeout(total=WAIT_S)
            async with aiohttp.ClientSession(timeout=timeout) as session:
                async with session.post(f"{base}/v1/games", json={"kind": "stimmvieh", "options": {"players": 3}}) as made:
                    game_id = (await made.json())["gameId"]
                seen: dict[str, dict[str, int]] = {}
                for name, watched, from_version in (("no game", NO_GAME, 0), ("ahead", game_id, 10**9), ("open", game_id, 0)):
                    reasons = seen[name] = {}
                    for _ in range(TRIES):
                        reason = await rest_watch_refusal(session, base, watched, from_version)
                        reasons[reason] = reasons.get(reason, 0) + 1
                return seen

    seen = run(scenario())
    assert isinstance(seen, dict)
    def for_the_rate(reasons: dict[str, int]) -> int:
        return reasons.get("CALL_RATE_EXCEEDED", 0) + reasons.get(RESET, 0)

    assert seen["no game"].get("GAME_NOT_FOUND", 0) <= BURST, seen
    assert seen["no game"].get("CALL_RATE_EXCEEDED", 0) >= 1, seen
    assert for_the_rate(seen["no game"]) >= TRIES - BURST - 2, seen
    assert seen["ahead"].get("FROM_VERSION_AHEAD", 0) <= 2, seen
    assert seen["open"].get("", 0) <= 2, seen  # no stream opens past the rate either
    assert for_the_rate(seen["open"]) >= TRIES - 2, seen


def test_refused_streams_are_logged_sparsely(redis_server: EmbeddedRedis) -> None:
    """Every refused stream wrote a ``stream_ended`` line: one address made 898 lines in a
    second with refused WatchGame calls over one connection (refusals for its rate among them,
    which cost it nothing). Now a refusal is logged at most once a second per reason on each
    face, with the count of those alike left out since the line before."""

    async def scenario() -> tuple[list[dict[str, object]], float]:
        async with small_rate_replica(redis_server.url) as replica:
            base = f"http://127.0.0.1:{replica.http_port}"
            with structlog.testing.capture_logs() as logged:
                started = time.monotonic()
                async with grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}") as channel:
                    stub = game_service_pb2_grpc.GameServiceStub(channel)
                    for _ in range(TRIES):
                        await grpc_watch_refusal(stub, NO_GAME, 0)
                async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=WAIT_S)) as session:
                    for _ in range(TRIES):
                        await rest_watch_refusal(session, base, NO_GAME, 0)
                elapsed_s = time.monotonic() - started
            return [line for line in logged if line.get("event") == "stream_ended"], elapsed_s

    outcome = run(scenario())
    assert isinstance(outcome, tuple)
    ended, elapsed_s = outcome
    reasons = {str(line["reason"]) for line in ended}
    assert reasons <= {"GAME_NOT_FOUND", "CALL_RATE_EXCEEDED"}, reasons
    # Two reasons on each of two faces, a line a second each at most (the first at once).
    assert len(ended) <= 2 * 2 * (math.ceil(elapsed_s) + 1) < 2 * TRIES, (len(ended), elapsed_s)
    assert all("alike_not_logged" in line for line in ended)  # the next line of a reason counts those left out
