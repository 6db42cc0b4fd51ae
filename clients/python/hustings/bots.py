"""Bots that play through the public API: a random bot and a runner for many games at once.

A bot sees exactly what a person in its seat would see (its GameView) and picks one of the
legal moves listed there, so it works for every game kind without knowing its rules.

The runner can also seat players who never answer, on tables with a clock: the server makes
their decisions when their time runs out, and their seat's bot plays once they are absent.
"""

from __future__ import annotations

import asyncio
import bisect
import math
import random
import time
from dataclasses import dataclass, field
from typing import Awaitable, Callable, Protocol, Sequence, TypeVar

import grpc

from hustings.client import (
    ONE_ATTEMPT, RETRY_CODES, Client, HustingsError, Joined, RetryPolicy, hinted_pause_s, new_request_id, retrying,
)
from hustings.v1 import game_pb2, game_service_pb2

GAME_TIMEOUT_S = 600.0
MAX_STEPS_PER_SEAT = 10_000
# A seat's stream may fall quiet (players who take long, a lost wake-up, a replica that stopped
# sending): after this long without an update the view is read again from a new stream. A quiet
# spell is no failure while the game goes on: the seat is given up only after more than so many
# streams in a row ended without the game's version advancing (quiet, or closed or broken after
# bringing the view; GAME_TIMEOUT_S of a game standing still when they all fall quiet).
WATCH_IDLE_S = 5.0
MAX_IDLE_REREADS = int(GAME_TIMEOUT_S / WATCH_IDLE_S)
# Timeouts in a row after which a seat that never answers is absent (its bot then plays at once).
ABSENT_AFTER_TIMEOUTS = 2

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
    rejected: int = 0  # moves refused (illegal, not the seat's turn), STALE_VERSION aside
    stale: int = 0  # decisions that came too late: refused STALE_VERSION (the table moved on) or TIME_RUN_OUT (the seat's bot decides)
    errors: int = 0
    timeouts: int = 0
    rereads: int = 0  # streams given up after WATCH_IDLE_S without an update
    reopened: int = 0  # streams opened again after a break (a replica stopping or dying)
    returns: int = 0  # times a seat found itself absent and came back by its own ReturnToGame
    error_reasons: dict[str, int] = field(default_factory=dict)

    def error(self, reason: str) -> None:
        """Count an error by reason."""
        self.errors += 1
        self.error_reasons[reason] = self.error_reasons.get(reason, 0) + 1


# Stream breaks after which a watch is resumed (on another replica) from the last version seen.
RETRYABLE = frozenset(
    {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED, grpc.StatusCode.UNKNOWN}
)
# Streams refused with a retry hint (the address at its rate of calls) that a seat waits out.
MAX_PACED_WAITS = 1_000
_PACE_RNG = random.Random()  # jitter of those waits, so that a crowd of seats does not come back at once

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
        self,
        kind: str,
        players: int,
        options: game_pb2.GameOptions | None = None,
        table: game_pb2.TableSettings | None = None,
    ) -> game_service_pb2.CreateGameResponse:
        """Create one game, whichever replicas the attempts reach."""
        request_id = new_request_id()
        return await self._failing_over(
            lambda c: c.create_game(kind, players, options, request_id=request_id, table=table)
        )

    async def history(self, game_id: str, token: str | None = None) -> list[game_pb2.HistoryEntry]:
        """The caller's history of the game, from whichever replica answers."""
        return await self._failing_over(lambda c: c.history(game_id, token))

    async def view(self, game_id: str, token: str | None = None) -> game_pb2.GameView:
        """The caller's view of the game, from whichever replica answers."""
        return await self._failing_over(lambda c: c.view(game_id, token))

    async def join(self, game_id: str, display_name: str) -> Joined:
        """Take one seat, whichever replicas the attempts reach (the last answer's token)."""
        request_id = new_request_id()
        return await self._failing_over(lambda c: c.join(game_id, display_name, request_id=request_id))

    async def move(
        self,
        game_id: str,
        token: str,
        move: game_pb2.Move,
        request_id: str | None = None,
        expected_version: int | None = None,
    ) -> game_service_pb2.SubmitMoveResponse:
        """Submit once under one request id, retried on other replicas until one answers. With
        ``expected_version`` (the version of the view the move was chosen on) a table that moved
        on meanwhile refuses it ABORTED STALE_VERSION rather than take it at a later turn."""
        same_id = request_id or new_request_id()
        return await self._failing_over(
            lambda c: c.move(game_id, token, move, expected_version=expected_version, request_id=same_id)
        )

    async def return_to_game(self, game_id: str, token: str) -> game_service_pb2.ReturnToGameResponse:
        """Come back to an absent seat, whichever replica answers. An attempt refused
        NOT_ABSENT after one that may have been applied (its answer lost) answers with the
        seat's view, as ``Client.return_to_game`` does on one replica; NOT_ABSENT before any
        such attempt is raised: the seat was back already, and not by this call."""
        possibly_applied = False

        async def attempt(client: Client) -> game_service_pb2.ReturnToGameResponse:
            nonlocal possibly_applied
            try:
                return await client.return_to_game(game_id, token)
            except HustingsError as error:
                if error.reason == "NOT_ABSENT" and possibly_applied:
                    return game_service_pb2.ReturnToGameResponse(view=await client.view(game_id, token))
                possibly_applied = possibly_applied or error.code in RETRY_CODES
                raise

        return await self._failing_over(attempt)


