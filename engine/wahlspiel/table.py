"""Small pure helpers on a ``WahlspielState``: the table's bookkeeping shared by the rules.

Each returns a new state; event lists passed in are appended to, and nothing else is mutated.
"""

from __future__ import annotations

from typing import Any

from hustings.engine.base import Event, evolve
from hustings.engine.rng import Rng
from hustings.engine.wahlspiel.content import CONTENT, Condition, Politician
from hustings.engine.wahlspiel.model import (
    GNOMES_VOTES,
    Candidate,
    CandidateRetired,
    CardsDrawn,
    MoneyChanged,
    Party,
    VotesChanged,
    WahlspielState,
)

POLITICIANS = CONTENT.politicians
VOTERS = CONTENT.voters
EVENTS = CONTENT.events


replace = evolve
"""A copy of a frozen dataclass with changes: ``dataclasses.replace`` without re-running
``__init__`` (``hustings.engine.base.evolve``), which the rules do thousands of times per game."""


def politician(politician_id: str) -> Politician:
    """The politician card of ``politician_id``."""
    return POLITICIANS[politician_id]


def with_party(state: WahlspielState, index: int, **changes: Any) -> WahlspielState:
    """``state`` with party ``index`` changed."""
    parties = list(state.parties)
    parties[index] = replace(parties[index], **changes)
    return replace(state, parties=tuple(parties))


def with_candidate(state: WahlspielState, politician_id: str, **changes: Any) -> WahlspielState:
    """``state`` with the candidate of ``politician_id`` changed."""
    return replace(
        state,
        candidates=tuple(replace(c, **changes) if c.politician == politician_id else c for c in state.candidates),
    )


_MATCHING: dict[int, tuple[Condition, frozenset[str]]] = {}
"""The politicians each card's condition matches, by the condition's identity (the content's
conditions live as long as the process; each entry holds its condition). Voting, events and the
legal event plays ask it on most steps, and ``Condition.matches`` runs Python for every candidate."""


def _matching(condition: Condition) -> frozenset[str]:
    found = _MATCHING.get(id(condition))
    if found is None or found[0] is not condition:
        if len(_MATCHING) >= 4096:
            _MATCHING.clear()
        found = _MATCHING[id(condition)] = (
            condition, frozenset(p for p, politician in POLITICIANS.items() if condition.matches(politician))
        )
    return found[1]


def in_race(state: WahlspielState, condition: Condition | None = None) -> list[Candidate]:
    """The candidates in the race (matching ``condition`` if given), in table order."""
    if condition is None:
        return [c for c in state.candidates if c.in_race]
    matching = _matching(condition)
    return [c for c in state.candidates if c.in_race and c.politician in matching]


def nominees(state: WahlspielState, party: int) -> list[Candidate]:
    """The candidates ``party`` named this round (in the race or not), not the ex-officio ones."""
    return [c for c in state.candidates if c.party == party and not c.councillor]


def available(state: WahlspielState, party: int) -> list[str]:
    """Politicians ``party`` may still field: not retired, not standing, not a national councillor
    (who stands ex officio in the Federal Council election)."""
    standing = {c.politician for c in state.candidates}
    barred = standing | set(state.retired) | (set(state.national) if state.round == 3 else set())
    return [p for p in state.parties[party].politicians if p not in barred]


def change_money(state: WahlspielState, party: int, delta: int, reason: str, events: list[Event]) -> WahlspielState:
    """Add ``delta`` francs to ``party``; a loss takes at most what the party has."""
    money = state.parties[party].money
    new = max(0, money + delta)
    if new == money:
        return state
    events.append(Event(MoneyChanged(party, new - money, new, reason)))
    return with_party(state, party, money=new)


_VOTES_CHANGED: dict[tuple[str, int, int, str], Event] = {}
VOTE_EVENTS_KEPT = 4096
"""Votes won or lost recur (the same politician, delta, count and reason in game after game,
most of a game's events): each such event is made once and shared (events are frozen). When
this many are kept, all are let go at once."""


