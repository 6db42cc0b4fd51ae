"""Bots built on the Python client ride out what a game and its servers do to them: the example
bot and ``play_seat`` play a seat to the end however long the other players take, as long as the
game goes on (quiet spells count only while the game stands still), and ``play_seat`` through a
restart of its only replica (its stream reopened at growing pauses for the pool's call budget);
both still give a seat up once the game stands still too long or no replica answers for that
budget. A ``Client`` whose replica restarts is answered once the replica is back (its channel
tries to connect again every 0.3 s at most). ``play_seat`` sends each decision with the version of
the view it was made on, so a decision made on a view gone stale never lands on a later turn."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Callable

import grpc
import pytest
from google.protobuf import json_format

from conftest import free_ports, run, running_replica
from hustings.ai import example_bot
from hustings.client import OWN_CONNECTION
from hustings import bots
from hustings.bots import BOT_RETRY, MAX_IDLE_REREADS, BotStats, RandomBot, Replicas, play_seat
from hustings.client import ONE_ATTEMPT, Client, HustingsError, Joined
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import Replica, ReplicaConfig
from hustings.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc
from rest_helpers import LiveRest, request_id

SLOW_GAME_S = 40.0  # far above a four-player Stimmvieh game's length here: every loop ends


async def _slow_player(client: Client, joined: Joined, think_s: float, rng: random.Random) -> None:
    """A person in ``joined``'s seat: follows the game and takes ``think_s`` over each decision;
    waits out a replica that is away (UNAVAILABLE)."""
    done = 0
    loop = asyncio.get_running_loop()
    ends = loop.time() + SLOW_GAME_S
    while loop.time() < ends:
        try:
            view = await client.view(joined.game_id, joined.token)
            if view.status == game_pb2.GAME_STATUS_FINISHED:
                return
            if joined.seat not in view.to_act or not view.legal_moves or view.version < done:
                await asyncio.sleep(0.02)
                continue
            await asyncio.sleep(think_s)
            done = (await client.move(joined.game_id, joined.token, rng.choice(list(view.legal_moves)),
                                      expected_version=view.version)).version
        except HustingsError as refused:
            # A replica stopping cuts the calls it still holds (CANCELLED) or is away (UNAVAILABLE).
            away = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED, grpc.StatusCode.DEADLINE_EXCEEDED)
            if refused.reason != "STALE_VERSION" and refused.code not in away:
                raise
            await asyncio.sleep(0.1)
    raise AssertionError("the slow player's game did not end")


async def _table_with_slow_players(client: Client) -> tuple[Joined, list[Joined]]:
    created = await client.create_game("stimmvieh", 4)
    seats = [await client.join(created.game_id, f"Player {i}") for i in range(4)]
    return seats[0], seats[1:]


def test_the_example_bot_waits_out_players_who_take_longer_than_its_quiet_limit(
    redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other players take three of the bot's quiet limits over each decision (30 s against
    the default 10 s, here scaled down): every stream the bot reopens brings the current view at
    once, the game goes on, and the bot must play its seat to the end."""
    monkeypatch.setattr(example_bot, "QUIET_S", 0.05)
    monkeypatch.setattr(example_bot, "RECONNECT_PAUSE_S", 0.005)

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica, Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
            me, others = await _table_with_slow_players(client)
            slow = [asyncio.create_task(_slow_player(client, j, 0.15, random.Random(j.seat))) for j in others]
            played = await example_bot.play([client], me, random.Random(1))
            final = await client.view(me.game_id, me.token)
            for task in slow:
                task.cancel()
            await asyncio.gather(*slow, return_exceptions=True)
            # The bot followed the game to the end rather than giving up a seat still in play.
            assert played.view.status == game_pb2.GAME_STATUS_FINISHED, (
                f"the bot stopped at version {played.view.version} after {len(played.watched_from)} streams"
            )
            assert final.status == game_pb2.GAME_STATUS_FINISHED

    run(scenario(), timeout_s=60)


