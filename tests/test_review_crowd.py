"""What one client, or a crowd behind one address, can make a replica spend for everybody else
(README, Many replicas: Limits): each test plays that client against real replicas (real Redis,
real gRPC and HTTP on loopback) and checks that the cost is bounded and counted to the client.

The long game is a Spin Doctors table whose seats use every side move they are allowed (hand-overs
and deal offers between decisions), so that its log grows as fast as the rules let it; it is made
through a replica with no rate of calls, so that only the calls under test spend a limited
replica's allowance.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from typing import Any, AsyncIterator, Callable

import aiohttp
import grpc
import pytest
import redis.asyncio
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from conftest import run
from hustings.client import ONE_ATTEMPT, Client, HustingsError, Joined
from hustings.service import seats
from hustings.service.client_limits import CallRate, RetryLater
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.limits import STEPS_PER_CALL
from hustings.service.replica import SOLE_CLIENT, Replica
from hustings.service.store import game_key, log_key
from hustings.service.unread import COUNTED_BYTES
from hustings.service.watch import LARGE_UPDATE_BYTES
from hustings.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc
from test_client_limits import OTHER_ADDRESS, relay_from, replica

LONG_GAME_STEPS = 450  # past four calls' worth of steps (STEPS_PER_CALL) from version 0
MAX_SETUP_CALLS = 4000
SIDE_MOVES = frozenset({"hand_budget", "offer_deal", "withdraw_offer", "decline_offer"})


def _side_move(move: game_pb2.Move) -> bool:
    return move.WhichOneof("game") == "spin_doctors" and move.spin_doctors.WhichOneof("kind") in SIDE_MOVES


async def long_game(client: Client, steps: int = LONG_GAME_STEPS, seed: int = 26) -> tuple[str, list[Joined]]:
    """A three-seat Spin Doctors game played to at least ``steps`` versions, every seat making
    its side moves between decisions (bounded by MAX_SETUP_CALLS calls)."""
    rng = random.Random(seed)
    game_id = (await client.create_game("spin_doctors", 3)).game_id
    seats = [await client.join(game_id, f"Seat {n}") for n in range(3)]
    calls = 0
    while calls < MAX_SETUP_CALLS:
        for seat in seats:
            mine = await client.view(game_id, seat.token)
            calls += 1
            side = [m for m in mine.legal_moves if _side_move(m)]
            if side:
                await client.move(game_id, seat.token, rng.choice(side), expected_version=mine.version)
                calls += 1
        view = await client.view(game_id)
        if view.version >= steps or view.status == game_pb2.GAME_STATUS_FINISHED:
            return game_id, seats
        seat = seats[min(view.to_act)]
        mine = await client.view(game_id, seat.token)
        decisions = [m for m in mine.legal_moves if not _side_move(m)] or list(mine.legal_moves)
        with contextlib.suppress(HustingsError):  # a side move of another seat may have come first
            await client.move(game_id, seat.token, rng.choice(decisions), expected_version=mine.version)
        calls += 3
    raise AssertionError(f"the game did not reach {steps} steps within {MAX_SETUP_CALLS} calls")


@contextlib.asynccontextmanager
async def limited_with_long_game(
    redis_url: str, steps: int = LONG_GAME_STEPS, **config: object
) -> AsyncIterator[tuple[Replica, str, int]]:
    """A replica with ``config`` (its rate of calls, say) and a game of at least ``steps`` steps
    made through another replica of the same store that has no limits; yields (limited replica,
    game id, version)."""
    async with replica(redis_url, **config) as limited, replica(redis_url, **SOLE_CLIENT) as free:
        async with Client(f"127.0.0.1:{free.port}") as helper:
            game_id, _seats = await long_game(helper, steps)
            version = (await helper.view(game_id)).version
        yield limited, game_id, version


async def _first_update(stub: game_service_pb2_grpc.GameServiceStub, game_id: str, from_version: int) -> game_service_pb2.WatchGameResponse:
    call = stub.WatchGame(game_service_pb2.WatchGameRequest(game_id=game_id, from_version=from_version))
    try:
        async for update in call:
            return update
        raise AssertionError("the stream ended without an update")
    finally:
        call.cancel()


def _reason(error: grpc.aio.AioRpcError) -> str:
    return HustingsError.from_rpc_error(error).reason


def _call_reason(status: status_pb2.Status | None) -> str:
    """The ErrorInfo reason of a call's rich status."""
    assert status is not None, "the call ended without a rich status"
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            return info.reason
    raise AssertionError("the status carries no ErrorInfo")


