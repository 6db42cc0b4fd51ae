"""The server-side bots: what ``service/table.py`` asks for a bot seat or an absent player.

The server applies a bot's decision inline, so the strong level gets a small budget here
(``SERVER_BUDGET``). A table that names no level gets ``random``, as before: the server decides
for every bot seat and absent player inline, and tables made only of bots are expected to finish
in moments; ``greedy`` (milliseconds per decision) and ``strong`` (up to 0.2 s) are there for
whoever asks for them (``bot_level`` at creation, ``AddBot``'s level).
"""

from __future__ import annotations

import random
from typing import Any

from hustings.ai.levels import LEVELS, EngineBot, decide, make_bot
from hustings.ai.search import Budget
from hustings.engine import Game, Rng

SERVER_DECISION_S = 0.2
"""A strong server-side decision is made public this long after its thinking began, whatever it
took (``service/seats.py`` ``THINKING_FLOOR_S``): at most 0.2 s per decision."""
SEARCH_MARGIN_S = 0.05
"""The search stops this much short of ``SERVER_DECISION_S``: it may run one playout past its
time (it stops when another, as long as the average one, would end past it), and its decision
must be made before it is made public. Beside two busy processes on two cores a search of
Stimmvieh's opening (126 moves, where the time runs out first even on an idle machine) ended up
to 9 ms past its time, and with the time at 0.2 s a decision with a choice was made public later
than a forced one."""
SERVER_BUDGET = Budget(iterations=200, seconds=SERVER_DECISION_S - SEARCH_MARGIN_S)
"""At most 200 playouts and 0.15 s of search per server-side decision."""
SERVER_LEVELS: tuple[str, ...] = LEVELS
SERVER_DEFAULT_LEVEL = "random"

_BOTS: dict[str, EngineBot] = {level: make_bot(level, SERVER_BUDGET) for level in SERVER_LEVELS}


def server_move(game: Game[Any, Any, Any], state: Any, seat: int, level: str, rng: random.Random) -> Any:
    """The decision of a server-side bot of ``level`` for ``seat``. The full ``state`` is only
    reduced to what the seat knows (``levels.decide``); the bot never sees the rest."""
    bot = _BOTS.get(level)
    if bot is None:
        raise ValueError(f"unknown bot level {level!r}")
    return decide(game, state, seat, bot, Rng(rng.getrandbits(128).to_bytes(16, "big")))
