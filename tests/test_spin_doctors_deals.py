"""Binding immediate deals ("Communication"): any player may hand Budget points to another at any
time, as a move of its own, whether or not it owes a decision; whose turn it is does not change.

Seats follow the examples' clockwise order: ANTEK 0, ANIA 1, BARTEK 2.
"""

from __future__ import annotations

import random

import pytest

from hustings.engine import Rng
from hustings.engine.errors import GameOverError, IllegalMoveError, NotYourTurnError
from hustings.engine.spin_doctors import GAME, rules
from hustings.engine.spin_doctors.model import (
    FINISHED,
    RESOLUTION,
    ChooseProgramme,
    Decline,
    HandBudget,
    Played,
    SpinDoctorsOptions,
    State,
    Task,
)

ANTEK, ANIA, BARTEK = 0, 1, 2
CENTRAL = 3


def _resolving() -> State:
    """ANTEK's Chief of Staff is to be resolved on the Central Region; ANIA and BARTEK owe nothing."""
    state = rules.setup(SpinDoctorsOptions(3), Rng(b"deals"))
    for player in state.seats:
        player.staff = [0, 1, 2, 3, 4, 5, 12]
        player.programme = ["economy_3plus", "health_care_0to2", "foreign_policy_0to2"]
        player.face_up = ["economy_3plus"]
    state.phase, state.round, state.field_now = RESOLUTION, 1, CENTRAL
    state.board = [Played(ANTEK, 1, CENTRAL, True), Played(ANIA, 2, CENTRAL, True)]
    state.tasks = [Task("resolve", ANTEK, index=0)]
    return state


def _gifts(state: State, seat: int) -> list[HandBudget]:
    return [m for m in rules.legal_moves(state, seat) if isinstance(m, HandBudget)]


def test_gift_amounts_are_1_to_5_then_multiples_of_5() -> None:
    assert rules.gift_amounts(0) == []
    assert rules.gift_amounts(3) == [1, 2, 3]
    assert rules.gift_amounts(9) == [1, 2, 3, 4, 5]
    assert rules.gift_amounts(15) == [1, 2, 3, 4, 5, 10, 15]
    assert rules.gift_amounts(23) == [1, 2, 3, 4, 5, 10, 15, 20]


def test_a_seat_owing_nothing_lists_its_hand_overs_only() -> None:
    state = _resolving()
    assert rules.to_act(state) == {ANTEK}
    amounts = [1, 2, 3, 4, 5, 10, 15]
    assert rules.legal_moves(state, ANIA) == [HandBudget(ANTEK, n) for n in amounts] + [HandBudget(BARTEK, n) for n in amounts]
    state.seats[BARTEK].budget = 0
    assert rules.legal_moves(state, BARTEK) == []


def test_a_seat_owing_nothing_hands_budget_and_the_turn_stays() -> None:
    state = _resolving()
    tasks = [(t.kind, t.seat, t.index) for t in state.tasks]
    after, events = rules.apply(state, BARTEK, HandBudget(ANIA, 10), Rng(b"d"))
    assert [p.budget for p in after.seats] == [15, 25, 5]
    assert [(e.public, e.payload.kind, e.payload.seat, e.payload.other, e.payload.amount) for e in events] == [
        (True, "BUDGET_HANDED", BARTEK, ANIA, 10)
    ]
    assert rules.to_act(after) == {ANTEK} and [(t.kind, t.seat, t.index) for t in after.tasks] == tasks
    assert [p.budget for p in state.seats] == [15, 15, 15]  # the caller's state is untouched
    # Owing nothing, BARTEK may hand over again at once (5 + 2 makes 7).
    after, _ = rules.apply(after, BARTEK, HandBudget(ANIA, 5), Rng(b"d"))
    assert [p.budget for p in after.seats] == [15, 30, 0]
    assert rules.legal_moves(after, BARTEK) == []


