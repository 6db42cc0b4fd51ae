"""What the view-bytes tests (tests/test_view_bytes_*.py) share: each keeps a reference copy of a
game's former view builder and checks the game's views of a state against it."""

from __future__ import annotations

import random
from typing import Any, Callable

from hustings.engine import Rng
from hustings.v1 import game_pb2


def check_every_viewer(
    game: Any, state: Any, players: int, reference_view: Callable[[Any, int | None], Any], reference_bytes: Callable[[Any], bytes]
) -> int:
    """Every seat's and a spectator's view of ``state``: the game's TableView equals the
    reference's, and its GameView's bytes the reference's bytes; returns how many were checked."""
    for seat in [*range(players), None]:
        view = game.view(state, seat)
        expected = reference_view(state, seat)
        assert view == expected, seat
        message = game_pb2.GameView()
        game.view_to_proto(view, message)
        assert message.SerializeToString(deterministic=True) == reference_bytes(expected), seat
    return players + 1


def played_states(game: Any, state: Any, rng: Rng, choices: random.Random, max_steps: int) -> list[Any]:
    """``state`` and every state after it of a game played to its end by random legal moves
    (``choices``) of random seats to act, within ``max_steps``."""
    states = [state]
    for _ in range(max_steps):
        if game.is_over(state):
            break
        seat = choices.choice(sorted(game.to_act(state)))
        state, _ = game.apply(state, seat, choices.choice(game.legal_moves(state, seat)), rng)
        states.append(state)
    assert game.is_over(state)
    return states