async def play_seat(
    replicas: "Replicas | Client",
    joined: Joined,
    bot: Bot | None,
    stats: BotStats,
    idle_s: float = WATCH_IDLE_S,
) -> game_pb2.GameView | None:
    """Play one seat until the game is over, following it over WatchGame; returns the last view.

    Streams that break (a replica stopping or dying) are resumed on another replica from the
    last version seen, after pauses growing as those of the pool's calls (``pool.retry``) and
    for as long as one call may take (``pool.budget_s``) since a stream last brought an update:
    a replica that restarts, the only one there is, is waited for. Moves are retried under the
    same request id, so none is applied twice, and carry the version of the view they were
    chosen on: one whose table moved on meanwhile is refused and the seat looks again.
    A seat found absent (it timed out too often, or left) is taken back first (ReturnToGame),
    since its server-side bot would otherwise decide every one of its decisions at once; a
    return refused GAME_OVER (the game ended first) ends the seat with its final view.
    Steps made by others, the server's timeouts and bots included, arrive on the same stream;
    a stream quiet for ``idle_s`` is given up and the view read again from a new one, so a
    wake-up that never comes cannot stall the seat. The seat is given up only once more than
    ``MAX_IDLE_REREADS`` streams in a row ended (quiet, or closed or broken after bringing the
    view) without the game moving on. Without a ``bot`` (and with an empty token for a
    spectator) it only follows the game to its end.
    """
    pool = replicas if isinstance(replicas, Replicas) else Replicas([replicas])
    clock = asyncio.get_running_loop()
    last: game_pb2.GameView | None = None
    steps = paced = 0
    quiet = 0  # streams ended (quiet, or closed or broken after an update) since the version last advanced
    reached = -1  # the highest version seen
    breaks = 0  # stream breaks since a stream last brought an update
    broken_since = 0.0  # when the first of them happened
    moved_at = 0  # views older than our own last move are stale: we already acted on them
    while steps < MAX_STEPS_PER_SEAT and quiet <= MAX_IDLE_REREADS:
        seen = last.version if last is not None else 0
        # Resume one version early so that the first update carries the current view.
        stream = pool.pick().watch(joined.game_id, joined.token or None, from_version=max(0, seen - 1))
        brought = False  # whether this stream brought an update: it worked, whatever ends it
        try:
            while True:
                try:
                    # asyncio.timeout, not wait_for: no extra task per update on the hot path.
                    async with asyncio.timeout(idle_s):
                        update = await stream.__anext__()
                except StopAsyncIteration:
                    quiet += 1
                    break
                except TimeoutError:
                    quiet += 1
                    stats.rereads += 1
                    break  # quiet too long: read the view again from a new stream
                brought, breaks = True, 0
                last = update.view
                if last.version > reached:
                    reached, quiet = last.version, 0
                if last.status == game_pb2.GAME_STATUS_FINISHED:
                    return last
                if bot is None or last.version < moved_at:
                    continue
                if last.status == game_pb2.GAME_STATUS_ACTIVE and any(s.seat == joined.seat and s.absent for s in last.seats):
                    # Absent (timed out too often, or left): the seat's own server-side bot
                    # decides at once, ahead of any move of ours, until we come back.
                    try:
                        moved_at = (await pool.return_to_game(joined.game_id, joined.token)).view.version
                        stats.returns += 1
                    except HustingsError as error:
                        if error.reason == "GAME_OVER":
                            # The game ended before the return reached it: the seat's final view.
                            final = await pool.view(joined.game_id, joined.token)
                            if final.status == game_pb2.GAME_STATUS_FINISHED:
                                return final
                            raise  # a guard (a server refuses GAME_OVER once the game is over): the seat ends with the reason counted
                        if error.reason != "NOT_ABSENT":  # back already: another program of this seat came back
                            raise
                    continue
                if joined.seat not in last.to_act or not last.legal_moves:
                    continue
                steps += 1
                try:
                    answer = await pool.move(joined.game_id, joined.token, bot.choose(last), expected_version=last.version)
                except HustingsError as error:
                    if error.code not in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED):
                        raise
                    if error.reason == "TIME_RUN_OUT":
                        # The seat's time ran out: its bot makes this decision. Wait on this
                        # stream for the step that comes of it; a fresh stream would bring the
                        # same table, and the same refusal, until the bot has decided.
                        stats.stale += 1
                        moved_at = last.version + 1
                        continue
                    if error.reason == "STALE_VERSION":
                        stats.stale += 1  # another seat acted first (several decide at once, a timeout)
                        break  # look again from a fresh stream
                    # Refused for a reason of the move's own (a bot that chose wrongly): the same
                    # table would bring the same choice and the same refusal, at once and again
                    # (976 in 3 s). Wait on this stream for the table to move on; if it never
                    # does, the seat falls quiet and is given up.
                    stats.rejected += 1
                    moved_at = last.version + 1
                    continue
                moved_at = answer.version
                stats.moves += 1
        except HustingsError as error:
            if error.retry_after_s is not None and paced < MAX_PACED_WAITS:
                # Refused with a retry hint (the address at its rate of calls, which opening a
                # stream counts towards): follow on once the hint has passed.
                paced += 1
                await asyncio.sleep(hinted_pause_s(error.retry_after_s, _PACE_RNG))
                continue
            if error.code not in RETRYABLE:
                stats.error(error.reason or error.code.name)
                return last
            if brought:
                quiet += 1  # a stream that worked, then broke: counted as one that fell quiet
            now = clock.time()
            if breaks == 0:
                broken_since = now
            pause = pool.retry.backoff_s(breaks, pool.rng)
            if now + pause - broken_since > pool.budget_s:
                break  # no replica has answered for as long as a call may take
            breaks += 1
            stats.reopened += 1
            await asyncio.sleep(pause)
        finally:
            await stream.aclose()
    if last is None or last.status != game_pb2.GAME_STATUS_FINISHED:
        stats.error("SEAT_GAVE_UP")
    return last


