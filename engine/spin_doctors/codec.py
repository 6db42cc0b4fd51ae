"""Conversion between Spin Doctors engine values and the public ``hustings.v1`` messages.

The only module of the game that imports protobuf code.
"""

from __future__ import annotations

from typing import Any, Callable

from hustings.engine.errors import MalformedMoveError
from hustings.engine.spin_doctors import model as m
from hustings.engine.spin_doctors.rules import validate_options
from hustings.engine.spin_doctors.views import LocalityView, PlayerView, StafferView, TableView
from hustings.v1 import game_pb2, spin_doctors_pb2 as pb

_INTS = (-1, 100)


def options_from_proto(message: game_pb2.GameOptions) -> m.SpinDoctorsOptions:
    """Engine options from GameOptions. Raises InvalidOptionsError."""
    own = message.spin_doctors
    return validate_options(m.SpinDoctorsOptions(players=message.players, scandals_set_aside=own.scandals_set_aside))


def options_to_proto(options: m.SpinDoctorsOptions, out: game_pb2.GameOptions) -> None:
    """Fill GameOptions from engine options."""
    out.players = options.players
    out.spin_doctors.SetInParent()
    out.spin_doctors.scandals_set_aside = options.scandals_set_aside


# Each move type: (oneof field, engine -> message fields, message -> engine).
_MOVES: dict[type, tuple[str, Callable[[Any], dict[str, Any]], Callable[[Any], Any]]] = {
    m.ChooseStaffer: ("choose_staffer", lambda v: {"staffer": v.staffer}, lambda p: m.ChooseStaffer(p.staffer)),
    m.ChooseReadyMadeStaff: ("choose_ready_made_staff", lambda v: {"staff": v.staff}, lambda p: m.ChooseReadyMadeStaff(p.staff)),
    m.ChooseProgramme: ("choose_programme", lambda v: {"card": v.card}, lambda p: m.ChooseProgramme(p.card)),
    m.RevealProgramme: ("reveal_programme", lambda v: {"card": v.card}, lambda p: m.RevealProgramme(p.card)),
    m.PlayStaffer: ("play_staffer", lambda v: {"staffer": v.staffer, "field": v.field}, lambda p: m.PlayStaffer(p.staffer, p.field)),
    m.OrderTie: ("order_tie", lambda v: {"seat": v.seat}, lambda p: m.OrderTie(p.seat)),
    m.Act: (
        "act",
        lambda v: {"action": v.action, "locality": v.locality, "second": v.second, "seat": v.seat, "staffer": v.staffer,
                   "voter_group": v.group, "step": v.step, "card": v.card},
        lambda p: m.Act(p.action, p.locality, p.second, p.seat, p.staffer, p.voter_group, p.step, p.card),
    ),
    m.Decline: ("decline", lambda v: {}, lambda p: m.Decline()),
    m.PlaceSupport: ("place_support", lambda v: {"path": list(v.path)}, lambda p: m.PlaceSupport(tuple(p.path))),
    m.PlaceOnTopic: ("place_on_topic", lambda v: {"red": v.red, "push_off": v.push_off}, lambda p: m.PlaceOnTopic(p.red, p.push_off)),
    m.Broadcast: ("broadcast", lambda v: {"card": v.card}, lambda p: m.Broadcast(p.card)),
    m.ArrangeNews: ("arrange_news", lambda v: {"cards": list(v.cards)}, lambda p: m.ArrangeNews(tuple(p.cards))),
    m.Consent: ("consent", lambda v: {"agree": v.agree}, lambda p: m.Consent(p.agree)),
    m.AnswerBlackmail: ("answer_blackmail", lambda v: {"pay": v.pay}, lambda p: m.AnswerBlackmail(p.pay)),
    m.Speech: ("speech", lambda v: {"seat": v.seat, "voter_group": v.group, "amount": v.amount}, lambda p: m.Speech(p.seat, p.voter_group, p.amount)),
    m.SwapStaffer: ("swap_staffer", lambda v: {"discard": v.discard, "take": v.take}, lambda p: m.SwapStaffer(p.discard, p.take)),
    m.ExchangeProgramme: ("exchange_programme", lambda v: {"take": v.take}, lambda p: m.ExchangeProgramme(p.take)),
    m.NameWinner: ("name_winner", lambda v: {"seat": v.seat}, lambda p: m.NameWinner(p.seat)),
    m.HandBudget: ("hand_budget", lambda v: {"seat": v.seat, "amount": v.amount}, lambda p: m.HandBudget(p.seat, p.amount)),
}
_BY_FIELD = {name: parse for name, _, parse in _MOVES.values()}


def move_from_proto(message: game_pb2.Move) -> Any:
    """An engine move from a Move. Raises MalformedMoveError (EMPTY_MOVE, BAD_NUMBER)."""
    if message.WhichOneof("game") != "spin_doctors":
        raise MalformedMoveError("EMPTY_MOVE", "the move carries no Spin Doctors decision")
    own = message.spin_doctors
    kind = own.WhichOneof("kind")
    if kind is None:
        raise MalformedMoveError("EMPTY_MOVE", "the move carries no Spin Doctors decision")
    part = getattr(own, kind)
    for field, value in part.ListFields():
        values = value if field.is_repeated else [value]
        if any(isinstance(v, int) and not isinstance(v, bool) and not _INTS[0] <= v <= _INTS[1] for v in values):
            raise MalformedMoveError("BAD_NUMBER", f"{field.name} is out of range")
    return _BY_FIELD[kind](part)


