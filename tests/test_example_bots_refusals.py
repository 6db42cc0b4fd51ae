"""The example bots and refusals.

- The TypeScript example bot checks its --name as the server would (display_names.ts, the same
  rule as the Python client's checked_display_name) before it makes a table: a refused name
  left an open table in the lobby.
- A move refused RESOURCE_EXHAUSTED is sent again (same decision, same request id) after a
  pause, on the same stream; one refused INTERNAL ends the bot with the reason. Both were taken
  for a broken stream: the bot watched again, quietly, until its limit.
- play_seat counts a return refused GAME_OVER (the game ended first) as the game being over.
"""

from __future__ import annotations

import asyncio
import json
import pathlib
import random
import subprocess
import sys
from typing import Any

import grpc
import pytest

from conftest import run
from rest_helpers import LiveRest
from service_helpers import replica_and_client
from hustings.ai.example_bot import MoveRefused, play
from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.errors import ServiceError
from hustings.service.seats import display_name
from hustings.v1 import game_pb2, game_service_pb2

TS_DIR = pathlib.Path(__file__).resolve().parent.parent / "clients" / "typescript"
NODE_TIMEOUT_S = 60

NAMES = [
    "Ada", "  Ada  ", "Bot (random)", "B0t [rand0m].", "Bоt", "Bot (strong) x", "bot(greedy)", "Ａｄａ",
    "Ada (seat 2)", "Ada［seat ２］", "Ada (seat ٢)", "Ada (seat 2)_", "Ada (seat 2)!!", "", " ", "\u2800",
    "Zoë", "Tokyo東京", "e\u0323\u0302", "e" + "\u0301" * 5, "Straße", "ẞtrong", "Ada\u200b", "x" * 40, "x" * 41,
    "😀" * 40, "😀" * 41, "ꓐot", "ᏼot (random)", "\ufeffAda", "Ada\x1f", "ΣΑΣ", "İstanbul",
    "Ｂｏｔ　（ｒａｎｄｏｍ）", "Bot\ufe0f (random)", "สมศักดิ์", "སྒྲུབ", "Ada\u034f\u0301\u0301\u0301\u0301\u0301",
    *(chr(point) for point in range(0x21, 0x30000, 97) if not 0xD800 <= point <= 0xDFFF),
    *(f"Bo{chr(point)} (random)" for point in range(0x21, 0x30000, 311) if not 0xD800 <= point <= 0xDFFF),
]


def _python_verdict(name: str) -> list[str]:
    try:
        return ["ok", display_name(name)]
    except ServiceError as refused:
        return ["refused", str(refused)]


