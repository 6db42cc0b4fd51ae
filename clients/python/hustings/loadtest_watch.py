"""The watcher phase of ``hustings loadtest``: WatchGame streams held while moves run at a
steady rate.

W spectator streams are spread over G games (stream i watches game i mod G) and read by P
client processes of their own (``--watch-processes``), so that reading the streams is not
bounded by one Python process; every stream of a game is read by the same process (over its
different connections), which takes each update as bytes and reads only its steps' versions. Once every stream is open, one mover sends SubmitMove at a
steady R per second spread round-robin over the games (the k-th move is sent at k/R seconds,
whether or not earlier answers have come back), each to the replica that serves the game, and
stamps the moment it sends each move. Every reader stamps the arrival of each step on each
stream. Delivery delay is arrival minus send: an upper bound on commit-to-delivery, since the
move's own trip to the replica and Redis is counted in, and its wait in the replica's queue.

Commit-to-delivery itself is measured from outside the replica: a commit observer process
subscribes to the watched games' update channels in Redis, where each commit's script announces
its version as its last write (``service/lua/commit.lua``), and stamps every announcement. Its
stamp comes after the commit by the announcement's trip over loopback and the observer's own
wake-up (it does nothing else), so arrival minus that stamp slightly understates the delay.

All stamps are ``time.monotonic()``, one clock for every process on the machine (Linux's
CLOCK_MONOTONIC).
"""

from __future__ import annotations

import asyncio
import gc
import math
import multiprocessing
import multiprocessing.connection
import random
import time
import zlib
from dataclasses import dataclass, field
from typing import Any

import grpc
import redis
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from hustings.client import OWN_CONNECTION, Client, HustingsError
from hustings.loadtest import LoadtestError, PreparedGame, Sampler, _per_call_ms, _prepare, cpu_seconds, rss_bytes
from hustings.service.store import game_id_of_channel, updates_channel
from hustings.v1 import game_pb2, game_service_pb2

WATCH_METHOD = f"/{game_service_pb2.DESCRIPTOR.services_by_name['GameService'].full_name}/WatchGame"

# Streams of a reader on one connection: the replicas cap a connection's streams
# (``--max-streams-per-connection``, less the room kept for calls).
STREAMS_PER_CHANNEL = 60
PREPARE_AT_ONCE = 32  # games created and seated at once before the phase
WAIT_S = 120.0  # bound on waiting for streams to open or for the last steps to arrive

# One stream's arrivals: version -> arrival stamp.
Arrivals = dict[int, float]


@dataclass
class WatchPlan:
    """What the watcher phase does."""

    streams: int
    games: int
    moves_per_s: float
    seconds: float
    processes: int

    def __post_init__(self) -> None:
        if self.streams < 0 or self.games < 1 or self.processes < 1 or self.moves_per_s <= 0 or self.seconds <= 0:
            raise LoadtestError("the watcher phase needs streams >= 0, games >= 1, processes >= 1, and moves per second and seconds above 0")


@dataclass
class WatchFigures:
    """What the watcher phase saw."""

    held: int = 0
    rss_per_stream_kib: float | None = None
    delivery: Sampler = field(default_factory=Sampler)  # arrival on a stream minus send of the move
    after_commit: Sampler = field(default_factory=Sampler)  # arrival on a stream minus the commit's announcement
    to_commit: Sampler = field(default_factory=Sampler)  # the commit's announcement minus send of the move
    unobserved: int = 0  # arrivals of steps whose announcement the observer never saw
    moves: Sampler = field(default_factory=Sampler)  # the paced SubmitMove calls themselves
    moves_per_s: float = 0.0  # achieved
    missed: int = 0  # steps some held stream never saw
    cpu_ms_per_update: float | None = None  # replica CPU per update delivered to one stream
    reader_cpu_s: float = 0.0  # CPU the reader processes spent while the moves ran

    def as_dict(self, plan: WatchPlan) -> dict[str, Any]:
        """The figures as the summary's ``watch_*`` entries."""
        return {
            "watch_streams": plan.streams,
            "watch_games": plan.games,
            "watch_processes": plan.processes,
            "watch_streams_held": self.held,
            "watch_replica_rss_kib_per_stream": self.rss_per_stream_kib,
            "watch_moves_per_s_target": plan.moves_per_s,
            "watch_moves_per_s": round(self.moves_per_s, 1),
            "watch_move_p99_ms": self.moves.percentile_ms(0.99),
            "watch_delivery_p50_ms": self.delivery.percentile_ms(0.50),
            "watch_delivery_p99_ms": self.delivery.percentile_ms(0.99),
            "watch_delivery_max_ms": self.delivery.percentile_ms(1.0),
            "watch_commit_to_delivery_p50_ms": self.after_commit.percentile_ms(0.50),
            "watch_commit_to_delivery_p99_ms": self.after_commit.percentile_ms(0.99),
            "watch_commit_to_delivery_max_ms": self.after_commit.percentile_ms(1.0),
            "watch_send_to_commit_p99_ms": self.to_commit.percentile_ms(0.99),
            "watch_commits_unobserved": self.unobserved,
            "watch_updates_delivered": len(self.delivery.latencies),
            "watch_updates_missed": self.missed,
            "watch_replica_cpu_ms_per_update": self.cpu_ms_per_update,
            "watch_reader_cpu_ms_per_update": _per_call_ms(self.reader_cpu_s, len(self.delivery.latencies)),
        }


