"""What a replica holds for the updates of its WatchGame streams (service/watch.py): a catch-up of
many steps, once serialised, is held as its bytes, which the caps on unread bytes count, and not
also as the message it was built as, which took about ten times as much memory."""

from __future__ import annotations

from hustings.service.unread import COUNTED_BYTES
from hustings.service.watch import Update
from hustings.v1 import game_pb2, game_service_pb2


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
