"""A CreateGame retried under its request id after its game is gone (it expired, or was removed to
make room) is refused FAILED_PRECONDITION `CREATED_GAME_GONE`, also when the client's creation
allowance is used up, and makes no game: another game under the same id answered the retry with
a game it never asked for, and one id named two games. A create whose first attempt never reached
its commit is still made by the retry."""

from __future__ import annotations

import uuid

import grpc
import pytest
import redis

from conftest import run
from service_helpers import remove_game, replica_and_client
from hustings.client import HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store import create_made_key, create_request_key, game_key


@pytest.mark.parametrize("allowance_left", [True, False])
def test_a_create_retried_after_its_game_went_is_refused_and_makes_none(redis_server: EmbeddedRedis, allowance_left: bool) -> None:
    raw = redis.Redis.from_url(redis_server.url)

    async def scenario() -> None:
        limits = {} if allowance_left else {"creates_per_client_per_minute": 0.001, "create_burst": 1}
        request_id = uuid.uuid4().hex  # the suite's Redis is shared: one id of this test's own
        async with replica_and_client(redis_server.url, **limits) as (_, client):
            first = await client.create_game("stimmvieh", 3, request_id=request_id)
            assert (await client.create_game("stimmvieh", 3, request_id=request_id)).game_id == first.game_id
            remove_game(raw, first.game_id)
            with pytest.raises(HustingsError) as refused:
                await client.create_game("stimmvieh", 3, request_id=request_id)
            assert (refused.value.code, refused.value.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "CREATED_GAME_GONE")
            assert first.game_id in str(refused.value)
            assert not raw.exists(game_key(first.game_id))
            if allowance_left:  # a new request id makes a new game, under a new id
                again = await client.create_game("stimmvieh", 3, request_id=uuid.uuid4().hex)
                assert again.game_id != first.game_id

    try:
        run(scenario(), timeout_s=30)
    finally:
        raw.close()


def test_a_create_whose_first_attempt_reserved_its_id_but_never_committed_is_made_by_the_retry(redis_server: EmbeddedRedis) -> None:
    raw = redis.Redis.from_url(redis_server.url)

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (replica, client):
            request_id = uuid.uuid4().hex
            key = replica.host.keys.request_key("create", request_id)
            made = await client.create_game("stimmvieh", 3, request_id=request_id)
            # What an attempt that died between its reservation and its commit leaves: the
            # reservation, and neither the game nor the note that it was made.
            remove_game(raw, made.game_id)
            raw.delete(create_made_key(key))
            assert raw.exists(create_request_key(key))
            again = await client.create_game("stimmvieh", 3, request_id=request_id)
            assert again.game_id == made.game_id and raw.exists(game_key(made.game_id))

    try:
        run(scenario(), timeout_s=30)
    finally:
        raw.close()
