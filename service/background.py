"""A replica's background loops (deadlines, lobby repair): started with the replica, and
stopped for sure when it stops."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Awaitable, Callable

import structlog

from hustings.service.logs import SparseLines

log = structlog.get_logger("hustings.background")

STOP_ATTEMPTS = 20
STOP_WAIT_S = 0.5
# A loop whose rounds fail (Redis away: every round fails alike) says so at most this often for
# each cause, counting the rounds alike in between; the health's own lines (store_unreachable,
# store_reachable_again) say when Redis went and came back. Four deadline polls a second each
# wrote a line.
FAILURE_LOG_EVERY_S = 10.0
# After an error that a loop's own rounds do not expect, it begins again this much later.
RESTART_S = 1.0


class BackgroundLoop:
    """Runs ``_run`` as a task from ``start`` until ``stop``; ``_run`` loops while not
    ``_stopping``."""

    task_name = "hustings-background"

    def __init__(self) -> None:
        self._task: asyncio.Task[None] | None = None
        # The flag as well as the cancellation: the Redis client may turn a cancellation into a
        # connection error, which the loop would otherwise survive.
        self._stopping = False
        self._waiting: set[str] = set()  # keys of actions waiting to run (``later``)
        self._later: set[asyncio.Task[None]] = set()  # those actions, waiting or running
        self._failures = SparseLines(FAILURE_LOG_EVERY_S)

    def failed(self, logger: Any, event: str, error: BaseException) -> None:
        """Log a failed round as ``event`` (a warning naming the error's class, never its
        text), at most once every ``FAILURE_LOG_EVERY_S`` for each class."""
        cause = type(error).__name__
        left_out = self._failures.due(cause)
        if left_out is not None:
            logger.warning(event, cause=cause, alike_not_logged=left_out)

    def later(self, key: str, delay_s: float, action: Callable[[], Awaitable[None]]) -> None:
        """Run ``action`` in ``delay_s`` beside the loop, unless one for ``key`` is waiting
        already; ``stop`` cancels those that have not finished."""
        if self._stopping or key in self._waiting:
            return
        self._waiting.add(key)

        async def run() -> None:
            try:
                await asyncio.sleep(delay_s)
            finally:
                self._waiting.discard(key)  # from here on, the action may ask for the next one
            await action()

        task = asyncio.create_task(run(), name=f"{self.task_name}-later")
        self._later.add(task)
        task.add_done_callback(self._later.discard)

    def start(self) -> None:
        """Run in the background until ``stop``."""
        if self._task is None:
            self._stopping = False
            self._task = asyncio.create_task(self._kept(), name=self.task_name)

    async def _kept(self) -> None:
        """``_run`` until ``stop``: an error its rounds do not expect is logged, and the loop
        begins again ``RESTART_S`` later. Once such an error (a Redis Cluster out of reach, which
        redis-py did not raise as a RedisError) ended the deadline runner for good: no clock or
        bot decided again on that replica, and its stop raised the error."""
        while not self._stopping:
            try:
                await self._run()
                return
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - logged, and the loop goes on
                log.exception("background_loop_failed", loop=self.task_name, cause=type(error).__name__)
                await asyncio.sleep(RESTART_S)

    async def stop(self) -> None:
        """Stop the loop; a cancellation swallowed by a Redis call is repeated (bounded)."""
        self._stopping = True
        pending = list(self._later)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=STOP_WAIT_S)
        if self._task is None:
            return
        for _attempt in range(STOP_ATTEMPTS):
            self._task.cancel()
            await asyncio.wait({self._task}, timeout=STOP_WAIT_S)
            if self._task.done():
                break
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None

    async def _run(self) -> None:
        raise NotImplementedError
