"""The browser client's live stream (`service/static/play/api.js`, `watch`) run in Node.js against a
real replica: opening a stream counts one call of the address's rate, and a page whose address is
at its rate (a 429 with Retry-After) comes back when the server says instead of giving up on the
game for good."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import pathlib

from conftest import run
from hustings.service import rest
from hustings.service.embedded_redis import EmbeddedRedis
from service_helpers import replica_and_client

NODE_TIMEOUT_S = 60

# Spends the address's calls with GetViews until one is refused 429, then follows the game: the
# stream's opening is refused too, and the page must wait and reconnect to get its first update.
SCRIPT = """
import { api, ApiError, watch } from "./api.mjs";
const base = process.argv[2], gameId = process.argv[3];
const plainFetch = globalThis.fetch;
globalThis.fetch = (path, init) => plainFetch(base + path, init);
let refused = 0;
for (let i = 0; i < 50 && !refused; i += 1) {
  try { await api("GET", `/v1/games/${gameId}/view`); } catch (error) { if (error instanceof ApiError && error.status === 429) refused += 1; else throw error; }
}
if (!refused) { console.log("never refused"); process.exit(2); }
const states = [];
const controller = watch(gameId, undefined, 0,
  (update) => { console.log(JSON.stringify({ update: update.version, states })); controller.abort(); process.exit(0); },
  (state) => states.push(state),
  (error) => { console.log(JSON.stringify({ fatal: error.status, reason: error.reason, states })); process.exit(1); });
"""


def test_the_play_page_follows_a_game_again_after_its_address_was_at_its_rate(tmp_path: pathlib.Path) -> None:
    node = shutil.which("node")
    assert node, "Node.js is needed (tests/install-system-deps.sh installs it)"
    (tmp_path / "api.mjs").write_bytes((rest.STATIC / "play" / "api.js").read_bytes())
    (tmp_path / "follow.mjs").write_text(SCRIPT)

    async def scenario(url: str) -> subprocess.CompletedProcess[str]:
        rate = {"calls_per_client_per_second": 1.0, "call_burst": 5, "http_address": "127.0.0.1:0"}
        async with replica_and_client(url, **rate) as (replica, client):
            game_id = (await client.create_game("stimmvieh", 3)).game_id
            base = f"http://127.0.0.1:{replica.http_port}"
            return await asyncio.to_thread(
                subprocess.run,
                [node, "follow.mjs", base, game_id],
                cwd=tmp_path,
                capture_output=True,
                text=True,
                timeout=NODE_TIMEOUT_S,
            )

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as redis_server:
        done = run(scenario(redis_server.url), timeout_s=NODE_TIMEOUT_S + 30)
    assert isinstance(done, subprocess.CompletedProcess)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert '"update":' in done.stdout and "reconnecting" in done.stdout, done.stdout


def test_a_python_bot_following_a_game_waits_out_a_refused_stream(tmp_path: pathlib.Path) -> None:
    """``hustings.bots.play_seat`` resumes a broken stream; a stream refused because the address
    is at its rate of calls (opening one counts a call) carries a retry hint, and the follower
    waits it out and follows on, rather than giving the seat up. A spectator follows a table of
    bots alone to its end from an address that has spent its burst."""
    from hustings.bots import BotStats, play_seat
    from hustings.client import ONE_ATTEMPT, HustingsError, Joined
    from hustings.v1 import game_pb2

    async def scenario(url: str) -> tuple[object, BotStats, int]:
        rate = {"calls_per_client_per_second": 2.0, "call_burst": 4}
        async with replica_and_client(url, **rate) as (_replica, client):
            alone = game_pb2.TableSettings(bot_seats=[0, 1, 2], bot_level="random")
            game_id = (await client.create_game("stimmvieh", 3, table=alone)).game_id
            refused = 0
            once = client.with_retry(ONE_ATTEMPT)
            for _ in range(20):  # spend the burst
                try:
                    await once.view(game_id)
                except HustingsError as error:
                    assert error.reason == "CALL_RATE_EXCEEDED" and error.retry_after_s
                    refused += 1
                    break
            stats = BotStats()
            spectator = Joined(game_id=game_id, seat=-1, token="", view=game_pb2.GameView())
            last = await play_seat(client, spectator, None, stats)
            return last, stats, refused

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as redis_server:
        result = run(scenario(redis_server.url), timeout_s=90)
    assert isinstance(result, tuple)
    last, stats, refused = result
    assert refused == 1
    assert stats.error_reasons == {}, stats.error_reasons
    assert last is not None and last.status == game_pb2.GAME_STATUS_FINISHED  # type: ignore[attr-defined]
