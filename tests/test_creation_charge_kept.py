"""A CreateGame (or an AddBot) whose call ends (cancelled, past its deadline) while its commit is
on its way to Redis still made its game (seated its bot), and keeps its charge on the caller's
allowance: else a client that gave up on each call at that moment would create without end. Real Redis, paused
for writes (CLIENT PAUSE ... WRITE holds every script) while the call's deadline passes; a real
replica and gRPC."""

from __future__ import annotations

import asyncio

import grpc
import pytest
from redis import Redis

from conftest import run
from service_helpers import replica_and_client, stimmvieh_options
from hustings.client import ONE_ATTEMPT, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_service_pb2

PLAYERS = 3
PAUSE_MS = 1500
CALL_TIMEOUT_S = 0.5
SETTLE_TIMEOUT_S = 10.0


def _games(redis: Redis) -> int:
    return sum(1 for _ in redis.scan_iter(match="hustings:{*}:game", count=1000))


def test_a_create_given_up_while_its_commit_is_in_flight_keeps_its_charge(tmp_path_factory: pytest.TempPathFactory) -> None:
    server = EmbeddedRedis(tmp_path_factory.mktemp("charge"), appendonly=False).start()
    admin = Redis.from_url(server.url)

    async def scenario() -> None:
        config = {"create_burst": 3, "creates_per_client_per_minute": 0.001}
        async with replica_and_client(server.url, **config) as (_replica, client):
            # No request id and an unlisted table: the creating commit is the call's only write.
            request = game_service_pb2.CreateGameRequest(kind="stimmvieh", options=stimmvieh_options(PLAYERS))
            request.table.unlisted = True
            await client.stub.CreateGame(request)  # the first create loads the commit script into Redis
            before = _games(admin)
            admin.execute_command("CLIENT", "PAUSE", PAUSE_MS, "WRITE")
            with pytest.raises(grpc.aio.AioRpcError) as given_up:
                await client.stub.CreateGame(request, timeout=CALL_TIMEOUT_S)
            assert given_up.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            deadline = asyncio.get_running_loop().time() + SETTLE_TIMEOUT_S
            while _games(admin) == before:  # the commit runs once the pause ends
                assert asyncio.get_running_loop().time() < deadline, "the commit never ran"
                await asyncio.sleep(0.05)
            assert _games(admin) == before + 1

            # That game took one of the three: one more create, then the allowance is spent.
            once = client.with_retry(ONE_ATTEMPT)
            await once.create_game("stimmvieh", PLAYERS, stimmvieh_options(PLAYERS))
            with pytest.raises(HustingsError) as refused:
                await once.create_game("stimmvieh", PLAYERS, stimmvieh_options(PLAYERS))
            assert (refused.value.code, refused.value.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_GAMES_CREATED")
            assert _games(admin) == before + 2

    try:
        run(scenario(), 60)
    finally:
        admin.close()
        server.stop()


def test_an_add_bot_given_up_while_its_commit_is_in_flight_keeps_its_charge(tmp_path_factory: pytest.TempPathFactory) -> None:
    server = EmbeddedRedis(tmp_path_factory.mktemp("bot-charge"), appendonly=False).start()
    admin = Redis.from_url(server.url)

    async def scenario() -> None:
        config = {"create_burst": 3, "creates_per_client_per_minute": 0.001}
        async with replica_and_client(server.url, **config) as (_replica, client):
            once = client.with_retry(ONE_ATTEMPT)
            await once.create_game("stimmvieh", PLAYERS, stimmvieh_options(PLAYERS))  # loads the commit script
            game_id = (await once.create_game("stimmvieh", PLAYERS, stimmvieh_options(PLAYERS))).game_id
            admin.execute_command("CLIENT", "PAUSE", PAUSE_MS, "WRITE")
            with pytest.raises(grpc.aio.AioRpcError) as given_up:
                await client.stub.AddBot(game_service_pb2.AddBotRequest(game_id=game_id, seat=2), timeout=CALL_TIMEOUT_S)
            assert given_up.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            deadline = asyncio.get_running_loop().time() + SETTLE_TIMEOUT_S
            while not (await client.view(game_id)).seats[2].bot:  # the commit runs once the pause ends
                assert asyncio.get_running_loop().time() < deadline, "the commit never ran"
                await asyncio.sleep(0.05)

            # That bot took the last of the three.
            with pytest.raises(HustingsError) as refused:
                await once.add_bot(game_id, seat=1)
            assert (refused.value.code, refused.value.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_GAMES_CREATED")
            assert not (await client.view(game_id)).seats[1].bot

    try:
        run(scenario(), 60)
    finally:
        admin.close()
        server.stop()
