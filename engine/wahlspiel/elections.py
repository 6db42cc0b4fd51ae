"""Who is elected: counting an election round, run-offs on tied decisive places, the outcome.

A tie on the decisive place (the last seat) goes to a run-off among every candidate with that
many votes: each of their parties may send one more voter; if that does not decide, voter cards
are turned up from the top of the voter stack until it does (lots only if the stack cannot).
"""

from __future__ import annotations

from typing import Sequence

from hustings.engine.base import Event, Outcome, Placing
from hustings.engine.rng import Rng
from hustings.engine.wahlspiel.content import CONTENT
from hustings.engine.wahlspiel.founding import party_names
from hustings.engine.wahlspiel.model import (
    RUNOFF,
    RUNOFF_CARD_LIMIT,
    Candidate,
    ElectionHeld,
    Runoff,
    RunoffCardTurned,
    RunoffLots,
    RunoffOpened,
    RunoffVotersRevealed,
    WahlspielState,
)
from hustings.engine.wahlspiel.table import POLITICIANS, VOTERS, change_money, draw_voter_stack_top, in_race, replace


def ranking(candidates: Sequence[Candidate]) -> list[Candidate]:
    """Candidates by votes, most first; equal votes keep table order."""
    return sorted(candidates, key=lambda c: -c.votes)


def split_at_cut(scores: dict[str, int], order: Sequence[str], seats: int) -> tuple[list[str], list[str], int]:
    """(surely elected, tied at the decisive place, seats left for the tied) for ``seats`` seats.

    No tie: everyone elected is in the first list and the second is empty."""
    ranked = sorted(order, key=lambda p: -scores[p])
    if len(ranked) <= seats:
        return ranked, [], 0
    cut = scores[ranked[seats - 1]]
    if scores[ranked[seats]] != cut:
        return ranked[:seats], [], 0
    sure = [p for p in ranked if scores[p] > cut]
    return sure, [p for p in ranked if scores[p] == cut], seats - len(sure)


def voter_backs(card: str, politician: str) -> bool:
    """True if voter ``card`` gives ``politician`` a vote in a run-off (matters of opinion do not:
    a run-off allows no ballot)."""
    voter = VOTERS[card]
    return not voter.opinion and voter.condition.matches(POLITICIANS[politician])


def open_election(state: WahlspielState, rng: Rng, events: list[Event]) -> tuple[WahlspielState, bool]:
    """Count the round. Returns the state and True when the seats are filled, or the state waiting
    for the run-off parties (step RUNOFF) and False."""
    seats = CONTENT.elections[state.round - 1].seats
    racing = ranking(in_race(state))
    scores = {c.politician: c.votes for c in racing}
    sure, tied, left = split_at_cut(scores, [c.politician for c in racing], seats)
    if not tied:
        return complete(state, sure, events), True
    owners = {c.party for c in racing if c.politician in tied}
    # Every run-off party with voter cards in hand is asked, whatever the cards: asking only those
    # holding a usable voter would tell the table something about a secret hand.
    parties = tuple(p for p in sorted(owners) if state.parties[p].voters)
    events.append(Event(RunoffOpened(tuple(tied), left, parties)))
    state = replace(state, runoff=Runoff(tuple(tied), left, tuple(sure), parties), step=RUNOFF)
    if not parties:
        return settle_runoff(state, rng, events), True
    return state, False


def settle_runoff(state: WahlspielState, rng: Rng, events: list[Event]) -> WahlspielState:
    """Count the extra voters, then turn up voter-stack cards until the tie is broken; fill the seats."""
    runoff = state.runoff
    assert runoff is not None
    scores = dict.fromkeys(runoff.politicians, 0)
    sent = [s for s in runoff.sent if s.card]
    for entry in sent:
        for p in runoff.politicians:
            scores[p] += voter_backs(entry.card, p)
    if runoff.sent:
        backed = tuple(p for p in runoff.politicians if scores[p])
        events.append(Event(RunoffVotersRevealed(runoff.sent, backed), reveals=True))
    state = replace(state, ballot_box=state.ballot_box + tuple(s.card for s in sent))
    elected = list(runoff.elected)
    sure, tied, left = split_at_cut(scores, runoff.politicians, runoff.seats)
    elected += sure
    turned = 0
    while tied:
        card, state = draw_voter_stack_top(state, rng) if turned < RUNOFF_CARD_LIMIT else (None, state)
        if card is None:
            pool = sorted(tied)
            rng.shuffle(pool)
            events.append(Event(RunoffLots(tuple(pool[:left]))))
            elected += pool[:left]
            break
        turned += 1
        backed = tuple(p for p in tied if voter_backs(card, p))
        events.append(Event(RunoffCardTurned(card, backed)))
        for p in backed:
            scores[p] += 1
        sure, tied, left = split_at_cut(scores, tied, left)
        elected += sure
    return complete(replace(state, runoff=None), elected, events)


def complete(state: WahlspielState, elected: Sequence[str], events: list[Event]) -> WahlspielState:
    """Fill the seats with ``elected`` (best first) and pay each seat's party."""
    election = CONTENT.elections[state.round - 1]
    events.append(Event(ElectionHeld(state.round, tuple(elected), election.pay)))
    for politician in elected:
        candidate = state.candidate(politician)
        assert candidate is not None
        state = change_money(state, candidate.party, election.pay, "ELECTED", events)
    if state.round == 1:
        return replace(state, cantonal=tuple(elected))
    if state.round == 2:
        return replace(state, national=tuple(elected))
    return replace(state, federal=elected[0] if elected else "")


def outcome_of(state: WahlspielState) -> Outcome:
    """The party that provides the Federal Councillor wins. The others (designed) rank by their
    best candidate's votes in the Federal Council election, then national seats, cantonal seats
    and money; parties equal in all of these share a rank."""
    players = state.options.players
    owner = {p: i for i, party in enumerate(state.parties) for p in party.politicians}
    winner = owner[state.federal] if state.federal else -1
    best = [max((c.votes for c in state.candidates if c.party == i), default=0) for i in range(players)]
    national = [sum(owner[p] == i for p in state.national) for i in range(players)]
    cantonal = [sum(owner[p] == i for p in state.cantonal) for i in range(players)]
    keys = {i: (i == winner, best[i], national[i], cantonal[i], state.parties[i].money) for i in range(players)}
    order = sorted(range(players), key=lambda i: keys[i], reverse=True)
    names = party_names(state)
    placings = []
    for i in order:
        rank = 1 + sum(1 for j in range(players) if keys[j] > keys[i])
        # Every release's `hustings verify` compares these words with its own replay's: they stay.
        detail = (
            (f"Federal Councillor {POLITICIANS[state.federal].name}; " if i == winner else "")
            + f"{national[i]} national, {cantonal[i]} cantonal seats, {state.parties[i].money} francs"
        )
        ranked_by = tuple(zip(("federal_councillor", "best_candidate_votes", "national_seats", "cantonal_seats", "money"), map(int, keys[i])))
        placings.append(Placing(rank=rank, seat=i, name=names[i], score=best[i], detail=detail, ranked_by=ranked_by))
    return Outcome(tuple(placings))