def _update_versions() -> Any:
    """A message class that reads a WatchGameResponse's entries' versions and nothing else (the
    other fields are skipped as unknown), so that reading thousands of updates a second stays
    cheap while every step a stream receives is still counted."""
    field = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(name="hustings_loadtest_versions.proto", package="hustings.loadtest", syntax="proto3")
    entry = file.message_type.add(name="EntryVersion")
    version_number = game_pb2.HistoryEntry.DESCRIPTOR.fields_by_name["version"].number
    entry.field.add(name="version", number=version_number, type=field.TYPE_INT64, label=field.LABEL_OPTIONAL)
    update = file.message_type.add(name="UpdateVersions")
    entries_number = game_service_pb2.WatchGameResponse.DESCRIPTOR.fields_by_name["entries"].number
    update.field.add(
        name="entries", number=entries_number, type=field.TYPE_MESSAGE, type_name=".hustings.loadtest.EntryVersion", label=field.LABEL_REPEATED
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("hustings.loadtest.UpdateVersions"))


# One game's observed commits: version -> the stamp of its announcement.
Commits = dict[int, float]

SUBSCRIBE_AT_ONCE = 500  # channels per SUBSCRIBE command


def _observe_commits(conn: multiprocessing.connection.Connection, redis_url: str, game_ids: list[str]) -> None:
    """The commit observer process: subscribe to every game's update channel, report when all
    subscriptions are confirmed, then stamp each announced version until told to stop."""
    client = redis.Redis.from_url(redis_url, socket_timeout=WAIT_S)
    pubsub = client.pubsub()
    commits: dict[str, Commits] = {g: {} for g in game_ids}
    channels = [updates_channel(g) for g in game_ids]
    try:
        for start in range(0, len(channels), SUBSCRIBE_AT_ONCE):
            pubsub.subscribe(*channels[start : start + SUBSCRIBE_AT_ONCE])
        confirmed = 0
        deadline = time.monotonic() + WAIT_S
        while confirmed < len(channels) and time.monotonic() < deadline:
            message = pubsub.get_message(timeout=1.0)
            if message is not None and message["type"] == "subscribe":
                confirmed += 1
        gc.collect()
        gc.disable()  # no collector pause between an announcement and its stamp
        conn.send(("subscribed", confirmed))
        deadline = time.monotonic() + WAIT_S * 4  # bounded, far beyond any phase
        while not conn.poll() and time.monotonic() < deadline:
            message = pubsub.get_message(timeout=0.05)
            if message is None or message["type"] != "message":
                continue
            now = time.monotonic()
            game_id = game_id_of_channel(message["channel"].decode())
            try:
                version = int(message["data"])
            except (TypeError, ValueError):
                continue
            if game_id in commits:
                commits[game_id].setdefault(version, now)  # a step is committed once
    finally:
        pubsub.close()
        client.close()
    conn.send(("observed", commits))


def _read_streams(conn: multiprocessing.connection.Connection, addresses: list[str], streams: list[tuple[str, int]]) -> None:
    """A reader process: hold ``streams`` ((game id, from version) each), report when all are
    open, then stamp every arrival until told the last version of each game."""
    asyncio.run(_reader(conn, addresses, streams))


