"""Engine bots over the network (README Write your own bot): ``hustings.ai.network.NetworkBot``
plays a seat of a real replica from the GameViews it is sent, each rebuilt into a state
(``engine.base.rebuilder``), with the same bots the arena and the server's own seats use."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from conftest import run, running_replica
from service_helpers import sent_view
from hustings.ai import make_bot
from hustings.ai.arena import options_for
from hustings.ai.levels import decide as decide_from_state
from hustings.ai.example_bot import play
from hustings.ai.network import NetworkBot
from hustings.ai.search import Budget
from hustings.client import Client
from hustings.engine import Rng, get_game
from hustings.engine.base import rebuilder
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2

GAME_TIMEOUT_S = 120
DECISIONS_COMPARED = 60  # per kind, along one random game


@pytest.mark.parametrize(("kind", "players"), [("stimmvieh", 4), ("wahlspiel", 3), ("spin_doctors", 3)])
def test_an_engine_bot_plays_a_whole_game_over_the_network(redis_server: EmbeddedRedis, kind: str, players: int) -> None:
    """A greedy engine bot in seat 0 against the server's random bots: every decision it sends
    is one the view listed, and the game ends with its seat never played by the server."""
    bot = NetworkBot(make_bot("greedy"), seed=f"network/{kind}".encode())
    chosen: list[int] = []

    def decide(view: game_pb2.GameView) -> game_pb2.Move:
        move = bot.choose(view)
        assert move in view.legal_moves
        chosen.append(view.version)
        return move

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                table = game_pb2.TableSettings(bot_seats=range(1, players), bot_level="random")
                created = await client.create_game(kind, players, table=table)
                joined = await client.join(created.game_id, "Engine bot")
                played = await play([client], joined, random.Random(0), decide=decide)
                assert played.view.status == game_pb2.GAME_STATUS_FINISHED
                # Each applied decision moved the game on from the version it was chosen at.
                assert len(played.decided) >= 3 and set(played.decided) <= {v + 1 for v in chosen}
                seat = next(s for s in played.view.seats if s.seat == joined.seat)
                assert not seat.bot_played and seat.timeouts == 0

    run(scenario(), GAME_TIMEOUT_S)


def test_the_example_bot_plays_on_from_the_listed_moves_when_its_engine_bot_cannot_use_a_view(redis_server: EmbeddedRedis) -> None:
    """A view the engine bot cannot rebuild (a server newer than the bot's build, say) is logged
    and answered with one of the listed moves: the seat plays on instead of timing out."""
    lines: list[str] = []

    def unreadable(view: game_pb2.GameView) -> game_pb2.Move:
        raise ValueError("INCONSISTENT_VIEW: made up for the test")

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                table = game_pb2.TableSettings(bot_seats=[1, 2], bot_level="random")
                created = await client.create_game("stimmvieh", 3, table=table)
                joined = await client.join(created.game_id, "Engine bot")
                played = await play([client], joined, random.Random(1), lines.append, decide=unreadable)
                assert played.view.status == game_pb2.GAME_STATUS_FINISHED and len(played.decided) >= 3
                seat = next(s for s in played.view.seats if s.seat == joined.seat)
                assert not seat.bot_played and seat.timeouts == 0

    run(scenario(), GAME_TIMEOUT_S)
    told = [line for line in lines if "cannot use the view" in line]
    assert told and all("INCONSISTENT_VIEW" in line for line in told)


def test_a_network_bot_refuses_a_spectators_view_and_a_move_the_view_does_not_list() -> None:
    bot = NetworkBot(make_bot("random"), seed=b"x")
    with pytest.raises(ValueError, match="spectator"):
        bot.choose(game_pb2.GameView(kind="stimmvieh"))


def test_the_strong_bot_decides_from_a_rebuilt_view(redis_server: EmbeddedRedis) -> None:
    """The search bot too (a small budget here): its decision is one of the view's legal moves."""
    bot = NetworkBot(make_bot("strong", Budget(iterations=20, seconds=0.5)), seed=b"strong")

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                for kind in ("stimmvieh", "wahlspiel", "spin_doctors"):
                    table = game_pb2.TableSettings(bot_seats=[1, 2], bot_level="random")
                    created = await client.create_game(kind, 3, table=table)
                    joined = await client.join(created.game_id, "Strong")
                    view = await client.view(created.game_id, joined.token)
                    assert get_game(kind) is not None and view.legal_moves, kind
                    assert bot.choose(view) in view.legal_moves

    run(scenario(), GAME_TIMEOUT_S)


@pytest.mark.slow
def test_the_example_bot_plays_an_engine_bot_as_the_readme_says() -> None:
    """README: `python3 -m hustings.ai.example_bot --kind stimmvieh --players 4 --engine-bot greedy`
    on an embedded server of its own prints its seat's result when the game is over."""
    done = subprocess.run(
        [sys.executable, "-m", "hustings.ai.example_bot", "--kind", "stimmvieh", "--players", "4", "--engine-bot", "greedy", "--seed", "5"],
        capture_output=True, text=True, timeout=GAME_TIMEOUT_S,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    line = json.loads(done.stdout.strip().splitlines()[-1])
    assert line["finished"] is True and line["seat"] == 0 and 1 <= line["rank"] <= 4


@pytest.mark.parametrize(("kind", "players"), [("stimmvieh", 4), ("wahlspiel", 4), ("spin_doctors", 4)])
def test_an_engine_bot_decides_from_a_rebuilt_view_as_from_the_real_table(kind: str, players: int) -> None:
    """The bot of a level decides over the network as it would at the table (the arena, or the
    server's own seat): what it decides from is what the seat knows, and the rebuilt state shows
    the seat exactly that. Greedy's one-ply look, with the same draws, along a random game."""
    game = get_game(kind)
    assert game is not None
    greedy, rebuild = make_bot("greedy"), rebuilder(game)
    rng = Rng(f"compare/{kind}".encode())
    state = game.setup(options_for(game, players), rng)
    compared = 0
    for step in range(2_000):  # bounded: a whole game is shorter
        acting = sorted(game.to_act(state))
        if not acting or compared >= DECISIONS_COMPARED:
            break
        seat = acting[step % len(acting)]
        at_table = decide_from_state(game, state, seat, greedy, Rng(b"draws", step))
        rebuilt = rebuild(sent_view(game, state, options_for(game, players), seat, version=step + 1), seat, Rng(b"rebuild", step))
        over_network = decide_from_state(game, rebuilt, seat, greedy, Rng(b"draws", step))
        assert over_network == at_table, (kind, step, seat)
        compared += 1
        moves = game.legal_moves(state, seat)
        state, _ = game.apply(state, seat, moves[rng.below(len(moves))], rng)
    assert compared >= min(DECISIONS_COMPARED, 20), compared
