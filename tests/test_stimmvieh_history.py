"""Stimmvieh's log alone is enough to referee a finished game: every campaign's deal is in it,
the first one too (issue 17, Stimmvieh item 1)."""

from __future__ import annotations

from typing import Any

import pytest

from hustings.engine import Rng
from hustings.engine.stimmvieh import GAME, StimmviehOptions
from hustings.engine.stimmvieh.model import CampaignStarted, PoliticianPlayed, TopCandidatesChosen


def _played(options: StimmviehOptions, seed: bytes) -> tuple[Any, list[tuple[int, list[Any]]]]:
    """The setup state and every decision's (seat, events) of one game played to the end by
    random legal moves (at most 2000 decisions)."""
    rng, chooser = Rng(seed), Rng(b"c" + seed)
    first = state = GAME.setup(options, rng)
    steps: list[tuple[int, list[Any]]] = []
    for _ in range(2000):
        if GAME.is_over(state):
            break
        seat = min(GAME.to_act(state))
        state, events = GAME.apply(state, seat, chooser.choice(GAME.legal_moves(state, seat)), rng)
        steps.append((seat, events))
    assert GAME.is_over(state)
    return first, steps


@pytest.mark.parametrize("players, campaigns", [(4, 1), (3, 2), (4, 3)])
def test_the_first_campaigns_deal_opens_the_log(players: int, campaigns: int) -> None:
    """"Shuffle the vote and the donation cards separately. Place the four topmost donation cards
    face up on the table below the base cards. Place the stacks of votes and donations onto the
    base cards, so that you can see the topmost card." What the table sees at the deal of the
    first campaign is logged as it is for every later campaign, public to every seat."""
    options = StimmviehOptions(players=players, campaigns=campaigns)
    setup, steps = _played(options, b"history%d%d" % (players, campaigns))
    first_seat, first_events = steps[0]
    dealt = first_events[0]
    assert isinstance(dealt.payload, CampaignStarted) and dealt.visible_to is None
    started = dealt.payload
    assert started.campaign == 1
    assert [c.card_id for c in started.display] == list(setup.display)
    assert started.vote_stack_top is not None and started.vote_stack_top.card_id == setup.vote_stack[0]
    assert started.donation_stack_top is not None and started.donation_stack_top.card_id == setup.donation_stack[0]
    assert all(c.kind == "donation" for c in started.display)  # the four topmost donation cards
    assert isinstance(first_events[1].payload, TopCandidatesChosen) and first_events[1].payload.party == first_seat
    # Each campaign is logged once, in order, and before any politician of it is played.
    numbers = [e.payload.campaign for _, events in steps for e in events if isinstance(e.payload, CampaignStarted)]
    assert numbers == list(range(1, campaigns + 1))
    log = [e.payload for _, events in steps for e in events]
    first_play = next(i for i, p in enumerate(log) if isinstance(p, PoliticianPlayed))
    assert isinstance(log[0], CampaignStarted) and 0 < first_play
