"""The example bots and refusals.

- The TypeScript example bot checks its --name as the server would (display_names.ts, the same
  rule as the Python client's checked_display_name) before it makes a table: a refused name
  left an open table in the lobby.
- A move refused RESOURCE_EXHAUSTED is sent again (same decision, same request id) after a
  pause, on the same stream; one refused INTERNAL ends the bot with the reason. Both were taken
  for a broken stream: the bot watched again, quietly, until its limit.
- play_seat counts a return refused GAME_OVER (the game ended first) as the game being over.
- Both example bots answer a refused return to an absent seat as a refused move: GAME_OVER ends
  the bot with the final view, RESOURCE_EXHAUSTED is asked again after the hint on the same
  stream, anything else (INTERNAL) ends the bot with its reason. All of them were taken for a
  broken stream (the TypeScript bot) or ended the bot with a traceback (the Python one).
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import json
import os
import pathlib
import random
import subprocess
import sys
import threading
import time
import unicodedata
from typing import Any, Callable, Sequence

import grpc
import pytest
import requests
from google.protobuf import json_format

from conftest import run
from rest_helpers import LiveRest, serving_in_background
from service_helpers import RefusingProxy, away_from_a_running_game, replica_and_client
from hustings.ai import example_bot
from hustings.ai.example_bot import MAX_MOVE_PACES, MoveRefused, Refused, play
from hustings.bots import BotStats, RandomBot, play_seat
from hustings.client import ONE_ATTEMPT, Client, HustingsError, Joined, RetryPolicy
from hustings.service.client_limits import call_rate_exceeded
from hustings.service.embedded_redis import EmbeddedRedis, free_port
from hustings.service.errors import RetryLater, ServiceError
from hustings.service.rest import HTTP_STATUS
from hustings.service.seats import display_name
from hustings.v1 import game_pb2

TS_DIR = pathlib.Path(__file__).resolve().parent.parent / "clients" / "typescript"
NODE_TIMEOUT_S = 60

HAND_PICKED = [
    "Ada", "  Ada  ", "Bot (random)", "B0t [rand0m].", "Bоt", "Bot (strong) x", "bot(greedy)", "Ａｄａ",
    "Ada (seat 2)", "Ada［seat ２］", "Ada (seat ٢)", "Ada (seat 2)_", "Ada (seat 2)!!", "", " ", "\u2800",
    "Zoë", "Tokyo東京", "e\u0323\u0302", "e" + "\u0301" * 5, "Straße", "ẞtrong", "Ada\u200b", "x" * 40, "x" * 41,
    "😀" * 40, "😀" * 41, "ꓐot", "ᏼot (random)", "\ufeffAda", "Ada\x1f", "ΣΑΣ", "İstanbul",
    "Ｂｏｔ　（ｒａｎｄｏｍ）", "Bot\ufe0f (random)", "สมศักดิ์", "སྒྲུབ", "Ada\u034f\u0301\u0301\u0301\u0301\u0301",
]
# The TypeScript rule's Unicode tables are those of the Python that wrote them (its version in the
# file): a Python of another Unicode version judges characters assigned since then otherwise, so
# there the names spread over every plane are left out and the hand-picked ones compared.
SAME_UNICODE = f'UNICODE_VERSION = "{unicodedata.unidata_version}";' in (TS_DIR / "src" / "display_names_data.ts").read_text(encoding="utf-8")
NAMES = [
    *HAND_PICKED,
    *(chr(point) for point in range(0x21, 0x30000, 97) if not 0xD800 <= point <= 0xDFFF),
    *(f"Bo{chr(point)} (random)" for point in range(0x21, 0x30000, 311) if not 0xD800 <= point <= 0xDFFF),
] if SAME_UNICODE else HAND_PICKED


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
    # The hand-picked names alone (all a Python of another Unicode version compares) hold both.
    picked = verdicts[:len(HAND_PICKED)]
    assert sum(v[0] == "refused" for v in picked) > 10 and sum(v[0] == "ok" for v in picked) > 10
    assert not SAME_UNICODE or (sum(v[0] == "refused" for v in verdicts) > 20 and sum(v[0] == "ok" for v in verdicts) > 20)


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


async def _seat_behind_proxy(
    redis_url: str, refusals: list[ServiceError], scenario: Any, retry: RetryPolicy = RetryPolicy()
) -> None:
    async with replica_and_client(redis_url) as (replica, client):
        table = game_pb2.TableSettings(bot_seats=[1, 2, 3], bot_level="random")
        game_id = (await client.create_game("stimmvieh", 4, table=table)).game_id
        joined = await client.join(game_id, "Ada")
        async with (
            RefusingProxy(f"127.0.0.1:{replica.port}", refusals) as proxy,
            Client(f"127.0.0.1:{proxy.port}", retry=retry) as through,
        ):
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


def test_the_python_bot_sends_a_move_refused_resource_exhausted_again_twenty_times_at_most(
    redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README: a move refused RESOURCE_EXHAUSTED is sent again "20 times in a row at most", then
    the bot ends with the refusal. Every move is refused here (hinted 10 ms, and the bot's own
    growing pause shortened to milliseconds for the test: the bound is what it checks; the
    client makes one attempt a call, so that each of the bot's sendings is one move through the
    proxy): the bot stops, having sent the move MAX_MOVE_PACES + 1 times, on the one stream."""
    monkeypatch.setattr(example_bot, "RECONNECT_PAUSE_S", 0.001)
    monkeypatch.setattr(example_bot, "RECONNECT_MAX_S", 0.01)

    async def scenario(proxy: RefusingProxy, through: Client, joined: Any) -> None:
        with pytest.raises(MoveRefused) as refused:
            await asyncio.wait_for(play([through], joined, random.Random(3)), 50)
        assert refused.value.refusal.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert proxy.watches == 1 and len({move.request_id for move in proxy.moves}) == 1
        assert len(proxy.moves) == MAX_MOVE_PACES + 1 == 21

    hinted = call_rate_exceeded(0.01)
    run(_seat_behind_proxy(redis_server.url, [hinted] * 2_000, scenario, ONE_ATTEMPT), timeout_s=60)


