"""Bots that play on the engine in-process: levels ``random``, ``greedy`` and ``strong``.

One search core (``search``) serves every game; the per-game knowledge is the heuristics beside
each other in ``heuristics``. Bots reach a game only through the registry and decide only from
what their seat knows (``levels.decide``). ``arena`` plays them against each other;
``example_bot`` is a bot over the network for outside authors to start from.
"""

from hustings.ai.levels import LEVELS, EngineBot, GreedyBot, RandomEngineBot, StrongBot, decide, make_bot
from hustings.ai.search import Budget

__all__ = ["LEVELS", "Budget", "EngineBot", "GreedyBot", "RandomEngineBot", "StrongBot", "decide", "make_bot"]
