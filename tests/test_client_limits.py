"""Per-client limits (README, Many replicas: Limits): one client address can neither take all of a
replica's unary calls nor create games without bound, whatever face it uses, and behind a trusted
proxy each forwarded address is a client of its own. A second client is a second loopback
address: its calls go through a relay in this process that connects from 127.0.0.2."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
from typing import AsyncIterator

import aiohttp
import grpc
import pytest
import redis as sync_redis
from google.rpc import error_details_pb2, status_pb2

from conftest import run, serve_process
from hustings.client import Client
from hustings.service.client_limits import (
    CallRate,
    ClientAddresses,
    CreationLimit,
    RetryLater,
    client_of,
    forwarded_address,
    grpc_peer_address,
)
from hustings.service.embedded_redis import EmbeddedRedis, free_port
from hustings.service.replica import Replica, ReplicaConfig
from hustings.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc
from service_helpers import new_game

OTHER_ADDRESS = "127.0.0.2"  # a second client: Linux answers on all of 127.0.0.0/8
PAUSE_MS = 1500
WAIT_S = 20.0


@contextlib.asynccontextmanager
async def replica(redis_url: str, **config: object) -> AsyncIterator[Replica]:
    """An in-process replica with both faces on free ports and ``config`` on top."""
    started = await Replica(
        ReplicaConfig(redis_url=redis_url, address="127.0.0.1:0", http_address="127.0.0.1:0", grace_s=1.0, **config)  # type: ignore[arg-type]
    ).start()
    try:
        yield started
    finally:
        await started.stop()


@contextlib.asynccontextmanager
async def relay_from(source: str, port: int) -> AsyncIterator[int]:
    """A TCP relay on a free loopback port that connects to ``port`` from ``source``: whoever
    talks through it reaches the server as a client at that address. Yields the relay's port."""
    pipes: set[asyncio.Task[None]] = set()

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
        for task in (asyncio.create_task(pipe(reader, upstream_writer)), asyncio.create_task(pipe(upstream_reader, writer))):
            pipes.add(task)
            task.add_done_callback(pipes.discard)

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        for task in list(pipes):
            task.cancel()
        await asyncio.gather(*pipes, return_exceptions=True)


Stub = game_service_pb2_grpc.GameServiceStub


@contextlib.asynccontextmanager
async def two_clients(port: int) -> AsyncIterator[tuple[Stub, Stub, aiohttp.ClientSession, aiohttp.ClientSession]]:
    """Client A (127.0.0.1) and client B (OTHER_ADDRESS: through a relay over gRPC, from a bound
    local address over HTTP) of the replica at ``port``: (stub A, stub B, HTTP A, HTTP B)."""
    async with (
        relay_from(OTHER_ADDRESS, port) as relay_port,
        grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel_a,
        grpc.aio.insecure_channel(f"127.0.0.1:{relay_port}") as channel_b,
        aiohttp.ClientSession() as http_a,
        aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(OTHER_ADDRESS, 0))) as http_b,
    ):
        yield Stub(channel_a), Stub(channel_b), http_a, http_b


def details(error: grpc.aio.AioRpcError) -> tuple[str, float | None]:
    """The ErrorInfo reason of a failed call and its RetryInfo delay in seconds (None without)."""
    reason, delay = "", None
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for detail in status_pb2.Status.FromString(value).details:
                info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
                if detail.Unpack(info):
                    reason = info.reason
                elif detail.Unpack(retry):
                    delay = retry.retry_delay.ToMilliseconds() / 1000
    return reason, delay


def create_request() -> game_service_pb2.CreateGameRequest:
    """A valid CreateGame request: a three-seat Stimmvieh game."""
    return game_service_pb2.CreateGameRequest(kind="stimmvieh", options=game_pb2.GameOptions(players=3))


def forwarded(address: str) -> tuple[tuple[str, str], ...]:
    """gRPC metadata naming ``address`` as the forwarded client."""
    return (("x-forwarded-for", address),)


async def refused_create(stub: game_service_pb2_grpc.GameServiceStub, metadata: tuple[tuple[str, str], ...] = ()) -> tuple[str, float | None]:
    """Create a game expecting RESOURCE_EXHAUSTED; its reason and retry delay."""
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.CreateGame(create_request(), metadata=metadata, timeout=10)
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    return details(caught.value)


