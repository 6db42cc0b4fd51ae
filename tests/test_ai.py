"""The in-process bots (``hustings.ai``): every level plays legal moves to the end of a game of
every kind, and no bot can peek: the same view and the same rng give the same move, whatever
another seat's secrets are."""

from __future__ import annotations

from typing import Any

import pytest

from hustings.ai import LEVELS, Budget, decide, make_bot
from hustings.engine import Game, Rng, games

STEP_LIMIT = 4000
SMALL = Budget(iterations=24, seconds=5.0)  # the iteration count binds, so the moves are reproducible


def _states(game: Game[Any, Any, Any], players: int, seed: bytes, every: int) -> list[Any]:
    """States of one random game, every ``every`` steps, where some seat owes a decision."""
    options = next(o for _, o in game.sample_options() if game.seat_count(o) == players)
    rng, chooser = Rng(seed), Rng(seed + b"/moves")
    state = game.setup(options, rng)
    found = []
    for step in range(STEP_LIMIT):
        if game.is_over(state):
            break
        seat = min(game.to_act(state))
        moves = game.legal_moves(state, seat)
        if step % every == 0 and len(moves) > 1:
            found.append(state)
        state, _ = game.apply(state, seat, chooser.choice(moves), rng)
    return found


@pytest.mark.parametrize("kind", sorted(games()))
@pytest.mark.parametrize("level", LEVELS)
def test_a_decision_ignores_the_other_seats_secrets(kind: str, level: str) -> None:
    game = games()[kind]
    bot = make_bot(level, SMALL)
    checked = 0
    for number, state in enumerate(_states(game, 4, f"peek/{kind}".encode(), every=7)[:4]):
        seat = min(game.to_act(state))
        move = decide(game, state, seat, bot, Rng(b"decide", number))
        assert move in game.legal_moves(state, seat)
        for other in range(game.seat_count(state.options)):
            if other == seat:
                continue
            twin = game.secret_twin(state, other, Rng(b"twin", number * 10 + other))
            assert game.view(twin, seat) == game.view(state, seat)
            assert decide(game, twin, seat, bot, Rng(b"decide", number)) == move, (
                f"{level} moved otherwise when seat {other}'s secrets changed"
            )
            checked += 1
    assert checked >= 3


def test_a_twin_changes_some_secret() -> None:
    """The no-peek test has teeth: the twins it compares really differ in hidden cards."""
    game = games()["wahlspiel"]
    state = _states(game, 4, b"teeth", every=11)[2]
    twin = game.secret_twin(state, 1, Rng(b"twin"))
    assert game.dump_state(twin) != game.dump_state(state)
