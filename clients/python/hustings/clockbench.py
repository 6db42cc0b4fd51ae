"""``hustings clockbench``: what table clocks cost, measured in one run on one replica.

1. Moves per second with clocks off, then on (a per-decision limit long enough never to fire,
   so every step also indexes its deadline), C clients each playing whole games of its own;
   the phases alternate so that drift on a shared machine falls on both.
2. How long the replica needs to apply D due deadlines: D games of three seats whose players
   never answer are prepared with the deadline runner stopped; once all are due the runner starts
   and the time until every one of them has had its seats' decisions made is reported.
Prints one JSON line.
"""

from __future__ import annotations

import asyncio
import contextlib
import pathlib
import random
import tempfile
import time
from typing import Any, AsyncIterator

from hustings.client import Client
from hustings.v1 import game_pb2, game_service_pb2

PLAYERS = 4
DUE_PLAYERS = 3
MAX_MOVES_PER_GAME = 400
WAIT_DUE_S = 600.0
POLL_S = 0.5


@contextlib.asynccontextmanager
async def _replica(redis_url: str) -> AsyncIterator[Any]:
    from hustings.service.replica import UNBOUNDED_CALL_RATE, UNBOUNDED_CREATES, Replica, ReplicaConfig

    # Only this tool calls its replica, creating its due games in bursts and playing them as fast
    # as it can: no per-client creation limit or rate of calls.
    config = ReplicaConfig(
        redis_url=redis_url,
        address="127.0.0.1:0",
        grace_s=1.0,
        **UNBOUNDED_CREATES,
        **UNBOUNDED_CALL_RATE,
    )
    replica = await Replica(config).start()
    try:
        yield replica
    finally:
        await replica.stop()


async def _create(client: Client, players: int, **table: int) -> str:
    options = game_pb2.GameOptions(players=players)
    request = game_service_pb2.CreateGameRequest(kind="stimmvieh", options=options)
    request.table.CopyFrom(game_pb2.TableSettings(**table))
    return (await client.stub.CreateGame(request)).game_id


async def _player(client: Client, seconds: float, clocks: bool, rng: random.Random) -> int:
    """Play games alone (every seat's token) until ``seconds`` pass; returns moves made."""
    moves = 0
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        game_id = await _create(client, PLAYERS, **({"decision_seconds": 3600} if clocks else {}))
        seats = [await client.join(game_id, f"P{i}") for i in range(PLAYERS)]
        view = await client.view(game_id)
        for _ in range(MAX_MOVES_PER_GAME):
            if time.monotonic() >= stop or view.status == game_pb2.GAME_STATUS_FINISHED:
                break
            seat = min(view.to_act)
            mine = await client.view(game_id, seats[seat].token)
            await client.move(game_id, seats[seat].token, rng.choice(list(mine.legal_moves)))
            moves += 1
            view = await client.view(game_id)
    return moves


async def _throughput(client: Client, clients: int, seconds: float, clocks: bool) -> float:
    started = time.monotonic()
    counts = await asyncio.gather(*(_player(client, seconds, clocks, random.Random(i)) for i in range(clients)))
    return sum(counts) / (time.monotonic() - started)


async def _due_deadlines(replica: Any, client: Client, games: int) -> dict[str, float]:
    host = replica.host
    await host.deadline_runner.stop()  # let deadlines pile up
    game_ids = []
    for start in range(0, games, 100):
        batch = range(start, min(games, start + 100))
        game_ids += await asyncio.gather(*(_create(client, DUE_PLAYERS, decision_seconds=1, absent_after_timeouts=100) for _ in batch))
    for start in range(0, games, 100):
        await asyncio.gather(*(client.join(g, f"P{i}") for g in game_ids[start : start + 100] for i in range(DUE_PLAYERS)))
    await asyncio.sleep(1.2)  # every first deadline is now due
    pending = await host.deadlines.pending()
    started = time.monotonic()
    host.deadline_runner.start()
    target = 1 + DUE_PLAYERS + DUE_PLAYERS  # created, joined, then each seat's timed-out choice
    left = set(game_ids)
    while left and time.monotonic() - started < WAIT_DUE_S:
        heads = await host.store.heads(sorted(left))
        left = {g for g, (version, _status) in heads.items() if version < target}
        await asyncio.sleep(POLL_S)  # the replica shares this process: look rarely
    elapsed = time.monotonic() - started
    decisions = (len(game_ids) - len(left)) * DUE_PLAYERS
    return {
        "due_games": float(len(game_ids)),
        "due_games_indexed": float(pending),
        "due_decisions_applied": float(decisions),
        "due_seconds": round(elapsed, 3),
        "due_decisions_per_s": round(decisions / elapsed, 1) if elapsed else 0.0,
        "due_games_not_done": float(len(left)),
    }


async def run_clockbench(redis_url: str = "", clients: int = 8, seconds: float = 5.0, due_games: int = 10_000, rounds: int = 2) -> dict[str, Any]:
    """Run both measurements; with no ``redis_url`` an embedded Redis is started."""
    from hustings.service.embedded_redis import EmbeddedRedis

    with contextlib.ExitStack() as stack:
        if not redis_url:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="hustings-clockbench-"))
            redis_url = stack.enter_context(EmbeddedRedis(pathlib.Path(folder), appendonly=False)).url
        async with _replica(redis_url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                off, on = [], []
                for _ in range(rounds):
                    off.append(await _throughput(client, clients, seconds / rounds, clocks=False))
                    on.append(await _throughput(client, clients, seconds / rounds, clocks=True))
                off_rate, on_rate = sum(off) / len(off), sum(on) / len(on)
                result: dict[str, Any] = {
                    "clients": clients,
                    "seconds_per_phase": seconds,
                    "moves_per_s_clocks_off": round(off_rate, 1),
                    "moves_per_s_clocks_on": round(on_rate, 1),
                    "clocks_ratio": round(on_rate / off_rate, 3) if off_rate else 0.0,
                }
                result.update(await _due_deadlines(replica, client, due_games))
                return result
