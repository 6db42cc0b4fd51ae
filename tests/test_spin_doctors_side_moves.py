"""The Spin Doctors' side moves are bounded: between two decisions of the game (any seat's move
that is not a side move) each seat makes at most SIDE_MOVE_LIMIT hand-overs, offers, withdrawals
and declines together. Two seats handing a point back and forth, or a seat offering and
withdrawing, stop there, so a game ends in a bounded number of steps and its log stays bounded.

Seats follow the examples' clockwise order: ANTEK 0, ANIA 1, BARTEK 2.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from spin_doctors_helpers import side_moves, tie_to_order
from hustings.engine import IllegalMoveError, Rng
from hustings.engine.spin_doctors import GAME
from hustings.engine.spin_doctors.model import (
    SIDE_MOVE_LIMIT,
    DeclineOffer,
    HandBudget,
    OfferDeal,
    OrderTie,
    SpinDoctorsOptions,
    State,
    Term,
    WithdrawOffer,
)

ANTEK, ANIA, BARTEK = 0, 1, 2
OLD_SNAPSHOT = Path(__file__).parent / "data" / "spin_doctors_state_before_side_move_limit.json"
"""A mid-game state stored before side moves were counted (round 3, ANTEK to order tied Staffers
after handing over a point, ANIA's offer pending), written by the code of that time."""


def _apply(state: State, seat: int, move: Any) -> State:
    return GAME.apply(state, seat, move, Rng(b"side"))[0]



def _refused(state: State, seat: int, move: Any) -> IllegalMoveError:
    before = GAME.dump_state(state)
    with pytest.raises(IllegalMoveError) as error:
        GAME.apply(state, seat, move, Rng(b"side"))
    assert GAME.dump_state(state) == before
    return error.value



def test_two_seats_handing_a_point_back_and_forth_stop_after_theirside_moves() -> None:
    state = tie_to_order()
    for _ in range(SIDE_MOVE_LIMIT):
        state = _apply(state, ANIA, HandBudget(BARTEK, 1))
        state = _apply(state, BARTEK, HandBudget(ANIA, 1))
    assert state.side_moves == [0, SIDE_MOVE_LIMIT, SIDE_MOVE_LIMIT]
    assert [p.budget for p in state.seats] == [15, 15, 15]
    # Nothing left to list to them, and what was listed before is now refused with its reason.
    assert GAME.legal_moves(state, ANIA) == [] and GAME.legal_moves(state, BARTEK) == []
    error = _refused(state, ANIA, HandBudget(BARTEK, 1))
    assert error.reason == "SIDE_MOVES_EXHAUSTED" and f"your {SIDE_MOVE_LIMIT} side moves" in error.message
    assert _refused(state, BARTEK, HandBudget(ANTEK, 5)).reason == "SIDE_MOVES_EXHAUSTED"
    assert side_moves(state, ANTEK)  # ANTEK's own are untouched
    # ANTEK's decision gives every seat its side moves again.
    state = _apply(state, ANTEK, OrderTie(ANIA))
    assert state.side_moves == [] and all(s.side_moves_left(seat) == SIDE_MOVE_LIMIT for s in [state] for seat in range(3))
    assert HandBudget(BARTEK, 1) in GAME.legal_moves(state, ANIA)


def test_offering_withdrawing_and_declining_count_asside_moves() -> None:
    """BARTEK offers and withdraws, ANTEK (owing the decision) hands over once and declines, ANIA
    offers again: each stops at the limit; the decision settles the offers and resets the count."""
    state = tie_to_order()
    tie_bartek, tie_ania = Term("ORDER_TIE", seat=BARTEK), Term("ORDER_TIE", seat=ANIA)
    for move in (OfferDeal(ANTEK, 2, tie_bartek), WithdrawOffer(0), OfferDeal(ANTEK, 3, tie_bartek), OfferDeal(ANTEK, 1, tie_bartek)):
        state = _apply(state, BARTEK, move)
    assert state.side_moves == [0, 0, SIDE_MOVE_LIMIT] and len(state.offers) == 2
    assert side_moves(state, BARTEK) == []  # not even a withdrawal of his own pending offers
    assert _refused(state, BARTEK, WithdrawOffer(0)).reason == "SIDE_MOVES_EXHAUSTED"
    assert _refused(state, BARTEK, OfferDeal(ANTEK, 1, tie_bartek)).reason == "SIDE_MOVES_EXHAUSTED"
    # ANTEK owes the decision: one hand-over, then declines; ANIA offers in between.
    state = _apply(state, ANTEK, HandBudget(ANIA, 1))
    state = _apply(state, ANTEK, DeclineOffer(1))
    state = _apply(state, ANIA, OfferDeal(ANTEK, 4, tie_ania))
    state = _apply(state, ANTEK, DeclineOffer(1))
    state = _apply(state, ANIA, OfferDeal(ANTEK, 5, tie_ania))
    state = _apply(state, ANTEK, DeclineOffer(1))
    state = _apply(state, ANIA, OfferDeal(ANTEK, 5, tie_ania))
    assert state.side_moves == [SIDE_MOVE_LIMIT, 3, SIDE_MOVE_LIMIT]
    listed = GAME.legal_moves(state, ANTEK)
    assert listed == [OrderTie(ANIA), OrderTie(BARTEK)]  # his decision only
    assert _refused(state, ANTEK, DeclineOffer(1)).reason == "SIDE_MOVES_EXHAUSTED"
    assert WithdrawOffer(1) in side_moves(state, ANIA)  # her last side move
    before = [p.budget for p in state.seats]
    state = _apply(state, ANTEK, OrderTie(BARTEK))  # BARTEK's 3 points kept, ANIA's 5 returned
    assert [p.budget for p in state.seats] == [before[0] + 3, before[1] + 5, before[2]]
    assert state.offers == [] and state.side_moves == []


STEP_LIMIT = 10_000  # a pure spammer takes about 4,000 steps with 5 players


@pytest.mark.parametrize("players", [3, 5])
def test_a_game_spammed_with_side_moves_still_ends_in_a_bounded_number_of_steps(players: int) -> None:
    """Random play that makes a side move (hand-overs back and forth, offers made, withdrawn and
    declined) of some seat, owing a decision or not, whenever any is listed, and a decision only
    when none is: between two decisions each seat makes at most SIDE_MOVE_LIMIT, the state counts
    exactly those, and the game ends."""
    rng, chooser = Rng(f"spam:{players}".encode()), random.Random(players)
    state = GAME.setup(SpinDoctorsOptions(players), rng)
    decisions = steps = longest = 0
    made = [0] * players
    for steps in range(1, STEP_LIMIT + 1):
        side = [(seat, move) for seat in range(players) for move in side_moves(state, seat)]
        if side:
            seat, move = chooser.choice(side)
        else:
            seat = chooser.choice(sorted(GAME.to_act(state)))
            move = chooser.choice([m for m in GAME.legal_moves(state, seat) if not GAME.is_side_move(m)])
        state = _apply(state, seat, move)
        if GAME.is_side_move(move):
            made[seat] += 1
            assert made[seat] <= SIDE_MOVE_LIMIT
        else:
            decisions += 1
            longest = max(longest, sum(made))
            made = [0] * players
        assert [state.side_moves_left(s) for s in range(players)] == [SIDE_MOVE_LIMIT - n for n in made]
        if GAME.is_over(state):
            break
    assert GAME.is_over(state), f"not over after {steps} steps"
    assert steps <= decisions * (1 + players * SIDE_MOVE_LIMIT)
    assert longest >= 2 * SIDE_MOVE_LIMIT  # the spam did reach the limit


def test_a_state_stored_before_side_moves_were_counted_still_loads_and_plays() -> None:
    stored = OLD_SNAPSHOT.read_bytes()
    assert b"side_moves" not in stored
    state = GAME.load_state(stored)
    assert GAME.dump_state(state) == stored  # its bytes (and the logged digest) are unchanged
    assert state.side_moves == [] and all(state.side_moves_left(s) == SIDE_MOVE_LIMIT for s in range(3))
    assert GAME.to_act(state) == {ANTEK} and state.seats[ANTEK].gave
    assert not any(isinstance(m, HandBudget) for m in GAME.legal_moves(state, ANTEK))  # his hand-over made
    assert WithdrawOffer(0) in GAME.legal_moves(state, ANIA)
    after = _apply(state, ANIA, WithdrawOffer(0))
    assert after.side_moves == [0, 1, 0] and b'"side_moves":[0,1,0]' in GAME.dump_state(after)
    assert GAME.load_state(GAME.dump_state(after)) == after
    decided = _apply(after, ANTEK, next(m for m in GAME.legal_moves(after, ANTEK) if not GAME.is_side_move(m)))
    assert decided.side_moves == [] and b"side_moves" not in GAME.dump_state(decided)


@pytest.mark.parametrize("stored", ['"side_moves":[1,2]', '"side_moves":[1,"2",0]', '"side_moves":{"0":1}'])
def test_a_stored_count_that_is_not_one_per_seat_is_refused(stored: str) -> None:
    raw = GAME.dump_state(tie_to_order()).decode()
    with pytest.raises(ValueError):
        GAME.load_state(raw.replace('"spots":', stored + ',"spots":', 1).encode())
