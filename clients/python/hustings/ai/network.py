"""Engine bots over the network: a bot written for the arena plays a seat of a real server.

An engine bot (``levels.EngineBot``: ``choose(game, observation, seat, rng)``; the three levels
and your own) decides from a state. Over the network a seat has only the ``GameView`` the server
sends it; each game rebuilds a state from it that the seat cannot tell from the real one
(``engine.base.rebuilder``: what the view shows, and what it hides drawn at random), and the bot
decides from what the seat knows of that state (``levels.decide``), as it would in the arena or
as the server's own bot of its level would for that seat:

    from hustings.ai import make_bot
    from hustings.ai.network import NetworkBot
    from hustings.bots import play_seat

    await play_seat(client, joined, NetworkBot(make_bot("strong")), stats)

``NetworkBot`` is a ``hustings.bots.Bot``: ``choose(view)`` returns one of ``view.legal_moves``.
"""

from __future__ import annotations

import os
from typing import Any

from hustings.ai.levels import EngineBot, decide
from hustings.engine import Rng, get_game
from hustings.engine.base import rebuilder
from hustings.v1 import game_pb2


class NetworkBot:
    """``bot`` deciding from GameViews: each view rebuilt into a state, the move sent as the
    server lists it. ``seed`` makes its draws repeatable (a fresh random one by default)."""

    def __init__(self, bot: EngineBot, seed: bytes | None = None) -> None:
        self.bot = bot
        self.rng = Rng(seed if seed is not None else os.urandom(32))

    @property
    def level(self) -> str:
        """The engine bot's level."""
        return self.bot.level

    def choose(self, view: game_pb2.GameView) -> game_pb2.Move:
        """The engine bot's decision for the view's seat, one of ``view.legal_moves``."""
        if not view.HasField("seat"):
            raise ValueError("a spectator's view has no seat to decide for")
        game = get_game(view.kind)
        if game is None:
            raise ValueError(f"no game of kind {view.kind!r} in this build")
        state: Any = rebuilder(game)(view, view.seat, self.rng)
        move = decide(game, state, view.seat, self.bot, self.rng)
        chosen = game_pb2.Move()
        game.move_to_proto(move, chosen)
        if chosen not in view.legal_moves:
            # The rebuilt state and the server disagree on the rules: never send a guess.
            raise ValueError(f"the {self.bot.level} bot chose a move the view does not list at version {view.version}")
        return chosen
