"""The REST/JSON contract as a client built from the OpenAPI document and the HTML standard's
EventSource sees it, against a real replica (REST and gRPC faces) on a real Redis.

- An event stream that ends in a refusal (``event: error``) carries the refusal's own
  google.rpc.Status, its RetryInfo included, as the same refusal over gRPC and every other REST
  refusal do.
- A finished game's stream resumed at its last version (Last-Event-ID or fromVersion) is answered
  204 No Content, which stops EventSource reconnecting; a stream that sent updates still ends with
  ``event: end``. The browser client's stream (/play's ``api.js``, run in Node.js) takes the 204
  as the end of the game: no error, no reconnection.
- HEAD on a GET route is answered as GET without content, with the same headers (ETag among
  them); a 405 names HEAD beside GET in ``Allow``; HEAD on the event stream answers the stream's
  headers and closes, holding no stream (RFC 9110: every general-purpose server supports GET and
  HEAD).
- The document describes the catalogue's conditional GET (If-None-Match, 304 without content,
  ETag and Cache-Control on the 200), which the server answers, and the event stream's 204.
"""

from __future__ import annotations

import json
import pathlib
import random
import shutil
import socket
import subprocess
from typing import Any, Iterator

import grpc
import pytest
import redis
import requests
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from rest_helpers import CALL_TIMEOUT_S, LiveRest, SseReader, request_id
from hustings.service import rest
from hustings.service.embedded_redis import EmbeddedRedis, free_port
from hustings.v1 import game_service_pb2, game_service_pb2_grpc

MAX_MOVES = 2000
STREAM_WAIT_S = 5.0
NODE_TIMEOUT_S = 60


@pytest.fixture(scope="module")
def live(redis_server: EmbeddedRedis) -> Iterator[LiveRest]:
    with LiveRest(redis_server.url) as server:
        yield server


