"""What the README promises of the REST/JSON face that no other test held it to: the 64 KiB body
limit and its reason, the 32-level JSON depth, the event stream's `retry: 2000` and its
keepalive comments, the headers a script may read, and the catalogue's Cache-Control. A real
replica with its REST face, a real Redis, HTTP over loopback."""

from __future__ import annotations

import hashlib
import json
import re
import time
from typing import Any, Iterator

import grpc
import pytest
import requests

from conftest import REPO
from rest_helpers import CALL_TIMEOUT_S, LiveRest, SseReader, request_id
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


def test_scripts_may_read_retry_after_etag_and_date(live: LiveRest) -> None:
    """README: "scripts may read `ETag`, `Retry-After` and `Date`" - on answers and errors alike."""
    for response in (live.call("GET", "/v1/kinds"), live.call("GET", "/v1/games/gmissing/view")):
        exposed = {h.strip().lower() for h in response.headers["Access-Control-Expose-Headers"].split(",")}
        assert {"etag", "retry-after", "date"} <= exposed, response.headers
        assert response.headers["Date"]


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


def _info(response: requests.Response) -> dict[str, Any]:
    (info,) = response.json()["details"]
    return info  # type: ignore[no-any-return]


def test_a_move_of_another_game_is_named_so_and_a_stale_version_carries_the_current_one(live: LiveRest) -> None:
    """A Stimmvieh decision sent to a Wahlspiel game is 400 ``WRONG_GAME_KIND`` naming both games
    (it read "the move carries no Wahlspiel decision", ``EMPTY_MOVE``, as for an empty move); a
    move on an old version is 409 ``STALE_VERSION`` with the game's version in
    ``metadata.version``, as ``FROM_VERSION_AHEAD`` has it. Neither changes the game."""
    made = live.ok("POST", "/v1/games", {"kind": "wahlspiel", "options": {"players": 2}})
    game_id = made["gameId"]
    ada = live.ok("POST", f"/v1/games/{game_id}:join", {"displayName": "Ada"})
    live.ok("POST", f"/v1/games/{game_id}:join", {"displayName": "Bo"})
    view = live.ok("GET", f"/v1/games/{game_id}/view", token=ada["seatToken"])["view"]
    other = {"stimmvieh": {"chooseTopCandidates": {"influences": [1, 2, 3, 4]}}}
    refused = live.call("POST", f"/v1/games/{game_id}/moves", {"requestId": request_id(), "move": other}, token=ada["seatToken"])
    assert _error(refused) == (400, 3, "WRONG_GAME_KIND")
    assert "Stimmvieh" in refused.json()["message"] and "Wahlspiel" in refused.json()["message"]
    empty = live.call("POST", f"/v1/games/{game_id}/moves", {"requestId": request_id(), "move": {}}, token=ada["seatToken"])
    assert _error(empty) == (400, 3, "EMPTY_MOVE")
    stale = live.call(
        "POST",
        f"/v1/games/{game_id}/moves",
        {"requestId": request_id(), "move": view["legalMoves"][0], "expectedVersion": str(int(view["version"]) - 1)},
        token=ada["seatToken"],
    )
    assert _error(stale) == (409, 10, "STALE_VERSION")
    assert _info(stale)["metadata"] == {"version": view["version"]}
    after = live.ok("GET", f"/v1/games/{game_id}/view", token=ada["seatToken"])["view"]
    assert after["version"] == view["version"]


def test_the_readme_maps_every_grpc_code_to_the_http_status_the_face_answers() -> None:
    """README Errors: "400 for INVALID_ARGUMENT, ... 500 for the rest (...)": every code named
    once, under the status HTTP_STATUS gives it (OUT_OF_RANGE was missing)."""
    readme = (REPO / "README.md").read_text()
    start = readme.index("under the HTTP status of the gRPC code")
    sentence = readme[start : readme.index(". A move of another game", start)]
    sentence = re.sub(r"`[^`]*`", "", re.sub(r"\([^()]*\)", "", sentence.replace("\n", " ")))
    named: dict[str, int] = {}
    for status, codes in re.findall(r"(\d{3}) (?:for )?(.*?)(?=, \d{3} |$)", sentence):
        for code in re.findall(r"\b[A-Z][A-Z_]{3,}\b", codes):
            assert code not in named, code
            named[code] = int(status)
    for code in re.findall(r"\b[A-Z][A-Z_]{3,}\b", readme[start : start + 1200].split("500 for the rest")[1].split(")")[0]):
        named[code] = 500
    assert named == {code.name: status for code, status in rest.HTTP_STATUS.items() if code is not grpc.StatusCode.OK}


def test_a_body_is_read_as_json_whatever_its_content_type(live: LiveRest) -> None:
    """README: "A body is read as JSON whatever its `Content-Type` says"."""
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "application/json; charset=utf-8"):
        made = live.call("POST", "/v1/games", json.dumps(CREATE).encode(), headers={"Content-Type": content_type})
        assert made.status_code == 200 and made.json()["gameId"], (content_type, made.text[:200])


def test_a_stream_resumed_from_the_last_version_seen_sends_the_next_step_only(live: LiveRest) -> None:
    """README WatchGame: "Resumed from the last version seen, it sends nothing until the game's
    next step": resumed from the game's version, the first event is the next step's."""
    game_id, joined = live.new_game(players=3)
    view = live.ok("GET", f"/v1/games/{game_id}/view", token=joined[0]["seatToken"])["view"]
    headers = {"Authorization": f"Bearer {joined[0]['seatToken']}", "Last-Event-ID": view["version"]}
    with requests.get(f"{live.base_url}/v1/games/{game_id}:watch", headers=headers, stream=True, timeout=CALL_TIMEOUT_S) as response:
        other = live.ok("GET", f"/v1/games/{game_id}/view", token=joined[1]["seatToken"])["view"]
        live.ok("POST", f"/v1/games/{game_id}/moves", {"move": other["legalMoves"][0], "requestId": request_id()}, token=joined[1]["seatToken"])
        (first,) = SseReader(response).events(1)
    assert int(first["id"]) == int(view["version"]) + 1
    assert [e["version"] for e in json.loads(first["data"])["entries"]] == [first["id"]]
