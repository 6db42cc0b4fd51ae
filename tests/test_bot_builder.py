"""What a bot author meets, against one real ``hustings serve`` (gRPC and REST/JSON) on a real
Redis: a seat that turned absent is taken back by the bots that play it, and the README's
bots run as printed."""

from __future__ import annotations

import asyncio
import json
import pathlib
import random
import re
import subprocess
import sys
from typing import Awaitable, Callable, Iterator

import grpc
import pytest
import requests

from conftest import REPO, run, serve_process
from test_client_retry import LOSE, FaultyProxy, _Forwarder
from hustings.ai.example_bot import play
from hustings.bots import BotStats, RandomBot, Replicas, play_seat
from hustings.client import Client, Joined
from hustings.service.embedded_redis import EmbeddedRedis, free_port, wait_for_port
from hustings.v1 import game_pb2


@pytest.fixture(scope="module")
def served(redis_server: EmbeddedRedis) -> Iterator[tuple[str, str]]:
    """One ``hustings serve`` process for the module; yields its gRPC and REST host:port."""
    http_port = free_port()
    with serve_process("--redis-url", redis_server.url, "--http-address", f"127.0.0.1:{http_port}") as (_, port):
        wait_for_port(http_port)
        yield f"127.0.0.1:{port}", f"127.0.0.1:{http_port}"


def _seat_moves(history: list[game_pb2.HistoryEntry], seat: int) -> list[int]:
    return [e.version for e in history if e.HasField("seat") and e.seat == seat and e.HasField("move")]


def _returned_at(history: list[game_pb2.HistoryEntry]) -> int:
    """The version of the step at which a seat came back to the game."""
    returned = game_pb2.SeatChanged.CHANGE_RETURNED
    return next(e.version for e in history for ev in e.events if ev.HasField("seat_changed") and ev.seat_changed.change == returned)


async def _absent_seat(client: Client, kind: str) -> tuple[str, Joined, Joined]:
    """A running game of ``kind`` with bots in seats 2 and 3, a player in seat 1 (``other``, who
    has not moved yet) and seat 0 (``me``) absent, as after two timeouts in a row."""
    table = game_pb2.TableSettings(bot_seats=[2, 3])
    game_id = (await client.create_game(kind, 4, table=table)).game_id
    me = await client.join(game_id, "Absent")
    other = await client.join(game_id, "Other")
    await client.leave(game_id, me.token)
    return game_id, me, other


async def _then_play_beside(client: Client, game_id: str, me: Joined, other: Joined) -> None:
    """Once ``me`` is back, ``other`` plays its seat to the end: a player at the table, so that
    the bots (and an absent seat's bot) decide at once. Until then the game waits for ``other``."""
    for _ in range(200):  # 10 s at most: a bot that never comes back leaves its seat to its bot
        view = await client.view(game_id)
        if not view.seats[me.seat].absent or view.status == game_pb2.GAME_STATUS_FINISHED:
            break
        await asyncio.sleep(0.05)
    await play_seat(client, other, RandomBot(random.Random(4)), BotStats())


def test_the_example_bot_comes_back_to_its_absent_seat_and_decides_again(served: tuple[str, str]) -> None:
    """An absent seat's server-side bot decides at once, ahead of anything the player sends: the
    example bot, finding its seat absent, returns and then makes every decision of its seat."""

    async def scenario() -> None:
        async with Client(served[0]) as client:
            game_id, me, other = await _absent_seat(client, "stimmvieh")
            beside = asyncio.create_task(_then_play_beside(client, game_id, me, other))
            played = await play([client], me, random.Random(5))
            await beside
            assert played.view.status == game_pb2.GAME_STATUS_FINISHED
            assert len(played.decided) >= 5, played.decided  # it decided, not its seat's bot
            assert len(played.returned) == 1, played.returned
            history = await client.history(game_id, me.token)
            assert [v for v in _seat_moves(history, me.seat) if v > _returned_at(history)] == played.decided

    run(scenario(), timeout_s=60)


def test_play_seat_comes_back_to_its_absent_seat_and_decides_again(served: tuple[str, str]) -> None:
    """``hustings.bots.play_seat`` with a bot takes an absent seat back, as the example bot does."""

    async def scenario() -> None:
        async with Client(served[0]) as client:
            game_id, me, other = await _absent_seat(client, "wahlspiel")
            beside = asyncio.create_task(_then_play_beside(client, game_id, me, other))
            stats = BotStats()
            final = await play_seat(client, me, RandomBot(random.Random(7)), stats)
            await beside
            assert final is not None and final.status == game_pb2.GAME_STATUS_FINISHED
            assert stats.moves >= 5 and stats.returns == 1, stats
            history = await client.history(game_id, me.token)
            assert len([v for v in _seat_moves(history, me.seat) if v > _returned_at(history)]) == stats.moves

    run(scenario(), timeout_s=60)