def test_the_python_bot_ends_with_the_reason_of_a_move_refused_internal(redis_server: EmbeddedRedis) -> None:
    async def scenario(proxy: RefusingProxy, through: Client, joined: Any) -> None:
        with pytest.raises(MoveRefused) as refused:
            await asyncio.wait_for(play([through], joined, random.Random(3)), 30)
        assert refused.value.refusal.code == grpc.StatusCode.INTERNAL and "INTERNAL" in str(refused.value)
        assert proxy.watches == 1 and len(proxy.moves) == 1  # no stream opened again, no move sent again

    internal = ServiceError(grpc.StatusCode.INTERNAL, "INTERNAL", "internal error")
    run(_seat_behind_proxy(redis_server.url, [internal], scenario), timeout_s=60)


def test_the_python_bot_command_exits_1_with_the_reason_of_a_move_refused_internal(redis_server: EmbeddedRedis) -> None:
    """README: a move refused INTERNAL ends the example bot with the reason, exit status 1 (the
    command, not only its ``play``): it joins a game whose other seats are the server's bots,
    through a proxy that refuses its first move."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (replica, client):
            table = game_pb2.TableSettings(bot_seats=[1, 2, 3], bot_level="random")
            game_id = (await client.create_game("stimmvieh", 4, table=table)).game_id
            async with RefusingProxy(f"127.0.0.1:{replica.port}", [INTERNAL]) as proxy:
                bot = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "hustings.ai.example_bot", "--server", f"127.0.0.1:{proxy.port}", "--game", game_id,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                )
                try:
                    out, err = await asyncio.wait_for(bot.communicate(), 60)
                finally:
                    if bot.returncode is None:
                        bot.kill()
                        await bot.wait()
            assert bot.returncode == 1, (bot.returncode, err.decode()[-2000:])
            assert "refused: INTERNAL" in err.decode() and not out.strip(), err.decode()[-2000:]
            assert len(proxy.moves) == 1

    run(scenario(), timeout_s=90)


# A seat away from a running game: Ada (seat 0) has left, so her seat's bot decides for her at
# once, and the game waits on Bea (seat 1), who is present and never moves; seats 2 and 3 are the
# server's. Bea leaving hands her seat to its bot too, and the game then runs to its end.
RETURN_TIMEOUT_S = 30
FINISH_POLLS = 1000  # the bound on the looks (each a move, or a pause of FINISH_POLL_S) of a game played out
FINISH_POLL_S = 0.02
INTERNAL = ServiceError(grpc.StatusCode.INTERNAL, "INTERNAL", "internal error")
STORE_FULL = ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, "STORE_FULL", "the store is full")


async def _bea_leaves(client: Client, bea: Joined) -> None:
    """Bea leaves: her seat's bot plays on for her."""
    await client.leave(bea.game_id, bea.token)


