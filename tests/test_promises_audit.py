"""Figures the README and the proto comments give that no other test held to their number: the
defaults of every command's flags as the README names them, the HTTP and gRPC connections'
timings, what a long answer counts as in its client's call rate, the stops' graces, the health
pings, and the 256 items a list of a request may hold (over REST and over gRPC, on a real
replica with a real Redis). Other tests check these against the constants themselves, so a
changed constant passed them; these check the figures the documents promise."""

from __future__ import annotations

import asyncio
import re
import resource
import uuid
from typing import Any, Iterator

import grpc
import pytest
import structlog

from conftest import REPO, run
from rest_helpers import LiveRest, request_id
from service_helpers import replica_and_client
from test_rest_connection_churn import _exchanges
from hustings.service import deadlines, grpc_api, grpc_arrivals, limits, readiness, replica, rest, rest_routes, seats, unattended
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service import rest_connections
from hustings.service.rest_connections import HttpSettings
from hustings.service.replica import ReplicaConfig
from hustings.v1 import game_pb2, game_service_pb2 as gs, game_service_pb2_grpc as gsg

README = REPO / "README.md"
WAIT_S = 10.0
SERVE_ENV = (
    "HUSTINGS_ADDRESS", "HUSTINGS_HTTP_ADDRESS", "HUSTINGS_METRICS_ADDRESS", "HUSTINGS_REDIS_URL",
    "HUSTINGS_DATA_DIR", "HUSTINGS_RETENTION_DAYS", "HUSTINGS_DRAIN_SECONDS", "HUSTINGS_SECRET_FILE", "HUSTINGS_SECRET",
)
# `--flag` (N ...): the figure a README sentence gives as a flag's default, first in its brackets.
FLAG_FIGURE = re.compile(r"`(--[a-z0-9-]+)(?: [A-Za-z]+)?`[^`()]{0,30}\((?:default |`[A-Z_]+`; )?([0-9][0-9,]*(?:\.[0-9]+)?)(?: by default)?[,;)]")
# `hustings <command> [--flag N] ...`: a synopsis whose bracketed figures are the defaults.
SYNOPSIS = re.compile(r"`hustings (\w+) ((?:\[[^\]]+\] ?)+)`")
# The serve flags whose figure the README gives in those words; each must stay found.
SERVE_FIGURES = {
    "--max-calls-per-client": 512, "--call-burst": 600, "--calls-per-client-per-second": 300,
    "--create-burst": 120, "--creates-per-client-per-minute": 60, "--unattended-decisions-per-second": 100,
    "--open-tables-per-client": 50, "--seats-per-client": 12,
    "--new-games-until-percent": 90, "--make-room-from-percent": 85, "--clients-per-ipv6-site": 16,
    "--max-watchers": 10_000, "--max-streams-per-address": 2_000, "--max-streams-per-client": 1_000,
    "--max-streams-per-seat": 32, "--max-streams-per-game": 64, "--max-streams-per-connection": 128,
    "--max-http-connections": 10_000, "--max-http-connections-per-address": 2_500,
    "--redis-max-connections": 64, "--drain-seconds": 0,
}


def _readme() -> str:
    return re.sub(r"\s+", " ", README.read_text())


def _subparser(command: str) -> Any:
    from hustings.cli import _parser

    parser = _parser()
    (commands,) = [action for action in parser._actions if action.choices and command in action.choices]
    return commands.choices[command]


def _default(command: str, flag: str) -> Any:
    (action,) = [a for a in _subparser(command)._actions if flag in a.option_strings]
    return action.default


def _figure(text: str) -> float:
    return float(text.replace(",", ""))


