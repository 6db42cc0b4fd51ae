"""Checks that each hold on their own, which no other test would notice missing.

- ``hustings verify`` compares the version, the table and the result the finished game shows with
  the replay's end one by one, so a forged answer that differs in one of them only is refused,
  naming what differs. A real Redis and replica play a Stimmvieh game to its end; its answers are
  then changed as a server could change them, and checked with ``verify_log`` as the command does.
- A wait for the thinking place that is given up costs nothing of the budget for tables nobody
  is at (a real replica on a Redis of the test's own).
"""

from __future__ import annotations

import asyncio
import pathlib
import random

import pytest

from conftest import run
from hustings.service import deadlines
from hustings.service.embedded_redis import EmbeddedRedis
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
