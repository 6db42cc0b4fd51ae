"""Scenes of The Spin Doctors for the rulebook's examples: a set-up table to lay them out on."""

from __future__ import annotations

from hustings.engine import Rng
from typing import Any

from hustings.engine.spin_doctors import GAME, rules
from hustings.engine.spin_doctors.model import RESOLUTION, Played, SpinDoctorsOptions, State, Task


def empty_table(players: int = 3, seed: bytes = b"table") -> State:
    """A set-up game with every Staff and Programme chosen and an empty board (no tokens), ready
    for a scene to be laid out on it."""
    state = rules.setup(SpinDoctorsOptions(players), Rng(seed))
    for player in state.seats:
        player.staff = [0, 2, 3, 4, 8, 10, 12]
        player.programme = ["economy_3plus", "health_care_0to2", "foreign_policy_0to2"]
        player.face_up = ["economy_3plus"]
    for spot in state.spots:
        spot.turnout = [-1] * len(spot.turnout)
        spot.red, spot.white, spot.activity = [], [], []
    return state


def tie_to_order() -> State:
    """Seat 0, the Favourite, owes the order of seats 1's and 2's tied Authorities in the Central
    Locality (a decision pending while the others may make side moves)."""
    central = 3
    state = empty_table()
    state.phase, state.round, state.field_now = RESOLUTION, 1, central
    state.board = [Played(1, 2, central, True), Played(2, 2, central, True)]
    state.tasks = [Task("order_tie", 0)]
    return state


def side_moves(state: State, seat: int) -> list[Any]:
    """The side moves ``seat`` is listed."""
    return [m for m in GAME.legal_moves(state, seat) if GAME.is_side_move(m)]
