"""Proxies one after another (README, Limits: who a client is): behind a CDN in front of a load
balancer, each trusted, a request's ``x-forwarded-for`` reads ``client, cdn-edge``; the client is
the last address in it that is not a trusted proxy's, not the CDN's edge (which would make every
caller through one edge one client). An entry that is not an address counts as the trusted proxy
that passed it on, and the walk back goes through at most ``MAX_FORWARDED_HOPS`` proxies."""

from __future__ import annotations

from typing import Any

import aiohttp
import grpc

from conftest import run
from hustings.service.client_limits import MAX_FORWARDED_HOPS
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc
from test_client_limits import details, replica

CDN = "198.51.100.0/24"  # the CDN's edges, trusted beside the load balancer (loopback here)


def behind_two_proxies(redis_url: str) -> Any:
    """A replica that trusts loopback (its load balancer) and ``CDN``, one game per client."""
    return replica(redis_url, trusted_proxies=("127.0.0.0/8", CDN), create_burst=1)


def test_the_client_is_the_last_forwarded_address_of_no_trusted_proxy(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with behind_two_proxies(redis_server.url) as served, aiohttp.ClientSession() as http:
            url = f"http://127.0.0.1:{served.http_port}/v1/games"
            body = {"kind": "stimmvieh", "options": {"players": 3}}

            async def create(forwarded: str) -> int:
                async with http.post(url, json=body, headers={"X-Forwarded-For": forwarded}) as answer:
                    return answer.status

            assert await create("203.0.113.1, 198.51.100.7") == 200
            # The same caller through another edge is the same client: its one game is spent.
            assert await create("203.0.113.1, 198.51.100.8") == 429
            # Another caller through the first edge is another client.
            assert await create("203.0.113.2, 198.51.100.7") == 200
            # Three proxies: the caller's own proxy is not trusted, so it is the client.
            assert await create("203.0.113.1, 192.0.2.50, 198.51.100.9") == 200
            assert await create("203.0.113.9, 192.0.2.50, 198.51.100.9") == 429
            # An entry that is not an address counts as the trusted proxy that passed it on.
            assert await create("unknown, 198.51.100.20") == 200
            assert await create("198.51.100.20") == 429
            # A request of the CDN's own (nothing before it) counts as that edge.
            assert await create("198.51.100.30") == 200
            assert await create("garbage, 198.51.100.30") == 429
            # The walk back ends after MAX_FORWARDED_HOPS proxies: what a caller wrote before
            # them is not read, and the last proxy looked at counts.
            hops = [f"198.51.100.{100 + n}" for n in range(MAX_FORWARDED_HOPS)]
            assert await create(", ".join(["203.0.113.40", *hops])) == 200
            assert await create(", ".join(["203.0.113.41", *hops])) == 429
            assert await create(hops[-MAX_FORWARDED_HOPS]) == 429  # the one that counted

    run(scenario(), timeout_s=60)


def test_grpc_metadata_is_read_back_alike(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with behind_two_proxies(redis_server.url) as served:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{served.port}") as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                request = game_service_pb2.CreateGameRequest(kind="stimmvieh", options=game_pb2.GameOptions(players=3))
                await stub.CreateGame(request, metadata=(("x-forwarded-for", "203.0.113.3, 198.51.100.7"),), timeout=10)
                try:
                    await stub.CreateGame(request, metadata=(("x-forwarded-for", "203.0.113.3, 198.51.100.8"),), timeout=10)
                except grpc.aio.AioRpcError as error:
                    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                    assert details(error)[0] == "TOO_MANY_GAMES_CREATED"
                else:
                    raise AssertionError("the same caller through another edge created a second game")
                await stub.CreateGame(request, metadata=(("x-forwarded-for", "203.0.113.4, 198.51.100.7"),), timeout=10)

    run(scenario(), timeout_s=60)
