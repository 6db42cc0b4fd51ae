"""Promises of the proto comments and the README that no other test held the service to, each
checked against a real replica (gRPC and REST faces) on a real Redis: AFTER_VERSION_AHEAD's
version, a join retry that wakes no watcher, a health name of 256 characters, the Server header,
GameSummary.open_until after a join, CORS on a request the HTTP parser refuses."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Iterator

import grpc
import pytest
import redis as sync_redis
import requests
from google.rpc import error_details_pb2, status_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from conftest import run
from rest_helpers import LiveRest, raw_head
from service_helpers import new_game, replica_and_client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store import game_key
from hustings.v1 import game_pb2, game_service_pb2

CALL_TIMEOUT_S = 10.0
QUIET_S = 1.0  # how long a stream is watched for an update that must not come


def _error_info(error: grpc.aio.AioRpcError) -> error_details_pb2.ErrorInfo:
    """The one ErrorInfo of a failed call's google.rpc.Status."""
    infos = []
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    infos.append(info)
    (info,) = infos
    return info


@pytest.fixture(scope="module")
def live(redis_server: EmbeddedRedis) -> Iterator[LiveRest]:
    with LiveRest(redis_server.url) as server:
        yield server


def test_after_version_ahead_carries_the_game_s_version(redis_server: EmbeddedRedis, live: LiveRest) -> None:
    """README History pages: an after_version beyond the game's version is OUT_OF_RANGE
    `AFTER_VERSION_AHEAD` and "its ErrorInfo carries the `version`", over gRPC and REST alike,
    so that a client can go on from there without another call."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):
            seats = await new_game(client, 3)
            game_id = seats[0].game_id
            version = (await client.view(game_id)).version
            request = game_service_pb2.GetHistoryRequest(game_id=game_id, after_version=version + 5)
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await client.stub.GetHistory(request, timeout=CALL_TIMEOUT_S)
            info = _error_info(refused.value)
            assert refused.value.code() == grpc.StatusCode.OUT_OF_RANGE
            assert (info.domain, info.reason, dict(info.metadata)) == ("hustings", "AFTER_VERSION_AHEAD", {"version": str(version)})

    run(scenario(), 60)
    game_id, _joined = live.new_game(players=3)
    version = int(live.ok("GET", f"/v1/games/{game_id}/view")["view"]["version"])
    answer = live.call("GET", f"/v1/games/{game_id}/history?afterVersion={version + 5}")
    assert answer.status_code == 400, answer.text
    (info,) = answer.json()["details"]
    assert (info["reason"], info.get("metadata")) == ("AFTER_VERSION_AHEAD", {"version": str(version)})


def test_a_join_retry_changes_no_version_and_wakes_no_watcher(redis_server: EmbeddedRedis) -> None:
    """JoinGameRequest.request_id: "only the first attempt changes the game (one new version), a
    retry writes nothing and wakes no watcher", and answers the same seat and token."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):
            game_id = (await client.create_game("stimmvieh", 3)).game_id
            rid = str(uuid.uuid4())
            first = await client.join(game_id, "Ada", request_id=rid)
            version = first.view.version
            updates: list[game_service_pb2.WatchGameResponse] = []

            async def follow() -> None:
                async for update in client.watch(game_id, from_version=version):
                    updates.append(update)

            watcher = asyncio.create_task(follow())
            try:
                await asyncio.sleep(0.3)  # the stream is open and caught up (nothing to catch up)
                again = await client.join(game_id, "Ada", request_id=rid)
                assert (again.seat, again.token, again.view.version) == (first.seat, first.token, version)
                await asyncio.sleep(QUIET_S)
                assert updates == []
                assert (await client.view(game_id)).version == version
                # The stream is alive: a real join reaches it.
                await client.join(game_id, "Bo")
                deadline = time.monotonic() + CALL_TIMEOUT_S
                while not updates and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                assert [u.version for u in updates] == [version + 1]
            finally:
                watcher.cancel()
                await asyncio.gather(watcher, return_exceptions=True)

    run(scenario(), 60)


