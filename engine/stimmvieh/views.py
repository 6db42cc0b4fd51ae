"""What one seat (or a spectator) may see of a Stimmvieh table: the one place secrets are stripped.

Others see of a party its face-up top candidates (after the reveal), the politicians it has played
(face up on the discard piles), how many backbenchers it holds, whether it has chosen, and the top
card and count of each collected stack. The owner also
sees its hand, its unrevealed choice and its stacks in full. Angelus' backbenchers lie face up;
nobody sees her stacks in full before election night. Deck order below the visible tops never
leaves the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from hustings.engine.base import Seat
from hustings.engine.rng import Rng
from hustings.engine.stimmvieh.content import Card
from hustings.engine.stimmvieh.model import (
    ANGELUS_PARTY,
    CHOOSING,
    FINISHED,
    POLITICIANS,
    TOP_CANDIDATE_COUNT,
    CampaignRecord,
    ChooseTopCandidates,
    PlayPolitician,
    StimmviehOptions,
    StimmviehState,
    deck_of,
    party_name,
)


@dataclass(frozen=True)
class StackView:
    """A collected stack as seen: ``cards`` and ``total`` are None when hidden from the viewer."""

    top_card: Card | None
    count: int
    cards: tuple[Card, ...] | None = None
    total: int | None = None


@dataclass(frozen=True)
class PartyView:
    """A party as seen by the viewer."""

    party: int
    seat: int | None
    name: str
    angelus: bool
    top_candidates_chosen: bool
    top_candidates: tuple[int, ...]
    backbenchers: tuple[int, ...]
    backbencher_count: int
    votes: StackView
    donations: StackView
    campaign_points: int
    chosen_top_candidates: tuple[int, ...]
    played: tuple[int, ...]
    """The politicians the party has played this campaign, by influence: each went face up on a
    discard pile naming its party, so that everybody knows them (and with them the hand, which is
    1..9 less these and the top candidates)."""


@dataclass(frozen=True)
class TableView:
    """The whole table as seen by the viewer."""

    campaign: int
    campaigns: int
    round: int
    phase: str
    parties: tuple[PartyView, ...]
    display: tuple[Card, ...]
    vote_stack_top: Card | None
    vote_stack_count: int
    donation_stack_top: Card | None
    donation_stack_count: int
    current_party: int | None
    angelus_holder: int | None
    start_party: int | None
    moderator_seat: int | None
    top_candidate_discards: tuple[int, ...]
    backbencher_discards: tuple[int, ...]
    campaign_results: tuple[CampaignRecord, ...]


@dataclass(frozen=True)
class SentView:
    """A GameView as a Stimmvieh seat receives it, read back into engine values
    (``codec.view_from_proto``): the game-level fields a table needs and the seat's ``TableView``."""

    seat: int | None
    status: str
    """"OPEN", "ACTIVE" or "FINISHED": the game's life cycle status."""
    options: StimmviehOptions
    to_act: tuple[int, ...]
    legal_moves: tuple[ChooseTopCandidates | PlayPolitician, ...]
    table: TableView


