"""The rules of every game hustings hosts: pure, deterministic, no I/O, no clock, no global random."""

from hustings.engine.base import Event, Game, GameInfo, Outcome, Placing, Seat, Variant, state_digest
from hustings.engine.errors import (
    EngineError,
    GameOverError,
    IllegalMoveError,
    InvalidOptionsError,
    MalformedMoveError,
    NotYourTurnError,
)
from hustings.engine.registry import games, get_game, register
from hustings.engine.rng import Rng, seed_commitment

__all__ = [
    "EngineError",
    "Event",
    "Game",
    "GameInfo",
    "GameOverError",
    "IllegalMoveError",
    "InvalidOptionsError",
    "MalformedMoveError",
    "NotYourTurnError",
    "Outcome",
    "Placing",
    "Rng",
    "Seat",
    "Variant",
    "games",
    "get_game",
    "register",
    "seed_commitment",
    "state_digest",
]
