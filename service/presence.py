"""Presence: whether a seat's player is at the table (called or watched within a short window).

Each replica notes in Redis when a seat was last seen (``hustings:{id}:presence``, seat -> ms),
at most once per ``TOUCH_EVERY_S`` per seat, and keeps the game's presence it last read for
``REFRESH_S``; views show a seat as present when it was seen within ``WINDOW_MS`` by any replica.
The seats a replica saw within ``FLUSH_S`` are written together in one call: one write per seat
cost about 0.15 ms of the replica, and 10,000 players' streams renew theirs 1,000 times a second.
"""

from __future__ import annotations

import asyncio
import collections
import time
from typing import Any, Callable

import structlog
from redis.exceptions import RedisError

from hustings.service.store import Store, presence_key

log = structlog.get_logger("hustings.presence")

WINDOW_MS = 30_000
TOUCH_EVERY_S = 10.0
REFRESH_S = 5.0
# A presence hash that a write of presence makes (a game's step makes its own, with the game's
# expiry, which the hash then keeps): it outlives no game by long.
KEEP_S = 24 * 3600
# At most this many seats' throttles and games' copies are kept (the least recently used go
# first). Both are also dropped once they can no longer matter: a throttle older than
# TOUCH_EVERY_S (the next touch is due anyway), a game's copy older than REFRESH_S in which no
# seat was seen within the window (it shows nobody, and the next refresh reads it again).
# Cleared all at once at this bound, they made every live game's presence due and read again
# together, and finished games' entries stayed until then.
MAX_TRACKED = 50_000
FLUSH_S = 0.2  # seats seen within this long are written together (far inside WINDOW_MS)


def now_ms() -> int:
    """This machine's clock in ms since the epoch (a replica passes its shared clock instead)."""
    return int(time.time() * 1000)


class Presence:
    """Notes and reads when seats were last seen."""

    def __init__(self, store: Store, now_ms: Callable[[], int] = now_ms) -> None:
        self.store = store
        self.now_ms = now_ms  # the replicas' shared clock (service/clock.py): seen times are compared across replicas
        # (game, seat) -> when its presence was last due; least recently due first
        self._touched: collections.OrderedDict[tuple[str, int], float] = collections.OrderedDict()
        # game -> (when read, seat -> seen at ms); least recently read or noted first
        self._read: collections.OrderedDict[str, tuple[float, dict[int, int]]] = collections.OrderedDict()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._pending: dict[str, dict[int, int]] = {}  # seen, not written yet: game -> seat -> ms
        self._flusher: asyncio.Task[None] | None = None  # writes what is pending (``_flush``)

    def touch(self, game_id: str, seat: int | None) -> None:
        """Note that ``seat`` was seen now (in the background; throttled per seat)."""
        if seat is None or not self._due(game_id, seat):
            return
        self._pending.setdefault(game_id, {})[seat] = self.now_ms()
        if self._flusher is None or self._flusher.done():
            task = self._flusher = asyncio.create_task(self._flush())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def noted(self, game_id: str, seat: int, at_ms: int) -> None:
        """``seat`` was noted present at ``at_ms`` by a commit (``Store.commit(present=…)``):
        keep the throttle and this replica's copy in step, and write nothing more."""
        self._due(game_id, seat, at_ms)

    def _due(self, game_id: str, seat: int, at_ms: int | None = None) -> bool:
        """Whether a write of ``seat``'s presence is due (throttled per seat); notes it as
        seen at ``at_ms`` (now when None) in this replica's copy either way."""
        now = time.monotonic()
        key = (game_id, seat)
        due = now - self._touched.get(key, -TOUCH_EVERY_S) >= TOUCH_EVERY_S or at_ms is not None
        if due:
            touched = self._touched
            touched[key] = now
            touched.move_to_end(key)
            while touched and (len(touched) > MAX_TRACKED or now - next(iter(touched.values())) >= TOUCH_EVERY_S):
                touched.popitem(last=False)
            seen = self._read.get(game_id)
            if seen is not None:
                seen[1][seat] = at_ms if at_ms is not None else self.now_ms()
                self._read.move_to_end(game_id)
        return due

    async def _flush(self) -> None:
        """Every ``FLUSH_S`` while seats are pending, write those seen meanwhile. One runs at a
        time; a touch starts one when none runs (or the last was cancelled: what it left pending
        goes with the next)."""
        while self._pending:
            await asyncio.sleep(FLUSH_S)
            seen, self._pending = self._pending, {}
            try:
                await self.store.note_presence(seen, KEEP_S)
            except RedisError as error:
                log.debug("presence_not_written", games=len(seen), cause=type(error).__name__)

    async def refresh(self, game_id: str) -> None:
        """Read the game's presence unless it was read within ``REFRESH_S``."""
        seen = self._read.get(game_id)
        if seen is not None and time.monotonic() - seen[0] < REFRESH_S:
            return
        raw = await self.store.client.hgetall(presence_key(game_id))
        now = time.monotonic()
        read = self._read
        read[game_id] = (now, {int(k): int(v) for k, v in raw.items()})
        read.move_to_end(game_id)
        cutoff = self.now_ms() - WINDOW_MS
        while read:
            read_at, seats = next(iter(read.values()))
            stale = now - read_at >= REFRESH_S and all(at < cutoff for at in seats.values())
            if not (stale or len(read) > MAX_TRACKED):
                break
            read.popitem(last=False)

    def seen(self, game_id: str) -> set[int]:
        """The seats seen within the window, as this replica last read them."""
        seen = self._read.get(game_id)
        if seen is None:
            return set()
        cutoff = self.now_ms() - WINDOW_MS
        return {seat for seat, at in seen[1].items() if at >= cutoff}