def test_the_typescript_name_data_is_what_the_server_rule_makes() -> None:
    result = subprocess.run([sys.executable, "scripts/display_names.py", "--check"], cwd=TS_DIR, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr


def test_the_typescript_and_python_name_checks_give_the_same_verdicts(typescript_dist: pathlib.Path) -> None:
    script = (
        "import(process.argv[1]).then((m) => { const names = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        " console.log(JSON.stringify(names.map((n) => { const p = m.displayNameProblem(n);"
        " return p === undefined ? ['ok', m.checkedDisplayName(n)] : ['refused', p]; }))); })"
    )
    done = subprocess.run(["node", "-e", script, (typescript_dist / "display_names.js").as_uri()], input=json.dumps(NAMES),
                          capture_output=True, text=True, timeout=NODE_TIMEOUT_S, check=True)
    verdicts = json.loads(done.stdout)
    differ = [(name, _python_verdict(name), ts) for name, ts in zip(NAMES, verdicts) if _python_verdict(name) != ts]
    assert len(verdicts) == len(NAMES) and not differ, ascii(differ[:10])
    assert sum(v[0] == "refused" for v in verdicts) > 20 and sum(v[0] == "ok" for v in verdicts) > 20


def _games(live: LiveRest) -> int:
    return len(live.ok("GET", "/v1/games?pageSize=100").get("games", []))


@pytest.mark.parametrize("name", ["Bot (random)", "Bоt"])  # a server bot's name; a word mixing Latin and Cyrillic
def test_the_typescript_bot_refuses_a_bad_name_before_it_makes_a_table(
    typescript_dist: pathlib.Path, redis_server: EmbeddedRedis, name: str
) -> None:
    with LiveRest(redis_server.url) as live:
        before = _games(live)
        done = subprocess.run(["node", str(typescript_dist / "example_bot.js"), "--server", live.base_url, "--name", name],
                              capture_output=True, text=True, timeout=NODE_TIMEOUT_S)
        assert done.returncode != 0 and "BAD_DISPLAY_NAME" in done.stderr, done.stderr[-2000:]
        assert "created" not in done.stderr and "at " not in done.stderr.split("BAD_DISPLAY_NAME", 1)[1][:200]
        assert _games(live) == before  # no table left open in the lobby


class RefusingProxy(grpc.GenericRpcHandler):
    """A loopback gRPC proxy in front of a replica that passes every call through, except the
    first SubmitMoves, which it refuses with ``refusals`` (in order) without passing them on."""

    def __init__(self, target: str, refusals: list[ServiceError]) -> None:
        self.target = target
        self.refusals = list(refusals)
        self.moves: list[game_service_pb2.SubmitMoveRequest] = []
        self.watches = 0
        self.port = 0

    def service(self, details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler:
        method = details.method
        if method.endswith("/WatchGame"):
            async def stream(request: bytes, context: grpc.aio.ServicerContext) -> Any:
                async for update in self._stream(method, request, context):
                    yield update

            return grpc.unary_stream_rpc_method_handler(stream)

        async def unary(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
            return await self._unary(method, request, context)

        return grpc.unary_unary_rpc_method_handler(unary)

    async def _unary(self, method: str, request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        if method.endswith("/SubmitMove"):
            self.moves.append(game_service_pb2.SubmitMoveRequest.FromString(request))
            if self.refusals:
                status = self.refusals.pop(0).to_status()
                await context.abort(status.code, status.details, status.trailing_metadata)
        call = self.channel.unary_unary(method)
        try:
            return await call(request, metadata=context.invocation_metadata(), timeout=10)
        except grpc.aio.AioRpcError as error:
            await context.abort(error.code(), error.details() or "", error.trailing_metadata())
            raise

    async def _stream(self, method: str, request: bytes, context: grpc.aio.ServicerContext) -> Any:
        self.watches += 1
        try:
            async for update in self.channel.unary_stream(method)(request, metadata=context.invocation_metadata()):
                yield update
        except grpc.aio.AioRpcError as error:
            await context.abort(error.code(), error.details() or "", error.trailing_metadata())

    async def __aenter__(self) -> "RefusingProxy":
        self.channel = grpc.aio.insecure_channel(self.target)
        self.server = grpc.aio.server()
        self.server.add_generic_rpc_handlers([self])
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        await self.server.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.server.stop(0)
        await self.channel.close()


async def _seat_behind_proxy(redis_url: str, refusals: list[ServiceError], scenario: Any) -> None:
    async with replica_and_client(redis_url) as (replica, client):
        table = game_pb2.TableSettings(bot_seats=[1, 2, 3], bot_level="random")
        game_id = (await client.create_game("stimmvieh", 4, table=table)).game_id
        joined = await client.join(game_id, "Ada")
        async with RefusingProxy(f"127.0.0.1:{replica.port}", refusals) as proxy, Client(f"127.0.0.1:{proxy.port}") as through:
            await scenario(proxy, through, joined)


def test_the_python_bot_sends_a_move_refused_resource_exhausted_again_on_the_same_stream(redis_server: EmbeddedRedis) -> None:
    async def scenario(proxy: RefusingProxy, through: Client, joined: Any) -> None:
        played = await asyncio.wait_for(play([through], joined, random.Random(3)), 30)
        assert played.view.status == game_pb2.GAME_STATUS_FINISHED
        assert played.watched_from == [0] and proxy.watches == 1  # the stream was never taken for broken
        first, again = proxy.moves[0], proxy.moves[1]
        assert (again.request_id, again.expected_version, again.move) == (first.request_id, first.expected_version, first.move)

    store_full = ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, "STORE_FULL", "the store is full")
    run(_seat_behind_proxy(redis_server.url, [store_full], scenario), timeout_s=60)


def test_the_python_bot_ends_with_the_reason_of_a_move_refused_internal(redis_server: EmbeddedRedis) -> None:
    async def scenario(proxy: RefusingProxy, through: Client, joined: Any) -> None:
        with pytest.raises(MoveRefused) as refused:
            await asyncio.wait_for(play([through], joined, random.Random(3)), 30)
        assert refused.value.refusal.code == grpc.StatusCode.INTERNAL and "INTERNAL" in str(refused.value)
        assert proxy.watches == 1 and len(proxy.moves) == 1  # no stream opened again, no move sent again

    internal = ServiceError(grpc.StatusCode.INTERNAL, "INTERNAL", "internal error")
    run(_seat_behind_proxy(redis_server.url, [internal], scenario), timeout_s=60)
