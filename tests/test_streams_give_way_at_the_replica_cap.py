"""At a replica's cap of streams (``--max-watchers``), the client address holding the most gives
way to one holding fewer, as the /64s of one IPv6 site already did at their site's cap.

Five addresses, each within its own cap of 2,000, held all 10,000 streams of a replica, and every
other client, a player's stream of its own game included, was refused TOO_MANY_WATCHERS for as
long as they held them. Now the oldest stream (following its game) of the address holding the
most, if that address holds more than one more than the newcomer, ends TOO_MANY_WATCHERS, and
the newcomer is served; addresses holding as many never take turns."""

from __future__ import annotations

import asyncio
import json
from contextlib import AsyncExitStack, ExitStack
from typing import Any

import pytest

from conftest import run
from service_helpers import replica_and_client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.errors import ServiceError
from hustings.service.limits import StreamLimits

HEAVY, LIGHT, NEWCOMER = "127.0.0.41", "127.0.0.42", "127.0.0.43"  # Linux answers on all of 127.0.0.0/8
WAIT_S = 10.0
MAX_LINES = 200  # lines of one event stream read, at most


def test_the_address_holding_the_most_gives_way_at_the_replica_cap() -> None:
    limits = StreamLimits(max_streams=4, max_per_client=50, max_per_seat=32, max_per_address=10)

    def newcomer(streams: ExitStack, client: str, address: str) -> Any:
        held = streams.enter_context(limits.hold(client, None, address))
        limits.follow(held, asyncio.Event())
        return held

    with ExitStack() as streams:
        heavy = [newcomer(streams, f"grpc:h{n}", HEAVY) for n in range(3)]
        light = newcomer(streams, "grpc:l0", LIGHT)
        limits.check("grpc:n0", None, NEWCOMER)  # room can be made: not refused, and nobody asked
        assert not any(stream.gave_way for stream in heavy)
        newcomer(streams, "grpc:n0", NEWCOMER)
        assert [stream.gave_way for stream in heavy] == [True, False, False]  # the heaviest's oldest
        assert heavy[0].to_replica and heavy[0].wake.is_set() and not light.gave_way
        # HEAVY holds 2 counted, LIGHT 1, NEWCOMER 1: LIGHT asks again, HEAVY holds only one more: refused.
        with pytest.raises(ServiceError) as caught:
            limits.hold("grpc:l1", None, LIGHT).__enter__()
        assert caught.value.reason == "TOO_MANY_WATCHERS"
        # A fresh address (0) takes from HEAVY again (2 against 0).
        newcomer(streams, "grpc:x0", "127.0.0.44")
        assert [stream.gave_way for stream in heavy] == [True, True, False]
    assert limits.open == 0
    # Addresses holding as many do not take turns: two each, full, and one of them asks in vain.
    with ExitStack() as streams:
        for address in (HEAVY, HEAVY, LIGHT, LIGHT):
            newcomer(streams, f"grpc:{address}", address)
        with pytest.raises(ServiceError) as caught:
            limits.hold("grpc:x", None, HEAVY).__enter__()
        assert caught.value.reason == "TOO_MANY_WATCHERS" and limits.open == 4


async def _first_event(response: Any) -> str:
    """The first event's name of an event stream ("message" when unnamed), data lines skipped."""
    async with asyncio.timeout(WAIT_S):
        for _ in range(MAX_LINES):
            line = (await response.content.readline()).decode().rstrip("\n")
            if line.startswith("event:"):
                return line.split(":", 1)[1].strip()
            if line.startswith("data:"):
                return "message"
    raise AssertionError("no event within the stream's first lines")


async def _error_of(response: Any) -> dict[str, Any]:
    """The data of the error event that ends an event stream."""
    async with asyncio.timeout(WAIT_S):
        for _ in range(MAX_LINES):
            line = (await response.content.readline()).decode().rstrip("\n")
            if line == "event: error":
                data = (await response.content.readline()).decode()
                return dict(json.loads(data.split(":", 1)[1]))
            if not line and response.content.at_eof():
                break
    raise AssertionError("the stream did not end with an error event")


