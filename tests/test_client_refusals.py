"""Refusals as a bot author meets them through the clients: a refusal that would only come
again is not sent again in a loop, and a refusal of the player's own input leaves nothing behind
for other players to see."""

from __future__ import annotations

import argparse
import asyncio
import io
import subprocess
import sys
import time

import grpc
import pytest

from conftest import run
from hustings.ai import example_bot
from hustings.bots import BotStats, play_seat
from hustings.client import Client, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.terminal import play_in_terminal
from hustings.v1 import game_pb2
from service_helpers import play_politician, replica_and_client

REFUSED_NAME = "Bot (random)"  # a server bot's name: refused BAD_DISPLAY_NAME to a player


class WrongPhaseBot:
    """A bot with a bug: it always plays a politician, also while the table chooses its top
    candidates, a move the server refuses FAILED_PRECONDITION (WRONG_PHASE) every time."""

    def choose(self, view: game_pb2.GameView) -> game_pb2.Move:
        return play_politician(1)


def test_play_seat_does_not_hammer_the_replica_with_a_move_it_is_refused_again_and_again(redis_server: EmbeddedRedis) -> None:
    """A move refused for a reason that does not go away (here the bot's own bug) is not sent
    again hundreds of times a second: ``play_seat`` gives the seat up with the reason, or waits
    for the game to move on, but does not open a stream and send a move per refusal without end."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):
            table = game_pb2.TableSettings(bot_seats=[1, 2], bot_level="random")
            game_id = (await client.create_game("stimmvieh", 3, table=table)).game_id
            me = await client.join(game_id, "Ada")
            stats = BotStats()
            seat = asyncio.create_task(play_seat(client, me, WrongPhaseBot(), stats))
            started = time.monotonic()
            done, _ = await asyncio.wait({seat}, timeout=3.0)
            elapsed = time.monotonic() - started
            seat.cancel()
            await asyncio.gather(seat, return_exceptions=True)
            assert stats.rejected <= 10, (
                f"{stats.rejected} moves refused in {elapsed:.1f} s, each after a new stream "
                f"({'gave up' if done else 'still sending'}): {stats}"
            )
            if done:
                assert stats.errors >= 1, f"gave the seat up without saying why: {stats}"

    run(scenario(), 30)


async def _lobby_ids(client: Client) -> set[str]:
    return {game.game_id for game in (await client.games(page_size=100)).games}


def test_play_with_a_refused_name_leaves_no_table_in_the_lobby(redis_server: EmbeddedRedis) -> None:
    """``hustings play --name "Bot (random)"`` is refused BAD_DISPLAY_NAME, reason intact, and
    the game it made for that player is not left open in everybody's lobby (open tables wait a
    day for players by default)."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (replica, client):
            before = await _lobby_ids(client)

            async def never(_prompt: str) -> str | None:
                return None

            with pytest.raises(HustingsError) as refused:
                await play_in_terminal(f"127.0.0.1:{replica.port}", "stimmvieh", 3, REFUSED_NAME, out=io.StringIO(), ask=never)
            assert (refused.value.code, refused.value.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_DISPLAY_NAME")
            left = await _lobby_ids(client) - before
            assert not left, f"a refused name left {len(left)} open table(s) in the lobby: {sorted(left)}"

    run(scenario(), 30)


def test_example_bot_with_a_refused_name_leaves_no_table_in_the_lobby(redis_server: EmbeddedRedis) -> None:
    """``python -m hustings.ai.example_bot --name "Bot (random)"`` is refused BAD_DISPLAY_NAME in
    one line with exit status 1 (it ended in a traceback), as README's "ends it with the reason,
    exit status 1" says, and leaves no open table, its server bots seated, in everybody's lobby."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (replica, client):
            before = await _lobby_ids(client)
            done = await asyncio.to_thread(
                subprocess.run,
                [sys.executable, "-m", "hustings.ai.example_bot", "--server", f"127.0.0.1:{replica.port}", "--players", "3",
                 "--name", REFUSED_NAME],
                capture_output=True, text=True, timeout=60,
            )
            assert done.returncode == 1, done.stderr[-2000:]
            assert done.stderr.strip().splitlines() == [done.stderr.strip()] and "BAD_DISPLAY_NAME" in done.stderr, done.stderr[-2000:]
            assert "Traceback" not in done.stderr and "created" not in done.stderr
            args = argparse.Namespace(
                server=f"127.0.0.1:{replica.port}", game="", kind="stimmvieh", players=3, bot_level="",
                name=REFUSED_NAME, seed=1, engine_bot="",
            )
            assert await example_bot.main(args) == 1
            args.name, args.game = "Ada", "g" + "0" * 24  # a game that is not there: the join's refusal alike
            assert await example_bot.main(args) == 1
            left = await _lobby_ids(client) - before
            assert not left, f"a refused name left {len(left)} open table(s) in the lobby: {sorted(left)}"

    run(scenario(), 30)
