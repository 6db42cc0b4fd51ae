"""Conversion between Spin Doctors engine values and the public ``hustings.v1`` messages, and
the game's catalogue built from its content.

The only module of the game that imports protobuf code.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from hustings.engine.errors import MalformedMoveError, refuse_other_games, short_list
from hustings.engine.spin_doctors import model as m
from hustings.engine.spin_doctors.content import CONTENT, CONTENT_DATA
from hustings.engine.spin_doctors.flow import PLAYS
from hustings.engine.spin_doctors.rules import hand_budget, validate_options
from hustings.engine.spin_doctors.views import LocalityView, PendingView, PlayerView, StafferView, TableView
from hustings.v1 import catalogue_pb2, game_pb2, game_service_pb2, spin_doctors_catalogue_pb2 as cpb, spin_doctors_pb2 as pb

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


def term_to_proto(term: m.Term) -> pb.SpinDoctorsDealTerm:
    """A deal's condition as a message."""
    return pb.SpinDoctorsDealTerm(
        kind=pb.SpinDoctorsDealTermKind.Value(f"SPIN_DOCTORS_DEAL_TERM_KIND_{term.kind}"), seat=term.seat, action=term.action,
        staffer=term.staffer,
    )


_TERM_KINDS = {pb.SpinDoctorsDealTermKind.Value(f"SPIN_DOCTORS_DEAL_TERM_KIND_{k}"): k for k in m.DEAL_TERMS}


def term_from_proto(message: pb.SpinDoctorsDealTerm) -> m.Term:
    """A deal's condition from a message. Raises MalformedMoveError (BAD_TERM, BAD_NUMBER)."""
    if message.kind not in _TERM_KINDS:
        raise MalformedMoveError("BAD_TERM", "an offer's term names one of the SpinDoctorsDealTermKind values")
    if not all(_INTS[0] <= v <= _INTS[1] for v in (message.seat, message.staffer)):
        raise MalformedMoveError("BAD_NUMBER", "term seat or staffer is out of range")
    return m.Term(_TERM_KINDS[message.kind], message.seat, message.action, message.staffer)


# Each move type: (oneof field, engine -> message fields, message -> engine).
_MOVES: dict[type, tuple[str, Callable[[Any], dict[str, Any]], Callable[[Any], Any]]] = {
    m.ChooseStaff: ("choose_staff", lambda v: {"staffers": list(v.staffers)}, lambda p: m.ChooseStaff(tuple(sorted(p.staffers)))),
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
    m.OfferDeal: (
        "offer_deal",
        lambda v: {"seat": v.seat, "amount": v.amount, "term": term_to_proto(v.term)},
        lambda p: m.OfferDeal(p.seat, p.amount, term_from_proto(p.term)),
    ),
    m.WithdrawOffer: ("withdraw_offer", lambda v: {"offer": v.offer}, lambda p: m.WithdrawOffer(p.offer)),
    m.DeclineOffer: ("decline_offer", lambda v: {"offer": v.offer}, lambda p: m.DeclineOffer(p.offer)),
}
_BY_FIELD = {name: parse for name, _, parse in _MOVES.values()}
_PLAYS = PLAYS
"""Every well-formed planning move, by (Staffer, field)."""


def move_from_proto(message: game_pb2.Move) -> Any:
    """An engine move from a Move. Raises MalformedMoveError (EMPTY_MOVE, WRONG_GAME_KIND, BAD_NUMBER)."""
    refuse_other_games(message, "spin_doctors")
    own = message.spin_doctors
    kind = own.WhichOneof("kind")
    if kind is None:
        raise MalformedMoveError("EMPTY_MOVE", "the move carries no Spin Doctors decision")
    # The two commonest moves (six in ten of a game's) come from tables of well-formed ones,
    # already made; any other value goes the long way, and is checked there.
    if kind == "play_staffer":
        play = own.play_staffer
        made = _PLAYS.get((play.staffer, play.field))
        if made is not None:
            return made
    elif kind == "hand_budget":
        gift = own.hand_budget
        if _INTS[0] <= gift.seat <= _INTS[1] and _INTS[0] <= gift.amount <= _INTS[1]:
            return hand_budget(gift.seat, gift.amount)
    part = getattr(own, kind)
    for field, value in part.ListFields():
        values = short_list(value, field.name) if field.is_repeated else [value]
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
        elif isinstance(value, pb.SpinDoctorsDealTerm):
            getattr(part, key).CopyFrom(value)
        else:
            setattr(part, key, value)


