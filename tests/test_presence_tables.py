"""What a replica keeps of presence (``service/presence.py``): a throttle per seat and a copy per
game, each dropped once it can no longer matter, rather than all of them at once at MAX_TRACKED.
Games long finished kept theirs until then (10,000 games played: 10,000 throttles and 3,333
copies, still there minutes later), and the clear at the bound made every live game's presence
due and read again together.

Real parts: a Redis server for the copies' reads; the replica's clock and the throttle's are
moved by hand."""

from __future__ import annotations

import contextlib
from typing import AsyncIterator

import pytest

from conftest import run
from hustings.service import presence
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.presence import REFRESH_S, TOUCH_EVERY_S, WINDOW_MS, Presence
from hustings.service.store import Store


class Clocks:
    """The throttle's monotonic clock and the replicas' shared clock (ms), moved together."""

    def __init__(self) -> None:
        self.mono = 1_000.0
        self.ms = 1_700_000_000_000

    def advance(self, seconds: float) -> None:
        self.mono += seconds
        self.ms += int(seconds * 1000)


@contextlib.asynccontextmanager
async def _presence(redis_url: str, clocks: Clocks) -> AsyncIterator[Presence]:
    """A replica's Presence over a Store of ``redis_url``, on ``clocks``."""
    store = Store.from_url(redis_url)
    try:
        yield Presence(store, now_ms=lambda: clocks.ms)
    finally:
        await store.close()


def test_throttles_and_copies_that_can_no_longer_matter_are_dropped_as_others_come(
    redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    clocks = Clocks()
    monkeypatch.setattr(presence.time, "monotonic", lambda: clocks.mono)

    async def scenario() -> None:
        async with _presence(redis_server.url, clocks) as seen:
            for n in range(100):  # a hundred games each seen once, then never again
                await seen.refresh(f"gone{n}")
                seen.noted(f"gone{n}", 0, clocks.ms)
            assert len(seen._touched) == 100 and len(seen._read) == 100
            assert seen.seen("gone0") == {0}
            clocks.advance(max(TOUCH_EVERY_S, REFRESH_S, WINDOW_MS / 1000) + 1)
            assert seen.seen("gone0") == set()  # out of the window: it shows nobody
            await seen.refresh("live")
            seen.noted("live", 1, clocks.ms)
            # The gone games' throttles and copies have gone; the live game's stay, and show it.
            assert list(seen._touched) == [("live", 1)] and list(seen._read) == ["live"]
            assert seen.seen("live") == {1}
            clocks.advance(TOUCH_EVERY_S / 2)
            assert not seen._due("live", 1)  # still throttled: its throttle was kept
            clocks.advance(TOUCH_EVERY_S)
            assert seen._due("live", 1)

    run(scenario())


def test_a_copy_with_a_seat_still_within_the_window_is_kept(redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch) -> None:
    """A copy read long ago whose seat this replica saw since (a stream's player) still shows it
    present: it is not dropped for its age alone."""
    clocks = Clocks()
    monkeypatch.setattr(presence.time, "monotonic", lambda: clocks.mono)

    async def scenario() -> None:
        async with _presence(redis_server.url, clocks) as seen:
            await seen.refresh("watched")
            for _ in range(4):  # its player's stream keeps it seen, every TOUCH_EVERY_S
                clocks.advance(TOUCH_EVERY_S)
                seen.noted("watched", 2, clocks.ms)
            await seen.refresh("other")  # a refresh of another game prunes: this one stays
            assert "watched" in seen._read and seen.seen("watched") == {2}

    run(scenario())
