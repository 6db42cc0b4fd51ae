"""Conversion between Stimmvieh engine values and the public ``hustings.v1`` messages, and the
game's catalogue built from its content.

The only module of the game that imports protobuf code.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from hustings.engine.errors import EngineError, MalformedMoveError, refuse_other_games, short_list
from hustings.engine.jsontext import kept_by_identity
from hustings.engine.stimmvieh.content import CONTENT, CONTENT_DATA, DONATION, MAX_INFLUENCE, MIN_INFLUENCE, VOTE, Card
from hustings.engine.stimmvieh.model import (
    CAMPAIGN,
    CHOOSING,
    FINISHED,
    AngelusCardPassed,
    CampaignRecord,
    CampaignResult,
    CampaignStarted,
    ChooseTopCandidates,
    DisplayRefilled,
    ElectionNight,
    PlayPolitician,
    PoliticianPlayed,
    StartPlayerChosen,
    StimmviehOptions,
    TopCandidatesChosen,
    TopCandidatesRevealed,
)
from hustings.engine.stimmvieh.rules import EVENTS_KEPT, check_move_shape, validate_options
from hustings.engine.stimmvieh.views import PartyView, SentView, StackView, TableView, ViewError
from hustings.v1 import catalogue_pb2, game_pb2, game_service_pb2, stimmvieh_catalogue_pb2 as cpb, stimmvieh_pb2 as pb

_PHASES = {
    CHOOSING: pb.STIMMVIEH_PHASE_CHOOSING_TOP_CANDIDATES,
    CAMPAIGN: pb.STIMMVIEH_PHASE_CAMPAIGN,
    FINISHED: pb.STIMMVIEH_PHASE_FINISHED,
}


def options_from_proto(message: game_pb2.GameOptions) -> StimmviehOptions:
    """Engine options from GameOptions (campaigns 0 means 1). Raises InvalidOptionsError."""
    own = message.stimmvieh
    custom = own.custom_vote_card
    options = StimmviehOptions(
        players=message.players,
        moderator=own.moderator,
        moderator_seat=own.moderator_seat,
        campaigns=own.campaigns or 1,
        custom_slogan=custom.slogan,
        custom_replaces=custom.replaces_card_id,
    )
    return validate_options(options)


def options_to_proto(options: StimmviehOptions, out: game_pb2.GameOptions) -> None:
    """Fill GameOptions from engine options."""
    out.players = options.players
    own = out.stimmvieh
    own.SetInParent()
    own.moderator = options.moderator
    own.moderator_seat = options.moderator_seat
    own.campaigns = options.campaigns
    if options.custom_slogan:
        own.custom_vote_card.slogan = options.custom_slogan
        own.custom_vote_card.replaces_card_id = options.custom_replaces


_PLAYS = {
    (influence, card_id): PlayPolitician(influence, card_id)
    for influence in range(MIN_INFLUENCE, MAX_INFLUENCE + 1)
    for card_id in ["", "V00", *(card.card_id for card in CONTENT.vote_cards + CONTENT.donation_cards)]
}
"""Every well-formed turn with a card of the content (or the custom "V00", or none), made once:
the move path takes its move from here instead of building and checking a frozen value."""


def move_from_proto(message: game_pb2.Move) -> ChooseTopCandidates | PlayPolitician:
    """An engine move from a Move. Raises MalformedMoveError (EMPTY_MOVE, WRONG_GAME_KIND, BAD_...)."""
    refuse_other_games(message, "stimmvieh")
    own = message.stimmvieh
    kind = own.WhichOneof("kind")
    move: ChooseTopCandidates | PlayPolitician
    if kind == "choose_top_candidates":
        move = ChooseTopCandidates(tuple(short_list(own.choose_top_candidates.influences, "influences")))
    elif kind == "play_politician":
        play = own.play_politician
        known = _PLAYS.get((play.influence, play.take_card_id))
        if known is not None:
            return known
        move = PlayPolitician(play.influence, play.take_card_id)
    else:
        raise MalformedMoveError("EMPTY_MOVE", "the move carries no Stimmvieh decision")
    check_move_shape(move)
    return move


def move_to_proto(move: ChooseTopCandidates | PlayPolitician, out: game_pb2.Move) -> None:
    """Fill a Move."""
    if isinstance(move, ChooseTopCandidates):
        out.stimmvieh.choose_top_candidates.influences[:] = move.influences
        out.stimmvieh.choose_top_candidates.SetInParent()
    else:
        out.stimmvieh.play_politician.influence = move.influence
        out.stimmvieh.play_politician.take_card_id = move.take_card_id
        out.stimmvieh.play_politician.SetInParent()


def _card(card: Card, out: pb.StimmviehCard) -> None:
    out.CopyFrom(_card_message(card))


@kept_by_identity
def _card_message(card: Card) -> pb.StimmviehCard:
    # A game's cards are few and live as long as its deck: each one's message is written once.
    card_type = pb.STIMMVIEH_CARD_TYPE_VOTE if card.kind == VOTE else pb.STIMMVIEH_CARD_TYPE_DONATION
    return pb.StimmviehCard(
        card_id=card.card_id, type=card_type, amount=card.amount, influence=card.influence, label=card.label
    )


def _stack(stack: StackView, out: pb.StimmviehCollectedStack) -> None:
    out.SetInParent()
    out.count = stack.count
    if stack.top_card is not None:
        _card(stack.top_card, out.top_card)
    if stack.cards is not None:
        for card in stack.cards:
            _card(card, out.cards.add())
    if stack.total is not None:
        out.total = stack.total


def _campaign(record: CampaignRecord, out: pb.StimmviehCampaign) -> None:
    out.campaign = record.campaign
    for r in record.results:
        out.results.add(
            party=r.party,
            votes=r.votes,
            vote_influence=r.vote_influence,
            doubled=r.doubled,
            donations=r.donations,
            final_donations=r.final_donations,
            rank=r.rank,
            points=r.points,
        )


def view_to_proto(view: TableView, out: game_pb2.GameView) -> None:
    """Fill GameView.stimmvieh from a seat's TableView.

    The message is assembled from encoded parts: repeated fields concatenate on the wire, so
    merging the parts in order gives the same message as adding every entry one by one. The head
    (every field but the parties) is the same for every viewer of a step; a party's part is kept
    per party view (``views`` shares them between viewers and steps)."""
    parts = [_head(view)]
    kept = _PARTY_PARTS
    for party in view.parties:
        found = kept.get(id(party))
        parts.append(found[1] if found is not None and found[0] is party else _party_part(party))
    own = out.stimmvieh
    own.SetInParent()
    own.MergeFromString(b"".join(parts))


_PARTY_PARTS: dict[int, tuple[PartyView, bytes]] = {}
"""Each party view's part by identity. Entries hold their view, so an id is never reused while its
entry lives; only views of tuples (which cannot change) are kept."""

PARTS_KEPT = 1 << 13
"""Entries each table of parts below keeps; when full, all are let go at once."""


def _party_part(party: PartyView) -> bytes:
    message = pb.StimmviehView()
    p = message.parties.add(
        party=party.party,
        name=party.name,
        angelus=party.angelus,
        top_candidates_chosen=party.top_candidates_chosen,
        top_candidates=party.top_candidates,
        backbenchers=party.backbenchers,
        backbencher_count=party.backbencher_count,
        campaign_points=party.campaign_points,
        chosen_top_candidates=party.chosen_top_candidates,
        played=party.played,
    )
    if party.seat is not None:
        p.seat = party.seat
    _stack(party.votes, p.votes)
    _stack(party.donations, p.donations)
    data = message.SerializeToString()
    if _unchanging(party):
        if len(_PARTY_PARTS) >= PARTS_KEPT:
            _PARTY_PARTS.clear()
        _PARTY_PARTS[id(party)] = (party, data)
    return data


def _unchanging(party: PartyView) -> bool:
    """Whether ``party`` is made of tuples and frozen values throughout (as ``views`` makes it), so
    that its part may be kept by identity: one made by hand with lists may change after it is
    written."""
    if party.__class__ is not PartyView:
        return False
    for values in (party.top_candidates, party.backbenchers, party.chosen_top_candidates, party.played):
        if values.__class__ is not tuple:
            return False
    for stack in (party.votes, party.donations):
        if stack.__class__ is not StackView or (stack.cards is not None and stack.cards.__class__ is not tuple):
            return False
    return True


_LAST_HEAD: tuple[tuple[object, ...] | None, bytes] = (None, b"")
"""The fields of the head last written (tuples and frozen values only) and its part: a step's
views, one per viewer, are written one after the other."""


def _head(view: TableView) -> bytes:
    """The part of every field but the parties, the same for every viewer of a step: kept for the
    next view, and otherwise made of parts (the cards' kept by identity)."""
    global _LAST_HEAD
    display, results = view.display, view.campaign_results
    tops, bottoms = view.top_candidate_discards, view.backbencher_discards
    key: tuple[object, ...] | None = (
        view.campaign, view.campaigns, view.round, view.phase, view.vote_stack_count, view.donation_stack_count,
        view.current_party, view.angelus_holder, view.start_party, view.moderator_seat, display,
        view.vote_stack_top, view.donation_stack_top, tops, bottoms, results,
    )
    last = _LAST_HEAD
    if last[0] == key:
        return last[1]
    fields: dict[str, object] = {
        "campaign": view.campaign, "campaigns": view.campaigns, "round": view.round, "phase": _PHASES[view.phase],
        "vote_stack_count": view.vote_stack_count, "donation_stack_count": view.donation_stack_count,
        "top_candidate_discards": tops, "backbencher_discards": bottoms,
    }
    for name in ("current_party", "angelus_holder", "start_party", "moderator_seat"):
        value = getattr(view, name)
        if value is not None:
            fields[name] = value
    parts = [pb.StimmviehView(**fields).SerializeToString()]
    kept = _DISPLAY_PARTS
    for card in display:
        found = kept.get(id(card))
        parts.append(found[1] if found is not None and found[0] is card else _card_part(card, "display", kept))
    if view.vote_stack_top is not None:
        parts.append(_card_part(view.vote_stack_top, "vote_stack_top", _VOTE_TOP_PARTS))
    if view.donation_stack_top is not None:
        parts.append(_card_part(view.donation_stack_top, "donation_stack_top", _DONATION_TOP_PARTS))
    frozen = results.__class__ is tuple
    if results:
        part, frozen = _results_part(results)
        parts.append(part)
    data = b"".join(parts)
    if frozen and display.__class__ is tuple and tops.__class__ is tuple and bottoms.__class__ is tuple:
        _LAST_HEAD = (key, data)
    return data


_DISPLAY_PARTS: dict[int, tuple[Card, bytes]] = {}
_VOTE_TOP_PARTS: dict[int, tuple[Card, bytes]] = {}
_DONATION_TOP_PARTS: dict[int, tuple[Card, bytes]] = {}
"""A card's part as a card of the display and as either stack's top, by identity (cards are frozen
and live as long as their deck). Entries hold their card, so an id is never reused while its entry
lives."""


def _card_part(card: Card, name: str, kept: dict[int, tuple[Card, bytes]]) -> bytes:
    found = kept.get(id(card))
    if found is not None and found[0] is card:
        return found[1]
    message = pb.StimmviehView()
    field = getattr(message, name)
    _card(card, field.add() if name == "display" else field)
    data = message.SerializeToString()
    if len(kept) >= PARTS_KEPT:
        kept.clear()
    kept[id(card)] = (card, data)
    return data


_RESULTS_PARTS: dict[tuple[CampaignRecord, ...], bytes] = {}
"""The campaigns' results' part by value (frozen records): the same from one election night to the
next."""


def _results_part(results: tuple[CampaignRecord, ...]) -> tuple[bytes, bool]:
    """The part of the campaigns' results, and whether they are frozen throughout (kept)."""
    try:
        found = _RESULTS_PARTS.get(results)
        frozen = True
    except TypeError:  # made by hand with lists: written, not kept
        found, frozen = None, False
    if found is not None:
        return found, True
    message = pb.StimmviehView()
    for record in results:
        _campaign(record, message.campaign_results.add())
    data = message.SerializeToString()
    if frozen:
        if len(_RESULTS_PARTS) >= PARTS_KEPT:
            _RESULTS_PARTS.clear()
        _RESULTS_PARTS[results] = data
    return data, frozen


# --- reading a seat's view back (the inverse of view_to_proto) ----------------------------------
_PHASE_NAMES = {number: name for name, number in _PHASES.items()}
_STATUS_NAMES = {
    game_pb2.GAME_STATUS_OPEN: "OPEN",
    game_pb2.GAME_STATUS_ACTIVE: "ACTIVE",
    game_pb2.GAME_STATUS_FINISHED: "FINISHED",
}
_CARD_KINDS = {pb.STIMMVIEH_CARD_TYPE_VOTE: VOTE, pb.STIMMVIEH_CARD_TYPE_DONATION: DONATION}


def _card_from(message: pb.StimmviehCard) -> Card:
    kind = _CARD_KINDS.get(message.type)
    if kind is None:
        raise ViewError("UNREADABLE_VIEW", f"card {message.card_id[:8]!r} has no card type")
    return Card(message.card_id, kind, message.amount, message.influence, message.label)


def _optional_card(holder: Any, name: str) -> Card | None:
    return _card_from(getattr(holder, name)) if holder.HasField(name) else None


def _stack_from(message: pb.StimmviehCollectedStack) -> StackView:
    # ``total`` is written exactly when the cards are: an empty stack shown in full keeps ``()``.
    full = message.HasField("total")
    return StackView(
        _optional_card(message, "top_card"),
        message.count,
        tuple(_card_from(c) for c in message.cards) if full else None,
        message.total if full else None,
    )


def _optional(holder: Any, name: str) -> int | None:
    return getattr(holder, name) if holder.HasField(name) else None


def table_from_proto(own: pb.StimmviehView) -> TableView:
    """The TableView that ``view_to_proto`` wrote as ``own``: its inverse. Raises ViewError."""
    phase = _PHASE_NAMES.get(own.phase)
    if phase is None:
        raise ViewError("UNREADABLE_VIEW", "the Stimmvieh view has no phase")
    parties = tuple(
        PartyView(
            party=p.party,
            seat=_optional(p, "seat"),
            name=p.name,
            angelus=p.angelus,
            top_candidates_chosen=p.top_candidates_chosen,
            top_candidates=tuple(p.top_candidates),
            backbenchers=tuple(p.backbenchers),
            backbencher_count=p.backbencher_count,
            votes=_stack_from(p.votes),
            donations=_stack_from(p.donations),
            campaign_points=p.campaign_points,
            chosen_top_candidates=tuple(p.chosen_top_candidates),
            played=tuple(p.played),
        )
        for p in own.parties
    )
    results = tuple(
        CampaignRecord(
            record.campaign,
            tuple(
                CampaignResult(
                    r.party, r.votes, r.vote_influence, r.doubled, r.donations, r.final_donations, r.rank, r.points
                )
                for r in record.results
            ),
        )
        for record in own.campaign_results
    )
    return TableView(
        campaign=own.campaign,
        campaigns=own.campaigns,
        round=own.round,
        phase=phase,
        parties=parties,
        display=tuple(_card_from(c) for c in own.display),
        vote_stack_top=_optional_card(own, "vote_stack_top"),
        vote_stack_count=own.vote_stack_count,
        donation_stack_top=_optional_card(own, "donation_stack_top"),
        donation_stack_count=own.donation_stack_count,
        current_party=_optional(own, "current_party"),
        angelus_holder=_optional(own, "angelus_holder"),
        start_party=_optional(own, "start_party"),
        moderator_seat=_optional(own, "moderator_seat"),
        top_candidate_discards=tuple(own.top_candidate_discards),
        backbencher_discards=tuple(own.backbencher_discards),
        campaign_results=results,
    )


def view_from_proto(message: game_pb2.GameView) -> SentView:
    """What a GameView sent to a Stimmvieh seat says, as engine values. Raises ViewError
    (WRONG_KIND, BAD_OPTIONS, BAD_LEGAL_MOVE, UNREADABLE_VIEW)."""
    if message.kind != "stimmvieh" or message.WhichOneof("game") != "stimmvieh":
        shown = message.WhichOneof("game") or "no game"
        raise ViewError("WRONG_KIND", f"not a Stimmvieh view: kind {message.kind[:40]!r} showing {shown}")
    status = _STATUS_NAMES.get(message.status)
    if status is None:
        raise ViewError("UNREADABLE_VIEW", "the view has no game status")
    try:
        options = options_from_proto(message.options)
    except EngineError as error:
        raise ViewError("BAD_OPTIONS", f"the view's options are not a Stimmvieh game's: {error.message}") from None
    try:
        moves = tuple(move_from_proto(move) for move in message.legal_moves)
    except EngineError as error:
        raise ViewError("BAD_LEGAL_MOVE", f"a legal move of the view is no Stimmvieh move: {error.message}") from None
    return SentView(
        seat=message.seat if message.HasField("seat") else None,
        status=status,
        options=options,
        to_act=tuple(message.to_act),
        legal_moves=moves,
        table=table_from_proto(message.stimmvieh),
    )


def _campaign_started(payload: CampaignStarted, own: pb.StimmviehEvent) -> None:
    started = own.campaign_started
    started.SetInParent()
    started.campaign = payload.campaign
    for card in payload.display:
        _card(card, started.display.add())
    if payload.vote_stack_top is not None:
        _card(payload.vote_stack_top, started.vote_stack_top)
    if payload.donation_stack_top is not None:
        _card(payload.donation_stack_top, started.donation_stack_top)


def _top_candidates_chosen(payload: TopCandidatesChosen, own: pb.StimmviehEvent) -> None:
    own.top_candidates_chosen.SetInParent()
    own.top_candidates_chosen.party = payload.party
    own.top_candidates_chosen.influences[:] = payload.influences


def _top_candidates_revealed(payload: TopCandidatesRevealed, own: pb.StimmviehEvent) -> None:
    own.top_candidates_revealed.SetInParent()
    for party in payload.parties:
        own.top_candidates_revealed.parties.add(party=party.party, influences=party.influences, total=party.total)


def _start_player_chosen(payload: StartPlayerChosen, own: pb.StimmviehEvent) -> None:
    start = own.start_player_chosen
    start.SetInParent()
    start.party, start.reason = payload.party, payload.reason
    for flip in payload.flips:
        start.flips.add(party=flip.party, influence=flip.influence)
    if payload.angelus_holder is not None:
        start.angelus_holder = payload.angelus_holder


def _politician_played(payload: PoliticianPlayed, own: pb.StimmviehEvent) -> None:
    played = own.politician_played
    played.SetInParent()
    played.party, played.influence = payload.party, payload.influence
    played.top_candidate, played.decided_by = payload.top_candidate, payload.decided_by
    if payload.taken is not None:
        _card(payload.taken, played.taken)


def _display_refilled(payload: DisplayRefilled, own: pb.StimmviehEvent) -> None:
    own.display_refilled.SetInParent()
    _card(payload.card, own.display_refilled.card)
    if payload.new_stack_top is not None:
        _card(payload.new_stack_top, own.display_refilled.new_stack_top)


def _angelus_card_passed(payload: AngelusCardPassed, own: pb.StimmviehEvent) -> None:
    own.angelus_card_passed.seat = payload.seat
    own.angelus_card_passed.SetInParent()


def _election_night(payload: ElectionNight, own: pb.StimmviehEvent) -> None:
    own.election_night.SetInParent()
    _campaign(payload.record, own.election_night)


_EVENT_WRITERS: dict[type, Callable[[Any, pb.StimmviehEvent], None]] = {
    CampaignStarted: _campaign_started,
    TopCandidatesChosen: _top_candidates_chosen,
    TopCandidatesRevealed: _top_candidates_revealed,
    StartPlayerChosen: _start_player_chosen,
    PoliticianPlayed: _politician_played,
    DisplayRefilled: _display_refilled,
    AngelusCardPassed: _angelus_card_passed,
    ElectionNight: _election_night,
}


def _turn_event_message(payload: PoliticianPlayed | DisplayRefilled) -> pb.StimmviehEvent:
    message = pb.StimmviehEvent()
    _EVENT_WRITERS[type(payload)](payload, message)
    return message


# The rules share the payloads of a turn's recurring events (``rules.EVENTS_KEPT`` of each kind),
# so each one's message is written once and copied into every log entry that reports it.
_kept_turn_event_message = kept_by_identity(_turn_event_message, size=4 * EVENTS_KEPT)


def event_to_proto(payload: Any, out: game_pb2.Event) -> None:
    """Fill Event.stimmvieh from an event payload (already filtered for the viewer)."""
    kind = type(payload)
    if kind is PoliticianPlayed or kind is DisplayRefilled:
        out.stimmvieh.CopyFrom(_kept_turn_event_message(payload))
        return
    write = _EVENT_WRITERS.get(kind)
    if write is None:
        raise TypeError(f"not a Stimmvieh event: {payload!r}")
    write(payload, out.stimmvieh)


# --- the catalogue ----------------------------------------------------------------------------
CUSTOM_VOTE_CARD_ID = "V00"
"""The blank vote card of the custom-vote-card variant (the content keeps the id free for it)."""

_PROVENANCE = {
    "printed": catalogue_pb2.PROVENANCE_PRINTED,
    "derived": catalogue_pb2.PROVENANCE_DERIVED,
    "designed": catalogue_pb2.PROVENANCE_DESIGNED,
}


def _source(entry: Mapping[str, Any]) -> catalogue_pb2.ContentSource:
    return catalogue_pb2.ContentSource(provenance=_PROVENANCE[entry["source"]], note=entry.get("note", ""))


def _catalogue_card(card: Card, entry: Mapping[str, Any]) -> cpb.StimmviehCatalogueCard:
    card_type = pb.STIMMVIEH_CARD_TYPE_VOTE if card.kind == VOTE else pb.STIMMVIEH_CARD_TYPE_DONATION
    return cpb.StimmviehCatalogueCard(
        card_id=card.card_id, type=card_type, amount=card.amount, influence=card.influence, label=card.label,
        source=_source(entry),
    )


def build_catalogue() -> cpb.StimmviehCatalogue:
    """The whole catalogue: values from the validated content, provenance from the content file."""
    data = CONTENT_DATA
    return cpb.StimmviehCatalogue(
        parties=[
            cpb.StimmviehCatalogueParty(party=index, name=name, source=_source(entry))
            for index, (name, entry) in enumerate(zip(CONTENT.party_names, data["parties"]))
        ],
        angelus_name=CONTENT.angelus_name,
        angelus_source=_source(data["angelus"]),
        politician_influences=range(MIN_INFLUENCE, MAX_INFLUENCE + 1),
        influence_source=_source(data["influence_range"]),
        vote_cards=[_catalogue_card(c, e) for c, e in zip(CONTENT.vote_cards, data["vote_cards"])],
        donation_cards=[_catalogue_card(c, e) for c, e in zip(CONTENT.donation_cards, data["donation_cards"])],
        custom_vote_card_id=CUSTOM_VOTE_CARD_ID,
    )


_CATALOGUE = build_catalogue()


def catalogue_to_proto(out: game_service_pb2.GetGameKindResponse) -> None:
    """Set GetGameKindResponse.stimmvieh (built once, at import)."""
    out.stimmvieh.CopyFrom(_CATALOGUE)
