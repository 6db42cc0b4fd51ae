"""The TypeScript example bot (clients/typescript/src/example_bot.ts) plays a seat to the end over
the REST/JSON face and its event stream against server-side bots on a real replica, and rides
out the death of the replica it watches, with one of its moves in flight: it resumes on another
replica of the same Redis one version before the last one it saw, sends that move again under
its request id, and makes no decision twice (each request id carries one decision, and no
version gets two).

Needs Node.js 20+ and npm, as tests/test_typescript.py; without them the tests fail, they do not
skip.
"""

from __future__ import annotations

import collections
import contextlib
import http.server
import json
import pathlib
import shutil
import socket
import subprocess
import threading
from typing import Any

import pytest
import requests

from rest_helpers import LiveRest, serving_in_background
from hustings.service.embedded_redis import EmbeddedRedis, free_port

TS_DIR = pathlib.Path(__file__).resolve().parent.parent / "clients" / "typescript"
NPM_TIMEOUT_S = 300
GAME_TIMEOUT_S = 90
DIE_AT_MOVE = 5  # the doomed replica dies with the bot's fifth move in flight (a turn of its own, so the table waits for it)
UPSTREAM_TIMEOUT_S = 30.0
WATCH_SUFFIX = ":watch"


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: the TypeScript bot needs Node.js 20+ with npm on PATH")
    return path


