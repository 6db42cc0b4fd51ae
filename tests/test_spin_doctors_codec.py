"""The Spin Doctors' fast paths against plain references: views assembled from shared encoded
parts equal the message built field by field, and stored states round-trip (the Scandal variant
included)."""

from __future__ import annotations

import json
import random
from dataclasses import asdict
from typing import Any

import pytest
from google.protobuf import json_format

from hustings.engine import MalformedMoveError, Rng
from hustings.engine.spin_doctors import GAME
from hustings.engine.spin_doctors.model import (
    DeclineOffer,
    OfferDeal,
    SpinDoctorsOptions,
    State,
    Term,
    WithdrawOffer,
)
from hustings.engine.spin_doctors.views import TableView
from hustings.v1 import game_pb2, spin_doctors_pb2

RENAMED = {
    "players": {"shown": "shown_staffers"},
    "localities": {"turnout": "turnout_tokens", "red": "red_tokens", "white": "white_tokens", "activity": "activity_tokens"},
    "pending": {"other": "other_seat"},
    "queued": {"other": "other_seat"},
}


def _reference(view: TableView) -> bytes:
    """The SpinDoctorsView as protobuf's JSON mapping builds it from the view's own fields."""
    data: dict[str, Any] = asdict(view)
    for part, names in RENAMED.items():
        entries = data[part] if isinstance(data[part], tuple) else [data[part]] if data[part] else []
        for entry in entries:
            for old, new in names.items():
                entry[new] = entry.pop(old)
    data["board_staffers"] = data.pop("board")
    data["named_winner"] = data.pop("winner")
    data["phase"] = f"SPIN_DOCTORS_PHASE_{data['phase']}"
    for name in ("coordinated", "protected"):
        data[name] = [{"seat": seat, "field": field} for seat, field in data[name]]
    for offer in data["offers"]:
        offer["term"]["kind"] = f"SPIN_DOCTORS_DEAL_TERM_KIND_{offer['term']['kind']}"
    if data["pending"] is None:
        del data["pending"]
    message = json_format.ParseDict(data, spin_doctors_pb2.SpinDoctorsView())
    return message.SerializeToString(deterministic=True)


STEP_LIMIT = 5000


def _states(players: int, seed: int) -> list[State]:
    """Every state of a random game in which players owing nothing often make conditional offers."""
    rng = Rng(f"codec:{players}:{seed}".encode())
    chooser = random.Random(seed)
    state = GAME.setup(SpinDoctorsOptions(players, scandals_set_aside=seed % 2 == 1), rng)
    states = [state]
    for _ in range(STEP_LIMIT):
        if GAME.is_over(state):
            break
        acting = sorted(GAME.to_act(state))
        offers = [(s, m) for s in range(players) if s not in acting for m in GAME.legal_moves(state, s) if isinstance(m, OfferDeal)]
        if offers and chooser.random() < 0.5:
            seat, move = chooser.choice(offers)
        else:
            seat = chooser.choice(acting)
            move = chooser.choice(GAME.legal_moves(state, seat))
        state, _ = GAME.apply(state, seat, move, rng)
        states.append(state)
    assert GAME.is_over(state) and any(s.offers for s in states)
    return states


@pytest.mark.parametrize(("players", "seed"), [(3, 0), (4, 1), (5, 2)])
def test_views_equal_the_field_by_field_message(players: int, seed: int) -> None:
    for state in _states(players, seed):
        for viewer in [*range(players), None]:
            out = game_pb2.GameView()
            view = GAME.view(state, viewer)
            GAME.view_to_proto(view, out)
            assert out.spin_doctors.SerializeToString(deterministic=True) == _reference(view)


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (5, 0)])
def test_stored_states_round_trip(players: int, seed: int) -> None:
    for state in _states(players, seed):
        stored = GAME.dump_state(state)
        loaded = GAME.load_state(stored)
        assert loaded == state and GAME.dump_state(loaded) == stored
        canonical = json.dumps(json.loads(stored), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert stored == canonical.encode("utf-8")


def test_the_scandal_variant_survives_storage() -> None:
    state = GAME.setup(SpinDoctorsOptions(4, scandals_set_aside=True), Rng(b"variant"))
    assert GAME.load_state(GAME.dump_state(state)).options == SpinDoctorsOptions(4, scandals_set_aside=True)
    base = GAME.setup(SpinDoctorsOptions(4), Rng(b"variant"))
    assert b"scandals_set_aside" not in GAME.dump_state(base)  # base games keep their stored bytes


@pytest.mark.parametrize("change", ["extra", "missing"])
def test_stored_entries_with_other_fields_are_refused(change: str) -> None:
    data = json.loads(GAME.dump_state(GAME.setup(SpinDoctorsOptions(3), Rng(b"s"))))
    if change == "extra":
        data["seats"][0]["secret"] = 1
    else:
        del data["spots"][0]["white"]
    with pytest.raises(ValueError):
        GAME.load_state(json.dumps(data).encode())


@pytest.mark.parametrize(
    "move",
    [OfferDeal(1, 5, Term("ACTION", seat=0, action="undermine_credibility", staffer=3)), OfferDeal(0, 1, Term("SPARE_VOTES")),
     WithdrawOffer(1), DeclineOffer(0)],
)
def test_deal_moves_round_trip(move: object) -> None:
    message = game_pb2.Move()
    GAME.move_to_proto(move, message)
    assert GAME.move_from_proto(message) == move
    assert GAME.move_from_proto(json_format.Parse(json_format.MessageToJson(message), game_pb2.Move())) == move


@pytest.mark.parametrize(
    ("term", "reason"),
    [({"kind": "SPIN_DOCTORS_DEAL_TERM_KIND_UNSPECIFIED"}, "BAD_TERM"), ({"kind": 99}, "BAD_TERM"),
     ({"kind": "SPIN_DOCTORS_DEAL_TERM_KIND_REDUCE_VOTES", "seat": 1000}, "BAD_NUMBER")],
)
def test_malformed_offer_terms_are_refused(term: dict[str, Any], reason: str) -> None:
    message = json_format.ParseDict({"spinDoctors": {"offerDeal": {"seat": 0, "amount": 1, "term": term}}}, game_pb2.Move())
    with pytest.raises(MalformedMoveError) as error:
        GAME.move_from_proto(message)
    assert error.value.reason == reason
