"""Security headers of the REST face, over real HTTP on loopback: every kind of response (answers,
errors, the event stream, a preflight, static files, the OpenAPI document, /readyz, redirects, a
request the HTTP parser refuses) forbids MIME sniffing, sends no Referer and may be framed by
nobody; the page at /play and its files carry the page's strict Content-Security-Policy, every
other response one that allows nothing. The browser's side of it is in test_browser_policy.py."""

from __future__ import annotations

from typing import Iterator

import pytest
import requests

from conftest import REPO
from rest_helpers import CALL_TIMEOUT_S, LiveRest, SseReader, raw_head
from hustings.service import rest
from hustings.service.embedded_redis import EmbeddedRedis

ORIGIN = {"Origin": "http://elsewhere.test"}
# The policies as they are meant, spelled out here rather than read from the module.
PAGE_DIRECTIVES = {
    "default-src": {"'self'"},
    "script-src": {"'self'"},
    "style-src": {"'self'"},
    "style-src-attr": {"'unsafe-inline'"},
    "img-src": {"'self'", "data:"},
    "connect-src": {"'self'"},
    "object-src": {"'none'"},
    "base-uri": {"'none'"},
    "form-action": {"'self'"},
    "frame-ancestors": {"'none'"},
    "require-trusted-types-for": {"'script'"},
    "trusted-types": {"'none'"},
}
API_DIRECTIVES = {"default-src": {"'none'"}, "frame-ancestors": {"'none'"}}


@pytest.fixture(scope="module")
def live(redis_server: EmbeddedRedis) -> Iterator[LiveRest]:
    with LiveRest(redis_server.url) as server:
        yield server


def _directives(policy: str) -> dict[str, set[str]]:
    parsed: dict[str, set[str]] = {}
    for directive in policy.split(";"):
        name, *values = directive.split()
        assert name not in parsed, f"{name} given twice in {policy!r}"
        parsed[name] = set(values)
    return parsed


def _assert_every_response_headers(headers: "requests.structures.CaseInsensitiveDict[str] | dict[str, str]", where: object) -> None:
    assert headers.get("x-content-type-options") == "nosniff", where
    assert headers.get("referrer-policy") == "no-referrer", where
    assert headers.get("x-frame-options") == "DENY", where
    assert "frame-ancestors 'none'" in headers.get("content-security-policy", ""), where


def _assert_page_policy(response: requests.Response) -> None:
    where = (response.request.method, response.url, response.status_code)
    _assert_every_response_headers(response.headers, where)
    assert _directives(response.headers["Content-Security-Policy"]) == PAGE_DIRECTIVES, where
    assert response.headers.get("Access-Control-Allow-Origin") == "*", where  # CORS as before


def _assert_api_policy(response: requests.Response) -> None:
    where = (response.request.method, response.url, response.status_code)
    _assert_every_response_headers(response.headers, where)
    assert _directives(response.headers["Content-Security-Policy"]) == API_DIRECTIVES, where
    assert response.headers.get("Access-Control-Allow-Origin") == "*", where  # CORS as before
    assert "Authorization" in response.headers.get("Access-Control-Allow-Headers", ""), where


