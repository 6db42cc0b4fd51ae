"""Scenes of The Spin Doctors for the rulebook's examples: a set-up table to lay them out on."""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

from hustings.engine import Rng
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


def as_first_written(state: State) -> bytes:
    """The stored state as first written: the whole tree through ``json.dumps`` (the offers and
    the side moves' count only once there is one)."""
    data: dict[str, Any] = {f.name: getattr(state, f.name) for f in fields(state)}
    data["options"] = {"players": state.options.players}
    if state.options.scandals_set_aside:
        data["options"]["scandals_set_aside"] = True
    for name in ("seats", "spots", "board", "tasks"):
        data[name] = [vars(item) for item in data[name]]
    if state.offers:
        data["offers"] = [{**vars(offer), "term": vars(offer.term)} for offer in state.offers]
    else:
        del data["offers"]
    if not state.side_moves:
        del data["side_moves"]
    data["format"] = 1
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