def test_one_client_holding_its_calls_is_refused_while_another_is_answered(redis_server: EmbeddedRedis) -> None:
    """Three calls in flight per client: with Redis paused, client A's three GetView calls (two
    over gRPC, one over REST, one count) wait, A's next call on either face is refused
    TOO_MANY_CALLS_FOR_CLIENT at once, while client B (another address) is answered and its own
    calls are let in. Once Redis is back every admitted call is answered and nothing stays counted."""
    raw = sync_redis.Redis.from_url(redis_server.url)

    async def scenario() -> None:
        async with replica(redis_server.url, max_calls_per_client=3) as one:
            calls = one.limits.calls
            async with Client(f"127.0.0.1:{one.port}") as setup:
                game_id = (await new_game(setup, 3))[0].game_id
            view = game_service_pb2.GetViewRequest(game_id=game_id)
            view_url = f"http://127.0.0.1:{one.http_port}/v1/games/{game_id}/view"
            async with two_clients(one.port) as (stub_a, stub_b, http_a, http_b):
                await stub_b.ListGameKinds(game_service_pb2.ListGameKindsRequest(), timeout=10)  # B's connection is up
                raw.execute_command("CLIENT", "PAUSE", str(PAUSE_MS), "ALL")
                held = [asyncio.ensure_future(stub_a.GetView(view, timeout=30)) for _ in range(2)]
                held.append(asyncio.ensure_future(http_a.get(view_url)))
                async with asyncio.timeout(WAIT_S):
                    while calls.by_client.get("127.0.0.1", 0) < 3:
                        await asyncio.sleep(0.01)
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await stub_a.GetView(view, timeout=10)
                assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert details(caught.value) == ("TOO_MANY_CALLS_FOR_CLIENT", None)
                async with http_a.get(view_url) as over:
                    assert over.status == 429
                    assert (await over.json())["details"][0]["reason"] == "TOO_MANY_CALLS_FOR_CLIENT"
                # Client B meanwhile: answered at once where Redis is not needed, let in where it is.
                kinds = await stub_b.ListGameKinds(game_service_pb2.ListGameKindsRequest(), timeout=10)
                assert kinds.kinds
                b_view = asyncio.ensure_future(stub_b.GetView(view, timeout=30))
                b_http = asyncio.ensure_future(http_b.get(view_url))
                async with asyncio.timeout(WAIT_S):
                    while calls.by_client.get(OTHER_ADDRESS, 0) < 2:
                        await asyncio.sleep(0.01)
                assert not any(call.done() for call in held)  # A's calls were still held then
                assert calls.by_client == {"127.0.0.1": 3, OTHER_ADDRESS: 2}
                assert calls.in_flight == 5  # the replica's own count takes REST calls too
                grpc_views = await asyncio.gather(*held[:2], b_view)
                assert all(answer.view.game_id == game_id for answer in grpc_views)
                for response in (await held[2], await b_http):
                    async with response:
                        assert response.status == 200
                assert calls.by_client == {} and calls.in_flight == 0

    try:
        run(scenario(), timeout_s=60)
    finally:
        raw.close()


def test_game_creation_is_a_bucket_per_client_with_a_retry_hint_on_both_faces(redis_server: EmbeddedRedis) -> None:
    """Three games at once, then two a second: the fourth is RESOURCE_EXHAUSTED
    TOO_MANY_GAMES_CREATED with RetryInfo over gRPC, and 429 with Retry-After and RetryInfo over
    REST (one bucket for both faces); a refused or failed create takes nothing; another address
    still creates; after the hinted delay the bucket has refilled."""

    async def scenario() -> None:
        async with replica(redis_server.url, create_burst=3, creates_per_client_per_minute=120) as one:
            creations = one.limits.creations
            games_url = f"http://127.0.0.1:{one.http_port}/v1/games"
            async with two_clients(one.port) as (stub_a, stub_b, http, _http_b):
                bad = game_service_pb2.CreateGameRequest(kind="no-such-game", options=game_pb2.GameOptions(players=3))
                with pytest.raises(grpc.aio.AioRpcError) as invalid:
                    await stub_a.CreateGame(bad, timeout=10)
                assert invalid.value.code() == grpc.StatusCode.INVALID_ARGUMENT
                assert creations.tokens("127.0.0.1") == 3  # the failed create gave its game back
                created = [await stub_a.CreateGame(create_request(), timeout=10) for _ in range(2)]
                async with http.post(games_url, json={"kind": "stimmvieh", "options": {"players": 3}}) as third:
                    assert third.status == 200
                    created_ids = {c.game_id for c in created} | {(await third.json())["gameId"]}
                assert len(created_ids) == 3
                reason, delay = await refused_create(stub_a)
                assert reason == "TOO_MANY_GAMES_CREATED"
                assert delay is not None and 0 < delay <= 0.5  # one game every half second
                left = creations.tokens("127.0.0.1")
                async with http.post(games_url, json={"kind": "stimmvieh", "options": {"players": 3}}) as over:
                    assert over.status == 429
                    assert int(over.headers["Retry-After"]) == 1  # whole seconds, rounded up
                    body = await over.json()
                infos = {d["@type"].rsplit(".", 1)[1]: d for d in body["details"]}
                assert infos["ErrorInfo"]["reason"] == "TOO_MANY_GAMES_CREATED"
                assert 0 < float(infos["RetryInfo"]["retryDelay"].rstrip("s")) <= 0.5
                assert "token" not in body["message"].lower()
                assert creations.tokens("127.0.0.1") >= left  # the refusals took nothing
                # Another address has a bucket of its own.
                other = await stub_b.CreateGame(create_request(), timeout=10)
                assert other.game_id not in created_ids
                assert creations.tokens(OTHER_ADDRESS) < 3
                await asyncio.sleep(delay + 0.05)  # the hint is enough for one more game
                assert (await stub_a.CreateGame(create_request(), timeout=10)).game_id

    run(scenario(), timeout_s=60)


