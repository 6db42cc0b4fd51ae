"""Every Wahlspiel view keeps its bytes: over random games of every option set (parties named by
their players in some), each seat's and a spectator's GameView written by the game equals, byte
for byte, the one the reference below writes, and the game's TableView equals the reference's; so
do the views of states read back from storage (new objects, as a watcher's feed reads them), of
games viewed in turn, and of views made by hand with lists.

The reference is the view as it was built before the parties' views and the candidates were kept
by value (``view`` of engine/wahlspiel/views.py and ``view_to_proto`` of
engine/wahlspiel/codec.py at 27b5197), written entry by entry with nothing kept. It is
deliberately a separate copy: it must not follow later changes of the game's own builder.

Wahlspiel's tables are frozen throughout (tuples and frozen dataclasses): no table can be changed
in place after a view, so there is no such case to check."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from hustings.engine import Rng
from hustings.engine.wahlspiel import GAME, WahlspielOptions, WahlspielState
from hustings.engine.wahlspiel.content import CONTENT
from hustings.engine.wahlspiel.founding import party_colours, party_names
from hustings.engine.wahlspiel.model import FINISHED, RUNOFF, Offer
from hustings.engine.wahlspiel.table import POLITICIANS, card_kind
from hustings.engine.wahlspiel.views import CoalitionView, OfferView, PartyView, RunoffView, TableView
from hustings.v1 import game_pb2, wahlspiel_pb2 as pb
from view_bytes_helpers import check_every_viewer, played_states

MAX_STEPS = 1000
"""Far above a random game's length (100-250 steps), so that every loop ends."""

OPTION_SETS = [
    WahlspielOptions(3),
    WahlspielOptions(4, gnomes=True),
    WahlspielOptions(5, single_national_candidate=True),
    WahlspielOptions(6, gnomes=True),
    WahlspielOptions(4),
]


# --- the reference (views.view and codec.view_to_proto at 27b5197, nothing kept) -----------------
def _reference_offer(offer: Offer, full: bool) -> OfferView:
    voters = sum(card_kind(c) == "voter" for c in offer.give_cards)
    return OfferView(
        voters, len(offer.give_cards) - voters, offer.give_cards if full else (), offer.give_money,
        offer.ask_voters, offer.ask_events, offer.ask_money, tuple(card_kind(c) for c in offer.give_cards),
    )


def reference_view(state: WahlspielState, seat: int | None) -> TableView:
    """The reference: the table as ``seat`` (None: a spectator) may see it."""
    names, colours = party_names(state), party_colours(state)
    parties = tuple(
        PartyView(
            party=i, name=names[i], colour=colours[i], position=p.position, money=p.money, arrived=p.arrived,
            politicians=p.politicians, voter_count=len(p.voters), event_count=len(p.events), trades=p.trades,
            voters=p.voters if i == seat else (), events=p.events if i == seat else (),
        )
        for i, p in enumerate(state.parties)
    )
    coalition = None
    if state.coalition is not None and state.coalition.partner >= 0:
        c = state.coalition
        partners = seat is not None and seat in (state.current, c.partner)
        coalition = CoalitionView(
            state.current, c.partner, c.offers, state.current if c.proposer < 0 else c.proposer,
            _reference_offer(c.draft, partners), _reference_offer(c.pending, partners) if c.pending else None,
            len(c.handed), c.handed if partners else (), tuple(card_kind(card) for card in c.handed),
        )
    runoff = None
    if state.runoff is not None:
        r = state.runoff
        own = next((s.card for s in r.sent if s.party == seat), "")
        runoff = RunoffView(
            r.politicians, r.seats, r.elected, r.parties, tuple(s.party for s in r.sent), own,
            tuple(s.party for s in r.sent if s.card), state.current,
        )
    ballot = state.revealed_ballot
    verdict_judges: tuple[int, ...] = ()
    if state.ballot is not None:
        ballot = state.ballot
        verdict_judges = tuple(v.judge for v in ballot.verdicts)
        if any(v.judge != seat for v in ballot.verdicts):
            ballot = replace(ballot, verdicts=tuple(v for v in ballot.verdicts if v.judge == seat))
    dealt = tuple(sorted(p for party in state.parties for p in party.politicians))
    return TableView(
        round=state.round, step=state.step, current=state.current, start_party=state.start_party,
        first_arrived=state.first_arrived, last_roll=state.last_roll, goal_votes=state.goal_votes, board=CONTENT.board,
        parties=parties, dealt=dealt, politicians=tuple(POLITICIANS[p] for p in dealt), candidates=state.candidates,
        voter_stack_count=len(state.voter_stack), event_stack_count=len(state.event_stack),
        ballot_box=state.ballot_box, event_discards=state.event_discards, retired=state.retired,
        cantonal=state.cantonal, national=state.national, federal=state.federal, ballot=ballot,
        coalition=coalition, runoff=runoff, viewer=-1 if seat is None else seat, verdict_judges=verdict_judges,
    )