async def _played_out(client: Client, bea: Joined) -> None:
    """Bea plays the game to its end, at random, the other seats' bots deciding at once (a table
    nobody is at is paced: 4 s for a game)."""
    rng = random.Random(9)
    for _ in range(FINISH_POLLS):
        view = await client.view(bea.game_id, bea.token)
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            return
        if bea.seat not in view.to_act or not view.legal_moves:
            await asyncio.sleep(FINISH_POLL_S)
            continue
        with contextlib.suppress(HustingsError):  # the table moved on meanwhile: look again
            await client.move(bea.game_id, bea.token, rng.choice(list(view.legal_moves)), expected_version=view.version)
    raise AssertionError("the game did not end")


async def _away_behind_proxy(redis_url: str, scenario: Any, **proxy: Any) -> None:
    """``scenario(proxy, through, ada)`` with Ada away (see above); ``proxy``'s hooks are called
    with the direct client and Bea's seat."""
    async with replica_and_client(redis_url) as (replica, client):
        ada, bea = await away_from_a_running_game(client)
        hooks = {name: (lambda hook=hook: hook(client, bea)) for name, hook in proxy.pop("hooks", {}).items()}
        async with RefusingProxy(f"127.0.0.1:{replica.port}", [], **proxy, **hooks) as through_proxy, \
                Client(f"127.0.0.1:{through_proxy.port}") as through:
            await scenario(through_proxy, through, ada)


def test_play_seat_ends_with_the_final_view_when_its_return_meets_the_end_of_the_game(redis_server: EmbeddedRedis) -> None:
    # The return reaches the server only once the game is over: refused GAME_OVER, which is the
    # end of the game, not an error of the seat.
    async def scenario(proxy: RefusingProxy, through: Client, ada: Joined) -> None:
        stats = BotStats()
        final = await asyncio.wait_for(play_seat(through, ada, RandomBot(random.Random(5)), stats), RETURN_TIMEOUT_S)
        assert final is not None and final.status == game_pb2.GAME_STATUS_FINISHED
        assert proxy.returns == 1 and stats.errors == 0 and stats.error_reasons == {} and stats.returns == 0

    run(_away_behind_proxy(redis_server.url, scenario, hooks={"before_return": _played_out}), timeout_s=60)


def test_the_python_bot_ends_with_the_final_view_when_its_return_meets_the_end_of_the_game(redis_server: EmbeddedRedis) -> None:
    async def scenario(proxy: RefusingProxy, through: Client, ada: Joined) -> None:
        played = await asyncio.wait_for(play([through], ada, random.Random(5)), RETURN_TIMEOUT_S)
        assert played.view.status == game_pb2.GAME_STATUS_FINISHED and played.returned == []
        assert proxy.returns == 1 and proxy.watches == 1

    run(_away_behind_proxy(redis_server.url, scenario, hooks={"before_return": _played_out}), timeout_s=60)


def test_the_python_bot_asks_again_after_a_return_refused_resource_exhausted(redis_server: EmbeddedRedis) -> None:
    async def scenario(proxy: RefusingProxy, through: Client, ada: Joined) -> None:
        played = await asyncio.wait_for(play([through], ada, random.Random(5)), RETURN_TIMEOUT_S)
        assert played.view.status == game_pb2.GAME_STATUS_FINISHED and len(played.returned) == 1
        assert proxy.returns == 2 and proxy.watches == 1  # asked again on the same stream

    run(_away_behind_proxy(redis_server.url, scenario, return_refusals=[STORE_FULL], hooks={"after_return": _bea_leaves}),
        timeout_s=60)


def test_the_python_bot_ends_with_the_reason_of_a_return_refused_internal(redis_server: EmbeddedRedis) -> None:
    async def scenario(proxy: RefusingProxy, through: Client, ada: Joined) -> None:
        with pytest.raises(Refused) as refused:
            await asyncio.wait_for(play([through], ada, random.Random(5)), RETURN_TIMEOUT_S)
        assert refused.value.call == "return" and refused.value.refusal.code == grpc.StatusCode.INTERNAL
        assert "INTERNAL" in str(refused.value) and ada.token not in str(refused.value)
        assert proxy.returns == 1 and proxy.watches == 1

    run(_away_behind_proxy(redis_server.url, scenario, return_refusals=[INTERNAL]), timeout_s=60)


