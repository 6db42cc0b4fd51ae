"""A refusal tells a seat nothing of another seat's secrets: along random games of every kind,
two states differing only in seat B's secrets and in what nobody sees (the game's own
``secret_twin``) answer every attempt of another seat A at a move alike (taken, or refused with
the same exception, reason and message). The moves tried are drawn from every seat's legal moves
met so far, so they name other seats' cards and choices, the ones a refusal would give away
("not available", "already chosen")."""

from __future__ import annotations

from typing import Any

import pytest

from hustings.engine import EngineError, Rng, games

STEP_LIMIT = 3000
CHECK_EVERY = 3  # steps of a game between two states checked
PROBES = 16  # moves tried by each other seat in each twin of a checked state
POOL = 600  # moves kept to try (the latest met)
OPTION_SETS = {"spin_doctors": 1}  # option sets played (The Spin Doctors: long games), 4 otherwise


def _told(game: Any, state: Any, seat: int, move: Any, rng: Rng) -> tuple[Any, ...]:
    """What ``seat`` is told of its attempt at ``move``."""
    try:
        game.apply(state, seat, move, Rng(rng.seed, rng.counter))
    except EngineError as refusal:
        return (type(refusal).__name__, refusal.reason, refusal.message)
    return ("taken",)


@pytest.mark.parametrize("kind", sorted(games()))
def test_refusals_are_the_same_whatever_another_seat_holds(kind: str) -> None:
    game = games()[kind]
    compared = 0
    for index, (label, options) in enumerate(game.sample_options()[: OPTION_SETS.get(kind, 4)]):
        rng, chooser = Rng(f"refusals:{kind}:{index}".encode()), Rng(f"refusal chooser:{kind}:{index}".encode())
        state = game.setup(options, rng)
        players = game.seat_count(options)
        pool: list[Any] = []
        for step in range(STEP_LIMIT):
            if game.is_over(state):
                break
            for seat in range(players):
                for move in game.legal_moves(state, seat)[:20]:
                    if move not in pool:
                        pool.append(move)
            del pool[:-POOL]
            if step % CHECK_EVERY == 0:
                for owner in range(players):
                    twin = game.secret_twin(state, owner, Rng(b"refusal twin", step * 8 + owner))
                    if game.dump_state(twin) == game.dump_state(state):
                        continue
                    for seat in (s for s in range(players) if s != owner):
                        for move in (pool[chooser.below(len(pool))] for _ in range(PROBES)):
                            told, twin_told = _told(game, state, seat, move, rng), _told(game, twin, seat, move, rng)
                            assert told == twin_told, (
                                f"{label}, step {step}: seat {seat}'s {move} is answered {told} or {twin_told} by what seat {owner} holds"
                            )
                            compared += 1
            seat = chooser.choice(sorted(game.to_act(state)))
            state, _ = game.apply(state, seat, chooser.choice(game.legal_moves(state, seat)), rng)
    assert compared > 1000, f"only {compared} attempts compared"