_FIELD_KINDS = {
    name: getattr(pb, f"WAHLSPIEL_FIELD_KIND_{name.upper()}")
    for name in ("start", "voter_purchase", "event_purchase", "prize", "voting", "sensation", "candidate_change",
                 "coalition", "kantonsrat", "nationalrat", "bundesrat")
}
_CARD_KINDS = {"": pb.WAHLSPIEL_CARD_KIND_UNSPECIFIED, "voter": pb.WAHLSPIEL_CARD_KIND_VOTER, "event": pb.WAHLSPIEL_CARD_KIND_EVENT}


def _reference_card(card_id: str, out: pb.WahlspielCard) -> None:
    out.card_id = card_id
    voter = CONTENT.voters.get(card_id)
    if voter is not None:
        out.kind, out.text, out.opinion = pb.WAHLSPIEL_CARD_KIND_VOTER, voter.text, voter.opinion
        out.symbols.extend(voter.condition.symbols)
    else:
        out.kind, out.text = pb.WAHLSPIEL_CARD_KIND_EVENT, CONTENT.events[card_id].text


def _reference_offer_proto(offer: OfferView, out: pb.WahlspielOffer) -> None:
    out.SetInParent()
    for card_id in offer.give_cards:
        _reference_card(card_id, out.give_cards.add())
    out.give_voter_count, out.give_event_count, out.give_money = offer.give_voters, offer.give_events, offer.give_money
    out.ask_voter_count, out.ask_event_count, out.ask_money = offer.ask_voters, offer.ask_events, offer.ask_money
    out.give_kinds.extend(_CARD_KINDS[kind] for kind in offer.give_kinds)


def reference_bytes(view: TableView) -> bytes:
    """The reference view's GameView, every entry added one by one, nothing kept."""
    message = game_pb2.GameView()
    own = message.wahlspiel
    own.SetInParent()
    for field in CONTENT.board:
        own.board.add(kind=_FIELD_KINDS[field.kind], prize_voters=field.prize_voters, prize_events=field.prize_events)
    for politician in (CONTENT.politicians[p] for p in view.dealt):
        own.politicians.add(
            politician_id=politician.politician_id, name=politician.name, sex=politician.sex, age=politician.age,
            occupation=politician.occupation, traits=sorted(politician.traits), symbols=politician.symbols,
        )
    own.round, own.step, own.start_party = view.round, getattr(pb, f"WAHLSPIEL_STEP_{view.step}"), view.start_party
    own.last_roll, own.goal_votes = view.last_roll, view.goal_votes
    if view.current >= 0 and view.step != RUNOFF:
        own.current_party = view.current
    if view.first_arrived >= 0:
        own.first_arrived = view.first_arrived
    for party in view.parties:
        p = own.parties.add()
        p.party, p.name, p.colour, p.position, p.money = party.party, party.name, party.colour, party.position, party.money
        p.arrived, p.voter_count, p.event_count, p.trades = party.arrived, party.voter_count, party.event_count, party.trades
        p.politician_ids.extend(party.politicians)
        for card_id in party.voters:
            _reference_card(card_id, p.voters.add())
        for card_id in party.events:
            _reference_card(card_id, p.events.add())
    for candidate in view.candidates:
        own.candidates.add(
            politician_id=candidate.politician, name=CONTENT.politicians[candidate.politician].name,
            party=candidate.party, votes=candidate.votes, in_race=candidate.in_race, councillor=candidate.councillor,
        )
    own.voter_stack_count, own.event_stack_count = view.voter_stack_count, view.event_stack_count
    own.ballot_box_card_ids.extend(view.ballot_box)
    own.event_discard_card_ids.extend(view.event_discards)
    own.retired_politician_ids.extend(view.retired)
    own.cantonal_councillor_ids.extend(view.cantonal)
    own.national_councillor_ids.extend(view.national)
    own.federal_councillor_id = view.federal
    if view.ballot is not None:
        b = own.ballot
        _reference_card(view.ballot.card, b.card)
        b.caster = view.ballot.caster
        b.politician_ids.extend(view.ballot.politicians)
        b.judges.extend(view.ballot.judges)
        for v in view.ballot.verdicts:
            b.verdicts.add(judge=v.judge, politician_id=v.politician, verdict=v.verdict)
        b.verdict_judges.extend(view.verdict_judges)
    if view.coalition is not None:
        c = own.coalition
        c.SetInParent()
        coalition = view.coalition
        c.party, c.partner, c.offers, c.proposer = coalition.party, coalition.partner, coalition.offers, coalition.proposer
        _reference_offer_proto(coalition.draft, c.draft)
        if coalition.pending is not None:
            _reference_offer_proto(coalition.pending, c.pending)
        c.handed_count = coalition.handed_count
        for card_id in coalition.handed:
            _reference_card(card_id, c.handed_cards.add())
        c.handed_kinds.extend(_CARD_KINDS[kind] for kind in coalition.handed_kinds)
    if view.runoff is not None:
        r = own.runoff
        r.SetInParent()
        r.politician_ids.extend(view.runoff.politicians)
        r.seats = view.runoff.seats
        r.elected_politician_ids.extend(view.runoff.elected)
        r.parties.extend(view.runoff.parties)
        r.decided_parties.extend(view.runoff.decided)
        if view.runoff.sent_card:
            _reference_card(view.runoff.sent_card, r.sent_card)
        r.voter_sent_parties.extend(view.runoff.voter_sent)
        r.closing_party = view.runoff.closing_party
    return message.SerializeToString(deterministic=True)


