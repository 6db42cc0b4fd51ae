"""What the README promises of the REST/JSON face that no other test held it to: the 64 KiB body
limit and its reason, the 32-level JSON depth, the event stream's `retry: 2000` and its
keepalive comments, the headers a script may read, and the catalogue's Cache-Control. A real
replica with its REST face, a real Redis, HTTP over loopback."""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any, Iterator

import pytest
import requests

from conftest import REPO
from rest_helpers import CALL_TIMEOUT_S, LiveRest, request_id
from hustings.service import rest
from hustings.service.embedded_redis import EmbeddedRedis

REQUEST_CAP = 64 << 10  # the README's 64 KiB
CREATE = {"kind": "stimmvieh", "options": {"players": 3}}
KEEPALIVE_WAIT_S = 10.0


@pytest.fixture(scope="module")
def live(redis_server: EmbeddedRedis) -> Iterator[LiveRest]:
    with LiveRest(redis_server.url) as server:
        yield server


def _error(response: requests.Response) -> tuple[int, int, str]:
    """(HTTP status, gRPC code, ErrorInfo reason) of an error answer."""
    body: dict[str, Any] = response.json()
    (info,) = body["details"]
    assert info["domain"] == "hustings" and body["message"]
    return response.status_code, body["code"], info["reason"]


def _padded(document: str, size: int) -> bytes:
    """``document`` followed by JSON whitespace up to exactly ``size`` bytes."""
    data = document.encode()
    assert len(data) <= size
    return data + b" " * (size - len(data))


def test_a_body_over_64_kib_is_413_request_too_large(live: LiveRest) -> None:
    """README: "a body over 64 KiB 413 `REQUEST_TOO_LARGE`" (RESOURCE_EXHAUSTED), and it changes
    nothing; a body of exactly 64 KiB is read."""
    assert rest.MAX_BODY_BYTES == REQUEST_CAP
    rid = request_id()
    over = '{"kind": "stimmvieh", "options": {"players": 3}, "requestId": "%s"}' % rid
    refused = live.call("POST", "/v1/games", _padded(over, REQUEST_CAP + 1))
    assert _error(refused) == (413, 8, "REQUEST_TOO_LARGE")
    # Had the refused body been applied, its request id would name a 3-seat game and this
    # 4-seat request would be REQUEST_ID_REUSED.
    four = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 4}, "requestId": rid})
    assert len(four["view"]["seats"]) == 4
    exact = live.call("POST", "/v1/games", _padded('{"kind": "stimmvieh", "options": {"players": 3}}', REQUEST_CAP))
    assert exact.status_code == 200, exact.text[:300]


def _nested(levels: int) -> str:
    """A CreateGame body whose objects nest ``levels`` deep in all (the body itself is level 1)."""
    return '{"kind": "stimmvieh", "x": ' * (levels - 1) + "{}" + "}" * (levels - 1)


def test_json_nested_33_levels_is_too_deep_and_32_is_not(live: LiveRest) -> None:
    """README: "JSON nested deeper than 32 levels 400 `JSON_TOO_DEEP`"."""
    assert _error(live.call("POST", "/v1/games", _nested(33))) == (400, 3, "JSON_TOO_DEEP")
    # 32 levels are parsed; the unknown field is then refused as what it is.
    assert _error(live.call("POST", "/v1/games", _nested(32))) == (400, 3, "INVALID_JSON_REQUEST")


def test_the_event_stream_opens_with_retry_2000(live: LiveRest) -> None:
    """README's curl session: the stream begins `retry: 2000`, then `id: <version>` events."""
    game_id, _joined = live.new_game(players=3)
    url = f"{live.base_url}/v1/games/{game_id}:watch"
    with requests.get(url, stream=True, timeout=CALL_TIMEOUT_S) as response:
        assert response.status_code == 200
        lines = response.iter_lines(decode_unicode=True)
        head = [next(lines) for _ in range(4)]
    assert head[:3] == ["retry: 2000", "", "id: 4"]
    assert head[3].startswith("data: ")


def test_a_quiet_event_stream_sends_keepalive_comments(live: LiveRest, monkeypatch: pytest.MonkeyPatch) -> None:
    """README: "with a `: keepalive` line after every 15 s of quiet". The interval is the
    module's; it is shortened here so that the comment is seen in a second, not fifteen."""
    assert rest.KEEPALIVE_S == 15.0
    game_id, _joined = live.new_game(players=3)
    monkeypatch.setattr(rest, "KEEPALIVE_S", 0.3)
    url = f"{live.base_url}/v1/games/{game_id}:watch"
    seen: list[str] = []
    deadline = time.monotonic() + KEEPALIVE_WAIT_S
    with requests.get(url, stream=True, timeout=CALL_TIMEOUT_S) as response:
        for line in response.iter_lines(decode_unicode=True):
            seen.append(line)
            if seen.count(": keepalive") >= 2 or time.monotonic() > deadline:
                break
    assert seen.count(": keepalive") == 2, seen
    first = seen.index(": keepalive")
    assert "id: 4" in seen[:first]  # the update came first; then quiet, then comments only
    assert not any(line.startswith(("id:", "data:", "event:")) for line in seen[first:])


def test_scripts_may_read_retry_after_and_etag(live: LiveRest) -> None:
    """README: "scripts may read `ETag` and `Retry-After`" - on answers and errors alike."""
    for response in (live.call("GET", "/v1/kinds"), live.call("GET", "/v1/games/gmissing/view")):
        exposed = {h.strip().lower() for h in response.headers["Access-Control-Expose-Headers"].split(",")}
        assert {"etag", "retry-after"} <= exposed, response.headers


def test_the_catalogue_is_public_no_cache(live: LiveRest) -> None:
    """README Caching: "the answer's `ETag` is the quoted content version with `Cache-Control:
    public, no-cache`"; README Content versions: the version "is the first 16 hex digits of the
    SHA-256 of the content file's canonical JSON (re-indenting keeps it)", worked out here from
    the file beside each game."""
    for kind in ("stimmvieh", "wahlspiel", "spin_doctors"):
        answer = live.call("GET", f"/v1/kinds/{kind}")
        assert answer.status_code == 200
        version = answer.json()["contentVersion"]
        data = json.loads((REPO / "engine" / kind / "content.json").read_text(encoding="utf-8"))
        canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        assert version == hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]
        assert answer.headers["ETag"] == f'"{version}"'
        directives = {d.strip() for d in answer.headers["Cache-Control"].split(",")}
        assert directives == {"public", "no-cache"}
