"""Determinization for Stimmvieh: a full table that one seat cannot tell from the real one.

``sample_state`` redeals everything the seat does not see: the other parties' face-down top
candidates (while they are choosing) or their backbenchers (after the reveal), Angelus' face-down
stack, the collected stacks of the others below their visible tops, and the order of both stacks
below their tops. Every redealt pool is sorted before it is shuffled, so the sample depends only
on what the seat sees and on ``rng``: two tables that differ only in another seat's secrets give
the same sample for the same ``rng``.
"""

from __future__ import annotations

from dataclasses import replace

from hustings.engine.base import Seat
from hustings.engine.rng import Rng
from hustings.engine.stimmvieh.model import CHOOSING, FINISHED, POLITICIANS, TOP_CANDIDATE_COUNT, StimmviehState


def _some(pool: list[int], count: int, rng: Rng) -> tuple[int, ...]:
    """``count`` of ``pool`` (sorted first, so only its contents matter), sorted."""
    pool = sorted(pool)
    rng.shuffle(pool)
    return tuple(sorted(pool[:count]))


def sample_state(state: StimmviehState, seat: Seat, rng: Rng) -> StimmviehState:
    """A table consistent with everything ``seat`` sees of ``state``, its unseen cards redealt."""
    parties = list(state.parties)
    # Once the game is over every hand is open; only the order of the stacks stays unknown.
    others = [] if state.phase == FINISHED else [p for p in range(len(parties)) if p != seat or state.is_angelus(p)]
    for index in others:
        party = parties[index]
        if state.phase == CHOOSING:
            if party.chosen:
                parties[index] = replace(party, chosen=_some(list(POLITICIANS), TOP_CANDIDATE_COUNT, rng))
        elif not state.is_angelus(index):
            # The view shows the remaining top candidates and how many backbenchers are left.
            unseen = [p for p in POLITICIANS if p not in party.top_candidates]
            parties[index] = replace(party, backbenchers=_some(unseen, len(party.backbenchers), rng))
    votes = _redeal(state.vote_stack, [parties[o].votes for o in others], rng)
    donations = _redeal(state.donation_stack, [parties[o].donations for o in others], rng)
    for index, own_votes, own_donations in zip(others, votes[1:], donations[1:]):
        parties[index] = replace(parties[index], votes=own_votes, donations=own_donations)
    return replace(state, parties=tuple(parties), vote_stack=votes[0], donation_stack=donations[0])


def _redeal(stack: tuple[str, ...], collected: list[tuple[str, ...]], rng: Rng) -> list[tuple[str, ...]]:
    """The hidden cards of a stack (below its top) and of collected stacks (below their tops,
    which are their last cards), sorted, shuffled and dealt back in the same counts."""
    parts = [stack[1:]] + [cards[:-1] for cards in collected]
    pool = sorted(card for part in parts for card in part)
    rng.shuffle(pool)
    dealt: list[tuple[str, ...]] = []
    for part in parts:
        dealt.append(tuple(pool[: len(part)]))
        pool = pool[len(part) :]
    return [stack[:1] + dealt[0]] + [below + cards[-1:] for below, cards in zip(dealt[1:], collected)]