# The TypeScript bot's play() behind a loopback HTTP proxy in front of a replica's REST face. The
# bot's client makes one attempt per call ({...DEFAULT_RETRY, maxAttempts: 1}, a caller that
# paces itself), so a hinted refusal reaches the bot as one past the client's budget does.
PLAY_SCRIPT = """
const [botUrl, restUrl, base, gameId, seat] = process.argv.slice(1);
const token = process.env.SEAT_TOKEN;
const bot = await import(botUrl);
const rest = await import(restUrl);
const api = new rest.HustingsRest(base, fetch, { ...rest.DEFAULT_RETRY, maxAttempts: 1 });
let state = 7;
const random = () => ((state = (state * 48271) % 2147483647) / 2147483647);
try {
  const played = await bot.play([api], gameId, Number(seat), token, random, (line) => process.stderr.write(line + "\\n"));
  console.log(JSON.stringify({ status: played.view.status, watchedFrom: played.watchedFrom.map(String),
                               decided: played.decided.length, returned: played.returned.map(String) }));
} catch (error) {
  console.log(JSON.stringify({ error: error.name, call: error.call, code: error.refusal?.code,
                               reason: error.refusal?.reason, message: error.message }));
}
"""
HINT_S = 0.5
Answer = tuple[int, dict[str, str], bytes]  # HTTP status, headers, body
RestHook = Callable[[LiveRest, dict[str, Any]], None]


def _refusal(error: ServiceError) -> Answer:
    """The server's own answer to a refused request (service/rest.py's error_response)."""
    headers = {"Content-Type": "application/json"}
    if isinstance(error, RetryLater):
        headers["Retry-After"] = error.retry_after_header()
    return HTTP_STATUS[error.code], headers, json.dumps(json_format.MessageToDict(error.status_proto())).encode()


class RestRefusingProxy(http.server.ThreadingHTTPServer):
    """A loopback HTTP proxy in front of one replica's REST face that passes every request
    through (event streams event by event), except the first SubmitMoves and ReturnToGames,
    answered with ``move_refusals`` and ``return_refusals`` (in order) without passing them on;
    ``before_return`` and ``after_return`` are called around each ReturnToGame it passes on."""

    daemon_threads = True

    def __init__(self, live: LiveRest, move_refusals: Sequence[Answer] = (), return_refusals: Sequence[Answer] = (),
                 before_return: Callable[[], None] | None = None, after_return: Callable[[], None] | None = None) -> None:
        super().__init__(("127.0.0.1", free_port()), _RestProxyHandler)
        self.target = live.base_url
        self.move_refusals, self.return_refusals = list(move_refusals), list(return_refusals)
        self.before_return, self.after_return = before_return, after_return
        self.lock = threading.Lock()
        self.moves: list[tuple[float, dict[str, Any]]] = []  # when each SubmitMove came, and its body
        self.returns = 0
        self.watches = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _RestProxyHandler(http.server.BaseHTTPRequestHandler):
    server: RestRefusingProxy
    protocol_version = "HTTP/1.0"  # a stream's body runs until the connection closes

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        self._proxy()

    def do_POST(self) -> None:  # noqa: N802
        self._proxy()

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the test reads the proxy's counts instead."""

    def _answer(self, answer: Answer) -> None:
        status, headers, body = answer
        self.send_response(status)
        for name, value in {**headers, "Content-Length": str(len(body))}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _proxy(self) -> None:
        proxy = self.server
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        path = self.path.split("?")[0]
        refusal: Answer | None = None
        returning = self.command == "POST" and path.endswith(":return")
        with proxy.lock:
            if self.command == "POST" and path.endswith("/moves"):
                proxy.moves.append((time.monotonic(), json.loads(raw)))
                refusal = proxy.move_refusals.pop(0) if proxy.move_refusals else None
            elif returning:
                proxy.returns += 1
                refusal = proxy.return_refusals.pop(0) if proxy.return_refusals else None
            elif path.endswith(":watch"):
                proxy.watches += 1
        if refusal is not None:
            self._answer(refusal)
            return
        if returning and proxy.before_return is not None:
            proxy.before_return()
        headers = {k: v for k, v in self.headers.items() if k in ("Authorization", "Content-Type", "Accept", "Last-Event-ID")}
        streaming = path.endswith(":watch")
        upstream = requests.request(self.command, proxy.target + self.path, data=raw or None, headers=headers,
                                    stream=streaming, timeout=NODE_TIMEOUT_S)
        if returning and proxy.after_return is not None:
            proxy.after_return()
        if not streaming or upstream.status_code != 200:
            self._answer((upstream.status_code, {"Content-Type": upstream.headers.get("Content-Type", "application/json")},
                          upstream.content))
            return
        self.send_response(200)
        self.send_header("Content-Type", upstream.headers.get("Content-Type", "text/event-stream"))
        self.end_headers()
        with contextlib.suppress(requests.RequestException, OSError, ValueError), contextlib.closing(upstream):
            for line in iter(upstream.raw.readline, b""):
                self.wfile.write(line)
                if not line.strip():
                    self.wfile.flush()


