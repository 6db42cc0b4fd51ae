"""A move whose seat's time has run out is refused TIME_RUN_OUT, by the clock every replica shares,
and the seat's bot makes the decision at once. Before, such a move was taken or refused by where
the deadline runner's polls fell (up to a quarter of a second after the deadline). A retry of a
move made in time still gets its first answer, and an absent seat's move is its player's return."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from conftest import HeldClock, run
from hustings.client import HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2
from service_helpers import replica_and_client

DECISION_S = 30
POLLS = 100  # 0.05 s apart: the bot's decision, kicked by the refusal


def test_a_move_after_its_deadline_is_refused_and_the_bot_decides_at_once(redis_server: EmbeddedRedis) -> None:
    clock = HeldClock()

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, local_clock=clock) as (replica, client):
            await replica.host.deadline_runner.stop()  # only the refusal's kick decides here
            settings = game_pb2.TableSettings(decision_seconds=DECISION_S)
            game_id = (await client.create_game("stimmvieh", 3, table=settings)).game_id
            seats = [await client.join(game_id, name) for name in ("Ada", "Bo", "Cy")]
            view = await client.view(game_id, seats[0].token)
            # Seat 1 moves in time; its retry after the deadline gets the first answer.
            move = (await client.view(game_id, seats[1].token)).legal_moves[0]
            in_time = await client.move(game_id, seats[1].token, move, request_id="in-time-move-1")
            clock.advance_to_ms(replica, view.seats[0].deadline_unix_ms + 1)
            again = await client.move(game_id, seats[1].token, move, request_id="in-time-move-1")
            assert again.version == in_time.version
            with pytest.raises(HustingsError) as late:
                await client.move(game_id, seats[0].token, view.legal_moves[0])
            assert (late.value.code, late.value.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "TIME_RUN_OUT")
            for _ in range(POLLS):
                after = await client.view(game_id)
                if after.seats[0].timeouts:
                    break
                await asyncio.sleep(0.05)
            assert after.seats[0].timeouts == 1 and after.seats[0].bot_played  # its bot decided

    run(scenario(), 60)


def test_an_absent_seats_move_after_its_deadline_is_its_players_return(redis_server: EmbeddedRedis) -> None:
    """An absent seat's decisions are due at once; its player's move, landing before the bot's,
    brings the seat back and is taken."""
    clock = HeldClock()

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, local_clock=clock) as (replica, client):
            await replica.host.deadline_runner.stop()
            settings = game_pb2.TableSettings(decision_seconds=DECISION_S, bot_level="strong")
            game_id = (await client.create_game("stimmvieh", 3, table=settings)).game_id
            seats = [await client.join(game_id, name) for name in ("Ada", "Bo", "Cy")]
            place = replica.host.seats._thinking["strong"]
            await place.acquire()  # the absent seat's bot waits to think: the player's move lands first
            try:
                await client.leave(game_id, seats[0].token)
                view = await client.view(game_id, seats[0].token)
                assert view.seats[0].absent and view.seats[0].deadline_unix_ms <= replica.host._now_ms()
                moved = await client.move(game_id, seats[0].token, view.legal_moves[0], expected_version=view.version)
                assert moved.version == view.version + 1
            finally:
                place.release()
            assert not (await client.view(game_id)).seats[0].absent

    run(scenario(), 60)


def test_late_moves_kick_the_games_decision_once(redis_server: EmbeddedRedis) -> None:
    """Each late move kicks the seat's due decision; while one kick waits (here for the strong
    level's thinking place, busy with another table), more kicks join it instead of each
    starting a task of its own (twenty late moves left forty tasks waiting)."""
    clock = HeldClock()

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, local_clock=clock) as (replica, client):
            host = replica.host
            await host.deadline_runner.stop()
            settings = game_pb2.TableSettings(decision_seconds=DECISION_S, bot_level="strong")
            game_id = (await client.create_game("stimmvieh", 3, table=settings)).game_id
            seats = [await client.join(game_id, name) for name in ("Ada", "Bo", "Cy")]
            view = await client.view(game_id, seats[0].token)
            place = host.seats._thinking["strong"]
            await place.acquire()
            try:
                clock.advance_to_ms(replica, view.seats[0].deadline_unix_ms + 1)
                for _ in range(20):
                    with pytest.raises(HustingsError) as late:
                        await client.move(game_id, seats[0].token, view.legal_moves[0])
                    assert late.value.reason == "TIME_RUN_OUT"
                assert len(host._kicks) == 1, len(host._kicks)
            finally:
                place.release()
            for _ in range(POLLS):
                after = await client.view(game_id)
                if all(seat.timeouts for seat in after.seats):
                    break
                await asyncio.sleep(0.05)
            assert [seat.timeouts for seat in after.seats] == [1, 1, 1]  # the one kick decided for every seat due
            for _ in range(POLLS):
                if not host._kicks:
                    break
                await asyncio.sleep(0.05)
            assert not host._kicks and not host._kicking and not host._kick_again

    run(scenario(), 60)
