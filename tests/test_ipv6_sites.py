"""An IPv6 site (README, Limits: who a client is): a client is an IPv6 /64, and the /64s of one /48
together get ``--clients-per-ipv6-site`` clients' worth of each rate (calls, creations, new HTTP
connections), besides each one's own, and together hold no more streams and unread updates than
one address. Without it, one machine routed a /48 (any tunnel broker's free block) had 65,536
clients' allowances: as many games at once as 65,536 addresses."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from typing import Any, AsyncIterator

import aiohttp
import grpc
import pytest

from conftest import run
from hustings.service.client_limits import (
    DEFAULT_CLIENTS_PER_IPV6_SITE,
    CallRate,
    CreationLimit,
    RetryLater,
    client_of,
    site_of,
)
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import ReplicaConfig
from hustings.service.rest_connections import HttpSettings, connection_rate
from hustings.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc
from test_client_limits import details, replica

SITE = "2001:db8:1:"  # /64s 2001:db8:1:<n>::/64 of the site 2001:db8:1::/48


def member(n: int, host: int = 5) -> str:
    """An address in the ``n``-th /64 of ``SITE``."""
    return f"{SITE}{n:x}::{host:x}"


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def test_a_site_is_the_48_of_an_ipv6_client_and_nothing_else_has_one() -> None:
    assert site_of(client_of(member(2))) == "2001:db8:1::/48"
    assert site_of(client_of("2001:db8:1:ffff:1:2:3:4")) == "2001:db8:1::/48"
    assert site_of(client_of("2001:db8:2::1")) == "2001:db8:2::/48"
    assert site_of(client_of("203.0.113.7")) is None
    assert site_of(client_of("64:ff9b::cb00:7107")) is None  # NAT64: an IPv4 client
    assert site_of("unix:/run/hustings.sock") is None
    assert site_of("not an address/64") is None


def test_the_64s_of_a_site_share_its_creations_and_each_keeps_its_own() -> None:
    clock = Clock()
    limit = CreationLimit(per_minute=60, burst=2, clock=clock, sites=4)  # a site: 8 at once, 4 a second
    for n in range(4):
        limit.take(client_of(member(n)))
        limit.take(client_of(member(n)))
    with pytest.raises(RetryLater) as refused:
        limit.take(client_of(member(4)))  # a fresh /64, full on its own: its site is empty
    assert refused.value.reason == "TOO_MANY_GAMES_CREATED"
    assert refused.value.retry_after_s == pytest.approx(0.25)  # the site's next game: 4 a second
    assert limit.tokens(client_of(member(4))) == 0
    # Another site, and an IPv4 client, are not touched.
    limit.take(client_of("2001:db8:2::1"))
    limit.take(client_of("203.0.113.7"))
    # Each /64 keeps its own bucket within the site's: one spent /64 is refused when the site has room.
    limit.give_back(client_of(member(0)), 2)  # two games of the site come back with it
    limit.take(client_of(member(4)))
    with pytest.raises(RetryLater):
        limit.take(client_of(member(1)))  # its own bucket is empty
    clock.now += 0.25  # one game of the site back (4 a second): it has two
    limit.take(client_of(member(5)))
    limit.take(client_of(member(6)))
    with pytest.raises(RetryLater):
        limit.take(client_of(member(7)))


def test_a_refusal_by_the_site_takes_nothing_from_the_client() -> None:
    clock = Clock()
    limit = CreationLimit(per_minute=60, burst=2, clock=clock, sites=1)
    limit.take(client_of(member(0)), 2)
    for _ in range(3):
        with pytest.raises(RetryLater):
            limit.take(client_of(member(1)))
    assert limit.tokens(client_of(member(1))) == 0  # the site's
    clock.now += 2.0  # the site is full again, and so was member 1's own bucket all along
    limit.take(client_of(member(1)), 2)


def test_without_sites_every_64_is_a_client_of_its_own() -> None:
    limit = CreationLimit(per_minute=60, burst=2, clock=Clock(), sites=0)
    for n in range(1_000):
        limit.take(client_of(member(n)), 2)
    assert len(limit) == 1_000  # no bucket of the site


def test_a_charge_beyond_a_call_counts_towards_its_site_too() -> None:
    rate = CallRate(per_second=10, burst=10, clock=Clock(), sites=2)  # a site: 20 at once
    rate.charge(client_of(member(0)), 15)  # a long page: paid from the client's and the site's
    for _ in range(5):
        rate.take(client_of(member(1)))
    with pytest.raises(RetryLater) as refused:
        rate.take(client_of(member(2)))
    assert refused.value.reason == "CALL_RATE_EXCEEDED"


def test_new_http_connections_of_a_site_share_its_rate() -> None:
    calls = CallRate(per_second=10, burst=10, sites=3)
    rate = connection_rate(HttpSettings(), calls)
    assert rate is not None and rate.sites == 3
    rate._clock = Clock()  # held still: on a loaded machine the loop below took long enough for tokens to come back
    at_once = int(rate.burst) * 3
    admitted = sum(rate.admits(client_of(member(n))) for n in range(at_once + 50))
    assert admitted == at_once
    assert rate.admits(client_of("2001:db8:2::1"))
    explicit = connection_rate(HttpSettings(new_connections_per_second=5.0), calls)
    assert explicit is not None and explicit.sites == 3


def test_serve_takes_the_share_of_a_site_and_defaults_to_sixteen() -> None:
    from hustings.cli import _parser

    (commands,) = [a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction)]
    serve = commands.choices["serve"]
    assert serve.parse_args([]).clients_per_ipv6_site == DEFAULT_CLIENTS_PER_IPV6_SITE == 16
    assert serve.parse_args(["--clients-per-ipv6-site", "0"]).clients_per_ipv6_site == 0
    with pytest.raises(SystemExit):
        serve.parse_args(["--clients-per-ipv6-site", "-1"])
    assert ReplicaConfig(redis_url="redis://127.0.0.1:1").clients_per_ipv6_site == 16
    assert CallRate().sites == CreationLimit().sites == 16


def trusting_replica(redis_url: str, **config: object) -> Any:
    """A replica behind a "proxy" on loopback: its callers name their address in x-forwarded-for."""
    return replica(redis_url, trusted_proxies=("127.0.0.0/8",), **config)


def test_a_site_is_refused_past_its_share_over_grpc_and_rest(redis_server: EmbeddedRedis) -> None:
    """Four /64s of a site create their two games each; a fifth /64, with a full allowance of its
    own, is refused TOO_MANY_GAMES_CREATED with a retry hint on both faces, while another site and
    an IPv4 client create as before."""

    async def scenario() -> None:
        async with trusting_replica(redis_server.url, create_burst=2, creates_per_client_per_minute=0.6, clients_per_ipv6_site=4) as served:
            request = game_service_pb2.CreateGameRequest(kind="stimmvieh", options=game_pb2.GameOptions(players=3))
            async with grpc.aio.insecure_channel(f"127.0.0.1:{served.port}") as channel, aiohttp.ClientSession() as http:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                for n in range(4):
                    for _ in range(2):
                        await stub.CreateGame(request, metadata=(("x-forwarded-for", member(n)),), timeout=10)
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await stub.CreateGame(request, metadata=(("x-forwarded-for", member(4)),), timeout=10)
                assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                reason, delay = details(caught.value)
                assert reason == "TOO_MANY_GAMES_CREATED" and delay is not None and 0 < delay <= 30
                await stub.CreateGame(request, metadata=(("x-forwarded-for", "2001:db8:2::1"),), timeout=10)
                await stub.CreateGame(request, metadata=(("x-forwarded-for", "203.0.113.7"),), timeout=10)
                url = f"http://127.0.0.1:{served.http_port}/v1/games"
                body = {"kind": "stimmvieh", "options": {"players": 3}}
                async with http.post(url, json=body, headers={"X-Forwarded-For": member(9, host=1)}) as refused:
                    assert refused.status == 429 and int(refused.headers["Retry-After"]) >= 1
                    assert (await refused.json())["details"][0]["reason"] == "TOO_MANY_GAMES_CREATED"
                async with http.post(url, json=body, headers={"X-Forwarded-For": "2001:db8:3::1"}) as made:
                    assert made.status == 200

    run(scenario(), timeout_s=60)


def test_a_sites_calls_are_refused_past_its_share(redis_server: EmbeddedRedis) -> None:
    """The call rate alike: a site of two clients' worth of a burst of 3 answers 6 calls from any
    of its /64s, then refuses CALL_RATE_EXCEEDED; another site is answered."""

    async def scenario() -> None:
        async with trusting_replica(redis_server.url, call_burst=3, calls_per_client_per_second=0.5, clients_per_ipv6_site=2) as served:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{served.port}") as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                ask = game_service_pb2.ListGameKindsRequest()
                for n in range(6):
                    await stub.ListGameKinds(ask, metadata=(("x-forwarded-for", member(n)),), timeout=10)
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await stub.ListGameKinds(ask, metadata=(("x-forwarded-for", member(6)),), timeout=10)
                assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert details(caught.value)[0] == "CALL_RATE_EXCEEDED"
                await stub.ListGameKinds(ask, metadata=(("x-forwarded-for", "2001:db8:2::1"),), timeout=10)

    run(scenario(), timeout_s=60)



def refuse_over_the_site(rate: CallRate, members: int) -> int:
    """Ten calls from each of ``members`` /64s of ``SITE`` at one moment; how many were refused."""
    refusals = 0
    for n in range(members):
        for _ in range(10):
            try:
                rate.take(client_of(member(n)))
            except RetryLater:
                refusals += 1
    return refusals


def test_a_site_far_past_its_rate_is_flooding_whichever_64_calls() -> None:
    """More calls refused than the site's burst, faster than its rate, spread over /64s none of
    which is refused more than its own burst: every /64 of the site counts as flooding (the REST
    face closes their connections and resets new ones), a fresh one included; another site and
    an IPv4 client do not; and a refill later it is over."""
    clock = Clock()
    rate = CallRate(per_second=10, burst=10, clock=clock, sites=2)  # a site: 20 at once, 20 a second
    assert refuse_over_the_site(rate, 2) == 0  # the site's burst
    assert not rate.flooding(client_of(member(0)))
    assert refuse_over_the_site(rate, 8) == 80  # 8 /64s: 10 refused each, its own burst
    assert rate.flooding(client_of(member(0))) and rate.flooding(client_of(member(999)))
    assert not rate.flooding(client_of("2001:db8:2::1")) and not rate.flooding(client_of("203.0.113.7"))
    # Without the site, the same calls flood nobody: each /64 was within its own allowance.
    apart = CallRate(per_second=10, burst=10, clock=Clock(), sites=0)
    assert refuse_over_the_site(apart, 8) == 0
    assert not apart.flooding(client_of(member(0)))
    clock.now += rate.refill_s + 0.01
    assert not rate.flooding(client_of(member(0)))


# ---------------------------------------------------------------- what a site holds: streams, unread bytes


def test_the_64s_of_a_site_hold_no_more_streams_together_than_one_address() -> None:
    """Five /64s of one site each within their own cap of 2,000 held all 10,000 streams of a
    replica, and every other client was refused TOO_MANY_WATCHERS. Now a site's /64s together
    hold what one address may (here 4): a fifth stream from another /64 of it is refused
    TOO_MANY_STREAMS_FOR_ADDRESS, naming no address, counting nothing; another site, an IPv4
    client and, with sites off (``--clients-per-ipv6-site 0``), the same /64 are admitted; a
    stream closed gives the site its place back."""
    from contextlib import ExitStack

    from hustings.service.errors import ServiceError
    from hustings.service.limits import StreamLimits

    limits = StreamLimits(max_streams=100, max_per_client=50, max_per_seat=32, max_per_address=4)
    with ExitStack() as held:
        for n in range(4):
            held.enter_context(limits.hold(f"grpc:{n}", None, client_of(member(n))))
        for attempt in (
            lambda: limits.check("grpc:9", None, client_of(member(9))),
            lambda: limits.hold("grpc:9", None, client_of(member(9))).__enter__(),
        ):
            with pytest.raises(ServiceError) as caught:
                attempt()
            assert caught.value.reason == "TOO_MANY_STREAMS_FOR_ADDRESS"
            assert "2001:db8" not in caught.value.message and "/48" in caught.value.message
            assert limits.open == 4 and limits.held_from(client_of(member(9))) == 0
        with limits.hold("grpc:x", None, client_of("2001:db8:2::1")), limits.hold("grpc:y", None, "203.0.113.7"):
            assert limits.open == 6
        limits.sites = False
        with limits.hold("grpc:9", None, client_of(member(9))):
            assert limits.open == 5
        limits.sites = True
        held.close()
    assert limits.open == 0
    with limits.hold("grpc:9", None, client_of(member(9))):  # the site's places are back
        assert limits.open == 1


def test_the_64_of_a_site_holding_the_most_gives_way_to_another_64_of_it() -> None:
    """One /64 holding its site's every place (its address's cap, 4 here) kept every other /64
    of the /48 (a tunnel broker's or a mobile network's customers) from any stream. Now, at the
    site's cap, the /64 holding the most, when it holds more than one more than the newcomer,
    gives way: its oldest stream that follows its game is set aside, and told so (``gave_way``,
    woken, no longer counted in the site) once the newcomer follows its game; a newcomer that
    ends before (refused on its way) gives it back. A stream still catching up is never asked;
    /64s holding as many never take turns; the pre-check (``check``) asks nothing of anyone."""
    import asyncio
    from contextlib import ExitStack

    from hustings.service.errors import ServiceError
    from hustings.service.limits import StreamLimits

    limits = StreamLimits(max_streams=100, max_per_client=50, max_per_seat=32, max_per_address=4)
    heavy, light, third = client_of(member(0)), client_of(member(1)), client_of(member(2))
    site = "2001:db8:1::/48"

    def newcomer(streams: ExitStack, client: str, address: str) -> None:
        limits.follow(streams.enter_context(limits.hold(client, None, address)), asyncio.Event())

    with ExitStack() as streams:
        held = [streams.enter_context(limits.hold(f"grpc:h{n}", None, heavy)) for n in range(4)]
        with pytest.raises(ServiceError):  # none of them follows its game yet: none may give way
            limits.hold("grpc:l0", None, light).__enter__()
        wakes = [asyncio.Event() for _ in held]
        for stream, wake in zip(held, wakes):
            limits.follow(stream, wake)
        limits.check("grpc:l0", None, light)  # room can be made: not refused, and nobody asked
        with limits.hold("grpc:l0", None, light):  # refused on its way, before it follows
            assert not any(stream.gave_way for stream in held)
        assert not any(stream.gave_way for stream in held) and limits.held_in_site(site) == 4  # given back
        newcomer(streams, "grpc:l0", light)
        assert [stream.gave_way for stream in held] == [True, False, False, False]  # the oldest
        assert wakes[0].is_set() and not wakes[1].is_set()
        assert limits.open == 5 and limits.held_from(light) == 1 and limits.held_in_site(site) == 4  # the site's cap holds
        newcomer(streams, "grpc:t0", third)  # 3 against 0: another gives way
        assert [stream.gave_way for stream in held] == [True, True, False, False] and limits.held_in_site(site) == 4
        # heavy now holds 2 in the site, light 1: light takes no more (equals within one), nor third
        with pytest.raises(ServiceError):
            limits.hold("grpc:l1", None, light).__enter__()
    assert limits.open == 0 and limits.held_in_site(site) == 0
    # /64s holding as many do not take turns: two each, and a third asks from one of them.
    with ExitStack() as streams:
        for address in (heavy, heavy, light, light):
            newcomer(streams, f"grpc:{address}", address)
        with pytest.raises(ServiceError) as caught:
            limits.hold("grpc:x", None, heavy).__enter__()
        assert caught.value.reason == "TOO_MANY_STREAMS_FOR_ADDRESS" and limits.open == 4


def test_the_64s_of_a_site_hold_no_more_unread_bytes_together_than_four_addresses() -> None:
    """Sixteen /64s of a site within their own 16 MiB of unread updates filled the replica's
    256 MiB, and then any other client's large update ended its stream; at one address's cap for
    the site, one /64 whose streams read nothing ended every neighbour's. Now the site's /64s
    together hold four addresses' worth: one /64 at its own cap leaves its neighbours room, an
    update that would take the site past four is refused TOO_MANY_UNREAD_BYTES_FOR_ADDRESS and
    counts nothing, while another site is written to."""
    from contextlib import ExitStack

    from hustings.service.errors import ServiceError
    from hustings.service.unread import COUNTED_BYTES, SITE_SHARE, UnreadBytes

    assert SITE_SHARE == 4
    unread = UnreadBytes(max_bytes=100 * COUNTED_BYTES, max_per_address=3 * COUNTED_BYTES)
    with ExitStack() as writes:
        writes.enter_context(unread.writing(client_of(member(0)), 3 * COUNTED_BYTES))  # at its own cap
        writes.enter_context(unread.writing(client_of(member(1)), 3 * COUNTED_BYTES))  # a neighbour has room
        writes.enter_context(unread.writing(client_of(member(2)), 3 * COUNTED_BYTES))
        writes.enter_context(unread.writing(client_of(member(3)), 2 * COUNTED_BYTES))  # the site holds 11 of 12
        with pytest.raises(ServiceError) as caught:
            with unread.writing(client_of(member(4)), 2 * COUNTED_BYTES):
                pass
        assert caught.value.reason == "TOO_MANY_UNREAD_BYTES_FOR_ADDRESS" and "2001:db8" not in caught.value.message
        assert unread.held == 11 * COUNTED_BYTES and unread.held_by(client_of(member(4))) == 0
        with unread.writing(client_of(member(4)), COUNTED_BYTES), unread.writing(client_of("2001:db8:2::1"), 3 * COUNTED_BYTES):
            assert unread.held == 15 * COUNTED_BYTES
        unread.sites = False
        with unread.writing(client_of(member(4)), 2 * COUNTED_BYTES):
            assert unread.held == 13 * COUNTED_BYTES
        unread.sites = True
    assert unread.held == 0


@contextlib.asynccontextmanager
async def _a_game_behind_a_proxy(redis_url: str, **caps: Any) -> AsyncIterator[tuple[Any, str, str, aiohttp.ClientSession]]:
    """A replica trusting loopback as its proxy (``caps``: more ReplicaConfig fields) with a game
    of three players: (a GameService stub on a channel of its own, the game's id, its event
    stream's URL, an HTTP session)."""
    from hustings.client import Client
    from service_helpers import new_game
    from test_watchers import own_channel

    async with trusting_replica(redis_url, **caps) as served:
        address = f"127.0.0.1:{served.port}"
        async with Client(address) as setup, own_channel(address) as proxy, aiohttp.ClientSession() as http:
            game_id = (await new_game(setup, 3))[0].game_id
            url = f"http://127.0.0.1:{served.http_port}/v1/games/{game_id}:watch?fromVersion=0"
            yield game_service_pb2_grpc.GameServiceStub(proxy), game_id, url, http


def _forwarded(client: str) -> tuple[tuple[str, str], ...]:
    return (("x-forwarded-for", client),)


def test_a_sites_streams_are_refused_past_one_address_s_on_both_faces(redis_server: EmbeddedRedis) -> None:
    """Behind a trusted proxy, with two streams per address and room for 100 on the replica: two
    /64s of one site hold two streams between them (one gRPC, one event stream); a third from a
    third /64 is refused TOO_MANY_STREAMS_FOR_ADDRESS on either face (a 429 over REST), while
    another site and an IPv4 client stream. With ``clients_per_ipv6_site=0`` (no limits by site)
    the third /64 streams."""
    from test_stream_address_limits import Stream, opened, refused

    async def scenario(sites: int) -> None:
        caps = {"max_streams_per_address": 2, "max_watchers": 100, "clients_per_ipv6_site": sites}
        async with _a_game_behind_a_proxy(redis_server.url, **caps) as (stub, game_id, url, http):
            held = [await opened(Stream(stub, game_id, _forwarded(member(0))))]
            async with http.get(url, headers={"X-Forwarded-For": member(1)}) as event_stream:
                assert event_stream.status == 200
                await asyncio.wait_for(event_stream.content.readline(), 10)
                third = Stream(stub, game_id, _forwarded(member(2)))
                if sites:
                    assert await refused(third) == "TOO_MANY_STREAMS_FOR_ADDRESS"
                    async with http.get(url, headers={"X-Forwarded-For": member(3)}) as over:
                        assert over.status == 429
                        assert (await over.json())["details"][0]["reason"] == "TOO_MANY_STREAMS_FOR_ADDRESS"
                else:
                    held.append(await opened(third))
                held.append(await opened(Stream(stub, game_id, _forwarded("2001:db8:2::1"))))
                held.append(await opened(Stream(stub, game_id, _forwarded("203.0.113.7"))))
                assert [s.error for s in held if s.error] == []
            for stream in held:
                await stream.close()

    run(scenario(4), timeout_s=60)
    run(scenario(0), timeout_s=60)


def test_a_64_holding_its_sites_streams_gives_way_to_a_neighbour_on_both_faces(redis_server: EmbeddedRedis) -> None:
    """Behind a trusted proxy, two streams per address: one /64 holds both of its site's; a
    neighbouring /64 of the /48 opens an event stream and is served, while the first /64's
    oldest stream ends RESOURCE_EXHAUSTED TOO_MANY_STREAMS_FOR_ADDRESS (naming no address).
    Then they hold one each, and neither gives way to the other: a second gRPC stream of the
    neighbour's, and one more of the first /64's, are refused."""
    from test_stream_address_limits import Stream, opened, refused

    async def scenario() -> None:
        caps = {"max_streams_per_address": 2, "max_watchers": 100}
        async with _a_game_behind_a_proxy(redis_server.url, **caps) as (stub, game_id, url, http):
            heavy = [await opened(Stream(stub, game_id, _forwarded(member(0)))) for _ in range(2)]
            await asyncio.sleep(0.2)  # both follow their game now
            async with http.get(url, headers={"X-Forwarded-For": member(1)}) as event_stream:
                assert event_stream.status == 200
                await asyncio.wait_for(event_stream.content.readline(), 10)
                await asyncio.wait_for(heavy[0].task, 10)  # it ends once the event stream follows its game
                assert await refused(heavy[0]) == "TOO_MANY_STREAMS_FOR_ADDRESS"
                assert "2001:db8" not in (heavy[0].error.details() or "")  # type: ignore[union-attr]
                neighbour = Stream(stub, game_id, _forwarded(member(1)))
                assert await refused(neighbour) == "TOO_MANY_STREAMS_FOR_ADDRESS"
                again = Stream(stub, game_id, _forwarded(member(0)))
                assert await refused(again) == "TOO_MANY_STREAMS_FOR_ADDRESS"
                assert heavy[1].error is None and len(heavy[1].versions) >= 1
            for stream in (*heavy, neighbour, again):
                await stream.close()

    run(scenario(), timeout_s=60)