def test_x_forwarded_for_counts_only_from_a_trusted_proxy(redis_server: EmbeddedRedis) -> None:
    """Without --trusted-proxy the header is ignored: two 'forwarded' addresses from one peer
    share its bucket. With the peer's range trusted (through `hustings serve`), each forwarded
    address has its own bucket, over gRPC metadata and the HTTP header alike; the last entry of
    the header counts, one that is not an address counts as the proxy itself, and IPv6
    addresses count by their /64."""
    http_port = free_port()
    with serve_process(
        "--redis-url", redis_server.url, "--create-burst", "1", "--http-address", f"127.0.0.1:{http_port}",
        "--trusted-proxy", "127.0.0.0/8", "--trusted-proxy", "fd00::/8",
    ) as (_, trusting_port):

        async def scenario() -> None:
            async with replica(redis_server.url, create_burst=1) as plain, replica(redis_server.url, create_burst=1) as second:
                async with (
                    grpc.aio.insecure_channel(f"127.0.0.1:{plain.port}") as channel,
                    grpc.aio.insecure_channel(f"127.0.0.1:{second.port}") as second_channel,
                ):
                    stub = game_service_pb2_grpc.GameServiceStub(channel)
                    await stub.CreateGame(create_request(), metadata=forwarded("203.0.113.1"), timeout=10)
                    assert (await refused_create(stub, forwarded("203.0.113.2")))[0] == "TOO_MANY_GAMES_CREATED"
                    assert len(plain.limits.creations) == 1 and plain.limits.creations.tokens("127.0.0.1") < 1
                    # Per replica: another replica of the same store has an allowance of its own.
                    await game_service_pb2_grpc.GameServiceStub(second_channel).CreateGame(create_request(), timeout=10)
            async with grpc.aio.insecure_channel(f"127.0.0.1:{trusting_port}") as channel, aiohttp.ClientSession() as http:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                await stub.CreateGame(create_request(), metadata=forwarded("203.0.113.1"), timeout=10)
                await stub.CreateGame(create_request(), metadata=forwarded("203.0.113.2"), timeout=10)
                # The caller wrote the first entry, the proxy appended the address it saw.
                refused = await refused_create(stub, forwarded("198.51.100.7, 203.0.113.1"))
                assert refused[0] == "TOO_MANY_GAMES_CREATED"
                await stub.CreateGame(create_request(), metadata=forwarded("not an address"), timeout=10)  # the proxy's own
                # An IPv6 client is its /64: another address in it shares the allowance, another /64 does not.
                await stub.CreateGame(create_request(), metadata=forwarded("2001:db8:1:2::5"), timeout=10)
                assert (await refused_create(stub, forwarded("2001:db8:1:2:ffff::9")))[0] == "TOO_MANY_GAMES_CREATED"
                await stub.CreateGame(create_request(), metadata=forwarded("2001:db8:1:3::5"), timeout=10)
                assert (await refused_create(stub))[0] == "TOO_MANY_GAMES_CREATED"  # the proxy's own, again
                url = f"http://127.0.0.1:{http_port}/v1/games"
                game = {"kind": "stimmvieh", "options": {"players": 3}}
                async with http.post(url, json=game, headers={"X-Forwarded-For": "203.0.113.3"}) as fresh:
                    assert fresh.status == 200
                async with http.post(url, json=game, headers={"X-Forwarded-For": "203.0.113.2"}) as spent:
                    assert spent.status == 429 and spent.headers["Retry-After"]

        run(scenario(), timeout_s=60)


def test_the_table_of_buckets_stays_bounded_and_forgets_only_full_buckets() -> None:
    """A flood of addresses never holds more than max_buckets buckets; a bucket untouched for a
    whole refill is dropped (it was full, as a new one is); a refused take changes nothing."""
    now = [1000.0]
    limit = CreationLimit(per_minute=60, burst=2, max_buckets=100, clock=lambda: now[0])
    for n in range(10_000):
        limit.take(f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}")
        assert len(limit) <= 100
    assert len(limit) == 100
    limit.take("192.0.2.1")
    limit.take("192.0.2.1")
    with pytest.raises(Exception) as refused:
        limit.take("192.0.2.1")
    assert getattr(refused.value, "reason", "") == "TOO_MANY_GAMES_CREATED"
    assert limit.tokens("192.0.2.1") == 0  # the refusal took nothing and gave nothing
    now[0] += 1.0  # one game back (one a second)
    assert limit.tokens("192.0.2.1") == pytest.approx(1.0)
    now[0] += limit.refill_s  # every bucket is full again: all of them go at the next take
    limit.take("192.0.2.2")
    assert len(limit) == 1
    assert limit.tokens("192.0.2.1") == 2  # forgotten, and as full as it would have been


