"""The table lifecycle at the rules level: what a seat's bot does for a player who left or whose
time ran out. Real Redis, a real replica with its gRPC face; games dealt from a chosen seed
(``--allow-client-seed``), so the bots' draws are the same every run.
"""

from __future__ import annotations

import asyncio
import pathlib
import random
import time

import pytest

from conftest import HeldClock, run
from service_helpers import replica_and_client
from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.engine import Rng, games
from hustings.engine.base import is_side_move
from hustings.service import table
from hustings.v1 import game_pb2

SEED = "6c" * 32
PLAYER_STEPS = 12  # steps the bot makes for the player before the test looks at them
WAIT_S = 15.0


async def _steps_of(client: Client, game_id: str, seat: int) -> list[game_pb2.HistoryEntry]:
    history = await client.history(game_id)
    return [h for h in history if h.seat == seat and h.HasField("move")]


def _hand_overs(steps: list[game_pb2.HistoryEntry]) -> list[tuple[int, int, int]]:
    """(version, to seat, amount) of every Budget hand-over among ``steps``."""
    return [
        (h.version, h.move.spin_doctors.hand_budget.seat, h.move.spin_doctors.hand_budget.amount)
        for h in steps
        if h.move.spin_doctors.HasField("hand_budget")
    ]


@pytest.mark.usefixtures("quick_bots")  # the other seats are bots: a table of bots alone once Ada leaves
def test_the_bot_of_a_spin_doctors_player_who_left_gives_none_of_the_players_budget_away(
    redis_server: EmbeddedRedis,
) -> None:
    """README (Timeouts): an absent seat's bot plays its decisions until the player comes back.
    A hand-over of Budget points is no decision (a side move, beside the one owed): the bot that
    stands in for a player who stepped away should make the decisions, not give the player's
    Budget to another seat. At the default level it picks hand-overs among its moves, so a player
    back after a minute finds most of its Budget with an opponent."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, allow_client_seed=True) as (_, client):
            settings = game_pb2.TableSettings(bot_seats=[1, 2])
            game_id = (await client.create_game("spin_doctors", 3, table=settings, seed=SEED)).game_id
            ada = await client.join(game_id, "Ada")  # the last seat: the game starts
            start_budget = (await client.view(game_id)).spin_doctors.players[0].budget
            await client.leave(game_id, ada.token)
            deadline = time.monotonic() + WAIT_S
            steps = await _steps_of(client, game_id, 0)
            while len(steps) < PLAYER_STEPS and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
                steps = await _steps_of(client, game_id, 0)
            assert len(steps) >= PLAYER_STEPS, f"the bot made {len(steps)} steps for Ada in {WAIT_S} s"
            view = await client.view(game_id)
            budget = view.spin_doctors.players[0].budget
            assert _hand_overs(steps) == [], (
                f"Ada's bot handed over {_hand_overs(steps)} (Budget {start_budget} -> {budget})"
            )

    run(scenario(), timeout_s=60)


def test_a_spin_doctors_timeout_makes_the_decision_and_gives_no_budget_away(tmp_path: pathlib.Path) -> None:
    """README (Timeouts): "when a seat's time runs out its bot makes that decision". The decision,
    not a hand-over of the player's Budget to another seat beside it. The replica's clock is held
    and moved to each of Ada's deadlines in turn; she never moves herself. A Redis of its own: on
    the session's, each of the held clock's minute-long jumps made the clocked games other tests
    had left behind due for this replica, which applied them beside Ada's game, and in a full run
    her bounded loop twice ended with too few of her steps made."""
    clock = HeldClock()

    async def scenario(url: str) -> None:
        async with replica_and_client(url, allow_client_seed=True, local_clock=clock) as (replica, client):
            settings = game_pb2.TableSettings(decision_seconds=60, absent_after_timeouts=100, bot_seats=[1, 2])
            game_id = (await client.create_game("spin_doctors", 3, table=settings, seed=SEED)).game_id
            await client.join(game_id, "Ada")
            steps: list[game_pb2.HistoryEntry] = []
            for _timeout in range(3 * PLAYER_STEPS):  # bounded: one deadline of Ada's a round
                view = await client.view(game_id)
                if view.status != game_pb2.GAME_STATUS_ACTIVE or len(steps) >= PLAYER_STEPS:
                    break
                due = view.seats[0].deadline_unix_ms
                if due:
                    clock.advance_to_ms(replica, due + 1)
                await replica.host.deadline_runner.run_once()
                await asyncio.sleep(0.05)  # the bots' decisions, due at once, kicked by the step
                steps = await _steps_of(client, game_id, 0)
            assert len(steps) >= PLAYER_STEPS, f"the bot made {len(steps)} steps for Ada"
            final = await client.view(game_id)
            assert final.seats[0].timeouts >= 1 and not final.seats[0].absent
            assert _hand_overs(steps) == [], f"Ada's timeouts handed over {_hand_overs(steps)}"

    with EmbeddedRedis(tmp_path, appendonly=False) as redis_server:
        run(scenario(redis_server.url), timeout_s=60)


@pytest.mark.parametrize("level", ["random", "greedy", "strong"])
def test_a_stand_in_of_every_level_makes_only_the_decision_owed(level: str) -> None:
    """At a decision with hand-overs and deals beside it, a stand-in of any level picks a move
    that ends the decision; the levels that sample the hidden cards find the game's sampler
    through the narrowed game."""
    game = games()["spin_doctors"]
    options = next(o for _, o in game.sample_options() if game.seat_count(o) == 4)
    rng, chooser = Rng(b"stand-in"), Rng(b"stand-in/moves")
    state = game.setup(options, rng)
    for _ in range(200):  # bounded: a decision with side moves beside it comes within a few steps
        seat = min(game.to_act(state))
        moves = game.legal_moves(state, seat)
        owed = [move for move in moves if not is_side_move(game, move, state)]
        if owed and len(owed) < len(moves):
            break
        state, _ = game.apply(state, seat, chooser.choice(owed or moves), rng)
    else:
        raise AssertionError("no decision with side moves beside it")
    move = table.bot_move(game, state, seat, level, random.Random(5), stand_in=True)
    assert move in owed
