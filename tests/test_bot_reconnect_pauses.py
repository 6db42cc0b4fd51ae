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
import socket
import subprocess
import time

import aiohttp
import pytest

from conftest import run
from hustings.ai import example_bot
from hustings.ai.example_bot import play, reconnect_pause_s
from hustings.client import ONE_ATTEMPT, Client, HustingsError, Joined
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import UNBOUNDED_CALL_RATE, UNBOUNDED_CREATES, Replica, ReplicaConfig
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


def test_the_python_bot_counts_fruitless_streams_and_passes_on_the_retry_hint(
    redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``play`` itself hands ``reconnect_pause_s`` what it needs: its first watch goes to a
    replica whose rate of calls this address has used up (refused RESOURCE_EXHAUSTED
    ``CALL_RATE_EXCEEDED`` with a retry hint), the next to a dead address, then to a replica
    that serves it. The pauses are asked for after one and two fruitless streams in a row, the
    first with the refusal's hint, the second with none; after the serving replica's stream
    brought updates and ended, with none fruitless."""
    asked: list[tuple[int, float | None]] = []
    real = example_bot.reconnect_pause_s

    def noting(fruitless: int, retry_after_s: float | None, rng: random.Random) -> float:
        asked.append((fruitless, retry_after_s))
        return min(real(fruitless, retry_after_s, rng), 0.05)  # the test need not wait them out

    monkeypatch.setattr(example_bot, "reconnect_pause_s", noting)

    async def scenario() -> None:
        config = dict(redis_url=redis_server.url, address="127.0.0.1:0", grace_s=0.5, **UNBOUNDED_CREATES)
        open_ = await Replica(ReplicaConfig(**config, **UNBOUNDED_CALL_RATE)).start()
        tight = await Replica(ReplicaConfig(**config, calls_per_client_per_second=0.5, call_burst=2)).start()
        dead = socket.socket()
        dead.bind(("127.0.0.1", 0))  # bound, never listening: connections are refused
        served, limited = Client(f"127.0.0.1:{open_.port}"), Client(f"127.0.0.1:{tight.port}", retry=ONE_ATTEMPT)
        nowhere = Client(f"127.0.0.1:{dead.getsockname()[1]}", retry=ONE_ATTEMPT)
        bot: asyncio.Task[object] | None = None
        try:
            created = await served.create_game("stimmvieh", 3, table=game_pb2.TableSettings(bot_seats=[2]))
            joined = await served.join(created.game_id, "Bot", seat=0)
            await served.join(created.game_id, "Idle", seat=1)  # never decides: the game stands open
            for _ in range(5):  # bounded: this address's calls at the tight replica used up
                try:
                    await limited.view(created.game_id)
                except HustingsError as refused:
                    assert refused.reason == "CALL_RATE_EXCEEDED" and refused.retry_after_s
                    break
            else:
                raise AssertionError("the tight replica never refused a call")
            bot = asyncio.create_task(play([limited, nowhere, served], joined, random.Random(1)))
            for _ in range(100):  # bounded: 10 s
                if len(asked) >= 2:
                    break
                await asyncio.sleep(0.1)
            (first, hint), (second, no_hint) = asked[:2]
            assert (first, second) == (1, 2), asked
            assert hint is not None and hint > 0 and no_hint is None, asked
            await asyncio.sleep(0.5)  # the stream at the serving replica brings the game
            await open_.stop()  # and ends, after its updates
            for _ in range(100):  # bounded: 10 s
                if len(asked) >= 3:
                    break
                await asyncio.sleep(0.1)
            assert len(asked) >= 3 and asked[2][0] == 0, asked  # counted afresh after a stream that brought updates
        finally:
            if bot is not None:
                bot.cancel()
                await asyncio.gather(bot, return_exceptions=True)
            for client in (served, limited, nowhere):
                await client.close()
            dead.close()
            await tight.stop()
            await open_.stop()

    run(scenario(), timeout_s=60)


TS_PLAY_LOGGED = """
import { play } from "./example_bot.js";
import { HustingsRest } from "./rest.js";
const [tight, served, gameId, seat, token] = process.argv.slice(1);
const t0 = Date.now();
const lines = [];
await play([new HustingsRest(tight), new HustingsRest(served)], gameId, Number(seat), token, Math.random,
  (line) => lines.push([Date.now() - t0, line]));
console.log(JSON.stringify(lines));
"""


def test_the_typescript_bot_waits_out_the_retry_hint_of_a_refused_stream(
    redis_server: EmbeddedRedis, typescript_dist: pathlib.Path
) -> None:
    """The TypeScript example bot's first stream goes to a replica whose rate of calls this
    address has used up (429 ``CALL_RATE_EXCEEDED`` with a hint of about two seconds): it
    watches again, at the next replica, no sooner than the hint, not after its own short pause."""

    async def scenario() -> None:
        config = dict(redis_url=redis_server.url, address="127.0.0.1:0", http_address="127.0.0.1:0", grace_s=0.5, **UNBOUNDED_CREATES)
        open_ = await Replica(ReplicaConfig(**config, **UNBOUNDED_CALL_RATE)).start()
        tight = await Replica(ReplicaConfig(**config, calls_per_client_per_second=0.5, call_burst=1)).start()
        served, limited = f"http://127.0.0.1:{open_.http_port}", f"http://127.0.0.1:{tight.http_port}"
        try:
            async with Client(f"127.0.0.1:{open_.port}") as client:
                created = await client.create_game("stimmvieh", 3, table=game_pb2.TableSettings(bot_seats=[1, 2]))
                joined = await client.join(created.game_id, "Bot", seat=0)
            async with aiohttp.ClientSession() as http:
                for _ in range(5):  # bounded: this address's calls at the tight replica used up
                    async with http.get(f"{limited}/v1/games/{created.game_id}/view") as answer:
                        if answer.status == 429:
                            break
                else:
                    raise AssertionError("the tight replica never refused a call")
            node = await asyncio.create_subprocess_exec(
                "node", "--input-type=module", "-e", TS_PLAY_LOGGED, limited, served, created.game_id, "0", joined.token,
                cwd=typescript_dist, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            )
            out, err = await asyncio.wait_for(node.communicate(), 60)
            assert node.returncode == 0, err.decode()[-2000:]
            lines = json.loads(out.decode().strip().splitlines()[-1])
            at_tight = next(ms for ms, line in lines if line.startswith("watching") and line.endswith(limited))
            refused = next(line for _, line in lines if line.startswith("stream broken"))
            at_served = next(ms for ms, line in lines if line.startswith("watching") and line.endswith(served))
            assert "CALL_RATE_EXCEEDED" in refused or "429" in refused, refused
            assert at_served - at_tight >= 1_000, lines[:4]  # the hint (about 2 s less the node's start), not a pause of at most 0.5 s
        finally:
            await tight.stop()
            await open_.stop()

    run(scenario(), timeout_s=90)