def test_a_watch_caught_up_from_version_0_counts_towards_the_rate_of_calls(redis_server: EmbeddedRedis) -> None:
    """A WatchGame from version 0 of a long game reads, filters and sends every step (21 ms of a
    replica's time for 2,527 steps, two dozen GetViews' worth). Opening such streams cost an
    address nothing of its rate of calls, so one address could spend a replica's time on them
    without limit. Its catch-up now counts one call per STEPS_PER_CALL steps: with a burst of 12
    and a 450-step game, three opens from version 0 pass and the next is CALL_RATE_EXCEEDED, over
    gRPC in the stream and over REST as a plain 429 before any event. Opening any stream counts
    one call, as a unary call does, so a stream resumed one version back (the usual reconnect) is
    refused too while the address has no call left."""

    async def scenario() -> None:
        rate = {"calls_per_client_per_second": 0.2, "call_burst": 12}
        async with limited_with_long_game(redis_server.url, **rate) as (limited, game_id, version):
            assert version >= LONG_GAME_STEPS and version // STEPS_PER_CALL == 4
            async with grpc.aio.insecure_channel(f"127.0.0.1:{limited.port}") as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                for _ in range(3):
                    update = await _first_update(stub, game_id, 0)
                    assert len(update.entries) == update.version >= version
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await _first_update(stub, game_id, 0)
                assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert _reason(refused.value) == "CALL_RATE_EXCEEDED"
                with pytest.raises(grpc.aio.AioRpcError) as resumed:
                    await _first_update(stub, game_id, version - 1)
                assert _reason(resumed.value) == "CALL_RATE_EXCEEDED"
            async with aiohttp.ClientSession() as http:
                url = f"http://127.0.0.1:{limited.http_port}/v1/games/{game_id}:watch?fromVersion=0"
                async with http.get(url, timeout=aiohttp.ClientTimeout(total=10)) as answer:
                    assert answer.status == 429
                    assert "CALL_RATE_EXCEEDED" in await answer.text()
                    assert answer.headers.get("Retry-After")

    run(scenario(), timeout_s=90)


def test_a_long_history_page_counts_towards_the_rate_of_calls(redis_server: EmbeddedRedis) -> None:
    """A GetHistory page of 1,000 steps costs a replica about 9 ms (ten GetViews) and counted as
    one call, so an address at its rate of long pages took three times what the rate was sized
    for. Now a page counts one call more per STEPS_PER_CALL steps: with a burst of 12, pages of a
    450-step game (5 calls each) are refused CALL_RATE_EXCEEDED by the fourth, on either face."""

    async def scenario() -> None:
        rate = {"calls_per_client_per_second": 0.2, "call_burst": 12}
        async with limited_with_long_game(redis_server.url, **rate) as (limited, game_id, version):
            async with Client(f"127.0.0.1:{limited.port}") as client:
                once = client.with_retry(ONE_ATTEMPT)
                answered = 0
                with pytest.raises(HustingsError) as refused:
                    for _ in range(12):
                        page = await once.history_page(game_id, page_size=1000)
                        assert len(page.entries) >= version >= LONG_GAME_STEPS
                        answered += 1
                assert refused.value.reason == "CALL_RATE_EXCEEDED" and answered == 3
            async with aiohttp.ClientSession() as http:
                url = f"http://127.0.0.1:{limited.http_port}/v1/games/{game_id}/history?pageSize=1000"
                async with http.get(url, timeout=aiohttp.ClientTimeout(total=10)) as answer:
                    assert answer.status == 429 and "CALL_RATE_EXCEEDED" in await answer.text()

    run(scenario(), timeout_s=90)


# A channel that takes no more than a small window of a stream until its caller reads: no
# bandwidth probe widens it, and it asks for 1 KiB ahead rather than HTTP/2's first 64 KiB (a
# catch-up under 64 KiB would otherwise be taken whole by the connection at once).
NOT_READING = [("grpc.http2.bdp_probe", 0), ("grpc.http2.lookahead_bytes", 1024)]


ENDED_WITHIN_S = 3.0