def test_a_players_stream_is_served_on_a_replica_full_of_someone_elses(redis_server: EmbeddedRedis) -> None:
    import aiohttp

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, http_address="127.0.0.1:0", max_watchers=4) as (replica, client):
            game = await client.create_game("stimmvieh", 3)
            seat = await client.join(game.game_id, "Ada")
            url = f"http://127.0.0.1:{replica.http_port}/v1/games/{game.game_id}:watch"
            async with AsyncExitStack() as stack:

                async def session(source: str) -> aiohttp.ClientSession:
                    connector = aiohttp.TCPConnector(local_addr=(source, 0), limit=0)
                    return await stack.enter_async_context(aiohttp.ClientSession(connector=connector))

                heavy, light, player = await session(HEAVY), await session(LIGHT), await session(NEWCOMER)
                held = []
                for http in (heavy, heavy, heavy, light):
                    response = await stack.enter_async_context(http.get(url))
                    assert response.status == 200 and await _first_event(response) == "message"
                    held.append(response)
                async with heavy.get(url) as refused:  # the heaviest itself: nobody holds more
                    assert refused.status == 429
                    assert (await refused.json())["details"][0]["reason"] == "TOO_MANY_WATCHERS"
                mine = await stack.enter_async_context(player.get(url, headers={"Authorization": f"Bearer {seat.token}"}))
                assert mine.status == 200 and await _first_event(mine) == "message"
                ended = await _error_of(held[0])  # the heaviest address's oldest stream gave way
                assert ended["details"][0]["reason"] == "TOO_MANY_WATCHERS" and "gave way" in ended["message"]
                assert replica.host.watchers.limits.held_from(HEAVY) <= 3

    run(scenario(), timeout_s=60)


def test_newcomers_arriving_together_take_no_more_than_one_at_a_time_would() -> None:
    """Streams set aside for newcomers that have not followed their games yet still counted for
    their address, so newcomers arriving together took every stream of the heaviest (3 of 3 here,
    where one by one they take 2). And a spectator's stream gives way before a player's."""
    limits = StreamLimits(max_streams=4, max_per_client=50, max_per_seat=32, max_per_address=10)
    with ExitStack() as streams:
        heavy = []
        for n, token in enumerate(("seat-token-a", None, None)):  # the oldest is a player's
            held = streams.enter_context(limits.hold(f"grpc:h{n}", token, HEAVY))
            limits.follow(held, asyncio.Event())
            heavy.append(held)
        limits.follow(streams.enter_context(limits.hold("grpc:l0", None, LIGHT)), asyncio.Event())
        arriving = []
        for n in range(3):  # three newcomers, none following its game yet
            try:
                arriving.append(streams.enter_context(limits.hold(f"grpc:n{n}", None, f"127.0.0.{50 + n}")))
            except ServiceError as refused:
                assert refused.reason == "TOO_MANY_WATCHERS"
        assert len(arriving) == 2  # HEAVY 3 against 0: one, then 2 against 0: one more, then 1: none
        assert [h.aside for h in heavy] == [False, True, True]  # the spectators', not the player's
        for held in arriving:
            limits.follow(held, asyncio.Event())
        assert [h.gave_way for h in heavy] == [False, True, True]


def test_at_the_replica_cap_the_site_holding_the_most_gives_way() -> None:
    """Compared address by address, five IPv6 sites holding one stream on each of their /64s
    filled a replica, and no /64 held more than a newcomer: every player's stream was refused
    again. At the replica's cap the /64s of a site count together: the site holding the most
    gives way (its /64 holding the most first, its spectators before its players), an IPv4
    address counting alone; sites holding as many do not take turns."""
    from hustings.service.client_limits import client_of

    def member(site: int, n: int) -> str:
        return client_of(f"2001:db8:{site:x}:{n:x}::5")

    limits = StreamLimits(max_streams=8, max_per_client=50, max_per_seat=32, max_per_address=10)
    with ExitStack() as streams:
        held = {}
        for site in (1, 2):
            for n in range(4):  # one stream on each of four /64s of two sites
                stream = streams.enter_context(limits.hold(f"grpc:{site}:{n}", None, member(site, n)))
                limits.follow(stream, asyncio.Event())
                held[(site, n)] = stream
        arriving = streams.enter_context(limits.hold("grpc:player", "seat-token", "203.0.113.7"))  # IPv4: counts alone
        limits.follow(arriving, asyncio.Event())
        assert sum(stream.gave_way for stream in held.values()) == 1  # 4 against 0
        # Now 3 against 4 (the first site's that did not give way) and 1: one from the second site.
        second = streams.enter_context(limits.hold("grpc:other", None, "203.0.113.8"))
        limits.follow(second, asyncio.Event())
        assert [sum(held[(site, n)].gave_way for n in range(4)) for site in (1, 2)] == [1, 1]
        with pytest.raises(ServiceError) as caught:  # a /64 of a site holding 3 asks: 3 against 3
            limits.hold("grpc:again", None, member(1, 9)).__enter__()
        assert caught.value.reason == "TOO_MANY_WATCHERS"
    assert limits.open == 0