_PHASES = {name.removeprefix("SPIN_DOCTORS_PHASE_"): number for name, number in pb.SpinDoctorsPhase.items()}
"""Each phase's enum number by its engine name (every view writes one)."""
_ENCODED: dict[int, tuple[object, bytes]] = {}
_ENCODED_MAX = 1 << 14


def _encoded(part: Any, encode: Callable[[Any], bytes], kept: dict[int, tuple[object, bytes]] = _ENCODED) -> bytes:
    """The wire form of a SpinDoctorsView holding only ``part``, kept per part object: the view
    shares its parts between seats and steps (see views._interned), so most are encoded once.
    Entries hold their part, so an id is never reused while its entry lives."""
    found = kept.get(id(part))
    if found is not None and found[0] is part:
        return found[1]
    if len(kept) >= _ENCODED_MAX:
        kept.clear()
    data = encode(part)
    kept[id(part)] = (part, data)
    return data


def _player(p: PlayerView) -> bytes:
    return pb.SpinDoctorsView(players=[pb.SpinDoctorsPlayer(
        seat=p.seat, colour=p.colour, budget=p.budget, supply=p.supply, pool=p.pool, votes=p.votes, staff=p.staff,
        staff_count=p.staff_count, hand_count=p.hand_count, shown_staffers=p.shown,
        programme_face_up=p.programme_face_up, programme_face_down=p.programme_face_down,
        programme_count=p.programme_count, done_choosing=p.done_choosing, side_moves_left=p.side_moves_left,
        handed_over=p.handed_over, poll_changes_made=p.poll_changes_made,
    )]).SerializeToString()


def _locality(loc: LocalityView) -> bytes:
    return pb.SpinDoctorsView(localities=[pb.SpinDoctorsLocality(
        locality=loc.locality, turnout_card=loc.turnout_card, turnout_tokens=loc.turnout, topic_card=loc.topic_card,
        red_tokens=loc.red, white_tokens=loc.white, activity_tokens=loc.activity,
    )]).SerializeToString()


def _localities(localities: tuple[LocalityView, ...]) -> bytes:
    """Every Locality's part, one after the other: the views share the whole tuple (views._localities)."""
    return b"".join([_encoded(loc, _locality) for loc in localities])


def _staffer(s: StafferView) -> bytes:
    return pb.SpinDoctorsView(board_staffers=[pb.SpinDoctorsBoardStaffer(
        seat=s.seat, staffer=s.staffer, field=s.field, face_up=s.face_up, resolved=s.resolved, blocked=s.blocked
    )]).SerializeToString()


def _pending(q: PendingView) -> pb.SpinDoctorsPending:
    return pb.SpinDoctorsPending(
        kind=q.kind, seat=q.seat, locality=q.locality, staffer=q.staffer, other_seat=q.other, amount=q.amount, cards=q.cards,
        board_index=q.board_index,
    )


def _queued(q: PendingView) -> bytes:
    return pb.SpinDoctorsView(queued=[_pending(q)]).SerializeToString()


def view_to_proto(view: TableView, out: game_pb2.GameView) -> None:
    """Fill GameView.spin_doctors from a seat's TableView.

    The message is assembled from encoded parts: repeated fields concatenate on the wire, so
    merging the parts in order gives the same message as adding every entry one by one."""
    parts = [_head(view)]
    parts += [_encoded(o, _offer) for o in view.offers]
    if view.pending is not None:
        parts.append(_encoded(view.pending, _pending_part, _PENDING_PARTS))
    kept = _ENCODED  # the parts' look-ups of _encoded written out: a view has a dozen parts
    for part in view.players:
        found = kept.get(id(part))
        parts.append(found[1] if found is not None and found[0] is part else _encoded(part, _player))
    parts.append(_encoded(view.localities, _localities))
    for part in view.board:
        found = kept.get(id(part))
        parts.append(found[1] if found is not None and found[0] is part else _encoded(part, _staffer))
    parts += [_encoded(q, _queued) for q in view.queued]
    own = out.spin_doctors
    own.SetInParent()
    own.MergeFromString(b"".join(parts))


_HEADS: dict[tuple[Any, ...] | None, bytes] = {}
_HEADS_MAX = 1 << 12


