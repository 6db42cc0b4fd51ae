"""Wahlspiel: three election rounds on a roll-and-move board; the party that provides the Federal
Councillor wins.

The package registers ``GAME`` on import. Content (board, politicians, voters, events) lives in
``content.json``; ``CONTENT.md`` records every value and rule choice the rulebook leaves open.
"""

from hustings.engine.registry import register
from hustings.engine.wahlspiel.game import GAME, WahlspielGame
from hustings.engine.wahlspiel.model import WahlspielOptions, WahlspielState

register(GAME)

__all__ = ["GAME", "WahlspielGame", "WahlspielOptions", "WahlspielState"]