def _details(status: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """A google.rpc.Status's details in JSON, by their type's short name."""
    return {detail["@type"].rsplit(".", 1)[-1]: detail for detail in status.get("details", [])}


def _grpc_details(error: grpc.RpcError) -> dict[str, Any]:
    """The ErrorInfo and RetryInfo of a gRPC error, as their JSON would name them."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None, error
    found: dict[str, Any] = {}
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            found["ErrorInfo"] = info.reason
        elif detail.Is(error_details_pb2.RetryInfo.DESCRIPTOR):
            retry = error_details_pb2.RetryInfo()
            detail.Unpack(retry)
            found["RetryInfo"] = retry.retry_delay.ToJsonString()
    return found


def test_an_event_streams_error_carries_the_retry_hint_as_over_grpc(tmp_path: pathlib.Path) -> None:
    """A stream whose catch-up read fails (Redis refuses the log's XRANGE: an ACL of this test's
    own Redis, so every other read works) ends UNAVAILABLE STORE_UNAVAILABLE on both faces; gRPC
    sends its google.rpc.RetryInfo, and so must the REST stream's `event: error`, whose data the
    document says is that google.rpc.Status (RetryInfo for STORE_UNAVAILABLE)."""
    own = EmbeddedRedis(tmp_path / "redis", port=free_port(), appendonly=False).start()
    try:
        with LiveRest(own.url) as server:
            assert server.replica is not None
            game_id, joined = server.new_game(players=3)
            token = joined[0]["seatToken"]
            store = redis.Redis.from_url(own.url)
            store.execute_command("ACL", "SETUSER", "default", "-xrange")
            try:
                url = f"{server.base_url}/v1/games/{game_id}:watch?fromVersion=0"
                with requests.get(url, headers={"Authorization": f"Bearer {token}"}, stream=True, timeout=CALL_TIMEOUT_S) as stream:
                    assert stream.status_code == 200
                    (event,) = SseReader(stream).events(1, deadline_s=STREAM_WAIT_S)
                assert event.get("event") == "error", event
                rest_status = json.loads(event["data"])
                with grpc.insecure_channel(f"127.0.0.1:{server.replica.port}") as channel:
                    stub = game_service_pb2_grpc.GameServiceStub(channel)
                    updates = stub.WatchGame(
                        game_service_pb2.WatchGameRequest(game_id=game_id, from_version=0),
                        metadata=[("authorization", f"Bearer {token}")],
                        timeout=STREAM_WAIT_S,
                    )
                    with pytest.raises(grpc.RpcError) as failed:
                        for _update in updates:
                            pass
            finally:
                store.execute_command("ACL", "SETUSER", "default", "+xrange")
                store.close()
    finally:
        own.stop()
    over_grpc = _grpc_details(failed.value)
    assert failed.value.code() == grpc.StatusCode.UNAVAILABLE
    assert over_grpc["ErrorInfo"] == "STORE_UNAVAILABLE" and "RetryInfo" in over_grpc  # the reference
    details = _details(rest_status)
    assert rest_status["code"] == 14 and details["ErrorInfo"]["reason"] == "STORE_UNAVAILABLE"
    assert details.get("RetryInfo", {}).get("retryDelay") == over_grpc["RetryInfo"], rest_status


@pytest.fixture(scope="module")
def finished(live: LiveRest) -> tuple[str, str]:
    """A Stimmvieh game played to its end at random: (game id, its last version)."""
    game_id, joined = live.new_game(players=3)
    tokens = {j["seat"]: j["seatToken"] for j in joined}
    rng = random.Random(11)
    for _ in range(MAX_MOVES):
        view = live.ok("GET", f"/v1/games/{game_id}/view")["view"]
        if view["status"] == "GAME_STATUS_FINISHED":
            return game_id, view["version"]
        seat = view["toAct"][0]
        mine = live.ok("GET", f"/v1/games/{game_id}/view", token=tokens[seat])["view"]
        move = rng.choice(mine["legalMoves"])
        live.ok("POST", f"/v1/games/{game_id}/moves", {"move": move, "requestId": request_id()}, token=tokens[seat])
    raise AssertionError("the game did not end")


def test_a_finished_games_stream_resumed_at_its_end_tells_event_source_to_stop(live: LiveRest, finished: tuple[str, str]) -> None:
    """EventSource reconnects whenever a stream closes, with Last-Event-ID the last id it saw;
    the HTML standard's way to stop it is 204 No Content. A spectator's EventSource (which the
    README offers spectators) on a game that ended gets the last update and `event: end`, then
    reconnects with the final version: that gets 204 (not 200, `retry: 2000` and another
    `event: end`, every 2 s, for as long as the tab is open). So does fromVersion at the last
    version, and HEAD."""
    game_id, last = finished
    url = f"{live.base_url}/v1/games/{game_id}:watch"
    with requests.get(url, headers={"Last-Event-ID": str(int(last) - 1)}, stream=True, timeout=CALL_TIMEOUT_S) as stream:
        assert stream.status_code == 200
        events = SseReader(stream).events(3, deadline_s=STREAM_WAIT_S)
    assert [(e.get("event", "message"), e.get("id")) for e in events] == [("message", last), ("end", None)]
    # The reconnection EventSource makes next.
    again = requests.get(url, headers={"Last-Event-ID": last, "Accept": "text/event-stream"}, timeout=CALL_TIMEOUT_S)
    assert again.status_code == 204, (again.status_code, again.text[:200])
    assert again.content == b"" and again.headers.get("Access-Control-Allow-Origin") == "*"
    assert requests.get(f"{url}?fromVersion={last}", timeout=CALL_TIMEOUT_S).status_code == 204
    assert requests.head(url, headers={"Last-Event-ID": last}, timeout=CALL_TIMEOUT_S).status_code == 204


# /play's stream (api.js's watch) on a finished game from its last version, with every fetch
# counted: it must end the game once, without an update, an error or a reconnection.
PAGE_SCRIPT = """
import { watch } from "./api.mjs";
const [base, gameId, last] = process.argv.slice(2);
const plainFetch = globalThis.fetch;
let fetches = 0;
globalThis.fetch = (path, init) => { fetches += 1; return plainFetch(base + path, init); };
const out = { states: [], updates: [], fatal: null };
const done = new Promise((resolve) => {
  const stop = setTimeout(resolve, 5000);
  watch(gameId, undefined, last,
    (update) => out.updates.push(update.version),
    (state) => { out.states.push(state); if (state === "game over" || state === "reconnecting…") { clearTimeout(stop); resolve(); } },
    (error) => { out.fatal = [error.status, error.reason]; clearTimeout(stop); resolve(); });
});
await done;
out.fetches = fetches;
console.log(JSON.stringify(out));
process.exit(0);
"""


def test_the_play_pages_stream_ends_the_game_on_a_204(live: LiveRest, finished: tuple[str, str], tmp_path: pathlib.Path) -> None:
    """/play follows a game from the version its page loaded; a finished game's page loads its
    last version, and the 204 must read as "game over", not as a broken stream to reconnect."""
    node = shutil.which("node")
    assert node, "Node.js is needed (tests/install-system-deps.sh installs it)"
    (tmp_path / "api.mjs").write_bytes((rest.STATIC / "play" / "api.js").read_bytes())
    (tmp_path / "follow.mjs").write_text(PAGE_SCRIPT)
    game_id, last = finished
    done = subprocess.run([node, "follow.mjs", live.base_url, game_id, last], cwd=tmp_path, capture_output=True, text=True, timeout=NODE_TIMEOUT_S)
    assert done.returncode == 0, (done.stdout, done.stderr)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out == {"states": ["game over"], "updates": [], "fatal": None, "fetches": 1}, out


def _raw_head(port: int, path: str) -> bytes:
    """What a HEAD of ``path`` with ``Connection: close`` receives until the server closes the
    connection (a timeout if it holds it)."""
    received = b""
    with socket.create_connection(("127.0.0.1", port), timeout=STREAM_WAIT_S) as sock:
        sock.sendall(f"HEAD {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        for _ in range(64):  # an answer's headers take one or two reads
            chunk = sock.recv(4096)
            if not chunk:
                return received
            received += chunk
    raise AssertionError(f"the HEAD answer did not end: {received[:300]!r}")


def test_head_on_a_get_route_is_answered_as_get_without_content(live: LiveRest) -> None:
    """RFC 9110 9.1: all general-purpose servers MUST support GET and HEAD; HEAD is GET without
    content, with the same headers. A 405 on a GET route names HEAD as well. HEAD on the event
    stream answers its headers and closes: it holds no stream open."""
    assert live.call("HEAD", "/openapi.json").status_code == 200  # the same server, another route
    for path in ("/v1/kinds", "/v1/kinds/stimmvieh", "/v1/games?pageSize=1"):
        got = live.call("GET", path)
        head = live.call("HEAD", path)
        assert head.status_code == got.status_code == 200, (path, head.status_code, head.headers.get("Allow"))
        assert head.content == b"" and head.headers["Content-Type"] == got.headers["Content-Type"], path
    assert live.call("HEAD", "/v1/kinds/stimmvieh").headers.get("ETag") == live.call("GET", "/v1/kinds/stimmvieh").headers["ETag"]
    refused = live.call("PUT", "/v1/kinds")
    assert refused.status_code == 405 and {m.strip() for m in refused.headers["Allow"].split(",")} == {"GET", "HEAD"}
    assert live.replica is not None
    game_id, _joined = live.new_game(players=3)
    answer = _raw_head(live.replica.http_port, f"/v1/games/{game_id}:watch")
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 ") and b"text/event-stream" in head.lower() and body == b"", answer[:300]
    assert live.call("HEAD", "/v1/games/gnosuchgame000000000000:watch").status_code == 404


def test_the_document_describes_the_catalogues_conditional_get(live: LiveRest) -> None:
    """The server answers GetGameKind with an ETag and a 304 to a matching If-None-Match (the
    README's Caching); the served document, from which clients are generated, says so: an
    If-None-Match header parameter, a 304 response (no content, not the `default` google.rpc.Status
    error a generated client would try to parse), and the ETag header of the 200. It also names
    the event stream's 204."""
    answer = live.call("GET", "/v1/kinds/stimmvieh")
    etag = answer.headers["ETag"]
    assert live.call("GET", "/v1/kinds/stimmvieh", headers={"If-None-Match": etag}).status_code == 304
    document = live.ok("GET", "/openapi.json")
    operation = document["paths"]["/v1/kinds/{kind}"]["get"]
    headers = {p["name"].lower() for p in operation.get("parameters", []) if p["in"] == "header"}
    assert "if-none-match" in headers, operation.get("parameters")
    assert "304" in operation["responses"], sorted(operation["responses"])
    assert "content" not in operation["responses"]["304"]
    assert {"etag", "cache-control"} <= {h.lower() for h in operation["responses"]["200"].get("headers", {})}
    watch = document["paths"]["/v1/games/{game_id}:watch"]["get"]
    assert "204" in watch["responses"] and "content" not in watch["responses"]["204"]