def test_play_seat_waits_out_players_who_take_longer_than_its_idle_limit(redis_server: EmbeddedRedis) -> None:
    """As above for ``hustings.bots.play_seat`` (idle limit 5 s by default; players taking 30 s
    a decision, here scaled down): a stream reopened after a quiet spell is not a failure."""
    idle_s = 0.02

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica, Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
            me, others = await _table_with_slow_players(client)
            slow = [asyncio.create_task(_slow_player(client, j, 6 * idle_s, random.Random(j.seat))) for j in others]
            stats = BotStats()
            last = await play_seat(client, me, RandomBot(random.Random(1)), stats, idle_s=idle_s)
            for task in slow:
                task.cancel()
            await asyncio.gather(*slow, return_exceptions=True)
            assert last is not None
            assert "SEAT_GAVE_UP" not in stats.error_reasons, f"{MAX_IDLE_REREADS} quiet spells at most: {stats}"
            assert last.status == game_pb2.GAME_STATUS_FINISHED, f"play_seat stopped at version {last.version}: {stats}"

    run(scenario(), timeout_s=60)


DOWN_S = 6.0  # a replica restart: long enough for the channel's reconnect backoff to pass a few seconds
STARTED_WITHIN_S = 10.0


def _restartable(redis_url: str) -> tuple[str, Callable[[], Replica]]:
    """A fixed loopback address, and replicas to start at it one after another (a restart)."""
    (port,) = free_ports(1)
    address = f"127.0.0.1:{port}"
    return address, lambda: Replica(ReplicaConfig(redis_url=redis_url, address=address, grace_s=0.2))


def test_a_client_is_answered_once_its_replica_is_back(redis_server: EmbeddedRedis) -> None:
    """A bot's client keeps calling while its only replica restarts (a stream reopened every
    0.5 s, as the example bot does). Once the replica answers a new connection again, the bot's
    client (and any other ``Client`` of that address in the process) must be answered too, within
    one call and its retries, not refused UNAVAILABLE "Connection refused" from the channel's
    memory of the outage."""
    address, replica = _restartable(redis_server.url)

    async def scenario() -> None:
        first = await replica().start()
        async with Client(address) as client:
            await client.kinds()
            await first.stop()
            down_since = asyncio.get_running_loop().time()
            refused = 0
            while asyncio.get_running_loop().time() - down_since < DOWN_S:  # bounded: DOWN_S / 0.5 calls
                with pytest.raises(HustingsError):
                    await client.with_retry(ONE_ATTEMPT).kinds()
                refused += 1
                await asyncio.sleep(0.5)
            assert refused >= 5
            second = await replica().start()
            try:
                # The replica is back: a new connection is answered (a channel of its own: gRPC
                # shares one connection per address among a process's channels by default).
                async with grpc.aio.insecure_channel(address, options=OWN_CONNECTION) as channel:
                    stub = game_service_pb2_grpc.GameServiceStub(channel)
                    assert (await stub.ListGameKinds(game_service_pb2.ListGameKindsRequest(), timeout=STARTED_WITHIN_S)).kinds
                try:
                    kinds = await client.kinds()  # the default retries: six attempts, 1.55 s of pauses at most
                except HustingsError as error:
                    pytest.fail(f"the replica is back but the client was refused: {error}")
                assert kinds
            finally:
                await second.stop()

    run(scenario(), timeout_s=60)


def test_play_seat_rides_out_a_restart_of_its_replica(redis_server: EmbeddedRedis) -> None:
    """``hustings bots`` and ``play_seat`` against one server (or one address behind a balancer):
    the replica restarts, away for 3 s, mid-game. Its moves would be retried for a minute
    (``BOT_CALL_BUDGET_S``); the seat's stream must be reopened as long, not given up after a
    few quick tries, and the seat played to the end once the replica is back."""
    address, replica = _restartable(redis_server.url)

    async def scenario() -> None:
        first = await replica().start()
        second: Replica | None = None
        async with Client(address) as client:
            me, others = await _table_with_slow_players(client)
            slow = [asyncio.create_task(_slow_player(client, j, 0.05, random.Random(j.seat))) for j in others]
            stats = BotStats()
            seat = asyncio.create_task(play_seat(client, me, RandomBot(random.Random(1)), stats))
            try:
                for _ in range(200):  # 10 s at most: the bot's first moves are made
                    if stats.moves >= 2 or seat.done():
                        break
                    await asyncio.sleep(0.05)
                assert stats.moves >= 2 and not seat.done(), stats
                await first.stop()
                await asyncio.sleep(3.0)
                second = await replica().start()
                assert not seat.done(), f"play_seat gave its seat up while the replica restarted: {stats}"
                await asyncio.wait({seat, *slow}, timeout=40, return_when=asyncio.FIRST_EXCEPTION)
                failed = [task.exception() for task in slow if task.done() and task.exception() is not None]
                assert not failed, f"a player's program failed, the game could not go on: {failed!r}"
                last = await asyncio.wait_for(seat, 1)
                assert last is not None and last.status == game_pb2.GAME_STATUS_FINISHED, stats
            finally:
                for task in [seat, *slow]:
                    task.cancel()
                await asyncio.gather(seat, *slow, return_exceptions=True)
                if second is not None:
                    await second.stop()

    run(scenario(), timeout_s=90)


