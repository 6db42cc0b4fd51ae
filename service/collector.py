"""How a replica process runs CPython's garbage collector.

A replica that holds thousands of WatchGame streams holds millions of long-lived objects. With
CPython's default thresholds (a young collection every 700 new container objects) each update
that many streams carry triggers young collections, part of every in-flight update survives them
into the older generations, and every so often a full collection walks every object of every
stream while the event loop stands still: measured 0.4-0.8 s with 3,000-10,000 streams, which
every stream feels as delivery delay. So a serving process freezes what exists when it starts
(imported modules and the games' content, never garbage) and collects young objects less often,
which lets in-flight objects die young instead of growing the old generations.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 20_000  # new container objects between young collections (CPython's default: 700)
OLDER_THRESHOLDS = (10, 10)  # as CPython's defaults


def settle() -> None:
    """Freeze the objects that exist now and set the thresholds of a serving process."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *OLDER_THRESHOLDS)
