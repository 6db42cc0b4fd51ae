"""A serving process hands the memory its allocator keeps free back to the system once a minute
(``collector.trim_memory``): glibc kept what gRPC's threads freed in their arenas, so waves of a
crowd's connections, opened and closed, left a replica's memory growing with every wave."""

from __future__ import annotations

import asyncio
import ctypes
import platform

from hustings.service import collector


def test_the_trim_runs_every_period_in_a_thread_until_cancelled() -> None:
    calls: list[tuple[int, bool]] = []

    def trim(pad: int) -> int:
        try:
            asyncio.get_running_loop()
            on_loop = True
        except RuntimeError:
            on_loop = False
        calls.append((pad, on_loop))
        return 1

    async def scenario() -> int:
        task = asyncio.ensure_future(collector.trim_memory(0.02, trim))
        await asyncio.sleep(0.2)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            pass
        after = len(calls)
        await asyncio.sleep(0.1)
        assert len(calls) == after  # stopped
        return after

    made = asyncio.run(scenario())
    assert 3 <= made <= 11 and all(call == (0, False) for call in calls), calls  # off the event loop's thread


def test_glibc_s_trim_is_found_and_gives_freed_memory_back() -> None:
    """With glibc the trim is there, and after a thread's freed allocations it reports memory
    released (1); with another C library (musl) there is none, and the trimming ends at once."""
    trim = collector.malloc_trim()
    if platform.libc_ver()[0] != "glibc":
        assert trim is None
        asyncio.run(asyncio.wait_for(collector.trim_memory(0.01), 1))
        return
    assert trim is not None

    kept: list[ctypes.Array[ctypes.c_char]] = []

    def churn() -> None:
        blocks = [ctypes.create_string_buffer(4096) for _ in range(20_000)]  # 80 MB in small blocks
        kept.extend(blocks[::100])  # a block kept here and there: free pages between, none at the top
        del blocks

    async def scenario() -> int:
        await asyncio.to_thread(churn)
        return await asyncio.to_thread(trim, 0)

    assert asyncio.run(scenario()) == 1 and len(kept) == 200
