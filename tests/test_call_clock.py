"""The gRPC face's call deadlines (service/call_clock.py) and the calls' log context
(service/logs.py): what asyncio.timeout and structlog's context variables gave, cheaper."""

from __future__ import annotations

import asyncio
import io
import json
import time

import pytest
import structlog

from hustings.service import logs
from hustings.service.call_clock import CallClock
from tests.conftest import run

TICK_S = 0.05


def test_a_block_past_its_deadline_raises_timeout_error_within_a_tick() -> None:
    async def scenario() -> None:
        clock = CallClock(tick_s=TICK_S)
        started = time.monotonic()
        with pytest.raises(TimeoutError):
            with clock.within(0.2):
                await asyncio.sleep(5)
        took = time.monotonic() - started
        print(f"timed out after {took:.3f} s")
        assert 0.2 <= took <= 0.2 + TICK_S + 0.5  # one tick late at most, and some scheduling
        assert clock.timed == 0
        await asyncio.sleep(0)  # the task goes on: the deadline's cancellation was taken back
        assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]

    run(scenario(), timeout_s=10)


def test_a_block_that_ends_in_time_is_left_alone_and_the_sweeper_stops() -> None:
    async def scenario() -> None:
        clock = CallClock(tick_s=TICK_S)
        with clock.within(0.6):  # half a second to spare: a busy machine may hold the loop a while
            await asyncio.sleep(0.1)
        assert clock.timed == 0
        await asyncio.sleep(TICK_S * 4)
        assert clock._timer is None  # it stops once nothing is timed: an idle replica has no wake-ups
        sweeps = clock.sweeps
        await asyncio.sleep(0.4)  # past the old deadline: nothing fires
        assert clock.sweeps == sweeps
        with clock.within(1.0):  # and it starts again for the next call
            assert clock._timer is not None

    run(scenario(), timeout_s=10)


def test_many_calls_share_one_sweeper_and_only_the_late_ones_time_out() -> None:
    async def call(clock: CallClock, limit_s: float, takes_s: float) -> str:
        try:
            with clock.within(limit_s):
                await asyncio.sleep(takes_s)
        except TimeoutError:
            return "late"
        return "in time"

    async def scenario() -> None:
        clock = CallClock(tick_s=TICK_S)
        # The calls in time have a second to spare, the late ones nearly two seconds too few.
        calls = [call(clock, 1.0, 0.05) for _ in range(50)] + [call(clock, 0.1, 2.0) for _ in range(50)]
        tasks = [asyncio.ensure_future(c) for c in calls]
        await asyncio.sleep(0)
        assert clock.timed == 100
        started = time.monotonic()
        results = await asyncio.gather(*tasks)
        took = time.monotonic() - started
        assert results == ["in time"] * 50 + ["late"] * 50
        assert clock.timed == 0
        # One sweep per tick for all of them, not one timer per call.
        assert 1 <= clock.sweeps <= took / TICK_S + 2

    run(scenario(), timeout_s=10)


def test_a_cancellation_from_elsewhere_stays_a_cancellation() -> None:
    """A call whose client went away is cancelled by gRPC: that is not a deadline."""

    async def scenario() -> None:
        clock = CallClock(tick_s=TICK_S)

        async def call() -> None:
            with clock.within(5.0):
                await asyncio.sleep(5)

        task = asyncio.ensure_future(call())
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert clock.timed == 0

    run(scenario(), timeout_s=10)


def test_a_calls_log_lines_carry_its_fields_and_only_its_own() -> None:
    out = io.StringIO()
    saved = structlog.get_config()
    structlog.configure(
        processors=[logs.merge_call, structlog.processors.JSONRenderer()],
        logger_factory=structlog.PrintLoggerFactory(file=out),
        cache_logger_on_first_use=False,
    )
    log = structlog.get_logger("t")

    async def child() -> None:
        await asyncio.sleep(0.01)
        log.info("child_line")

    async def call(name: str, game_id: str) -> None:
        logs.begin_call(rpc=name, game_id=game_id)
        started = asyncio.ensure_future(child())  # a task the call starts keeps what it had then
        logs.note(seat=1, game_id=game_id + "x")
        log.info("call_line", version=3)
        await started

    async def scenario() -> None:
        logs.begin_call(rpc="Stale", secret="s")
        await asyncio.gather(asyncio.ensure_future(call("SubmitMove", "g1")), asyncio.ensure_future(call("GetView", "g2")))

    try:
        run(scenario(), timeout_s=10)
    finally:
        structlog.configure(**saved)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    by = {(line["event"], line["rpc"]): line for line in lines}
    assert by[("call_line", "SubmitMove")] == {"event": "call_line", "version": 3, "rpc": "SubmitMove", "game_id": "g1x", "seat": 1}
    assert by[("call_line", "GetView")]["game_id"] == "g2x"
    assert by[("child_line", "SubmitMove")] == {"event": "child_line", "rpc": "SubmitMove", "game_id": "g1"}
    assert all("secret" not in line for line in lines)  # a call starts afresh
