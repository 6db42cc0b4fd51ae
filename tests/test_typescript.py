"""The TypeScript stubs build from the proto, the typed example type-checks (tsc, strict) and
plays a move against a live server over the REST/JSON face, also through a loopback proxy that
loses answers, answers 503/504 and cuts connections (the client retries under one request id).
The table example (a clock, a bot, leave, return, take over) runs live, and through the proxy
with every table call's first answer lost: each still happens once.

Needs Node.js 20+ and npm (the project's CI machine has them); ``npm ci`` installs exactly what
clients/typescript/package-lock.json pins. Without node the test fails, it does not skip.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import pathlib
import re
import shutil
import socket
import subprocess
import threading
from typing import Any, Iterator

import pytest
import requests

from rest_helpers import LiveRest, serving_in_background
from hustings.service.embedded_redis import EmbeddedRedis, free_port

TS_DIR = pathlib.Path(__file__).resolve().parent.parent / "clients" / "typescript"
NPM_TIMEOUT_S = 300


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: the TypeScript client needs Node.js 20+ with npm on PATH")
    return path


def _run(*args: str, timeout: float = NPM_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(args, cwd=TS_DIR, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


@pytest.fixture(scope="module")
def built(typescript_dist: pathlib.Path) -> pathlib.Path:
    """The client built by `npm ci` from the committed lock file and `npm run build` (conftest)."""
    return typescript_dist


def test_stubs_are_generated_for_every_public_proto(built: pathlib.Path) -> None:
    protos = sorted(p.stem for p in (TS_DIR.parent.parent / "proto" / "hustings" / "v1").glob("*.proto"))
    generated = sorted(p.name.removesuffix("_pb.ts") for p in (TS_DIR / "src" / "gen" / "hustings" / "v1").glob("*_pb.ts"))
    assert generated == protos
    assert (built / "example.js").exists() and (built / "rest.d.ts").exists()


def test_typed_example_plays_a_move_against_a_live_server(built: pathlib.Path, redis_server: EmbeddedRedis) -> None:
    with LiveRest(redis_server.url) as live:
        result = _run(_tool("node"), str(built / "example.js"), live.base_url, timeout=60)
        line = json.loads(result.stdout.strip().splitlines()[-1])
        assert line["seats"] == [0, 1, 2]
        assert int(line["version"]) == int(line["movedFrom"]) + 1 and line["events"] >= 1
        assert line["refused"] == "STALE_VERSION"
        view = live.ok("GET", f"/v1/games/{line['gameId']}/view")["view"]
        assert view["version"] == line["version"]


# Faults a proxy injects: forward then answer 503 (applied, the answer lost), the same with the
# retry hint a replica gives when it cannot reach the store (STORE_UNAVAILABLE), answer 503 or 504
# without forwarding, or close the connection without answering (a network error).
LOSE, LOSE_HINTED, UNAVAILABLE, TIMEOUT, CUT = "lose", "lose-hinted", "503", "504", "cut"
HINTED_503 = json.dumps({
    "code": 14,
    "message": "injected: applied, then the store unreachable",
    "details": [
        {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "STORE_UNAVAILABLE", "domain": "hustings"},
        {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "0.010s"},
    ],
}).encode()
PROXY_TIMEOUT_S = 20.0
PASSED_HEADERS = ("Authorization", "Content-Type", "Accept")


def _route(method: str, path: str) -> str:
    """The RPC a REST request is for (only the ones the examples make)."""
    if method == "POST" and path.endswith(":join"):
        return "JoinGame"
    for suffix, rpc in ((":leave", "LeaveGame"), (":return", "ReturnToGame"), (":takeOver", "TakeOverSeat"), (":addBot", "AddBot")):
        if method == "POST" and path.endswith(suffix):
            return rpc
    if method == "POST" and path.endswith("/moves"):
        return "SubmitMove"
    if method == "POST" and path == "/v1/games":
        return "CreateGame"
    if method == "GET" and path.endswith("/view"):
        return "GetView"
    return "other"


class FaultyHttpProxy(http.server.ThreadingHTTPServer):
    """A loopback HTTP proxy in front of a live REST face, with faults planned per RPC; records
    every request (RPC, JSON body) and every status it answered."""

    def __init__(self, target: str, plan: dict[str, list[str]]) -> None:
        super().__init__(("127.0.0.1", free_port()), _ProxyHandler)
        self.target = target
        self.plan = plan
        self.seen: list[tuple[str, Any, int]] = []
        self.lock = threading.Lock()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` of the proxy."""
        return f"http://127.0.0.1:{self.server_address[1]}"

    def next_action(self, rpc: str, body: Any) -> tuple[str, int]:
        """The planned fault for this call of ``rpc`` (or forwarding) and the call's index."""
        with self.lock:
            count = sum(1 for name, _, _ in self.seen if name == rpc)
            self.seen.append((rpc, body, 0))
            plan = self.plan.get(rpc, [])
            return (plan[count] if count < len(plan) else "forward"), len(self.seen) - 1

    def answered(self, index: int, status: int) -> None:
        """Record the status a call was answered with."""
        with self.lock:
            rpc, body, _ = self.seen[index]
            self.seen[index] = (rpc, body, status)

    def calls(self, rpc: str) -> list[tuple[Any, int]]:
        """(body, status) of every call of ``rpc``, in order."""
        return [(body, status) for name, body, status in self.seen if name == rpc]


