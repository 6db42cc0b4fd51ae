"""``hustings loadtest``: SubmitMove throughput and latency through several replicas, against a
floor measured in the same run, then what WatchGame streams cost.

The floor is a bare gRPC call that makes one Redis round trip (``--benchmark-floor`` on the
replicas). Each of C clients drives whole games of its own (it holds every seat's token and
chose the seed, so it knows the legal moves by running the same engine in lockstep), which keeps
exactly C moves in flight, each one SubmitMove and nothing else.

The watcher phase (``hustings.loadtest_watch``) holds W WatchGame streams over G games while
moves run at a steady rate, and reports how many the replicas held, the replicas' memory per
stream, and the delay from each move to its arrival on every stream.

The embedded Redis runs without an append-only file unless ``aof`` asks for one ("everysec" is
how ``hustings serve`` runs it); with ``base_port`` P it listens on P and the replicas on P + 1,
P + 2, …, so that the test can run beside other services.
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
import urllib.parse
import zlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, AsyncIterator, Iterator

import grpc

from hustings.client import OWN_CONNECTION, Client, HustingsError
from hustings.engine import Rng, get_game
from hustings.service.embedded_redis import free_port, port_is_free, wait_for_port
from hustings.v1 import game_pb2, game_service_pb2

if TYPE_CHECKING:
    from hustings.loadtest_watch import WatchPlan

FLOOR_METHOD = "/hustings.bench.Floor/RoundTrip"
SUBMIT_MOVE_METHOD = "/hustings.v1.GameService/SubmitMove"
CALL_TIMEOUT_S = 10.0  # each timed call's deadline, in both phases
# Load clients (one call in flight each) per connection to a replica, which refuses a
# connection's streams past 128; each connection is one of its own (``OWN_CONNECTION``).
CLIENTS_PER_CONNECTION = 100
START_TIMEOUT_S = 30.0


def fixed_port(port: int, what: str) -> int:
    """``port``, or a clear error naming ``what`` when it is taken (checked before use: waiting
    for it to answer would otherwise take another service's answer for ours)."""
    if not port_is_free(port):
        raise LoadtestError(f"port {port} for {what} is in use: choose another --base-port")
    return port


class LoadtestError(Exception):
    """The load test cannot run as asked (a port in use, a replica that did not start)."""


@contextlib.contextmanager
def replica_processes(redis_url: str, count: int, base_port: int = 0) -> Iterator[list[tuple[str, int]]]:
    """``count`` replica processes serving the floor call too, on ports ``base_port`` + 1, + 2, …
    (or free ones when ``base_port`` is 0); yields (address, pid) pairs."""
    processes = []
    addresses = []
    try:
        for i in range(count):
            port = fixed_port(base_port + 1 + i, f"replica {i + 1}") if base_port else free_port()
            processes.append(
                subprocess.Popen(
                    [sys.executable, "-m", "hustings.cli", "serve", "--address", f"127.0.0.1:{port}", "--http-address", "",
                     "--redis-url", redis_url, "--allow-client-seed", "--benchmark-floor", "--log-level", "error",
                     # Every call and stream comes from this one host, which prepares hundreds of
                     # games at once, calls thousands of times a second and holds up to 10,000
                     # streams: the per-client limits, which keep clients from crowding each other
                     # out, are raised to the replica's own.
                     "--max-calls-per-client", "2048", "--creates-per-client-per-minute", "1000000", "--create-burst", "1000000",
                     "--open-tables-per-client", "0",
                     "--max-streams-per-address", "10000", "--max-streams-per-game", "10000",
                     "--calls-per-client-per-second", "1000000", "--call-burst", "1000000"],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
            addresses.append(f"127.0.0.1:{port}")
        for address, process in zip(addresses, processes):
            wait_for_port(int(address.rsplit(":", 1)[1]), START_TIMEOUT_S)
            if process.poll() is not None:
                raise LoadtestError(f"the replica at {address} exited with status {process.returncode}")
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


def _connections(addresses: list[str], clients: int) -> list[list[grpc.aio.Channel]]:
    """Channels for ``clients`` load clients with one call in flight each: for each address,
    enough connections of their own that none carries more than ``CLIENTS_PER_CONNECTION`` (a
    replica refuses a connection's streams past 128)."""
    per_address = max(1, -(-clients // CLIENTS_PER_CONNECTION))
    return [[grpc.aio.insecure_channel(a, options=OWN_CONNECTION) for _ in range(per_address)] for a in addresses]


def _client_channels(groups: list[list[grpc.aio.Channel]], client: int) -> list[grpc.aio.Channel]:
    """The channels of load client number ``client``: one to each address."""
    return [group[client % len(group)] for group in groups]


async def _floor_phase(addresses: list[str], clients: int, seconds: float, pids: list[int]) -> tuple[Sampler, float, float | None]:
    groups = _connections(addresses, clients)
    sampler = Sampler()
    rng = random.Random(1)
    deadline = time.perf_counter() + seconds

    async def loop(client: int) -> None:
        calls = [c.unary_unary(FLOOR_METHOD) for c in _client_channels(groups, client)]
        while time.perf_counter() < deadline:
            started = time.perf_counter()
            try:
                await rng.choice(calls)(b"", timeout=CALL_TIMEOUT_S)
                sampler.latencies.append(time.perf_counter() - started)
            except grpc.aio.AioRpcError as error:
                sampler.error(error.code().name)

    cpu_before = cpu_seconds(pids)
    begun = time.perf_counter()
    await asyncio.gather(*(loop(i) for i in range(clients)))
    elapsed = time.perf_counter() - begun
    cpu_after = cpu_seconds(pids)
    for channel in (c for group in groups for c in group):
        await channel.close()
    cpu = cpu_after - cpu_before if cpu_before is not None and cpu_after is not None else None
    return sampler, elapsed, cpu


@dataclass
class PreparedGame:
    """A created, fully seated game and the whole sequence of its moves, worked out beforehand."""

    game_id: str
    tokens: list[str]
    moves: list[tuple[int, game_pb2.Move]]


async def _prepare(pool: list[Client], kind: str, players: int, rng: random.Random, max_moves: int | None = None) -> PreparedGame:
    """Create and seat a game with a seed of ours, and play it through locally with the same
    engine (to its end, or its first ``max_moves`` moves), so that the timed phase sends nothing
    but SubmitMove (its requests built beforehand too, by ``_requests``)."""
    game = get_game(kind)
    assert game is not None
    seed = secrets.token_bytes(32)
    options = game_pb2.GameOptions(players=players)
    created = await rng.choice(pool).create_game(kind, players, options, seed=seed.hex())
    tokens = [(await rng.choice(pool).join(created.game_id, f"T{i}")).token for i in range(players)]
    local_rng = Rng(seed)
    state = game.setup(game.options_from_proto(options), local_rng)
    moves = []
    while not game.is_over(state) and (max_moves is None or len(moves) < max_moves):
        seat = min(game.to_act(state))
        move = rng.choice(game.legal_moves(state, seat))
        message = game_pb2.Move()
        game.move_to_proto(move, message)
        moves.append((seat, message))
        state, _events = game.apply(state, seat, move, local_rng)
    return PreparedGame(created.game_id, tokens, moves)


def _requests(prepared: PreparedGame) -> list[tuple[bytes, tuple[tuple[str, str], ...]]]:
    """Each move of a prepared game as the bytes of its SubmitMoveRequest (with a request id of
    its own) and the call's metadata, built before the timed phase: like the floor's calls, the
    timed moves then cost the load generator one raw gRPC call each."""
    built = []
    for seat, message in prepared.moves:
        request = game_service_pb2.SubmitMoveRequest(game_id=prepared.game_id, request_id=secrets.token_hex(16))
        request.move.CopyFrom(message)
        metadata = (("authorization", f"Bearer {prepared.tokens[seat]}"), ("x-hustings-game", prepared.game_id))
        built.append((request.SerializeToString(), metadata))
    return built


def _refusal(error: grpc.aio.AioRpcError) -> str:
    """A refused call's reason (google.rpc.ErrorInfo), or its status code's name."""
    return HustingsError.from_rpc_error(error).reason or error.code().name


Built = list[tuple[PreparedGame, list[tuple[bytes, tuple[tuple[str, str], ...]]]]]


async def _table(
    channels: list[grpc.aio.Channel], games: Built, rng: random.Random, sampler: Sampler, deadline: float, routing: str
) -> tuple[int, int]:
    """Play prepared games one move in flight at a time until the deadline; (moves, games finished).

    ``routing`` "game" sends every move of a game to one replica (as a balancer hashing the
    x-hustings-game header does), "random" sends each move to any replica.
    """
    calls = [channel.unary_unary(SUBMIT_MOVE_METHOD) for channel in channels]
    moves = finished = 0
    for prepared, requests in games:
        home = calls[zlib.crc32(prepared.game_id.encode()) % len(calls)]
        for request, metadata in requests:
            if time.perf_counter() >= deadline:
                return moves, finished
            started = time.perf_counter()
            call = home if routing == "game" else rng.choice(calls)
            try:
                await call(request, metadata=metadata, timeout=CALL_TIMEOUT_S)
            except grpc.aio.AioRpcError as error:
                sampler.error(_refusal(error))
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
    for client in pool:
        await client.close()
    built = [[(prepared, _requests(prepared)) for prepared in table] for table in tables]
    groups = _connections(addresses, clients)
    cpu_before = cpu_seconds(pids)
    deadline = time.perf_counter() + seconds
    begun = time.perf_counter()
    results = await asyncio.gather(
        *(_table(_client_channels(groups, i), t, random.Random(i), sampler, deadline, routing) for i, t in enumerate(built))
    )
    elapsed = time.perf_counter() - begun
    cpu_after = cpu_seconds(pids)
    for channel in (c for group in groups for c in group):
        await channel.close()
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


@contextlib.asynccontextmanager
async def _redis(url: str, aof: str, base_port: int) -> AsyncIterator[str]:
    """``url``, or an embedded Redis on loopback (on ``base_port`` when given): without an
    append-only file when ``aof`` is "no" (the default), else with one fsynced as ``aof`` says
    ("everysec" is how ``hustings serve`` runs its embedded Redis)."""
    if url:
        yield url
        return
    from hustings.service.embedded_redis import EmbeddedRedis

    port = fixed_port(base_port, "Redis") if base_port else 0
    with tempfile.TemporaryDirectory(prefix="hustings-load-") as folder:
        server = EmbeddedRedis(pathlib.Path(folder), port=port, appendonly=aof != "no", appendfsync=aof if aof != "no" else "everysec").start()
        try:
            yield server.url
        finally:
            server.stop()


def redis_persistence(url: str) -> str:
    """How the Redis at ``url`` keeps its append-only file, as it says itself: "no", or the fsync
    policy ("everysec", "always", "no-fsync"); "unknown" when it does not tell (CONFIG refused)."""
    import redis

    client = redis.Redis.from_url(url, socket_timeout=5)
    try:
        config = client.config_get("append*")
    except redis.RedisError:
        return "unknown"
    finally:
        client.close()
    if config.get("appendonly") != "yes":
        return "no"
    fsync = config.get("appendfsync", "unknown")
    return "no-fsync" if fsync == "no" else fsync


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
    watch: WatchPlan | None = None,
    aof: str = "no",
    base_port: int = 0,
) -> dict[str, Any]:
    """Run the floor phase and the move phase (unless ``seconds`` is 0), then the watcher phase
    (unless ``watch`` is None or holds no streams); the summary as one JSON-ready dict."""
    from hustings.loadtest_watch import WatchFigures, watch_phase  # it builds on this module's parts

    floor, moves = Sampler(), Sampler()
    floor_s = moves_s = 0.0
    count = finished = 0
    floor_cpu = moves_cpu = None
    plan = watch if watch is not None and watch.streams > 0 else None
    async with _redis(redis_url, aof, base_port) as url:
        persistence = redis_persistence(url)
        redis_port = urllib.parse.urlsplit(url).port if not redis_url else None  # an external URL may hold a password
        with replica_processes(url, replicas, base_port) as started:
            addresses = [address for address, _ in started]
            pids = [pid for _, pid in started]
            if seconds > 0:
                floor, floor_s, floor_cpu = await _floor_phase(addresses, clients, seconds, pids)
                moves, moves_s, count, finished, moves_cpu = await _move_phase(
                    addresses, clients, seconds, kind, players, len(floor.latencies) / floor_s if floor_s else 0.0, pids, routing
                )
            figures = await watch_phase(addresses, pids, plan, kind, players, url) if plan is not None else WatchFigures()
    floor_rate = len(floor.latencies) / floor_s if floor_s else 0.0
    move_rate = count / moves_s if moves_s else 0.0
    floor_p99 = floor.percentile_ms(0.99)
    watch_errors = figures.delivery.errors + figures.moves.errors + figures.missed
    return {
        "replicas": replicas,
        "clients": clients,
        "seconds_per_phase": seconds,
        "routing": routing,
        "kind": kind,
        "redis_aof": persistence,
        "redis_port": redis_port,
        "replica_addresses": addresses,
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
        **(figures.as_dict(plan) if plan is not None else {"watch_streams": 0}),
        "errors": moves.errors + floor.errors + watch_errors,
        "error_reasons": {
            **floor.error_reasons,
            **moves.error_reasons,
            **{f"watch_{k}": v for k, v in figures.delivery.error_reasons.items()},
            **{f"watch_move_{k}": v for k, v in figures.moves.error_reasons.items()},
        },
    }
