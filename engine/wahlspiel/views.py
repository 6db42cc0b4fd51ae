"""What one seat (or a spectator) may see of a Wahlspiel table: the one place secrets are stripped.

Everybody sees what the table shows: the board and the pieces, money, every party's politicians
(dealt face up), candidates and their vote stones, the ballot box and the played events (face up),
elected councillors, how many voter and event cards each party holds, the ballot, the coalition
partners and the kinds of what they offer each other. A seat also sees its own hands, its own
verdicts in an open ballot (the others' only once the last is given: a show of hands), and the two
partners see each other's offered cards. Deck order never leaves the engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from hustings.engine.base import Seat
from hustings.engine.rng import Rng
from hustings.engine.wahlspiel.content import CONTENT, Field, Politician
from hustings.engine.wahlspiel.model import (
    FINISHED,
    Ballot,
    Candidate,
    Offer,
    Party,
    WahlspielState,
)
from hustings.engine.wahlspiel.founding import party_colours, party_names
from hustings.engine.wahlspiel.rules import to_act
from hustings.engine.wahlspiel.table import POLITICIANS, card_kind, replace


@dataclass(frozen=True)
class PartyView:
    """A party as seen by the viewer; ``voters``/``events`` are empty unless it is the viewer's."""

    party: int
    name: str
    colour: str
    position: int
    money: int
    arrived: bool
    politicians: tuple[str, ...]
    voter_count: int
    event_count: int
    trades: int
    voters: tuple[str, ...] = ()
    events: tuple[str, ...] = ()


@dataclass(frozen=True)
class OfferView:
    """A drafted or pending offer; ``give_cards`` only for the two partners (others see counts)."""

    give_voters: int
    give_events: int
    give_cards: tuple[str, ...]
    give_money: int
    ask_voters: int
    ask_events: int
    ask_money: int
    give_kinds: tuple[str, ...] = ()  # the kind of each card given, in the order put in (their backs)


@dataclass(frozen=True)
class CoalitionView:
    """The coalition of the current party: who proposes, the draft, the pending offer and the
    cards handed over for it (the cards only for the two partners)."""

    party: int
    partner: int
    offers: int
    proposer: int
    draft: OfferView
    pending: OfferView | None
    handed_count: int
    handed: tuple[str, ...]
    handed_kinds: tuple[str, ...] = ()  # the kind of each card handed over, in order (their backs)


@dataclass(frozen=True)
class RunoffView:
    """A run-off waiting for extra voters; ``sent_card`` only the viewer's own."""

    politicians: tuple[str, ...]
    seats: int
    elected: tuple[str, ...]
    parties: tuple[int, ...]
    decided: tuple[int, ...]
    sent_card: str
    voter_sent: tuple[int, ...] = ()  # the decided parties that sent a voter, face down
    closing_party: int = -1  # the party whose piece reached the goal last (the round's last mover)


@dataclass(frozen=True)
class TableView:
    """The whole table as seen by the viewer."""

    round: int
    step: str
    current: int
    start_party: int
    first_arrived: int
    last_roll: int
    goal_votes: int
    board: tuple[Field, ...]
    parties: tuple[PartyView, ...]
    dealt: tuple[str, ...]
    politicians: tuple[Politician, ...]
    candidates: tuple[Candidate, ...]
    voter_stack_count: int
    event_stack_count: int
    ballot_box: tuple[str, ...]
    event_discards: tuple[str, ...]
    retired: tuple[str, ...]
    cantonal: tuple[str, ...]
    national: tuple[str, ...]
    federal: str
    ballot: Ballot | None
    coalition: CoalitionView | None
    runoff: RunoffView | None
    viewer: int
    # While a ballot is open: the judge of every verdict given so far, in order (a judge is seen
    # giving one, not which).
    verdict_judges: tuple[int, ...] = ()


def _offer(offer: Offer, full: bool) -> OfferView:
    voters = sum(card_kind(c) == "voter" for c in offer.give_cards)
    return OfferView(
        voters, len(offer.give_cards) - voters, offer.give_cards if full else (), offer.give_money,
        offer.ask_voters, offer.ask_events, offer.ask_money, tuple([card_kind(c) for c in offer.give_cards]),
    )


@lru_cache(maxsize=256)
def _dealt(hands: tuple[tuple[str, ...], ...]) -> tuple[str, ...]:
    return tuple(sorted(p for hand in hands for p in hand))


