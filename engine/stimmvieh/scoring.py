"""Election night and the final ranking: who doubles, who wins, how many points.

These are plain functions of the collected cards, so the rulebook's worked examples can be
checked directly with cards of the printed values.
"""

from __future__ import annotations

from typing import Sequence

from hustings.engine.base import Outcome, Placing
from hustings.engine.stimmvieh.content import Card
from hustings.engine.stimmvieh.model import (
    PARTIES,
    PLACE_POINTS,
    CampaignRecord,
    CampaignResult,
    StimmviehState,
    party_name,
)

DOUBLING_PLACES = 2

CollectedStacks = tuple[Sequence[Card], Sequence[Card]]
"""A party's collected (votes, donations)."""


def moderator_distance(party: int, moderator_party: int) -> int:
    """Steps from the moderator clockwise (in turn order) to ``party``; the moderator is 0."""
    return (party - moderator_party) % PARTIES


def doubling_parties(votes: Sequence[int], vote_influence: Sequence[int], moderator_party: int | None = None) -> frozenset[int]:
    """The parties with the most and second-most votes, who double their donations.

    Main rules: ties are broken by less influence on the vote cards; a group still tied that
    starts while a doubling place is free doubles entirely ("all of you involved"). ALTERNATIVE 2:
    the tied party closest to the moderator in turn order wins, so exactly two double. A party
    without votes never doubles.
    """
    parties = range(len(votes))
    if moderator_party is not None:
        order = sorted(parties, key=lambda p: (-votes[p], moderator_distance(p, moderator_party)))
        return frozenset(p for p in order[:DOUBLING_PLACES] if votes[p] > 0)
    order = sorted(parties, key=lambda p: (-votes[p], vote_influence[p], p))
    doubled: set[int] = set()
    places = DOUBLING_PLACES
    index = 0
    while index < len(order) and places > 0:
        key = (votes[order[index]], vote_influence[order[index]])
        if key[0] <= 0:
            break
        group = [p for p in order[index:] if (votes[p], vote_influence[p]) == key]
        doubled.update(group)
        places -= len(group)
        index += len(group)
    return frozenset(doubled)


def shared_ranks(scores: Sequence[int], moderator_party: int | None = None) -> list[int]:
    """Competition ranks (1 = best) by score, highest first. Equal scores share the better rank;
    with a moderator (ALTERNATIVE 2) the party closest to her breaks the tie instead."""
    if moderator_party is not None:
        order = sorted(range(len(scores)), key=lambda p: (-scores[p], moderator_distance(p, moderator_party)))
        ranks = [0] * len(scores)
        for place, party in enumerate(order, 1):
            ranks[party] = place
        return ranks
    return [1 + sum(1 for other in scores if other > score) for score in scores]


def election_night(campaign: int, collected: Sequence[CollectedStacks], moderator_party: int | None = None) -> CampaignRecord:
    """Count a campaign: votes, doubling, final donations, places and 5/3/2/1 points."""
    votes = [sum(card.amount for card in stacks[0]) for stacks in collected]
    influence = [sum(card.influence for card in stacks[0]) for stacks in collected]
    donations = [sum(card.amount for card in stacks[1]) for stacks in collected]
    doubled = doubling_parties(votes, influence, moderator_party)
    final = [amount * 2 if party in doubled else amount for party, amount in enumerate(donations)]
    ranks = shared_ranks(final, moderator_party)
    results = tuple(
        CampaignResult(
            party=party,
            votes=votes[party],
            vote_influence=influence[party],
            doubled=party in doubled,
            donations=donations[party],
            final_donations=final[party],
            rank=ranks[party],
            points=PLACE_POINTS[ranks[party] - 1],
        )
        for party in range(len(collected))
    )
    return CampaignRecord(campaign, results)


def outcome_of(state: StimmviehState) -> Outcome:
    """The final ranking: by final donations after one campaign, by points after several."""
    options = state.options
    moderator = options.moderator_seat if options.moderator else None
    records = state.campaign_results
    if len(records) == 1:
        scores = [result.final_donations for result in records[0].results]
        ranks = [result.rank for result in records[0].results]
        # Every release's `hustings verify` compares these words with its own replay's: they stay.
        details = [
            f"{r.votes}k votes, {r.donations}k€" + (" doubled" if r.doubled else "") for r in records[0].results
        ]
    else:
        scores = [sum(record.results[party].points for record in records) for party in range(PARTIES)]
        ranks = shared_ranks(scores, moderator)
        details = [
            "points " + "+".join(str(record.results[party].points) for record in records) for party in range(PARTIES)
        ]
    start = moderator if moderator is not None else 0
    order = sorted(range(PARTIES), key=lambda p: (ranks[p], moderator_distance(p, start)))
    score_name = "final_donations" if len(records) == 1 else "campaign_points"
    # ALTERNATIVE 2 breaks a tie in favour of the party closest to the moderator in turn order.
    ranked_by = [
        ((score_name, scores[p]),)
        + ((("moderator_closeness", PARTIES - 1 - moderator_distance(p, start)),) if moderator is not None else ())
        for p in range(PARTIES)
    ]
    return Outcome(
        tuple(
            Placing(
                rank=ranks[p], seat=state.seat_of(p), name=party_name(options, p), score=scores[p], detail=details[p],
                ranked_by=ranked_by[p],
            )
            for p in order
        )
    )