async def _reader(conn: multiprocessing.connection.Connection, addresses: list[str], streams: list[tuple[str, int]]) -> None:
    # Each channel on a connection of its own (gRPC would share one among a process's channels
    # to one address), as clients on other machines would be.
    channels = [
        grpc.aio.insecure_channel(addresses[i % len(addresses)], options=OWN_CONNECTION)
        for i in range(max(1, math.ceil(len(streams) / STREAMS_PER_CHANNEL)))
    ]
    # The updates as they come (no deserialiser), parsed for their steps' versions only.
    watch_calls = [
        c.unary_stream(WATCH_METHOD, request_serializer=game_service_pb2.WatchGameRequest.SerializeToString, response_deserializer=None)
        for c in channels
    ]
    versions = _update_versions()
    seen: list[Arrivals] = [{} for _ in streams]
    errors: dict[str, int] = {}
    opened = asyncio.Semaphore(0)

    async def follow(i: int, game_id: str, from_version: int) -> None:
        call = watch_calls[i % len(watch_calls)](game_service_pb2.WatchGameRequest(game_id=game_id, from_version=from_version))
        arrivals = seen[i]
        first = True
        try:
            # read() rather than async for: one layer less per message in gRPC's client.
            while (data := await call.read()) is not grpc.aio.EOF:
                now = time.monotonic()
                for entry in versions.FromString(data).entries:
                    arrivals[entry.version] = now
                if first:
                    first = False
                    opened.release()
        except grpc.aio.AioRpcError as error:
            errors[error.code().name] = errors.get(error.code().name, 0) + 1
            if first:
                opened.release()

    tasks = [asyncio.create_task(follow(i, g, v)) for i, (g, v) in enumerate(streams)]
    try:
        try:
            async with asyncio.timeout(WAIT_S):
                for _ in streams:
                    await opened.acquire()
        except TimeoutError:
            errors["OPEN_TIMEOUT"] = errors.get("OPEN_TIMEOUT", 0) + 1
        # The streams are held: no collector pause from here on in this short-lived reader, or
        # it would be counted as the replica's delivery delay.
        gc.collect()
        gc.freeze()
        gc.disable()
        conn.send(("opened", sum(1 for s in seen if s)))
        cpu_before = time.process_time()
        last: dict[str, int] = await asyncio.get_running_loop().run_in_executor(None, conn.recv)
        # The reader's CPU while the moves ran (the wait for the last steps below is idle).
        cpu = time.process_time() - cpu_before
        # Until every held stream has seen its game's last step (bounded; a stream that missed
        # a step is counted by the mover).
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline and any(s and last[g] not in s for s, (g, _v) in zip(seen, streams)):
            await asyncio.sleep(0.05)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for channel in channels:
            await channel.close()
    conn.send(("done", seen, errors, cpu))


async def _prepare_games(pool: list[Client], plan: WatchPlan, kind: str, players: int, moves_per_game: int) -> list[PreparedGame]:
    """G created and seated games, each with its first ``moves_per_game`` moves worked out."""
    rng = random.Random(11)
    at_once = asyncio.Semaphore(PREPARE_AT_ONCE)

    async def one(seed: int) -> PreparedGame:
        async with at_once:
            return await _prepare(pool, kind, players, random.Random(seed), moves_per_game)

    return list(await asyncio.gather(*(one(rng.getrandbits(32)) for _ in range(plan.games))))


async def _paced_moves(pool: list[Client], games: list[PreparedGame], plan: WatchPlan, figures: WatchFigures) -> list[Arrivals]:
    """Send moves at ``plan.moves_per_s`` round-robin over the games for ``plan.seconds``; for
    each game, the send stamp of every step that was made, by version."""
    sent: list[Arrivals] = [{} for _ in games]
    total = int(plan.moves_per_s * plan.seconds)
    # Moves of one game take turns (a game gets its next move only after the previous answer).
    turns = [asyncio.Lock() for _ in games]

    async def move(k: int) -> None:
        g = k % len(games)
        prepared = games[g]
        seat, message = prepared.moves[k // len(games)]
        async with turns[g]:
            started = time.monotonic()
            try:
                answer = await pool[zlib.crc32(prepared.game_id.encode()) % len(pool)].move(prepared.game_id, prepared.tokens[seat], message)
            except HustingsError as error:
                figures.moves.error(error.reason or error.code.name)
                return
            figures.moves.latencies.append(time.monotonic() - started)
            sent[g][answer.version] = started

    tasks = []
    begun = time.monotonic()
    for k in range(total):
        delay = begun + k / plan.moves_per_s - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(move(k)))
    await asyncio.gather(*tasks)
    elapsed = time.monotonic() - begun
    figures.moves_per_s = len(figures.moves.latencies) / elapsed if elapsed else 0.0
    return sent


