"""What a replica holds and spends for the updates of its WatchGame streams (service/watch.py): a
catch-up of many steps, once serialised, is held as its bytes, which the caps on unread bytes
count, and not also as the message it was built as, which took about ten times as much memory;
and catch-ups from the log are read and built a chunk at a time, a few at once, so that a crowd of
them does not hold the replica's event loop."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import pathlib
import time

import pytest

from conftest import run
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.unread import COUNTED_BYTES
from hustings.service.watch import Update
from hustings.v1 import game_pb2, game_service_pb2
from service_helpers import replica_and_client


def _catch_up(steps: int) -> game_service_pb2.WatchGameResponse:
    """A response with ``steps`` small entries (a seat left and taken back, as a spectator sees
    it), the shape of the largest catch-ups per byte."""
    message = game_service_pb2.WatchGameResponse(version=steps + 1)
    for version in range(2, steps + 2):
        entry = message.entries.add(version=version, seat=0)
        entry.events.add().seat_changed.change = game_pb2.SeatChanged.CHANGE_LEFT
    message.view.version = steps + 1
    return message


def test_a_large_update_once_serialised_is_kept_as_its_bytes_and_its_message_read_from_them() -> None:
    large = _catch_up(20_000)
    update = Update(large)
    encoded = update.encoded()
    assert len(encoded) >= COUNTED_BYTES
    assert update.encoded() is encoded  # serialised once, shared by every stream that writes it
    # The message is not kept beside the bytes: each reader (a REST stream) gets it parsed anew.
    first, second = update.message, update.message
    assert first is not second and first == second == large
    assert first.SerializeToString() == encoded


def test_a_small_update_keeps_its_message_beside_its_bytes() -> None:
    small = _catch_up(3)
    update = Update(small)
    assert len(update.encoded()) < COUNTED_BYTES
    assert update.message is small and update.message is update.message


def test_a_large_update_no_stream_serialised_keeps_its_message() -> None:
    large = _catch_up(20_000)
    update = Update(large)  # REST streams alone render the message, never its bytes
    assert update.message is large


LONG_GAME_SEAT_CHANGES = 10_000
CATCH_UPS = 8
LOOP_HOLD_CEILING_S = 0.05  # of the loop thread's CPU between two turns of another task


@pytest.mark.slow
def test_catch_ups_of_a_long_game_take_the_event_loop_a_chunk_at_a_time(tmp_path: pathlib.Path) -> None:
    """Eight streams from versions of their own near the start of a game of 10,000 seat changes:
    while their catch-ups are read and built, another task on the replica's loop gets a turn at
    least every 50 ms of the loop's CPU. A catch-up read and built whole held the loop for
    0.1-0.2 s (20,000 steps), and a crowd's 300 of them made a call that came after them wait
    30 s, with streams ended meanwhile by unanswered keepalive pings."""

    async def scenario(url: str) -> tuple[float, int]:
        async with replica_and_client(url) as (replica, client):
            game_id = (await client.create_game("spin_doctors", 4)).game_id
            seats = [await client.join(game_id, f"Player {i}") for i in range(4)]
            for _ in range(LONG_GAME_SEAT_CHANGES // 2):
                await client.leave(game_id, seats[0].token)
                await client.return_to_game(game_id, seats[0].token)
            watchers = replica.host.watchers
            longest, done = 0.0, False

            async def ticker() -> None:
                nonlocal longest
                while not done:
                    before = time.thread_time()
                    await asyncio.sleep(0)
                    longest = max(longest, time.thread_time() - before)

            async def first_update(from_version: int) -> int:
                updates = watchers.watch_encoded(game_id, None, from_version, f"test-{from_version}", "192.0.2.1")
                async with contextlib.aclosing(updates):
                    async for update in updates:
                        return len(update)
                raise AssertionError("the stream ended without an update")

            # The garbage collector's full passes over this process (the test's own objects
            # too) would hold the loop as long: a serving process tunes it (service/collector.py),
            # and here it waits until the catch-ups are built.
            gc.disable()
            try:
                ticking = asyncio.create_task(ticker())
                await asyncio.sleep(0.05)
                sizes = await asyncio.gather(*(first_update(1 + i) for i in range(CATCH_UPS)))
                done = True
                await ticking
            finally:
                gc.enable()
            return longest, min(sizes)

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        longest, size = run(scenario(server.url), timeout_s=300)  # type: ignore[misc]
    assert size >= COUNTED_BYTES  # a catch-up of thousands of steps
    assert longest < LOOP_HOLD_CEILING_S, f"the loop was held {longest * 1000:.0f} ms at a time"
