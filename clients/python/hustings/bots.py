"""Bots that play through the public API: a random bot and a runner for many games at once.

A bot sees exactly what a person in its seat would see (its GameView) and picks one of the
legal moves listed there, so it works for every game kind without knowing its rules.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass, field
from typing import Awaitable, Callable, Protocol, Sequence, TypeVar

import grpc

from hustings.client import ONE_ATTEMPT, Client, HustingsError, Joined, RetryPolicy, new_request_id, retrying
from hustings.v1 import game_pb2, game_service_pb2

GAME_TIMEOUT_S = 600.0
MAX_STEPS_PER_SEAT = 10_000

T = TypeVar("T")


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


# Stream breaks after which a watch is resumed (on another replica) from the last version seen.
RETRYABLE = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED, grpc.StatusCode.UNKNOWN}
)
MAX_FAILOVERS = 40
FAILOVER_PAUSE_S = 0.05

# Bots ride out a replica's death or a pause of the store: many short attempts, each sent to
# another replica than the last, under one request id; a minute at most per logical call.
BOT_RETRY = RetryPolicy(max_attempts=20, attempt_timeout_s=5.0, first_backoff_s=0.05, max_backoff_s=1.0)
BOT_CALL_BUDGET_S = 60.0


class Replicas:
    """Clients of several replicas of one service; calls go to a random one and fail over.

    create_game, join and move draw one request id per call and send it on every attempt, each
    attempt to another replica than the one before (see ``hustings.client.retrying``).
    """

    def __init__(
        self,
        clients: Sequence[Client],
        rng: random.Random | None = None,
        retry: RetryPolicy = BOT_RETRY,
        budget_s: float = BOT_CALL_BUDGET_S,
    ) -> None:
        if not clients:
            raise ValueError("at least one client")
        self.clients = list(clients)
        self.rng = rng or random.Random()
        self.retry = retry
        self.budget_s = budget_s

    def pick(self, avoid: Client | None = None) -> Client:
        """A random replica's client, other than ``avoid`` when there is a choice."""
        others = [c for c in self.clients if c is not avoid] or self.clients
        return self.rng.choice(others)

    async def _failing_over(self, call: Callable[[Client], Awaitable[T]]) -> T:
        """``call`` on one replica per attempt; the attempt's own client does not retry."""
        tried: list[Client] = []

        async def attempt(_number: int, timeout_s: float) -> T:
            client = self.pick(tried[-1] if tried else None)
            tried.append(client)
            return await call(client.with_retry(ONE_ATTEMPT, timeout_s))

        return await retrying(attempt, self.retry, self.budget_s, self.rng)

    async def create_game(
        self, kind: str, players: int, options: game_pb2.GameOptions | None = None
    ) -> game_service_pb2.CreateGameResponse:
        """Create one game, whichever replicas the attempts reach."""
        request_id = new_request_id()
        return await self._failing_over(lambda c: c.create_game(kind, players, options, request_id=request_id))

    async def join(self, game_id: str, display_name: str) -> Joined:
        """Take one seat, whichever replicas the attempts reach (the last answer's token)."""
        request_id = new_request_id()
        return await self._failing_over(lambda c: c.join(game_id, display_name, request_id=request_id))

    async def move(
        self, game_id: str, token: str, move: game_pb2.Move, request_id: str | None = None
    ) -> game_service_pb2.SubmitMoveResponse:
        """Submit once under one request id, retried on other replicas until one answers."""
        same_id = request_id or new_request_id()
        return await self._failing_over(lambda c: c.move(game_id, token, move, request_id=same_id))


async def play_seat(
    replicas: "Replicas | Client", joined: Joined, bot: Bot, stats: BotStats
) -> game_pb2.GameView | None:
    """Play one seat until the game is over, following it over WatchGame; returns the last view.

    Streams that break (a replica stopping or dying) are resumed on another replica from the
    last version seen; moves are retried under the same request id, so none is applied twice.
    """
    pool = replicas if isinstance(replicas, Replicas) else Replicas([replicas])
    last: game_pb2.GameView | None = None
    steps = reconnects = 0
    moved_at = 0  # views older than our own last move are stale: we already acted on them
    while steps < MAX_STEPS_PER_SEAT and reconnects < MAX_FAILOVERS:
        seen = last.version if last is not None else 0
        try:
            # Resume one version early so that the first update carries the current view.
            async for update in pool.pick().watch(joined.game_id, joined.token, from_version=max(0, seen - 1)):
                last = update.view
                if last.status == game_pb2.GAME_STATUS_FINISHED:
                    return last
                if last.version < moved_at or joined.seat not in last.to_act or not last.legal_moves:
                    continue
                steps += 1
                try:
                    answer = await pool.move(joined.game_id, joined.token, bot.choose(last))
                except HustingsError as error:
                    if error.code not in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED):
                        raise
                    stats.rejected += 1
                    break  # look again from a fresh stream
                moved_at = answer.version
                stats.moves += 1
        except HustingsError as error:
            if error.code not in RETRYABLE:
                stats.error(error.reason or error.code.name)
                return last
            reconnects += 1
            await asyncio.sleep(FAILOVER_PAUSE_S)
    if last is None or last.status != game_pb2.GAME_STATUS_FINISHED:
        stats.error("SEAT_GAVE_UP")
    return last


async def play_game(
    pool: Replicas,
    kind: str,
    players: int,
    rng: random.Random,
    stats: BotStats,
    options: game_pb2.GameOptions | None = None,
) -> str:
    """Create a game, seat ``players`` random bots and play it to the end; returns its id."""
    created = await pool.create_game(kind, players, options)
    seats = [await pool.join(created.game_id, f"Bot {i + 1}") for i in range(players)]
    bots = [RandomBot(random.Random(rng.getrandbits(64))) for _ in seats]
    views = await asyncio.gather(*(play_seat(pool, j, b, stats) for j, b in zip(seats, bots)))
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
    """Play ``games`` full games through the server at ``address`` (several replicas: comma
    separated, calls spread over them at random); returns the summary line."""
    stats = BotStats()
    rng = random.Random(seed)
    limit = asyncio.Semaphore(concurrency)
    started = time.perf_counter()
    game_ids: list[str] = []

    async def one(game_seed: int) -> None:
        async with limit:
            try:
                game_id = await asyncio.wait_for(
                    play_game(pool, kind, players, random.Random(game_seed), stats, options), GAME_TIMEOUT_S
                )
                game_ids.append(game_id)
            except HustingsError as error:
                stats.error(error.reason or error.code.name)
            except asyncio.TimeoutError:
                stats.error("GAME_TIMEOUT")

    clients = [Client(a.strip()) for a in address.split(",") if a.strip()]
    pool = Replicas(clients, random.Random(rng.getrandbits(64)))
    try:
        await asyncio.gather(*(one(rng.getrandbits(64)) for _ in range(games)))
    finally:
        for client in clients:
            await client.close()
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
