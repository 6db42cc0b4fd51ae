"""Narrow exceptions raised by game rules; the service maps each to one gRPC status code."""

from __future__ import annotations


class EngineError(Exception):
    """Base of every rules error. ``reason`` is a stable, machine-readable UPPER_SNAKE code.

    Messages never contain a secret of another seat: they describe the caller's own decision.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class InvalidOptionsError(EngineError):
    """The options of a new game are not acceptable (player count, variant settings)."""


class MalformedMoveError(EngineError):
    """A move that cannot mean anything in this game (wrong shape, values out of range)."""


class IllegalMoveError(EngineError):
    """A well-formed move that the rules forbid in the current state."""


class NotYourTurnError(EngineError):
    """The seat owes no decision now."""


class GameOverError(EngineError):
    """The game has ended; no more moves."""
