"""A seat whose decision's deadline passed while its player still held it has timed out, whatever
the player does next: leaving before the deadline runner acted made the owed decision an absent
seat's (its bot decided, no timeout counted, no CHANGE_TIMED_OUT), and the absent seat's move,
taken as its player's return, made the overdue decision after all. Now the decision counts one
timeout, in the step that makes it, whether the player left, came back or stayed; a seat that
left in time is charged nothing for its bot's decision. Real Redis and gRPC; the replica's clock
is held, and its deadline runner stopped, so that the steps come in the order each test says."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from conftest import HeldClock, run
from hustings.client import Client, HustingsError, Joined
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import Replica
from hustings.v1 import game_pb2
from service_helpers import replica_and_client

DECISION_S = 30
POLLS = 100  # 0.05 s apart: the bot's decision, kicked by the leave's step
TIMED_OUT = game_pb2.SeatChanged.CHANGE_TIMED_OUT


async def _table(client: Client, **settings: object) -> tuple[str, list[Joined]]:
    """A running Stimmvieh game of three players (every seat owes its first decision)."""
    game_id = (await client.create_game("stimmvieh", 3, table=game_pb2.TableSettings(decision_seconds=DECISION_S, **settings))).game_id  # type: ignore[arg-type]
    return game_id, [await client.join(game_id, name) for name in ("Ada", "Bo", "Cy")]


async def _decided(client: Client, game_id: str, seat: int) -> game_pb2.GameView:
    """The game once ``seat``'s bot made a decision for it."""
    for _ in range(POLLS):
        view = await client.view(game_id)
        if view.seats[seat].bot_played:
            return view
        await asyncio.sleep(0.05)
    raise AssertionError(f"seat {seat}'s bot did not decide")


async def _timed_out_events(client: Client, game_id: str, seat: int) -> list[int]:
    """The versions of the steps that time ``seat`` out."""
    return [
        entry.version
        for entry in await client.history(game_id)
        for event in entry.events
        if event.HasField("seat_changed") and event.seat_changed.seat == seat and event.seat_changed.change == TIMED_OUT
    ]


async def _past_deadline(replica: Replica, client: Client, game_id: str, token: str) -> game_pb2.GameView:
    """Move the replica's clock past seat 0's deadline (nothing acts on it: the runner is stopped)."""
    view = await client.view(game_id, token)
    clock: HeldClock = replica.config.local_clock  # type: ignore[assignment]
    clock.advance_to_ms(replica, view.seats[0].deadline_unix_ms + 1)
    return view


def test_a_seat_that_leaves_after_its_deadline_has_timed_out(redis_server: EmbeddedRedis) -> None:
    """Ada's time runs out; she leaves before any replica acted on it. Her bot makes the decision
    (at once: the leave's step kicks it) and it counts as the timeout it is, in the step that
    makes it."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, local_clock=HeldClock()) as (replica, client):
            await replica.host.deadline_runner.stop()
            game_id, seats = await _table(client)
            await _past_deadline(replica, client, game_id, seats[0].token)
            left = await client.leave(game_id, seats[0].token)
            view = await _decided(client, game_id, 0)
            assert view.seats[0].absent
            assert view.seats[0].timeouts == 1
            assert await _timed_out_events(client, game_id, 0) == [left.view.version + 1]

    run(scenario(), 60)


def test_a_seat_that_leaves_in_time_is_charged_no_timeout_for_its_bots_decision(redis_server: EmbeddedRedis) -> None:
    """Ada leaves a millisecond before her deadline, and her bot decides after it (a replica
    late with it): she left in time, and her absence is a leave, not a timeout."""

    async def scenario() -> None:
        clock = HeldClock()
        async with replica_and_client(redis_server.url, local_clock=clock) as (replica, client):
            await replica.host.deadline_runner.stop()
            game_id, seats = await _table(client, bot_level="strong")
            view = await client.view(game_id, seats[0].token)
            place = replica.host.seats._thinking["strong"]
            await place.acquire()  # her bot waits to think until after the deadline
            try:
                clock.advance_to_ms(replica, view.seats[0].deadline_unix_ms - 1)
                await client.leave(game_id, seats[0].token)
                clock.advance_to_ms(replica, view.seats[0].deadline_unix_ms + 1)
            finally:
                place.release()
            decided = await _decided(client, game_id, 0)
            assert decided.seats[0].absent and decided.seats[0].timeouts == 0
            assert await _timed_out_events(client, game_id, 0) == []

    run(scenario(), 60)


def test_a_seat_that_left_after_its_deadline_and_came_back_times_out_once(redis_server: EmbeddedRedis) -> None:
    """Ada leaves after her deadline and returns before her bot decided (it waits to think):
    the overdue decision is still her bot's, and counts one timeout, not one at the leave and
    another when the bot decides."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, local_clock=HeldClock()) as (replica, client):
            await replica.host.deadline_runner.stop()
            game_id, seats = await _table(client, bot_level="strong")
            place = replica.host.seats._thinking["strong"]
            await place.acquire()
            try:
                await _past_deadline(replica, client, game_id, seats[0].token)
                await client.leave(game_id, seats[0].token)
                await client.return_to_game(game_id, seats[0].token)
            finally:
                place.release()
            view = await _decided(client, game_id, 0)
            assert not view.seats[0].absent and view.seats[0].timeouts == 1
            assert len(await _timed_out_events(client, game_id, 0)) == 1

    run(scenario(), 60)


