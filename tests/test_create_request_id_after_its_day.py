"""A CreateGame request id sent again after its record's day makes a new game, however often it
was retried while its first game stood. The note that a request id's game was made
(``hustings:create:{…}:made``) is written again, with a day of its own, by every retry that finds
the game, and so outlives the request's record (``hustings:create:{…}``); it names its game, so
that the same request id sent once the record is gone, which reserves a fresh game id, is not
refused ``CREATED_GAME_GONE`` for a game it never made. Real Redis, real gRPC; the day's passing
is made by taking the same time off both keys' expiries.
"""

from __future__ import annotations

import asyncio
import uuid

import pytest
import redis

from conftest import run
from service_helpers import replica_and_client
from hustings.client import HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store import create_made_key, create_request_key, game_key

RECORD_LEFT_MS = 50  # what the record keeps of its day once the day is made to pass


def test_a_request_id_sent_after_its_record_went_makes_a_game_rather_than_a_gone_refusal(redis_server: EmbeddedRedis) -> None:
    raw = redis.Redis.from_url(redis_server.url)

    async def scenario() -> None:
        request_id = uuid.uuid4().hex  # the suite's Redis is shared: one id of this test's own
        async with replica_and_client(redis_server.url) as (replica, client):
            key = replica.host.keys.request_key("create", request_id)
            record, made = create_request_key(key), create_made_key(key)
            first = await client.create_game("stimmvieh", 3, request_id=request_id)
            for seat in range(3):  # in play: kept for the retention time, well past the record's day
                await client.join(first.game_id, f"P{seat}")
            await asyncio.sleep(0.6)
            # A retry whose answer was lost, a little later: answered with the first game.
            assert (await client.create_game("stimmvieh", 3, request_id=request_id)).game_id == first.game_id
            assert raw.pttl(made) > raw.pttl(record)  # the note now outlives the record
            # The record's day passes: the same time off both keys.
            passed = raw.pttl(record) - RECORD_LEFT_MS
            for name in (record, made):
                raw.pexpire(name, raw.pttl(name) - passed)
            await asyncio.sleep(4 * RECORD_LEFT_MS / 1000)
            assert not raw.exists(record) and raw.exists(game_key(first.game_id))
            # The request id is forgotten: sent again, it makes a game (a new one), as it did
            # before the note existed, instead of being told that a game it never made is gone.
            try:
                again = await client.create_game("stimmvieh", 3, request_id=request_id)
            except HustingsError as refused:
                pytest.fail(f"refused {refused.reason} though the first game {first.game_id} stands: {refused}")
            assert again.game_id != first.game_id and raw.exists(game_key(again.game_id))

    try:
        run(scenario(), timeout_s=30)
    finally:
        raw.close()
