"""The REST/JSON face end to end: real Redis, a real replica, HTTP over loopback."""

from __future__ import annotations

import json
import random
from typing import Any, Iterator

import grpc
import pytest
import requests

from rest_helpers import LiveRest, SseReader, request_id
from hustings.service import rest
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.rest_routes import http_rules
from hustings.v1 import game_service_pb2

MAX_MOVES = 2000


@pytest.fixture(scope="module")
def live(redis_server: EmbeddedRedis) -> Iterator[LiveRest]:
    with LiveRest(redis_server.url) as server:
        yield server


def _reason(response: requests.Response) -> tuple[int, int, str]:
    body = response.json()
    (info,) = body["details"]
    assert info["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"
    assert info["domain"] == "hustings"
    assert body["message"]
    return response.status_code, body["code"], info["reason"]


def _stimmvieh_party(view: dict[str, Any], seat: int) -> dict[str, Any]:
    (party,) = [p for p in view["stimmvieh"]["parties"] if p.get("seat") == seat]
    return party


def test_every_rpc_has_an_annotated_route_and_a_handler() -> None:
    service = game_service_pb2.DESCRIPTOR.services_by_name["GameService"]
    rules = {rule.name: rule for rule in http_rules(service)}
    assert set(rules) == {m.name for m in service.methods}
    assert set(rest.UNARY) | rest.STREAMING == set(rules)
    assert rest.STREAMING == {m.name for m in service.methods if m.server_streaming}
    assert rules["JoinGame"].aiohttp_path == "/v1/games/{game_id:[^/:]+}:join"
    assert rules["JoinGame"].verb == "post" and rules["JoinGame"].body == "*"
    assert [f.name for f in rules["ListGames"].query_fields()] == ["kind", "status", "page_size", "page_token"]


def test_every_grpc_code_has_an_http_status() -> None:
    assert set(rest.HTTP_STATUS) == set(grpc.StatusCode)
    assert rest.HTTP_STATUS[grpc.StatusCode.FAILED_PRECONDITION] == 400
    assert rest.HTTP_STATUS[grpc.StatusCode.ABORTED] == 409


def test_create_join_view_move_in_canonical_json(live: LiveRest) -> None:
    kinds = live.ok("GET", "/v1/kinds")["kinds"]
    assert any(k["kind"] == "stimmvieh" and k["minPlayers"] == 3 for k in kinds)
    game_id, joined = live.new_game(players=3)
    assert [j["seat"] for j in joined] == [0, 1, 2]
    assert all(len(j["seatToken"]) > 20 for j in joined)
    view = live.ok("GET", f"/v1/games/{game_id}/view", token=joined[1]["seatToken"])["view"]
    assert view["gameId"] == game_id and view["seat"] == 1
    assert view["status"] == "GAME_STATUS_ACTIVE"  # enums by name
    assert isinstance(view["version"], str) and int(view["version"]) == 4  # int64 as a string
    assert view["toAct"] == [0, 1, 2] and view["legalMoves"]
    # Each seat sees its own hand and nobody else's.
    mine = _stimmvieh_party(view, 1)
    assert mine["topCandidates"] or mine["backbenchers"]
    for seat in (0, 2):
        other = _stimmvieh_party(view, seat)
        assert other["topCandidates"] == [] and other["backbenchers"] == []
    spectator = live.ok("GET", f"/v1/games/{game_id}/view")["view"]
    assert "seat" not in spectator and spectator["legalMoves"] == []

    move = view["legalMoves"][0]
    rid = request_id()
    body = {"move": move, "requestId": rid, "expectedVersion": view["version"]}
    first = live.ok("POST", f"/v1/games/{game_id}/moves", body, token=joined[1]["seatToken"])
    assert first["version"] == "5" and first["events"]
    again = live.ok("POST", f"/v1/games/{game_id}/moves", body, token=joined[1]["seatToken"])
    assert again == first  # a retried request id applies nothing twice
    history = live.ok("GET", f"/v1/games/{game_id}/history", token=joined[1]["seatToken"])["entries"]
    assert [e["version"] for e in history] == [str(v) for v in range(1, 6)]


def test_proto_field_names_and_query_spellings_are_accepted(live: LiveRest) -> None:
    created = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 4}, "request_id": request_id()})
    joined = live.ok("POST", f"/v1/games/{created['gameId']}:join", {"display_name": "Ada", "seat": 2})
    assert joined["seat"] == 2
    for query in ("pageSize=1", "page_size=1", "status=GAME_STATUS_OPEN&kind=stimmvieh", "status=1"):
        games = live.ok("GET", f"/v1/games?{query}")
        assert games["games"], query
    page = live.ok("GET", "/v1/games?pageSize=1")
    assert len(page["games"]) == 1 and page["nextPageToken"]