def test_client_addresses_from_peers_and_forwarded_headers() -> None:
    """A client is an address without its port, in one spelling; an IPv6 client its /64."""
    assert grpc_peer_address("ipv4:198.51.100.7:50123") == "198.51.100.7"
    assert grpc_peer_address("ipv6:%5B::1%5D:50123") == "::1"
    assert grpc_peer_address("ipv6:[2001:db8::1]:443") == "2001:db8::1"
    assert grpc_peer_address("ipv6:%5B::ffff:192.0.2.9%5D:80") == "192.0.2.9"
    assert grpc_peer_address("unix:/run/hustings.sock") == "unix:/run/hustings.sock"
    assert forwarded_address(["198.51.100.1, 203.0.113.5"]) == "203.0.113.5"
    assert forwarded_address(["198.51.100.1", "203.0.113.6:4431"]) == "203.0.113.6"
    assert forwarded_address(["[2001:db8::2]:443"]) == "2001:db8::2"
    assert forwarded_address(["unknown"]) is None and forwarded_address([]) is None
    assert client_of("198.51.100.7") == "198.51.100.7"
    assert client_of("2001:db8:1:2:aa::5") == client_of("2001:db8:1:2::9") == "2001:db8:1:2::/64"
    assert client_of("::1") == "::/64" and client_of("unix:/run/hustings.sock") == "unix:/run/hustings.sock"
    # IPv4 clients through a translator into IPv6 (64:ff9b::/96): each its IPv4 address, not one /64.
    assert client_of("64:ff9b::c000:205") == client_of("64:ff9b::192.0.2.5") == "192.0.2.5"
    assert client_of("64:ff9b::198.51.100.7") == "198.51.100.7"
    assert client_of("64:ff9b:0:0:1::5") == "64:ff9b::/64"  # outside the /96: an IPv6 client as any
    with pytest.raises(ValueError):
        ClientAddresses(["10.0.0.0/33"])


def test_serve_refuses_a_trusted_proxy_that_is_not_an_address_range() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hustings.cli", "serve", "--trusted-proxy", "10.0.0.0/33"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "not an address range" in done.stderr


def test_serve_flags_default_to_the_limits_of_a_replica() -> None:
    """`hustings serve` without the flags runs with the README's figures, the library's defaults."""
    import argparse

    from hustings.cli import _parser
    from hustings.service import client_limits, limits

    (commands,) = [a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction)]
    serve = commands.choices["serve"].parse_args([])
    assert serve.max_calls_per_client == limits.DEFAULT_MAX_CALLS_PER_CLIENT == 512
    assert serve.creates_per_client_per_minute == client_limits.DEFAULT_CREATES_PER_MINUTE == 60
    assert serve.create_burst == client_limits.DEFAULT_CREATE_BURST == 120
    assert serve.trusted_proxy == []
    assert client_limits.DEFAULT_MAX_BUCKETS == 65_536
    assert client_limits.CreationLimit().refill_s == 120  # "two minutes" from empty to full


def test_a_client_that_does_not_wait_as_told_is_flooding_for_a_refill_and_one_that_waits_never() -> None:
    """``CallRate.flooding``: a client whose refused calls are hinted a whole refill ahead (more
    refused than a burst, faster than its rate) is flooding until a refill after the last of
    them; one that comes back when its hint says is never, however long it keeps calling."""
    now = [0.0]
    rate = CallRate(per_second=5, burst=10, clock=lambda: now[0])
    refused = 0
    for _ in range(10):
        rate.take("waits")
    for _ in range(50):  # always back when hinted
        try:
            rate.take("waits")
        except RetryLater as hinted:
            refused += 1
            now[0] += hinted.retry_after_s
    assert refused and not rate.flooding("waits")
    for _ in range(10):
        rate.take("floods")
    for count in range(1, 40):  # never waits
        with pytest.raises(RetryLater):
            rate.take("floods")
        if rate.flooding("floods"):
            break
    assert rate.flooding("floods") and count >= 10, count  # only once a burst of calls is refused
    now[0] += rate.refill_s * 0.99
    assert rate.flooding("floods")
    now[0] += rate.refill_s * 0.02
    assert not rate.flooding("floods") and not rate.flooding("waits")