class HeldReturnProxy(FaultyProxy):
    """A FaultyProxy that holds every ReturnToGame, unforwarded, until ``released`` is set
    (``arrived`` is set when one comes)."""

    def __init__(self, target: str, plan: dict[str, list[str]] | None = None) -> None:
        super().__init__(target, plan or {})
        self.arrived = asyncio.Event()
        self.released = asyncio.Event()
        self.released.set()

    def forwarder(self, channel: grpc.aio.Channel) -> grpc.GenericRpcHandler:
        """Forwarding as FaultyProxy does, holding ReturnToGame."""
        return _HoldingForwarder(self, channel)


class _HoldingForwarder(_Forwarder):
    def _unary(self, path: str, method: str) -> Callable[[bytes, grpc.aio.ServicerContext], Awaitable[bytes]]:
        forward = super()._unary(path, method)
        proxy = self.proxy
        assert isinstance(proxy, HeldReturnProxy)
        if method != "ReturnToGame":
            return forward

        async def held(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
            proxy.arrived.set()
            await proxy.released.wait()
            return await forward(request, context)

        return held


def test_play_seat_counts_no_return_when_its_seat_was_back_already(served: tuple[str, str]) -> None:
    """Two programs play one seat (one token) and both find it absent: the one whose
    ReturnToGame comes second is refused NOT_ABSENT, and that is no return of its own. Its
    ReturnToGame is held at a proxy until the other program has returned; its count of returns
    stays 0, and the game's history holds the one return."""

    async def scenario() -> None:
        async with Client(served[0]) as client:
            game_id, me, other = await _absent_seat(client, "stimmvieh")
            proxy = HeldReturnProxy(served[0])
            proxy.released.clear()
            async with proxy.running(), Client(f"127.0.0.1:{proxy.port}") as held:
                stats = BotStats()
                seat = asyncio.create_task(play_seat(Replicas([held]), me, RandomBot(random.Random(3)), stats))
                await asyncio.wait_for(proxy.arrived.wait(), 10)
                await client.return_to_game(game_id, me.token)  # the other program of the seat
                proxy.released.set()
                await _then_play_beside(client, game_id, me, other)
                final = await seat
            assert final is not None and final.status == game_pb2.GAME_STATUS_FINISHED
            assert stats.returns == 0 and stats.moves >= 5 and not stats.errors, stats
            returned = game_pb2.SeatChanged.CHANGE_RETURNED
            history = await client.history(game_id, me.token)
            assert len([ev for e in history for ev in e.events if ev.HasField("seat_changed") and ev.seat_changed.change == returned]) == 1

    run(scenario(), timeout_s=60)


def test_play_seat_counts_a_return_whose_answer_was_lost(served: tuple[str, str]) -> None:
    """A ReturnToGame applied whose answer is lost is retried and refused NOT_ABSENT: that
    was the bot's own return, and it is counted once."""

    async def scenario() -> None:
        async with Client(served[0]) as client:
            game_id, me, other = await _absent_seat(client, "wahlspiel")
            proxy = HeldReturnProxy(served[0], {"ReturnToGame": [LOSE]})
            async with proxy.running(), Client(f"127.0.0.1:{proxy.port}") as lossy:
                stats = BotStats()
                seat = asyncio.create_task(play_seat(Replicas([lossy]), me, RandomBot(random.Random(8)), stats))
                await _then_play_beside(client, game_id, me, other)
                final = await seat
            assert len(proxy.requests("ReturnToGame")) == 2  # the lost one, then NOT_ABSENT
            assert final is not None and final.status == game_pb2.GAME_STATUS_FINISHED
            assert stats.returns == 1 and stats.moves >= 5 and not stats.errors, stats

    run(scenario(), timeout_s=60)


TS_PLAY_ABSENT_SEAT = """
import { play } from "./example_bot.js";
import { HustingsRest } from "./rest.js";
const [url, gameId, seat, token] = process.argv.slice(1);
const played = await play([new HustingsRest(url)], gameId, Number(seat), token, () => 0.5);
console.log(JSON.stringify({ decided: played.decided.map(String), returned: played.returned?.map(String) }));
"""


def test_the_typescript_example_bot_comes_back_to_its_absent_seat(served: tuple[str, str], typescript_dist: pathlib.Path) -> None:
    """The TypeScript example bot's ``play``, on a seat that is absent, returns and decides."""

    async def scenario() -> None:
        async with Client(served[0]) as client:
            game_id, me, other = await _absent_seat(client, "stimmvieh")
            beside = asyncio.create_task(_then_play_beside(client, game_id, me, other))
            node = await asyncio.create_subprocess_exec(
                "node", "--input-type=module", "-e", TS_PLAY_ABSENT_SEAT, f"http://{served[1]}", game_id, str(me.seat), me.token,
                cwd=typescript_dist, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            )
            out, err = await node.communicate()
            await beside
            assert node.returncode == 0, err.decode()[-3000:]
            line = json.loads(out.decode().strip().splitlines()[-1])
            decided = [int(v) for v in line["decided"]]
            assert len(decided) >= 5 and len(line["returned"] or []) == 1, line
            history = await client.history(game_id, me.token)
            assert [v for v in _seat_moves(history, me.seat) if v > _returned_at(history)] == decided

    run(scenario(), timeout_s=60)


def test_a_move_without_a_request_id_is_refused_as_the_api_document_says(served: tuple[str, str]) -> None:
    """SubmitMove's request_id is required: the proto comment, and so the OpenAPI document a
    REST bot reads, say so and name the reason the server gives."""
    document = requests.get(f"http://{served[1]}/openapi.json", timeout=10).json()
    said = document["components"]["schemas"]["hustings.v1.GameService.SubmitMoveBody"]["properties"]["requestId"]["description"]
    assert "required" in said and "MISSING_REQUEST_ID" in said, said
    api = f"http://{served[1]}/v1/games"
    game_id = requests.post(api, json={"kind": "stimmvieh", "options": {"players": 3}, "table": {"botSeats": [1, 2]}}, timeout=10).json()["gameId"]
    token = requests.post(f"{api}/{game_id}:join", json={"displayName": "Ada"}, timeout=10).json()["seatToken"]
    view = requests.get(f"{api}/{game_id}/view", headers={"Authorization": f"Bearer {token}"}, timeout=10).json()["view"]
    refused = requests.post(f"{api}/{game_id}/moves", json={"move": view["legalMoves"][0]}, headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert refused.status_code == 400 and refused.json()["details"][0]["reason"] == "MISSING_REQUEST_ID", refused.text


README_BOT_SECTION = "A bot with nothing but HTTP"


def readme_bot() -> tuple[str, str]:
    """The README's bot with nothing but HTTP, and the text around it."""
    text = (REPO / "README.md").read_text()
    match = re.search(rf"^### {re.escape(README_BOT_SECTION)}\n(.*?)(?=^##+ |\Z)", text, re.S | re.M)
    assert match, f"README has no section '### {README_BOT_SECTION}'"
    (code,) = re.findall(r"^```python\n(.*?)^```", match.group(1), re.S | re.M)
    return code, match.group(1)


def test_the_readme_bot_with_nothing_but_http_plays_every_kind_to_the_end(served: tuple[str, str], tmp_path: pathlib.Path) -> None:
    """The README's standard-library bot, saved as printed and given the server's address as its
    second argument, plays a game of each kind to the end against greedy server-side bots, and
    prints what it says."""
    code, section = readme_bot()
    assert '"http://127.0.0.1:8080"' in code and "import hustings" not in code
    assert "`python3 my_bot.py wahlspiel http://127.0.0.1:8081`" in section
    (tmp_path / "my_bot.py").write_text(code)
    runs = {
        kind: subprocess.Popen(
            [sys.executable, "my_bot.py", kind, f"http://{served[1]}"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for kind in ("stimmvieh", "wahlspiel", "spin_doctors")
    }
    shown = re.search(r"It prints one line, such as `(\w+) g…: (.*?)`", " ".join(section.split()))
    assert shown, "the section shows the line the bot prints"
    line = re.compile(r"(\w+) (g\w+): GAME_STATUS_FINISHED at version (\d+), my rank ([1-4])")
    assert line.fullmatch(f"{shown.group(1)} gexample: {shown.group(2)}"), shown.group(0)
    for kind, process in runs.items():
        out, err = process.communicate(timeout=90)
        assert process.returncode == 0, err[-3000:]
        printed = line.fullmatch(out.strip())
        assert printed and printed.group(1) == kind, out
        game_id = printed.group(2)
        history = requests.get(f"http://{served[1]}/v1/games/{game_id}/history", timeout=10).json()["entries"]
        assert len([e for e in history if e.get("seat") == 0 and "move" in e]) >= 5, kind  # the bot's own seat decided
        assert not requests.get(f"http://{served[1]}/v1/games/{game_id}/view", timeout=10).json()["view"]["seats"][0]["botPlayed"]
        # It makes its decisions only: never a move beside them (a hand-over gave its Budget away).
        beside = ("handBudget", "offerDeal", "withdrawOffer", "declineOffer")
        assert not [e for e in history if e.get("seat") == 0 and set(beside) & e.get("move", {}).get("spinDoctors", {}).keys()], kind
