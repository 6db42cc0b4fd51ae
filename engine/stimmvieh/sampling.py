"""Determinization for Stimmvieh: a full table that one seat cannot tell from the real one.

``sample_state`` redeals everything the seat does not see: the other parties' face-down top
candidates (while they are choosing), Angelus' face-down stack, the collected stacks of the others
below their visible tops, and the order of both stacks below their tops. Every redealt pool is
sorted before it is shuffled, so the sample depends only on what the seat sees and on ``rng``: two
tables that differ only in another seat's secrets give the same sample for the same ``rng``.

From the reveal on no hand is redealt: every party holds one politician of each influence 1..9,
its top candidates lie face up and every politician it plays goes face up on a discard pile naming
its party (the view's ``played``), so its backbenchers are 1..9 less both, known to the whole table.
Drawing them from all politicians not face up would hand a party politicians it has already played.
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
    if state.phase == CHOOSING:
        # Until the reveal a party's choice is its own; afterwards every hand is public (above).
        for index in others:
            if parties[index].chosen:
                parties[index] = replace(parties[index], chosen=_some(list(POLITICIANS), TOP_CANDIDATE_COUNT, rng))
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
