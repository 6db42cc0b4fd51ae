"""The flow of play: nominating, rolling and moving, landing on fields, arriving at goals, and
moving on to the next election round.

A party's die is rolled as soon as its turn begins (there is nothing to decide before a roll);
the state then waits at the field the piece landed on. Fields with nothing to decide (a prize, a
purchase the party cannot afford, voting without voter cards) resolve at once and the turn passes.
"""

from __future__ import annotations


from hustings.engine.base import Event
from hustings.engine.rng import Rng
from hustings.engine.wahlspiel import elections
from hustings.engine.wahlspiel.content import (
    BUNDESRAT,
    CANDIDATE_CHANGE,
    COALITION,
    CONTENT,
    EVENT_PURCHASE,
    GOALS,
    PRIZE,
    SENSATION,
    VOTER_PURCHASE,
    VOTING,
)
from hustings.engine.wahlspiel.model import (
    BUYING_EVENTS,
    BUYING_VOTERS,
    CHANGING_CANDIDATE,
    CHOOSING_PARTNER,
    DIE_SIDES,
    FINISHED,
    GOAL_BONUS_VOTES,
    GOAL_VOTES,
    NOMINATING,
    ROUNDS,
    SENSATION as SENSATION_STEP,
    VOTING as VOTING_STEP,
    Candidate,
    Coalition,
    DieRolled,
    GoalReached,
    WahlspielState,
)
from hustings.engine.wahlspiel.table import (
    available,
    deliverable_events,
    deliverable_voters,
    draw_cards,
    in_race,
    nominees,
    replace,
    turn_order,
    with_party,
)

# Cantonal candidates per party by player count: three players field three (printed); two
# players field four (designed: with two each, 4 candidates for 5 seats would all be elected).
CANTONAL_CANDIDATES = {2: 4, 3: 3}

_FIELD_STEPS = {
    VOTER_PURCHASE: BUYING_VOTERS,
    EVENT_PURCHASE: BUYING_EVENTS,
    VOTING: VOTING_STEP,
    SENSATION: SENSATION_STEP,
    CANDIDATE_CHANGE: CHANGING_CANDIDATE,
    COALITION: CHOOSING_PARTNER,
}


def candidates_required(state: WahlspielState) -> int:
    """Candidates each party names this round: 2 (3 with three players in the cantonal round, as
    printed; 4 with two players, designed so that 8 candidates contest the 5 cantonal seats as in a
    four-player game; 1 in the national round with the 5-6 player variant; 1 for the Federal
    Council)."""
    if state.round == 1:
        return CANTONAL_CANDIDATES.get(state.options.players, 2)
    if state.round == 2:
        return 1 if state.options.single_national_candidate else 2
    return 1


def nominations_owed(state: WahlspielState, party: int) -> int:
    """How many more candidates ``party`` must name now (fewer if it has run out of politicians)."""
    if state.step != NOMINATING:
        return 0
    missing = candidates_required(state) - len(nominees(state, party))
    return max(0, min(missing, len(available(state, party))))


def next_nominator(state: WahlspielState) -> int | None:
    """The first party in turn order that still owes a nomination."""
    for party in turn_order(state.start_party, state.options.players):
        if nominations_owed(state, party):
            return party
    return None


def after_nomination(state: WahlspielState, rng: Rng, events: list[Event]) -> WahlspielState:
    """The next party names its candidates, or the start party rolls once all have."""
    party = next_nominator(state)
    if party is not None:
        return replace(state, current=party)
    return begin_turn(state, state.start_party, rng, events)


def begin_round(state: WahlspielState, number: int, start_party: int, rng: Rng, events: list[Event]) -> WahlspielState:
    """A new election round: fresh candidates (the national councillors stand ex officio for the
    Federal Council), pieces in play, nominations from the start party on."""
    owner = {p: i for i, party in enumerate(state.parties) for p in party.politicians}
    candidates: tuple[Candidate, ...] = ()
    if number == ROUNDS:
        candidates = tuple(
            Candidate(p, owner[p], councillor=True) for p in state.national if p not in state.retired
        )
    parties = tuple(replace(p, arrived=False) for p in state.parties)
    state = replace(
        state, round=number, step=NOMINATING, start_party=start_party, current=start_party, parties=parties,
        candidates=candidates, first_arrived=-1, goal_votes=0, coalition=None, ballot=None, runoff=None,
    )
    return after_nomination(state, rng, events)


def next_round(state: WahlspielState, rng: Rng, events: list[Event]) -> WahlspielState:
    """After an election: the next round, begun by the party that arrived first, or the end."""
    if state.round == ROUNDS:
        return replace(state, step=FINISHED, current=-1, coalition=None, ballot=None, runoff=None)
    return begin_round(state, state.round + 1, max(state.first_arrived, 0), rng, events)


