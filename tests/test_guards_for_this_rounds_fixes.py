"""Checks that pin down details of the latest fixes that their own tests left open: the rate of
new REST connections (which address is forgotten first, one IPv6 network's one rate, a refused
connection reset rather than closed, `serve`'s flag reaching the replica), a seat that left
after its deadline (no second CHANGE_ABSENT, a move at its deadline's very millisecond), the
lobby entry of a game made at version 1 (an unlisted table never written, a later step's entry
kept, the follow-up of a call given up mid-commit), the TypeScript example bot's return that no
replica answered. Real Redis, gRPC and sockets throughout;
every loop is bounded in count and time."""

from __future__ import annotations

import asyncio
import pathlib
import select
import socket
import time
from typing import Any

import grpc
import pytest
from redis import Redis

from conftest import HeldClock, run, serve_process
from hustings.client import HustingsError
from hustings.service.embedded_redis import EmbeddedRedis, free_port, wait_for_port
from hustings.service.errors import ServiceError
from hustings.service.rest_connections import ConnectionGate, ConnectionRate, HttpSettings
from hustings.v1 import game_pb2
from rest_helpers import LiveRest
from service_helpers import remove_game, replica_and_client
from test_example_bots_refusals import RestRefusingProxy, _refusal, _rest_game, _serving, _ts_play
from test_example_bots_unanswered_moves import _bare
from test_leave_after_deadline import DECISION_S, _decided, _past_deadline
from test_play_again_races import CLOCK_AHEAD_MS, HELD_S, _finished, _next_id, _ShiftedClock
from test_rest_connection_churn import _exchanges

WAIT_S = 5.0
ABSENT = game_pb2.SeatChanged.CHANGE_ABSENT
TIMED_OUT = game_pb2.SeatChanged.CHANGE_TIMED_OUT


# --- the rate of new REST connections --------------------------------------------------------


def test_the_rate_of_new_connections_forgets_the_address_seen_longest_ago_first() -> None:
    """Past ``max_buckets`` addresses the one let in longest ago is forgotten (and starts again
    with a whole burst), not the one seen first: an address that keeps opening connections
    keeps its bucket, and an empty bucket, however many other addresses come and go."""
    now = [0.0]
    rate = ConnectionRate(per_second=1.0, burst=2, max_buckets=3, clock=lambda: now[0])
    assert [rate.admits("192.0.2.1") for _ in range(3)] == [True, True, False]  # its burst spent
    now[0] = 0.5
    assert rate.admits("192.0.2.2") and rate.admits("192.0.2.3")
    now[0] = 1.0
    assert rate.admits("192.0.2.1")  # one connection refilled: taken, the bucket empty again
    assert rate.admits("192.0.2.4")  # a fourth address: the one let in longest ago goes
    assert not rate.admits("192.0.2.1"), "an address that kept opening connections was forgotten"


def test_the_addresses_of_one_ipv6_network_share_one_rate_of_new_connections() -> None:
    """An IPv6 client counts as its /64 network, as its calls do (``client_of``): hopping from
    address to address within it gains it no new connections; another network has its own."""
    gate = ConnectionGate(100, 100, rate=ConnectionRate(per_second=1.0, burst=2, clock=lambda: 0.0))
    assert [gate.accepts(f"2001:db8:1:2::{n}") for n in range(1, 5)] == [True, True, False, False]
    assert gate.accepts("2001:db8:1:3::1")


def _reset_or_closed(sock: socket.socket, deadline: float) -> str:
    """How the replica ended a connection that sent nothing: "reset", "closed" (a FIN), or
    "open" by ``deadline``."""
    remaining = max(0.0, deadline - time.monotonic())
    if not select.select([sock], [], [], remaining)[0]:
        return "open"
    try:
        return "closed" if not sock.recv(64) else "answered"
    except ConnectionResetError:
        return "reset"


def test_a_connection_past_the_rate_is_reset_at_once(redis_server: EmbeddedRedis) -> None:
    """With a rate of 1 new connection a second (2 at once), six connections opened at once from
    one address: the first two stay open, and those past the rate are reset (RST) as they are
    accepted, as a capped connection is (``drop``), not closed with a FIN that leaves the
    replica's end in TIME_WAIT for a minute."""

    async def scenario(redis_url: str) -> None:
        async with replica_and_client(redis_url, http_address="127.0.0.1:0", http=HttpSettings(new_connections_per_second=1.0)) as (
            replica,
            _client,
        ):
            port = replica.http_port

            def burst() -> list[str]:
                socks: list[socket.socket] = []
                reset_in_connect: set[int] = set()  # a connection reset at once may be reset in connect()
                try:
                    for n in range(6):
                        sock = socket.socket()
                        socks.append(sock)
                        sock.bind(("127.0.0.13", 0))
                        sock.settimeout(WAIT_S)
                        try:
                            sock.connect(("127.0.0.1", port))
                        except ConnectionResetError:
                            reset_in_connect.add(n)
                    deadline = time.monotonic() + 1.5
                    return ["reset" if n in reset_in_connect else _reset_or_closed(sock, deadline) for n, sock in enumerate(socks)]
                finally:
                    for sock in socks:
                        sock.close()

            ends = await asyncio.to_thread(burst)
            assert ends[:2] == ["open", "open"], ends
            assert "reset" in ends and set(ends) <= {"open", "reset"}, ends

    run(scenario(redis_server.url), 60)


