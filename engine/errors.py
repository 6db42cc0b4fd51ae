"""Narrow exceptions raised by game rules; the service maps each to one gRPC status code."""

from __future__ import annotations

from typing import Any, Sized, TypeVar

SizedT = TypeVar("SizedT", bound=Sized)

# Items a list in a move may hold: every decision of the games names a handful (a Staff of six, a
# path of a few fields). A longer list is refused before anything walks it: over gRPC a move may
# carry 65,000 Staffers within the request limit, which the codec and the rules walked item by
# item (12.6 times a refused move of six). REST refuses any JSON list as long before it is parsed.
MAX_MOVE_LIST = 256


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


def short_list(values: SizedT, name: str) -> SizedT:
    """``values`` (a list field of a move), or MalformedMoveError ``LIST_TOO_LONG`` when it
    holds more than ``MAX_MOVE_LIST`` items."""
    if len(values) > MAX_MOVE_LIST:
        raise MalformedMoveError("LIST_TOO_LONG", f"{name} holds more than {MAX_MOVE_LIST} items")
    return values


# The names of the games as a Move's oneof names them, for messages about a move of another game.
_GAME_TITLES = {"stimmvieh": "Stimmvieh", "wahlspiel": "Wahlspiel", "spin_doctors": "The Spin Doctors"}


def refuse_other_games(message: Any, field: str) -> None:
    """MalformedMoveError unless the Move ``message`` holds a decision of the game whose oneof
    member is ``field``: ``EMPTY_MOVE`` when it holds none, ``WRONG_GAME_KIND`` (naming both
    games) when it holds another game's."""
    sent = message.WhichOneof("game")
    if sent == field:
        return
    title = _GAME_TITLES[field]
    if sent is None:
        raise MalformedMoveError("EMPTY_MOVE", f"the move carries no decision of {title}")
    raise MalformedMoveError(
        "WRONG_GAME_KIND", f"the move is a decision of {_GAME_TITLES.get(sent, sent)}; this game is {title}"
    )