@pytest.mark.parametrize(
    ("method", "path", "body", "expected"),
    [
        ("POST", "/v1/games", "{not json", (400, 3, "MALFORMED_JSON")),
        ("POST", "/v1/games", b"\xff\xfe", (400, 3, "MALFORMED_JSON")),
        ("POST", "/v1/games", "[1, 2]", (400, 3, "MALFORMED_JSON")),
        ("POST", "/v1/games", '{"kind": 5}', (400, 3, "INVALID_JSON_REQUEST")),
        ("POST", "/v1/games", '{"kind": "stimmvieh", "colour": "red"}', (400, 3, "INVALID_JSON_REQUEST")),
        ("POST", "/v1/games", '{"options": {"players": 99999999999}}', (400, 3, "INVALID_JSON_REQUEST")),
        ("POST", "/v1/games", '{"kind": "chess"}', (400, 3, "UNKNOWN_KIND")),
        ("POST", "/v1/games", '{"kind": "stimmvieh", "options": {"players": 9}}', (400, 3, None)),
        ("POST", "/v1/games", '{"kind": "stimmvieh", "options": {"players": 3}, "seed": "00"}', (403, 7, "CLIENT_SEED_NOT_ALLOWED")),
        ("POST", "/v1/games?kind=x", "{}", (400, 3, "UNEXPECTED_QUERY_PARAMETER")),
        ("GET", "/v1/games?pageSize=abc", None, (400, 3, "BAD_PARAMETER")),
        ("GET", "/v1/games?pageSize=1&pageSize=2", None, (400, 3, "BAD_PARAMETER")),
        ("GET", "/v1/games?colour=red", None, (400, 3, "UNKNOWN_QUERY_PARAMETER")),
        ("GET", "/v1/games?status=GAME_STATUS_NOPE", None, (400, 3, "BAD_PARAMETER")),
        ("GET", "/v1/games?pageSize=1000", None, (400, 3, "BAD_PAGE_SIZE")),
        ("GET", "/v1/games?pageToken=99999999999999999999", None, (400, 3, "BAD_PAGE_TOKEN")),  # was a 500
        ("GET", "/v1/games/no-such-game/view", None, (404, 5, "GAME_NOT_FOUND")),
        ("GET", "/v1/games/bad%20id/view", None, (400, 3, "BAD_GAME_ID")),
        ("POST", "/v1/games/no-such-game:join", '{"displayName": "x"}', (404, 5, "GAME_NOT_FOUND")),
        ("POST", "/v1/games/no-such-game:join", "", (400, 3, "BAD_DISPLAY_NAME")),
        ("GET", "/v1/games/x:watch?fromVersion=-1", None, (400, 3, "BAD_FROM_VERSION")),
        ("GET", "/v1/nothing", None, (404, 5, "NO_SUCH_ROUTE")),
        ("DELETE", "/v1/games", None, (405, 12, "METHOD_NOT_ALLOWED")),
    ],
)
def test_bad_requests_get_a_status_with_a_reason(
    live: LiveRest, method: str, path: str, body: Any, expected: tuple[int, int, str | None]
) -> None:
    status, code, reason = _reason(live.call(method, path, body))
    assert (status, code) == expected[:2], reason
    if expected[2] is not None:
        assert reason == expected[2]


def test_a_method_a_route_does_not_take_is_answered_with_the_methods_it_takes(live: LiveRest) -> None:
    """A 405 names in ``Allow`` the methods its route takes, as RFC 9110 asks."""
    for method, path, allowed in (("DELETE", "/v1/games", {"GET", "HEAD", "POST"}), ("PUT", "/v1/kinds", {"GET", "HEAD"})):
        refused = live.call(method, path)
        assert refused.status_code == 405, (method, path)
        assert {m.strip() for m in refused.headers["Allow"].split(",")} == allowed, (method, path)


def test_move_errors_map_to_http(live: LiveRest) -> None:
    game_id, joined = live.new_game(players=3)
    token = joined[0]["seatToken"]
    view = live.ok("GET", f"/v1/games/{game_id}/view", token=token)["view"]
    move = view["legalMoves"][0]
    path = f"/v1/games/{game_id}/moves"
    assert _reason(live.call("POST", path, {"move": move, "requestId": "r1"})) == (401, 16, "SEAT_TOKEN_REQUIRED")
    assert _reason(live.call("POST", path, {"move": move, "requestId": "r1"}, token="forged")) == (401, 16, "INVALID_SEAT_TOKEN")
    malformed = live.call("POST", path, {"move": move, "requestId": "r1"}, headers={"Authorization": "Token x"})
    assert _reason(malformed) == (401, 16, "MALFORMED_AUTHORIZATION")
    assert _reason(live.call("POST", path, {"move": move}, token=token)) == (400, 3, "MISSING_REQUEST_ID")
    stale = {"move": move, "requestId": "r1", "expectedVersion": "2"}
    assert _reason(live.call("POST", path, stale, token=token)) == (409, 10, "STALE_VERSION")
    illegal = {"move": {"stimmvieh": {"playPolitician": {"influence": 1}}}, "requestId": "r2"}
    status, code, _ = _reason(live.call("POST", path, illegal, token=token))
    assert (status, code) == (400, 9)  # FAILED_PRECONDITION
    live.ok("POST", path, {"move": move, "requestId": "r3"}, token=token)
    status, code, reason = _reason(live.call("POST", path, {"move": move, "requestId": "r4"}, token=token))
    assert (status, code, reason) == (400, 9, "ALREADY_CHOSEN")