@contextlib.asynccontextmanager
async def streams_never_read(
    limited: Any, game_id: str, count: int, cap: Callable[[int], None], from_version: int = 0
) -> AsyncIterator[tuple[int, list[Any], list[grpc.StatusCode]]]:
    """``count`` WatchGame streams from ``from_version`` of ``game_id`` on ``limited`` that never
    read (each on a connection of its own), opened once ``cap(size)`` has set the unread limits
    for ``size``, the bytes of one catch-up. Yields that size, the calls, and the codes of those
    that ended within ENDED_WITHIN_S; closes the connections after."""
    request = game_service_pb2.WatchGameRequest(game_id=game_id, from_version=from_version)
    async with grpc.aio.insecure_channel(f"127.0.0.1:{limited.port}") as reader:
        size = (await _first_update(game_service_pb2_grpc.GameServiceStub(reader), game_id, from_version)).ByteSize()
    assert size > COUNTED_BYTES, "the catch-up is too small to be counted: make the game longer"
    cap(size)
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{limited.port}", options=NOT_READING) for _ in range(count)]
    try:
        calls = [game_service_pb2_grpc.GameServiceStub(channel).WatchGame(request) for channel in channels]
        for call in calls:  # each stream starts; none is read
            await asyncio.wait_for(call.initial_metadata(), 10)
        # Every stream's code at once, within ENDED_WITHIN_S: a refused stream's end comes at
        # once (waited for one by one, a second each, one under a full suite's load came late).
        ending = [asyncio.ensure_future(call.code()) for call in calls]
        await asyncio.wait(ending, timeout=ENDED_WITHIN_S)
        codes = [end.result() for end in ending if end.done()]
        for end in ending:
            end.cancel()
        yield size, calls, codes
    finally:
        for channel in channels:
            await channel.close()
STREAMS_NOT_READ = 8
HELD_UPDATES = 3  # the address's cap in the test, in updates from version 0


# Steps behind the game's version that a mid-size catch-up may start, tried in turn until one
# makes it between COUNTED_BYTES and LARGE_UPDATE_BYTES: steps differ in size from game to game
# (60 behind once came to 8,161 bytes, just under what counts).
MID_SIZE_STEPS_BEHIND = (60, 80, 100, 130, 170)


async def _mid_size_start(limited: Any, game_id: str, version: int) -> int:
    """A version of ``game_id`` whose catch-up to ``version`` is a mid-size update."""
    async with grpc.aio.insecure_channel(f"127.0.0.1:{limited.port}") as reader:
        stub = game_service_pb2_grpc.GameServiceStub(reader)
        sizes = []
        for behind in MID_SIZE_STEPS_BEHIND:
            size = (await _first_update(stub, game_id, version - behind)).ByteSize()
            if COUNTED_BYTES < size < LARGE_UPDATE_BYTES:
                return version - behind
            sizes.append(size)
    raise AssertionError(f"no mid-size catch-up {MID_SIZE_STEPS_BEHIND} steps behind: {sizes}")


@pytest.mark.parametrize("catch_up", ["whole", "mid_size"])
def test_streams_whose_updates_are_never_read_hold_a_bounded_number_of_bytes(redis_server: EmbeddedRedis, catch_up: str) -> None:
    """A stream from version 0 of a long game holds its whole catch-up until the reader takes it
    (about 2 MB a stream for a 2,400-step game, measured: 500 such streams took a replica past
    1 GB). With the address's unread bytes capped at three such updates, of eight streams that
    never read, three hold theirs and five end RESOURCE_EXHAUSTED
    TOO_MANY_UNREAD_BYTES_FOR_ADDRESS; a client at another address still gets its catch-up, and
    once the streams are closed the address gets its own again. The same with catch-ups of
    8-64 KiB (``mid_size``): when only updates of 64 KiB or more counted, 2,000 streams of one
    address each opened where its catch-up came just under that took a replica from 77 MB to
    629 MB, 35 times the address's cap."""

    async def scenario() -> None:
        async with limited_with_long_game(redis_server.url, 700, **SOLE_CLIENT) as (limited, game_id, version):

            def cap(size: int) -> None:
                if catch_up == "mid_size":
                    assert COUNTED_BYTES <= size < LARGE_UPDATE_BYTES, size
                limited.limits.unread.max_per_address = HELD_UPDATES * size + size // 2

            start = 0 if catch_up == "whole" else await _mid_size_start(limited, game_id, version)
            async with streams_never_read(limited, game_id, STREAMS_NOT_READ, cap, start) as (size, calls, codes):
                refused = [c for c in codes if c == grpc.StatusCode.RESOURCE_EXHAUSTED]
                assert len(refused) == STREAMS_NOT_READ - HELD_UPDATES, codes
                assert len(codes) == len(refused), f"only refused streams end: {codes}"
                for call in calls:
                    if call.done():
                        assert _call_reason(await rpc_status.aio.from_call(call)) == "TOO_MANY_UNREAD_BYTES_FOR_ADDRESS"
                async with relay_from(OTHER_ADDRESS, limited.port) as port, grpc.aio.insecure_channel(f"127.0.0.1:{port}") as other:
                    update = await _first_update(game_service_pb2_grpc.GameServiceStub(other), game_id, start)
                    assert update.ByteSize() == size
            for _ in range(50):  # the closed streams' writes end and give their bytes back
                if limited.limits.unread.held == 0:
                    break
                await asyncio.sleep(0.1)
            async with grpc.aio.insecure_channel(f"127.0.0.1:{limited.port}") as again:
                assert (await _first_update(game_service_pb2_grpc.GameServiceStub(again), game_id, start)).ByteSize() == size

    run(scenario(), timeout_s=90)


