"""The notifier's subscription follows the watched games one change at a time (service/notifier.py):
a game's first waiter subscribes its channel, its last one leaving unsubscribes it, and a new
connection (Redis restarted, the connection killed) subscribes every game watched then. Checked
against a real Redis's own count of the replica's channels."""

from __future__ import annotations

import asyncio
import contextlib
import time

import redis.asyncio as aioredis

from conftest import run
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.notifier import Notifier
from hustings.service.store import updates_channel

GAMES = 2_000
WAIT_S = 10.0


async def _channels(admin: "aioredis.Redis[bytes]", prefix: str) -> set[str]:
    found = await admin.pubsub_channels(f"{prefix}*")
    return {channel.decode() for channel in found}


async def _until(admin: "aioredis.Redis[bytes]", prefix: str, expected: set[str]) -> set[str]:
    deadline = time.monotonic() + WAIT_S
    seen = await _channels(admin, prefix)
    while seen != expected and time.monotonic() < deadline:
        await asyncio.sleep(0.02)
        seen = await _channels(admin, prefix)
    return seen


def test_the_subscription_follows_each_change_and_a_new_connection_takes_every_watched_game(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        client = aioredis.Redis.from_url(redis_server.url)
        admin = aioredis.Redis.from_url(redis_server.url)
        notifier = Notifier(client)
        await notifier.start()
        prefix = "hustings:{gfollow"
        games = [f"gfollow{n:017d}" for n in range(GAMES)]
        try:
            with contextlib.ExitStack() as held:
                waiters = {game_id: held.enter_context(contextlib.ExitStack()) for game_id in games}
                for game_id, stack in waiters.items():
                    stack.enter_context(notifier.waiter(game_id))
                    if game_id == games[0]:
                        stack.enter_context(notifier.waiter(game_id))  # a second waiter of one game
                everyone = {updates_channel(game_id) for game_id in games}
                assert await _until(admin, prefix, everyone) == everyone
                # The first half stop watching (the first game with both its waiters).
                for game_id in games[: GAMES // 2]:
                    waiters[game_id].close()
                rest = {updates_channel(game_id) for game_id in games[GAMES // 2 :]}
                assert await _until(admin, prefix, rest) == rest
                # A game watched, left and watched again between two looks stays subscribed.
                with notifier.waiter(games[0]):
                    pass
                with notifier.waiter(games[0]):
                    again = rest | {updates_channel(games[0])}
                    assert await _until(admin, prefix, again) == again
                assert await _until(admin, prefix, rest) == rest
                # The subscription's connection is killed: the next one takes every watched game.
                await admin.execute_command("CLIENT", "KILL", "TYPE", "pubsub")
                await asyncio.sleep(0.1)
                assert await _until(admin, prefix, rest) == rest
            assert await _until(admin, prefix, set()) == set()
        finally:
            await notifier.stop()
            await client.aclose()
            await admin.aclose()

    run(scenario(), 60)