def _head(view: TableView) -> bytes:
    """The wire form of the view's single fields and lists of plain values (all but its parts),
    kept by their values: between seats only the News a seat has seen may differ, and most
    steps change few of them. A view holding lists (made by hand) is written, not kept."""
    key = (
        view.round, view.phase, view.favourite, view.field_now, view.turnout_markers, view.news, view.news_face_down,
        view.news_deck_count, view.news_discard, view.topic_deck_count, view.topic_discard, view.winner,
        view.scandals_aside, view.coordinated, view.protected, view.news_seen_by,
    )
    try:
        found = _HEADS.get(key)
    except TypeError:
        found, key = None, None
    if found is None:
        phase = _PHASES.get(view.phase)
        if phase is None:
            phase = pb.SpinDoctorsPhase.Value(f"SPIN_DOCTORS_PHASE_{view.phase}")  # fails as it always did
        found = pb.SpinDoctorsView(
            round=view.round, phase=phase, favourite=view.favourite,
            field_now=view.field_now, turnout_markers=view.turnout_markers, news=view.news, news_face_down=view.news_face_down,
            news_deck_count=view.news_deck_count, news_discard=view.news_discard, topic_deck_count=view.topic_deck_count,
            topic_discard=view.topic_discard, named_winner=view.winner, scandals_aside=view.scandals_aside,
            coordinated=[pb.SpinDoctorsSeatField(seat=seat, field=field) for seat, field in view.coordinated],
            protected=[pb.SpinDoctorsSeatField(seat=seat, field=field) for seat, field in view.protected],
            news_seen_by=view.news_seen_by,
        ).SerializeToString()
        if key is not None:
            if len(_HEADS) >= _HEADS_MAX:
                _HEADS.clear()
            _HEADS[key] = found
    return found


def _offer(o: m.Offer) -> bytes:
    """An offer's part (offers are immutable, shared between states until withdrawn or settled)."""
    return pb.SpinDoctorsView(offers=[pb.SpinDoctorsOffer(offerer=o.offerer, seat=o.seat, amount=o.amount, term=term_to_proto(o.term))]).SerializeToString()


_PENDING_PARTS: dict[int, tuple[object, bytes]] = {}
"""The pending step's parts, apart from ``_ENCODED``: the same step object is encoded as
``pending`` in one view and as an entry of ``queued`` in another."""


def _pending_part(q: PendingView) -> bytes:
    return pb.SpinDoctorsView(pending=_pending(q)).SerializeToString()


_EVENT_KINDS = {name.removeprefix("SPIN_DOCTORS_EVENT_KIND_"): number for name, number in pb.SpinDoctorsEventKind.items()}
"""Each event kind's enum number by its engine name: every step writes several events."""


def event_to_proto(payload: Any, out: game_pb2.Event) -> None:
    """Fill Event.spin_doctors from an event payload (already filtered for the viewer)."""
    if not isinstance(payload, m.Happening):
        raise TypeError(f"not a Spin Doctors event: {payload!r}")
    own = out.spin_doctors
    kind = _EVENT_KINDS.get(payload.kind)
    if kind is None or own.ByteSize():
        _fill_event(payload, own)  # an unknown kind fails there as always; a filled message is overwritten as before
        return
    # A fresh message (the host fills a new one for every event): only the lists that hold
    # something are written, which leaves the same message as replacing empty ones.
    own.SetInParent()
    own.kind = kind
    own.seat, own.staffer, own.field, own.locality = payload.seat, payload.staffer, payload.field, payload.locality
    own.voter_group, own.amount, own.other_seat, own.action = payload.group, payload.amount, payload.other, payload.action
    own.second, own.step, own.target_staffer = payload.second, payload.step, payload.target_staffer
    if payload.cards:
        own.cards.extend(payload.cards)
    if payload.path:
        own.path.extend(payload.path)
    if payload.pools:
        own.pools.extend(payload.pools)
    for seat, staffer, field in payload.revealed:
        own.revealed.add(seat=seat, staffer=staffer, field=field, face_up=True)
    if payload.term is not None:
        own.term.CopyFrom(term_to_proto(payload.term))


def _fill_event(payload: m.Happening, own: pb.SpinDoctorsEvent) -> None:
    """Every field of ``own`` from ``payload``, replacing what it held."""
    own.SetInParent()
    own.kind = pb.SpinDoctorsEventKind.Value(f"SPIN_DOCTORS_EVENT_KIND_{payload.kind}")
    own.seat, own.staffer, own.field, own.locality = payload.seat, payload.staffer, payload.field, payload.locality
    own.voter_group, own.amount, own.other_seat, own.action = payload.group, payload.amount, payload.other, payload.action
    own.cards[:] = payload.cards
    own.second, own.step, own.target_staffer = payload.second, payload.step, payload.target_staffer
    own.path[:], own.pools[:] = payload.path, payload.pools
    for seat, staffer, field in payload.revealed:
        own.revealed.add(seat=seat, staffer=staffer, field=field, face_up=True)
    if payload.term is not None:
        own.term.CopyFrom(term_to_proto(payload.term))


