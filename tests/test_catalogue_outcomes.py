"""Outcomes as data: every placing carries the values it was ranked by (score, then each
tie-break) as fields, and the ranking follows them exactly, in random games of every kind and
option set."""

from __future__ import annotations

from typing import Any

import pytest

from hustings.engine import Rng, games

GAMES_PER_OPTION_SET = 3
STEP_LIMIT = 20000
SCORE_NAMES = {"stimmvieh": {"final_donations", "campaign_points"}, "wahlspiel": {"federal_councillor"}, "spin_doctors": {"votes_cast"}}


def _finished(game: Any, options: Any, seed: bytes) -> Any:
    rng, chooser = Rng(seed), Rng(b"choose:" + seed)
    state = game.setup(options, rng)
    for _ in range(STEP_LIMIT):
        if game.is_over(state):
            return state
        seat = chooser.choice(sorted(game.to_act(state)))
        state, _ = game.apply(state, seat, chooser.choice(game.legal_moves(state, seat)), rng)
    pytest.fail("the game did not end")


@pytest.mark.parametrize("kind", sorted(games()))
def test_placings_are_ranked_by_their_values(kind: str) -> None:
    game = games()[kind]
    for label, options in game.sample_options():
        for number in range(GAMES_PER_OPTION_SET):
            outcome = game.outcome(_finished(game, options, f"outcome:{label}:{number}".encode()))
            placings = outcome.placings
            names = {tuple(name for name, _ in p.ranked_by) for p in placings}
            assert len(names) == 1, "every placing is ranked by the same values"
            (first, *_), = names
            assert first in SCORE_NAMES[kind]
            for p in placings:
                values = [v for _, v in p.ranked_by]
                # The rank is one more than the number of participants ahead on these values.
                assert p.rank == 1 + sum(1 for q in placings if [v for _, v in q.ranked_by] > values), (label, placings)
                if first != "federal_councillor":
                    assert values[0] == p.score  # the score is the first value compared

