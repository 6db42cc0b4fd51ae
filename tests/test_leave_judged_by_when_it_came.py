"""A leave is judged by when it came, as a move is: a leave that reached the replica before its
seat's deadline, but waited for the game's lock (behind a strong bot's thinking floor, as a move
may), left in time. Before, ``table.charge_bank`` read the clock under the lock, so such a leave
was noted overdue (``table.left_overdue``): its player was charged a timeout for the bot's
decision, and their return by moving was refused TIME_RUN_OUT, where a move that waited the same
way is taken.

Real Redis, real gRPC, one in-process replica whose clock the test holds and moves on; its
deadline runner is stopped so that only the kicks of steps decide."""

from __future__ import annotations

import asyncio
from typing import Any


from conftest import HeldClock, run
from hustings.client import Client, Joined
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import Replica
from hustings.v1 import game_pb2
from service_helpers import replica_and_client, stimmvieh_options

DECISION_S = 30
LOCK_POLLS = 200  # 2 ms apart: the bound on the wait for the leave to queue for the game's lock
POLLS = 100  # 0.05 s apart: the bot's decision for the seat that left
TIMED_OUT = game_pb2.SeatChanged.CHANGE_TIMED_OUT
RETURNED = game_pb2.SeatChanged.CHANGE_RETURNED


async def _table(client: Client) -> tuple[str, Joined, game_pb2.GameView]:
    """A running Stimmvieh game of three players with a 30 s decision limit and strong stand-in
    bots; Ada (seat 0) owes her first decision."""
    settings = game_pb2.TableSettings(decision_seconds=DECISION_S, bot_level="strong")
    game_id = (await client.create_game("stimmvieh", 3, stimmvieh_options(3), table=settings)).game_id
    ada = await client.join(game_id, "Ada")
    await client.join(game_id, "Bo")
    await client.join(game_id, "Cy")
    view = await client.view(game_id, ada.token)
    assert view.status == game_pb2.GAME_STATUS_ACTIVE and 0 in view.to_act
    return game_id, ada, view


async def _leave_in_time_behind_the_lock(replica: Replica, clock: HeldClock, client: Client, game_id: str, ada: Joined, deadline: int) -> None:
    """Ada's leave reaches the replica 1 ms before her deadline while another step holds the
    game's lock on the replica (as a strong bot's step does for its thinking floor, or a move's
    commit on a slow Redis), and waits for it while the clock moves on a second; then it is
    applied."""
    step = replica.host._game_lock(game_id)
    await step.__aenter__()
    try:
        clock.advance_to_ms(replica, deadline - 1)
        leaving = asyncio.ensure_future(client.leave(game_id, ada.token))
        for _ in range(LOCK_POLLS):
            await asyncio.sleep(0.002)
            held = replica.host._locks.get(game_id)
            if held is not None and held[1] >= 2:
                break
        assert not leaving.done(), "the leave did not wait for the game's lock"
        clock.advance_to_ms(replica, deadline + 1_000)
    finally:
        await step.__aexit__(None, None, None)
    await leaving


async def _changes(client: Client, game_id: str, seat: int, change: Any) -> list[int]:
    """The versions of the steps with ``change`` of ``seat``."""
    return [
        entry.version
        for entry in await client.history(game_id)
        for event in entry.events
        if event.HasField("seat_changed") and event.seat_changed.seat == seat and event.seat_changed.change == change
    ]


def test_a_leave_that_came_in_time_but_waited_for_the_lock_counts_no_timeout(redis_server: EmbeddedRedis) -> None:
    """Ada left in time (her leave came 1 ms before her deadline); her bot's decision, made after
    it, should count no timeout (README, Timeouts: "a seat that left in time is charged no
    timeout for its bot's decision, however late it comes"). It counts one, with a public
    CHANGE_TIMED_OUT, because the leave was judged by when the lock let it in."""
    clock = HeldClock()

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, local_clock=clock) as (replica, client):
            await replica.host.deadline_runner.stop()
            game_id, ada, view = await _table(client)
            await _leave_in_time_behind_the_lock(replica, clock, client, game_id, ada, view.seats[0].deadline_unix_ms)
            for _ in range(POLLS):
                decided = await client.view(game_id)
                if decided.seats[0].bot_played:
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError("Ada's bot did not decide")
            assert decided.seats[0].absent
            assert await _changes(client, game_id, 0, TIMED_OUT) == []
            assert decided.seats[0].timeouts == 0

    run(scenario(), 60)


def test_a_return_by_moving_after_a_leave_that_came_in_time_is_taken(redis_server: EmbeddedRedis) -> None:
    """Ada left in time (as above) and comes back by moving before her bot decided: an absent
    seat's move is its player's return and is taken, unless the player left after the deadline
    (README, Timeouts). It is refused TIME_RUN_OUT."""
    clock = HeldClock()

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, local_clock=clock) as (replica, client):
            await replica.host.deadline_runner.stop()
            game_id, ada, view = await _table(client)
            place = replica.host.seats._thinking["strong"]
            await place.acquire()  # Ada's bot waits to think until her move came
            try:
                await _leave_in_time_behind_the_lock(replica, clock, client, game_id, ada, view.seats[0].deadline_unix_ms)
                moved = await client.move(game_id, ada.token, view.legal_moves[0])
            finally:
                place.release()
            assert any(event.HasField("seat_changed") and event.seat_changed.change == RETURNED for event in moved.events)
            assert await _changes(client, game_id, 0, RETURNED) == [moved.version]
            assert not (await client.view(game_id)).seats[0].absent

    run(scenario(), 60)
