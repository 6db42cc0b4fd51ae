"""The bot levels: ``random``, ``greedy`` (one ply of the kind's heuristic) and ``strong`` (the
search). A bot decides from an observation, never from the real table.

``decide`` is the one entry point for callers holding a full state (the arena, the server): it
reduces the state to ``observe(game, state, seat)`` first, a state that carries only what the
seat's view shows (the determinization property test in tests/test_sampling.py holds it to that),
and hands the bot nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from hustings.ai.search import Budget, one_ply, search
from hustings.engine import Game, Rng
from hustings.engine.base import observe

LEVELS: tuple[str, ...] = ("random", "greedy", "strong")
"""Every bot level, weakest first."""


class EngineBot(Protocol):
    """Chooses a legal move of ``seat`` from what the seat knows."""

    level: str

    def choose(self, game: Game[Any, Any, Any], observation: Any, seat: int, rng: Rng) -> Any:
        """One of ``game.legal_moves(observation, seat)``."""
        ...


@dataclass
class RandomEngineBot:
    """Any legal move, uniformly."""

    level: str = "random"

    def choose(self, game: Game[Any, Any, Any], observation: Any, seat: int, rng: Rng) -> Any:
        """A uniformly random legal move."""
        moves = game.legal_moves(observation, seat)
        return moves[rng.below(len(moves))]


@dataclass
class GreedyBot:
    """The move after which the kind's heuristic likes the seat's lead best (one ply, on the
    observation itself); equal moves are broken at random."""

    level: str = "greedy"

    def choose(self, game: Game[Any, Any, Any], observation: Any, seat: int, rng: Rng) -> Any:
        """The best move by one ply of the heuristic."""
        moves = game.legal_moves(observation, seat)
        if len(moves) == 1:
            return moves[0]
        ranked = one_ply(game, observation, seat, moves, rng)
        best = [i for value, i in ranked if value == ranked[0][0]]
        return moves[best[rng.below(len(best))]]


@dataclass
class StrongBot:
    """Determinized Monte Carlo search over the seat's information set (``search.search``)."""

    budget: Budget = Budget()
    level: str = "strong"
    last_iterations: int = 0

    def choose(self, game: Game[Any, Any, Any], observation: Any, seat: int, rng: Rng) -> Any:
        """The move that scored best within the budget."""
        move, report = search(game, observation, seat, rng, self.budget)
        self.last_iterations = report.iterations
        return move


def make_bot(level: str, budget: Budget | None = None) -> EngineBot:
    """A bot of ``level`` (one of ``LEVELS``); ``budget`` bounds the strong bot's decisions."""
    if level == "random":
        return RandomEngineBot()
    if level == "greedy":
        return GreedyBot()
    if level == "strong":
        return StrongBot(budget or Budget())
    raise ValueError(f"unknown bot level {level!r}: one of {', '.join(LEVELS)}")


def decide(game: Game[Any, Any, Any], state: Any, seat: int, bot: EngineBot, rng: Rng) -> Any:
    """``bot``'s decision for ``seat`` from what the seat knows of ``state``, and nothing more."""
    return bot.choose(game, observe(game, state, seat), seat, rng)