def test_an_open_games_seat_left_and_joined_again_stops_growing_its_log(redis_server: EmbeddedRedis) -> None:
    """Joining an open game and leaving it again are two steps each time, and every join kept the
    game a day longer: one client at its rate grew one game by 300 steps a second, for as long
    as it liked (500 pairs: 1,002 steps, 125 kB of log and 40 kB of request keys in Redis, and a
    WatchGame from version 0 past gRPC's 4 MiB after about 35,000 pairs). Past
    MAX_OPEN_GAME_STEPS a leave is refused RESOURCE_EXHAUSTED TOO_MANY_SEAT_CHANGES and changes
    nothing; joins still take the free seats, and the game starts."""

    async def scenario() -> None:
        async with replica(redis_server.url, **SOLE_CLIENT) as replica_, Client(f"127.0.0.1:{replica_.port}") as client:
            game_id = (await client.create_game("stimmvieh", 3)).game_id
            await client.join(game_id, "Ada")
            with pytest.raises(HustingsError) as refused:
                for _ in range(600):  # two steps each: past 1,000 steps if nothing stops them
                    griefer = await client.join(game_id, "Griefer")
                    await client.leave(game_id, griefer.token)
            assert refused.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert refused.value.reason == "TOO_MANY_SEAT_CHANGES"
            view = await client.view(game_id)
            assert seats.MAX_OPEN_GAME_STEPS <= view.version <= seats.MAX_OPEN_GAME_STEPS + 1  # the join that reached it
            assert view.status == game_pb2.GAME_STATUS_OPEN
            assert [s.display_name for s in view.seats if s.taken] == ["Ada", "Griefer"]
            await client.join(game_id, "Bo")
            started = await client.view(game_id)
            assert started.status == game_pb2.GAME_STATUS_ACTIVE and started.version == view.version + 1

    run(scenario(), timeout_s=90)


