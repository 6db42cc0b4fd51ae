"""The registry of game kinds. The service and the bots know games only through it."""

from __future__ import annotations

import importlib
from typing import Any

from hustings.engine.base import Game

# Each module registers its game on import. Adding a game is one line here and a folder.
GAME_MODULES: tuple[str, ...] = ("hustings.engine.stimmvieh", "hustings.engine.wahlspiel", "hustings.engine.spin_doctors")

_GAMES: dict[str, Game[Any, Any, Any]] = {}
_loaded = False


def register(game: Game[Any, Any, Any]) -> Game[Any, Any, Any]:
    """Register ``game`` under its kind; called by each game module."""
    kind = game.info.kind
    if kind in _GAMES and _GAMES[kind] is not game:
        raise ValueError(f"game kind {kind!r} registered twice")
    _GAMES[kind] = game
    return game


def _load() -> None:
    global _loaded
    if not _loaded:
        for name in GAME_MODULES:
            importlib.import_module(name)
        _loaded = True


def games() -> dict[str, Game[Any, Any, Any]]:
    """Every registered game by kind, in registration order."""
    _load()
    return dict(_GAMES)


def get_game(kind: str) -> Game[Any, Any, Any] | None:
    """The game registered under ``kind``, or None."""
    _load()
    return _GAMES.get(kind)