def test_api_answers_errors_and_event_stream_carry_the_headers(live: LiveRest) -> None:
    game_id, joined = live.new_game(players=3)
    token = joined[0]["seatToken"]
    with requests.get(
        f"{live.base_url}/v1/games/{game_id}:watch", headers={**ORIGIN, "Authorization": f"Bearer {token}"},
        stream=True, timeout=CALL_TIMEOUT_S,
    ) as stream:
        assert stream.status_code == 200 and stream.headers["Content-Type"].startswith("text/event-stream")
        _assert_api_policy(stream)
        assert len(SseReader(stream).events(1)) == 1
    answers = [
        live.call("GET", "/v1/kinds", headers=ORIGIN),
        live.call("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}}, headers=ORIGIN),
        live.call("GET", f"/v1/games/{game_id}/view", token=token, headers=ORIGIN),
        live.call("GET", f"/v1/games/{game_id}:watch", token="forged", headers=ORIGIN),  # refused before the stream
        live.call("GET", "/v1/games/gmissing/view", headers=ORIGIN),
        live.call("POST", "/v1/games", "{not json", headers=ORIGIN),
        live.call("POST", "/v1/games", b"x" * (rest.MAX_BODY_BYTES + 1), headers=ORIGIN),
        live.call("GET", "/v1/nothing", headers=ORIGIN),
        live.call("DELETE", "/v1/games", headers=ORIGIN),
        live.call("GET", "/openapi.json", headers=ORIGIN),
        live.call("HEAD", "/openapi.json", headers=ORIGIN),
        live.call("GET", rest.READY_PATH, headers=ORIGIN),
        live.call("GET", "/", allow_redirects=False),
        live.call("GET", "/playground", headers=ORIGIN),  # no route, and not under /play
        live.call(
            "OPTIONS", "/v1/games",
            headers={**ORIGIN, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type"},
        ),
    ]
    assert [a.status_code for a in answers] == [200, 200, 200, 401, 404, 400, 413, 404, 405, 200, 200, 200, 302, 404, 204]
    assert answers[12].headers["Location"] == "/play"
    for answer in answers:
        _assert_api_policy(answer)


def test_the_page_and_its_files_carry_the_page_policy(live: LiveRest) -> None:
    page = live.call("GET", "/play", headers=ORIGIN)
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    _assert_page_policy(page)
    script = live.call("GET", "/play/app.js", headers=ORIGIN)
    assert script.status_code == 200 and "javascript" in script.headers["Content-Type"]
    answers = [
        page,
        script,
        live.call("GET", "/play/style.css"),
        live.call("GET", "/play/games/wahlspiel.js"),
        live.call("HEAD", "/play"),
        live.call("GET", "/play/app.js", headers={"If-None-Match": script.headers["ETag"]}),  # a static file's 304
        live.call("GET", "/play/", allow_redirects=False),  # the folder redirects to the page
        live.call("GET", "/play/games/", allow_redirects=False),  # a folder, which lists nothing
        live.call("GET", "/play/missing.js"),
        live.call("GET", "/play", headers={"If-None-Match": page.headers["ETag"]}),  # the page's own 304
    ]
    assert [a.status_code for a in answers] == [200, 200, 200, 200, 200, 304, 302, 403, 404, 304]
    index = (REPO / "service" / "static" / "play" / "index.html").read_bytes()
    assert page.content == index and page.headers["ETag"] == live.call("GET", "/play/index.html").headers["ETag"]
    for answer in answers:
        _assert_page_policy(answer)


def test_a_missing_file_of_the_page_is_refused_as_json_and_a_range_gets_the_whole_file(live: LiveRest) -> None:
    """A file under /play/ that is not there (any spelling, any escape) is 404 NO_SUCH_ROUTE as
    google.rpc.Status JSON, as every refusal of the REST face: the static route answered it, and
    a range it could not satisfy 416, with an empty body of no type. A Range is ignored: the
    whole file, byte for byte, with its ETag."""
    for path in ["/play/nothing.js", "/play/APP.JS", "/play/games/nothing.js", "/play/%2e%2e/openapi.json", "/play/app.js/"]:
        missing = live.call("GET", path)
        assert missing.status_code == 404, (path, missing.status_code)
        assert missing.headers["Content-Type"].startswith("application/json"), (path, missing.headers)
        assert missing.json()["details"][0]["reason"] == "NO_SUCH_ROUTE", path
        _assert_page_policy(missing)
    assert live.call("HEAD", "/play/nothing.js").status_code == 404
    whole = (REPO / "service" / "static" / "play" / "app.js").read_bytes()
    plain = live.call("GET", "/play/app.js")
    for ranges in ["bytes=999999-", "bytes=0-1,5-6", "bytes=10-20", "lines=1-2"]:
        answer = live.call("GET", "/play/app.js", headers={"Range": ranges})
        assert (answer.status_code, answer.content) == (200, whole), ranges
        assert answer.headers["ETag"] == plain.headers["ETag"] and "Content-Range" not in answer.headers
    nested = live.call("GET", "/play/games/wahlspiel.js")
    assert nested.content == (REPO / "service" / "static" / "play" / "games" / "wahlspiel.js").read_bytes()
    assert nested.headers["Content-Type"].startswith("text/javascript")


def test_a_request_the_parser_refuses_is_answered_with_the_headers_too(live: LiveRest) -> None:
    assert live.replica is not None
    head = raw_head(live.replica.http_port, b"GET /v1/kinds HTTP/1.1\r\nHost: x\r\nX-Bad: a\x01b\r\n\r\n")
    assert head["status"] == "400", head
    _assert_every_response_headers(head, head)
    assert _directives(head["content-security-policy"]) == API_DIRECTIVES