def test_every_flag_figure_the_readme_gives_is_the_flag_s_default(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every "`--flag` (N)" of the README is `hustings serve`'s default for that flag (and so what
    `hustings serve --help` prints: its help texts show %(default)s), and every figure of a
    `hustings <command> [--flag N]` synopsis is that command's default."""
    for name in SERVE_ENV:
        monkeypatch.delenv(name, raising=False)
    text = _readme()
    serve_flags = {flag for action in _subparser("serve")._actions for flag in action.option_strings}
    found: dict[str, float] = {}
    for match in FLAG_FIGURE.finditer(text):
        flag, figure = match.group(1), _figure(match.group(2))
        if flag in serve_flags:
            assert found.setdefault(flag, figure) == figure, f"the README gives {flag} two figures"
    assert found == {flag: float(value) for flag, value in SERVE_FIGURES.items()}, found
    for flag, figure in found.items():
        assert float(_default("serve", flag)) == figure, (flag, _default("serve", flag), figure)
    assert "`hustings serve --retention-days`, default 30, at most 36,500" in text and int(_default("serve", "--retention-days")) == 30
    assert "(`--http-address`, default 127.0.0.1:8080;" in text and _default("serve", "--http-address") == "127.0.0.1:8080"
    assert "`--trusted-proxy CIDR` (repeatable; none by default)" in text and _default("serve", "--trusted-proxy") == []

    synopses = {command: flags for command, flags in SYNOPSIS.findall(text)}
    assert set(synopses) >= {"clockbench", "loadtest"}, synopses
    checked = 0
    for command, flags in synopses.items():
        for flag, value in re.findall(r"\[(--[a-z0-9-]+) ([^\]]+)\]", flags):
            default = _default(command, flag)
            if re.fullmatch(r"[0-9][0-9,.]*", value):
                assert float(default) == _figure(value), (command, flag, default, value)
            elif "|" in value:  # the choices, the default first
                assert default == value.split("|")[0], (command, flag, default, value)
            else:
                continue  # a placeholder (P): no default named
            checked += 1
    assert checked >= 9, checked
    # The loadtest's watcher phase, in the README's words.
    assert "(`--watchers W`, default 1,000;" in text and _default("loadtest", "--watchers") == 1000
    assert "`--watch-moves-per-s` (default 500)" in text and _default("loadtest", "--watch-moves-per-s") == 500
    assert "`--watch-seconds` (default 5)" in text and _default("loadtest", "--watch-seconds") == 5


def test_connection_timings_are_the_readme_s() -> None:
    """README REST: "a body that has not arrived 10 s after its call was admitted 408
    `BODY_TIMEOUT`", "an event the client's connection has not taken within 30 s ... ends the
    stream", "a `: keepalive` line after every 15 s of quiet"; Limits: "An HTTP connection idle for
    30 s is closed; the same 30 s ... bound how long a request's headers may take", "A gRPC
    request's message must arrive within 10 s of its call's start"; gRPC connections: "one with
    no call for 2 minutes is closed (GOAWAY); the server pings every connection every 30 s and
    closes one whose peer answers no ping within 10 s ...; clients' own keepalive pings are
    welcome down to one every 10 s", and "at most half its process's file descriptors, less
    256, as gRPC connections". The replica's defaults are these (its tests shorten them)."""
    http = HttpSettings()
    assert (http.keep_alive_s, http.body_deadline_s, http.event_write_deadline_s) == (30.0, 10.0, 30.0)
    assert ReplicaConfig(redis_url="redis://127.0.0.1:1/0").http is None  # None: HttpSettings()
    assert rest.KEEPALIVE_S == 15.0
    assert grpc_arrivals.RECEIPT_S == 10.0

    policy = ReplicaConfig(redis_url="redis://127.0.0.1:1/0").grpc_connections
    assert (policy.idle_s, policy.keepalive_s, policy.keepalive_timeout_s, policy.client_ping_s) == (120.0, 30.0, 10.0, 10.0)
    options = dict(grpc_api.server_options(policy, 2_048, 128))
    assert options["grpc.max_connection_idle_ms"] == 120_000
    assert options["grpc.keepalive_time_ms"] == 30_000 and options["grpc.keepalive_timeout_ms"] == 10_000
    assert options["grpc.http2.min_ping_interval_without_data_ms"] == 10_000
    assert options["grpc.max_send_message_length"] == 4 << 20  # "gRPC's 4 MiB message limit"
    assert options["grpc.max_receive_message_length"] == 128 << 10  # "one past 128 KiB is refused by gRPC itself"
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft >= 300:
        assert policy.connection_cap() == (soft - 256) // 2


