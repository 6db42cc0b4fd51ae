"""The watchers' sweep, which catches what pub/sub missed (it is at most once) and ends the streams
of a watched game that is gone (an expiry announces nothing), goes on for every later game after
the feed of a game that was gone had ended it: two games are watched one after the other and each
expires (its keys deleted, as Redis's expiry does) under its watcher, whose stream must end
NOT_FOUND within a few sweep periods both times. Real Redis, a real replica and gRPC."""

from __future__ import annotations

import asyncio

import grpc
from redis import Redis

from conftest import run
from service_helpers import replica_and_client, stimmvieh_options
from hustings.client import Client, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.watch import POLL_S

PLAYERS = 3
ENDS_WITHIN_S = POLL_S * 4


async def _expires_under_its_watcher(client: Client, redis_url: str) -> None:
    game_id = (await client.create_game("stimmvieh", PLAYERS, stimmvieh_options(PLAYERS))).game_id
    opened = asyncio.Event()

    async def watch() -> HustingsError:
        try:
            async for _update in client.watch(game_id, None, 0):
                opened.set()
        except HustingsError as error:
            return error
        raise AssertionError("the stream of a game that is gone ended without an error")

    watcher = asyncio.create_task(watch())
    await asyncio.wait_for(opened.wait(), ENDS_WITHIN_S)
    redis = Redis.from_url(redis_url)
    try:
        keys = list(redis.scan_iter(match=f"hustings:{{{game_id}}}:*", count=1000))
        assert keys
        redis.delete(*keys)
    finally:
        redis.close()
    error = await asyncio.wait_for(watcher, ENDS_WITHIN_S)
    assert (error.code, error.reason) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")


def test_the_sweep_goes_on_after_a_gone_game_ended_its_feeds(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):
            await _expires_under_its_watcher(client, redis_server.url)  # the only feed ends: none left
            await asyncio.sleep(POLL_S * 1.5)  # the sweep's next turn finds nothing to watch
            await _expires_under_its_watcher(client, redis_server.url)  # a later feed is swept too

    run(scenario(), 60)