class _OverruledOnce:
    """A bot whose first politician takes it long: meanwhile another program of the same seat (a
    browser tab of its player, over REST) decides that turn, and the game comes round to the seat
    again. The bot then sends a move it chose from the first turn's list, one that the new turn
    lists too. It notes the version of every view it decided on."""

    def __init__(self, live: LiveRest, game_id: str, token: str) -> None:
        self.live, self.game_id, self.token = live, game_id, token
        self.rng = random.Random(2)
        self.decided_on: list[int] = []
        self.slow_at: int | None = None
        self.sent: game_pb2.Move | None = None

    def choose(self, view: game_pb2.GameView) -> game_pb2.Move:
        self.decided_on.append(view.version)
        recurring = [m for m in view.legal_moves if m.stimmvieh.HasField("play_politician")]
        if not recurring or self.slow_at is not None:
            return self.rng.choice(list(view.legal_moves))
        self.slow_at = view.version
        # The other program decides this turn (blocking this thread only: the replica has its own).
        other = max(recurring, key=lambda m: m.stimmvieh.play_politician.influence)
        self.live.ok("POST", f"/v1/games/{self.game_id}/moves", {
            "requestId": request_id(), "expectedVersion": str(view.version), "move": json_format.MessageToDict(other),
        }, self.token)
        for _ in range(100):  # 10 s at most: the server's bots move at once
            later = self.live.ok("GET", f"/v1/games/{self.game_id}/view", token=self.token)["view"]
            if view.seat in later.get("toAct", []):
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the seat's turn did not come round again")
        listed_later = [json_format.ParseDict(m, game_pb2.Move()) for m in later["legalMoves"]]
        both = [m for m in recurring if m in listed_later and m != other]
        assert both, "no move listed at both turns"
        self.sent = both[0]
        return self.sent


def test_play_seat_never_lands_a_decision_on_a_table_it_did_not_see(redis_server: EmbeddedRedis) -> None:
    """The bot's seat is decided elsewhere while the bot thinks (another program of the seat here;
    the seat's clock running out does the same), and the game comes round to the seat again. The
    decision the bot then sends was made for a table that is gone: it must be refused
    (STALE_VERSION, as the README tells every bot to ask for) and the bot decide again, not have
    it applied to the seat's new turn."""
    table = game_pb2.TableSettings(bot_seats=[1, 2])
    with LiveRest(redis_server.url) as live:
        assert live.replica is not None
        address = f"127.0.0.1:{live.replica.port}"

        async def scenario() -> tuple[list[int], _OverruledOnce]:
            async with Client(address) as client:
                created = await client.create_game("stimmvieh", 3, table=table)
                me = await client.join(created.game_id, "Bot")
                bot, stats = _OverruledOnce(live, created.game_id, me.token), BotStats()
                last = await play_seat(client, me, bot, stats)
                assert last is not None and last.status == game_pb2.GAME_STATUS_FINISHED, stats
                history = await client.history(created.game_id)
                # The move sent applied at a later turn than the one it was chosen on (a later
                # choice of the same move, on the view of its own turn, is the bot's to make).
                late = [
                    e.version for e in history
                    if e.HasField("seat") and e.seat == me.seat and e.move == bot.sent
                    and e.version > (bot.slow_at or 0) + 1 and e.version - 1 not in bot.decided_on
                ]
                return late, bot

        late, bot = run(scenario(), timeout_s=60)  # type: ignore[misc]
        assert bot.slow_at is not None and bot.sent is not None
        assert not late, f"chosen on the view of version {bot.slow_at}, applied at version {late}: a turn the bot never saw"