class _ProxyHandler(http.server.BaseHTTPRequestHandler):
    server: FaultyHttpProxy

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        """Forward a GET."""
        self._proxy()

    def do_POST(self) -> None:  # noqa: N802
        """Forward a POST."""
        self._proxy()

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the test reads ``seen`` instead."""

    def _proxy(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        rpc = _route(self.command, self.path.split("?", 1)[0])
        action, index = self.server.next_action(rpc, json.loads(raw) if raw else None)
        if action == CUT:
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if action in (UNAVAILABLE, TIMEOUT):
            self._answer(index, int(action), b'{"code": 14, "message": "injected", "details": []}')
            return
        headers = {k: self.headers[k] for k in PASSED_HEADERS if self.headers.get(k)}
        upstream = requests.request(self.command, self.server.target + self.path, data=raw or None, headers=headers, timeout=PROXY_TIMEOUT_S)
        if action == LOSE:
            self._answer(index, 503, b'{"code": 14, "message": "injected: applied, answer lost", "details": []}')
            return
        if action == LOSE_HINTED:
            self._answer(index, 503, HINTED_503)
            return
        self._answer(index, upstream.status_code, upstream.content)

    def _answer(self, index: int, status: int, body: bytes) -> None:
        self.server.answered(index, status)
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def faulty_proxy(target: str, plan: dict[str, list[str]]) -> contextlib.AbstractContextManager[FaultyHttpProxy]:
    """The proxy, serving from a background thread while the block runs."""
    return serving_in_background(FaultyHttpProxy(target, plan), "faulty-proxy", PROXY_TIMEOUT_S)


def _request_ids(calls: list[tuple[Any, int]]) -> list[str]:
    return [body["requestId"] for body, _ in calls]


def test_typed_example_retries_under_one_request_id_across_lost_answers(built: pathlib.Path, tmp_path: pathlib.Path) -> None:
    plan = {
        "CreateGame": [CUT, LOSE],  # a network error, then an applied create whose answer is lost
        "JoinGame": [LOSE, UNAVAILABLE],  # Ada's join: applied and lost, then refused unforwarded
        "GetView": [TIMEOUT],
        "SubmitMove": [LOSE],  # the move is applied and its answer lost
    }
    redis_server = EmbeddedRedis(tmp_path, port=free_port(), appendonly=False).start()
    try:
        with LiveRest(redis_server.url) as live, faulty_proxy(live.base_url, plan) as proxy:
            result = _run(_tool("node"), str(built / "example.js"), proxy.base_url, timeout=60)
            line = json.loads(result.stdout.strip().splitlines()[-1])

            # Every attempt of one logical call carried the same request id, filled in by the client.
            creates = proxy.calls("CreateGame")
            assert [status for _, status in creates] == [0, 503, 200]
            assert len(set(_request_ids(creates))) == 1 and _request_ids(creates)[0]
            joins = _request_ids(proxy.calls("JoinGame"))
            assert len(joins) == 5 and joins[0] == joins[1] == joins[2] and len(set(joins)) == 3
            assert [status for _, status in proxy.calls("GetView")] == [504, 200]
            # The move: applied, answer lost, retried under its id; the stale one refused once, not retried.
            moves = proxy.calls("SubmitMove")
            assert [status for _, status in moves] == [503, 200, 409]
            assert moves[0][0]["requestId"] == moves[1][0]["requestId"] != moves[2][0]["requestId"]

            # One game, three seats, one move.
            lobby = live.ok("GET", "/v1/games")["games"]
            assert [g["gameId"] for g in lobby] == [line["gameId"]]
            assert line["seats"] == [0, 1, 2]
            assert int(line["version"]) == int(line["movedFrom"]) + 1 and line["refused"] == "STALE_VERSION"
            view = live.ok("GET", f"/v1/games/{line['gameId']}/view")["view"]
            assert view["version"] == line["version"]
            history = live.ok("GET", f"/v1/games/{line['gameId']}/history")["entries"]
            assert [e["version"] for e in history if int(e["version"]) > int(line["movedFrom"])] == [line["version"]]
    finally:
        redis_server.stop()


TABLE_CHANGES = ["CHANGE_BOT_ADDED", "CHANGE_LEFT", "CHANGE_RETURNED", "CHANGE_LEFT", "CHANGE_TAKEN_OVER"]


def _check_table_line(line: dict[str, Any]) -> None:
    assert line["table"] == {"decisionSeconds": 600, "allowTakeover": True}
    assert line["botSeat"] == 1 and line["active"] is True
    assert (line["leftAbsent"], line["backAbsent"]) == (True, False)
    assert line["takenOver"] == {"seat": 0, "name": "Cy", "mine": True}
    assert ["CHANGE_" + c for c in line["changes"]] == TABLE_CHANGES  # each change once, in order


def test_table_example_leaves_returns_takes_over_and_adds_a_bot_live(built: pathlib.Path, redis_server: EmbeddedRedis) -> None:
    with LiveRest(redis_server.url) as live:
        result = _run(_tool("node"), str(built / "table_example.js"), live.base_url, timeout=60)
        line = json.loads(result.stdout.strip().splitlines()[-1])
        _check_table_line(line)
        history = live.ok("GET", f"/v1/games/{line['gameId']}/history")["entries"]
        changes = [e["seatChanged"]["change"] for h in history for e in h.get("events", []) if "seatChanged" in e]
        assert changes == TABLE_CHANGES


def test_table_calls_retried_across_lost_answers_happen_once(built: pathlib.Path, tmp_path: pathlib.Path) -> None:
    plan = {
        "CreateGame": [LOSE],
        "AddBot": [LOSE],  # the retry is refused SEAT_TAKEN with the bot in the seat: the answer
        # Applied, then a 503 with a retry hint: a hinted 503 may follow an applied attempt as
        # any 503 may, so the retry's ALREADY_ABSENT is the answer here too.
        "LeaveGame": [LOSE_HINTED],
        "ReturnToGame": [LOSE, UNAVAILABLE],  # the third attempt is refused NOT_ABSENT: the answer
        "TakeOverSeat": [LOSE],  # the retry is answered from its request id
    }
    redis_server = EmbeddedRedis(tmp_path, port=free_port(), appendonly=False).start()
    try:
        with LiveRest(redis_server.url) as live, faulty_proxy(live.base_url, plan) as proxy:
            result = _run(_tool("node"), str(built / "table_example.js"), proxy.base_url, timeout=60)
            line = json.loads(result.stdout.strip().splitlines()[-1])
            _check_table_line(line)  # its history (read after the faults) holds each change once

            creates = proxy.calls("CreateGame")
            assert [status for _, status in creates] == [503, 200] and creates[0][0] == creates[1][0]
            assert creates[0][0]["table"] == {"decisionSeconds": 600, "allowTakeover": True}
            bots = proxy.calls("AddBot")
            assert [body["seat"] for body, _ in bots] == [1, 1] and [status for _, status in bots] == [503, 400]
            assert [status for _, status in proxy.calls("LeaveGame")] == [503, 400, 200]  # the later leave is plain
            assert [status for _, status in proxy.calls("ReturnToGame")] == [503, 503, 400]
            takeovers = proxy.calls("TakeOverSeat")
            assert [status for _, status in takeovers] == [503, 200] and len(set(_request_ids(takeovers))) == 1
            assert [g["gameId"] for g in live.ok("GET", "/v1/games")["games"]] == [line["gameId"]]
    finally:
        redis_server.stop()


WATCH_SCRIPT = """
import { HustingsError, HustingsRest, StreamBroken } from "./rest.js";
const [base, silent, gameId] = process.argv.slice(2);
const out = {};
try {
  for await (const _ of new HustingsRest(base).watch("gnosuchgame000000000000")) out.unexpected = true;
} catch (error) {
  out.missing = error instanceof HustingsError ? [error.httpStatus, error.reason] : String(error);
}
const started = Date.now();
try {
  for await (const _ of new HustingsRest(silent).watch(gameId, undefined, 0n, 400)) out.unexpected = true;
} catch (error) {
  out.silent = error instanceof StreamBroken ? "StreamBroken" : String(error);
  out.silentAfterMs = Date.now() - started;
}
out.versions = [];
for await (const update of new HustingsRest(base).watch(gameId, undefined, 0n)) out.versions.push(String(update.version));
out.status = "ended";
// Watched from its last version, the finished game answers 204 No Content: the generator ends at
// once, without an update or an error.
out.atEnd = [];
for await (const update of new HustingsRest(base).watch(gameId, undefined, BigInt(out.versions.at(-1)))) out.atEnd.push(String(update.version));
console.log(JSON.stringify(out));
"""


@contextlib.contextmanager
def _silent_event_stream() -> Iterator[str]:
    """A loopback HTTP server that starts an event stream (200, its headers, a first comment) and
    then sends nothing more: a connection that died without a word."""
    stop = threading.Event()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the standard library's name
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.write(b": hello\n\n")
            self.wfile.flush()
            stop.wait(10)  # bounded: the client gives up long before

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        stop.set()
        server.shutdown()
        server.server_close()


def test_watch_reads_the_event_stream_ends_with_the_game_and_gives_up_on_silence(
    built: pathlib.Path, redis_server: EmbeddedRedis
) -> None:
    """README: `api.watch(gameId, token, fromVersion)` reads a game's event stream as typed updates,
    ends with the game, throws HustingsError for a refusal and StreamBroken after its quiet limit
    without a byte. A spectator follows a game played to the end from version 0: every version
    once, in order, then the generator ends; watched again from the last version (the server
    answers 204 No Content), it ends at once."""
    script = built / "watch_check.mjs"
    script.write_text(WATCH_SCRIPT)
    with LiveRest(redis_server.url) as live, _silent_event_stream() as silent:
        game = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}, "table": {"botSeats": [0, 1, 2]}})
        game_id = game["gameId"]
        view: dict[str, Any] = {}
        for _ in range(300):  # a table of bots alone: one decision per 100 ms, about 30 of them
            view = live.ok("GET", f"/v1/games/{game_id}/view")["view"]
            if view["status"] == "GAME_STATUS_FINISHED":
                break
            threading.Event().wait(0.1)
        assert view["status"] == "GAME_STATUS_FINISHED"
        try:
            result = _run(_tool("node"), str(script), live.base_url, silent, game_id, timeout=60)
        finally:
            script.unlink()
    line = json.loads(result.stdout.strip().splitlines()[-1])
    assert line["missing"] == [404, "GAME_NOT_FOUND"] and "unexpected" not in line
    assert line["silent"] == "StreamBroken" and 300 <= line["silentAfterMs"] < 5_000
    versions = [int(v) for v in line["versions"]]
    assert versions and versions[-1] == int(view["version"]) and versions == sorted(set(versions))
    assert line["status"] == "ended" and line["atEnd"] == []


def _node_script(built: pathlib.Path, name: str, text: str) -> Any:
    """The last line of what the module ``text``, run by node beside the built client, prints (JSON)."""
    script = built / name
    script.write_text(text)
    try:
        result = _run(_tool("node"), str(script), timeout=60)
    finally:
        script.unlink()
    return json.loads(result.stdout.strip().splitlines()[-1])


HINT_SCRIPT = """
import { DEFAULT_QUIET_MS, hintedPauseMs } from "./rest.js";
const draws = {};
for (const hint of [0, 40, 1000]) draws[hint] = Array.from({ length: 400 }, () => hintedPauseMs(hint, Math.random));
console.log(JSON.stringify({ quietMs: DEFAULT_QUIET_MS, draws }));
"""


def test_hinted_pauses_and_the_quiet_limit_are_what_the_readme_says(built: pathlib.Path) -> None:
    """README: a refusal's hint is waited out "plus up to a quarter of it more" (drawn, so the
    pauses spread over that range; a hint of 0 waits the 10 ms floor), and `api.watch` gives up
    "after 30 s without a byte"."""
    line = _node_script(built, "hint_check.mjs", HINT_SCRIPT)
    assert line["quietMs"] == 30_000
    for hint, draws in line["draws"].items():
        floor = max(10, int(hint))
        assert all(floor <= d <= floor * 1.25 for d in draws), (hint, min(draws), max(draws))
        assert min(draws) < floor * 1.05 and max(draws) > floor * 1.2  # spread over the range


REQUEST_ID_SCRIPT = """
import { newRequestId } from "./rest.js";
const secure = [newRequestId(), newRequestId()];
// A page that is no secure context (plain http from another host) has no crypto.randomUUID.
const real = globalThis.crypto;
Object.defineProperty(globalThis, "crypto", { value: { getRandomValues: (a) => real.getRandomValues(a) }, configurable: true });
const plain = Array.from({ length: 200 }, () => newRequestId());
console.log(JSON.stringify({ secure, plain }));
"""


def test_request_ids_are_drawn_without_random_uuid_too(built: pathlib.Path) -> None:
    """README In the browser: request ids come from `crypto.randomUUID` in a secure context and
    from `crypto.getRandomValues` elsewhere (the client threw "randomUUID is not a function" on a
    page served over plain http from another host than localhost): 32 hex digits either way."""
    line = _node_script(built, "request_id_check.mjs", REQUEST_ID_SCRIPT)
    for ids in (line["secure"], line["plain"]):
        assert all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids), ids[:3]
        assert len(set(ids)) == len(ids)


JSON_TYPES_CHECK = """
import type { WatchGameResponseJson } from "../src/gen/hustings/v1/game_service_pb.js";
import type { GameViewJson } from "../src/gen/hustings/v1/game_pb.js";