def test_serve_s_flag_sets_the_rate_of_new_connections_it_serves_with(redis_server: EmbeddedRedis) -> None:
    """`hustings serve --http-connections-per-address-per-second 1`: a replica that lets one
    address open 2 connections at once and resets the rest (at the default, 600 a second and
    1,200 at once, all 8 would be answered)."""
    http_port = free_port()
    args = ("--redis-url", redis_server.url, "--http-address", f"127.0.0.1:{http_port}", "--http-connections-per-address-per-second", "1")
    with serve_process(*args):
        wait_for_port(http_port)
        answered = _exchanges(http_port, "127.0.0.14", 8)
    assert answered[:2] == [True, True] and answered.count(False) >= 4, answered


# --- a seat that left after its deadline -----------------------------------------------------


def test_a_seat_absent_already_is_not_made_absent_again_by_its_overdue_decision(redis_server: EmbeddedRedis) -> None:
    """At a table where one timeout makes a seat absent, Ada leaves after her deadline: her bot's
    decision counts the timeout (CHANGE_TIMED_OUT), but she is absent already (her leave said
    so): no CHANGE_ABSENT follows, in the history or in the view's events."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, local_clock=HeldClock()) as (replica, client):
            await replica.host.deadline_runner.stop()
            table = game_pb2.TableSettings(decision_seconds=DECISION_S, absent_after_timeouts=1)
            game_id = (await client.create_game("stimmvieh", 3, table=table)).game_id
            seats = [await client.join(game_id, name) for name in ("Ada", "Bo", "Cy")]
            await _past_deadline(replica, client, game_id, seats[0].token)
            await client.leave(game_id, seats[0].token)
            view = await _decided(client, game_id, 0)
            assert view.seats[0].absent and view.seats[0].timeouts == 1
            changes = [
                event.seat_changed.change
                for entry in await client.history(game_id)
                for event in entry.events
                if event.HasField("seat_changed") and event.seat_changed.seat == 0
            ]
            assert changes.count(TIMED_OUT) == 1 and ABSENT not in changes, changes

    run(scenario(), 60)


def test_a_move_that_comes_at_its_deadlines_very_millisecond_is_too_late(redis_server: EmbeddedRedis) -> None:
    """The deadline is the first millisecond at which the time has run out: a move that comes
    then is refused TIME_RUN_OUT (and its bot makes the decision), as one a millisecond later."""

    async def scenario() -> None:
        clock = HeldClock()
        async with replica_and_client(redis_server.url, local_clock=clock) as (replica, client):
            await replica.host.deadline_runner.stop()
            game_id = (await client.create_game("stimmvieh", 3, table=game_pb2.TableSettings(decision_seconds=DECISION_S))).game_id
            seats = [await client.join(game_id, name) for name in ("Ada", "Bo", "Cy")]
            view = await client.view(game_id, seats[0].token)
            deadline = view.seats[0].deadline_unix_ms
            for _ in range(20):  # the shared clock reads whole milliseconds of a float
                clock.advance_to_ms(replica, deadline)
                if replica.host._now_ms() == deadline:
                    break
                clock.now += 0.0002 if replica.host._now_ms() < deadline else -0.0002
            assert replica.host._now_ms() == deadline
            with pytest.raises(HustingsError) as late:
                await client.move(game_id, seats[0].token, view.legal_moves[0])
            assert (late.value.code, late.value.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "TIME_RUN_OUT")

    run(scenario(), 60)


# --- the lobby entry of a game made ----------------------------------------------------------


def test_an_unlisted_table_is_never_written_to_the_lobby(redis_server: EmbeddedRedis) -> None:
    """An unlisted table's creation writes no lobby entry (no summary, no position), whatever
    finds no entry of its id there before its commit."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (replica, client):
            store = replica.host.store
            for players in (3, 4):
                game_id = (await client.create_game("stimmvieh", players, table=game_pb2.TableSettings(unlisted=True))).game_id
                assert await store.in_lobby([game_id]) == [False]
                assert game_id not in await store.lobby_summaries([game_id])

    run(scenario(), 60)


async def _namesake(redis_url: str, replica: Any, client: Any, clock: _ShiftedClock, seated: bool) -> tuple[str, Any, str]:
    """A finished game whose next game was made (and, if ``seated``, joined) and then went,
    its lobby entry left for the repair; the clock moved on so that the next game made again
    is made in another second. (finished game id, its player, the next game's id)"""
    game_id, me = await _finished(client)
    first = await client.play_again(game_id, me.token)
    if seated:
        await client.join(first.game_id, "Ada", seat=0)
    raw = Redis.from_url(redis_url)
    try:
        remove_game(raw, first.game_id)
    finally:
        raw.close()
    clock.shift_s = CLOCK_AHEAD_MS / 1000
    assert first.game_id == await _next_id(replica, game_id)
    return game_id, me, first.game_id