@lru_cache(maxsize=256)
def _politicians(dealt: tuple[str, ...]) -> tuple[Politician, ...]:
    return tuple(POLITICIANS[p] for p in dealt)


_LABELS: dict[tuple[tuple[str, str], ...], tuple[tuple[str, ...], tuple[str, ...]]] = {}
"""Each table's party names and colours, by the names and colours the parties chose (a game's
choice is made once, as its players join)."""

_PARTY_VIEWS: dict[tuple[object, ...], PartyView] = {}
"""Party views by every fact they show: the party's number, name and colour, whether the viewer
is that party, its piece, money, politicians, trades and hands (the cards for its own viewer, the
counts for the others). A step changes a party or two, so the others' views are found again, in
the next step of the same game too (read back from storage as new objects)."""

VIEWS_KEPT = 4096
"""Entries ``_LABELS`` keeps; when full, all are let go at once (clearing is atomic)."""

PARTY_VIEWS_KEPT = 1 << 13
"""Entries ``_PARTY_VIEWS`` keeps (the parties of a thousand or more games in play); when full,
all are let go at once."""


def _labels(state: WahlspielState) -> tuple[tuple[str, ...], tuple[str, ...]]:
    key = tuple([(p.name, p.colour) for p in state.parties])
    found = _LABELS.get(key)
    if found is None:
        if len(_LABELS) >= VIEWS_KEPT:
            _LABELS.clear()
        found = _LABELS[key] = (party_names(state), party_colours(state))
    return found


def _party_view(i: int, p: Party, own: bool, name: str, colour: str) -> PartyView:
    voters, events = p.voters, p.events
    if own:
        key: tuple[object, ...] = (i, True, name, colour, p.position, p.money, p.arrived, p.politicians, voters, events, p.trades)
    else:
        key = (i, False, name, colour, p.position, p.money, p.arrived, p.politicians, len(voters), len(events), p.trades)
    try:
        found = _PARTY_VIEWS.get(key)
    except TypeError:  # a party made by hand with lists: made, not kept
        found, key = None, None  # type: ignore[assignment]
    if found is not None:
        return found
    # Made as the constructor makes it (given every field), without the frozen ``__init__``'s
    # per-field ``object.__setattr__``.
    party_view = object.__new__(PartyView)
    party_view.__dict__.update(
        party=i,
        name=name,
        colour=colour,
        position=p.position,
        money=p.money,
        arrived=p.arrived,
        politicians=p.politicians,
        voter_count=len(voters),
        event_count=len(events),
        trades=p.trades,
        voters=voters if own else (),
        events=events if own else (),
    )
    if key is not None:
        if len(_PARTY_VIEWS) >= PARTY_VIEWS_KEPT:
            _PARTY_VIEWS.clear()
        _PARTY_VIEWS[key] = party_view
    return party_view


def _table_view(values: dict[str, object]) -> TableView:
    """A TableView as its constructor makes it (given every field), without the frozen
    ``__init__``'s per-field ``object.__setattr__``: a view is built for every watcher of every
    step. (tests/test_wahlspiel_step_bytes.py checks it against the constructor.)"""
    table = object.__new__(TableView)
    table.__dict__.update(values)
    return table


_LAST: tuple[object, dict[str, object], tuple[PartyView, ...], tuple[str, ...], tuple[str, ...]] = (None, {}, (), (), ())
"""The state last viewed, the fields of its view every viewer shares, its parties as others see
them, and its parties' names and colours: a step's views (one per watching seat and one for
spectators) are made one after the other. The entry holds its state, which is frozen."""