def _serving(proxy: RestRefusingProxy) -> contextlib.AbstractContextManager[RestRefusingProxy]:
    return serving_in_background(proxy, "rest-refusing-proxy", NODE_TIMEOUT_S)


def _ts_play(dist: pathlib.Path, proxy: RestRefusingProxy, seat: dict[str, Any], game_id: str) -> dict[str, Any]:
    """What the TypeScript bot's play() came to for ``seat`` (a JoinGame answer), through ``proxy``."""
    done = subprocess.run(
        ["node", "--input-type=module", "-e", PLAY_SCRIPT, (dist / "example_bot.js").as_uri(), (dist / "rest.js").as_uri(),
         proxy.base_url, game_id, str(seat["seat"])],
        capture_output=True, text=True, timeout=NODE_TIMEOUT_S, env={**os.environ, "SEAT_TOKEN": seat["seatToken"]},
    )
    assert done.returncode == 0 and done.stdout.strip(), done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert seat["seatToken"] not in done.stdout + done.stderr
    return result


def _rest_game(live: LiveRest, bot_seats: list[int], names: list[str]) -> tuple[str, list[dict[str, Any]]]:
    table = {"botSeats": bot_seats, "botLevel": "random"}
    game_id = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 4}, "table": table})["gameId"]
    return game_id, [live.ok("POST", f"/v1/games/{game_id}:join", {"displayName": name}) for name in names]


RATE_HINTED = _refusal(call_rate_exceeded(HINT_S))  # 429, RetryInfo "0.500s", Retry-After: 1
# A balancer's own 429: no google.rpc.Status, a Retry-After header of a second.
BARE_429: Answer = (429, {"Content-Type": "text/plain", "Retry-After": "1"}, b"429 Too Many Requests")


@pytest.mark.parametrize("refusal", [
    pytest.param(RATE_HINTED, id="CALL_RATE_EXCEEDED"),
    pytest.param(BARE_429, id="a_balancers_bare_429"),
    pytest.param(_refusal(STORE_FULL), id="STORE_FULL", marks=pytest.mark.slow),  # no hint: a growing pause
])
def test_the_typescript_bot_sends_a_move_refused_resource_exhausted_again_on_the_same_stream(
    typescript_dist: pathlib.Path, redis_server: EmbeddedRedis, refusal: Answer
) -> None:
    with LiveRest(redis_server.url) as live:
        game_id, (ada,) = _rest_game(live, [1, 2, 3], ["Ada"])
        with _serving(RestRefusingProxy(live, move_refusals=[refusal])) as proxy:
            played = _ts_play(typescript_dist, proxy, ada, game_id)
        assert played.get("status") == game_pb2.GAME_STATUS_FINISHED, played
        assert played["watchedFrom"] == ["0"] and proxy.watches == 1  # the stream was never taken for broken
        (first_at, first), (again_at, again) = proxy.moves[:2]
        assert again == first  # the same decision: move, version and request id
        if refusal is RATE_HINTED:
            assert again_at - first_at >= HINT_S  # not before the server's hint
        if refusal is BARE_429:
            assert again_at - first_at >= 1.0  # not before the balancer's Retry-After


