"""Conversion between Wahlspiel engine values and the public ``hustings.v1`` messages, and the
game's catalogue built from its content.

The only module of the game that imports protobuf code.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable, Mapping, Sequence

from hustings.engine.errors import MalformedMoveError, refuse_other_games, short_list
from hustings.engine.jsontext import kept_by_identity
from hustings.engine.wahlspiel import model as m
from hustings.engine.wahlspiel import content as c
from hustings.engine.wahlspiel.content import CONTENT, CONTENT_DATA
from hustings.engine.wahlspiel import rules
from hustings.engine.wahlspiel.rules import validate_options
from hustings.engine.wahlspiel.views import PartyView, TableView
from hustings.v1 import catalogue_pb2, game_pb2, game_service_pb2, wahlspiel_catalogue_pb2 as cpb, wahlspiel_pb2 as pb

_FIELDS = {
    name: getattr(pb, f"WAHLSPIEL_FIELD_KIND_{name.upper()}")
    for name in (
        "start", "voter_purchase", "event_purchase", "prize", "voting", "sensation", "candidate_change",
        "coalition", "kantonsrat", "nationalrat", "bundesrat",
    )
}
_STEPS = {step: getattr(pb, f"WAHLSPIEL_STEP_{step}") for step in m.STEPS}
_KINDS = {"": pb.WAHLSPIEL_CARD_KIND_UNSPECIFIED, m.VOTER: pb.WAHLSPIEL_CARD_KIND_VOTER, m.EVENT: pb.WAHLSPIEL_CARD_KIND_EVENT}
_KIND_NAMES = {value: name for name, value in _KINDS.items()}


def options_from_proto(message: game_pb2.GameOptions) -> m.WahlspielOptions:
    """Engine options from GameOptions. Raises InvalidOptionsError."""
    own = message.wahlspiel
    return validate_options(m.WahlspielOptions(message.players, own.gnomes, own.single_national_candidate))


def options_to_proto(options: m.WahlspielOptions, out: game_pb2.GameOptions) -> None:
    """Fill GameOptions from engine options."""
    out.players = options.players
    out.wahlspiel.SetInParent()
    out.wahlspiel.gnomes = options.gnomes
    out.wahlspiel.single_national_candidate = options.single_national_candidate


# --- moves ----------------------------------------------------------------------------------------------


def _text(value: str, what: str, limit: int = 8) -> str:
    if len(value) > limit or not value.isascii() or not value.isalnum():
        raise MalformedMoveError("BAD_ID", f"{what} must be a short identifier")
    return value


def _card_id(value: str) -> str:
    return _text(value, "card_id") if value else ""


def _party(value: int) -> int:
    if not 0 <= value < 6:
        raise MalformedMoveError("BAD_PARTY", "a party is 0 to 5")
    return value


_DECODE: dict[str, Callable[[Any], m.Move]] = {
    "nominate": lambda x: m.Nominate(_text(x.politician_id, "politician_id")),
    "buy_voters": lambda x: m.BuyVoters(x.count),
    "buy_events": lambda x: m.BuyEvents(x.count),
    "cast_voter": lambda x: m.CastVoter(_text(x.card_id, "card_id")),
    "play_event": lambda x: m.PlayEvent(
        _text(x.card_id, "card_id"),
        tuple(_text(p, "politician_id") for p in short_list(x.politician_ids, "politician_ids")),
        _party(x.party) if x.HasField("party") else -1,
    ),
    "change_candidate": lambda x: m.ChangeCandidate(
        _text(x.withdraw_politician_id, "politician_id"), _text(x.nominate_politician_id, "politician_id")
    ),
    "choose_partner": lambda x: m.ChoosePartner(_party(x.party)),
    "offer_trade": lambda x: m.OfferTrade(_card_id(x.give_card_id), x.give_money, _KIND_NAMES.get(x.ask_kind, ""), x.ask_money),
    "answer_trade": lambda x: m.AnswerTrade(x.accept, _card_id(x.card_id)),
    "judge": lambda x: m.Judge(_text(x.politician_id, "politician_id"), x.verdict),
    "goal_vote": lambda x: m.GoalVote(_text(x.politician_id, "politician_id")),
    "send_runoff_voter": lambda x: m.SendRunoffVoter(_card_id(x.card_id)),
    "pass": lambda x: m.Pass(),
    "propose_offer": lambda x: m.ProposeOffer(),
}


def _well_formed(value: str) -> bool:
    try:
        return _text(value, "id") == value
    except MalformedMoveError:
        return False


_POLITICIAN_IDS = [p for p in CONTENT.politicians if _well_formed(p)]
_VOTER_IDS = [v for v in CONTENT.voters if _well_formed(v)]
_CARD_IDS = ["", *_VOTER_IDS, *(e for e in CONTENT.events if _well_formed(e))]

# The decisions made most often, with the content's ids: the move path takes its move from the
# rules' tables of moves made once (the field that names it as the key) instead of checking ids
# and building a frozen move, and ``apply`` then finds it among the legal moves by identity.
# Anything else is decoded and checked as above.
_KNOWN: dict[str, tuple[Callable[[Any], Any], dict[Any, m.Move]]] = {
    "nominate": (lambda x: x.politician_id, {p: rules.NOMINATIONS[p] for p in _POLITICIAN_IDS}),
    "cast_voter": (lambda x: x.card_id, {v: rules.CASTS[v] for v in _VOTER_IDS}),
    "judge": (
        lambda x: (x.politician_id, x.verdict),
        {(p, verdict): rules.JUDGEMENTS[p, verdict] for p in _POLITICIAN_IDS for verdict in (True, False)},
    ),
    "goal_vote": (lambda x: x.politician_id, {p: rules.GOAL_VOTES_FOR[p] for p in _POLITICIAN_IDS}),
    "send_runoff_voter": (lambda x: x.card_id, {v: rules.RUNOFF_VOTERS[v] for v in ["", *_VOTER_IDS]}),
    "answer_trade": (
        lambda x: (x.accept, x.card_id),
        {(True, card): rules.CARDS_HANDED[card] for card in _CARD_IDS} | {(False, ""): rules.DECLINE},
    ),
    "pass": (lambda x: None, {None: rules.PASS}),
    "propose_offer": (lambda x: None, {None: rules.PROPOSE}),
}


def move_from_proto(message: game_pb2.Move) -> m.Move:
    """An engine move from a Move. Raises MalformedMoveError (EMPTY_MOVE, WRONG_GAME_KIND, BAD_...)."""
    refuse_other_games(message, "wahlspiel")
    own = message.wahlspiel
    kind = own.WhichOneof("kind")
    if kind is None:
        raise MalformedMoveError("EMPTY_MOVE", "the move carries no Wahlspiel decision")
    inner = getattr(own, kind)
    known = _KNOWN.get(kind)
    if known is not None:
        key, table = known
        move = table.get(key(inner))
        if move is not None:
            return move
    return _DECODE[kind](inner)


def move_to_proto(move: m.Move, out: game_pb2.Move) -> None:
    """Fill a Move."""
    own = out.wahlspiel
    if isinstance(move, m.Nominate):
        own.nominate.politician_id = move.politician
    elif isinstance(move, m.BuyVoters):
        own.buy_voters.SetInParent()
        own.buy_voters.count = move.count
    elif isinstance(move, m.BuyEvents):
        own.buy_events.SetInParent()
        own.buy_events.count = move.count
    elif isinstance(move, m.CastVoter):
        own.cast_voter.card_id = move.card
    elif isinstance(move, m.PlayEvent):
        own.play_event.card_id = move.card
        own.play_event.politician_ids[:] = move.candidates
        if move.party >= 0:
            own.play_event.party = move.party
    elif isinstance(move, m.ChangeCandidate):
        own.change_candidate.withdraw_politician_id = move.withdraw
        own.change_candidate.nominate_politician_id = move.nominate
    elif isinstance(move, m.ChoosePartner):
        own.choose_partner.SetInParent()
        own.choose_partner.party = move.party
    elif isinstance(move, m.OfferTrade):
        offer = own.offer_trade
        offer.SetInParent()
        offer.give_card_id, offer.give_money = move.give_card, move.give_money
        offer.ask_kind, offer.ask_money = _KINDS[move.ask_kind], move.ask_money
    elif isinstance(move, m.AnswerTrade):
        own.answer_trade.SetInParent()
        own.answer_trade.accept, own.answer_trade.card_id = move.accept, move.card
    elif isinstance(move, m.Judge):
        own.judge.SetInParent()
        own.judge.politician_id, own.judge.verdict = move.politician, move.verdict
    elif isinstance(move, m.GoalVote):
        own.goal_vote.politician_id = move.politician
    elif isinstance(move, m.SendRunoffVoter):
        own.send_runoff_voter.SetInParent()
        own.send_runoff_voter.card_id = move.card
    elif isinstance(move, m.Pass):
        getattr(own, "pass").SetInParent()
    elif isinstance(move, m.ProposeOffer):
        own.propose_offer.SetInParent()
    else:
        raise TypeError(f"not a Wahlspiel move: {move!r}")


# --- views and events -----------------------------------------------------------------------------


def _card_message(card_id: str) -> pb.WahlspielCard:
    voter = CONTENT.voters.get(card_id)
    if voter is not None:
        return pb.WahlspielCard(
            card_id=card_id, kind=pb.WAHLSPIEL_CARD_KIND_VOTER, text=voter.text,
            symbols=voter.condition.symbols, opinion=voter.opinion,
        )
    return pb.WahlspielCard(card_id=card_id, kind=pb.WAHLSPIEL_CARD_KIND_EVENT, text=CONTENT.events[card_id].text)


_CARDS = {card_id: _card_message(card_id) for card_id in (*CONTENT.voters, *CONTENT.events)}


def _card(card_id: str, out: pb.WahlspielCard) -> None:
    out.CopyFrom(_CARDS[card_id])


def _cards(card_ids: tuple[str, ...], out: Any) -> None:
    out.extend([_CARDS[card_id] for card_id in card_ids])


@lru_cache(maxsize=1024)
def _static_part(politician_ids: tuple[str, ...]) -> pb.WahlspielView:
    """The board and the dealt politicians, which never change during a game, written once per
    game (a few kilobytes each: enough for the games a replica's watchers follow at once)."""
    static = pb.WahlspielView()
    for field in CONTENT.board:
        static.board.add(kind=_FIELDS[field.kind], prize_voters=field.prize_voters, prize_events=field.prize_events)
    for politician in (CONTENT.politicians[p] for p in politician_ids):
        static.politicians.add(
            politician_id=politician.politician_id, name=politician.name, sex=politician.sex, age=politician.age,
            occupation=politician.occupation, traits=sorted(politician.traits), symbols=politician.symbols,
        )
    return static


PARTS_KEPT = 1 << 13
"""Entries each table of parts below keeps; when full, all are let go at once (clearing is atomic)."""

_PARTY_PARTS: dict[int, tuple[PartyView, bytes]] = {}
"""Each party view's part by identity (``views`` shares them between viewers and steps). Entries
hold their view, so an id is never reused while its entry lives; only views of tuples (which
cannot change) are kept."""


def _party_bytes(party: PartyView) -> bytes:
    """A party's view as a WahlspielView holding just that party, serialised."""
    found = _PARTY_PARTS.get(id(party))
    if found is not None and found[0] is party:
        return found[1]
    message = pb.WahlspielView()
    p = message.parties.add(
        party=party.party, name=party.name, colour=party.colour, position=party.position, money=party.money,
        arrived=party.arrived, politician_ids=party.politicians, voter_count=party.voter_count,
        event_count=party.event_count, trades=party.trades,
    )
    _cards(party.voters, p.voters)
    _cards(party.events, p.events)
    data = bytes(message.SerializeToString(deterministic=True))
    if (
        party.__class__ is PartyView and party.politicians.__class__ is tuple and party.voters.__class__ is tuple
        and party.events.__class__ is tuple
    ):
        if len(_PARTY_PARTS) >= PARTS_KEPT:
            _PARTY_PARTS.clear()
        _PARTY_PARTS[id(party)] = (party, data)
    return data


_CANDIDATE_PARTS: dict[tuple[object, ...], bytes] = {}
"""Each candidate's part by every fact it shows: a step changes the votes of one or two."""


def _write_candidates(candidates: Sequence[m.Candidate]) -> bytes:
    """The candidates as a WahlspielView holding just them, serialised: each one's part kept by
    value."""
    kept = _CANDIDATE_PARTS
    parts = []
    for candidate in candidates:
        key = (candidate.politician, candidate.party, candidate.votes, candidate.in_race, candidate.councillor)
        found = kept.get(key)
        if found is None:
            message = pb.WahlspielView()
            message.candidates.add(
                politician_id=candidate.politician, name=CONTENT.politicians[candidate.politician].name,
                party=candidate.party, votes=candidate.votes, in_race=candidate.in_race, councillor=candidate.councillor,
            )
            found = message.SerializeToString(deterministic=True)
            if len(kept) >= PARTS_KEPT:
                kept.clear()
            kept[key] = found
        parts.append(found)
    return b"".join(parts)


_candidates_bytes = kept_by_identity(_write_candidates)
"""``_write_candidates`` of a tuple of candidates, kept: the views of a step share them."""


_HEADS: dict[tuple[object, ...], bytes] = {}
"""The part of the view's single fields and lists of plain values, by their values: the same for
every viewer of a step (and seldom the same in another step, so few are kept)."""

HEADS_KEPT = 1 << 10
"""Entries ``_HEADS`` keeps; when full, all are let go at once."""


def _head(view: TableView) -> bytes:
    current = view.current if view.current >= 0 and view.step != m.RUNOFF else None
    first = view.first_arrived if view.first_arrived >= 0 else None
    key = (
        view.round, view.step, view.start_party, view.last_roll, view.goal_votes, current, first,
        view.voter_stack_count, view.event_stack_count, view.ballot_box, view.event_discards, view.retired,
        view.cantonal, view.national, view.federal,
    )
    try:
        found = _HEADS.get(key)
    except TypeError:  # a view made by hand with lists: written, not kept
        found, key = None, None  # type: ignore[assignment]
    if found is not None:
        return found
    head = pb.WahlspielView(
        round=view.round, step=_STEPS[view.step], start_party=view.start_party, last_roll=view.last_roll,
        goal_votes=view.goal_votes, voter_stack_count=view.voter_stack_count, event_stack_count=view.event_stack_count,
        ballot_box_card_ids=view.ballot_box, event_discard_card_ids=view.event_discards,
        retired_politician_ids=view.retired, cantonal_councillor_ids=view.cantonal,
        national_councillor_ids=view.national, federal_councillor_id=view.federal,
    )
    if current is not None:
        head.current_party = current
    if first is not None:
        head.first_arrived = first
    found = head.SerializeToString(deterministic=True)
    if key is not None:
        if len(_HEADS) >= HEADS_KEPT:
            _HEADS.clear()
        _HEADS[key] = found
    return found


def view_to_proto(view: TableView, out: game_pb2.GameView) -> None:
    """Fill GameView.wahlspiel from a seat's TableView.

    The message is assembled from encoded parts: repeated fields concatenate on the wire, so
    merging the parts in order gives the same message as adding every entry one by one."""
    own = out.wahlspiel
    # Copying the static part's message costs less than reading it from bytes; it comes first,
    # since a copy replaces what was there.
    own.CopyFrom(_static_part(view.dealt))
    own.SetInParent()
    # The head, the parties and the candidates arrive as parts already written (the head is the
    # same for every viewer of a step, a party's view and the candidates are shared with the view
    # before unless the step changed them), read in one go.
    candidates = view.candidates
    kept = _PARTY_PARTS
    parts = [_head(view)]
    for party in view.parties:
        found = kept.get(id(party))
        parts.append(found[1] if found is not None and found[0] is party else _party_bytes(party))
    parts.append(_candidates_bytes(candidates) if candidates.__class__ is tuple else _write_candidates(candidates))
    own.MergeFromString(b"".join(parts))
    if view.ballot is not None:
        b = own.ballot
        _card(view.ballot.card, b.card)
        b.caster, b.politician_ids[:], b.judges[:] = view.ballot.caster, view.ballot.politicians, view.ballot.judges
        for v in view.ballot.verdicts:
            b.verdicts.add(judge=v.judge, politician_id=v.politician, verdict=v.verdict)
        b.verdict_judges[:] = view.verdict_judges
    if view.coalition is not None:
        c = own.coalition
        c.SetInParent()
        coalition = view.coalition
        c.party, c.partner, c.offers, c.proposer = coalition.party, coalition.partner, coalition.offers, coalition.proposer
        _offer(coalition.draft, c.draft)
        if coalition.pending is not None:
            _offer(coalition.pending, c.pending)
        c.handed_count = coalition.handed_count
        _cards(coalition.handed, c.handed_cards)
        c.handed_kinds[:] = [_KINDS[kind] for kind in coalition.handed_kinds]
    if view.runoff is not None:
        r = own.runoff
        r.SetInParent()
        r.politician_ids[:], r.seats = view.runoff.politicians, view.runoff.seats
        r.elected_politician_ids[:] = view.runoff.elected
        r.parties[:], r.decided_parties[:] = view.runoff.parties, view.runoff.decided
        if view.runoff.sent_card:
            _card(view.runoff.sent_card, r.sent_card)
        r.voter_sent_parties[:], r.closing_party = view.runoff.voter_sent, view.runoff.closing_party


def _offer(offer: Any, out: pb.WahlspielOffer) -> None:
    """Fill a WahlspielOffer from an OfferView or a TradeOffered payload (same field names; the
    kinds in order only from an OfferView)."""
    out.SetInParent()
    _cards(offer.give_cards, out.give_cards)
    out.give_voter_count, out.give_event_count, out.give_money = offer.give_voters, offer.give_events, offer.give_money
    out.ask_voter_count, out.ask_event_count, out.ask_money = offer.ask_voters, offer.ask_events, offer.ask_money
    out.give_kinds[:] = [_KINDS[kind] for kind in getattr(offer, "give_kinds", ())]


def _nominated(payload: m.Nominated, own: pb.WahlspielEvent) -> None:
    own.nominated.SetInParent()
    own.nominated.party, own.nominated.politician_id = payload.party, payload.politician


def _die_rolled(payload: m.DieRolled, own: pb.WahlspielEvent) -> None:
    own.die_rolled.SetInParent()
    e = own.die_rolled
    e.party, e.pips, e.origin, e.position = payload.party, payload.pips, payload.origin, payload.position
    e.field, e.bounced = _FIELDS[payload.field], payload.bounced


def _cards_drawn(payload: m.CardsDrawn, own: pb.WahlspielEvent) -> None:
    e = own.cards_drawn
    e.SetInParent()
    e.party, e.reason, e.voter_count, e.event_count, e.cost = (
        payload.party, payload.reason, payload.voters, payload.events, payload.cost,
    )
    _cards(payload.cards, e.cards)


def _votes_changed(payload: m.VotesChanged, own: pb.WahlspielEvent) -> None:
    own.votes_changed.SetInParent()
    e = own.votes_changed
    e.politician_id, e.delta, e.votes, e.reason = payload.politician, payload.delta, payload.votes, payload.reason


def _voter_cast(payload: m.VoterCast, own: pb.WahlspielEvent) -> None:
    own.voter_cast.SetInParent()
    own.voter_cast.party = payload.party
    _card(payload.card, own.voter_cast.card)
    own.voter_cast.politician_ids[:] = payload.politicians


def _ballot_opened(payload: m.BallotOpened, own: pb.WahlspielEvent) -> None:
    own.ballot_opened.SetInParent()
    _card(payload.card, own.ballot_opened.card)
    own.ballot_opened.politician_ids[:] = payload.politicians
    own.ballot_opened.judges[:] = payload.judges


def _judged(payload: m.Judged, own: pb.WahlspielEvent) -> None:
    own.judged.SetInParent()
    own.judged.judge, own.judged.politician_id, own.judged.verdict = payload.judge, payload.politician, payload.verdict


def _ballot_decided(payload: m.BallotDecided, own: pb.WahlspielEvent) -> None:
    own.ballot_decided.SetInParent()
    own.ballot_decided.card_id = payload.card
    own.ballot_decided.politician_ids[:] = payload.politicians


def _money_changed(payload: m.MoneyChanged, own: pb.WahlspielEvent) -> None:
    own.money_changed.SetInParent()
    e = own.money_changed
    e.party, e.delta, e.money, e.reason = payload.party, payload.delta, payload.money, payload.reason


def _event_played(payload: m.EventPlayed, own: pb.WahlspielEvent) -> None:
    own.event_played.SetInParent()
    e = own.event_played
    e.party, e.effective = payload.party, payload.effective
    _card(payload.card, e.card)
    e.politician_ids[:] = payload.candidates
    if payload.target_party >= 0:
        e.target_party = payload.target_party


def _candidate_changed(payload: m.CandidateChanged, own: pb.WahlspielEvent) -> None:
    own.candidate_changed.SetInParent()
    e = own.candidate_changed
    e.party, e.withdrawn_politician_id, e.nominated_politician_id = payload.party, payload.withdrawn, payload.nominated


def _candidate_retired(payload: m.CandidateRetired, own: pb.WahlspielEvent) -> None:
    own.candidate_retired.SetInParent()
    own.candidate_retired.politician_id, own.candidate_retired.reason = payload.politician, payload.reason


def _coalition_changed(payload: m.CoalitionChanged, own: pb.WahlspielEvent) -> None:
    own.coalition_changed.SetInParent()
    e = own.coalition_changed
    e.party, e.partner, e.ended = payload.party, payload.partner, payload.ended


def _trade_offered(payload: m.TradeOffered, own: pb.WahlspielEvent) -> None:
    own.trade_offered.SetInParent()
    e = own.trade_offered
    e.party, e.partner = payload.party, payload.partner
    _offer(payload, e.offer)


def _trade_answered(payload: m.TradeAnswered, own: pb.WahlspielEvent) -> None:
    own.trade_answered.SetInParent()
    e = own.trade_answered
    e.party, e.partner, e.accepted = payload.party, payload.partner, payload.accepted
    e.given_count, e.received_count = payload.given_count, payload.received_count
    _cards(payload.given_cards, e.given_cards)
    _cards(payload.received_cards, e.received_cards)


def _goal_reached(payload: m.GoalReached, own: pb.WahlspielEvent) -> None:
    own.goal_reached.SetInParent()
    own.goal_reached.party, own.goal_reached.goal, own.goal_reached.first = (
        payload.party, _FIELDS[payload.goal], payload.first,
    )


def _runoff_opened(payload: m.RunoffOpened, own: pb.WahlspielEvent) -> None:
    own.runoff_opened.SetInParent()
    e = own.runoff_opened
    e.politician_ids[:], e.seats, e.parties[:] = payload.politicians, payload.seats, payload.parties


def _runoff_voter_sent(payload: m.RunoffVoterSent, own: pb.WahlspielEvent) -> None:
    own.runoff_voter_sent.SetInParent()
    own.runoff_voter_sent.party = payload.party
    if payload.card:
        _card(payload.card, own.runoff_voter_sent.card)


def _runoff_voters_revealed(payload: m.RunoffVotersRevealed, own: pb.WahlspielEvent) -> None:
    own.runoff_voters_revealed.SetInParent()
    for sent in payload.sent:
        s = own.runoff_voters_revealed.sent.add(party=sent.party)
        if sent.card:
            _card(sent.card, s.card)
    own.runoff_voters_revealed.politician_ids[:] = payload.politicians


def _runoff_card_turned(payload: m.RunoffCardTurned, own: pb.WahlspielEvent) -> None:
    own.runoff_card_turned.SetInParent()
    _card(payload.card, own.runoff_card_turned.card)
    own.runoff_card_turned.politician_ids[:] = payload.politicians


def _runoff_lots(payload: m.RunoffLots, own: pb.WahlspielEvent) -> None:
    own.runoff_lots.SetInParent()
    own.runoff_lots.politician_ids[:] = payload.politicians


def _election_held(payload: m.ElectionHeld, own: pb.WahlspielEvent) -> None:
    own.election_held.SetInParent()
    e = own.election_held
    e.round, e.politician_ids[:], e.pay = payload.round, payload.elected, payload.pay


_EVENT_WRITERS: dict[type, Callable[[Any, pb.WahlspielEvent], None]] = {
    m.Nominated: _nominated,
    m.DieRolled: _die_rolled,
    m.CardsDrawn: _cards_drawn,
    m.VotesChanged: _votes_changed,
    m.VoterCast: _voter_cast,
    m.BallotOpened: _ballot_opened,
    m.Judged: _judged,
    m.BallotDecided: _ballot_decided,
    m.MoneyChanged: _money_changed,
    m.EventPlayed: _event_played,
    m.CandidateChanged: _candidate_changed,
    m.CandidateRetired: _candidate_retired,
    m.CoalitionChanged: _coalition_changed,
    m.TradeOffered: _trade_offered,
    m.TradeAnswered: _trade_answered,
    m.GoalReached: _goal_reached,
    m.RunoffOpened: _runoff_opened,
    m.RunoffVoterSent: _runoff_voter_sent,
    m.RunoffVotersRevealed: _runoff_voters_revealed,
    m.RunoffCardTurned: _runoff_card_turned,
    m.RunoffLots: _runoff_lots,
    m.ElectionHeld: _election_held,
}
"""How each payload type is written: one lookup instead of a chain of type checks."""

def event_to_proto(payload: Any, out: game_pb2.Event) -> None:
    """Fill Event.wahlspiel from an event payload (already filtered for the viewer)."""
    write = _EVENT_WRITERS.get(payload.__class__)
    if write is None:
        raise TypeError(f"not a Wahlspiel event: {payload!r}")
    write(payload, out.wahlspiel)


# --- the catalogue ----------------------------------------------------------------------------
_PROVENANCE = {
    "printed": catalogue_pb2.PROVENANCE_PRINTED,
    "derived": catalogue_pb2.PROVENANCE_DERIVED,
    "designed": catalogue_pb2.PROVENANCE_DESIGNED,
}
_TARGETS = {
    c.TARGET_CANDIDATES: cpb.WAHLSPIEL_EVENT_TARGET_CANDIDATES,
    c.TARGET_EVERY: cpb.WAHLSPIEL_EVENT_TARGET_EVERY,
    c.TARGET_OWN: cpb.WAHLSPIEL_EVENT_TARGET_OWN_PARTY,
    c.TARGET_PARTY: cpb.WAHLSPIEL_EVENT_TARGET_PARTY,
}


def _source(entry: Mapping[str, Any]) -> catalogue_pb2.ContentSource:
    return catalogue_pb2.ContentSource(provenance=_PROVENANCE[entry["source"]], note=entry.get("note", ""))


def _condition(condition: c.Condition) -> cpb.WahlspielCondition:
    return cpb.WahlspielCondition(
        sex=condition.sex, age_min=condition.age_min, age_max=condition.age_max, occupations=condition.occupations,
        traits=condition.traits, symbols=condition.symbols,
    )


def _event(card: c.EventCard, entry: Mapping[str, Any]) -> cpb.WahlspielCatalogueEvent:
    return cpb.WahlspielCatalogueEvent(
        card_id=card.card_id, text=card.text, target=_TARGETS[card.target], count=card.count,
        condition=_condition(card.condition), votes=card.votes, halve=card.halve, lose_all=card.lose_all,
        withdraw=card.withdraw, money=card.money, source=_source(entry),
    )


def build_catalogue() -> cpb.WahlspielCatalogue:
    """The whole catalogue: values from the validated content (the very conditions and effects the
    rules evaluate), provenance and display words from the content file."""
    data = CONTENT_DATA
    catalogue = cpb.WahlspielCatalogue(
        money=cpb.WahlspielMoneyRules(
            start=CONTENT.start_money, start_three_players=CONTENT.start_money_three_players,
            voter_price=CONTENT.voter_price, event_price=CONTENT.event_price, source=_source(data["money"]),
        ),
        symbols=[cpb.WahlspielSymbol(id=e["id"], icon=e.get("icon", ""), source=_source(e)) for e in data["symbols"]],
        traits=[cpb.WahlspielTrait(id=e["id"], meaning=e.get("meaning", ""), source=_source(e)) for e in data["traits"]],
        occupations=[cpb.WahlspielOccupation(id=e["id"], source=_source(e)) for e in data["occupations"]],
    )
    for number, (election, entry, position) in enumerate(zip(CONTENT.elections, data["elections"], CONTENT.goal_positions), 1):
        catalogue.elections.add(
            round=number, goal=_FIELDS[election.goal], goal_position=position, seats=election.seats, pay=election.pay,
            source=_source(entry),
        )
    for index, (name, colour, entry) in enumerate(zip(CONTENT.party_names, CONTENT.party_colours, data["parties"])):
        catalogue.parties.add(party=index, name=name, colour=colour, source=_source(entry))
    for position, (field, entry) in enumerate(zip(CONTENT.board, data["board"])):
        catalogue.board.add(
            position=position, kind=_FIELDS[field.kind], prize_voters=field.prize_voters, prize_events=field.prize_events,
            source=_source(entry),
        )
    for entry in data["politicians"]:
        politician = CONTENT.politicians[entry["id"]]
        catalogue.politicians.add(
            politician=pb.WahlspielPolitician(
                politician_id=politician.politician_id, name=politician.name, sex=politician.sex, age=politician.age,
                occupation=politician.occupation, traits=sorted(politician.traits), symbols=politician.symbols,
            ),
            source=_source(entry),
        )
    for entry in data["voters"]:
        voter = CONTENT.voters[entry["id"]]
        catalogue.voters.add(
            card_id=voter.card_id, text=voter.text, condition=_condition(voter.condition), opinion=voter.opinion,
            source=_source(entry),
        )
    catalogue.events.extend(_event(CONTENT.events[entry["id"]], entry) for entry in data["events"])
    return catalogue


_CATALOGUE = build_catalogue()


def catalogue_to_proto(out: game_service_pb2.GetGameKindResponse) -> None:
    """Set GetGameKindResponse.wahlspiel (built once, at import)."""
    out.wahlspiel.CopyFrom(_CATALOGUE)