def test_stops_and_health_pings_are_the_readme_s() -> None:
    """README Graceful shutdown: "in-flight calls finish within 5 s ..., what the replica still
    does for them in the background ... gets a second more"; Health: NOT_SERVING "when two pings
    of Redis in a row (one a second, 2 s each) fail"; Tables: a bot decision "that waits for the
    replica's thinking place for half its claim's lease (5 s) is handed back due", and a retired
    game's clocks and bots "are looked at every 10 s, not at every poll of the deadline index
    (four times a second)"; and the bounds of seat changes."""
    config = ReplicaConfig(redis_url="redis://127.0.0.1:1/0")
    assert config.grace_s == 5.0 and replica.BACKGROUND_GRACE_S == 1.0
    assert config.store_ping_s == readiness.PING_EVERY_S == 1.0
    assert (readiness.PING_TIMEOUT_S, readiness.FAILURES_BEFORE_NOT_SERVING) == (2.0, 2)
    assert deadlines.LEASE_MS / 2000 == 5.0
    assert seats.UNPLAYABLE_LOOK_AGAIN_MS == 10_000 and deadlines.POLL_S == 0.25
    # Tables: "once an open game has 1,000 steps ... its seats can no longer be left, and once an
    # active game has 20,000 neither (RESOURCE_EXHAUSTED `TOO_MANY_SEAT_CHANGES`)".
    assert (seats.MAX_OPEN_GAME_STEPS, seats.MAX_ACTIVE_GAME_SEAT_CHANGES_UP_TO) == (1_000, 20_000)


def test_long_answers_count_as_the_readme_s_calls() -> None:
    """README Limits: "a `GetHistory` page one call more per 100 steps (a page of 1,000: 11), a
    `ListGames` page one more per 100 games it lists (a page of 200: 3), and over REST every
    answer ... one more per 8 KiB of JSON it writes (a page of 200 games, 100 kB: 15 in all; a
    finished 352-step Spin Doctors game's whole history, 237 kB: 33, 4 over gRPC ...)", a
    `WatchGame` "one more per 100 steps its first update catches up (from version 0 of a
    2,500-step game: 26)"; and unattended tables' budget counts "a greedy bot's decision as three
    and a strong one's as 20"."""
    def calls(steps: int) -> int:
        return 1 + limits.calls_for_steps(steps)

    assert calls(1_000) == 11
    assert calls(200 * limits.STEPS_PER_LISTED_GAME) == 3
    assert calls(200 * limits.STEPS_PER_LISTED_GAME + limits.steps_for_rendered(100_000)) == 15
    assert calls(352 + limits.steps_for_rendered(237_000)) == 33 and calls(352) == 4
    assert calls(2_500) == 26
    assert limits.steps_for_rendered(8 << 10) == 100 == limits.calls_for_steps(100) * 100
    assert unattended.DECISION_WEIGHTS == {"random": 1, "greedy": 3, "strong": 20}


@pytest.fixture(scope="module")
def live(redis_server: EmbeddedRedis) -> Iterator[LiveRest]:
    with LiveRest(redis_server.url) as server:
        yield server


def _reason(body: dict[str, Any]) -> str:
    (info,) = body["details"]
    return str(info["reason"])


