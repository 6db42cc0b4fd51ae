"""Clocks against the room maker, the thinking floor and TIME_RUN_OUT, and a Redis that comes back
empty of the secret it kept:
- the room maker never takes a game in play for idle while a seat's clock runs (a table giving
  each decision longer than idle_after_s lost its game);
- a move that reaches the replica before its seat's deadline is taken, though it waited for the
  game's lock while a server bot of the same game sat out its thinking floor;
- a replica started just after a Redis that kept the server secret came back empty (it draws
  another secret) and the running replicas end up serving with one secret.
"""

from __future__ import annotations

import asyncio
import contextlib
import pathlib

import redis

from conftest import HeldClock, run
from hustings.client import Client, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import Replica, ReplicaConfig
from hustings.service.room_maker import RoomMaker, bucket_key
from hustings.v1 import game_pb2
from service_helpers import game_exists, move_behind_the_games_lock, replica_and_client, stimmvieh_options



class Reading:
    """What the store room last read of Redis's memory, as the room maker takes it."""

    def __init__(self, fill: float | None) -> None:
        self.fill = fill


def pressed_room_maker(replica: Replica, **settings: object) -> RoomMaker:
    """A room maker beside the replica's own, over the same index, with Redis read as full."""
    host = replica.host
    return RoomMaker(host.kept, Reading(1.0), host._now_ms, retention_s=host.retention_s, **settings)  # type: ignore[arg-type]