def test_a_game_made_again_keeps_the_lobby_entry_of_its_own_later_step(redis_server: EmbeddedRedis) -> None:
    """The next game is made again over its namesake's entry (nobody seated: the same version,
    so its index keeps the namesake's), and a player joins it before the call that made it
    lists it as made. The join's entry (its own creation time, a later version) is kept: the
    lobby does not go back to the game as it was made, nobody seated."""

    async def scenario() -> None:
        clock = _ShiftedClock()
        async with replica_and_client(redis_server.url, local_clock=clock) as (replica, client):
            game_id, me, next_id = await _namesake(redis_server.url, replica, client, clock, seated=False)
            store = replica.host.store
            summaries, index = store.lobby_summaries, store.index
            held, go_on = asyncio.Event(), asyncio.Event()

            async def held_index(summary: Any, made: bool = False) -> Any:
                if summary.game_id == next_id and made and not held.is_set():
                    held.set()  # the call that made the game is about to list it as made
                    await asyncio.wait_for(go_on.wait(), HELD_S)
                return await index(summary, made)

            store.index = held_index  # type: ignore[method-assign]
            call = asyncio.create_task(client.play_again(game_id, me.token))
            await asyncio.wait_for(held.wait(), HELD_S)
            await client.join(next_id, "Bo", seat=0)
            go_on.set()
            again = await call
            assert again.game_id == next_id
            made = await store.load(next_id)
            assert made is not None and made.version >= 2
            listed = (await summaries([next_id]))[next_id]
            assert listed.created_at == made.created_at and listed.version >= 2 and listed.seats[0].taken, listed

    run(scenario(), 90)


def test_a_game_made_by_a_call_given_up_mid_commit_is_listed_as_made(redis_server: EmbeddedRedis) -> None:
    """The next game is made again over its namesake's entry (a player seated: a higher version,
    which its index keeps), by a call whose caller gives up while its commit is on its way. The
    commit lands, and its follow-up lists the game as it was made: its own creation time,
    nobody seated, not the namesake's summary."""

    async def scenario() -> None:
        clock = _ShiftedClock()
        async with replica_and_client(redis_server.url, local_clock=clock) as (replica, client):
            game_id, me, next_id = await _namesake(redis_server.url, replica, client, clock, seated=True)
            store = replica.host.store
            commit = store.commit
            sent = asyncio.Event()
            landing: list[asyncio.Future[Any]] = []

            async def given_up_commit(stored: Any, base_version: int, *args: Any, **kwargs: Any) -> Any:
                if stored.game_id != next_id or base_version != 0:
                    return await commit(stored, base_version, *args, **kwargs)
                landing.append(asyncio.ensure_future(commit(stored, base_version, *args, **kwargs)))
                sent.set()
                await asyncio.sleep(HELD_S)  # the caller gives up meanwhile
                return await landing[0]

            store.commit = given_up_commit  # type: ignore[method-assign]
            call = asyncio.create_task(client.play_again(game_id, me.token))
            await asyncio.wait_for(sent.wait(), HELD_S)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call
            await asyncio.wait_for(landing[0], HELD_S)
            made = await store.load(next_id)
            assert made is not None and made.version == 1
            listed = None
            deadline = time.monotonic() + WAIT_S
            for _ in range(100):  # the follow-up runs in the background
                listed = (await store.lobby_summaries([next_id])).get(next_id)
                if listed is not None and listed.created_at == made.created_at or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.05)
            assert listed is not None and (listed.version, listed.created_at) == (1, made.created_at), listed
            assert not listed.seats[0].taken

    run(scenario(), 90)


# --- the TypeScript example bot --------------------------------------------------------------


def test_the_typescript_bot_returns_again_after_returns_no_replica_answered(typescript_dist: pathlib.Path, redis_server: EmbeddedRedis) -> None:
    """Ada left a game of bots; her bot comes back, and its first returns are answered by a
    balancer's bare 502 and by CANCELLED (499): no replica answered them, so the bot watches the
    game again and returns again (as it does with a move no replica answered), then plays the
    game to its end. Before, either ended the bot with a refusal."""
    answers = [_bare(502), _refusal(ServiceError(grpc.StatusCode.CANCELLED, "", "no answer"))]
    with LiveRest(redis_server.url) as live:
        game_id, (ada,) = _rest_game(live, [1, 2, 3], ["Ada"])
        live.ok("POST", f"/v1/games/{game_id}:leave", {}, token=ada["seatToken"])
        with _serving(RestRefusingProxy(live, return_refusals=answers)) as proxy:
            played: dict[str, Any] = _ts_play(typescript_dist, proxy, ada, game_id)
        assert played.get("status") == game_pb2.GAME_STATUS_FINISHED, played
        assert proxy.returns == len(answers) + 1 and proxy.watches >= len(answers) + 1, (proxy.returns, proxy.watches)
        assert len(played["returned"]) == 1
