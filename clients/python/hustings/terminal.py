"""Play a game in the terminal against random bots, through the public API like any front end."""

from __future__ import annotations

import asyncio
import random
import sys

from google.protobuf import json_format, text_format

from hustings.bots import BotStats, RandomBot, play_seat
from hustings.client import Client, HustingsError
from hustings.tables import PICTURES
from hustings.v1 import game_pb2


def _call(name: str, value: object) -> str:
    if isinstance(value, dict):
        return f"{name}(" + ", ".join(_call(k, v) if isinstance(v, dict) else f"{k}={v!r}" for k, v in value.items()) + ")"
    return f"{name}={value!r}"


def describe_move(move: game_pb2.Move) -> str:
    """A one-line description of a move, e.g. ``play_politician(influence=7, take_card_id='D03')``."""
    field = move.WhichOneof("game")
    inner = json_format.MessageToDict(getattr(move, field) if field else move, preserving_proto_field_name=True)
    return " ".join(_call(name, value) for name, value in inner.items()) or "(nothing)"


def render(view: game_pb2.GameView) -> str:
    """The caller's view as text: whose turn, the game's own view, the outcome once over."""
    lines = [f"--- {view.kind} {view.game_id} version {view.version} ---"]
    names = {s.seat: s.display_name for s in view.seats}
    field = view.WhichOneof("game")
    if field in PICTURES:
        lines.append(PICTURES[field](view))
    elif field:
        lines.append(text_format.MessageToString(getattr(view, field)).rstrip())
    if view.to_act:
        lines.append("to act: " + ", ".join(f"{names.get(s, s)} (seat {s})" for s in view.to_act))
    if view.status == game_pb2.GAME_STATUS_FINISHED:
        lines.append("Game over.")
        for placing in view.outcome.placings:
            lines.append(f"  {placing.rank}. {placing.name}: {placing.score} {placing.detail}")
        lines.append(f"seed {view.seed} (commitment {view.seed_commitment})")
    return "\n".join(lines)


async def _ask(prompt: str) -> str | None:
    loop = asyncio.get_running_loop()
    try:
        return await loop.run_in_executor(None, lambda: input(prompt))
    except EOFError:
        return None


async def play_in_terminal(address: str, kind: str, players: int, name: str) -> int:
    """Create a game, take seat 0, fill the other seats with bots, and play until it ends."""
    async with Client(address) as client:
        created = await client.create_game(kind, players)
        me = await client.join(created.game_id, name)
        stats = BotStats()
        bots = []
        for i in range(1, players):
            joined = await client.join(created.game_id, f"Bot {i}")
            bots.append(asyncio.create_task(play_seat(client, joined, RandomBot(random.Random(i)), stats)))
        print(f"You are seat {me.seat} in game {created.game_id}.")
        try:
            async for update in client.watch(me.game_id, me.token):
                view = update.view
                if view.status == game_pb2.GAME_STATUS_FINISHED:
                    print(render(view))
                    return 0
                if me.seat not in view.to_act or not view.legal_moves:
                    continue
                print(render(view))
                moves = list(view.legal_moves)
                for number, move in enumerate(moves, 1):
                    print(f"  [{number}] {describe_move(move)}")
                while True:
                    answer = await _ask(f"your move (1-{len(moves)}, q to quit): ")
                    if answer is None or answer.strip().lower() == "q":
                        return 0
                    if answer.strip().isdigit() and 1 <= int(answer) <= len(moves):
                        break
                    print("please type the number of a move")
                try:
                    await client.move(me.game_id, me.token, moves[int(answer) - 1])
                except HustingsError as error:
                    print(f"refused: {error.reason}: {error.message}", file=sys.stderr)
        finally:
            for task in bots:
                task.cancel()
    return 0