def _run(*args: str, timeout: float = NPM_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(args, cwd=TS_DIR, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


@pytest.fixture(scope="module")
def bot_js(typescript_dist: pathlib.Path) -> pathlib.Path:
    """The built bot (the client is built once for the session: `npm ci`, `npm run build`)."""
    return typescript_dist / "example_bot.js"


def _last_json_line(stdout: str) -> dict[str, Any]:
    line: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    return line


def _seat_moves(history: list[dict[str, Any]], seat: int) -> list[int]:
    """The versions of the decisions ``seat`` made (its join is an entry of its seat too, without a move)."""
    return [int(e["version"]) for e in history if e.get("seat") == seat and "move" in e]


def _finished_seat(live: LiveRest, game_id: str, seat: int) -> tuple[dict[str, Any], list[int]]:
    """The game's final view and the versions ``seat`` decided, read from the server as a spectator."""
    view = live.ok("GET", f"/v1/games/{game_id}/view")["view"]
    assert view["status"] == "GAME_STATUS_FINISHED"
    history = live.ok("GET", f"/v1/games/{game_id}/history")["entries"]  # all of it, once the game is over
    state = view["seats"][seat]
    assert not state["bot"] and not state["botPlayed"] and state["timeouts"] == 0  # the seat stayed the bot's own
    return view, _seat_moves(history, seat)


def test_the_typescript_bot_plays_a_stimmvieh_game_to_the_end(bot_js: pathlib.Path, redis_server: EmbeddedRedis) -> None:
    with LiveRest(redis_server.url) as live:
        done = _run(
            _tool("node"), str(bot_js), "--server", live.base_url, "--kind", "stimmvieh", "--players", "4",
            "--bot-level", "random", "--seed", "7", timeout=GAME_TIMEOUT_S,
        )
        line = _last_json_line(done.stdout)
        assert line["finished"] is True and line["seat"] == 0 and line["rank"] in (1, 2, 3, 4)
        assert line["watchedFrom"] == ["0"]  # one stream, never broken
        _, moves = _finished_seat(live, line["gameId"], 0)
        assert len(moves) >= 5 and moves == sorted(int(v) for v in line["decided"])
        assert f"created stimmvieh game {line['gameId']}" in done.stderr


class RecordingProxy(http.server.ThreadingHTTPServer):
    """A loopback HTTP proxy in front of one replica's REST face that records every request, and
    with ``die_at_move`` dies as that replica would: the ``die_at_move``-th SubmitMove is cut
    before it reaches the replica, and from then on the event stream passes nothing more and
    every request is cut (``dead`` is set)."""

    def __init__(self, target: str, die_at_move: int | None = None) -> None:
        super().__init__(("127.0.0.1", free_port()), _ProxyHandler)
        self.target = target
        self.die_at_move = die_at_move
        self.dead = threading.Event()
        self.lock = threading.Lock()
        self.requests: list[tuple[str, str, dict[str, str], Any]] = []  # method, path, headers, JSON body
        self.relayed: list[list[int]] = []  # per event stream, the ids (versions) passed on

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` of the proxy."""
        return f"http://127.0.0.1:{self.server_address[1]}"

    def moves(self) -> list[dict[str, Any]]:
        """The bodies of the SubmitMove requests it was sent (forwarded or cut)."""
        with self.lock:
            return [body for method, path, _, body in self.requests if method == "POST" and path.endswith("/moves")]

    def watches(self) -> list[str]:
        """The Last-Event-ID of every event stream asked for through it."""
        with self.lock:
            return [headers.get("Last-Event-ID", "") for _, path, headers, _ in self.requests if path.split("?")[0].endswith(WATCH_SUFFIX)]

    def note(self, method: str, path: str, headers: dict[str, str], body: Any) -> bool:
        """Record a request; whether it is to be cut (the proxy is dead, or dies with it)."""
        with self.lock:
            self.requests.append((method, path, headers, body))
            moves = sum(1 for m, p, _, _ in self.requests if m == "POST" and p.endswith("/moves"))
            if method == "POST" and path.endswith("/moves") and moves == self.die_at_move:
                self.dead.set()
        return self.dead.is_set()


class _ProxyHandler(http.server.BaseHTTPRequestHandler):
    server: RecordingProxy

    def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
        """Forward a GET (an event stream, relayed event by event)."""
        self._proxy()

    def do_POST(self) -> None:  # noqa: N802
        """Forward a POST."""
        self._proxy()

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the test reads ``requests`` instead."""

    def _proxy(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        headers = {k: v for k, v in self.headers.items() if k in ("Authorization", "Content-Type", "Accept", "Last-Event-ID")}
        if self.server.note(self.command, self.path, headers, json.loads(raw) if raw else None):
            self._cut()
            return
        streaming = self.path.split("?")[0].endswith(WATCH_SUFFIX)
        try:
            upstream = requests.request(
                self.command, self.server.target + self.path, data=raw or None, headers=headers,
                stream=streaming, timeout=UPSTREAM_TIMEOUT_S,
            )
        except requests.RequestException:
            self._cut()  # the replica is gone: so is the answer
            return
        self.send_response(upstream.status_code)
        self.send_header("Content-Type", upstream.headers.get("Content-Type", "application/json"))
        if not streaming or upstream.status_code != 200:
            self.send_header("Content-Length", str(len(upstream.content)))
            self.end_headers()
            self.wfile.write(upstream.content)
            return
        self.end_headers()  # HTTP/1.0: the stream's body runs until the connection closes
        self._relay_events(upstream)

    def _relay_events(self, upstream: requests.Response) -> None:
        with self.server.lock:
            self.server.relayed.append([])
            ids = self.server.relayed[-1]
        block: list[bytes] = []
        try:
            for line in iter(upstream.raw.readline, b""):
                block.append(line)
                if line.strip():
                    continue
                event, block = b"".join(block), []
                if self.server.dead.is_set():
                    break  # nothing more gets out of a dead replica
                if event.startswith(b"id: "):
                    ids.append(int(event.split(b"\n", 1)[0][4:]))
                self.wfile.write(event)
                self.wfile.flush()
        except (requests.RequestException, OSError, ValueError):
            pass  # the replica went away mid-stream
        finally:
            upstream.close()
        self._cut()

    def _cut(self) -> None:
        """Close the connection without an answer, or without the end of one, as a dying replica does."""
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)


def serving(proxy: RecordingProxy) -> contextlib.AbstractContextManager[RecordingProxy]:
    """The proxy, serving from a background thread while the block runs."""
    return serving_in_background(proxy, "bot-proxy", UPSTREAM_TIMEOUT_S)


def test_the_typescript_bot_resumes_on_another_replica_when_its_replica_dies(
    bot_js: pathlib.Path, redis_server: EmbeddedRedis
) -> None:
    with LiveRest(redis_server.url) as survivor, contextlib.ExitStack() as doomed_replica:
        doomed = doomed_replica.enter_context(LiveRest(redis_server.url))
        with serving(RecordingProxy(doomed.base_url, DIE_AT_MOVE)) as first, serving(RecordingProxy(survivor.base_url)) as second:
            table = {"botSeats": [1, 2, 3], "botLevel": "random"}
            game_id = survivor.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 4}, "table": table})["gameId"]
            bot = subprocess.Popen(
                [_tool("node"), str(bot_js), "--server", f"{first.base_url},{second.base_url}", "--game", game_id, "--seed", "11"],
                cwd=TS_DIR, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )
            try:
                assert first.dead.wait(GAME_TIMEOUT_S), f"the bot never made {DIE_AT_MOVE} moves"
                died_at = int(survivor.ok("GET", f"/v1/games/{game_id}/view")["view"]["version"])
                doomed_replica.close()  # and the replica behind it stops for good
                stdout, stderr = bot.communicate(timeout=GAME_TIMEOUT_S)
            finally:
                if bot.poll() is None:
                    bot.kill()
                    bot.wait(10)
            assert bot.returncode == 0, stderr[-3000:]
            line = _last_json_line(stdout)

        view, moves = _finished_seat(survivor, game_id, line["seat"])
        assert line["finished"] is True and int(view["version"]) > died_at
        # One stream through the doomed replica, then the survivor's, opened one version before
        # the last one the bot had seen.
        (relayed, *_) = first.relayed
        assert first.watches() == ["0"] and relayed
        assert line["watchedFrom"][:2] == ["0", str(relayed[-1] - 1)]
        assert second.watches()[0] == str(relayed[-1] - 1)
        assert "stream broken" in stderr
        # The move that died with the replica was sent again unchanged (one request id, one move,
        # one version) on every attempt, the survivor's included, and applied there once.
        lost = first.moves()[DIE_AT_MOVE - 1]
        again = [body for body in first.moves()[DIE_AT_MOVE - 1 :] + second.moves() if body["requestId"] == lost["requestId"]]
        assert all(body == lost for body in again) and len(again) >= 2 and again[-1] in second.moves()
        assert int(lost["expectedVersion"]) + 1 in moves  # a step adds one version
        # Each decision applied once: the seat's moves in the history are the ones the bot was
        # answered, and it went on deciding on the survivor.
        assert moves == sorted(int(v) for v in line["decided"]) and max(moves) > died_at
        # No decision twice: every request id carried one move at one version, and no version got
        # two request ids.
        per_id: dict[str, set[tuple[str, str]]] = collections.defaultdict(set)
        for body in first.moves() + second.moves():
            per_id[body["requestId"]].add((body["expectedVersion"], json.dumps(body["move"], sort_keys=True)))
        assert all(len(decisions) == 1 for decisions in per_id.values()), per_id
        versions = [version for decisions in per_id.values() for version, _ in decisions]
        assert len(versions) == len(set(versions))


def test_the_typescript_bot_answers_help_and_a_wrong_flag_in_words(bot_js: pathlib.Path) -> None:
    """As the Python bot's argparse does: --help is the usage and status 0; a flag it does not
    know, or one without its value, is one line naming it, then the usage, status 2 (Node's
    parseArgs threw a stack trace)."""
    node = _tool("node")
    helped = subprocess.run([node, str(bot_js), "--help"], capture_output=True, text=True, timeout=60)
    assert helped.returncode == 0 and helped.stdout.startswith("usage: node dist/example_bot.js") and helped.stderr == ""
    for wrong, named in ((["--bot-levle", "greedy"], "--bot-levle"), (["--server"], "--server")):
        done = subprocess.run([node, str(bot_js), *wrong], capture_output=True, text=True, timeout=60)
        first, *rest = done.stderr.splitlines()
        assert done.returncode == 2 and first.startswith("example_bot: ") and named in first, done.stderr
        assert rest[0].startswith("usage: ") and not any(line.lstrip().startswith("at ") for line in rest), done.stderr