def move_to_proto(move: Any, out: game_pb2.Move) -> None:
    """Fill a Move."""
    name, fields, _ = _MOVES[type(move)]
    part = getattr(out.spin_doctors, name)
    part.SetInParent()
    for key, value in fields(move).items():
        if isinstance(value, list):
            getattr(part, key)[:] = value
        else:
            setattr(part, key, value)


_ENCODED: dict[int, tuple[object, bytes]] = {}
_ENCODED_MAX = 1 << 14


def _encoded(part: Any, encode: Callable[[Any], pb.SpinDoctorsView]) -> bytes:
    """The wire form of a SpinDoctorsView holding only ``part``, kept per part object: the view
    shares its parts between seats and steps (see views._interned), so most are encoded once.
    Entries hold their part, so an id is never reused while its entry lives."""
    found = _ENCODED.get(id(part))
    if found is not None and found[0] is part:
        return found[1]
    if len(_ENCODED) >= _ENCODED_MAX:
        _ENCODED.clear()
    data = encode(part).SerializeToString()
    _ENCODED[id(part)] = (part, data)
    return data


def _player(p: PlayerView) -> pb.SpinDoctorsView:
    return pb.SpinDoctorsView(players=[pb.SpinDoctorsPlayer(
        seat=p.seat, colour=p.colour, budget=p.budget, supply=p.supply, pool=p.pool, votes=p.votes, staff=p.staff,
        staff_count=p.staff_count, hand_count=p.hand_count, shown_staffers=p.shown,
        programme_face_up=p.programme_face_up, programme_face_down=p.programme_face_down,
        programme_count=p.programme_count, done_choosing=p.done_choosing,
    )])


def _locality(loc: LocalityView) -> pb.SpinDoctorsView:
    return pb.SpinDoctorsView(localities=[pb.SpinDoctorsLocality(
        locality=loc.locality, turnout_card=loc.turnout_card, turnout_tokens=loc.turnout, topic_card=loc.topic_card,
        red_tokens=loc.red, white_tokens=loc.white, activity_tokens=loc.activity,
    )])


def _staffer(s: StafferView) -> pb.SpinDoctorsView:
    return pb.SpinDoctorsView(board_staffers=[pb.SpinDoctorsBoardStaffer(
        seat=s.seat, staffer=s.staffer, field=s.field, face_up=s.face_up, resolved=s.resolved, blocked=s.blocked
    )])


def view_to_proto(view: TableView, out: game_pb2.GameView) -> None:
    """Fill GameView.spin_doctors from a seat's TableView.

    The message is assembled from encoded parts: repeated fields concatenate on the wire, so
    merging the parts in order gives the same message as adding every entry one by one."""
    head = pb.SpinDoctorsView(
        round=view.round, phase=pb.SpinDoctorsPhase.Value(f"SPIN_DOCTORS_PHASE_{view.phase}"), favourite=view.favourite,
        field_now=view.field_now, turnout_markers=view.turnout_markers, news=view.news, news_face_down=view.news_face_down,
        news_deck_count=view.news_deck_count, news_discard=view.news_discard, topic_deck_count=view.topic_deck_count,
        topic_discard=view.topic_discard, named_winner=view.winner, scandals_aside=view.scandals_aside,
        coordinated=[pb.SpinDoctorsSeatField(seat=seat, field=field) for seat, field in view.coordinated],
        protected=[pb.SpinDoctorsSeatField(seat=seat, field=field) for seat, field in view.protected],
    )
    if view.pending is not None:
        q = view.pending
        head.pending.CopyFrom(pb.SpinDoctorsPending(
            kind=q.kind, seat=q.seat, locality=q.locality, staffer=q.staffer, other_seat=q.other, amount=q.amount, cards=q.cards
        ))
    parts = [head.SerializeToString()]
    parts += [_encoded(p, _player) for p in view.players]
    parts += [_encoded(loc, _locality) for loc in view.localities]
    parts += [_encoded(s, _staffer) for s in view.board]
    own = out.spin_doctors
    own.SetInParent()
    own.MergeFromString(b"".join(parts))


def event_to_proto(payload: Any, out: game_pb2.Event) -> None:
    """Fill Event.spin_doctors from an event payload (already filtered for the viewer)."""
    if not isinstance(payload, m.Happening):
        raise TypeError(f"not a Spin Doctors event: {payload!r}")
    own = out.spin_doctors
    own.SetInParent()
    own.kind = pb.SpinDoctorsEventKind.Value(f"SPIN_DOCTORS_EVENT_KIND_{payload.kind}")
    own.seat, own.staffer, own.field, own.locality = payload.seat, payload.staffer, payload.field, payload.locality
    own.voter_group, own.amount, own.other_seat, own.action = payload.group, payload.amount, payload.other, payload.action
    own.cards[:] = payload.cards
