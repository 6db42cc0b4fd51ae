"""Guards of secrets and of other players' seats that no other test held: each test here passes on
the service as it is and fails when its guard is dropped (a check skipped, a filter widened).

Played through a real replica (real Redis, real gRPC)."""

from __future__ import annotations

import asyncio
import random
from typing import AsyncIterator, Awaitable

import grpc
import pytest

from conftest import run
from hustings.client import Client, HustingsError, Joined
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2, game_service_pb2
from service_helpers import new_game, play_to_end, replica_and_client, stimmvieh_options

PLAYERS = 3
# A table whose absent seats its bot plays and a newcomer may take over; the clock is far off.
TAKEOVER_TABLE = game_pb2.TableSettings(decision_seconds=600, allow_takeover=True)
STREAM_WAIT_S = 10.0  # the longest wait for one update of a stream
# Time for a stream just opened to reach the replica and wait on the game's feed.
STREAM_SETTLE_S = 0.2
MAX_UPDATES = 20  # updates read from one stream at most


async def _refused(call: Awaitable[object]) -> HustingsError:
    with pytest.raises(HustingsError) as caught:
        await call
    return caught.value


def test_a_finished_games_seats_can_neither_leave_nor_return(redis_server: EmbeddedRedis) -> None:
    """A finished game's record is final: LeaveGame and ReturnToGame of one of its seats are
    FAILED_PRECONDITION GAME_OVER and write no step after the last."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):
            created = await client.create_game("stimmvieh", PLAYERS, stimmvieh_options(PLAYERS))
            seats = [await client.join(created.game_id, f"Player {i}") for i in range(PLAYERS)]
            end = await play_to_end([client], seats, random.Random(11))
            for call in (client.leave, client.return_to_game):
                refused = await _refused(call(created.game_id, seats[0].token))
                assert (refused.code, refused.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER")
            after = await client.view(created.game_id)
            assert after.version == end.version and not after.seats[0].absent

    run(scenario())


def test_a_join_retried_after_its_seat_changed_hands_shows_nothing_of_the_new_holder(redis_server: EmbeddedRedis) -> None:
    """Ada joins seat 0, leaves the open game (the seat is freed) and Bo takes that seat; the game
    starts. Ada's join sent again with its request id is refused SEAT_TOKEN_REPLACED: answered, it
    would hand Ada the view of seat 0, Bo's hand."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):
            created = await client.create_game("stimmvieh", PLAYERS, stimmvieh_options(PLAYERS))
            game_id, rid = created.game_id, "join-ada-seat-0-Qm7vT2xa"
            ada = await client.join(game_id, "Ada", seat=0, request_id=rid)
            await client.leave(game_id, ada.token)
            bo = await client.join(game_id, "Bo", seat=0)
            for name in ("Cy", "Dee"):
                await client.join(game_id, name)
            assert (await client.view(game_id, bo.token)).status == game_pb2.GAME_STATUS_ACTIVE
            version = (await client.view(game_id)).version

            again = await _refused(client.join(game_id, "Ada", seat=0, request_id=rid))
            assert (again.code, again.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "SEAT_TOKEN_REPLACED")
            assert (await client.view(game_id)).version == version
            stale = await _refused(client.view(game_id, ada.token))
            assert stale.reason == "INVALID_SEAT_TOKEN"

    run(scenario())


async def _takeover_table(client: Client) -> tuple[str, Joined]:
    """A started game of a table that allows takeovers: its id, and Ada's seat (seat 0)."""
    game_id = (await client.create_game("stimmvieh", PLAYERS, stimmvieh_options(PLAYERS), table=TAKEOVER_TABLE)).game_id
    ada = await client.join(game_id, "Ada")
    for name in ("Bo", "Cy"):
        await client.join(game_id, name)
    return game_id, ada


def test_a_takeover_retried_after_the_seat_changed_hands_again_shows_nothing_of_the_new_holder(
    redis_server: EmbeddedRedis,
) -> None:
    """Dee takes over Ada's absent seat, leaves it in turn, and Eve takes it over. Dee's takeover
    sent again with its request id is refused SEAT_TOKEN_REPLACED: answered, it would hand Dee
    the view of the seat Eve now holds."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):
            game_id, ada = await _takeover_table(client)
            await client.leave(game_id, ada.token)
            rid = "take-over-dee-Wn4pL8sq"
            dee = await client.take_over(game_id, ada.seat, "Dee", request_id=rid)
            await client.leave(game_id, dee.token)
            await client.take_over(game_id, ada.seat, "Eve", request_id="take-over-eve-Hc3kR9zu")

            again = await _refused(client.take_over(game_id, ada.seat, "Dee", request_id=rid))
            assert (again.code, again.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "SEAT_TOKEN_REPLACED")
            stale = await _refused(client.view(game_id, dee.token))
            assert stale.reason == "INVALID_SEAT_TOKEN"

    run(scenario())


async def _next(updates: AsyncIterator[game_service_pb2.WatchGameResponse]) -> game_service_pb2.WatchGameResponse:
    return await asyncio.wait_for(anext(updates), STREAM_WAIT_S)


def test_a_live_stream_tells_each_watcher_what_its_history_page_does(redis_server: EmbeddedRedis) -> None:
    """Watchers in step with a game (served from the feed's tail, not caught up from the log)
    get a step as their own history page shows it: no state digest before the end, and no other
    seat's secret move."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):
            seats = await new_game(client, PLAYERS)
            game_id = seats[0].game_id
            start = await client.view(game_id)
            mover = seats[min(start.to_act)]
            others = [None] + [s.token for s in seats if s.seat != mover.seat]
            streams = [client.watch(game_id, token, from_version=start.version) for token in others]
            try:
                # Each watcher's first update waits on the feed: the move comes after it is asked for.
                pending = [asyncio.ensure_future(_next(stream)) for stream in streams]
                await asyncio.sleep(STREAM_SETTLE_S)
                own = await client.view(game_id, mover.token)
                await client.move(game_id, mover.token, own.legal_moves[0], expected_version=own.version)
                for token, update in zip(others, await asyncio.gather(*pending)):
                    page = await client.history_page(game_id, token, after_version=start.version)
                    assert list(update.entries) == list(page.entries)
                    assert all(not entry.state_digest for entry in update.entries)
            finally:
                for stream in streams:
                    await stream.aclose()

    run(scenario())


def test_a_seat_taken_over_ends_its_old_holders_stream(redis_server: EmbeddedRedis) -> None:
    """Ada watches with her token, leaves, and Dee takes her seat over: Ada's stream ends
    UNAUTHENTICATED INVALID_SEAT_TOKEN at that step rather than showing her Dee's seat."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):
            game_id, ada = await _takeover_table(client)
            updates = client.watch(game_id, ada.token, from_version=(await client.view(game_id)).version)
            try:
                first = asyncio.ensure_future(_next(updates))
                await asyncio.sleep(STREAM_SETTLE_S)
                await client.leave(game_id, ada.token)
                assert (await first).view.seats[ada.seat].absent
                dee = await client.take_over(game_id, ada.seat, "Dee")
                # Ada's bot may have decided for her absent seat before Dee came: those steps
                # are still hers to see, the takeover's is not.
                with pytest.raises(HustingsError) as ended:
                    for _ in range(MAX_UPDATES):
                        assert (await _next(updates)).version < dee.view.version
                assert (ended.value.code, ended.value.reason) == (grpc.StatusCode.UNAUTHENTICATED, "INVALID_SEAT_TOKEN")
            finally:
                await updates.aclose()

    run(scenario())