def test_a_health_call_names_a_service_in_at_most_256_characters(redis_server: EmbeddedRedis) -> None:
    """README Streams: "a health call names a service in at most 256 characters (INVALID_ARGUMENT
    `BAD_SERVICE_NAME`)": a Check of 256 is answered as for any unknown name (NOT_FOUND, the
    health protocol's), one of 257 is refused; the empty name and the API's name are SERVING."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (replica, _client):
            async with grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}") as channel:
                health = health_pb2_grpc.HealthStub(channel)
                for name in ("", "hustings.v1.GameService"):
                    answer = await health.Check(health_pb2.HealthCheckRequest(service=name), timeout=CALL_TIMEOUT_S)
                    assert answer.status == health_pb2.HealthCheckResponse.SERVING, name
                with pytest.raises(grpc.aio.AioRpcError) as unknown:
                    await health.Check(health_pb2.HealthCheckRequest(service="é" * 256), timeout=CALL_TIMEOUT_S)
                assert unknown.value.code() == grpc.StatusCode.NOT_FOUND
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await health.Check(health_pb2.HealthCheckRequest(service="s" * 257), timeout=CALL_TIMEOUT_S)
                assert (refused.value.code(), _error_info(refused.value).reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_SERVICE_NAME")

    run(scenario(), 60)


def test_open_until_is_when_an_open_game_stops_waiting_after_a_join(redis_server: EmbeddedRedis) -> None:
    """GameSummary.open_until: "when it stops waiting for its players ...; it is gone then unless
    every seat was taken", while README Expiry: "an open game nobody completes expires
    `open_seconds` after its last join". A join after the creation must move open_until with
    the game's real expiry, or a lobby shows a joinable table as gone (or about to be)."""
    raw = sync_redis.Redis.from_url(redis_server.url)

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):
            table = game_pb2.TableSettings(open_seconds=600)
            game_id = (await client.create_game("stimmvieh", 3, table=table)).game_id
            await asyncio.sleep(2.1)  # created_at is in whole seconds
            await client.join(game_id, "Ada")
            expires_at = time.time() + raw.pttl(game_key(game_id)) / 1000
            listed = {g.game_id: g for g in (await client.games(kind="stimmvieh", status=game_pb2.GAME_STATUS_OPEN, page_size=200)).games}
            summary = listed[game_id]
            assert summary.open_until >= summary.created_at + 602  # the wait was renewed by the join
            assert abs(summary.open_until - expires_at) <= 1.5, (summary.open_until, expires_at)

    try:
        run(scenario(), 60)
    finally:
        raw.close()


# A request line past the HTTP parser's bound: a script in a browser sends one with a long query.
LONG_REQUEST_LINE = b"GET /v1/games?kind=" + b"a" * 20_000 + b" HTTP/1.1\r\nHost: x\r\nOrigin: http://elsewhere.example\r\n\r\n"


def test_the_server_header_says_hustings_and_no_versions(live: LiveRest) -> None:
    """README REST Errors: "The `Server` header says `hustings`, and no versions": on answers,
    errors, a 304, the event stream, /play and an answer to a request the parser refused."""
    game_id, _joined = live.new_game(players=3)
    etag = live.call("GET", "/v1/kinds/stimmvieh").headers["ETag"]
    answers = [
        live.call("GET", "/v1/kinds"),
        live.call("GET", "/v1/kinds/stimmvieh", headers={"If-None-Match": etag}),
        live.call("GET", "/play"),
        live.call("DELETE", "/v1/games"),
        live.call("POST", "/v1/games", b"x" * (70 << 10)),
        live.call("GET", "/v1/games/gnothing/view"),
        live.call("GET", "/readyz"),
    ]
    assert [a.status_code for a in answers] == [200, 304, 200, 405, 413, 404, 200]
    servers = [a.headers.get("Server") for a in answers]
    with requests.get(f"{live.base_url}/v1/games/{game_id}:watch", stream=True, timeout=CALL_TIMEOUT_S) as stream:
        assert stream.status_code == 200
        servers.append(stream.headers.get("Server"))
    assert live.replica is not None
    head = raw_head(live.replica.http_port, LONG_REQUEST_LINE)
    assert head["status"] == "400"
    servers.append(head.get("server"))
    assert servers == ["hustings"] * len(servers)


def test_a_request_the_parser_refuses_is_answered_to_any_origin(live: LiveRest) -> None:
    """README REST: "Any origin may call the API (CORS): every response, the event stream and
    errors included, carries `Access-Control-Allow-Origin: *`". A request line too long for the
    parser (a script's fetch with a long query sends one) is answered 400
    `MALFORMED_HTTP_REQUEST`; without the header a browser hands the script a network error
    instead of that answer."""
    assert live.replica is not None
    head = raw_head(live.replica.http_port, LONG_REQUEST_LINE)
    assert head["status"] == "400", head
    assert head.get("access-control-allow-origin") == "*", head
