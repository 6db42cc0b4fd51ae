"""A call cancelled while its commit waits in Redis (its client's deadline passed) still gets
what follows the commit, against real parts (a real Redis paused with ``CLIENT PAUSE WRITE``, a
real replica, real gRPC).

A step that starts a game (the join that takes its last seat) is followed, after its commit's
reply, by the kept-games index that lets the room maker remove the game once abandoned, the
lobby's summary and the due decisions. Cancelled in the commit, the call used to write none of
them, and a retry under the same request id is
answered from the record, which writes nothing either: the game played on out of the kept-games
index, never removed to make room, and its bots waited for the next poll
(``GameHost._after_cancelled_commit``)."""

from __future__ import annotations

import asyncio
import uuid

import grpc
import pytest
import redis as sync_redis

from conftest import run
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.room_maker import bucket_key
from hustings.v1 import game_pb2, game_service_pb2 as gs
from service_helpers import replica_and_client

TIMEOUT_S = 30.0
PAUSE_MS = 800  # Redis holds writes this long; the first attempt gives up long before
GIVE_UP_S = 0.3


async def _given_up(admin: sync_redis.Redis, call: object) -> None:
    """``call`` (an awaitable gRPC call with a GIVE_UP_S deadline) given up while Redis holds
    writes, and the pause over."""
    admin.execute_command("CLIENT", "PAUSE", str(PAUSE_MS), "WRITE")
    with pytest.raises(grpc.aio.AioRpcError) as given_up:
        await call  # type: ignore[misc]
    assert given_up.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    await asyncio.sleep(PAUSE_MS / 1000 + 0.2)  # the paused commit has run meanwhile


async def _kept(admin: sync_redis.Redis, game_id: str) -> bool:
    """Whether the game is in the kept-games index (written in the background: bounded wait)."""
    for _ in range(40):
        if admin.zscore(bucket_key(game_id), game_id) is not None:
            return True
        await asyncio.sleep(0.05)
    return False


def test_a_game_started_by_a_join_given_up_mid_commit_and_retried_is_indexed(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        admin = sync_redis.Redis.from_url(redis_server.url)
        try:
            async with replica_and_client(redis_server.url) as (_replica, client):
                game_id = (await client.create_game("stimmvieh", 3)).game_id
                await client.join(game_id, "Ada")
                await client.join(game_id, "Bo")
                request = gs.JoinGameRequest(game_id=game_id, display_name="Cy", request_id=uuid.uuid4().hex)
                await _given_up(admin, client.stub.JoinGame(request, timeout=GIVE_UP_S))
                answer = await asyncio.wait_for(client.stub.JoinGame(request), TIMEOUT_S)
                # The retry gets the first attempt's answer, and the join was applied once ...
                assert answer.seat == 2 and answer.view.status == game_pb2.GAME_STATUS_ACTIVE
                assert (await client.view(game_id)).version == 4
                # ... and what follows the starting commit was written all the same.
                assert await _kept(admin, game_id), "a game in play missing from the kept-games index: never removed to make room"
        finally:
            admin.close()

    run(scenario(), TIMEOUT_S * 2)
