"""A CreateGame retried under its request id (README, Retries) answers the first call's game and
takes nothing from the client's creation allowance (README, Limits), even when that allowance is
used up; a create that is new is still refused then. Raw stubs and plain HTTP, so that no
client-side retry hides what one call gets."""

from __future__ import annotations

import asyncio
import contextlib
from typing import AsyncIterator

import aiohttp
import grpc
import pytest
import redis.asyncio

from conftest import run
from hustings.client import HustingsError
from hustings.service.client_limits import CreationLimit
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import Replica, ReplicaConfig
from hustings.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc

CLIENT = "127.0.0.1"
# So slow a refill that none comes within a test: any change of the level is a game taken or given.
CREATES_PER_MINUTE = 0.001
LEVEL_TOLERANCE = 0.001
# The most Redis holds writes while the attempts of a create come in (it is let go once they have).
PAUSE_MS = 20_000
WAIT_S = 10.0


@contextlib.asynccontextmanager
async def replica(redis_url: str, burst: int) -> AsyncIterator[tuple[Replica, game_service_pb2_grpc.GameServiceStub]]:
    """A replica with both faces and a creation burst of ``burst``, and a raw gRPC stub of it."""
    started = await Replica(
        ReplicaConfig(
            redis_url=redis_url,
            address="127.0.0.1:0",
            http_address="127.0.0.1:0",
            grace_s=1.0,
            create_burst=burst,
            creates_per_client_per_minute=CREATES_PER_MINUTE,
        )
    ).start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{started.port}") as channel:
            yield started, game_service_pb2_grpc.GameServiceStub(channel)
    finally:
        await started.stop()


def create(request_id: str, players: int = 3) -> game_service_pb2.CreateGameRequest:
    """A three-seat Stimmvieh game under ``request_id``."""
    return game_service_pb2.CreateGameRequest(
        kind="stimmvieh", options=game_pb2.GameOptions(players=players), request_id=request_id
    )


async def refusal(call: "asyncio.Future[object]") -> tuple[grpc.StatusCode, str]:
    """The status code and ErrorInfo reason of a call expected to fail."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call
    return caught.value.code(), HustingsError.from_rpc_error(caught.value).reason


def level(creations: CreationLimit) -> float:
    """The games this test's client may still create."""
    return creations.tokens(CLIENT)


def test_a_retried_create_is_answered_from_an_empty_allowance_and_takes_nothing(redis_server: EmbeddedRedis) -> None:
    """Burst 2: creates under three request ids, the third refused TOO_MANY_GAMES_CREATED; then
    retries of the first two (gRPC and REST) answer their games, are not refused and leave the
    level as it is; the refused third is still refused on a retry (it created nothing), and the
    first id with another request is REQUEST_ID_REUSED, both leaving the level as it is."""

    async def scenario() -> None:
        async with replica(redis_server.url, burst=2) as (one, stub), aiohttp.ClientSession() as http:
            creations = one.limits.creations
            first = await stub.CreateGame(create("retry-tokens-first"), timeout=10)
            second = await stub.CreateGame(create("retry-tokens-second"), timeout=10)
            assert first.game_id != second.game_id
            assert await refusal(stub.CreateGame(create("retry-tokens-third"), timeout=10)) == (
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "TOO_MANY_GAMES_CREATED",
            )
            empty = level(creations)
            assert empty < 1

            again = await stub.CreateGame(create("retry-tokens-first"), timeout=10)
            assert again.game_id == first.game_id
            assert again.view.game_id == first.game_id and again.view.version == 1
            body = {"kind": "stimmvieh", "options": {"players": 3}, "requestId": "retry-tokens-second"}
            async with http.post(f"http://127.0.0.1:{one.http_port}/v1/games", json=body) as answer:
                assert answer.status == 200
                assert (await answer.json())["gameId"] == second.game_id
            assert abs(level(creations) - empty) < LEVEL_TOLERANCE

            assert await refusal(stub.CreateGame(create("retry-tokens-third"), timeout=10)) == (
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "TOO_MANY_GAMES_CREATED",
            )
            assert await refusal(stub.CreateGame(create("retry-tokens-first", players=4), timeout=10)) == (
                grpc.StatusCode.FAILED_PRECONDITION,
                "REQUEST_ID_REUSED",
            )
            # Without a request id a create cannot be a retry: refused as before.
            assert await refusal(stub.CreateGame(create(""), timeout=10)) == (
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "TOO_MANY_GAMES_CREATED",
            )
            assert abs(level(creations) - empty) < LEVEL_TOLERANCE
            lobby = await stub.ListGames(game_service_pb2.ListGamesRequest(page_size=200), timeout=10)
            mine = {g.game_id for g in lobby.games} & {first.game_id, second.game_id}
            assert mine == {first.game_id, second.game_id}

    run(scenario(), timeout_s=60)


