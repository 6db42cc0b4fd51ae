"""What the README's "Many replicas" section promises of limits, the Redis pool, shutdown and
metrics that no other test held a replica to: the 64 KiB request boundary over gRPC, STORE_BUSY
after the wait for a pooled connection, health turning NOT_SERVING while in-flight calls finish,
every metric family by name, and the bound on games kept decoded. Real replicas, real Redis
servers, gRPC and HTTP over loopback."""

from __future__ import annotations

import asyncio
import contextlib
import pathlib
from typing import Any, AsyncIterator

import grpc
import pytest
import redis as sync_redis
import requests
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client.parser import text_string_to_metric_families

from conftest import REPO, run
from hustings.client import Client, HustingsError
from hustings.service import grpc_api
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import Replica, ReplicaConfig
from hustings.service.store import game_key
from hustings.v1 import game_service_pb2, game_service_pb2_grpc
from service_helpers import choose_top_candidates, new_game

REQUEST_CAP = 64 << 10  # the README's 64 KiB
CALL_TIMEOUT_S = 20.0
GAME_ID = "g" + "0" * 24  # a well-formed id; the game need not exist


@contextlib.asynccontextmanager
async def _replica(url: str, **config: Any) -> AsyncIterator[Replica]:
    replica = await Replica(ReplicaConfig(redis_url=url, address="127.0.0.1:0", grace_s=1.0, **config)).start()
    try:
        yield replica
    finally:
        await replica.stop()


def _join_of_size(game_id: str, size: int) -> bytes:
    """A serialised JoinGameRequest of exactly ``size`` bytes (its display name padded)."""
    request = game_service_pb2.JoinGameRequest(game_id=game_id, display_name="")
    request.display_name = "x" * (size - request.ByteSize() - 4)  # tag and a 3-byte length
    data = request.SerializeToString()
    assert len(data) == size, len(data)
    return data


def test_a_grpc_request_of_64_kib_is_read_and_one_byte_more_is_resource_exhausted(redis_server: EmbeddedRedis) -> None:
    """README Limits: "past each of these a call gets RESOURCE_EXHAUSTED ... Requests over 64
    KiB". A request of exactly 64 KiB reaches the service (which refuses the long name in its
    own words); one byte more is RESOURCE_EXHAUSTED REQUEST_TOO_LARGE before it, a stream's
    request too, and nothing changes."""
    raw = sync_redis.Redis.from_url(redis_server.url)

    async def scenario() -> None:
        async with _replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                game_id = (await client.create_game("stimmvieh", 3)).game_id
            before = raw.hgetall(game_key(game_id))
            async with grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}", options=[("grpc.max_send_message_length", 8 * grpc_api.RECEIVE_BACKSTOP_BYTES)]) as channel:
                join = channel.unary_unary("/hustings.v1.GameService/JoinGame")
                with pytest.raises(grpc.aio.AioRpcError) as read:
                    await join(_join_of_size(game_id, REQUEST_CAP), timeout=CALL_TIMEOUT_S)
                assert read.value.code() == grpc.StatusCode.INVALID_ARGUMENT
                assert HustingsError.from_rpc_error(read.value).reason == "BAD_DISPLAY_NAME"
                with pytest.raises(grpc.aio.AioRpcError) as over:
                    await join(_join_of_size(game_id, REQUEST_CAP + 1), timeout=CALL_TIMEOUT_S)
                assert over.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert HustingsError.from_rpc_error(over.value).reason == "REQUEST_TOO_LARGE"
                # A stream's request is held to the same bound, with the same reason.
                watch = channel.unary_stream("/hustings.v1.GameService/WatchGame")
                request = game_service_pb2.WatchGameRequest(game_id=game_id + "x" * REQUEST_CAP).SerializeToString()
                with pytest.raises(grpc.aio.AioRpcError) as streamed:
                    async for _update in watch(request, timeout=CALL_TIMEOUT_S):
                        pass
                assert streamed.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert HustingsError.from_rpc_error(streamed.value).reason == "REQUEST_TOO_LARGE"
                # Past gRPC's own limit (the backstop) gRPC refuses the call before any handler.
                with pytest.raises(grpc.aio.AioRpcError) as backstop:
                    huge = game_service_pb2.JoinGameRequest(game_id=game_id, display_name="x" * grpc_api.RECEIVE_BACKSTOP_BYTES)
                    await join(huge.SerializeToString(), timeout=CALL_TIMEOUT_S)
                assert backstop.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert raw.hgetall(game_key(game_id)) == before

    try:
        assert grpc_api.MAX_MESSAGE_BYTES == REQUEST_CAP
        run(scenario())
    finally:
        raw.close()


