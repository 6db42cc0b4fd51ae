"""Server-side bots use the levels of ``hustings.ai``: a table of strong bots plays a game to the
end on a real replica, and the server's bot decides from its seat's knowledge only."""

from __future__ import annotations

import asyncio
import random

import pytest

from conftest import run, running_replica
from hustings.client import Client
from hustings.engine import Rng, games
from hustings.service import table
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2, game_service_pb2

FINISH_POLLS = 600  # 0.1 s apart


def test_server_levels_are_the_bot_levels() -> None:
    assert set(table.BOT_LEVELS) == {"random", "greedy", "strong"}
    assert table.check_level("") == table.BEST_BOT_LEVEL in table.BOT_LEVELS


# The server's strong bot stops on a clock, so two runs may search to different depths; its
# decisions are compared with an iteration budget in tests/test_ai.py instead.
@pytest.mark.parametrize("level", ["random", "greedy"])
def test_the_server_bot_cannot_peek(level: str) -> None:
    game = games()["stimmvieh"]
    options = next(o for _, o in game.sample_options() if game.seat_count(o) == 4)
    rng, chooser = Rng(b"server-peek"), Rng(b"server-peek/moves")
    state = game.setup(options, rng)
    for _ in range(9):  # top candidates chosen, a few politicians played: hands and stacks in play
        seat = min(game.to_act(state))
        state, _ = game.apply(state, seat, chooser.choice(game.legal_moves(state, seat)), rng)
    seat = min(game.to_act(state))
    move = table.bot_move(game, state, seat, level, random.Random(5))
    assert move in game.legal_moves(state, seat)
    for other in (s for s in range(4) if s != seat):
        twin = game.secret_twin(state, other, Rng(b"twin", other))
        assert table.bot_move(game, twin, seat, level, random.Random(5)) == move


def test_a_table_of_strong_bots_plays_to_the_end(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                request = game_service_pb2.CreateGameRequest(kind="stimmvieh", options=game_pb2.GameOptions(players=3))
                request.table.bot_seats.extend([0, 1, 2])
                request.table.bot_level = "strong"
                created = await client.stub.CreateGame(request)
                view = await client.view(created.game_id)
                for _ in range(FINISH_POLLS):
                    if view.status == game_pb2.GAME_STATUS_FINISHED:
                        break
                    await asyncio.sleep(0.1)
                    view = await client.view(created.game_id)
                assert view.status == game_pb2.GAME_STATUS_FINISHED
                assert [s.display_name for s in view.seats] == ["Bot (strong)"] * 3
                assert view.outcome.placings

    run(scenario(), timeout_s=150)