def test_a_retry_with_games_left_gives_its_game_back_and_overlapping_attempts_take_one(redis_server: EmbeddedRedis) -> None:
    """Burst 3: a create takes one game; its retry answers the same game and the level stays;
    four attempts of a new request id at once make one game and take one game between them."""

    async def scenario() -> None:
        async with replica(redis_server.url, burst=3) as (one, stub):
            creations = one.limits.creations
            first = await stub.CreateGame(create("retry-tokens-full-1"), timeout=10)
            after_first = level(creations)
            assert abs(after_first - 2) < LEVEL_TOLERANCE
            again = await stub.CreateGame(create("retry-tokens-full-1"), timeout=10)
            assert again.game_id == first.game_id
            assert abs(level(creations) - after_first) < LEVEL_TOLERANCE

            answers = await asyncio.gather(
                *(stub.CreateGame(create("retry-tokens-full-2"), timeout=10) for _ in range(4))
            )
            assert len({a.game_id for a in answers}) == 1
            assert answers[0].game_id != first.game_id
            assert abs(level(creations) - (after_first - 1)) < LEVEL_TOLERANCE

    run(scenario(), timeout_s=60)



def test_attempts_that_find_the_allowance_empty_wait_for_the_attempt_that_took_the_last_game(
    redis_server: EmbeddedRedis,
) -> None:
    """Burst 2, one game left. Redis holds every write (CLIENT PAUSE WRITE) while a create takes
    the last game, and until more attempts of the same request id, over gRPC and REST, are in the
    replica, so the game is surely not written yet when they find the allowance empty. They are
    one logical create with the first: they wait for it rather than being refused
    TOO_MANY_GAMES_CREATED, and all answer its game; the level ends at zero."""

    async def scenario() -> None:
        async with replica(redis_server.url, burst=2) as (one, stub), aiohttp.ClientSession() as http:
            creations = one.limits.creations
            await stub.CreateGame(create("retry-tokens-last-0"), timeout=10)
            assert abs(level(creations) - 1) < LEVEL_TOLERANCE
            body = {"kind": "stimmvieh", "options": {"players": 3}, "requestId": "retry-tokens-last-1"}

            async def over_rest() -> str:
                async with http.post(f"http://127.0.0.1:{one.http_port}/v1/games", json=body) as answer:
                    assert answer.status == 200, await answer.text()
                    return str((await answer.json())["gameId"])

            async def over_grpc() -> str:
                return (await stub.CreateGame(create("retry-tokens-last-1"), timeout=10)).game_id

            admin = redis.asyncio.Redis.from_url(redis_server.url)
            try:
                await admin.execute_command("CLIENT", "PAUSE", PAUSE_MS, "WRITE")
                first = asyncio.ensure_future(over_grpc())
                async with asyncio.timeout(WAIT_S):  # until the first attempt has taken the last game
                    while level(creations) >= LEVEL_TOLERANCE:
                        await asyncio.sleep(0.005)
                more = [asyncio.ensure_future(attempt()) for attempt in (over_grpc, over_rest, over_grpc, over_rest)]
                async with asyncio.timeout(WAIT_S):  # until the replica holds all five attempts
                    while one.limits.calls.in_flight < 5:
                        await asyncio.sleep(0.005)
                assert not first.done()  # its game is not written yet
            finally:
                await admin.execute_command("CLIENT", "UNPAUSE")
                await admin.aclose()
            games = await asyncio.gather(first, *more)
            assert len(set(games)) == 1
            assert level(creations) < LEVEL_TOLERANCE

    run(scenario(), timeout_s=60)
