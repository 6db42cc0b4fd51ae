"""Scenes of The Spin Doctors for the rulebook's examples: a set-up table to lay them out on."""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

from hustings.engine import Rng
from hustings.engine.spin_doctors import GAME, codec, rules
from hustings.engine.spin_doctors.model import RESOLUTION, Played, SpinDoctorsOptions, State, Task
from hustings.engine.spin_doctors.views import TableView
from hustings.v1 import spin_doctors_pb2 as pb


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


def plain_view_message(view: TableView) -> pb.SpinDoctorsView:
    """The view's message with every entry added one by one and nothing kept: the plain writer
    that the game's own (which keeps encoded parts) must equal to the byte."""
    out = pb.SpinDoctorsView(
        round=view.round, phase=pb.SpinDoctorsPhase.Value(f"SPIN_DOCTORS_PHASE_{view.phase}"),
        favourite=view.favourite, field_now=view.field_now, turnout_markers=view.turnout_markers, news=view.news,
        news_face_down=view.news_face_down, news_deck_count=view.news_deck_count, news_discard=view.news_discard,
        topic_deck_count=view.topic_deck_count, topic_discard=view.topic_discard, named_winner=view.winner,
        scandals_aside=view.scandals_aside, news_seen_by=view.news_seen_by,
    )
    for p in view.players:
        out.players.add(
            seat=p.seat, colour=p.colour, budget=p.budget, supply=p.supply, pool=p.pool, votes=p.votes, staff=p.staff,
            staff_count=p.staff_count, hand_count=p.hand_count, shown_staffers=p.shown,
            programme_face_up=p.programme_face_up, programme_face_down=p.programme_face_down,
            programme_count=p.programme_count, done_choosing=p.done_choosing, side_moves_left=p.side_moves_left,
            handed_over=p.handed_over, poll_changes_made=p.poll_changes_made,
        )
    for loc in view.localities:
        out.localities.add(
            locality=loc.locality, turnout_card=loc.turnout_card, turnout_tokens=loc.turnout, topic_card=loc.topic_card,
            red_tokens=loc.red, white_tokens=loc.white, activity_tokens=loc.activity,
        )
    for s in view.board:
        out.board_staffers.add(seat=s.seat, staffer=s.staffer, field=s.field, face_up=s.face_up, resolved=s.resolved, blocked=s.blocked)
    steps = [q for q in (view.pending,) if q is not None] + list(view.queued)
    for index, q in enumerate(steps):
        (out.pending if index == 0 else out.queued.add()).CopyFrom(pb.SpinDoctorsPending(
            kind=q.kind, seat=q.seat, locality=q.locality, staffer=q.staffer, other_seat=q.other, amount=q.amount,
            cards=q.cards, board_index=q.board_index,
        ))
    for seat, field in view.coordinated:
        out.coordinated.add(seat=seat, field=field)
    for seat, field in view.protected:
        out.protected.add(seat=seat, field=field)
    for o in view.offers:
        out.offers.add(offerer=o.offerer, seat=o.seat, amount=o.amount, term=codec.term_to_proto(o.term))
    return out