const update: WatchGameResponseJson = JSON.parse('{"version": "5", "view": {"status": "GAME_STATUS_ACTIVE"}}');
const version: string | undefined = update.version; // 64-bit integers are strings in JSON
const view: GameViewJson | undefined = update.view;
const status: string | number | undefined = view?.status; // enums by name
console.log(version, status);
// @ts-expect-error a version in JSON is a string, never a number
const wrong: WatchGameResponseJson = { version: 5 };
console.log(wrong);
"""


def test_the_generated_files_describe_the_json_too(built: pathlib.Path) -> None:
    """README TypeScript: the stubs also describe the JSON answers (`WatchGameResponseJson`,
    `GameViewJson`, ...) for code that reads them with fetch, the event stream's `data:` lines
    among them. A snippet that uses them type-checks under the client's own strict settings,
    and a wrong field type in it is an error."""
    folder = TS_DIR / f".json-types-check-{free_port()}"
    folder.mkdir()
    try:
        (folder / "check.ts").write_text(JSON_TYPES_CHECK)
        tsc = TS_DIR / "node_modules" / ".bin" / "tsc"
        _run(
            str(tsc), "--noEmit", "--strict", "--noUncheckedIndexedAccess", "--skipLibCheck", "--target", "ES2022",
            "--module", "NodeNext", "--moduleResolution", "NodeNext", "--types", "node", str(folder / "check.ts"),
            timeout=120,
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