# --- the checks ---------------------------------------------------------------------------------
def _check(state: WahlspielState) -> int:
    return check_every_viewer(GAME, state, state.options.players, reference_view, reference_bytes)


def _states(options: WahlspielOptions, number: int) -> list[WahlspielState]:
    rng = Rng(f"view-bytes-{number}".encode())
    choices = random.Random(number)
    state = GAME.setup(options, rng)
    if number % 2:  # some parties named by their players, one colour chosen
        state = GAME.name_party(state, 0, f"Party {number}", "")
        state = GAME.name_party(state, options.players - 1, "", CONTENT.party_colours[0])
    return played_states(GAME, state, rng, choices, MAX_STEPS)


@pytest.mark.parametrize("number", range(len(OPTION_SETS)))
def test_every_view_of_random_games_is_the_reference_to_the_byte(number: int) -> None:
    states = _states(OPTION_SETS[number], number)
    assert sum(_check(state) for state in states[::2]) > 200
    _check(states[-1])
    assert states[-1].step == FINISHED


def test_views_of_states_read_back_and_of_games_in_turn_are_the_reference() -> None:
    """States read back from their stored form (new objects, equal values), and the states of
    games of other options viewed in turn, step by step: nothing kept for one table or one game
    is shown for another."""
    games = [_states(options, 10 + n) for n, options in enumerate(OPTION_SETS[:3])]
    checked = 0
    for step in range(0, max(len(states) for states in games), 3):
        for states in games:
            state = states[min(step, len(states) - 1)]
            checked += _check(GAME.load_state(GAME.dump_state(state)))
    assert checked > 300


def test_a_view_made_by_hand_with_lists_keeps_its_bytes() -> None:
    """A TableView whose plain lists are lists, not tuples (as one made by hand may be), is
    written as the reference writes it, twice alike, and a list changed after a view shows the
    change."""
    states = _states(OPTION_SETS[1], 7)
    state = next(s for s in states if s.coalition is not None and s.coalition.partner >= 0)
    for seat in (state.current, None):
        view = GAME.view(state, seat)
        plain = ("ballot_box", "event_discards", "retired", "cantonal", "national", "candidates")
        parties = [
            PartyView(**{f: (list(getattr(p, f)) if isinstance(getattr(p, f), tuple) else getattr(p, f)) for f in PartyView.__dataclass_fields__})
            for p in view.parties
        ]
        listed = TableView(**{
            f: (list(getattr(view, f)) if f in plain else parties if f == "parties" else getattr(view, f))
            for f in TableView.__dataclass_fields__
        })
        for _ in range(2):
            message = game_pb2.GameView()
            GAME.view_to_proto(listed, message)
            assert message.SerializeToString(deterministic=True) == reference_bytes(view)
        parties[0].politicians.append(parties[1].politicians[0])  # type: ignore[attr-defined]
        listed.candidates.append(view.candidates[0] if view.candidates else state.candidates[0])  # type: ignore[attr-defined]
        message = game_pb2.GameView()
        GAME.view_to_proto(listed, message)
        assert message.SerializeToString(deterministic=True) == reference_bytes(listed)


def test_a_table_made_by_hand_with_lists_is_viewed_as_the_reference_views_it() -> None:
    """Parties whose hands are lists (a table made by hand) are viewed, not kept: a list changed
    after a view shows the change."""
    state = _states(OPTION_SETS[4], 8)[20]
    parties = tuple(replace(p, voters=list(p.voters), events=list(p.events)) for p in state.parties)  # type: ignore[arg-type]
    listed = replace(state, parties=parties)
    _check(listed)
    parties[1].voters.append(parties[0].voters[0])  # type: ignore[attr-defined]
    parties[2].events.pop()  # type: ignore[attr-defined]
    _check(replace(listed))