# --- the catalogue ----------------------------------------------------------------------------
_PROVENANCE = {
    "printed": catalogue_pb2.PROVENANCE_PRINTED,
    "derived": catalogue_pb2.PROVENANCE_DERIVED,
    "designed": catalogue_pb2.PROVENANCE_DESIGNED,
}
_PLACES = {"media": cpb.SPIN_DOCTORS_ACTION_PLACE_MEDIA, "region": cpb.SPIN_DOCTORS_ACTION_PLACE_REGION, "both": cpb.SPIN_DOCTORS_ACTION_PLACE_ANY}
# Each target kind of the content: its enum value and the SpinDoctorsAct fields that carry it.
_TARGETS: dict[str, tuple[int, tuple[str, ...]]] = {
    "none": (cpb.SPIN_DOCTORS_ACTION_TARGET_NONE, ()),
    "locality": (cpb.SPIN_DOCTORS_ACTION_TARGET_LOCALITY, ("locality",)),
    "two_localities": (cpb.SPIN_DOCTORS_ACTION_TARGET_TWO_LOCALITIES, ("locality", "second")),
    "group": (cpb.SPIN_DOCTORS_ACTION_TARGET_VOTER_GROUP, ("voter_group",)),
    "group_step": (cpb.SPIN_DOCTORS_ACTION_TARGET_VOTER_GROUP_STEP, ("voter_group", "step")),
    "two_groups": (cpb.SPIN_DOCTORS_ACTION_TARGET_TWO_VOTER_GROUPS, ("voter_group", "second")),
    "news_blue": (cpb.SPIN_DOCTORS_ACTION_TARGET_BLUE_NEWS, ("card",)),
    "staffer_here": (cpb.SPIN_DOCTORS_ACTION_TARGET_STAFFER_HERE, ("seat", "staffer")),
    "staffer_copy": (cpb.SPIN_DOCTORS_ACTION_TARGET_STAFFER_COPY, ("seat", "staffer")),
    "own_hand": (cpb.SPIN_DOCTORS_ACTION_TARGET_OWN_HAND, ("staffer",)),
    "own_later": (cpb.SPIN_DOCTORS_ACTION_TARGET_OWN_LATER, ("staffer",)),
    "seat": (cpb.SPIN_DOCTORS_ACTION_TARGET_SEAT, ("seat",)),
    "seat_group": (cpb.SPIN_DOCTORS_ACTION_TARGET_SEAT_VOTER_GROUP, ("seat", "voter_group")),
    "locality_seat": (cpb.SPIN_DOCTORS_ACTION_TARGET_LOCALITY_SEAT, ("locality", "seat")),
}
_CONDITIONS = {"3+": cpb.SPIN_DOCTORS_PROGRAMME_CONDITION_THREE_OR_MORE, "0-2": cpb.SPIN_DOCTORS_PROGRAMME_CONDITION_ZERO_TO_TWO}


def _source(entry: Mapping[str, Any]) -> catalogue_pb2.ContentSource:
    return catalogue_pb2.ContentSource(provenance=_PROVENANCE[entry["source"]], note=entry.get("note", ""))


def _named(data: Mapping[str, Any], key: str) -> list[tuple[int, str, str, catalogue_pb2.ContentSource]]:
    return [(index, e["id"], e.get("name", ""), _source(e)) for index, e in enumerate(data[key])]


def _board_catalogue(out: cpb.SpinDoctorsCatalogue, data: Mapping[str, Any]) -> None:
    """Fields, Localities, News track, Round counter and start supplies."""
    for entry in data["fields"]:
        kind = cpb.SPIN_DOCTORS_FIELD_KIND_MEDIA if entry["kind"] == "media" else cpb.SPIN_DOCTORS_FIELD_KIND_REGION
        out.fields.add(field=entry["field"], id=entry["id"], name=entry["name"], kind=kind, source=_source(entry))
    for loc, entry in zip(CONTENT.localities, data["localities"]):
        out.localities.add(locality=loc.index, id=loc.id, name=loc.name, field=loc.field, votes=loc.votes, source=_source(entry))
    out.news_track.CopyFrom(cpb.SpinDoctorsNewsTrack(
        red_fields=CONTENT.red_news_fields, blue_fields=CONTENT.blue_news_fields, source=_source(data["news_track"])
    ))
    counter = out.round_counter
    counter.staffers_per_round[:] = CONTENT.staffers_per_round
    counter.poll_round = CONTENT.poll_round
    for players, round_number in sorted(CONTENT.election_round.items()):
        counter.election_rounds.add(players=players, round=round_number)
    counter.source.CopyFrom(_source(data["round_counter"]))
    start = data["start"]
    out.start.CopyFrom(cpb.SpinDoctorsStartSupplies(
        budget=CONTENT.budget, support_tokens=CONTENT.support_tokens, staff_size=CONTENT.staff_size,
        programme_size=CONTENT.programme_size, topic_cards_on_board=start.get("topic_cards_on_board", 0),
        turnout_marker_sum=CONTENT.turnout_marker_sum, source=_source(start),
    ))


