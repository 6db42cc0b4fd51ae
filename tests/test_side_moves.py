"""Side moves and the table's clocks: a move made beside a decision (The Spin Doctors' hand-over
of Budget points, a deal offer, withdrawal or decline) ends no decision, so it neither restarts
its mover's decision clock nor adds an increment nor charges the bank; the decision times out
when it would have without it. The engine's side of it for every game, the clocks' arithmetic,
and a Spin Doctors table through a real replica on a real Redis, with the replica's clock held
still and moved on by the test.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from conftest import HeldClock, run
from service_helpers import replica_and_client
from hustings.client import Client
from hustings.engine import Rng, games, get_game
from hustings.engine.base import is_side_move
from hustings.engine.spin_doctors.model import DeclineOffer, HandBudget, OfferDeal, Term, WithdrawOffer
from hustings.service import table
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2

Change = game_pb2.SeatChanged.Change
STEPS = 400  # random steps per option set: enough to meet hand-overs and deals in The Spin Doctors
DECISION_S = 60
BANK_S = 600
INCREMENT_S = 10
SPIN_DOCTORS = get_game("spin_doctors")
assert SPIN_DOCTORS is not None


def test_side_moves_never_change_who_owes_a_decision() -> None:
    """Every game, random play: a move the game calls a side move leaves ``to_act`` as it was
    (what the clocks rely on); The Spin Doctors and Wahlspiel have some, Stimmvieh none."""
    seen: dict[str, int] = {}
    for kind, game in games().items():
        seen[kind] = 0
        for _label, options in game.sample_options():
            rng, chooser = Rng(b"side-" + kind.encode()), Rng(b"chooser-" + kind.encode())
            state = game.setup(options, rng)
            for _step in range(STEPS):
                if game.is_over(state):
                    break
                # Any seat with a move, owing a decision or not: hand-overs come from both.
                movers = [s for s in range(game.seat_count(options)) if game.legal_moves(state, s)]
                seat = movers[chooser.below(len(movers))]
                moves = game.legal_moves(state, seat)
                move = moves[chooser.below(len(moves))]
                after, _events = game.apply(state, seat, move, rng)
                if is_side_move(game, move, state):
                    seen[kind] += 1
                    assert game.to_act(after) == game.to_act(state), (kind, seat, move)
                state = after
    assert seen["spin_doctors"] > 0 and seen["wahlspiel"] > 0, seen
    assert seen["stimmvieh"] == 0, seen


def test_the_spin_doctors_side_moves_are_its_hand_overs_and_deals() -> None:
    term = Term("SPARE_VOTES")
    assert all(SPIN_DOCTORS.is_side_move(m) for m in (HandBudget(1, 5), OfferDeal(0, 2, term), WithdrawOffer(0), DeclineOffer(0)))
    own = [m for m in SPIN_DOCTORS.legal_moves(SPIN_DOCTORS.setup(SPIN_DOCTORS.sample_options()[0][1], Rng(b"s")), 0)]
    decisions = [m for m in own if not isinstance(m, HandBudget)]
    assert decisions and not any(SPIN_DOCTORS.is_side_move(m) for m in decisions)


def _clocked_table(seats: int) -> storage_pb2.StoredGame:
    stored = storage_pb2.StoredGame(status=game_pb2.GAME_STATUS_ACTIVE)
    stored.table.CopyFrom(game_pb2.TableSettings(decision_seconds=20, bank_seconds=60, increment_seconds=5))
    for seat in range(seats):
        stored.seats.add(seat=seat)
    table.start_banks(stored)
    return stored


def _clocks(stored: storage_pb2.StoredGame) -> list[tuple[int, int, int]]:
    return [(s.turn_started_ms, s.deadline_ms, s.bank_ms) for s in stored.seats]


def test_a_side_move_leaves_every_clock_as_it_was_and_the_decision_pays_for_all_its_time() -> None:
    """settle's arithmetic: 20 s a decision, a 60 s bank, 5 s increment."""
    stored = _clocked_table(3)
    table.settle(stored, {0, 1}, None, now_ms=1_000)  # seats 0 and 1 owe a decision
    before = _clocks(stored)
    assert before[0] == (1_000, 21_000, 60_000)
    # Seat 0 hands over 19 s into its decision, then seat 2 (owing nothing) does: nothing moves.
    assert table.settle(stored, {0, 1}, mover=0, now_ms=20_000, side_move=True) == 21_000
    assert _clocks(stored) == before
    table.settle(stored, {0, 1}, mover=2, now_ms=20_500, side_move=True)
    assert _clocks(stored) == before
    assert table.due_seats(stored, {0, 1}, now_ms=20_999) == [] and table.due_seats(stored, {0, 1}, now_ms=21_000) == [0, 1]
    # Seat 0 decides at 20.9 s, owing the next decision: its bank pays the whole 19.9 s once.
    table.settle(stored, {0, 1}, mover=0, now_ms=20_900)
    assert stored.seats[0].bank_ms == 60_000 - 19_900 + 5_000
    assert stored.seats[0].turn_started_ms == 20_900 and stored.seats[0].deadline_ms == 40_900
    assert _clocks(stored)[1:] == before[1:]



