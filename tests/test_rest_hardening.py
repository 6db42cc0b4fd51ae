"""Hardening of the REST/JSON face, end to end over loopback: CORS on every response (the event
stream too), error texts of our own (never a parser's), duplicate keys and deep nesting refused,
REST calls in the RPC metrics, failed event streams logged without secrets."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from dataclasses import dataclass
from typing import Any, Iterator

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from conftest import free_ports, serve_process
from rest_helpers import LEAK_MARKERS, LiveRest, SseReader, request_id
from hustings.client import Client, HustingsError
from hustings.service import rest
from hustings.service.embedded_redis import EmbeddedRedis, wait_for_port
from hustings.service.rest_routes import MAX_JSON_DEPTH
from hustings.v1 import game_service_pb2

TIMEOUT_S = 20.0
POLL_S = 0.1


@pytest.fixture(scope="module")
def live(redis_server: EmbeddedRedis) -> Iterator[LiveRest]:
    with LiveRest(redis_server.url) as server:
        yield server


def _error(response: requests.Response) -> tuple[int, str, str, dict[str, str]]:
    """(HTTP status, reason, message, ErrorInfo metadata) of an error answer."""
    body = response.json()
    (info,) = body["details"]
    return response.status_code, info["reason"], body["message"], info.get("metadata", {})


# --- CORS ---------------------------------------------------------------------------------------

def _assert_cors(response: requests.Response) -> None:
    where = (response.request.method, response.url, response.status_code)
    assert response.headers.get("Access-Control-Allow-Origin") == "*", where
    assert "Authorization" in response.headers.get("Access-Control-Allow-Headers", ""), where
    assert "ETag" in response.headers.get("Access-Control-Expose-Headers", ""), where


def test_every_response_carries_cors_headers_the_event_stream_too(live: LiveRest) -> None:
    game_id, joined = live.new_game(players=3)
    origin = {"Origin": "http://elsewhere.test"}
    with requests.get(f"{live.base_url}/v1/games/{game_id}:watch", headers=origin, stream=True, timeout=TIMEOUT_S) as stream:
        assert stream.status_code == 200
        _assert_cors(stream)
        (first,) = SseReader(stream).events(1)
        assert json.loads(first["data"])["version"] == "4"
    answers = [
        live.call("GET", f"/v1/games/{game_id}:watch", token="forged", headers=origin),  # refused before the stream
        live.call("GET", f"/v1/games/{game_id}/view", headers=origin),
        live.call("GET", "/v1/games/gmissing/view", headers=origin),
        live.call("POST", "/v1/games", "{not json", headers=origin),
        live.call("POST", "/v1/games", b"x" * (rest.MAX_BODY_BYTES + 1), headers=origin),
        live.call("GET", "/v1/nothing", headers=origin),
        live.call("DELETE", "/v1/games", headers=origin),
        live.call("GET", "/openapi.json", headers=origin),
        live.call("GET", "/play/app.js", headers=origin),
    ]
    assert [a.status_code for a in answers] == [401, 200, 404, 400, 413, 404, 405, 200, 200]
    for answer in answers:
        _assert_cors(answer)
    assert "ETag" in answers[-1].headers  # a static file's validator, which a browser may now read
    preflight = live.call(
        "OPTIONS", f"/v1/games/{game_id}:watch",
        headers={**origin, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization, last-event-id"},
    )
    assert preflight.status_code == 204 and int(preflight.headers["Access-Control-Max-Age"]) > 0
    _assert_cors(preflight)
    # A script revalidating a kind's catalogue sends If-None-Match, which needs a preflight.
    allowed = {h.strip().lower() for h in preflight.headers["Access-Control-Allow-Headers"].split(",")}
    # README: the request headers a page of another origin may send, no more.
    assert allowed == {"authorization", "content-type", "last-event-id", "if-none-match", "cache-control"}


# --- error texts --------------------------------------------------------------------------------

DEEP_ARRAY = "[" * 30_000
DEEP_OBJECT = '{"a":' * 10_000
NESTED_OPTIONS = '{"kind": "stimmvieh", "options": ' + '{"players": 3, "x": ' * 40 + "1" + "}" * 40 + "}"


@pytest.mark.parametrize(
    ("method", "path", "body", "expected"),
    [
        ("POST", "/v1/games", DEEP_ARRAY, (400, "JSON_TOO_DEEP", f"the body nests deeper than {MAX_JSON_DEPTH} levels", {})),
        ("POST", "/v1/games", '{"kind": ' + DEEP_ARRAY, (400, "JSON_TOO_DEEP", f"the body nests deeper than {MAX_JSON_DEPTH} levels", {})),
        ("POST", "/v1/games", DEEP_OBJECT, (400, "JSON_TOO_DEEP", f"the body nests deeper than {MAX_JSON_DEPTH} levels", {})),
        ("POST", "/v1/games", NESTED_OPTIONS, (400, "JSON_TOO_DEEP", f"the body nests deeper than {MAX_JSON_DEPTH} levels", {})),
        ("POST", "/v1/games", "{not json", (400, "MALFORMED_JSON", "the body is not JSON", {})),
        ("GET", "/v1/games?pageSize=abc", None,
         (400, "BAD_PARAMETER", "pageSize must be a whole number in the range of int32", {"field": "pageSize"})),
        ("GET", "/v1/games?page_size=99999999999", None,
         (400, "BAD_PARAMETER", "pageSize must be a whole number in the range of int32", {"field": "pageSize"})),
        ("GET", "/v1/games?status=NOPE", None,
         (400, "BAD_PARAMETER", "status must be a GameStatus name or number", {"field": "status"})),
        ("GET", "/v1/games?colour=red", None,
         (400, "UNKNOWN_QUERY_PARAMETER", "a query parameter names no field of ListGamesRequest", {})),
        ("POST", "/v1/games", '{"kind": 5}', (400, "INVALID_JSON_REQUEST", "kind must be a string", {"field": "kind"})),
        ("POST", "/v1/games", '{"options": {"players": 99999999999}}',
         (400, "INVALID_JSON_REQUEST", "options.players must be a whole number in the range of int32", {"field": "options.players"})),
        ("POST", "/v1/games", '{"kind": "stimmvieh", "colour": "red"}',
         (400, "INVALID_JSON_REQUEST", "the request has a field that CreateGameRequest does not define", {})),
        ("POST", "/v1/games/g1/moves", '{"requestId": "r", "expectedVersion": "x"}',
         (400, "INVALID_JSON_REQUEST", "expectedVersion must be a whole number in the range of int64", {"field": "expectedVersion"})),
        ("POST", "/v1/games/g1/moves", '{"requestId": "r", "move": {"stimmvieh": {}, "wahlspiel": {}}}',
         (400, "INVALID_JSON_REQUEST", "move sets more than one field of game", {"field": "move"})),
    ],
    ids=[
        "deep-array", "deep-value", "deep-object", "deep-message", "not-json", "int-query", "int-range-query",
        "enum-query", "unknown-query", "string-field", "int-range-field", "unknown-field", "int64-field", "two-oneof-fields",
    ],
)
def test_error_texts_are_our_own(live: LiveRest, method: str, path: str, body: str | None, expected: tuple[int, str, str, dict[str, str]]) -> None:
    status, reason, message, metadata = _error(live.call(method, path, body))
    assert (status, reason, message, metadata) == expected
    for marker in LEAK_MARKERS + ("abc", "NOPE", "colour"):  # nor the caller's own input echoed back
        assert marker not in message


def test_no_request_message_nests_near_the_json_depth_limit() -> None:
    """The depth limit refuses only attacks: each message level may add a list level."""

    def depth(message: Any, seen: frozenset[str]) -> int:
        nested = [f.message_type for f in message.fields if f.message_type is not None]
        assert message.full_name not in seen, "a recursive request message needs another limit"
        return 1 + max((depth(m, seen | {message.full_name}) for m in nested), default=0)

    service = game_service_pb2.DESCRIPTOR.services_by_name["GameService"]
    deepest = max(depth(m.input_type, frozenset()) for m in service.methods)
    assert 2 * deepest < MAX_JSON_DEPTH


# --- duplicate keys -----------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("body", "field"),
    [
        ('{"kind": "wahlspiel", "kind": "stimmvieh", "options": {"players": 3}}', None),
        ('{"kind": "stimmvieh", "options": {"players": 3, "players": 4}}', None),
        ('{"kind": "stimmvieh", "options": {"players": 3}, "requestId": "a", "request_id": "b"}', "requestId"),
    ],
    ids=["top-level", "nested", "two-spellings"],
)
def test_duplicate_json_keys_are_refused(live: LiveRest, body: str, field: str | None) -> None:
    status, reason, message, metadata = _error(live.call("POST", "/v1/games", body))
    assert (status, reason) == (400, "DUPLICATE_JSON_KEY")
    assert metadata.get("field") == field and message


def test_a_refused_duplicate_changes_nothing(live: LiveRest) -> None:
    rid = request_id()
    refused = live.call("POST", "/v1/games", '{"kind": "wahlspiel", "kind": "stimmvieh", "options": {"players": 3}, "requestId": "%s"}' % rid)
    assert _error(refused)[:2] == (400, "DUPLICATE_JSON_KEY")
    # Had the first body been applied, this request id would name a Wahlspiel game (or be refused as reused).
    created = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}, "requestId": rid})
    game_id = created["gameId"]
    joining = live.call("POST", f"/v1/games/{game_id}:join", '{"displayName": "Ada", "display_name": "Bo"}')
    assert _error(joining)[:2] == (400, "DUPLICATE_JSON_KEY")
    view = live.ok("GET", f"/v1/games/{game_id}/view")["view"]
    assert view["kind"] == "stimmvieh" and view["version"] == "1" and view["status"] == "GAME_STATUS_OPEN"


# --- metrics and logs, from a real `hustings serve` process -------------------------------------

@dataclass
class Served:
    """What one `hustings serve` process counted and logged for a scripted run of calls."""

    samples: dict[tuple[str, tuple[tuple[str, str], ...]], float]
    log_text: str
    game_id: str
    tokens: list[str]
    refusal: str  # the reason a stream over the replica's limit was given

    def value(self, name: str, **labels: str) -> float:
        """One sample's value (0 when the series does not exist)."""
        return self.samples.get((name, tuple(sorted(labels.items()))), 0.0)


