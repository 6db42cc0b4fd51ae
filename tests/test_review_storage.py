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
from hustings.service.watch import CATCH_UP_CHUNK, CATCH_UPS_AT_ONCE, LARGE_UPDATE_BYTES, Update
from hustings.v1 import game_pb2, game_service_pb2
from service_helpers import replica_and_client, seat_changes


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
    assert len(encoded) >= LARGE_UPDATE_BYTES
    assert update.encoded() is encoded  # serialised once, shared by every stream that writes it
    # The message is not kept beside the bytes: each reader (a REST stream) gets it parsed anew.
    first, second = update.message, update.message
    assert first is not second and first == second == large
    assert first.SerializeToString() == encoded


def test_a_small_update_keeps_its_message_beside_its_bytes() -> None:
    small = _catch_up(3)
    update = Update(small)
    assert len(update.encoded()) < LARGE_UPDATE_BYTES
    assert update.message is small and update.message is update.message


def test_a_large_update_no_stream_serialised_keeps_its_message() -> None:
    large = _catch_up(20_000)
    update = Update(large)  # REST streams alone render the message, never its bytes
    assert update.message is large


LONG_GAME_SEAT_CHANGES = 10_000
CATCH_UPS = 8
REPEATS = 3
# The longest the crowd's catch-ups may hold the loop, in the longest holds of a catch-up of one chunk
# in the same run: up to CATCH_UPS_AT_ONCE chunks may be built in one turn of the loop (and a
# catch-up's bytes are made whole: the stream sends them so), twice that for a loaded machine's
# noise. Read and built whole, the crowd's catch-ups of ten chunks each held it 30 times as long.
ALLOWED_CHUNKS = 2 * CATCH_UPS_AT_ONCE + 2


@pytest.mark.slow
def test_catch_ups_of_a_long_game_take_the_event_loop_a_chunk_at_a_time(tmp_path: pathlib.Path) -> None:
    """Eight streams from versions of their own near the start of a game of 10,000 seat changes:
    while their catch-ups are read and built, another task on the replica's loop gets a turn
    after at most a few chunks' worth of the loop's CPU (a chunk's worth measured in the same run,
    by a catch-up of one chunk). A catch-up read and built whole held the loop for 0.1-0.2 s
    (20,000 steps), and a crowd's 300 of them made a call that came after them wait 30 s, with
    streams ended meanwhile by unanswered keepalive pings."""

    async def scenario(url: str) -> tuple[float, float, int]:
        async with replica_and_client(url) as (replica, client):
            game_id = (await client.create_game("spin_doctors", 4)).game_id
            seats = [await client.join(game_id, f"Player {i}") for i in range(4)]
            version = await seat_changes(replica, game_id, seats[0].token, LONG_GAME_SEAT_CHANGES)
            assert version >= LONG_GAME_SEAT_CHANGES
            watchers = replica.host.watchers

            async def first_update(from_version: int) -> int:
                updates = watchers.watch_encoded(game_id, None, from_version, f"test-{from_version}", "192.0.2.1")
                async with contextlib.aclosing(updates):
                    async for update in updates:
                        return len(update)
                raise AssertionError("the stream ended without an update")

            async def longest_hold(from_versions: list[int]) -> tuple[float, int]:
                """The most of the loop thread's CPU between two turns of another task while
                the catch-ups from ``from_versions`` are built (each from a version of its
                own: a catch-up made once is kept and handed to the next), and the smallest
                catch-up's bytes."""
                longest, done = 0.0, False

                async def ticker() -> None:
                    nonlocal longest
                    while not done:
                        before = time.thread_time()
                        await asyncio.sleep(0)
                        longest = max(longest, time.thread_time() - before)

                ticking = asyncio.create_task(ticker())
                await asyncio.sleep(0.05)
                sizes = await asyncio.gather(*(first_update(v) for v in from_versions))
                done = True
                await ticking
                return longest, min(sizes)

            # The garbage collector's full passes over this process (the test's own objects
            # too) would hold the loop as long: a serving process tunes it (service/collector.py),
            # and here it waits until the catch-ups are built.
            gc.disable()
            try:
                chunk = min([(await longest_hold([version - CATCH_UP_CHUNK + i]))[0] for i in range(REPEATS)])
                crowd, size = await longest_hold([1 + i for i in range(CATCH_UPS)])
            finally:
                gc.enable()
            return chunk, crowd, size

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        chunk, crowd, size = run(scenario(server.url), timeout_s=300)  # type: ignore[misc]
    print(f"\nthe loop held at most {chunk * 1e3:.1f} ms by a catch-up of one chunk, {crowd * 1e3:.1f} ms by the crowd's")
    assert size >= LARGE_UPDATE_BYTES  # a catch-up of thousands of steps
    assert crowd <= ALLOWED_CHUNKS * chunk, f"the loop was held {crowd * 1e3:.0f} ms at a time, a chunk's catch-up {chunk * 1e3:.0f} ms"