def view(state: WahlspielState, seat: Seat | None) -> TableView:
    """The table as ``seat`` (None: a spectator) may see it."""
    global _LAST
    last = _LAST
    if last[0] is state:
        shared, others, names, colours = last[1], last[2], last[3], last[4]
    else:
        names, colours = _labels(state)
        others = tuple([_party_view(i, p, False, names[i], colours[i]) for i, p in enumerate(state.parties)])
        dealt = _dealt(tuple([p.politicians for p in state.parties]))
        shared = {
            "round": state.round,
            "step": state.step,
            "current": state.current,
            "start_party": state.start_party,
            "first_arrived": state.first_arrived,
            "last_roll": state.last_roll,
            "goal_votes": state.goal_votes,
            "board": CONTENT.board,
            "parties": others,
            "dealt": dealt,
            "politicians": _politicians(dealt),
            "candidates": state.candidates,
            "voter_stack_count": len(state.voter_stack),
            "event_stack_count": len(state.event_stack),
            "ballot_box": state.ballot_box,
            "event_discards": state.event_discards,
            "retired": state.retired,
            "cantonal": state.cantonal,
            "national": state.national,
            "federal": state.federal,
            "ballot": None,
            "coalition": None,
            "runoff": None,
            "viewer": -1,
            "verdict_judges": (),
        }
        _LAST = (state, shared, others, names, colours)
    values = dict(shared)
    if seat is not None:
        values["viewer"] = seat
        if 0 <= seat < len(others):
            mine = list(others)
            mine[seat] = _party_view(seat, state.parties[seat], True, names[seat], colours[seat])
            values["parties"] = tuple(mine)
    if state.coalition is not None and state.coalition.partner >= 0:
        c = state.coalition
        partners = seat is not None and seat in (state.current, c.partner)
        values["coalition"] = CoalitionView(
            state.current, c.partner, c.offers, state.current if c.proposer < 0 else c.proposer,
            _offer(c.draft, partners), _offer(c.pending, partners) if c.pending else None,
            len(c.handed), c.handed if partners else (), tuple([card_kind(card) for card in c.handed]),
        )
    if state.runoff is not None:
        r = state.runoff
        own = next((s.card for s in r.sent if s.party == seat), "")
        values["runoff"] = RunoffView(
            r.politicians, r.seats, r.elected, r.parties, tuple(s.party for s in r.sent), own,
            tuple(s.party for s in r.sent if s.card), state.current,
        )
    ballot = state.revealed_ballot  # every hand, once shown
    if state.ballot is not None:  # open: nobody sees another's hand before showing their own
        ballot = state.ballot
        values["verdict_judges"] = tuple([v.judge for v in ballot.verdicts])
        if any(v.judge != seat for v in ballot.verdicts):
            ballot = replace(ballot, verdicts=tuple([v for v in ballot.verdicts if v.judge == seat]))
    values["ballot"] = ballot
    return _table_view(values)


def secret_twin(state: WahlspielState, seat: Seat, rng: Rng) -> WahlspielState:
    """A state that differs from ``state`` only in what ``seat`` alone knows and what nobody knows:
    the seat's hands (same sizes, other cards), its verdicts in an open ballot (other ones) and the
    order of both stacks. A seat that owes a decision keeps its hands, since its listed moves name
    its cards; cards it has put in a coalition offer or handed over are known to the other side
    and stay."""
    if state.step == FINISHED:
        return state
    party = state.parties[seat]
    keep_hand = seat in to_act(state)
    shown: set[str] = set()
    coalition = state.coalition
    if coalition is not None and coalition.partner >= 0 and seat in (state.current, coalition.partner):
        proposer = state.current if coalition.proposer < 0 else coalition.proposer
        if proposer == seat:
            shown.update(coalition.draft.give_cards)
            shown.update(coalition.pending.give_cards if coalition.pending else ())
        else:
            shown.update(coalition.handed)
    hands = {}
    stacks = {}
    for hand_name, stack_name in (("voters", "voter_stack"), ("events", "event_stack")):
        hand: tuple[str, ...] = getattr(party, hand_name)
        stack: tuple[str, ...] = getattr(state, stack_name)
        movable = [] if keep_hand else [c for c in hand if c not in shown]
        pool = movable + list(stack)
        # Swap each movable card with a random card of the pool, then cut the rest: a different
        # hand and a different deck order at the price of a few draws.
        for i in range(len(movable)):
            j = rng.below(len(pool))
            pool[i], pool[j] = pool[j], pool[i]
        rest = pool[len(movable) :]
        cut = rng.below(len(rest)) if rest else 0
        fixed = tuple(c for c in hand if c not in movable)
        hands[hand_name] = tuple(sorted(fixed + tuple(pool[: len(movable)])))
        stacks[stack_name] = tuple(rest[cut:] + rest[:cut])
    parties = list(state.parties)
    parties[seat] = replace(party, **hands)
    ballot = state.ballot
    if ballot is not None and any(v.judge == seat for v in ballot.verdicts):
        verdicts = tuple([replace(v, verdict=rng.below(2) == 1) if v.judge == seat else v for v in ballot.verdicts])
        ballot = replace(ballot, verdicts=verdicts)
    return replace(state, parties=tuple(parties), ballot=ballot, **stacks)