def _scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = requests.get(f"http://127.0.0.1:{port}/metrics", timeout=TIMEOUT_S).text
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


MALFORMED_SECRET = b"hX3u9TkS0-secret-seat-token"


def _raw_request(port: int, data: bytes) -> bytes:
    """The start of the answer to bytes sent as they are (no HTTP client would send them)."""
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT_S) as sock:
        sock.sendall(data)
        return sock.recv(4096)


async def _grpc_view_of_missing_game(port: int) -> None:
    async with Client(f"127.0.0.1:{port}") as client:
        with pytest.raises(HustingsError):
            await client.view("gmissing")


@pytest.fixture(scope="module")
def served(redis_server: EmbeddedRedis) -> Served:
    http_port, metrics_port = free_ports(2)
    args = (
        "--redis-url", redis_server.url, "--http-address", f"127.0.0.1:{http_port}",
        "--metrics-address", f"127.0.0.1:{metrics_port}", "--max-watchers", "1",
    )
    with serve_process(*args) as (process, grpc_port):
        wait_for_port(http_port)
        base = f"http://127.0.0.1:{http_port}"

        def call(method: str, path: str, body: Any = None, token: str | None = None) -> requests.Response:
            headers = {"Authorization": f"Bearer {token}"} if token else {}
            return requests.request(method, base + path, json=body, headers=headers, timeout=TIMEOUT_S)

        assert call("GET", "/v1/kinds").status_code == 200
        game_id = call("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}}).json()["gameId"]
        tokens = [call("POST", f"/v1/games/{game_id}:join", {"displayName": f"P{i}"}).json()["seatToken"] for i in range(3)]
        assert call("GET", "/v1/games/gmissing/view").status_code == 404
        asyncio.run(asyncio.wait_for(_grpc_view_of_missing_game(grpc_port), TIMEOUT_S))
        assert call("GET", "/v1/games?pageSize=abc").status_code == 400
        assert call("GET", f"/v1/games/{game_id}:watch", token="forged").status_code == 401
        # A request the HTTP parser refuses, with a seat token in the offending header line.
        answer = _raw_request(http_port, b"GET /v1/kinds HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + MALFORMED_SECRET + b"\x01\r\n\r\n")
        assert answer.split(b"\r\n", 1)[0].split(b" ")[1] == b"400"
        watch = f"{base}/v1/games/{game_id}:watch"
        with requests.get(watch, headers={"Authorization": f"Bearer {tokens[0]}"}, stream=True, timeout=TIMEOUT_S) as held:
            reader = SseReader(held)  # kept: dropping its line iterator would close the connection
            assert len(reader.events(1)) == 1
            # The replica serves one stream: a second one is refused, before or right after it starts.
            with requests.get(watch, stream=True, timeout=TIMEOUT_S) as extra:
                if extra.status_code == 200:
                    (refusal,) = SseReader(extra).events(1)
                    assert refusal.get("event") == "error"
                    status = json.loads(refusal["data"])
                else:
                    status = extra.json()
        # The held stream has hung up: the replica notices when its connection closes.
        view = call("GET", f"/v1/games/{game_id}/view", token=tokens[1]).json()["view"]
        moved = call("POST", f"/v1/games/{game_id}/moves", {"move": view["legalMoves"][0], "requestId": request_id()}, token=tokens[1])
        assert moved.status_code == 200
        deadline = time.monotonic() + TIMEOUT_S
        samples = _scrape(metrics_port)
        while samples.get(("hustings_rpcs_total", (("code", "CANCELLED"), ("method", "WatchGame"))), 0.0) < 1 and time.monotonic() < deadline:
            time.sleep(POLL_S)
            samples = _scrape(metrics_port)
    (info,) = status["details"]
    return Served(samples, process.log_text, game_id, tokens, info["reason"])  # type: ignore[attr-defined]


def test_rest_calls_count_in_the_rpc_metrics_beside_grpc(served: Served) -> None:
    expected = {
        ("ListGameKinds", "OK"): 1, ("CreateGame", "OK"): 1, ("JoinGame", "OK"): 3,
        ("ListGames", "INVALID_ARGUMENT"): 1, ("SubmitMove", "OK"): 1, ("GetView", "OK"): 1,
        ("WatchGame", "UNAUTHENTICATED"): 1, ("WatchGame", "RESOURCE_EXHAUSTED"): 1, ("WatchGame", "CANCELLED"): 1,
    }
    for (method, code), count in expected.items():
        assert served.value("hustings_rpcs_total", method=method, code=code) == count, (method, code)
        assert served.value("hustings_rest_rpcs_total", method=method, code=code) == count, (method, code)
    # One GetView of a missing game through each face, in one series; the REST share apart.
    assert served.value("hustings_rpcs_total", method="GetView", code="NOT_FOUND") == 2
    assert served.value("hustings_rest_rpcs_total", method="GetView", code="NOT_FOUND") == 1
    assert served.value("hustings_rpc_seconds_count", method="GetView") == 3
    assert served.value("hustings_rpc_seconds_count", method="JoinGame") == 3
    # As over gRPC, a stream is counted but not timed: its length is the client's choice.
    assert served.value("hustings_rpc_seconds_count", method="WatchGame") == 0


def test_streams_that_end_in_error_are_logged_once_without_secrets(served: Served) -> None:
    lines = [json.loads(line) for line in served.log_text.splitlines() if line.startswith("{")]
    ended = [line for line in lines if line.get("rpc") == "WatchGame" and line.get("reason")]
    by_reason = {reason: [e for e in ended if e["reason"] == reason] for reason in ("INVALID_SEAT_TOKEN", served.refusal)}
    assert [e["code"] for e in by_reason["INVALID_SEAT_TOKEN"]] == ["UNAUTHENTICATED"]
    assert [e["code"] for e in by_reason[served.refusal]] == ["RESOURCE_EXHAUSTED"]
    assert all(e["face"] == "rest" and e["game_id"] == served.game_id for e in ended)
    assert not [e for e in ended if e.get("code") == "CANCELLED"]  # a client hanging up is no error
    for token in served.tokens:
        assert token not in served.log_text


def test_a_request_the_http_parser_refuses_is_logged_without_its_text(served: Served) -> None:
    assert "malformed HTTP request" in served.log_text
    assert MALFORMED_SECRET.decode() not in served.log_text
