"""``hustings loadtest``: SubmitMove throughput and latency through several replicas, against a
floor measured in the same run, then what WatchGame streams cost.

The floor is a bare gRPC call that makes one Redis round trip (``--benchmark-floor`` on the
replicas). Each of C clients drives whole games of its own (it holds every seat's token and
chose the seed, so it knows the legal moves by running the same engine in lockstep), which keeps
exactly C moves in flight, each one SubmitMove and nothing else.

The watcher phase holds W WatchGame streams from WATCH_CLIENTS channels over a few games and
reports how many the replicas held, the replicas' memory per stream, and the fan-out latency of
each update (from sending the move to its arrival on each stream).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pathlib
import random
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
import zlib
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Iterator

import grpc

from hustings.client import Client, HustingsError
from hustings.engine import Rng, get_game
from hustings.service.embedded_redis import free_port, wait_for_port
from hustings.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc

FLOOR_METHOD = "/hustings.bench.Floor/RoundTrip"
START_TIMEOUT_S = 30.0
WATCH_CLIENTS = 30  # channels the watcher phase spreads its streams over
WATCHERS_PER_GAME = 100
WATCH_ROUNDS = 5  # moves per game in the watcher phase
WATCH_WAIT_S = 60.0  # bound on waiting for streams to open or for one update to reach them all


@contextlib.contextmanager
def replica_processes(redis_url: str, count: int) -> Iterator[list[tuple[str, int]]]:
    """``count`` replica processes serving the floor call too; yields (address, pid) pairs."""
    processes = []
    addresses = []
    try:
        for _ in range(count):
            port = free_port()
            processes.append(
                subprocess.Popen(
                    [sys.executable, "-m", "hustings.cli", "serve", "--address", f"127.0.0.1:{port}", "--http-address", "",
                     "--redis-url", redis_url, "--allow-client-seed", "--benchmark-floor", "--log-level", "error"],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
            addresses.append(f"127.0.0.1:{port}")
        for address in addresses:
            wait_for_port(int(address.rsplit(":", 1)[1]), START_TIMEOUT_S)
        yield [(address, process.pid) for address, process in zip(addresses, processes)]
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()


def cpu_seconds(pids: list[int]) -> float | None:
    """CPU time (user + system) the processes have used so far, or None where /proc is missing."""
    total = 0.0
    try:
        for pid in pids:
            fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None
    return total


@dataclass
class Sampler:
    """Latencies (seconds) and counts of one phase."""

    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    error_reasons: dict[str, int] = field(default_factory=dict)

    def percentile_ms(self, q: float) -> float:
        """The q-quantile of the latencies, in milliseconds."""
        if not self.latencies:
            return 0.0
        ordered = sorted(self.latencies)
        return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 3)

    def error(self, reason: str) -> None:
        """Count a failed call."""
        self.errors += 1
        self.error_reasons[reason] = self.error_reasons.get(reason, 0) + 1


async def _floor_phase(addresses: list[str], clients: int, seconds: float, pids: list[int]) -> tuple[Sampler, float, float | None]:
    channels = [grpc.aio.insecure_channel(a) for a in addresses]
    calls = [c.unary_unary(FLOOR_METHOD) for c in channels]
    sampler = Sampler()
    rng = random.Random(1)
    deadline = time.perf_counter() + seconds

    async def loop() -> None:
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            try:
                await rng.choice(calls)(b"", timeout=10)
                sampler.latencies.append(time.perf_counter() - started)
            except grpc.aio.AioRpcError as error:
                sampler.error(error.code().name)

    cpu_before = cpu_seconds(pids)
    begun = time.perf_counter()
    await asyncio.gather(*(loop() for _ in range(clients)))
    elapsed = time.perf_counter() - begun
    cpu_after = cpu_seconds(pids)
    for channel in channels:
        await channel.close()
    cpu = cpu_after - cpu_before if cpu_before is not None and cpu_after is not None else None
    return sampler, elapsed, cpu


@dataclass
class PreparedGame:
    """A created, fully seated game and the whole sequence of its moves, worked out beforehand."""

    game_id: str
    tokens: list[str]
    moves: list[tuple[int, game_pb2.Move]]


async def _prepare(pool: list[Client], kind: str, players: int, rng: random.Random) -> PreparedGame:
    """Create and seat a game with a seed of ours, and play it through locally with the same
    engine, so that the timed phase sends nothing but SubmitMove."""
    game = get_game(kind)
    assert game is not None
    seed = secrets.token_bytes(32)
    options = game_pb2.GameOptions(players=players)
    created = await rng.choice(pool).create_game(kind, players, options, seed=seed.hex())
    tokens = [(await rng.choice(pool).join(created.game_id, f"T{i}")).token for i in range(players)]
    local_rng = Rng(seed)
    state = game.setup(game.options_from_proto(options), local_rng)
    moves = []
    while not game.is_over(state):
        seat = min(game.to_act(state))
        move = rng.choice(game.legal_moves(state, seat))
        message = game_pb2.Move()
        game.move_to_proto(move, message)
        moves.append((seat, message))
        state, _events = game.apply(state, seat, move, local_rng)
    return PreparedGame(created.game_id, tokens, moves)


async def _table(
    pool: list[Client], games: list[PreparedGame], rng: random.Random, sampler: Sampler, deadline: float, routing: str
) -> tuple[int, int]:
    """Play prepared games one move in flight at a time until the deadline; (moves, games finished).

    ``routing`` "game" sends every move of a game to one replica (as a balancer hashing the
    x-hustings-game header does), "random" sends each move to any replica.
    """
    moves = finished = 0
    for prepared in games:
        home = pool[zlib.crc32(prepared.game_id.encode()) % len(pool)]
        for seat, message in prepared.moves:
            if time.perf_counter() >= deadline:
                return moves, finished
            started = time.perf_counter()
            target = home if routing == "game" else rng.choice(pool)
            try:
                await target.move(prepared.game_id, prepared.tokens[seat], message)
            except HustingsError as error:
                sampler.error(error.reason or error.code.name)
                break
            sampler.latencies.append(time.perf_counter() - started)
            moves += 1
        else:
            finished += 1
    return moves, finished


async def _move_phase(
    addresses: list[str], clients: int, seconds: float, kind: str, players: int, expected_rate: float, pids: list[int],
    routing: str,
) -> tuple[Sampler, float, int, int, float | None]:
    pool = [Client(a) for a in addresses]
    sampler = Sampler()
    rng = random.Random(7)
    # Enough prepared games that no client runs dry even at the floor's rate.
    sample = await _prepare(pool, kind, players, rng)
    per_client = max(1, int(expected_rate * seconds * 1.3 / clients / max(1, len(sample.moves))) + 1)

    async def prepare_table(first: list[PreparedGame], seed: int) -> list[PreparedGame]:
        games, table_rng = list(first), random.Random(seed)
        while len(games) < per_client:
            games.append(await _prepare(pool, kind, players, table_rng))
        return games

    tables = await asyncio.gather(*(prepare_table([sample] if i == 0 else [], i) for i in range(clients)))
    cpu_before = cpu_seconds(pids)
    deadline = time.perf_counter() + seconds
    begun = time.perf_counter()
    results = await asyncio.gather(
        *(_table(pool, t, random.Random(i), sampler, deadline, routing) for i, t in enumerate(tables))
    )
    elapsed = time.perf_counter() - begun
    cpu_after = cpu_seconds(pids)
    for client in pool:
        await client.close()
    cpu = cpu_after - cpu_before if cpu_before is not None and cpu_after is not None else None
    return sampler, elapsed, sum(m for m, _ in results), sum(f for _, f in results), cpu


def rss_bytes(pids: list[int]) -> int | None:
    """Resident memory of the processes together, or None where /proc is missing."""
    total = 0
    try:
        for pid in pids:
            for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return total


@dataclass
class WatchFigures:
    """What the watcher phase saw."""

    held: int = 0
    rss_per_stream_kib: float | None = None
    fanout: Sampler = field(default_factory=Sampler)
    missed: int = 0  # updates some stream never saw
    cpu_ms_per_update: float | None = None  # replica CPU per update delivered to one stream


async def _watch_phase(addresses: list[str], pids: list[int], watchers: int, kind: str, players: int) -> WatchFigures:
    """Hold ``watchers`` spectator streams over a few games, move every game WATCH_ROUNDS times,
    and time each update's arrival on every stream."""
    figures = WatchFigures()
    rng = random.Random(11)
    pool = [Client(a) for a in addresses]
    games = [await _prepare(pool, kind, players, rng) for _ in range(max(1, watchers // WATCHERS_PER_GAME))]
    start = players + 1  # the version once every seat is taken
    # Each on a connection of its own (gRPC would share one among a process's channels to one
    # address), as clients on other machines would be; the replicas count streams per connection.
    channels = [
        grpc.aio.insecure_channel(addresses[i % len(addresses)], options=[("grpc.use_local_subchannel_pool", 1)])
        for i in range(WATCH_CLIENTS)
    ]
    stubs = [game_service_pb2_grpc.GameServiceStub(c) for c in channels]
    seen: list[dict[int, float]] = [{} for _ in range(watchers)]
    opened = asyncio.Semaphore(0)

    async def follow(i: int) -> None:
        prepared = games[i % len(games)]
        # From one version back: the first update arrives at once and shows the stream is open.
        request = game_service_pb2.WatchGameRequest(game_id=prepared.game_id, from_version=start - 1)
        call = stubs[i % len(stubs)].WatchGame(request)
        first = True
        try:
            async for update in call:
                now = time.perf_counter()
                for entry in update.entries:
                    seen[i][entry.version] = now
                if first:
                    first = False
                    opened.release()
        except grpc.aio.AioRpcError as error:
            figures.fanout.error(error.code().name)
            if first:
                opened.release()

    before = rss_bytes(pids)
    tasks = [asyncio.create_task(follow(i)) for i in range(watchers)]
    try:
        async with asyncio.timeout(WATCH_WAIT_S):
            for _ in range(watchers):
                await opened.acquire()
        figures.held = sum(1 for s in seen if start in s)
        after = rss_bytes(pids)
        if before is not None and after is not None and figures.held:
            figures.rss_per_stream_kib = round((after - before) / figures.held / 1024, 2)
        cpu_before = cpu_seconds(pids)
        for round_ in range(WATCH_ROUNDS):
            version = start + round_ + 1
            sent: dict[str, float] = {}

            async def move(prepared: PreparedGame) -> None:
                seat, message = prepared.moves[round_]
                sent[prepared.game_id] = time.perf_counter()
                await pool[0].move(prepared.game_id, prepared.tokens[seat], message)

            await asyncio.gather(*(move(g) for g in games))
            deadline = time.perf_counter() + WATCH_WAIT_S
            while time.perf_counter() < deadline and any(version not in s for s in seen if start in s):
                await asyncio.sleep(0.05)
            for i, s in enumerate(seen):
                if start not in s:
                    continue
                arrived = s.get(version)
                if arrived is None:
                    figures.missed += 1
                else:
                    figures.fanout.latencies.append(arrived - sent[games[i % len(games)].game_id])
        cpu_after = cpu_seconds(pids)
        if cpu_before is not None and cpu_after is not None:
            figures.cpu_ms_per_update = _per_call_ms(cpu_after - cpu_before, len(figures.fanout.latencies))
    except (TimeoutError, HustingsError) as error:
        figures.fanout.error(getattr(error, "reason", "") or type(error).__name__)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for channel in channels:
            await channel.close()
        for client in pool:
            await client.close()
    return figures


@contextlib.asynccontextmanager
async def _redis(url: str) -> AsyncIterator[str]:
    if url:
        yield url
        return
    from hustings.service.embedded_redis import EmbeddedRedis

    with tempfile.TemporaryDirectory(prefix="hustings-load-") as folder:
        server = EmbeddedRedis(pathlib.Path(folder), appendonly=False).start()
        try:
            yield server.url
        finally:
            server.stop()


def _per_call_ms(cpu: float | None, calls: int) -> float | None:
    return round(cpu * 1000 / calls, 3) if cpu is not None and calls else None


async def loadtest(
    replicas: int = 3,
    clients: int = 16,
    seconds: float = 15.0,
    kind: str = "stimmvieh",
    players: int = 4,
    redis_url: str = "",
    routing: str = "game",
    watchers: int = 1_000,
) -> dict[str, Any]:
    """Run the floor phase, the move phase, then the watcher phase (unless ``watchers`` is 0);
    the summary as one JSON-ready dict."""
    async with _redis(redis_url) as url:
        with replica_processes(url, replicas) as started:
            addresses = [address for address, _ in started]
            pids = [pid for _, pid in started]
            floor, floor_s, floor_cpu = await _floor_phase(addresses, clients, seconds, pids)
            floor_rate = len(floor.latencies) / floor_s if floor_s else 0.0
            moves, moves_s, count, finished, moves_cpu = await _move_phase(
                addresses, clients, seconds, kind, players, floor_rate, pids, routing
            )
            watch = await _watch_phase(addresses, pids, watchers, kind, players) if watchers > 0 else WatchFigures()
    move_rate = count / moves_s if moves_s else 0.0
    floor_p99 = floor.percentile_ms(0.99)
    return {
        "replicas": replicas,
        "clients": clients,
        "seconds_per_phase": seconds,
        "routing": routing,
        "kind": kind,
        "moves": count,
        "games_finished": finished,
        "moves_per_s": round(move_rate, 1),
        "submit_p50_ms": moves.percentile_ms(0.50),
        "submit_p90_ms": moves.percentile_ms(0.90),
        "submit_p99_ms": moves.percentile_ms(0.99),
        "floor_calls_per_s": round(floor_rate, 1),
        "floor_p50_ms": floor.percentile_ms(0.50),
        "floor_p90_ms": floor.percentile_ms(0.90),
        "floor_p99_ms": floor_p99,
        "throughput_ratio": round(move_rate / floor_rate, 3) if floor_rate else 0.0,
        "p99_ratio": round(moves.percentile_ms(0.99) / floor_p99, 3) if floor_p99 else 0.0,
        "submit_mean_ms": round(statistics.fmean(moves.latencies) * 1000, 3) if moves.latencies else 0.0,
        "floor_replica_cpu_ms_per_call": _per_call_ms(floor_cpu, len(floor.latencies)),
        "submit_replica_cpu_ms_per_move": _per_call_ms(moves_cpu, count),
        "watch_streams": watchers,
        "watch_streams_held": watch.held,
        "watch_replica_rss_kib_per_stream": watch.rss_per_stream_kib,
        "watch_fanout_p50_ms": watch.fanout.percentile_ms(0.50),
        "watch_fanout_p99_ms": watch.fanout.percentile_ms(0.99),
        "watch_updates_missed": watch.missed,
        "watch_replica_cpu_ms_per_update": watch.cpu_ms_per_update,
        "errors": moves.errors + floor.errors + watch.fanout.errors + watch.missed,
        "error_reasons": {**floor.error_reasons, **moves.error_reasons, **{f"watch_{k}": v for k, v in watch.fanout.error_reasons.items()}},
    }
