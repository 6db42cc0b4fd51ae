"""The example bots come back spread out: when a replica stops, the bots whose streams it ended
reopen them on another replica after pauses drawn at random, not all in the same instant; the
pause grows with each stream in a row that brought nothing, and is never shorter than the
server's retry hint. The Python bot's pauses are checked against real replicas, the TypeScript
bot's through its built module."""

from __future__ import annotations

import asyncio
import json
import pathlib
import random
import subprocess
import time

from conftest import run
from hustings.ai import example_bot
from hustings.ai.example_bot import play, reconnect_pause_s
from hustings.client import Client, Joined
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import Replica, ReplicaConfig, UNBOUNDED_CREATES
from hustings.v1 import game_pb2

BOTS = 30
DRAWS = 2_000


def _busiest_window(times: list[float], width: float) -> int:
    """The most of ``times`` that fall within any span of ``width``."""
    times = sorted(times)
    return max(sum(1 for t in times[i:] if t - start <= width) for i, start in enumerate(times))


def test_the_python_bots_a_replica_stopped_come_back_to_another_spread_out(redis_server: EmbeddedRedis) -> None:
    """Thirty example bots watch games on one replica; it stops, ending their streams together.
    They reopen them on the other replica over about half a second (the first pause's cap), not
    all within a few milliseconds of each other as a fixed pause made them."""
    reopened: dict[int, float] = {}

    async def scenario() -> None:
        config = dict(redis_url=redis_server.url, address="127.0.0.1:0", grace_s=0.5, **UNBOUNDED_CREATES)
        doomed = await Replica(ReplicaConfig(**config)).start()
        survivor = await Replica(ReplicaConfig(**config)).start()
        first, second = Client(f"127.0.0.1:{doomed.port}"), Client(f"127.0.0.1:{survivor.port}")
        bots: list[asyncio.Task[object]] = []
        try:
            watching = asyncio.Event()

            def logger(n: int):
                def log(line: str) -> None:
                    if line.startswith("watching") and line.endswith(second.address) and n not in reopened:
                        reopened[n] = time.monotonic()
                    if line.startswith("watching") and line.endswith(first.address):
                        started.add(n)
                        if len(started) == BOTS:
                            watching.set()
                return log

            started: set[int] = set()
            for n in range(BOTS):
                # Seat 1 is a person who never decides, so every game stands open after the opening choice.
                created = await second.create_game("stimmvieh", 3, table=game_pb2.TableSettings(bot_seats=[2]))
                joined: Joined = await first.join(created.game_id, f"Bot {n}", seat=0)
                await second.join(created.game_id, "Idle", seat=1)
                bots.append(asyncio.create_task(play([first, second], joined, random.Random(n), logger(n))))
            await asyncio.wait_for(watching.wait(), 30)
            await asyncio.sleep(0.5)  # their opening views arrived and were answered
            stopped = time.monotonic()
            await doomed.stop()
            for _ in range(100):  # bounded: 10 s
                if len(reopened) == BOTS:
                    break
                await asyncio.sleep(0.1)
            delays = sorted(at - stopped for at in reopened.values())
            assert len(delays) == BOTS, f"only {len(delays)} of {BOTS} bots watched again"
            assert delays[-1] - delays[0] > 0.2, delays
            assert _busiest_window(delays, 0.05) <= BOTS // 2, delays
            assert delays[-1] < 0.5 + 0.5 + 1.0, delays  # the grace, the first pause's cap, leeway
        finally:
            for bot in bots:
                bot.cancel()
            await asyncio.gather(*bots, return_exceptions=True)
            await first.close()
            await second.close()
            await survivor.stop()
            await doomed.stop()

    run(scenario(), timeout_s=90)


def test_the_python_bots_pause_grows_with_fruitless_streams_and_keeps_the_hint() -> None:
    rng = random.Random(7)
    after_updates = [reconnect_pause_s(0, None, rng) for _ in range(DRAWS)]
    assert 0 <= min(after_updates) < 0.05 and 0.45 < max(after_updates) <= example_bot.RECONNECT_PAUSE_S
    two_fruitless = [reconnect_pause_s(2, None, rng) for _ in range(DRAWS)]
    assert 1.8 < max(two_fruitless) <= 4 * example_bot.RECONNECT_PAUSE_S
    many = [reconnect_pause_s(30, None, rng) for _ in range(DRAWS)]
    assert example_bot.RECONNECT_MAX_S * 0.9 < max(many) <= example_bot.RECONNECT_MAX_S
    hinted = [reconnect_pause_s(0, 3.0, rng) for _ in range(DRAWS)]
    assert min(hinted) >= 3.0 and max(hinted) > 3.3  # the hint, with jitter on top


TS_PAUSES = """
import { reconnectPauseMs } from "./example_bot.js";
const draws = (fruitless, hint) => Array.from({ length: %d }, () => reconnectPauseMs(fruitless, hint, Math.random));
console.log(JSON.stringify({ first: draws(0, undefined), twice: draws(2, undefined), many: draws(30, undefined), hinted: draws(0, 3000) }));
"""


def test_the_typescript_bots_pause_is_drawn_grows_and_keeps_the_hint(typescript_dist: pathlib.Path) -> None:
    out = subprocess.run(
        ["node", "--input-type=module", "-e", TS_PAUSES % DRAWS], cwd=typescript_dist,
        capture_output=True, text=True, timeout=60, check=True,
    ).stdout
    pauses = json.loads(out.strip().splitlines()[-1])
    first = pauses["first"]
    assert 0 <= min(first) < 50 and 450 < max(first) <= 500
    assert _busiest_window([p / 1000 for p in first], 0.05) < DRAWS // 4  # spread, not one instant
    assert 1_800 < max(pauses["twice"]) <= 2_000
    assert 3_600 < max(pauses["many"]) <= 4_000
    assert min(pauses["hinted"]) >= 3_000 and max(pauses["hinted"]) > 3_300