def test_a_seat_that_left_after_its_deadline_cannot_make_the_decision_by_moving(redis_server: EmbeddedRedis) -> None:
    """An absent seat's move is its player's return, and is taken; but not the decision whose
    time ran out before the player left: that is refused TIME_RUN_OUT, as it was before the
    leave, and the bot makes it, counting the timeout."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, local_clock=HeldClock()) as (replica, client):
            await replica.host.deadline_runner.stop()
            game_id, seats = await _table(client, bot_level="strong")
            place = replica.host.seats._thinking["strong"]
            await place.acquire()
            try:
                view = await _past_deadline(replica, client, game_id, seats[0].token)
                await client.leave(game_id, seats[0].token)
                with pytest.raises(HustingsError) as late:
                    await client.move(game_id, seats[0].token, view.legal_moves[0])
                assert (late.value.code, late.value.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "TIME_RUN_OUT")
            finally:
                place.release()
            decided = await _decided(client, game_id, 0)
            assert decided.seats[0].absent and decided.seats[0].timeouts == 1

    run(scenario(), 60)


@pytest.mark.parametrize(
    ("bank_s", "decision_s", "left_at_ms", "overdue"),
    [
        (0, 10, 10_999, False),  # a decision limit alone: a millisecond before it, in time
        (0, 10, 11_000, True),  # at it
        (20, 0, 20_999, False),  # a bank alone
        (20, 0, 25_000, True),
        (20, 10, 10_999, False),  # both: the earlier, the decision's
        (20, 10, 11_000, True),
        (5, 10, 6_000, True),  # both: the earlier, the bank's
        (0, 0, 99_000, False),  # no clock: nothing is ever overdue
    ],
)
def test_a_leave_notes_whether_it_came_after_the_decisions_deadline(bank_s: int, decision_s: int, left_at_ms: int, overdue: bool) -> None:
    """``table.left_overdue`` by the time a leave noted (``charge_bank``), with or without a
    bank, and the decision's deadline the same after the leave as before it. A decision begun
    later is not the one left."""
    from hustings.service import table
    from hustings.storage.v1 import storage_pb2

    stored = storage_pb2.StoredGame(table=game_pb2.TableSettings(bank_seconds=bank_s, decision_seconds=decision_s))
    seat = stored.seats.add(seat=0, display_name="Ada", bank_ms=bank_s * 1000, turn_started_ms=1_000)
    deadline = table._deadline(stored.table, seat)
    table.charge_bank(stored, seat, left_at_ms)
    assert table.left_overdue(stored.table, seat) is overdue
    assert table._deadline(stored.table, seat) == deadline
    seat.turn_started_ms = left_at_ms + 1
    assert not table.left_overdue(stored.table, seat)