def timeouts_in(history: Sequence[game_pb2.HistoryEntry]) -> int:
    """How many decisions of a game were made by the server because a seat's time ran out."""
    timed_out = game_pb2.SeatChanged.CHANGE_TIMED_OUT
    return sum(
        1 for entry in history for event in entry.events
        if event.HasField("seat_changed") and event.seat_changed.change == timed_out
    )


def table_problem(players: int, absent_seats: int, move_seconds: int) -> str | None:
    """Why seats that never answer and a move clock do not make a game that can finish
    (None when they do)."""
    if move_seconds < 0:
        return "--move-seconds must be 0 (no clock) or more"
    if not 0 <= absent_seats <= players:
        return f"--absent-seats must be 0 to --players ({players})"
    if absent_seats and not move_seconds:
        return "--absent-seats needs --move-seconds: without a clock nobody decides for a seat that never answers"
    return None


async def play_game(
    pool: Replicas,
    kind: str,
    players: int,
    rng: random.Random,
    stats: BotStats,
    options: game_pb2.GameOptions | None = None,
    table: game_pb2.TableSettings | None = None,
    absent_seats: int = 0,
) -> str:
    """Create a game, seat ``players`` random bots and play it to the end; returns its id.

    ``absent_seats`` of the seats (chosen at random) are joined but never answer: on a table
    with a clock the server decides for them. Their timeouts are counted from the history.
    """
    created = await pool.create_game(kind, players, options, table)
    silent = set(rng.sample(range(players), absent_seats))
    seats = [
        await pool.join(created.game_id, f"Absent {i + 1}" if i in silent else f"Bot {i + 1}") for i in range(players)
    ]
    playing = [j for j in seats if j.seat not in silent]
    bots = [RandomBot(random.Random(rng.getrandbits(64))) for _ in playing]
    if not playing:  # nobody answers: follow the game as a spectator until the server ends it
        spectator = Joined(created.game_id, -1, "", created.view)
        views = [await play_seat(pool, spectator, None, stats)]
    else:
        views = await asyncio.gather(*(play_seat(pool, j, b, stats) for j, b in zip(playing, bots)))
    if all(v is not None and v.status == game_pb2.GAME_STATUS_FINISHED for v in views):
        stats.games_finished += 1
        if table is not None and (table.decision_seconds or table.bank_seconds):
            # Read before adding: ``stats.timeouts += await …`` would add to a value read before
            # the await, losing what other games counted meanwhile.
            timeouts = timeouts_in(await pool.history(created.game_id))
            stats.timeouts += timeouts
    return created.game_id