@pytest.mark.slow  # twenty of the bot's own pauses, growing from 0.5 s to 4 s: about 30 s
def test_the_typescript_bot_sends_a_move_refused_resource_exhausted_again_twenty_times_at_most(
    typescript_dist: pathlib.Path, redis_server: EmbeddedRedis
) -> None:
    """README: a move refused RESOURCE_EXHAUSTED is sent again "20 times in a row at most", then
    the bot ends with the refusal. Every move is refused (hinted 10 ms; one attempt a call): the
    TypeScript bot sends the same decision MAX_MOVE_PACES + 1 times on its one stream, then
    stops with the refusal."""
    status, headers, body = _refusal(call_rate_exceeded(0.01))
    hinted = (status, {k: v for k, v in headers.items() if k != "Retry-After"}, body)  # the hint in the status only: 10 ms
    with LiveRest(redis_server.url) as live:
        game_id, (ada,) = _rest_game(live, [1, 2, 3], ["Ada"])
        with _serving(RestRefusingProxy(live, move_refusals=[hinted] * 200)) as proxy:
            played = _ts_play(typescript_dist, proxy, ada, game_id)
        assert played.get("error") == "Refused" and played["call"] == "move", played
        assert played["code"] == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0] and played["reason"] == "CALL_RATE_EXCEEDED"
        assert proxy.watches == 1 and len(proxy.moves) == MAX_MOVE_PACES + 1 == 21
        assert len({json.dumps(body, sort_keys=True) for _, body in proxy.moves}) == 1  # the same decision each time


def test_the_typescript_bot_ends_with_the_reason_of_a_move_refused_internal(
    typescript_dist: pathlib.Path, redis_server: EmbeddedRedis
) -> None:
    with LiveRest(redis_server.url) as live:
        game_id, (ada,) = _rest_game(live, [1, 2, 3], ["Ada"])
        with _serving(RestRefusingProxy(live, move_refusals=[_refusal(INTERNAL)])) as proxy:
            played = _ts_play(typescript_dist, proxy, ada, game_id)
        assert played.get("error") == "Refused" and played["call"] == "move", played
        assert played["code"] == grpc.StatusCode.INTERNAL.value[0] and played["reason"] == "INTERNAL"
        assert proxy.watches == 1 and len(proxy.moves) == 1  # no stream opened again, no move sent again


def _bea_plays_out(live: LiveRest, game_id: str, bea: dict[str, Any]) -> None:
    """Bea plays the game to its end, at random, as _played_out does over gRPC."""
    rng = random.Random(9)
    for _ in range(FINISH_POLLS):
        view = live.ok("GET", f"/v1/games/{game_id}/view", token=bea["seatToken"])["view"]
        if view["status"] == "GAME_STATUS_FINISHED":
            return
        if bea["seat"] not in view.get("toAct", []) or not view.get("legalMoves"):
            time.sleep(FINISH_POLL_S)
            continue
        move = {"move": rng.choice(view["legalMoves"]), "expectedVersion": view["version"], "requestId": f"bea-{view['version']}"}
        live.call("POST", f"/v1/games/{game_id}/moves", move, token=bea["seatToken"])  # refused when the table moved on
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("case", ["GAME_OVER", "CALL_RATE_EXCEEDED", "INTERNAL"])
def test_the_typescript_bot_answers_a_refused_return(typescript_dist: pathlib.Path, redis_server: EmbeddedRedis, case: str) -> None:
    # Ada is away from a running game that waits on Bea (see _away_from_a_running_game). GAME_OVER:
    # the return reaches the server once Bea has played the game out. CALL_RATE_EXCEEDED: the
    # first return is refused with the hint, the next one passes and Bea leaves. INTERNAL: the
    # first return is refused.
    with LiveRest(redis_server.url) as live:
        game_id, (ada, bea) = _rest_game(live, [2, 3], ["Ada", "Bea"])
        live.ok("POST", f"/v1/games/{game_id}:leave", {}, token=ada["seatToken"])
        out = lambda: _bea_plays_out(live, game_id, bea)  # noqa: E731
        leaves = lambda: live.ok("POST", f"/v1/games/{game_id}:leave", {}, token=bea["seatToken"])  # noqa: E731
        proxy = {
            "GAME_OVER": RestRefusingProxy(live, before_return=out),
            "CALL_RATE_EXCEEDED": RestRefusingProxy(live, return_refusals=[RATE_HINTED], after_return=leaves),
            "INTERNAL": RestRefusingProxy(live, return_refusals=[_refusal(INTERNAL)]),
        }[case]
        with _serving(proxy):
            played = _ts_play(typescript_dist, proxy, ada, game_id)
        assert proxy.watches == 1, played  # a refused return never broke the stream
        if case == "INTERNAL":
            assert played.get("error") == "Refused" and played["call"] == "return" and played["reason"] == "INTERNAL", played
            assert proxy.returns == 1
            return
        assert played.get("status") == game_pb2.GAME_STATUS_FINISHED, played
        assert proxy.returns == (1 if case == "GAME_OVER" else 2)
        assert len(played["returned"]) == (0 if case == "GAME_OVER" else 1)