def purchasable(state: WahlspielState, party: int, step: str) -> int:
    """The most cards ``party`` may buy on its purchase field: "as many as it likes" of what it can
    pay for, and no more than the stack (with its discards shuffled in) can deliver, so nobody
    pays for a card that is not there."""
    money = state.parties[party].money
    if step == BUYING_VOTERS:
        return min(money // CONTENT.voter_price, deliverable_voters(state))
    return min(money // CONTENT.event_price, deliverable_events(state))


def has_decision(state: WahlspielState, party: int, step: str) -> bool:
    """True if ``party`` has more than "no, thanks" to choose from at ``step`` (public facts only:
    money, hand sizes, the sizes of the stacks, candidates)."""
    own = state.parties[party]
    if step in (BUYING_VOTERS, BUYING_EVENTS):
        return purchasable(state, party, step) > 0
    if step == VOTING_STEP:
        return bool(own.voters)
    if step == SENSATION_STEP:
        return bool(own.events)
    if step == CHANGING_CANDIDATE:
        return bool(nominees(state, party)) and bool(available(state, party))
    return step == CHOOSING_PARTNER


def _landing(party: int, round_number: int, origin: int, pips: int) -> tuple[int, Event]:
    """Where ``party``'s piece lands from ``origin`` with ``pips`` in round ``round_number``,
    and the event that says so."""
    goal = CONTENT.goal_positions[round_number - 1]
    position, bounced = origin + pips, False
    if position > goal:
        if CONTENT.board[goal].kind == BUNDESRAT:
            # BUNDESRAT only by the exact count: surplus pips move the piece back.
            position, bounced = goal - (position - goal), True
        else:
            position = goal
    return position, Event(DieRolled(party, pips, origin, position, CONTENT.board[position].kind, bounced))


_LANDINGS: dict[tuple[int, int, int, int], tuple[int, Event]] = {}
"""Every landing made so far, by (party, round, origin, pips): a roll's event is made once and
shared (a few thousand at most: six parties, three rounds, the board's fields, six pips)."""


def _roll(state: WahlspielState, party: int, rng: Rng, events: list[Event]) -> WahlspielState:
    pips = rng.below(DIE_SIDES) + 1
    parties = list(state.parties)
    mover = parties[party]
    key = (party, state.round, mover.position, pips)
    landing = _LANDINGS.get(key)
    if landing is None:
        landing = _LANDINGS[key] = _landing(*key)
    position, event = landing
    events.append(event)
    parties[party] = replace(mover, position=position)
    return replace(state, parties=tuple(parties), current=party, last_roll=pips)


def begin_turn(state: WahlspielState, party: int, rng: Rng, events: list[Event]) -> WahlspielState:
    """Roll for ``party`` and resolve its field; pass the turn on while nobody has to decide."""
    while True:
        state = _roll(state, party, rng, events)
        position = state.parties[party].position
        field = CONTENT.board[position]
        if field.kind in GOALS:
            first = state.first_arrived < 0
            events.append(Event(GoalReached(party, field.kind, first)))
            state = with_party(state, party, arrived=True)
            if first:
                state = replace(state, first_arrived=party)
                if any(c.party == party for c in in_race(state)):
                    return replace(state, step=GOAL_VOTES, goal_votes=GOAL_BONUS_VOTES)
        elif field.kind == PRIZE:
            state = draw_cards(state, party, field.prize_voters, field.prize_events, "PRIZE", 0, rng, events)
        else:
            step = _FIELD_STEPS[field.kind]
            if has_decision(state, party, step):
                coalition = Coalition() if step == CHOOSING_PARTNER else None
                return replace(state, step=step, coalition=coalition)
        following = next_mover(state, party)
        if following is None:
            return election(state, rng, events)
        party = following


def next_mover(state: WahlspielState, party: int) -> int | None:
    """The next party in seat order after ``party`` whose piece is still on the way, or None."""
    players = state.options.players
    for k in range(1, players + 1):
        candidate = (party + k) % players
        if not state.parties[candidate].arrived:
            return candidate
    return None


def _between_turns(state: WahlspielState) -> WahlspielState:
    """``state`` with no coalition, ballot or goal votes pending (the same state if none is)."""
    if state.coalition is None and state.ballot is None and state.goal_votes == 0:
        return state
    return replace(state, coalition=None, ballot=None, goal_votes=0)


def end_turn(state: WahlspielState, rng: Rng, events: list[Event]) -> WahlspielState:
    """The current party's turn is over: the next party rolls, or the election is held."""
    state = _between_turns(state)
    following = next_mover(state, state.current)
    if following is None:
        return election(state, rng, events)
    return begin_turn(state, following, rng, events)


def election(state: WahlspielState, rng: Rng, events: list[Event]) -> WahlspielState:
    """Every party has arrived: count, and move on unless a run-off waits for decisions."""
    state = _between_turns(state)
    state, done = elections.open_election(state, rng, events)
    return next_round(state, rng, events) if done else state