SAMPLE_GAME_IDS = 3  # game ids in the summary line
# Seats (each following its game on a stream) per connection to a replica, on average: a replica
# lets a connection from a client hold 96 streams, and the seats are spread at random.
STREAMS_PER_CONNECTION = 60


async def run_bots(
    address: str,
    kind: str,
    games: int,
    players: int,
    *,
    concurrency: int = 8,
    seed: int | None = None,
    options: game_pb2.GameOptions | None = None,
    absent_seats: int = 0,
    move_seconds: int = 0,
) -> dict[str, object]:
    """Play ``games`` full games through the server at ``address`` (several replicas: comma
    separated, calls spread over them at random); returns the summary line.

    With ``move_seconds`` the tables have that clock per decision; ``absent_seats`` seats of
    each game never answer (see ``play_game``) and ``timeouts`` counts the decisions the
    server made for them when their time ran out.
    """
    problem = table_problem(players, absent_seats, move_seconds)
    if problem is not None:
        raise ValueError(problem)
    table = (
        game_pb2.TableSettings(decision_seconds=move_seconds, absent_after_timeouts=ABSENT_AFTER_TIMEOUTS)
        if move_seconds
        else None
    )
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    stats = BotStats()
    rng = random.Random(seed)
    started = time.perf_counter()
    sample_ids: list[str] = []  # the least few game ids (sorted), for the summary
    taken = 0  # games handed to a worker so far

    async def worker() -> None:
        # ``concurrency`` workers take the games one by one: what is held does not grow with
        # ``games``, and the i-th game still gets the i-th seed.
        nonlocal taken
        while taken < games:
            taken += 1
            game_seed = rng.getrandbits(64)
            try:
                game_id = await asyncio.wait_for(
                    play_game(pool, kind, players, random.Random(game_seed), stats, options, table, absent_seats),
                    GAME_TIMEOUT_S,
                )
                bisect.insort(sample_ids, game_id)
                del sample_ids[SAMPLE_GAME_IDS:]
            except HustingsError as error:
                stats.error(error.reason or error.code.name)
            except asyncio.TimeoutError:
                stats.error("GAME_TIMEOUT")

    workers = min(concurrency, games)
    # Each seat follows its game on a stream, on a connection drawn at random: a replica lets a
    # connection hold 96 streams (past them TOO_MANY_STREAMS_FOR_CLIENT), so the seats at play
    # are spread over connections of about STREAMS_PER_CONNECTION each.
    connections = max(1, math.ceil(workers * players / STREAMS_PER_CONNECTION))
    addresses = [a.strip() for a in address.split(",") if a.strip()]
    clients = [Client(a, own_connection=connections > 1) for a in addresses for _ in range(connections)]
    pool = Replicas(clients, random.Random(rng.getrandbits(64)))
    try:
        await asyncio.gather(*(worker() for _ in range(workers)))
    finally:
        for client in clients:
            await client.close()
    seconds = time.perf_counter() - started
    return {
        "games_finished": stats.games_finished,
        "moves": stats.moves,
        "rejected": stats.rejected,
        "errors": stats.errors,
        "timeouts": stats.timeouts,
        "moves_per_s": round(stats.moves / seconds, 1) if seconds > 0 else 0.0,
        "kind": kind,
        "players": players,
        "games": games,
        "absent_seats": absent_seats,
        "move_seconds": move_seconds,
        "seconds": round(seconds, 2),
        "error_reasons": stats.error_reasons,
        "sample_game_ids": sample_ids,
    }
