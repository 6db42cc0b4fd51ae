"""Deadlines of the gRPC face's calls, kept by one sweeper instead of a timer per call.

Every unary call has two bounds: its request must arrive within seconds, and its handler must
answer within the server's deadline. ``asyncio.timeout`` would give each its own timer: a timer
object, a push onto the event loop's heap and its cancellation, about 5 µs apiece, twice on every
call, every move included. Here a call only notes its task and when it is due (a dict entry);
one sweep, a timer callback armed while any call is timed, runs every ``TICK_S`` and cancels the
calls that are overdue, which then raise TimeoutError as under ``asyncio.timeout``. A deadline so
fires up to one tick late: a quarter of a second on bounds of ten seconds and more. The sweep is a
callback rather than a task so that nothing is left to stop when the server stops: a timer still
armed when its loop closes is simply dropped.
"""

from __future__ import annotations

import asyncio
from typing import Any

TICK_S = 0.25


class CallClock:
    """The deadlines of the calls in progress on one event loop.

    ``with clock.within(seconds):`` bounds the block (at most one such block per task at a time);
    past the deadline the block's task is cancelled and the block raises TimeoutError."""

    def __init__(self, tick_s: float = TICK_S) -> None:
        self.tick_s = tick_s
        self._due: dict[asyncio.Task[Any], float] = {}  # task -> loop time it is due
        self._expired: set[asyncio.Task[Any]] = set()  # cancelled by the sweeper, not yet out of their block
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None  # the next sweep, while any block is timed
        self.sweeps = 0

    def within(self, seconds: float) -> "_Within":
        """A block bounded by ``seconds`` from now (a plain context manager: entering it does not
        yield to the loop)."""
        return _Within(self, seconds)

    @property
    def timed(self) -> int:
        """How many blocks are timed now."""
        return len(self._due)

    def _note(self, seconds: float) -> asyncio.Task[Any]:
        loop = self._loop
        if loop is None or loop.is_closed():
            loop = self._loop = asyncio.get_running_loop()
            self._timer = None  # one armed on a loop now closed never runs
        task = asyncio.current_task(loop)
        if task is None:
            raise RuntimeError("a call's deadline needs a task")
        self._due[task] = loop.time() + seconds
        if self._timer is None:
            # Armed while any block is timed: an idle replica has no wake-ups for it.
            self._timer = loop.call_later(self.tick_s, self._sweep)
        return task

    def _drop(self, task: asyncio.Task[Any]) -> bool:
        """Forget ``task``'s deadline; True when a sweep cancelled it for being late."""
        self._due.pop(task, None)
        if task in self._expired:
            self._expired.discard(task)
            return True
        return False

    def _sweep(self) -> None:
        self.sweeps += 1
        loop = self._loop
        assert loop is not None
        now = loop.time()
        for task in [task for task, due in self._due.items() if due <= now]:
            del self._due[task]
            if not task.done():
                self._expired.add(task)
                task.cancel()
        self._timer = loop.call_later(self.tick_s, self._sweep) if self._due else None


class _Within:
    """One block under a CallClock deadline."""

    __slots__ = ("clock", "seconds", "task", "cancelling")

    def __init__(self, clock: CallClock, seconds: float) -> None:
        self.clock = clock
        self.seconds = seconds

    def __enter__(self) -> None:
        task = self.task = self.clock._note(self.seconds)
        self.cancelling = task.cancelling()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, _trace: Any) -> None:
        if self.clock._drop(self.task) and kind is asyncio.CancelledError:
            # As asyncio.timeout does: the cancellation is the deadline's own unless someone
            # else asked for one too (the call's client went away, the server is stopping).
            if self.task.uncancel() <= self.cancelling:
                raise TimeoutError from error