def _cards_catalogue(out: cpb.SpinDoctorsCatalogue, data: Mapping[str, Any]) -> None:
    """Turnout, Topic, News and Programme cards."""
    for entry in data["turnout_cards"]:
        turnout = CONTENT.turnout_cards[entry["id"]]
        out.turnout_cards.add(
            card_id=turnout.id, trait=turnout.trait, voter_group=turnout.group, funding=turnout.funding, fields=turnout.fields,
            arrows=[cpb.SpinDoctorsTurnoutArrow(from_field=a, to_field=b) for a, b in turnout.arrows],
            lowest_fields=turnout.lowest(), top_fields=[f for f in range(turnout.fields) if not turnout.onward(f)],
            source=_source(entry),
        )
    for entry in data["topic_cards"]:
        topic = CONTENT.topic_cards[entry["id"]]
        out.topic_cards.add(
            card_id=topic.id, topic=topic.topic, red_fields=topic.red_fields, white_fields=topic.white_fields,
            source=_source(entry),
        )
    for entry in data["news_cards"]:
        news = CONTENT.news_cards[entry["id"]]
        card = out.news_cards.add(card_id=news.id, turnout_change=news.turnout_change, source=_source(entry))
        if news.is_scandal:
            card.scandal_colour = news.scandal
        else:
            card.topic, card.voter_group = news.topic, news.group
    for entry in data["programme_cards"]:
        programme = CONTENT.programme_cards[entry["id"]]
        out.programme_cards.add(
            card_id=programme.id, topic=programme.topic, condition=_CONDITIONS[programme.condition],
            reward=programme.reward, penalty=programme.penalty, source=_source(entry),
        )


def _staff_catalogue(out: cpb.SpinDoctorsCatalogue, data: Mapping[str, Any]) -> None:
    """Actions, Staffers and the ready-made Staffs."""
    for entry in data["actions"]:
        action = CONTENT.actions[entry["id"]]
        target, act_fields = _TARGETS[action.target]
        out.actions.add(
            action=action.id, name=action.name, place=_PLACES[action.field], red=action.red, target=target,
            act_fields=act_fields, text=action.text, source=_source(entry),
        )
    for staffer, entry in zip(CONTENT.staffers, data["staffers"]):
        added = out.staffers.add(
            staffer=staffer.order, id=staffer.id, name=staffer.name, basic_cost=staffer.basic_cost,
            basic_actions=staffer.basic, special_actions=staffer.special, source=_source(entry),
        )
        if staffer.special_cost is not None:
            added.special_cost = staffer.special_cost
    for members, entry in zip(CONTENT.ready_made_staffs, data["ready_made_staffs"]):
        out.ready_made_staffs.add(staff=entry["id"], staffers=members, text=entry.get("text", ""), source=_source(entry))


def build_catalogue() -> cpb.SpinDoctorsCatalogue:
    """The whole catalogue: values from the validated content, provenance and names from the file."""
    data = CONTENT_DATA
    out = cpb.SpinDoctorsCatalogue()
    for index, entry_id, name, source in _named(data, "voter_groups"):
        out.voter_groups.add(voter_group=index, id=entry_id, name=name, source=source)
    for index, entry_id, name, source in _named(data, "topics"):
        out.topics.add(topic=index, id=entry_id, name=name, source=source)
    for index, entry_id, name, source in _named(data, "colours"):
        out.colours.add(colour=index, id=entry_id, name=name, source=source)
    for _, entry_id, name, source in _named(data, "voter_traits"):
        out.voter_traits.add(id=entry_id, name=name, source=source)
    _board_catalogue(out, data)
    _cards_catalogue(out, data)
    _staff_catalogue(out, data)
    return out


_CATALOGUE = build_catalogue()


def catalogue_to_proto(out: game_service_pb2.GetGameKindResponse) -> None:
    """Set GetGameKindResponse.spin_doctors (built once, at import)."""
    out.spin_doctors.CopyFrom(_CATALOGUE)
