"""Every Stimmvieh view keeps its bytes: over random games of every option set, each seat's and a
spectator's GameView written by the game equals, byte for byte, the one the reference below
writes, and the game's TableView equals the reference's; so do the views of states read back from
storage (new objects, as a watcher's feed reads them), of games viewed in turn, and of views made
by hand with lists.

The reference is the view as it was built before the parties' views and the head of the message
were kept by value (``view`` of engine/stimmvieh/views.py and ``view_to_proto`` of
engine/stimmvieh/codec.py at 27b5197), written entry by entry with nothing kept. It is
deliberately a separate copy: it must not follow later changes of the game's own builder.

Stimmvieh's tables are frozen throughout (tuples and frozen dataclasses): no table can be changed
in place after a view, so there is no such case to check."""

from __future__ import annotations

import random

import pytest

from hustings.engine import Rng
from hustings.engine.stimmvieh import GAME
from hustings.engine.stimmvieh.content import VOTE, Card
from hustings.engine.stimmvieh.model import (
    CHOOSING,
    FINISHED,
    POLITICIANS,
    CampaignRecord,
    StimmviehOptions,
    StimmviehState,
    deck_of,
    party_name,
)
from hustings.engine.stimmvieh.views import PartyView, StackView, TableView
from hustings.v1 import game_pb2, stimmvieh_pb2 as pb
from view_bytes_helpers import check_every_viewer, played_states

MAX_STEPS = 2000
"""Far above a random game's length (about 40 steps a campaign), so that every loop ends."""

OPTION_SETS = [
    StimmviehOptions(3),
    StimmviehOptions(4),
    StimmviehOptions(3, moderator=True, moderator_seat=2, campaigns=2),
    StimmviehOptions(4, campaigns=3, custom_slogan="Hay for all!", custom_replaces="V05"),
    StimmviehOptions(3, campaigns=2, custom_slogan="Mow the lawn", custom_replaces="V01"),
]


# --- the reference (views.view and codec.view_to_proto at 27b5197, nothing kept) -----------------
def _reference_stack(cards: dict[str, Card], ids: tuple[str, ...], full: bool) -> StackView:
    top = cards[ids[-1]] if ids else None
    if not full:
        return StackView(top, len(ids))
    shown = tuple(cards[c] for c in ids)
    return StackView(top, len(ids), shown, sum(card.amount for card in shown))


def _reference_party(state: StimmviehState, index: int, seat: int | None, cards: dict[str, Card]) -> PartyView:
    party = state.parties[index]
    angelus = state.is_angelus(index)
    own = seat is not None and not angelus and seat == index
    revealed = state.phase != CHOOSING
    played: tuple[int, ...] = ()
    if revealed:
        backbenchers = party.backbenchers if own or angelus else ()
        count = len(party.backbenchers)
        played = tuple(p for p in POLITICIANS if p not in party.top_candidates and p not in party.backbenchers)
    else:
        hand = () if angelus else party.hand(revealed=False)
        backbenchers = hand if own else ()
        count = len(hand)
    full = own or state.phase == FINISHED
    return PartyView(
        party=index,
        seat=state.seat_of(index),
        name=party_name(state.options, index),
        angelus=angelus,
        top_candidates_chosen=revealed or bool(party.chosen),
        top_candidates=party.top_candidates if revealed else (),
        backbenchers=backbenchers,
        backbencher_count=count,
        votes=_reference_stack(cards, party.votes, full),
        donations=_reference_stack(cards, party.donations, full),
        campaign_points=party.campaign_points,
        chosen_top_candidates=party.chosen if own and not revealed else (),
        played=played,
    )


def reference_view(state: StimmviehState, seat: int | None) -> TableView:
    """The reference: the table as ``seat`` (None: a spectator) may see it."""
    cards = deck_of(state.options)
    options = state.options
    return TableView(
        campaign=state.campaign,
        campaigns=options.campaigns,
        round=state.round,
        phase=state.phase,
        parties=tuple(_reference_party(state, i, seat, cards) for i in range(len(state.parties))),
        display=tuple(cards[c] for c in state.display),
        vote_stack_top=cards[state.vote_stack[0]] if state.vote_stack else None,
        vote_stack_count=len(state.vote_stack),
        donation_stack_top=cards[state.donation_stack[0]] if state.donation_stack else None,
        donation_stack_count=len(state.donation_stack),
        current_party=state.current_party,
        angelus_holder=state.angelus_holder,
        start_party=state.start_party,
        moderator_seat=options.moderator_seat if options.moderator else None,
        top_candidate_discards=state.top_candidate_discards,
        backbencher_discards=state.backbencher_discards,
        campaign_results=state.campaign_results,
    )


_REFERENCE_PHASES = {
    "CHOOSING_TOP_CANDIDATES": pb.STIMMVIEH_PHASE_CHOOSING_TOP_CANDIDATES,
    "CAMPAIGN": pb.STIMMVIEH_PHASE_CAMPAIGN,
    "FINISHED": pb.STIMMVIEH_PHASE_FINISHED,
}