def test_a_request_s_lists_hold_256_items_over_rest_and_grpc(live: LiveRest) -> None:
    """README REST: "a list of more than 256 items ... 400 `JSON_LIST_TOO_LONG`"; The API at a
    glance: "A list in a move holds at most 256 items ...; a longer one is INVALID_ARGUMENT
    `LIST_TOO_LONG` before anything reads it". A move of 256 influences passes both bounds and is
    refused for what it says (an illegal move), 257 are refused by the bound: over REST by the
    JSON's, over gRPC by the move's. Nothing is applied."""
    assert rest_routes.MAX_JSON_LIST == 256
    game_id, joined = live.new_game(players=3)
    token = joined[0]["seatToken"]
    version = live.ok("GET", f"/v1/games/{game_id}/view", token=token)["view"]["version"]

    def rest_move(items: int) -> tuple[int, str]:
        move = {"stimmvieh": {"chooseTopCandidates": {"influences": [1] * items}}}
        answer = live.call("POST", f"/v1/games/{game_id}/moves", {"requestId": request_id(), "move": move}, token=token)
        return answer.status_code, _reason(answer.json())

    at_bound = rest_move(256)
    assert at_bound[0] == 400 and at_bound[1] not in ("JSON_LIST_TOO_LONG", "LIST_TOO_LONG"), at_bound
    assert rest_move(257) == (400, "JSON_LIST_TOO_LONG")

    assert live.replica is not None
    with grpc.insecure_channel(f"127.0.0.1:{live.replica.port}") as channel:
        stub = gsg.GameServiceStub(channel)

        def grpc_move(items: int) -> tuple[grpc.StatusCode, str]:
            move = game_pb2.Move()
            move.stimmvieh.choose_top_candidates.influences.extend([1] * items)
            with pytest.raises(grpc.RpcError) as refused:
                stub.SubmitMove(
                    gs.SubmitMoveRequest(game_id=game_id, move=move, request_id=uuid.uuid4().hex),
                    metadata=(("authorization", f"Bearer {token}"),), timeout=WAIT_S,
                )
            error: Any = refused.value
            reasons = [d for d in error.trailing_metadata() if d.key == "grpc-status-details-bin"]
            from google.rpc import error_details_pb2, status_pb2

            status = status_pb2.Status.FromString(reasons[0].value)
            info = error_details_pb2.ErrorInfo()
            status.details[0].Unpack(info)
            return error.code(), info.reason

        assert grpc_move(257) == (grpc.StatusCode.INVALID_ARGUMENT, "LIST_TOO_LONG")
        code, reason = grpc_move(256)
        assert reason not in ("LIST_TOO_LONG", "") and code != grpc.StatusCode.OK, (code, reason)
    assert live.ok("GET", f"/v1/games/{game_id}/view", token=token)["view"]["version"] == version


def test_connections_refused_for_their_rate_are_logged_with_their_count_at_most_every_10_s(redis_server: EmbeddedRedis) -> None:
    """README Limits: "The log line `http_connections_refused_rate` says how many were refused, at
    most every 10 s." With 1 new connection a second (2 at once), 8 connections at once from one
    address: the first refused is logged at once (count 1), the others of that burst and of a
    second burst are counted, not logged, within the 10 s."""
    assert rest_connections.LOG_INTERVAL_S == 10.0

    async def scenario() -> list[dict[str, Any]]:
        async with replica_and_client(redis_server.url, http_address="127.0.0.1:0", http=HttpSettings(new_connections_per_second=1.0)) as (
            replica_,
            _client,
        ):
            with structlog.testing.capture_logs() as logged:
                first = sum(await asyncio.to_thread(_exchanges, replica_.http_port, "127.0.0.23", 8))
                second = sum(await asyncio.to_thread(_exchanges, replica_.http_port, "127.0.0.23", 8))
            assert first < 8 and second < 8, (first, second)
            return [line for line in logged if line.get("event") == "http_connections_refused_rate"]

    lines = run(scenario(), timeout_s=60)
    assert len(lines) == 1, lines
    assert lines[0]["count"] == 1 and "faster than its rate" in lines[0]["text"], lines