def change_votes(state: WahlspielState, politician_id: str, delta: int, reason: str, events: list[Event]) -> WahlspielState:
    """Add ``delta`` votes to a candidate (never below 0); with the Gnomes rule a candidate who
    reaches 17 votes leaves the race."""
    candidate = state.candidate(politician_id)
    if candidate is None or not candidate.in_race:
        return state
    votes = max(0, candidate.votes + delta)
    if votes == candidate.votes:
        return state
    key = (politician_id, votes - candidate.votes, votes, reason)
    event = _VOTES_CHANGED.get(key)
    if event is None:
        if len(_VOTES_CHANGED) >= VOTE_EVENTS_KEPT:
            _VOTES_CHANGED.clear()
        event = _VOTES_CHANGED[key] = Event(VotesChanged(*key))
    events.append(event)
    state = with_candidate(state, politician_id, votes=votes)
    if state.options.gnomes and votes >= GNOMES_VOTES:
        state = retire(state, politician_id, "GNOMES", events)
    return state


def retire(state: WahlspielState, politician_id: str, reason: str, events: list[Event]) -> WahlspielState:
    """A candidate leaves the race and the game for good."""
    events.append(Event(CandidateRetired(politician_id, reason)))
    state = with_candidate(state, politician_id, in_race=False)
    return replace(state, retired=state.retired + (politician_id,))


def _draw(stack: tuple[str, ...], discards: tuple[str, ...], count: int, rng: Rng) -> tuple[list[str], tuple[str, ...], tuple[str, ...]]:
    """Up to ``count`` cards from the top of ``stack``; an empty stack is refilled by shuffling
    the discards (designed: the rulebook never lets a stack run out)."""
    drawn: list[str] = []
    while len(drawn) < count:
        if not stack:
            if not discards:
                break
            pile = sorted(discards)
            rng.shuffle(pile)
            stack, discards = tuple(pile), ()
        drawn.append(stack[0])
        stack = stack[1:]
    return drawn, stack, discards


def deliverable_voters(state: WahlspielState) -> int:
    """Voter cards that can still be drawn: the stack, and the ballot box shuffled into it."""
    return len(state.voter_stack) + len(state.ballot_box)


def deliverable_events(state: WahlspielState) -> int:
    """Event cards that can still be drawn: the stack, and the played events shuffled into it."""
    return len(state.event_stack) + len(state.event_discards)


def draw_cards(
    state: WahlspielState, party: int, voters: int, events_count: int, reason: str, price: int, rng: Rng, events: list[Event]
) -> WahlspielState:
    """``party`` takes cards blind from the stacks: it sees them, the others see how many. It pays
    ``price`` for each card it actually receives, never for a card the stacks could not deliver."""
    new_voters, voter_stack, box = _draw(state.voter_stack, state.ballot_box, voters, rng)
    new_events, event_stack, discards = _draw(state.event_stack, state.event_discards, events_count, rng)
    cost = price * (len(new_voters) + len(new_events))
    owner = state.parties[party]
    state = replace(state, voter_stack=voter_stack, ballot_box=box, event_stack=event_stack, event_discards=discards)
    state = with_party(
        state,
        party,
        voters=tuple(sorted(owner.voters + tuple(new_voters))),
        events=tuple(sorted(owner.events + tuple(new_events))),
        money=owner.money - cost,
    )
    public = CardsDrawn(party, reason, len(new_voters), len(new_events), cost)
    full = replace(public, cards=tuple(new_voters + new_events))
    events.append(Event(full, visible_to=frozenset((party,)), redacted=public))
    return state


def draw_voter_stack_top(state: WahlspielState, rng: Rng) -> tuple[str | None, WahlspielState]:
    """Turn up the top card of the voter stack (into the ballot box), or None if none is left."""
    drawn, stack, box = _draw(state.voter_stack, state.ballot_box, 1, rng)
    if not drawn:
        return None, state
    return drawn[0], replace(state, voter_stack=stack, ballot_box=box + (drawn[0],))


def remove_card(party: Party, card: str) -> Party:
    """``party`` without ``card`` in its hand."""
    return replace(
        party,
        voters=tuple(c for c in party.voters if c != card),
        events=tuple(c for c in party.events if c != card),
    )


def add_card(party: Party, card: str) -> Party:
    """``party`` with ``card`` added to the right hand."""
    if card in VOTERS:
        return replace(party, voters=tuple(sorted(party.voters + (card,))))
    return replace(party, events=tuple(sorted(party.events + (card,))))


def card_kind(card: str) -> str:
    """"voter" or "event"."""
    return "voter" if card in VOTERS else "event"


def turn_order(start: int, players: int) -> list[int]:
    """Seats in turn order beginning with ``start``."""
    return [(start + k) % players for k in range(players)]