def _reference_card(card: Card, out: pb.StimmviehCard) -> None:
    out.card_id, out.amount, out.influence, out.label = card.card_id, card.amount, card.influence, card.label
    out.type = pb.STIMMVIEH_CARD_TYPE_VOTE if card.kind == VOTE else pb.STIMMVIEH_CARD_TYPE_DONATION


def _reference_stack_proto(stack: StackView, out: pb.StimmviehCollectedStack) -> None:
    out.SetInParent()
    out.count = stack.count
    if stack.top_card is not None:
        _reference_card(stack.top_card, out.top_card)
    if stack.cards is not None:
        for card in stack.cards:
            _reference_card(card, out.cards.add())
    if stack.total is not None:
        out.total = stack.total


def _reference_campaign(record: CampaignRecord, out: pb.StimmviehCampaign) -> None:
    out.campaign = record.campaign
    for r in record.results:
        out.results.add(party=r.party, votes=r.votes, vote_influence=r.vote_influence, doubled=r.doubled,
                        donations=r.donations, final_donations=r.final_donations, rank=r.rank, points=r.points)


def reference_bytes(view: TableView) -> bytes:
    """The reference view's GameView, every entry added one by one, nothing kept."""
    message = game_pb2.GameView()
    own = message.stimmvieh
    own.SetInParent()
    own.campaign, own.campaigns, own.round = view.campaign, view.campaigns, view.round
    own.phase = _REFERENCE_PHASES[view.phase]
    for party in view.parties:
        p = own.parties.add()
        p.party, p.name, p.angelus = party.party, party.name, party.angelus
        p.top_candidates_chosen = party.top_candidates_chosen
        p.top_candidates.extend(party.top_candidates)
        p.backbenchers.extend(party.backbenchers)
        p.backbencher_count, p.campaign_points = party.backbencher_count, party.campaign_points
        p.chosen_top_candidates.extend(party.chosen_top_candidates)
        p.played.extend(party.played)
        if party.seat is not None:
            p.seat = party.seat
        _reference_stack_proto(party.votes, p.votes)
        _reference_stack_proto(party.donations, p.donations)
    for card in view.display:
        _reference_card(card, own.display.add())
    if view.vote_stack_top is not None:
        _reference_card(view.vote_stack_top, own.vote_stack_top)
    own.vote_stack_count = view.vote_stack_count
    if view.donation_stack_top is not None:
        _reference_card(view.donation_stack_top, own.donation_stack_top)
    own.donation_stack_count = view.donation_stack_count
    if view.current_party is not None:
        own.current_party = view.current_party
    if view.angelus_holder is not None:
        own.angelus_holder = view.angelus_holder
    if view.start_party is not None:
        own.start_party = view.start_party
    if view.moderator_seat is not None:
        own.moderator_seat = view.moderator_seat
    own.top_candidate_discards.extend(view.top_candidate_discards)
    own.backbencher_discards.extend(view.backbencher_discards)
    for record in view.campaign_results:
        _reference_campaign(record, own.campaign_results.add())
    return message.SerializeToString(deterministic=True)


# --- the checks ---------------------------------------------------------------------------------
def _check(state: StimmviehState) -> int:
    return check_every_viewer(GAME, state, state.options.players, reference_view, reference_bytes)


def _states(options: StimmviehOptions, number: int) -> list[StimmviehState]:
    rng = Rng(f"view-bytes-{number}".encode())
    choices = random.Random(number)
    state = GAME.setup(options, rng)
    return played_states(GAME, state, rng, choices, MAX_STEPS)


@pytest.mark.parametrize("number", range(len(OPTION_SETS)))
def test_every_view_of_random_games_is_the_reference_to_the_byte(number: int) -> None:
    states = _states(OPTION_SETS[number], number)
    assert sum(_check(state) for state in states) > 150
    assert states[-1].phase == FINISHED


def test_views_of_states_read_back_and_of_games_in_turn_are_the_reference() -> None:
    """States read back from their stored form (new objects, equal values), and the states of
    games of other options viewed in turn, step by step: nothing kept for one table or one game
    is shown for another."""
    games = [_states(options, 10 + n) for n, options in enumerate(OPTION_SETS)]
    checked = 0
    for step in range(max(len(states) for states in games)):
        for states in games:
            state = states[min(step, len(states) - 1)]
            checked += _check(state)
            checked += _check(GAME.load_state(GAME.dump_state(state)))
    assert checked > 500


def test_a_view_made_by_hand_with_lists_keeps_its_bytes() -> None:
    """A TableView whose plain lists are lists, not tuples (as one made by hand may be), is
    written as the reference writes it, twice alike, and a list changed after a view shows the
    change."""
    state = _states(OPTION_SETS[2], 3)[30]
    for seat in (1, None):
        view = GAME.view(state, seat)
        plain = ("display", "top_candidate_discards", "backbencher_discards", "campaign_results")
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
        parties[0].backbenchers.append(9)  # type: ignore[attr-defined]
        listed.top_candidate_discards.append(7)  # type: ignore[attr-defined]
        message = game_pb2.GameView()
        GAME.view_to_proto(listed, message)
        assert message.SerializeToString(deterministic=True) == reference_bytes(listed)
