"""How a replica process runs CPython's garbage collector.

A replica that holds thousands of WatchGame streams holds millions of long-lived objects. With
CPython's default thresholds (a young collection every 700 new container objects) each update
that many streams carry triggers young collections, part of every in-flight update survives them
into the older generations, and every so often a full collection walks every object of every
stream while the event loop stands still: measured 0.4-0.8 s with 3,000-10,000 streams, which
every stream feels as delivery delay. So a serving process freezes what exists when it starts
(imported modules and the games' content, never garbage) and collects young objects less often,
which lets in-flight objects die young instead of growing the old generations.

It also hands the memory its allocator keeps free back to the system once a minute
(``trim_memory``): glibc keeps what gRPC's threads freed in their arenas, so a crowd's
connections, opened and closed, left a replica's resident memory growing with every wave (six
waves of 4,000: from 76 MB to 216 MB; a minute later, trimmed, 104 MB).
"""

from __future__ import annotations

import asyncio
import ctypes
import gc
from typing import Callable

YOUNG_THRESHOLD = 20_000  # new container objects between young collections (CPython's default: 700)
OLDER_THRESHOLDS = (10, 10)  # as CPython's defaults


def settle() -> None:
    """Freeze the objects that exist now and set the thresholds of a serving process."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *OLDER_THRESHOLDS)


TRIM_EVERY_S = 60.0


def malloc_trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, or None where the C library has none (musl)."""
    try:
        return getattr(ctypes.CDLL(None), "malloc_trim", None)  # type: ignore[no-any-return]
    except OSError:
        return None


async def trim_memory(every_s: float = TRIM_EVERY_S, trim: Callable[[int], int] | None = None) -> None:
    """Give the allocator's free memory back to the system every ``every_s``, in a thread (it
    walks every arena: a few milliseconds), until cancelled; nothing where there is no
    ``malloc_trim``."""
    trim = trim or malloc_trim()
    if trim is None:
        return
    while True:
        await asyncio.sleep(every_s)
        await asyncio.to_thread(trim, 0)