class ViewError(ValueError):
    """A GameView that no Stimmvieh table shows its seat: of another kind, a spectator's, unreadable
    or against the rules. ``reason`` is a stable UPPER_SNAKE code."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def _stack(cards: dict[str, Card], ids: tuple[str, ...], full: bool) -> StackView:
    top = cards[ids[-1]] if ids else None
    if not full:
        return StackView(top, len(ids))
    shown = tuple([cards[c] for c in ids])
    return StackView(top, len(ids), shown, sum([card.amount for card in shown]))


_PLAYED: dict[tuple[tuple[int, ...], tuple[int, ...]], tuple[int, ...]] = {}


def _played(top_candidates: tuple[int, ...], backbenchers: tuple[int, ...]) -> tuple[int, ...]:
    """The politicians a party no longer holds, by influence: worked out once for each of the few
    hands there are (a view lists every party's), not in every view."""
    key = (top_candidates, backbenchers)
    found = _PLAYED.get(key)
    if found is None:
        found = _PLAYED[key] = tuple(p for p in POLITICIANS if p not in top_candidates and p not in backbenchers)
    return found


def _party(state: StimmviehState, index: int, own: bool, cards: dict[str, Card]) -> PartyView:
    party = state.parties[index]
    angelus = state.is_angelus(index)
    revealed = state.phase != CHOOSING
    played: tuple[int, ...] = ()
    if revealed:
        backbenchers = party.backbenchers if own or angelus else ()
        count = len(party.backbenchers)
        played = _played(party.top_candidates, party.backbenchers)
    else:
        hand = () if angelus else party.hand(revealed=False)
        backbenchers = hand if own else ()
        count = len(hand)
    full = own or state.phase == FINISHED
    view = object.__new__(PartyView)  # as the constructor makes it (see ``view``)
    view.__dict__.update(
        party=index,
        seat=state.seat_of(index),
        name=party_name(state.options, index),
        angelus=angelus,
        top_candidates_chosen=revealed or bool(party.chosen),
        top_candidates=party.top_candidates if revealed else (),
        backbenchers=backbenchers,
        backbencher_count=count,
        votes=_stack(cards, party.votes, full),
        donations=_stack(cards, party.donations, full),
        campaign_points=party.campaign_points,
        chosen_top_candidates=party.chosen if own and not revealed else (),
        played=played,
    )
    return view


_PARTY_VIEWS: dict[tuple[object, ...], PartyView] = {}
"""Party views by every fact they are made from: the party's number, whether the viewer is that
party, the phase, the options that name parties and cards (players, the custom vote card) and the
whole party (its hand, choice and stacks included). A step changes one party, so the others'
views are found again, in the next step of the same game too (read back as new objects)."""

VIEWS_KEPT = 1 << 13
"""Entries ``_PARTY_VIEWS`` keeps (the parties of a few thousand games in play); when full, all are
let go at once."""


def _party_view(state: StimmviehState, index: int, own: bool) -> PartyView:
    party = state.parties[index]
    options = state.options
    # The party itself (a frozen dataclass, equal by its fields): a field added to it later is
    # part of the key without a word here.
    key = (index, own, state.phase, options.players, options.custom_slogan, options.custom_replaces, party)
    try:
        found = _PARTY_VIEWS.get(key)
    except TypeError:  # a party made by hand with lists: made, not kept
        return _party(state, index, own, deck_of(options))
    if found is None:
        found = _party(state, index, own, deck_of(options))
        if len(_PARTY_VIEWS) >= VIEWS_KEPT:
            _PARTY_VIEWS.clear()
        _PARTY_VIEWS[key] = found
    return found


_LAST: tuple[object, dict[str, object], tuple[PartyView, ...]] = (None, {}, ())
"""The state last viewed, the fields of its view every viewer shares and its parties as others
see them: a step's views (one per watching seat and one for spectators) are made one after the
other. The entry holds its state, which is frozen."""


def view(state: StimmviehState, seat: Seat | None) -> TableView:
    """The table as ``seat`` (None: a spectator) may see it."""
    global _LAST
    last = _LAST
    if last[0] is state:
        shared, others = last[1], last[2]
    else:
        options = state.options
        cards = deck_of(options)
        vote_stack, donation_stack = state.vote_stack, state.donation_stack
        shared = {
            "campaign": state.campaign,
            "campaigns": options.campaigns,
            "round": state.round,
            "phase": state.phase,
            "parties": (),  # each viewer's own, set below (here for the fields' order)
            "display": tuple([cards[c] for c in state.display]),
            "vote_stack_top": cards[vote_stack[0]] if vote_stack else None,
            "vote_stack_count": len(vote_stack),
            "donation_stack_top": cards[donation_stack[0]] if donation_stack else None,
            "donation_stack_count": len(donation_stack),
            "current_party": state.current_party,
            "angelus_holder": state.angelus_holder,
            "start_party": state.start_party,
            "moderator_seat": options.moderator_seat if options.moderator else None,
            "top_candidate_discards": state.top_candidate_discards,
            "backbencher_discards": state.backbencher_discards,
            "campaign_results": state.campaign_results,
        }
        others = tuple([_party_view(state, i, False) for i in range(len(state.parties))])
        _LAST = (state, shared, others)
    parties = others
    if seat is not None and 0 <= seat < len(others) and not state.is_angelus(seat):
        mine = list(others)
        mine[seat] = _party_view(state, seat, True)
        parties = tuple(mine)
    # Made as its constructor makes it (given every field), without the frozen ``__init__``'s
    # per-field ``object.__setattr__``: a view is made for every watcher of every step.
    table = object.__new__(TableView)
    values = table.__dict__
    values.update(shared)
    values["parties"] = parties
    return table


def secret_twin(state: StimmviehState, seat: Seat, rng: Rng) -> StimmviehState:
    """A state that differs from ``state`` only in what ``seat`` alone knows and what nobody
    knows: its unrevealed choice, its collected cards below the top, Angelus' face-down stack and
    collected cards below the top, and the order of both stacks below their visible tops.
    Every other seat's view of the twin must equal its view of ``state`` (the leak test)."""
    parties = list(state.parties)
    owners = [] if state.phase == FINISHED else [seat]
    if state.options.with_angelus and state.phase != FINISHED:
        owners.append(ANGELUS_PARTY)
    if state.phase == CHOOSING:
        for owner in owners:
            if parties[owner].chosen:
                politicians = list(POLITICIANS)
                rng.shuffle(politicians)
                parties[owner] = replace(parties[owner], chosen=tuple(sorted(politicians[:TOP_CANDIDATE_COUNT])))
    vote_stack = _reshuffle_hidden(state.vote_stack, [parties[o].votes for o in owners], rng)
    donation_stack = _reshuffle_hidden(state.donation_stack, [parties[o].donations for o in owners], rng)
    for owner, votes, donations in zip(owners, vote_stack[1:], donation_stack[1:]):
        parties[owner] = replace(parties[owner], votes=votes, donations=donations)
    return replace(state, parties=tuple(parties), vote_stack=vote_stack[0], donation_stack=donation_stack[0])


def _reshuffle_hidden(stack: tuple[str, ...], collected: list[tuple[str, ...]], rng: Rng) -> list[tuple[str, ...]]:
    """Mix the hidden cards of a stack (below its top) and of collected stacks (below their tops)
    and deal them back in the same counts: the stack first, then each collected stack."""
    parts = [stack[1:]] + [cards[:-1] for cards in collected]
    pool = [card for part in parts for card in part]
    rng.shuffle(pool)
    dealt: list[tuple[str, ...]] = []
    for part in parts:
        dealt.append(tuple(pool[: len(part)]))
        pool = pool[len(part) :]
    tops = [stack[:1]] + [cards[-1:] for cards in collected]
    return [tops[0] + dealt[0]] + [below + top for below, top in zip(dealt[1:], tops[1:])]
