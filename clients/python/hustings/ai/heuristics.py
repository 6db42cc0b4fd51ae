"""Per-game heuristics, side by side: how good a table looks for each seat, as one number each.

A heuristic reads a full state, which for a bot is always a determinization of its own
observation (``hustings.engine.base.sampler``), never the real table. ``standing`` turns the
numbers into the reward the search maximises: 1 for the sole leader, 0 for the last, ties
sharing; once the game is over the outcome's ranks decide instead.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Callable

from hustings.engine import Game
from hustings.engine.spin_doctors.board import locality_votes
from hustings.engine.spin_doctors.content import CONTENT as SPIN_CONTENT
from hustings.engine.spin_doctors.scoring import scores as spin_scores
from hustings.engine.stimmvieh.model import deck_of
from hustings.engine.stimmvieh.scoring import doubling_parties
from hustings.engine.wahlspiel.table import POLITICIANS as WAHLSPIEL_POLITICIANS
from hustings.engine.wahlspiel.table import VOTERS as WAHLSPIEL_VOTERS

Evaluation = Callable[[Any], list[float]]


def stimmvieh(state: Any) -> list[float]:
    """Donations as election night would count them now: doubled for the two parties with the
    most votes; campaign points (several campaigns) outweigh any one campaign's donations."""
    cards = deck_of(state.options)
    votes = [sum(cards[c].amount for c in p.votes) for p in state.parties]
    influence = [sum(cards[c].influence for c in p.votes) for p in state.parties]
    moderator = state.options.moderator_seat if state.options.moderator else None
    doubled = doubling_parties(votes, influence, moderator)
    values = []
    for index, party in enumerate(state.parties):
        donations = sum(cards[c].amount for c in party.donations)
        values.append(1000.0 * party.campaign_points + donations * (2 if index in doubled else 1) + 0.1 * votes[index])
    return values[: state.options.players]


@lru_cache(maxsize=None)
def _backs(card: str, politician: str) -> bool:
    """True if Wahlspiel voter ``card`` matches ``politician`` (a matter of opinion by its
    visible prerequisite): the card would give that candidate a vote."""
    return WAHLSPIEL_VOTERS[card].condition.matches(WAHLSPIEL_POLITICIANS[politician])


# Per election round (cantonal, national, federal): what a voter card in hand is worth, and
# what it is worth more for each of the party's candidates in the race it would back. Early on a
# card kept for the Federal Council counts double; in the last round a card counts by what it
# would do for the party's own candidates, since only the Federal Councillor wins.
_WAHLSPIEL_CARD = (2.0, 2.0, 1.0)
_WAHLSPIEL_MATCH = (0.5, 0.5, 5.0)
_WAHLSPIEL_BEST = (0.0, 0.0, 20.0)


def wahlspiel(state: Any) -> list[float]:
    """The outcome's keys, weighted: the Federal Councillor, seats won, votes of candidates still
    in the race (in the Federal Council round above all the party's best candidate's, as only the
    one elected wins), and what buys votes later: voter cards by whether they would back the
    party's candidates, events and money."""
    owner = {p: i for i, party in enumerate(state.parties) for p in party.politicians}
    stage = max(1, min(3, state.round)) - 1
    racing = [c for c in state.candidates if c.in_race]
    values = []
    for index, party in enumerate(state.parties):
        value = 1000.0 if state.federal and owner.get(state.federal) == index else 0.0
        value += 40.0 * sum(owner.get(p) == index for p in state.national)
        value += 15.0 * sum(owner.get(p) == index for p in state.cantonal)
        mine = [c for c in racing if c.party == index]
        value += 3.0 * sum(c.votes for c in mine) + _WAHLSPIEL_BEST[stage] * max((c.votes for c in mine), default=0)
        if mine:
            value += _WAHLSPIEL_MATCH[stage] * sum(any(_backs(card, c.politician) for c in mine) for card in party.voters)
        value += _WAHLSPIEL_CARD[stage] * len(party.voters) + 0.5 * len(party.events) + party.money / 2000.0
        value += 0.2 * party.position
        values.append(value)
    _count_the_offer(state, values, _WAHLSPIEL_CARD[stage])
    return values


def _count_the_offer(state: Any, values: list[float], voter_worth: float) -> None:
    """Half of what a coalition offer on the table (drafted or put) would move between the two
    sides, were it accepted: without it every item drafted looks alike, and a bot would draft
    its own cards away at random."""
    coalition = state.coalition
    if coalition is None or coalition.partner < 0:
        return
    offer = coalition.pending if coalition.pending is not None else coalition.draft
    proposer = state.current if coalition.proposer < 0 else coalition.proposer
    answerer = coalition.partner if proposer == state.current else state.current
    given = sum(voter_worth if card in WAHLSPIEL_VOTERS else 0.5 for card in offer.give_cards) + offer.give_money / 2000.0
    asked = voter_worth * offer.ask_voters + 0.5 * offer.ask_events + offer.ask_money / 2000.0
    values[proposer] += 0.5 * (asked - given)
    values[answerer] += 0.5 * (given - asked)