def test_a_game_whose_seats_clock_still_runs_is_not_removed_as_idle(redis_server: EmbeddedRedis) -> None:
    """A table may give each decision up to 30 days (decision_seconds). A game in play whose
    player still has time for the decision owed is not one "nobody plays any more": scaled down,
    idle_after_s = 1 stands for the day and decision_seconds = 3600 for a two-day clock. Under
    pressure the room maker takes the game one second after its last step, while the seat owing
    the decision has an hour left; its players find NOT_FOUND when they move in time."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, make_room_from_percent=0.0) as (replica, client):
            settings = game_pb2.TableSettings(decision_seconds=3600)
            game_id = (await client.create_game("stimmvieh", 3, stimmvieh_options(3), table=settings)).game_id
            seats = [await client.join(game_id, f"Player {i}") for i in range(3)]
            view = await client.view(game_id, seats[0].token)
            assert view.status == game_pb2.GAME_STATUS_ACTIVE
            await asyncio.sleep(1.2)  # past idle_after_s, well within the seat's clock
            assert view.seats[0].deadline_unix_ms > replica.host._now_ms() + 3000 * 1000
            admin = redis.asyncio.Redis.from_url(redis_server.url)
            try:
                assert await admin.zscore(bucket_key(game_id), game_id) is not None  # the index holds it
            finally:
                await admin.aclose()
            maker = pressed_room_maker(replica, finished_after_s=3600, idle_after_s=1)
            for _ in range(3):
                await maker.round(remove=True)
            assert await game_exists(client, game_id), "a game whose seat's clock still runs was removed as idle"
            moved = await client.move(game_id, seats[0].token, view.legal_moves[0], expected_version=view.version)
            assert moved.version == view.version + 1

    run(scenario(), 60)


def test_a_move_that_arrives_in_time_is_not_refused_for_waiting_behind_a_bots_floor(redis_server: EmbeddedRedis) -> None:
    """Stimmvieh's top candidates are chosen by every seat at once. Seat 2 is a strong server bot:
    it decides as the game starts, in a few ms, and then holds the game's lock for its thinking
    floor (0.2 s) before it commits. Seat 0's move reaches the replica 1 ms before seat 0's
    deadline (the replicas' shared clock, held by the test) and waits for that lock; the clock
    moves on 2 ms while it waits (it waits far longer). The move is then refused TIME_RUN_OUT:
    the deadline is checked when the lock is had, not when the move came. The README promises
    that only a move "arriving after its deadline" is refused."""
    clock = HeldClock()

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, local_clock=clock) as (replica, client):
            await replica.host.deadline_runner.stop()  # only the kicks of steps decide here
            settings = game_pb2.TableSettings(decision_seconds=30, bot_seats=[2], bot_level="strong")
            game_id = (await client.create_game("stimmvieh", 3, stimmvieh_options(3), table=settings)).game_id
            first = await client.join(game_id, "Ada")
            # The last player's join starts the game: the bot's decision is kicked at once.
            await client.join(game_id, "Bo")
            view = await client.view(game_id, first.token)
            assert view.status == game_pb2.GAME_STATUS_ACTIVE and 0 in view.to_act
            move = view.legal_moves[0]
            deadline_ms = view.seats[0].deadline_unix_ms
            lock = replica.host._locks.get(game_id)
            assert lock is not None and lock[0].locked(), "the bot's step does not hold the game's lock"
            clock.advance_to_ms(replica, deadline_ms - 1)  # the move comes in time
            moving = await move_behind_the_games_lock(replica, client, game_id, first.token, move)
            clock.advance_to_ms(replica, deadline_ms + 1)  # 2 ms pass while it waits
            try:
                moved = await moving
            except HustingsError as error:
                raise AssertionError(f"a move that came in time was refused {error.reason}") from None
            assert moved.version > view.version
            after = await client.view(game_id, first.token)
            assert after.seats[0].timeouts == 0 and not after.seats[0].bot_played

    run(scenario(), 60)


def test_a_replica_started_as_redis_comes_back_empty_serves_with_the_running_replicas(tmp_path: pathlib.Path) -> None:
    """The secret kept in Redis, Redis comes back empty, and a replica starts at once (restarted
    by its orchestrator while Redis was away, serving as soon as Redis answers): it finds no
    secret, draws and stores another and takes the empty check value. The running replica put
    its secret back only at its guard's next round, 10 s on; then found the check value another
    secret's and turned NOT_SERVING (every running replica, in a fleet), and a join retried
    across them took a second seat. Now it follows the secret Redis keeps within a round
    (``PUT_BACK_EVERY_S``): nothing stored under the old one came back, and both serve alike."""

    async def scenario(server: EmbeddedRedis) -> None:
        config = dict(redis_url=server.url, address="127.0.0.1:0", grace_s=0.5)
        running = await Replica(ReplicaConfig(**config)).start()  # type: ignore[arg-type]
        try:
            server.stop()
            server.start()  # the same address, no append-only file: nothing came back
            later = None
            for _attempt in range(50):  # bounded: the new Redis answers within a few tenths of a second
                with contextlib.suppress(Exception):
                    later = await asyncio.wait_for(Replica(ReplicaConfig(**config)).start(), 10)  # type: ignore[arg-type]
                    break
                await asyncio.sleep(0.1)
            assert later is not None, "the later replica did not start"
            try:
                ours, theirs = running._parts["guard"], later._parts["guard"]
                for _ in range(100):  # bounded: 5 s, a few of the guard's rounds
                    if ours._value == theirs._value:  # type: ignore[attr-defined]
                        break
                    await asyncio.sleep(0.05)
                assert ours._value == theirs._value, "the running replica kept a secret nobody else holds"  # type: ignore[attr-defined]
                assert ours.agrees and theirs.agrees  # type: ignore[attr-defined]
                async with Client(f"127.0.0.1:{running.port}") as first, Client(f"127.0.0.1:{later.port}") as second:
                    game_id = (await first.create_game("stimmvieh", 3)).game_id
                    request_id = "join-as-redis-came-back-0001"
                    ada = await first.join(game_id, "Ada", request_id=request_id)
                    again = await second.join(game_id, "Ada", request_id=request_id)
                    assert (again.seat, again.token) == (ada.seat, ada.token), "the replicas hold different secrets"
            finally:
                await later.stop()
        finally:
            await running.stop()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server), 60)
