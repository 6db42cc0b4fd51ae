"""A replica with its REST/JSON face, served from a background thread, for synchronous clients
(requests, schemathesis, a browser, node) that call it over loopback."""

from __future__ import annotations

import asyncio
import json
import random
import socket
import threading
import time
import uuid
import contextlib
import socketserver
from typing import Any, Callable, Iterator, TypeVar

import requests

from hustings.service.replica import UNBOUNDED_CALL_RATE, Replica, ReplicaConfig

START_TIMEOUT_S = 30.0
CALL_TIMEOUT_S = 20.0
# Words in an error message that only a parser's or the runtime's own message would contain.
LEAK_MARKERS = (
    "invalid literal", "recursion", "Failed to parse", "Message type", "Expecting", "line 1 column",
    "Traceback", "int()", "Couldn't parse", "hustings.v1.", "Value out of range", "Exception",
)


def wait_for(condition: Callable[[], bool], within_s: float, poll_s: float = 0.05) -> bool:
    """Whether ``condition`` holds within ``within_s`` (polled every ``poll_s``)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(poll_s)
    return condition()


class LiveRest:
    """An in-process replica (gRPC on a free port, REST on another) on its own event loop."""

    def __init__(self, redis_url: str, allow_client_seed: bool = False) -> None:
        self.config = ReplicaConfig(
            redis_url=redis_url,
            address="127.0.0.1:0",
            http_address="127.0.0.1:0",
            allow_client_seed=allow_client_seed,
            grace_s=1.0,
            # One replica serves a whole module's tests, every call from loopback: the call rate
            # per address (its own tests start replicas of their own) would pace them all, and
            # the bound on one address's listed tables waiting would refuse their tables.
            **UNBOUNDED_CALL_RATE,
            open_tables_per_client=0,
        )
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="live-rest", daemon=True)
        self.replica: Replica | None = None

    def __enter__(self) -> "LiveRest":
        self.thread.start()
        self.replica = asyncio.run_coroutine_threadsafe(Replica(self.config).start(), self.loop).result(START_TIMEOUT_S)
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self.replica is not None:
                asyncio.run_coroutine_threadsafe(self.replica.stop(), self.loop).result(START_TIMEOUT_S)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(START_TIMEOUT_S)
            self.loop.close()

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` of the REST face."""
        assert self.replica is not None
        return f"http://127.0.0.1:{self.replica.http_port}"

    def call(self, method: str, path: str, body: Any = None, token: str | None = None, **kwargs: Any) -> requests.Response:
        """One request; ``body`` is sent as JSON unless it is bytes or str."""
        headers = dict(kwargs.pop("headers", {}))
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        data = body if isinstance(body, (bytes, str)) or body is None else json.dumps(body)
        if data is not None:
            headers.setdefault("Content-Type", "application/json")
        return requests.request(method, self.base_url + path, data=data, headers=headers, timeout=CALL_TIMEOUT_S, **kwargs)

    def ok(self, method: str, path: str, body: Any = None, token: str | None = None, **kwargs: Any) -> dict[str, Any]:
        """The JSON of a request that must succeed."""
        response = self.call(method, path, body, token, **kwargs)
        assert response.status_code == 200, (response.status_code, response.text)
        result: dict[str, Any] = response.json()
        return result

    def new_game(self, players: int = 3, names: tuple[str, ...] | None = None) -> tuple[str, list[dict[str, Any]]]:
        """A Stimmvieh game with ``names`` joined (every seat by default): (game id, join answers)."""
        created = self.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": players}})
        game_id = created["gameId"]
        names = names if names is not None else tuple(f"Player {i}" for i in range(players))
        joined = [self.ok("POST", f"/v1/games/{game_id}:join", {"displayName": name}) for name in names]
        return game_id, joined


def request_id() -> str:
    """A fresh idempotency key."""
    return uuid.uuid4().hex


class SseReader:
    """Server-Sent Events (fields id, event, data) read one by one from a streaming response."""

    def __init__(self, response: requests.Response) -> None:
        self.lines = response.iter_lines(decode_unicode=True)

    def events(self, limit: int, deadline_s: float = CALL_TIMEOUT_S) -> list[dict[str, str]]:
        """The next ``limit`` events, or fewer when the stream ends first. Keepalive comments
        would keep a read timeout from ever firing, so the wait is bounded here as well."""
        deadline = time.monotonic() + deadline_s
        found: list[dict[str, str]] = []
        event: dict[str, str] = {}
        for raw in self.lines:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{len(found)} of {limit} events within {deadline_s} s")
            line = raw if isinstance(raw, str) else raw.decode()
            if line == "":
                if "data" in event:
                    found.append(event)
                    if len(found) >= limit:
                        return found
                event = {}
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            event[name] = event[name] + "\n" + value if name == "data" and name in event else value
        return found


def raw_head(port: int, data: bytes) -> dict[str, str]:
    """Status and headers of the answer to bytes sent as they are (no HTTP client sends them)."""
    with socket.create_connection(("127.0.0.1", port), timeout=CALL_TIMEOUT_S) as sock:
        sock.sendall(data)
        answer = b""
        for _read in range(64):  # the head is well under 64 reads
            chunk = sock.recv(4096)
            answer += chunk
            if not chunk or b"\r\n\r\n" in answer:
                break
    status_line, *lines = answer.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    head = {"status": status_line.split(" ")[1]}
    for line in lines:
        name, _, value = line.partition(":")
        head[name.strip().lower()] = value.strip()
    return head


PLAY_POLLS = 3000  # views a seat's play to the end reads at most


def play_seat_to_end(live: LiveRest, game_id: str, token: str, seed: int, timeout_s: float = 60.0) -> None:
    """Random legal moves for the seat of ``token`` over REST until the game is over (the bots
    play theirs), bounded in views read and in time."""
    rng = random.Random(seed)
    deadline = time.monotonic() + timeout_s
    for _ in range(PLAY_POLLS):
        assert time.monotonic() < deadline, "the game did not end in time"
        view = live.ok("GET", f"/v1/games/{game_id}/view", token=token)["view"]
        if view["status"] == "GAME_STATUS_FINISHED":
            return
        if not view.get("legalMoves"):
            time.sleep(0.01)  # the bots decide
            continue
        body = {"move": rng.choice(view["legalMoves"]), "expectedVersion": view["version"], "requestId": f"m{view['version']}-{rng.random()}"}
        answer = live.call("POST", f"/v1/games/{game_id}/moves", body, token=token)
        assert answer.status_code in (200, 400, 409), answer.text  # a bot may have stepped in between
    raise AssertionError("the game did not end within the poll bound")


_Server = TypeVar("_Server", bound=socketserver.BaseServer)


@contextlib.contextmanager
def serving_in_background(server: _Server, name: str, join_s: float) -> Iterator[_Server]:
    """``server`` (an ``http.server`` proxy of a test) serving from a background thread while
    the block runs, then shut down, closed and its thread joined (within ``join_s``)."""
    thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(join_s)