# What a Locality would give each seat at a Poll now, by the Locality's ``Spot`` object: a step
# shares the Spots no rule changed (an engine state is never changed once made), so a greedy bot
# weighing 924 Staffs, whose choice changes no Locality, works each out once instead of 924
# times (the heuristic was half of that decision's time). The entry holds its Spot, so that the
# Spot's id is not reused while the entry stands; bounded, it starts again when full.
_SPOT_GAINS: dict[int, tuple[Any, int, int, list[int]]] = {}
MAX_SPOT_GAINS = 4096


def _spot_gains(spot: Any, index: int, players: int) -> list[int]:
    """What the Locality ``index`` on ``spot`` would give each of ``players`` seats at a Poll now."""
    kept = _SPOT_GAINS.get(id(spot))
    if kept is not None and kept[0] is spot and kept[1] == index and kept[2] == players:
        return kept[3]
    turnout = [spot.turnout.count(s) for s in range(players)]
    topic = [spot.red.count(s) + spot.white.count(s) for s in range(players)]
    gains = locality_votes(SPIN_CONTENT.localities[index].votes, turnout, topic)
    if len(_SPOT_GAINS) >= MAX_SPOT_GAINS:
        _SPOT_GAINS.clear()
    _SPOT_GAINS[id(spot)] = (spot, index, players, gains)
    return gains


def spin_doctors(state: Any) -> list[float]:
    """Votes Cast as the Election would count them now, plus what each Locality would give if the
    Poll came now (half weight: it can still change), then raw Votes and Budget as tie-breaks."""
    projected = [0.0] * state.players
    for index, spot in enumerate(state.spots):
        for seat, gain in enumerate(_spot_gains(spot, index, state.players)):
            projected[seat] += gain
    return [s.cast + 0.5 * projected[s.seat] + 0.05 * s.raw + 0.01 * s.budget for s in spin_scores(state)]


EVALUATIONS: dict[str, Evaluation] = {"stimmvieh": stimmvieh, "wahlspiel": wahlspiel, "spin_doctors": spin_doctors}
"""The heuristic of each kind; a kind without one is judged by its outcome only."""


def standing(game: Game[Any, Any, Any], state: Any, seat: int) -> float:
    """The reward of ``seat`` in ``state``, in [0, 1]: its share of the others it beats (ties
    count half), by the outcome once the game is over, else by the kind's heuristic."""
    outcome = game.outcome(state) if game.is_over(state) else None
    if outcome is not None:
        ranks = {p.seat: p.rank for p in outcome.placings if p.seat is not None}
        others = [r for s, r in ranks.items() if s != seat]
        mine = ranks[seat]
        if mine == 1:
            # A win is what counts: a shared first place is worth its share of one win.
            return 1.0 / (1 + sum(r == 1 for r in others))
        return 0.3 * sum((r > mine) + 0.5 * (r == mine) for r in others) / max(1, len(others))
    evaluate = EVALUATIONS.get(game.info.kind)
    if evaluate is None:
        return 0.5
    values = evaluate(state)
    mine = values[seat]
    others = [v for s, v in enumerate(values) if s != seat]
    return sum((v < mine) + 0.5 * (v == mine) for v in others) / max(1, len(others))


SCALES = {"stimmvieh": 10.0, "wahlspiel": 20.0, "spin_doctors": 4.0}
"""A lead of about this much in a kind's heuristic is a clear lead (the playout reward's scale)."""


def leaf_reward(game: Game[Any, Any, Any], state: Any, seat: int) -> float:
    """The reward of a playout that stopped at ``state``: the outcome once the game is over, else
    half the seat's rank among the others and half how far it leads (or trails) the best other
    seat, squashed into (0, 1), so that a move that widens a lead counts before ranks change."""
    if game.is_over(state) or game.info.kind not in EVALUATIONS:
        return standing(game, state, seat)
    lead = margin(game, state, seat) / SCALES.get(game.info.kind, 10.0)
    return 0.5 * standing(game, state, seat) + 0.5 / (1.0 + math.exp(-max(-30.0, min(30.0, lead))))


def margin(game: Game[Any, Any, Any], state: Any, seat: int) -> float:
    """How far ``seat`` leads the best other seat by the kind's heuristic (the greedy bot's
    measure: finer than a rank, so that one step of progress shows)."""
    if game.is_over(state):
        return 1e6 * standing(game, state, seat)
    evaluate = EVALUATIONS.get(game.info.kind)
    if evaluate is None:
        return 0.0
    values = evaluate(state)
    return values[seat] - max(v for s, v in enumerate(values) if s != seat)