def test_the_seat_owing_a_decision_hands_over_once_before_it() -> None:
    state = _resolving()
    listed = rules.legal_moves(state, ANTEK)
    own = [m for m in listed if not isinstance(m, HandBudget)]
    assert Decline() in own and listed[len(own):] == _gifts(state, ANTEK) and len(_gifts(state, ANTEK)) == 14
    state, _ = rules.apply(state, ANTEK, HandBudget(BARTEK, 2), Rng(b"d"))
    assert rules.to_act(state) == {ANTEK} and rules.legal_moves(state, ANTEK) == own
    with pytest.raises(IllegalMoveError) as error:
        rules.apply(state, ANTEK, HandBudget(BARTEK, 1), Rng(b"d"))
    assert error.value.reason == "BAD_HAND_OVER"
    assert _gifts(state, ANIA)  # the others still may
    state, _ = rules.apply(state, ANTEK, Decline(), Rng(b"d"))
    assert rules.to_act(state) == {ANIA} and _gifts(state, ANTEK)  # owing nothing again


@pytest.mark.parametrize(
    "move",
    [HandBudget(BARTEK, 7), HandBudget(BARTEK, 16), HandBudget(BARTEK, 0), HandBudget(BARTEK, -1), HandBudget(ANIA, 1),
     HandBudget(3, 1), HandBudget(True, 1), HandBudget(BARTEK, "1")],  # type: ignore[arg-type]
)
def test_bad_hand_overs_are_refused(move: HandBudget) -> None:
    state = _resolving()
    before = GAME.dump_state(state)
    with pytest.raises(IllegalMoveError) as error:
        rules.apply(state, ANIA, move, Rng(b"d"))
    assert error.value.reason == "BAD_HAND_OVER"
    assert GAME.dump_state(state) == before


def test_a_seat_owing_nothing_still_cannot_decide_for_another() -> None:
    state = _resolving()
    with pytest.raises(NotYourTurnError):
        rules.apply(state, ANIA, Decline(), Rng(b"d"))
    with pytest.raises(NotYourTurnError):
        rules.apply(state, 3, HandBudget(ANIA, 1), Rng(b"d"))


def test_hand_overs_while_others_choose_their_staff() -> None:
    state = rules.setup(SpinDoctorsOptions(3), Rng(b"choosing"))
    rng = Rng(b"c")
    for move in (rules.STAFFS[0], ChooseProgramme("economy_3plus"), ChooseProgramme("economy_0to2"), ChooseProgramme("health_care_3plus")):
        state, _ = rules.apply(state, ANTEK, move, rng)
    assert rules.to_act(state) == {ANIA, BARTEK}
    assert rules.legal_moves(state, ANTEK) == _gifts(state, ANTEK) != []
    state, _ = rules.apply(state, ANTEK, HandBudget(ANIA, 3), rng)
    assert [p.budget for p in state.seats] == [12, 18, 15] and rules.to_act(state) == {ANIA, BARTEK}


def test_no_hand_overs_once_the_game_is_over() -> None:
    state = _resolving()
    state.phase, state.tasks = FINISHED, []
    assert all(rules.legal_moves(state, seat) == [] for seat in range(3))
    with pytest.raises(GameOverError):
        rules.apply(state, ANIA, HandBudget(ANTEK, 1), Rng(b"d"))


def test_random_play_with_hand_overs_stays_bounded() -> None:
    """Picking at random among all listed moves of an acting seat, hand-overs included, a game
    takes at most one hand-over per decision, so it ends well within the step bound."""
    for players in (3, 5):
        rng = Rng(f"bounded:{players}".encode())
        chooser = random.Random(players)
        state = GAME.setup(SpinDoctorsOptions(players), rng)
        decisions = hand_overs = 0
        while not GAME.is_over(state):
            seat = chooser.choice(sorted(GAME.to_act(state)))
            move = chooser.choice(GAME.legal_moves(state, seat))
            state, _ = GAME.apply(state, seat, move, rng)
            if isinstance(move, HandBudget):
                hand_overs += 1
            else:
                decisions += 1
        assert 0 < hand_overs <= decisions
        assert all(p.budget >= 0 for p in state.seats)