def test_a_command_that_waits_too_long_for_a_connection_is_store_busy(tmp_path: pathlib.Path) -> None:
    """README Redis connections: "a command that finds them all busy waits up to 10 s for one
    (then UNAVAILABLE `STORE_BUSY`)", with a retry hint of 0.1 s (README Retries). The wait is shortened to 0.3 s here; the pool has the
    minimum of three connections, so while Redis pauses one read holds the only free one and
    the other reads give up."""
    from hustings.service import store

    assert store.DEFAULT_POOL_TIMEOUT_S == 10.0
    server = EmbeddedRedis(tmp_path / "redis", appendonly=False).start()
    raw = sync_redis.Redis.from_url(server.url)

    async def scenario() -> None:
        async with _replica(server.url, redis_max_connections=3, redis_pool_timeout_s=0.3) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                seats = await new_game(client, 3)
                stub = game_service_pb2_grpc.GameServiceStub(client.channel)
                request = game_service_pb2.GetViewRequest(game_id=seats[0].game_id)
                raw.execute_command("CLIENT", "PAUSE", "900", "ALL")
                results = await asyncio.gather(*(stub.GetView(request, timeout=CALL_TIMEOUT_S) for _ in range(4)), return_exceptions=True)
        refused = [HustingsError.from_rpc_error(r) for r in results if isinstance(r, grpc.aio.AioRpcError)]
        answered = [r for r in results if isinstance(r, game_service_pb2.GetViewResponse)]
        assert len(refused) + len(answered) == 4, results
        assert refused and answered, results
        assert {(e.code, e.reason, e.retry_after_s) for e in refused} == {(grpc.StatusCode.UNAVAILABLE, "STORE_BUSY", 0.1)}

    try:
        run(scenario())
    finally:
        raw.close()
        server.stop()


def test_shutdown_turns_health_not_serving_and_lets_calls_finish(tmp_path: pathlib.Path) -> None:
    """README Graceful shutdown: "health turns NOT_SERVING, WatchGame streams end ..., in-flight
    calls finish, then the process exits". A GetView waits on a paused Redis while the replica
    stops: a health watcher sees NOT_SERVING, and the call still gets its answer."""
    server = EmbeddedRedis(tmp_path / "redis", appendonly=False).start()
    raw = sync_redis.Redis.from_url(server.url)

    async def scenario() -> None:
        replica = await Replica(ReplicaConfig(redis_url=server.url, address="127.0.0.1:0", grace_s=5.0)).start()
        try:
            address = f"127.0.0.1:{replica.port}"
            async with Client(address) as client:
                seats = await new_game(client, 3)
            async with grpc.aio.insecure_channel(address) as channel:
                health = health_pb2_grpc.HealthStub(channel)
                statuses = health.Watch(health_pb2.HealthCheckRequest(service="hustings.v1.GameService"), timeout=CALL_TIMEOUT_S)
                first = await statuses.read()
                assert first.status == health_pb2.HealthCheckResponse.SERVING
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                raw.execute_command("CLIENT", "PAUSE", "1000", "ALL")
                in_flight = asyncio.ensure_future(stub.GetView(game_service_pb2.GetViewRequest(game_id=seats[0].game_id), timeout=CALL_TIMEOUT_S))
                async with asyncio.timeout(CALL_TIMEOUT_S):  # until the call is in the replica
                    while replica.limits.calls.in_flight < 1:
                        await asyncio.sleep(0.01)
                assert not in_flight.done()  # and waits there for Redis
                stopping = asyncio.ensure_future(replica.stop())
                second = await asyncio.wait_for(statuses.read(), CALL_TIMEOUT_S)
                assert second.status == health_pb2.HealthCheckResponse.NOT_SERVING
                statuses.cancel()  # a stream still open would hold the stop for its whole grace
                answer = await in_flight
                assert answer.view.game_id == seats[0].game_id
                await asyncio.wait_for(stopping, CALL_TIMEOUT_S)
        finally:
            await replica.stop()

    try:
        run(scenario())
    finally:
        raw.close()
        server.stop()