def _proto(move: Any) -> game_pb2.Move:
    out = game_pb2.Move()
    SPIN_DOCTORS.move_to_proto(move, out)
    return out


def _decision(view: game_pb2.GameView) -> game_pb2.Move:
    """The first of the seat's listed moves that is a decision, not a side move."""
    return next(m for m in view.legal_moves if not SPIN_DOCTORS.is_side_move(SPIN_DOCTORS.move_from_proto(m)))


def _seat_clocks(view: game_pb2.GameView) -> list[tuple[int, int, int]]:
    return [(s.deadline_unix_ms, s.bank_ms, s.timeouts) for s in view.seats]


def _hand_over_then_decide(game: Any, state: Any, seat: int, level: str, rng: Any) -> Any:
    """A stand-in for a timed-out seat that hands a point over before the decision made for it."""
    moves = game.legal_moves(state, seat)
    gifts = [m for m in moves if isinstance(m, HandBudget) and m.amount == 1]
    return gifts[0] if gifts else next(m for m in moves if not game.is_side_move(m))


def test_a_hand_over_neither_restarts_nor_extends_the_clock_through_the_service(
    redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The decision made for a timed-out seat: a hand-over first, then the decision.
    monkeypatch.setattr(table, "server_move", _hand_over_then_decide)
    clock = HeldClock()

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, local_clock=clock) as (replica, client):
            settings = game_pb2.TableSettings(decision_seconds=DECISION_S, bank_seconds=BANK_S, increment_seconds=INCREMENT_S)
            game_id = (await client.create_game("spin_doctors", 3, table=settings)).game_id
            seats = [await client.join(game_id, name) for name in ("Ania", "Bartek", "Antek")]
            start = await client.view(game_id)
            begun = replica.host._now_ms()
            deadline = start.seats[0].deadline_unix_ms
            assert {s.deadline_unix_ms for s in start.seats} == {deadline} and deadline == begun + DECISION_S * 1000

            # Ania, 50 s into choosing her Staff, hands Bartek a point: her clock runs on.
            clock.advance_to_ms(replica, begun + 50_000)
            await client.move(game_id, seats[0].token, _proto(HandBudget(1, 1)))
            after = await client.view(game_id, seats[0].token)
            assert after.version == start.version + 1
            assert _seat_clocks(after) == _seat_clocks(start)
            assert after.seats[0].bank_ms == BANK_S * 1000  # nothing charged, nothing added yet

            # She chooses her Staff at 55 s: the bank pays the whole 55 s once, with one increment,
            # and her next choice (a Programme card) begins now.
            clock.advance_to_ms(replica, begun + 55_000)
            decided_at = replica.host._now_ms()
            await client.move(game_id, seats[0].token, _decision(after))
            mid = await client.view(game_id, seats[0].token)
            assert mid.seats[0].bank_ms == BANK_S * 1000 - (decided_at - begun) + INCREMENT_S * 1000
            assert mid.seats[0].deadline_unix_ms == decided_at + DECISION_S * 1000
            assert _seat_clocks(mid)[1:] == _seat_clocks(start)[1:]

            # Ania makes her Programme choices and owes nothing more; her hand-over then leaves
            # every clock as it was.
            for _choice in range(5):
                view = await client.view(game_id, seats[0].token)
                if 0 not in view.to_act:
                    break
                await client.move(game_id, seats[0].token, _decision(view))
            idle = await client.view(game_id)
            assert 0 not in idle.to_act and idle.seats[0].deadline_unix_ms == 0
            await client.move(game_id, seats[0].token, _proto(HandBudget(2, 1)))
            assert _seat_clocks(await client.view(game_id)) == _seat_clocks(idle)

            # Bartek and Antek time out at the deadline of the decision they began at the start,
            # not later: nothing is due a moment before it.
            clock.advance_to_ms(replica, deadline - 3)
            await replica.host.deadline_runner.run_once()
            assert (await client.view(game_id)).version == idle.version + 1
            clock.advance_to_ms(replica, deadline + 3)
            await replica.host.deadline_runner.run_once()
            timed_out = await _timed_out(client, game_id, expected=[1, 2])
            assert sorted(timed_out) == [1, 2]  # the hand-overs made for them counted no timeout
            final = await client.view(game_id)
            assert [(s.timeouts, s.absent) for s in final.seats[1:]] == [(1, False), (1, False)]

    run(scenario(), timeout_s=60)


async def _timed_out(client: Client, game_id: str, expected: list[int], timeout_s: float = 10.0) -> list[int]:
    """The seats that timed out, once ``expected`` have (the runner may be applying them)."""
    deadline = time.monotonic() + timeout_s
    while True:
        history = await client.history(game_id)
        seats = [e.seat_changed.seat for h in history for e in h.events
                 if e.HasField("seat_changed") and e.seat_changed.change == Change.CHANGE_TIMED_OUT]
        if sorted(set(seats)) == expected or time.monotonic() > deadline:
            return seats
        await asyncio.sleep(0.05)