def _play_to_end(live: LiveRest, game_id: str, joined: list[dict[str, Any]], rng: random.Random) -> int:
    tokens = {j["seat"]: j["seatToken"] for j in joined}
    moves = 0
    for _ in range(MAX_MOVES):
        view = live.ok("GET", f"/v1/games/{game_id}/view")["view"]
        if view["status"] == "GAME_STATUS_FINISHED":
            return moves
        seat = view["toAct"][0]
        mine = live.ok("GET", f"/v1/games/{game_id}/view", token=tokens[seat])["view"]
        move = rng.choice(mine["legalMoves"])
        live.ok("POST", f"/v1/games/{game_id}/moves", {"move": move, "requestId": request_id()}, token=tokens[seat])
        moves += 1
    raise AssertionError("the game did not end")


def test_watch_streams_server_sent_events_and_resumes(live: LiveRest) -> None:
    game_id, joined = live.new_game(players=3)
    token = joined[0]["seatToken"]
    url = f"{live.base_url}/v1/games/{game_id}:watch"
    with requests.get(url, headers={"Authorization": f"Bearer {token}"}, stream=True, timeout=20) as response:
        assert response.status_code == 200
        assert response.headers["Content-Type"].startswith("text/event-stream")
        reader = SseReader(response)
        (first,) = reader.events(1)
        update = json.loads(first["data"])
        assert first["id"] == update["version"] == "4"
        assert [e["version"] for e in update["entries"]] == ["1", "2", "3", "4"]
        assert update["view"]["seat"] == 0
        # A move by another seat arrives live.
        other = live.ok("GET", f"/v1/games/{game_id}/view", token=joined[2]["seatToken"])["view"]
        live.ok("POST", f"/v1/games/{game_id}/moves", {"move": other["legalMoves"][0], "requestId": "w1"}, token=joined[2]["seatToken"])
        (second,) = reader.events(1)
        assert second["id"] == "5" and json.loads(second["data"])["view"]["version"] == "5"
    # Resume from Last-Event-ID (it wins over fromVersion), only what came after.
    headers = {"Authorization": f"Bearer {token}", "Last-Event-ID": "4"}
    with requests.get(url + "?fromVersion=1", headers=headers, stream=True, timeout=20) as response:
        (resumed,) = SseReader(response).events(1)
        assert resumed["id"] == "5"
        assert [e["version"] for e in json.loads(resumed["data"])["entries"]] == ["5"]
    bad = live.call("GET", f"/v1/games/{game_id}:watch", headers={"Last-Event-ID": "x"})
    assert _reason(bad) == (400, 3, "BAD_LAST_EVENT_ID")
    assert _reason(live.call("GET", f"/v1/games/{game_id}:watch", token="forged")) == (401, 16, "INVALID_SEAT_TOKEN")


def test_watch_of_a_finished_game_ends_with_an_end_event(live: LiveRest) -> None:
    game_id, joined = live.new_game(players=3)
    assert _play_to_end(live, game_id, joined, random.Random(7)) > 0
    with requests.get(f"{live.base_url}/v1/games/{game_id}:watch?fromVersion=3", stream=True, timeout=20) as response:
        events = SseReader(response).events(5)
    assert [e.get("event", "message") for e in events] == ["message", "end"]
    final = json.loads(events[0]["data"])
    assert final["view"]["status"] == "GAME_STATUS_FINISHED" and final["view"]["seed"]
    assert final["view"]["outcome"]["placings"]


def test_openapi_play_and_cors(live: LiveRest) -> None:
    served = requests.get(live.base_url + "/openapi.json", timeout=10)
    assert served.status_code == 200 and served.headers["Content-Type"].startswith("application/json")
    assert served.content == (rest.STATIC / "openapi.json").read_bytes()
    page = requests.get(live.base_url + "/play", timeout=10)
    assert page.status_code == 200 and "text/html" in page.headers["Content-Type"]
    assert "<title>" in page.text
    preflight = requests.options(
        live.base_url + "/v1/games",
        headers={"Origin": "http://example.test", "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "authorization, content-type"},
        timeout=10,
    )
    assert preflight.status_code == 204
    assert preflight.headers["Access-Control-Allow-Origin"] == "*"
    assert "Authorization" in preflight.headers["Access-Control-Allow-Headers"]
