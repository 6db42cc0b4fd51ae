"""Stimmvieh: collect votes to double your donations, and the most donations win.

The package registers ``GAME`` on import. Content (deck, party names) lives in ``content.json``;
``CONTENT.md`` records every value and rule choice that the rulebook leaves open.
"""

from hustings.engine.registry import register
from hustings.engine.stimmvieh.game import GAME, StimmviehGame
from hustings.engine.stimmvieh.model import ChooseTopCandidates, PlayPolitician, StimmviehOptions, StimmviehState

register(GAME)

__all__ = ["GAME", "ChooseTopCandidates", "PlayPolitician", "StimmviehGame", "StimmviehOptions", "StimmviehState"]