def test_an_active_games_seat_left_and_returned_to_stops_growing_its_log(
    redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In an active game a seat that owes nothing may leave and come back: two steps each time,
    without bound (300 pairs by a Wahlspiel seat whose turn it was not: 600 steps in 1.2 s).
    Past MAX_ACTIVE_GAME_SEAT_CHANGES_UP_TO steps (200 here, so that the test is short) leaving
    and returning are refused TOO_MANY_SEAT_CHANGES, while the seat whose turn it is still
    moves."""
    monkeypatch.setattr(seats, "MAX_ACTIVE_GAME_SEAT_CHANGES_UP_TO", 200, raising=False)

    async def scenario() -> None:
        async with replica(redis_server.url, **SOLE_CLIENT) as replica_, Client(f"127.0.0.1:{replica_.port}") as client:
            game_id = (await client.create_game("wahlspiel", 3)).game_id
            players = [await client.join(game_id, f"Player {n}") for n in range(3)]
            view = await client.view(game_id)
            idle = next(p for p in players if p.seat not in view.to_act)
            with pytest.raises(HustingsError) as refused:
                for _ in range(150):
                    await client.leave(game_id, idle.token)
                    await client.return_to_game(game_id, idle.token)
            assert refused.value.reason == "TOO_MANY_SEAT_CHANGES"
            after = await client.view(game_id)
            assert after.version == 200 and not after.seats[idle.seat].absent
            acting = players[min(after.to_act)]
            mine = await client.view(game_id, acting.token)
            moved = await client.move(game_id, acting.token, mine.legal_moves[0], expected_version=mine.version)
            assert moved.version > after.version

    run(scenario(), timeout_s=90)


def test_an_active_game_nobody_plays_any_more_expires_after_the_retention_time(redis_server: EmbeddedRedis) -> None:
    """An open game expires and a finished one is kept for the retention time, but an active
    game's keys were kept for ever: a client that made games (60 a minute) and took every seat
    itself left 86,400 games a day in the store for good. Now every step of an active game sets
    its keys to live the retention time from then on."""

    async def scenario() -> None:
        retention_s = 3600
        raw = redis.asyncio.Redis.from_url(redis_server.url)
        try:
            async with replica(redis_server.url, retention_s=retention_s, **SOLE_CLIENT) as replica_:
                async with Client(f"127.0.0.1:{replica_.port}") as client:
                    game_id = (await client.create_game("wahlspiel", 3)).game_id
                    players = [await client.join(game_id, f"Player {n}") for n in range(3)]
                    keys = [game_key(game_id), log_key(game_id)]
                    assert [0 < await raw.ttl(k) <= retention_s for k in keys] == [True, True]
                    await raw.expire(game_key(game_id), 60)  # as if the game had waited that long
                    view = await client.view(game_id)
                    acting = players[min(view.to_act)]
                    mine = await client.view(game_id, acting.token)
                    await client.move(game_id, acting.token, mine.legal_moves[0], expected_version=mine.version)
                    assert retention_s - 60 < await raw.ttl(game_key(game_id)) <= retention_s  # renewed by the move
        finally:
            await raw.aclose()

    run(scenario(), timeout_s=60)


def test_tables_of_strong_bots_count_as_many_games_in_their_clients_allowance(own_redis: EmbeddedRedis) -> None:
    """A replica's strong bots think one decision at a time (up to 0.2 s each), all tables
    together: 30 tables of strong bots from one client (a quarter of its creation burst) made
    another table's strong bots 32 times slower. A table whose bots are strong now counts as
    STRONG_BOT_GAMES games per seat, and AddBot of a strong bot as many: with the default burst
    of 120, two four-seat tables (41 each) pass and the third is TOO_MANY_GAMES_CREATED, on
    either face, while a plain table is still made; three strong bots added (10 each) pass, the
    fourth is refused and its seat stays free. (The tables have no bot seats, so nothing thinks.)"""

    async def scenario() -> None:
        strong = game_pb2.TableSettings(bot_level="strong")
        async with replica(own_redis.url) as replica_, Client(f"127.0.0.1:{replica_.port}") as client:
            once = client.with_retry(ONE_ATTEMPT)
            for _ in range(2):
                await once.create_game("stimmvieh", 4, table=strong)
            with pytest.raises(HustingsError) as refused:
                await once.create_game("stimmvieh", 4, table=strong)
            assert refused.value.reason == "TOO_MANY_GAMES_CREATED" and refused.value.retry_after_s
            async with aiohttp.ClientSession() as http:
                body = {"kind": "stimmvieh", "options": {"players": 4}, "table": {"botLevel": "strong"}, "requestId": "crowd-create-strong-1"}
                url = f"http://127.0.0.1:{replica_.http_port}/v1/games"
                async with http.post(url, json=body, timeout=aiohttp.ClientTimeout(total=10)) as answer:
                    assert answer.status == 429 and "TOO_MANY_GAMES_CREATED" in await answer.text()
            game_id = (await once.create_game("stimmvieh", 4)).game_id  # 1 game: 36 left
            for seat in range(3):
                await once.add_bot(game_id, seat, level="strong")
            with pytest.raises(HustingsError) as refused_bot:
                await once.add_bot(game_id, 3, level="strong")
            assert refused_bot.value.reason == "TOO_MANY_GAMES_CREATED"
            view = await client.view(game_id)
            assert [s.bot for s in view.seats] == [True, True, True, False] and view.status == game_pb2.GAME_STATUS_OPEN

    run(scenario(), timeout_s=60)


SPECTATORS = 20


async def _next_event_id(stream: aiohttp.ClientResponse) -> int:
    """The id of the next update event of an event stream."""
    event_id = None
    for _ in range(1000):
        line = (await stream.content.readline()).decode().strip()
        if line.startswith("id: "):
            event_id = int(line[4:])
        elif line.startswith("data: ") and event_id is not None:
            return event_id
    raise AssertionError("no update event")


def test_event_streams_in_step_share_one_rendering_of_each_update(
    redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gRPC streams in step write one serialisation of each update; event streams rendered it as
    JSON each (0.4 ms a step for Stimmvieh and The Spin Doctors, 1.2 ms for Wahlspiel, with the
    view): 1,000 spectators of a table over REST cost a replica more than a second per step. Now
    the 20 event streams of one game's spectators render the step they all get once."""
    renders: list[int] = []

    def counting(render: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def to_json(message: Any) -> Any:
            if isinstance(message, game_service_pb2.WatchGameResponse):
                renders.append(message.version)
            return render(message)

        return to_json

    from hustings.service import rest, rest_routes

    # Every rendering of an update, wherever the event streams take to_json from.
    monkeypatch.setattr(rest, "to_json", counting(rest_routes.to_json))
    monkeypatch.setattr(rest_routes, "to_json", counting(rest_routes.to_json))

    async def scenario() -> None:
        async with replica(redis_server.url, **SOLE_CLIENT) as replica_, Client(f"127.0.0.1:{replica_.port}") as client:
            game_id = (await client.create_game("stimmvieh", 3)).game_id
            players = [await client.join(game_id, f"Player {n}") for n in range(3)]
            view = await client.view(game_id)
            url = f"http://127.0.0.1:{replica_.http_port}/v1/games/{game_id}:watch?fromVersion={view.version - 1}"
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=20)) as http:
                streams = [await http.get(url, headers={"Accept": "text/event-stream"}) for _ in range(SPECTATORS)]
                try:
                    assert {await _next_event_id(s) for s in streams} == {view.version}
                    renders.clear()
                    mine = await client.view(game_id, players[0].token)
                    moved = await client.move(game_id, players[0].token, mine.legal_moves[0], expected_version=mine.version)
                    assert {await _next_event_id(s) for s in streams} == {moved.version}
                finally:
                    for stream in streams:
                        stream.close()
            assert renders.count(moved.version) == 1, f"{renders.count(moved.version)} renderings for {SPECTATORS} streams"

    run(scenario(), timeout_s=60)


