"""A CreateGame's request id is at least 16 characters, for a listed table as for an unlisted one:
a retry is answered with the game the first attempt made, so whoever sends an id first makes the
game that id answers with. A client that sent an organiser's guessable ids first (``round1-table1``
and on) had the organiser answered REQUEST_ID_REUSED, or with its own table, already full."""

from __future__ import annotations

import grpc
import pytest
import redis

from conftest import run
from service_helpers import replica_and_client
from hustings.client import HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store import LOBBY_KEY


def test_a_short_create_request_id_is_refused_and_makes_nothing(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (replica, client):
            lobby = redis.Redis.from_url(redis_server.url)
            try:
                before = lobby.zcard(LOBBY_KEY)
                with pytest.raises(HustingsError) as refused:
                    await client.create_game("stimmvieh", 3, request_id="round1-table1")
                assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT
                assert refused.value.reason == "BAD_REQUEST_ID" and "its game" in refused.value.message
                assert await replica.host.store.recorded_create(replica.host.keys.request_key("create", "round1-table1")) is None
                assert lobby.zcard(LOBBY_KEY) == before
                long_enough = "round1-table1-7f3a"  # 18 characters: taken (a UUID is the advice)
                first = await client.create_game("stimmvieh", 3, request_id=long_enough)
                again = await client.create_game("stimmvieh", 3, request_id=long_enough)
                assert first.game_id == again.game_id and lobby.zcard(LOBBY_KEY) == before + 1
            finally:
                lobby.close()

    run(scenario())