README_METRICS = {
    "hustings_rpcs_total": {"method", "code"},
    "hustings_rpc_seconds_bucket": {"method", "le"},
    "hustings_rest_rpcs_total": {"method", "code"},
    "hustings_moves_applied_total": {"kind"},
    "hustings_version_conflicts_total": set(),
    "hustings_state_cache_total": {"result"},
    "hustings_watchers": set(),
    "hustings_unattended_waits_total": set(),
    "hustings_thinking_waits_given_up_total": set(),
    "hustings_store_memory_fill": set(),
    "hustings_refused_creations_total": {"reason"},
    "hustings_games_removed_for_room_total": set(),
}


def test_metrics_serve_every_family_the_readme_names(redis_server: EmbeddedRedis) -> None:
    """README Metrics: `--metrics-address` serves Prometheus `/metrics` with these families
    and labels, read here from the endpoint as a scraper reads them."""

    async def scenario() -> dict[str, set[str]]:
        async with _replica(redis_server.url, metrics_address="127.0.0.1:0", http_address="127.0.0.1:0") as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                seats = await new_game(client, 3)
                await client.move(seats[0].game_id, seats[0].token, choose_top_candidates(1, 2, 3, 4))
                watch = client.watch(seats[0].game_id)
                await watch.__anext__()
                rest = await asyncio.to_thread(requests.get, f"http://127.0.0.1:{replica.http_port}/v1/kinds", timeout=CALL_TIMEOUT_S)
                assert rest.status_code == 200
                text = await asyncio.to_thread(requests.get, f"http://127.0.0.1:{replica.metrics_port}/metrics", timeout=CALL_TIMEOUT_S)
                await watch.aclose()
        labels: dict[str, set[str]] = {}
        for family in text_string_to_metric_families(text.text):
            for sample in family.samples:
                labels.setdefault(sample.name, set()).update(sample.labels)
        return labels

    readme = (REPO / "README.md").read_text()
    for name in README_METRICS:
        assert f"`{name.removesuffix('_bucket')}" in readme, name
    labels = run(scenario())
    assert isinstance(labels, dict)
    for name, expected in README_METRICS.items():
        assert name in labels, name
        assert labels[name] == expected, (name, labels[name])


def test_a_replica_keeps_at_most_4096_games_decoded(redis_server: EmbeddedRedis) -> None:
    """README Limits: "a replica keeps at most 4096 games decoded in memory". The bound is the
    replica's; it is lowered here to two so that the test needs three games, not 4097."""

    async def scenario() -> None:
        async with _replica(redis_server.url) as replica:
            host = replica.host  # type: ignore[attr-defined]
            assert host._cache_size == 4096
            host._cache_size = 2
            async with Client(f"127.0.0.1:{replica.port}") as client:
                games = [await new_game(client, 3) for _ in range(3)]
                for seats in games:
                    await client.move(seats[0].game_id, seats[0].token, choose_top_candidates(1, 2, 3, 4))
                    assert len(host._cache) <= 2
                assert list(host._cache) == [games[1][0].game_id, games[2][0].game_id]  # the least recent went

    run(scenario())