def test_a_game_that_waits_long_for_players_counts_as_a_game_per_day(redis_server: EmbeddedRedis) -> None:
    """An open game nobody joins holds 7-9.5 kB of Redis for as long as it waits, and a table may
    wait up to 30 days: at the allowance's 60 games a minute one address kept 2.6 million of them
    (about 25 GB) instead of a day's 86,400. A game that may wait 30 days now counts as 30: with
    the burst of 120, three and a game with the default wait pass, the fourth such game is
    TOO_MANY_GAMES_CREATED, and a game with the default wait is still made."""

    async def scenario() -> None:
        month = game_pb2.TableSettings(open_seconds=30 * 24 * 3600)
        async with replica(redis_server.url) as replica_, Client(f"127.0.0.1:{replica_.port}") as client:
            once = client.with_retry(ONE_ATTEMPT)
            for _ in range(3):
                await once.create_game("stimmvieh", 3, table=month)
            await once.create_game("stimmvieh", 3)  # 91 of 120
            with pytest.raises(HustingsError) as refused:
                await once.create_game("stimmvieh", 3, table=month)
            assert refused.value.reason == "TOO_MANY_GAMES_CREATED"
            await once.create_game("stimmvieh", 3)

    run(scenario(), timeout_s=60)


def test_a_long_answers_cost_is_paid_even_from_an_empty_allowance() -> None:
    """The calls a long answer counts as beyond its own are spent after it (the page is read by
    then). Were the bucket kept from going below empty, a client that kept it empty would pay
    one call a page, whatever the page: at one call a second and pages of five, about 30 pages
    in 30 s instead of the 8 its 42 calls pay for. (A bucket on a clock of the test's own.)"""
    now = [0.0]
    rate = CallRate(per_second=1.0, burst=12, clock=lambda: now[0])
    answered = 0
    for tick in range(30 * 4):  # four tries a second for 30 s
        now[0] = tick / 4
        try:
            rate.take("203.0.113.9")
        except RetryLater:
            continue
        rate.charge("203.0.113.9", 4)
        answered += 1
    assert answered <= (12 + 30) // 5 + 1, f"{answered} pages of 5 calls for 42 calls"
