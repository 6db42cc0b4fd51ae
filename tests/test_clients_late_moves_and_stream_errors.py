"""What the clients do with the service's newer answers.

- play_seat, refused TIME_RUN_OUT, waits on its stream for the step its seat's bot makes; it
  asked again on the same view, over and over, a stream and a move each time, until the bot
  had decided.
- The TypeScript client's watch keeps the RetryInfo of a stream's `event: error` as its
  HustingsError's retryAfterMs (it was dropped).
"""

from __future__ import annotations

import asyncio
import http.server
import json
import pathlib
import shutil
import subprocess
import threading
import random
import time
from typing import Callable

import redis

from conftest import HeldClock, run
from hustings.bots import BotStats, RandomBot, play_seat
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2
from hustings.service.embedded_redis import free_port
from rest_helpers import LiveRest
from service_helpers import replica_and_client

DECISION_S = 30
WAIT_POLLS = 100  # 0.02 s apart
BUSY_S = 0.5  # the strong level's thinking place is held this long by other tables' bots


class LateBot(RandomBot):
    """A bot whose first decision takes longer than its seat's time (the held clock moves past
    the deadline while it thinks); it counts the decisions it is asked for, by view version."""

    def __init__(self, late: Callable[[game_pb2.GameView], None]) -> None:
        super().__init__(random.Random(5))
        self.late = late
        self.asked: list[int] = []

    def choose(self, view: game_pb2.GameView) -> game_pb2.Move:
        if not self.asked:
            self.late(view)
        self.asked.append(view.version)
        return super().choose(view)


def test_play_seat_refused_for_time_waits_for_the_stand_in_decision(redis_server: EmbeddedRedis) -> None:
    clock = HeldClock()

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, local_clock=clock) as (replica, client):
            await replica.host.deadline_runner.stop()  # only the refusal's kick decides here
            settings = game_pb2.TableSettings(decision_seconds=DECISION_S, bot_level="strong")
            game_id = (await client.create_game("stimmvieh", 3, table=settings)).game_id
            seats = [await client.join(game_id, name) for name in ("Ada", "Bo", "Cy")]
            first = await client.view(game_id, seats[0].token)
            assert seats[0].seat in first.to_act

            def late(view: game_pb2.GameView) -> None:
                clock.advance_to_ms(replica, view.seats[0].deadline_unix_ms + 1)

            bot, stats = LateBot(late), BotStats()
            # The replica's strong bots are busy with other tables for a while: the stand-in
            # waits its turn to think.
            place = replica.host.seats._thinking["strong"]
            await place.acquire()
            task = asyncio.create_task(play_seat(client, seats[0], bot, stats))
            began = time.monotonic()
            try:
                await asyncio.sleep(BUSY_S)
                place.release()
                for _ in range(WAIT_POLLS):
                    if (await client.view(game_id)).seats[0].timeouts:
                        break
                    await asyncio.sleep(0.02)
                decided_s = time.monotonic() - began
                assert (await client.view(game_id)).seats[0].timeouts == 1  # the stand-in decided
            finally:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
            on_first = bot.asked.count(first.version)
            # Refused for time, the seat waits for the step its bot makes (one look again at most),
            # rather than deciding and sending again, a stream and a move each time.
            assert on_first <= 2, f"decided {on_first} times on version {first.version} in {decided_s:.2f} s"

    run(scenario(), 60)



TS_DIR = pathlib.Path(__file__).resolve().parent.parent / "clients" / "typescript"
ERROR_EVENT_SCRIPT = """
import { HustingsError, HustingsRest } from "./rest.js";
const [base, gameId, token] = process.argv.slice(2);
const out = {};
try {
  for await (const _ of new HustingsRest(base).watch(gameId, token, 0n, 5000)) out.unexpected = true;
} catch (error) {
  out.error = error instanceof HustingsError
    ? { httpStatus: error.httpStatus, code: error.code, reason: error.reason, retryAfterMs: error.retryAfterMs ?? null }
    : String(error);
}
console.log(JSON.stringify(out));
"""


def test_typescript_watch_keeps_the_retry_hint_of_an_error_event(typescript_dist: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """A stream that cannot read the game's log (its Redis refuses XRANGE) ends with `event: error`
    UNAVAILABLE STORE_UNAVAILABLE and its RetryInfo (1 s); the client's error says so, as a
    refusal at the start of a call does (rest.ts: `retryAfterMs`)."""
    node = shutil.which("node")
    assert node is not None
    script = typescript_dist / "review_error_event.mjs"
    script.write_text(ERROR_EVENT_SCRIPT)
    own = EmbeddedRedis(tmp_path / "redis", port=free_port(), appendonly=False).start()
    try:
        with LiveRest(own.url) as server:
            game_id, joined = server.new_game(players=3)
            store = redis.Redis.from_url(own.url)
            store.execute_command("ACL", "SETUSER", "default", "-xrange")
            try:
                result = subprocess.run(
                    [node, str(script), server.base_url, game_id, joined[0]["seatToken"]],
                    cwd=TS_DIR, capture_output=True, text=True, timeout=60,
                )
            finally:
                store.execute_command("ACL", "SETUSER", "default", "+xrange")
                store.close()
    finally:
        own.stop()
        script.unlink()
    assert result.returncode == 0, result.stderr[-2000:]
    error = json.loads(result.stdout.strip().splitlines()[-1])["error"]
    assert (error["code"], error["reason"]) == (14, "STORE_UNAVAILABLE"), error
    assert error["retryAfterMs"] == 1000, error


CLOSED_STREAM_SCRIPT = """
import { HustingsRest, StreamBroken } from "./rest.js";
const [base] = process.argv.slice(2);
const out = { updates: 0 };
try {
  for await (const _ of new HustingsRest(base).watch("g000000000000000000000001", undefined, 0n, 5000)) out.updates += 1;
  out.ended = true;
} catch (error) {
  out.broken = error instanceof StreamBroken;
}
console.log(JSON.stringify(out));
"""


class _ClosingStream(http.server.BaseHTTPRequestHandler):
    """An event stream that sends one update and closes without `event: end`, as a proxy's idle
    timeout or a replica killed leaves it."""

    def do_GET(self) -> None:  # noqa: N802 (the handler's name is http.server's)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        self.wfile.write(b"id: 1\ndata: {}\n\n")
        self.wfile.flush()
        self.close_connection = True

    def log_message(self, *_args: object) -> None:
        pass


def test_typescript_watch_takes_a_stream_closed_without_end_for_a_broken_one(typescript_dist: pathlib.Path) -> None:
    """The TypeScript client's watch ended quietly, as if the game were over, when its stream
    closed without `event: end`; a bot written from the README then stopped playing. It throws
    StreamBroken, which the caller resumes from."""
    node = shutil.which("node")
    assert node is not None
    script = typescript_dist / "closed_stream.mjs"
    script.write_text(CLOSED_STREAM_SCRIPT)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _ClosingStream)
    serving = threading.Thread(target=server.serve_forever, daemon=True)
    serving.start()
    try:
        result = subprocess.run(
            [node, str(script), f"http://127.0.0.1:{server.server_address[1]}"], cwd=TS_DIR, capture_output=True, text=True, timeout=60
        )
    finally:
        server.shutdown()
        server.server_close()
        script.unlink()
    assert result.returncode == 0, result.stderr[-2000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out == {"updates": 1, "broken": True}, out
