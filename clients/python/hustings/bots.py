"""Bots that play through the public API: a random bot and a runner for many games at once.

A bot sees exactly what a person in its seat would see (its GameView) and picks one of the
legal moves listed there, so it works for every game kind without knowing its rules.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Protocol

import grpc

from hustings.client import Client, HustingsError, Joined
from hustings.v1 import game_pb2

GAME_TIMEOUT_S = 600.0
MAX_STEPS_PER_SEAT = 10_000


class Bot(Protocol):
    """Chooses a move from a view that lists at least one legal move."""

    def choose(self, view: game_pb2.GameView) -> game_pb2.Move:
        """One of ``view.legal_moves``."""
        ...


class RandomBot:
    """Picks uniformly among the legal moves."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: game_pb2.GameView) -> game_pb2.Move:
        """A uniformly random legal move."""
        return self.rng.choice(list(view.legal_moves))


@dataclass
class BotStats:
    """Counts over a bot run."""

    games_finished: int = 0
    moves: int = 0
    rejected: int = 0
    errors: int = 0
    error_reasons: dict[str, int] = field(default_factory=dict)

    def error(self, reason: str) -> None:
        """Count an error by reason."""
        self.errors += 1
        self.error_reasons[reason] = self.error_reasons.get(reason, 0) + 1


async def play_seat(client: Client, joined: Joined, bot: Bot, stats: BotStats) -> game_pb2.GameView | None:
    """Play one seat until the game is over; returns the last view."""
    last: game_pb2.GameView | None = None
    steps = 0
    moved_at = 0  # views older than our own last move are stale: we already acted on them
    async for update in client.watch(joined.game_id, joined.token):
        last = update.view
        if last.version < moved_at:
            continue
        while (
            last.status == game_pb2.GAME_STATUS_ACTIVE
            and joined.seat in last.to_act
            and last.legal_moves
            and steps < MAX_STEPS_PER_SEAT
        ):
            steps += 1
            try:
                answer = await client.move(joined.game_id, joined.token, bot.choose(last))
                moved_at = answer.version
                stats.moves += 1
                break  # the stream brings the next view
            except HustingsError as error:
                if error.code in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED):
                    stats.rejected += 1
                    last = await client.view(joined.game_id, joined.token)
                else:
                    stats.error(error.reason or error.code.name)
                    return last
        if last.status == game_pb2.GAME_STATUS_FINISHED or steps >= MAX_STEPS_PER_SEAT:
            return last
    return last


async def play_game(
    client: Client,
    kind: str,
    players: int,
    rng: random.Random,
    stats: BotStats,
    options: game_pb2.GameOptions | None = None,
) -> str:
    """Create a game, seat ``players`` random bots and play it to the end; returns its id."""
    created = await client.create_game(kind, players, options)
    seats = [await client.join(created.game_id, f"Bot {i + 1}") for i in range(players)]
    bots = [RandomBot(random.Random(rng.getrandbits(64))) for _ in seats]
    views = await asyncio.gather(*(play_seat(client, j, b, stats) for j, b in zip(seats, bots)))
    if all(v is not None and v.status == game_pb2.GAME_STATUS_FINISHED for v in views):
        stats.games_finished += 1
    return created.game_id


async def run_bots(
    address: str,
    kind: str,
    games: int,
    players: int,
    *,
    concurrency: int = 8,
    seed: int | None = None,
    options: game_pb2.GameOptions | None = None,
) -> dict[str, object]:
    """Play ``games`` full games through the server at ``address``; returns the summary line."""
    stats = BotStats()
    rng = random.Random(seed)
    limit = asyncio.Semaphore(concurrency)
    started = time.perf_counter()
    game_ids: list[str] = []

    async def one(game_seed: int) -> None:
        async with limit:
            try:
                game_id = await asyncio.wait_for(
                    play_game(client, kind, players, random.Random(game_seed), stats, options), GAME_TIMEOUT_S
                )
                game_ids.append(game_id)
            except HustingsError as error:
                stats.error(error.reason or error.code.name)
            except asyncio.TimeoutError:
                stats.error("GAME_TIMEOUT")

    async with Client(address) as client:
        await asyncio.gather(*(one(rng.getrandbits(64)) for _ in range(games)))
    seconds = time.perf_counter() - started
    return {
        "games_finished": stats.games_finished,
        "moves": stats.moves,
        "rejected": stats.rejected,
        "errors": stats.errors,
        "moves_per_s": round(stats.moves / seconds, 1) if seconds > 0 else 0.0,
        "kind": kind,
        "players": players,
        "games": games,
        "seconds": round(seconds, 2),
        "error_reasons": stats.error_reasons,
        "sample_game_ids": sorted(game_ids)[:3],
    }
