"""The registry of game kinds. The service and the bots know games only through it."""

from __future__ import annotations

import importlib
from typing import Any

from hustings.engine.base import Catalogue, ContentVersionError, Game

# Each module registers its game on import. Adding a game is one line here and a folder.
GAME_MODULES: tuple[str, ...] = ("hustings.engine.stimmvieh", "hustings.engine.wahlspiel", "hustings.engine.spin_doctors")

_GAMES: dict[str, Game[Any, Any, Any]] = {}
_CATALOGUES: dict[str, Catalogue] = {}
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
            # The game's catalogue lives beside its codec, in ``<game>.catalogue``.
            found = importlib.import_module(f"{name}.catalogue").CATALOGUE
            _CATALOGUES[found.kind] = found
        _loaded = True


def games() -> dict[str, Game[Any, Any, Any]]:
    """Every registered game by kind, in registration order."""
    _load()
    return dict(_GAMES)


def get_game(kind: str) -> Game[Any, Any, Any] | None:
    """The game registered under ``kind``, or None."""
    _load()
    return _GAMES.get(kind)


def get_catalogue(kind: str) -> Catalogue | None:
    """The catalogue of ``kind`` (its content as typed data, with its version), or None."""
    _load()
    return _CATALOGUES.get(kind)


def check_content_version(kind: str, recorded: str, recorded_rules: str = "") -> None:
    """Refuse a game recorded with content whose rules differ from this build's
    (ContentVersionError).

    A game is played by the rules content it was created with. The rules read their content
    once at import, so a build plays exactly one rules version per kind. A game records at
    creation the content version (``recorded``: every member of the file) and the rules version
    (``recorded_rules``: the file without the members the game declares presentation only,
    its labels, names, notes and sources). It plays on when its rules version is this build's,
    whatever was edited of what only players read; an edit to anything the rules read retires
    it. It also plays on when its content version is this build's (the very same file, whatever
    a later release declares presentation), and a game stored before rules versions were
    recorded plays on when its content version is this build's content or rules version.
    Games recorded before versions existed (both empty) play on.
    """
    catalogue = get_catalogue(kind)
    if catalogue is None or not (recorded or recorded_rules):
        return
    if recorded_rules and recorded_rules == catalogue.rules_version:
        return
    if recorded and recorded in (catalogue.content_version, catalogue.rules_version):
        return
    if recorded_rules and catalogue.rules_version:
        raise ContentVersionError(kind, recorded_rules, catalogue.rules_version)
    raise ContentVersionError(kind, recorded or recorded_rules, catalogue.content_version)
