"""Wall-clock time every replica agrees on, for the tables' clocks and deadlines.

A seat's deadline is written by one replica and enforced by whichever replica polls it first, so
each replica's idea of "now" must be the same: a replica whose machine clock ran a minute fast
would time seats out a minute early. Each replica therefore reads the time of the Redis server
they share (TIME) at start and then every minute, and keeps its own clock's offset from it; the
round trip's midpoint is taken as the moment Redis answered, from the quickest of a few samples.
"""

from __future__ import annotations

import asyncio
import time
from typing import Callable

import structlog

from hustings.service.background import BackgroundLoop

log = structlog.get_logger("hustings.clock")

SAMPLES = 3
RECHECK_S = 60.0
WARN_OFFSET_S = 1.0  # an offset this large is worth telling the operator about (NTP is off)


class SharedClock(BackgroundLoop):
    """This machine's clock corrected by its offset from the Redis server's clock."""

    task_name = "hustings-clock"

    def __init__(self, client: object, local: Callable[[], float] = time.time, recheck_s: float = RECHECK_S) -> None:
        super().__init__()
        self._client = client
        self._local = local
        self._recheck_s = recheck_s
        self.offset_s = 0.0
        self._warned = False

    def time(self) -> float:
        """Seconds since the epoch by the shared clock."""
        return self._local() + self.offset_s

    async def calibrate(self) -> float:
        """Measure the offset from Redis' clock again; returns it."""
        best: tuple[float, float] | None = None  # (round trip, offset)
        for _sample in range(SAMPLES):
            sent = self._local()
            seconds, microseconds = await self._client.time()  # type: ignore[attr-defined]
            received = self._local()
            offset = seconds + microseconds / 1e6 - (sent + received) / 2
            if best is None or received - sent < best[0]:
                best = (received - sent, offset)
        assert best is not None
        self.offset_s = best[1]
        if abs(self.offset_s) >= WARN_OFFSET_S and not self._warned:
            self._warned = True
            log.warning("clock_offset_from_redis", offset_s=round(self.offset_s, 3), hint="this machine's clock is off: is NTP running?")
        return self.offset_s

    async def _run(self) -> None:
        while not self._stopping:
            await asyncio.sleep(self._recheck_s)
            try:
                await self.calibrate()
            except Exception as error:  # Redis briefly away: keep the last offset
                self.failed(log, "clock_calibration_failed", error)
