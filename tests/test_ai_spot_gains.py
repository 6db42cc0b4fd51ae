"""The Spin Doctors' heuristic keeps what each Locality would give at a Poll by the Locality's
``Spot`` object (``hustings.ai.heuristics._spot_gains``): along random games of every seat count,
and on the tables a bot draws from a seat's view, it answers what a fresh count answers."""

from __future__ import annotations

import random

import pytest

from hustings.ai import heuristics
from hustings.engine import Rng, get_game
from hustings.engine.base import sampler
from hustings.v1 import game_pb2

STEP_LIMIT = 400


def _fresh(state: object) -> list[float]:
    heuristics._SPOT_GAINS.clear()
    return heuristics.spin_doctors(state)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_kept_gains_answer_as_a_fresh_count(players: int) -> None:
    game = get_game("spin_doctors")
    assert game is not None
    rng, chooser = Rng(f"spot gains {players}".encode()), random.Random(players)
    state = game.setup(game.options_from_proto(game_pb2.GameOptions(players=players)), rng)
    draw = sampler(game)
    compared = 0
    for step in range(STEP_LIMIT):
        if game.is_over(state):
            break
        seat = chooser.choice(sorted(game.to_act(state)))
        moves = game.legal_moves(state, seat)
        # Every state after a move of this step (they share the Spots no rule changed), then the
        # state itself and a table drawn from the seat's view, each against a fresh count.
        afters = [game.apply(state, seat, move, Rng(rng.seed, rng.counter))[0] for move in chooser.sample(moves, min(4, len(moves)))]
        kept = [heuristics.spin_doctors(after) for after in afters] + [heuristics.spin_doctors(state)]
        assert kept == [_fresh(after) for after in afters] + [_fresh(state)], f"step {step}"
        if draw is not None and step % 10 == 0:
            drawn = draw(state, seat, Rng(b"drawn", step))
            assert heuristics.spin_doctors(drawn) == _fresh(drawn)
        compared += len(kept)
        state, _ = game.apply(state, seat, chooser.choice(moves), rng)
    assert compared > 200