async def _table_nobody_else_plays(client: Client) -> Joined:
    """Seat 0 of a running four-player game whose other players never move (no clock)."""
    created = await client.create_game("stimmvieh", 4)
    seats = [await client.join(created.game_id, f"Player {i}") for i in range(4)]
    return seats[0]


def test_the_example_bot_still_gives_a_seat_up_once_the_game_stands_still(
    redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The example bot's streams only count while the game stands still, but they still count:
    in a game that nobody else moves in it stops after ``MAX_WATCHES`` streams."""
    monkeypatch.setattr(example_bot, "QUIET_S", 0.05)
    monkeypatch.setattr(example_bot, "RECONNECT_PAUSE_S", 0.005)
    monkeypatch.setattr(example_bot, "MAX_WATCHES", 3)

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica, Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
            me = await _table_nobody_else_plays(client)
            played = await asyncio.wait_for(example_bot.play([client], me, random.Random(1)), 10)
            assert played.view.status == game_pb2.GAME_STATUS_ACTIVE
            # The first stream brought the game's state (the game moved on for the bot), then
            # three more without anything new.
            assert len(played.watched_from) == 4, played.watched_from

    run(scenario(), timeout_s=30)


def test_play_seat_still_gives_a_seat_up_once_the_game_stands_still(
    redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Quiet spells only count while the game stands still, but they still count: a game that
    nobody else moves in is given up after ``MAX_IDLE_REREADS`` more quiet streams."""
    monkeypatch.setattr(bots, "MAX_IDLE_REREADS", 3)

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica, Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
            me = await _table_nobody_else_plays(client)
            stats = BotStats()
            last = await asyncio.wait_for(play_seat(client, me, RandomBot(random.Random(1)), stats, idle_s=0.05), 10)
            assert last is not None and last.status == game_pb2.GAME_STATUS_ACTIVE
            assert stats.error_reasons == {"SEAT_GAVE_UP": 1}, stats
            assert stats.rereads == 4, stats  # the limit, then one more quiet stream

    run(scenario(), timeout_s=30)


def test_play_seat_still_gives_a_seat_up_when_no_replica_answers_for_its_budget(redis_server: EmbeddedRedis) -> None:
    """The stream is reopened at growing pauses (the pool's backoff, 1 s at most) for the pool's
    call budget after the replica went away, not for ever: a replica that does not come back
    costs the seat about that budget, then the seat is given up."""
    budget_s = 2.0
    address, replica_at_address = _restartable(redis_server.url)

    async def scenario() -> None:
        replica = await replica_at_address().start()
        stopped = False
        async with Client(address) as client:
            try:
                me = await _table_nobody_else_plays(client)
                stats = BotStats()
                pool = Replicas([client], random.Random(3), budget_s=budget_s)
                seat = asyncio.create_task(play_seat(pool, me, RandomBot(random.Random(1)), stats))
                await asyncio.sleep(0.5)  # the bot follows the game (and made its move if it owed one)
                assert not seat.done(), stats
                await replica.stop()
                stopped = True
                away_since = asyncio.get_running_loop().time()
                last = await asyncio.wait_for(seat, budget_s + 5)
                away_s = asyncio.get_running_loop().time() - away_since
                assert last is not None and stats.error_reasons == {"SEAT_GAVE_UP": 1}, stats
                # Given up near the budget: not before its last pause (1 s at most) could fit in it.
                assert budget_s - BOT_RETRY.max_backoff_s <= away_s <= budget_s + 1.0, (away_s, stats)
                # Pauses growing to 1 s, not 50 ms apart (that would be 40 openings in 2 s).
                assert 3 <= stats.reopened <= 25, stats
            finally:
                if not stopped:
                    await replica.stop()

    run(scenario(), timeout_s=30)
