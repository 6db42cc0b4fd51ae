"""Ending a command on SIGTERM or SIGHUP as Ctrl-C ends it: through its cleanup.

Commands that start processes of their own (an embedded Redis, replicas) stop them in their
``finally`` blocks, which Ctrl-C reaches (asyncio.run cancels the main task) but a plain SIGTERM
or SIGHUP does not: the process died and left its embedded Redis running, and its folder behind.
A terminal window closed sends SIGHUP; a service manager or ``kill`` sends SIGTERM.
"""

from __future__ import annotations

import asyncio
import signal
from typing import Any, Coroutine

STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


async def until_stopped(work: Coroutine[Any, Any, int]) -> int:
    """``work``, cancelled by SIGTERM or SIGHUP as asyncio.run cancels it on SIGINT, so that
    every ``finally`` on its way runs; then 128 + the signal's number (143, 129), as a shell
    reports a process ended by it."""
    task = asyncio.current_task()
    assert task is not None
    loop = asyncio.get_running_loop()
    stopped: list[int] = []

    def on_signal(number: int) -> None:
        stopped.append(number)
        task.cancel()

    for number in STOP_SIGNALS:
        loop.add_signal_handler(number, on_signal, number)
    try:
        return await work
    except asyncio.CancelledError:
        if stopped:
            return 128 + stopped[0]
        raise
    finally:
        for number in STOP_SIGNALS:
            loop.remove_signal_handler(number)
