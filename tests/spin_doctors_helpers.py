"""Scenes of The Spin Doctors for the rulebook's examples: a set-up table to lay them out on."""

from __future__ import annotations

from hustings.engine import Rng
from hustings.engine.spin_doctors import rules
from hustings.engine.spin_doctors.model import SpinDoctorsOptions, State


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
