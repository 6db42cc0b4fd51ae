"""IPv6 sites against a real replica and a real Redis: what one /64 of a site, past its own call
rate, does to the other /64s of its /48."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from conftest import run
from hustings.service.client_limits import client_of
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_service_pb2, game_service_pb2_grpc
from test_client_limits import details, replica

SITE = "2001:db8:7:"  # /64s 2001:db8:7:<n>::/64 of the site 2001:db8:7::/48
ATTACKER = f"{SITE}0::5"
NEIGHBOUR = f"{SITE}1::5"  # another /64 (another household) of the same /48
REFUSED_CALLS = 40  # more than a site's worth of hints: 16 x 1 s a refill of 2 s, at 1/16 s each


def site_replica(redis_url: str) -> Any:
    """A replica behind a "proxy" on loopback (callers name their address in x-forwarded-for),
    a client allowed 1 call a second, 2 at once; a site 16 clients' worth (16 a second, 32 at once)."""
    return replica(
        redis_url, trusted_proxies=("127.0.0.0/8",), calls_per_client_per_second=1.0, call_burst=2, clients_per_ipv6_site=16
    )


async def refused_by_its_own_rate(stub: game_service_pb2_grpc.GameServiceStub, address: str) -> int:
    """``address`` spends its own burst, then keeps calling without waiting: how many were refused."""
    ask = game_service_pb2.ListGameKindsRequest()
    refused = 0
    for _ in range(2 + REFUSED_CALLS):  # bounded: a few ms a call on loopback
        try:
            await stub.ListGameKinds(ask, metadata=(("x-forwarded-for", address),), timeout=10)
        except grpc.aio.AioRpcError as error:
            assert details(error)[0] == "CALL_RATE_EXCEEDED"
            refused += 1
    return refused


def test_one_64_over_its_own_rate_does_not_make_its_neighbours_flooding(redis_server: EmbeddedRedis) -> None:
    """One /64 of a site that keeps calling past its own rate is flooding itself; the site has
    spent 2 of its 32 calls, and another /64 of it (a neighbour that has made no call) is
    answered, so neither the site nor the neighbour is far past its rate: the REST face must
    not reset the neighbour's new connections nor close its connection on a 429."""

    async def scenario() -> None:
        async with site_replica(redis_server.url) as served:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{served.port}") as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                assert await refused_by_its_own_rate(stub, ATTACKER) >= REFUSED_CALLS - 1
                limits = served._parts["limits"]
                gate = served._parts["rest"].gate
                assert limits.flooding(client_of(ATTACKER))  # it is, by its own rate
                assert not gate.accepts(ATTACKER)
                # The site's bucket has all but two of its calls: a neighbour is answered.
                await stub.ListGameKinds(
                    game_service_pb2.ListGameKindsRequest(), metadata=(("x-forwarded-for", NEIGHBOUR),), timeout=10
                )
                assert not limits.flooding(client_of(NEIGHBOUR)), "the neighbour counts as flooding"
                assert gate.accepts(NEIGHBOUR), "a connection of the neighbour's, as accepted, is reset"

    run(scenario(), timeout_s=60)


def test_a_neighbours_refusal_is_hinted_its_own_next_call(redis_server: EmbeddedRedis) -> None:
    """Beside the /64 above, a neighbour that spends its own burst of 2 is refused with the hint
    of its own next call (1 s: one a second), the site having room; not the last slot of a
    refill (2 s) that the other /64's refusals booked in the site's name."""

    async def scenario() -> None:
        async with site_replica(redis_server.url) as served:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{served.port}") as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                assert await refused_by_its_own_rate(stub, ATTACKER) >= REFUSED_CALLS - 1
                ask = game_service_pb2.ListGameKindsRequest()
                neighbour = (("x-forwarded-for", NEIGHBOUR),)
                for _ in range(2):
                    await stub.ListGameKinds(ask, metadata=neighbour, timeout=10)
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await stub.ListGameKinds(ask, metadata=neighbour, timeout=10)
                reason, delay = details(caught.value)
                assert reason == "CALL_RATE_EXCEEDED" and delay is not None
                assert delay <= 1.05, f"the neighbour is told to wait {delay} s for its own next call, 1 s away"

    run(scenario(), timeout_s=60)