async def watch_phase(addresses: list[str], pids: list[int], plan: WatchPlan, kind: str, players: int, redis_url: str) -> WatchFigures:
    """Hold ``plan.streams`` spectator streams over ``plan.games`` games in ``plan.processes``
    reader processes, move at a steady rate, and time each step's delivery on every stream, from
    the move's send and from its commit's announcement in the Redis at ``redis_url``."""
    figures = WatchFigures()
    pool = [Client(a) for a in addresses]
    moves_per_game = -(-int(plan.moves_per_s * plan.seconds) // plan.games)
    games = await _prepare_games(pool, plan, kind, players, moves_per_game)
    short = [g.game_id for g in games if len(g.moves) < moves_per_game]
    if short:  # a game ended early: fewer moves than asked would be paced
        raise LoadtestError(f"{len(short)} games end before {moves_per_game} moves: use more --watch-games or fewer moves")
    start = players + 1  # the version once every seat is taken
    # From one version back: the first update arrives at once and shows the stream is open.
    streams = [(games[i % len(games)].game_id, start - 1) for i in range(plan.streams)]
    # Every stream of a game in one reader process (on its different connections): a step's
    # updates then reach one process together and cost it one wake-up, not one in each process.
    shares = [[s for i, s in enumerate(streams) if i % len(games) % plan.processes == p] for p in range(plan.processes)]
    context = multiprocessing.get_context("spawn")  # gRPC does not survive a fork
    readers = []
    observer_conn, theirs = context.Pipe()
    observer = context.Process(target=_observe_commits, args=(theirs, redis_url, [g.game_id for g in games]), daemon=True)
    observer.start()
    before = rss_bytes(pids)
    try:
        if await _answer(observer_conn, "subscribed") != len(games):
            raise LoadtestError("the commit observer could not subscribe to every watched game")
        for p in range(plan.processes):
            mine, theirs = context.Pipe()
            process = context.Process(target=_read_streams, args=(theirs, addresses, shares[p]), daemon=True)
            process.start()
            readers.append((process, mine))
        held = 0
        for process, conn in readers:
            held += await _answer(conn, "opened")
        figures.held = held
        after = rss_bytes(pids)
        if before is not None and after is not None and held:
            figures.rss_per_stream_kib = round((after - before) / held / 1024, 2)
        cpu_before = cpu_seconds(pids)
        sent = await _paced_moves(pool, games, plan, figures)
        cpu_after = cpu_seconds(pids)
        last = {g.game_id: max([start, *sent[n]]) for n, g in enumerate(games)}
        for _process, conn in readers:
            conn.send(last)
        index = {g.game_id: n for n, g in enumerate(games)}
        results = [await _answer(conn, "done") for _process, conn in readers]
        observer_conn.send("stop")  # every step has arrived (or been given up on) by now
        commits: dict[str, Commits] = await _answer(observer_conn, "observed")
        for n, game in enumerate(games):
            for version, stamp in sent[n].items():
                committed = commits[game.game_id].get(version)
                if committed is not None:
                    figures.to_commit.latencies.append(committed - stamp)
        for p, (seen, errors, cpu) in enumerate(results):
            figures.reader_cpu_s += cpu
            for reason, count in errors.items():
                figures.delivery.error_reasons[reason] = figures.delivery.error_reasons.get(reason, 0) + count
                figures.delivery.errors += count
            for arrivals, (game_id, _v) in zip(seen, shares[p]):
                if not arrivals:
                    continue  # never held
                for version, stamp in sent[index[game_id]].items():
                    arrived = arrivals.get(version)
                    if arrived is None:
                        figures.missed += 1
                        continue
                    figures.delivery.latencies.append(arrived - stamp)
                    committed = commits[game_id].get(version)
                    if committed is None:
                        figures.unobserved += 1  # pub/sub is at most once
                    else:
                        figures.after_commit.latencies.append(arrived - committed)
        if cpu_before is not None and cpu_after is not None:
            figures.cpu_ms_per_update = _per_call_ms(cpu_after - cpu_before, len(figures.delivery.latencies))
    finally:
        if observer.is_alive():
            try:
                observer_conn.send("stop")
            except OSError:
                pass  # it is on its way out
        for process, conn in [*readers, (observer, observer_conn)]:
            process.join(timeout=10)
            if process.is_alive():
                process.kill()
            conn.close()
        for client in pool:
            await client.close()
    return figures


async def _answer(conn: multiprocessing.connection.Connection, kind: str) -> Any:
    """The reader's next message, which must be of ``kind``; its payload."""
    if not await asyncio.get_running_loop().run_in_executor(None, conn.poll, WAIT_S * 2):
        raise TimeoutError(f"a reader process sent no {kind!r} in time")
    message = conn.recv()
    if message[0] != kind:
        raise RuntimeError(f"a reader process sent {message[0]!r}, not {kind!r}")
    return message[1] if len(message) == 2 else message[1:]
