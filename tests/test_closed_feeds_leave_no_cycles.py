"""A game's shared reader (``watch.GameFeed``) is freed as soon as its last stream closes, without
waiting for the garbage collector. Its task was cancelled while the feed still named it: the
task kept its CancelledError, whose traceback kept the reader's frames, which kept the feed, and
the feed the task, a cycle of about 24 objects and whatever the feed held (its tail of up to 256
log entries, its step's shared responses and views). A replica whose streams came and went over
3,000 games held 3,000 of them, 15 MB and more, until a full collection, which a busy replica
makes rarely.

Real parts: a Redis server and an in-process replica with its gRPC face on loopback; the
collector is off while the streams open and close, so only what reference counting frees is
freed."""

from __future__ import annotations

import asyncio
import gc
import time
import weakref

from conftest import run
from hustings.service.embedded_redis import EmbeddedRedis
from service_helpers import new_game, replica_and_client

STREAMS = 5
WAIT_S = 10.0


def test_a_feed_whose_last_stream_closed_is_freed_without_the_collector(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (replica, client):
            watchers = replica.host.watchers
            games = [(await new_game(client, 3))[0].game_id for _ in range(STREAMS)]
            feeds: list[weakref.ref[object]] = []
            tasks: list[weakref.ref[asyncio.Task[None]]] = []
            gc.collect()
            gc.disable()
            try:
                for game_id in games:
                    stream = client.watch(game_id)
                    await asyncio.wait_for(anext(stream), WAIT_S)  # the stream is open: its feed reads the game
                    feed = watchers._feeds[game_id]
                    feeds.append(weakref.ref(feed))
                    assert feed.task is not None
                    tasks.append(weakref.ref(feed.task))
                    del feed
                    await stream.aclose()  # its only stream: the feed is left and its task cancelled
                ends = time.monotonic() + WAIT_S
                while any(t() is not None and not t().done() for t in tasks):  # type: ignore[union-attr]
                    assert time.monotonic() < ends, "a feed's task never ended"
                    await asyncio.sleep(0.01)
                for _ in range(5):
                    await asyncio.sleep(0)  # the tasks' last callbacks run
                assert not watchers._feeds
                alive = sum(f() is not None for f in feeds)
                assert alive == 0, f"{alive} of {STREAMS} closed feeds are kept alive by a cycle"
            finally:
                gc.enable()

    run(scenario(), timeout_s=60)
