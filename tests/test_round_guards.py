"""Guards each of which holds one check on its own, that no other test caught when it was undone.

- ``hustings verify`` compares the version, the table and the result the finished game shows with
  the replay's end one by one, so a forged answer that differs in one of them only is refused,
  naming what differs. A real Redis and replica play a Stimmvieh game to its end; its answers are
  then changed as a server could change them, and checked with ``verify_log`` as the command does.
- The deadline runner's stop cancels a game task again when a cancellation was swallowed (as a
  Redis call may swallow one), so that no task is left applying a game after the replica stopped.
  Real Redis (a server of the test's own), the runner on the index as the host builds it.
- A wait for the thinking place that is given up costs nothing of the budget for tables nobody
  is at (a real replica on a Redis of the test's own).
"""

from __future__ import annotations

import asyncio
import pathlib
import random
import time

import pytest

from conftest import run
from hustings.service import deadlines
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.host import GameHost
from hustings.service.notifier import Notifier
from hustings.service.store import Store
from hustings.v1 import game_pb2
from hustings.verify import verify_log
from service_helpers import new_game, play_to_end, replica_and_client

PLAYERS = 3


@pytest.fixture(scope="module")
def finished(redis_server: EmbeddedRedis) -> tuple[game_pb2.GameView, list[game_pb2.HistoryEntry], str]:
    """A finished game's final view (as the spectator), its whole history and the commitment
    its first player kept."""

    async def scenario() -> tuple[game_pb2.GameView, list[game_pb2.HistoryEntry], str]:
        async with replica_and_client(redis_server.url) as (_replica, client):
            seats = await new_game(client, PLAYERS)
            commitment = seats[0].view.seed_commitment
            final = await play_to_end([client], seats, random.Random(43))
            return final, await client.history(final.game_id), commitment

    return run(scenario())  # type: ignore[no-any-return]


def _forged(view: game_pb2.GameView) -> game_pb2.GameView:
    copy = game_pb2.GameView()
    copy.CopyFrom(view)
    return copy


def test_the_honest_finished_game_verifies(finished: tuple[game_pb2.GameView, list[game_pb2.HistoryEntry], str]) -> None:
    view, entries, commitment = finished
    report = verify_log(view, entries, commitment)
    assert report.ok, report


def test_a_finished_game_shown_at_another_version_is_refused(
    finished: tuple[game_pb2.GameView, list[game_pb2.HistoryEntry], str],
) -> None:
    """Only the version differs: the table and the result are the replay's."""
    view, entries, commitment = finished
    forged = _forged(view)
    forged.version += 1
    report = verify_log(forged, entries, commitment)
    assert not report.ok and f"shows version {forged.version}" in report.message, report


def test_a_finished_table_that_is_not_the_replays_is_refused(
    finished: tuple[game_pb2.GameView, list[game_pb2.HistoryEntry], str],
) -> None:
    """Only the table differs (one more card shown left on the vote stack); the version and the
    result are the replay's."""
    view, entries, commitment = finished
    forged = _forged(view)
    forged.stimmvieh.vote_stack_count += 1
    assert forged.stimmvieh != view.stimmvieh and forged.outcome == view.outcome
    report = verify_log(forged, entries, commitment)
    assert not report.ok and "finished table" in report.message, report


def test_a_result_that_is_not_the_replays_is_refused(
    finished: tuple[game_pb2.GameView, list[game_pb2.HistoryEntry], str],
) -> None:
    """Only the result differs (the winner's score shown one higher); the version and the table
    are the replay's."""
    view, entries, commitment = finished
    forged = _forged(view)
    forged.outcome.placings[0].score += 1
    assert forged.stimmvieh == view.stimmvieh and forged.outcome != view.outcome
    report = verify_log(forged, entries, commitment)
    assert not report.ok and "result" in report.message, report


def _now() -> int:
    return int(time.time() * 1000)


def _game_tasks() -> list[asyncio.Task]:  # type: ignore[type-arg]
    """The runner's tasks applying a game, still running."""
    return [t for t in asyncio.all_tasks() if t.get_name() == f"{deadlines.DeadlineRunner.task_name}-game" and not t.done()]


def test_stop_cancels_again_a_game_task_that_swallowed_its_cancellation(tmp_path: pathlib.Path) -> None:
    """The game's applying swallows the first cancellation (as a Redis call caught mid-way may)
    and holds on; ``stop`` cancels it again (bounded), so it ends, and its claim is handed back
    due at once."""

    async def scenario(server: EmbeddedRedis) -> None:
        store = Store.from_url(server.url)
        never = asyncio.Event()
        try:
            index = GameHost(store, Notifier(store.client)).deadlines
            calls: list[str] = []
            swallowed: list[str] = []

            async def apply_due(game_id: str) -> tuple[int, int]:
                calls.append(game_id)
                try:
                    await never.wait()
                except asyncio.CancelledError:
                    swallowed.append(game_id)  # swallowed once: holds on as before
                    await never.wait()
                return 0, 0

            async def version_of(game_id: str) -> int:
                return 0

            runner = deadlines.DeadlineRunner(index, apply_due, version_of, poll_s=0.01, now_ms=_now)
            await index.schedule("g-stubborn", _now())
            runner.start()
            ends = time.monotonic() + 5
            while calls != ["g-stubborn"]:
                assert time.monotonic() < ends, "the game was never claimed"
                await asyncio.sleep(0.01)
            await asyncio.wait_for(runner.stop(), 10)
            await asyncio.sleep(0.05)
            left = _game_tasks()
            score = await store.client.zscore(deadlines.bucket_key("g-stubborn"), "g-stubborn")
            assert (swallowed, len(left)) == (["g-stubborn"], 0), f"{len(left)} task(s) still applying after stop()"
            assert score is not None and score <= _now(), "the claim was not handed back due"
        finally:
            never.set()
            await asyncio.sleep(0.05)
            await store.close()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server), 30)


def test_a_wait_for_the_thinking_place_that_is_given_up_costs_no_budget(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The replica's budget for tables nobody is at is asked when a decision is about to be made:
    a table of strong bots alone whose waits for the (busy) thinking place are given up, here
    three times, leaves the budget as it was. Asked before each wait, each wait given up cost a
    strong decision's share (a second of a budget of one such decision a second), and the tables
    that could decide found none left."""
    from hustings.service.replica import UNBOUNDED_CREATES

    monkeypatch.setattr(deadlines, "LEASE_MS", 600)  # a wait is given up after 0.3 s

    async def scenario(url: str) -> None:
        async with replica_and_client(url, unattended_decisions_per_second=20, **UNBOUNDED_CREATES) as (replica, client):
            host = replica.host
            await host.deadline_runner.stop()  # only the calls below (and the creation's kick) decide
            place = host.seats._thinking["strong"]
            await place.acquire()  # another table's bot thinks all along
            try:
                alone = game_pb2.TableSettings(bot_seats=[0, 1, 2], bot_level="strong")
                game_id = (await client.create_game("stimmvieh", PLAYERS, table=alone)).game_id
                await asyncio.sleep(0.2)  # a table of bots alone is paced: its first decisions fall due
                for _ in range(3):
                    next_due, _seen = await asyncio.wait_for(host.seats.apply_due(game_id), 10)
                    assert next_due <= host._now_ms()  # handed back due: nothing decided
                assert (await client.view(game_id)).version == 1
                assert host.seats.unattended.wait_s("g-elsewhere", "strong") == 0  # the budget is whole
            finally:
                place.release()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url), 30)
