"""The table lifecycle through the real service: clocks and timeouts, leaving and returning,
taking over an absent seat, bots in seats, expiry. Real Redis processes, real gRPC replicas
(in-process, and as processes for the kill test).
"""

from __future__ import annotations

import asyncio
import pathlib
import random
import time

import grpc
import pytest
import redis

from conftest import run, serve_process
from service_helpers import choose_top_candidates, replica_and_client as _replica, stimmvieh_options
from hustings.client import Client, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import Replica, ReplicaConfig
from hustings.service.store import LOBBY_KEY, presence_key
from hustings.v1 import game_pb2, game_service_pb2
from hustings.verify import verify_log

Change = game_pb2.SeatChanged.Change
FINISH_TIMEOUT_S = 90.0




def _auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


async def _create(client: Client, players: int = 3, **table: object) -> str:
    request = game_service_pb2.CreateGameRequest(kind="stimmvieh", options=stimmvieh_options(players))
    request.table.CopyFrom(game_pb2.TableSettings(**table))  # type: ignore[arg-type]
    return (await client.stub.CreateGame(request)).game_id


async def _until_finished(client: Client, game_id: str, timeout_s: float = FINISH_TIMEOUT_S) -> game_pb2.GameView:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        view = await client.view(game_id)
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            return view
        await asyncio.sleep(0.2)
    raise AssertionError(f"game {game_id} did not finish within {timeout_s} s")


def _changes(history: list[game_pb2.HistoryEntry], change: int) -> list[int]:
    return [e.seat_changed.seat for h in history for e in h.events if e.HasField("seat_changed") and e.seat_changed.change == change]


@pytest.mark.usefixtures("quick_bots")  # once every seat is absent, its bots finish the game quickly
def test_a_game_whose_players_stop_answering_finishes_on_its_own(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with _replica(redis_server.url) as (_, client):
            game_id = await _create(client, decision_seconds=1, absent_after_timeouts=1)
            seats = [await client.join(game_id, name) for name in ("Ada", "Bo", "Cy")]
            view = await client.view(game_id, seats[0].token)
            assert all(s.deadline_unix_ms > 0 for s in view.seats)  # every seat owes its choice
            final = await _until_finished(client, game_id)
            history = await client.history(game_id)
            assert sorted(_changes(history, Change.CHANGE_TIMED_OUT)) == [0, 1, 2]
            assert sorted(_changes(history, Change.CHANGE_ABSENT)) == [0, 1, 2]
            assert all(s.absent and s.bot_played for s in final.seats)
            assert all(p.bot_played for p in final.outcome.placings if p.HasField("seat"))
            assert verify_log(final, history).ok

    run(scenario(), timeout_s=FINISH_TIMEOUT_S + 30)


def test_a_timeout_never_lands_on_a_seat_that_moved_in_time(redis_server: EmbeddedRedis) -> None:
    """Each seat submits its choice within a few milliseconds of its deadline, on either side."""
    rng = random.Random(11)

    async def race(client: Client, game_id: str, joined: object, deadline_ms: int) -> bool:
        await asyncio.sleep(max(0.0, (deadline_ms + rng.uniform(-60, 40)) / 1000 - time.time()))
        try:
            await client.move(game_id, joined.token, choose_top_candidates(1, 2, 3, 4))  # type: ignore[attr-defined]
            return True
        except HustingsError as error:
            assert error.code == grpc.StatusCode.FAILED_PRECONDITION, error
            return False

    async def scenario() -> None:
        async with _replica(redis_server.url) as (_, one), _replica(redis_server.url) as (_, two):
            outcomes = {True: 0, False: 0}
            for _game in range(6):
                game_id = await _create(one, players=4, decision_seconds=1)
                seats = [await one.join(game_id, f"P{i}") for i in range(4)]
                view = await one.view(game_id)
                deadline = {s.seat: s.deadline_unix_ms for s in view.seats}
                moved = await asyncio.gather(
                    *(race((one, two)[j.seat % 2], game_id, j, deadline[j.seat]) for j in seats)
                )
                view = await one.view(game_id)
                assert view.stimmvieh.phase != 1 or view.version > 5  # everybody's choice is made
                history = await one.history(game_id)
                timed_out = _changes(history, Change.CHANGE_TIMED_OUT)
                choosing = [h for h in history if h.version > 5 and h.version <= 9]
                assert len(choosing) == 4 and sorted(h.seat for h in choosing) == [0, 1, 2, 3]
                for joined, ok in zip(seats, moved):
                    outcomes[ok] += 1
                    # Exactly one of the two happened for the seat: its own move, or the timeout.
                    assert (joined.seat in timed_out) != ok
            assert outcomes[True] and outcomes[False], outcomes  # the race went both ways

    run(scenario(), timeout_s=120)


@pytest.mark.usefixtures("quick_bots")  # once every seat is absent, its bots finish the game quickly
def test_three_replicas_apply_each_timeout_once(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with _replica(redis_server.url) as (_, a), _replica(redis_server.url) as (_, b), _replica(redis_server.url) as (_, c):
            game_ids = []
            for i in range(3):
                game_id = await _create((a, b, c)[i], decision_seconds=1, absent_after_timeouts=3)
                for name in ("Ada", "Bo", "Cy"):
                    await (a, b, c)[i].join(game_id, name)
                game_ids.append(game_id)
            for game_id in game_ids:
                final = await _until_finished(c, game_id)
                history = await a.history(game_id)
                assert verify_log(final, history).ok
                steps = [h for h in history if h.HasField("move")]
                # Every decision once: the choices of the three seats, then one turn after another.
                assert sorted(h.seat for h in steps[:3]) == [0, 1, 2]
                timed_out = _changes(history, Change.CHANGE_TIMED_OUT)
                assert sorted(timed_out) == [0, 0, 0, 1, 1, 1, 2, 2, 2]

    run(scenario(), timeout_s=FINISH_TIMEOUT_S * 2)


@pytest.mark.slow
def test_a_replica_killed_with_deadlines_pending_loses_none(redis_server: EmbeddedRedis) -> None:
    with serve_process("--redis-url", redis_server.url) as (victim, port_a), serve_process("--redis-url", redis_server.url) as (_, port_b):

        async def scenario() -> None:
            async with Client(f"127.0.0.1:{port_a}") as a, Client(f"127.0.0.1:{port_b}") as b:
                game_ids = []
                for _ in range(4):
                    game_id = await _create(a, decision_seconds=1, absent_after_timeouts=1)
                    for name in ("Ada", "Bo", "Cy"):
                        await a.join(game_id, name)
                    game_ids.append(game_id)
                victim.kill()  # kill -9, with every game's first deadline pending
                for game_id in game_ids:
                    final = await _until_finished(b, game_id)
                    assert all(s.absent for s in final.seats)

        run(scenario(), timeout_s=FINISH_TIMEOUT_S + 30)


def test_a_seat_left_and_reclaimed(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with _replica(redis_server.url) as (_, client):
            game_id = await _create(client)
            seats = [await client.join(game_id, name) for name in ("Ada", "Bo", "Cy")]
            left = await client.stub.LeaveGame(game_service_pb2.LeaveGameRequest(game_id=game_id), metadata=_auth(seats[0].token))
            assert left.view.seats[0].absent
            # Its bot makes its choice at once; the others still owe theirs.
            deadline = time.monotonic() + 20
            view = await client.view(game_id)
            while 0 in view.to_act and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
                view = await client.view(game_id)
            assert 0 not in view.to_act and {1, 2} <= set(view.to_act)
            back = await client.stub.ReturnToGame(game_service_pb2.ReturnToGameRequest(game_id=game_id), metadata=_auth(seats[0].token))
            assert not back.view.seats[0].absent and back.view.seats[0].bot_played
            with pytest.raises(grpc.aio.AioRpcError) as again:
                await client.stub.ReturnToGame(game_service_pb2.ReturnToGameRequest(game_id=game_id), metadata=_auth(seats[0].token))
            assert again.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            await client.move(game_id, seats[1].token, choose_top_candidates(1, 2, 3, 4))
            await client.move(game_id, seats[2].token, choose_top_candidates(1, 2, 3, 4))
            view = await client.view(game_id, seats[0].token)
            # The campaign began; whoever is to act, the returned seat decides for itself again.
            await asyncio.sleep(0.6)
            later = await client.view(game_id)
            if view.to_act == [0]:
                assert later.version == view.version  # no bot moved for the returned seat
            history = await client.history(game_id)
            assert _changes(history, Change.CHANGE_LEFT) == [0] and _changes(history, Change.CHANGE_RETURNED) == [0]

    run(scenario())


def test_an_absent_seat_taken_over_by_a_newcomer(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with _replica(redis_server.url) as (_, client):
            closed = await _create(client)
            game_id = await _create(client, allow_takeover=True)
            for gid in (closed, game_id):
                seats = [await client.join(gid, name) for name in ("Ada", "Bo", "Cy")]
                await client.stub.LeaveGame(game_service_pb2.LeaveGameRequest(game_id=gid), metadata=_auth(seats[0].token))
            request = game_service_pb2.TakeOverSeatRequest(game_id=closed, seat=0, display_name="Dee", request_id="take-over-1-8d2f6c")
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await client.stub.TakeOverSeat(request)
            assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
            assert HustingsError.from_rpc_error(refused.value).reason == "TAKEOVER_NOT_ALLOWED"
            request.game_id = game_id
            taken = await client.stub.TakeOverSeat(request)
            again = await client.stub.TakeOverSeat(request)  # a retry: the same token, nothing more
            assert (again.seat, again.seat_token) == (taken.seat, taken.seat_token) == (0, taken.seat_token)
            view = await client.view(game_id, taken.seat_token)
            assert view.seat == 0 and view.seats[0].display_name == "Dee" and not view.seats[0].absent
            old_token = seats[0].token
            with pytest.raises(HustingsError) as old:
                await client.view(game_id, old_token)
            assert old.value.code == grpc.StatusCode.UNAUTHENTICATED
            busy = game_service_pb2.TakeOverSeatRequest(game_id=game_id, seat=1, display_name="Eve", request_id="take-over-2-0b7e44")
            with pytest.raises(grpc.aio.AioRpcError) as present:
                await client.stub.TakeOverSeat(busy)
            assert present.value.code() == grpc.StatusCode.FAILED_PRECONDITION

    run(scenario())


@pytest.mark.usefixtures("quick_bots")  # the bots' game only sets the scene
def test_a_game_filled_with_bots_from_the_lobby_plays_to_the_end(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with _replica(redis_server.url) as (_, client):
            game_id = await _create(client, players=4, bot_seats=[2])
            listed = {g.game_id: g for g in (await client.games()).games}[game_id]
            assert listed.seats[2].bot and listed.status == game_pb2.GAME_STATUS_OPEN
            for _ in range(3):
                await client.stub.AddBot(game_service_pb2.AddBotRequest(game_id=game_id, level="random"))
            with pytest.raises(grpc.aio.AioRpcError) as full:
                await client.stub.AddBot(game_service_pb2.AddBotRequest(game_id=game_id))
            assert full.value.code() == grpc.StatusCode.FAILED_PRECONDITION
            final = await _until_finished(client, game_id)
            assert all(s.bot for s in final.seats) and len(final.outcome.placings) >= 4
            assert verify_log(final, await client.history(game_id)).ok

    run(scenario())


def test_expired_games_and_all_their_keys_are_gone(tmp_path: pathlib.Path) -> None:
    async def scenario(url: str) -> None:
        async with _replica(url, retention_s=1) as (replica, client):
            raw = redis.Redis.from_url(url)
            try:

                def keys_of(game_id: str) -> list[bytes]:
                    return list(raw.scan_iter(match=f"*{{{game_id}}}*"))

                # Each game's keys are seen as soon as it is made: the unjoined one has a second,
                # which the bots' game may take to finish on a busy machine.
                unjoined = await _create(client, open_seconds=1)
                assert keys_of(unjoined)
                played = await _create(client, players=3, bot_seats=[0, 1, 2])
                assert keys_of(played)
                await _until_finished(client, played)
                deadline = time.monotonic() + 15
                while time.monotonic() < deadline and any(keys_of(g) for g in (unjoined, played)):
                    await asyncio.sleep(0.2)
                for game_id in (unjoined, played):
                    assert not keys_of(game_id), game_id
            finally:
                raw.close()
            listed = {g.game_id for g in (await client.games(page_size=200)).games}
            assert unjoined not in listed and played not in listed
            for game_id in (unjoined, played):
                with pytest.raises(HustingsError) as gone:
                    await client.view(game_id)
                assert gone.value.code == grpc.StatusCode.NOT_FOUND
            await replica.host.lobby_repair.repair_once()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url))


def test_the_time_bank_runs_down_with_use_and_grows_by_the_increment() -> None:
    """A chess clock: 60 s bank, 5 s increment, 20 s limit per decision."""
    from hustings.service import table
    from hustings.storage.v1 import storage_pb2

    stored = storage_pb2.StoredGame(status=game_pb2.GAME_STATUS_ACTIVE)
    stored.table.CopyFrom(game_pb2.TableSettings(decision_seconds=20, bank_seconds=60, increment_seconds=5))
    for seat in range(2):
        stored.seats.add(seat=seat)
    table.start_banks(stored)
    table.settle(stored, {0}, None, now_ms=1_000)
    assert stored.seats[0].deadline_ms == 21_000  # the decision limit comes before the bank
    assert stored.seats[1].deadline_ms == 0 and table.next_due(stored) == 21_000
    table.settle(stored, {1}, mover=0, now_ms=13_000)  # seat 0 used 12 s
    assert stored.seats[0].bank_ms == 60_000 - 12_000 + 5_000 and stored.seats[0].deadline_ms == 0
    assert stored.seats[1].deadline_ms == 33_000
    stored.seats[1].bank_ms = 4_000  # nearly out of time: the bank comes first
    table.settle(stored, {1}, None, now_ms=14_000)
    assert stored.seats[1].deadline_ms == 13_000 + 4_000
    assert table.due_seats(stored, {1}, now_ms=17_000) == [1] and table.due_seats(stored, {1}, now_ms=16_999) == []
    stored.seats[1].absent = True  # an absent seat's bot decides at once
    table.settle(stored, {1}, None, now_ms=15_000)
    assert stored.seats[1].deadline_ms == 13_000


def test_bad_table_settings_are_refused_with_a_reason(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with _replica(redis_server.url) as (_, client):
            lobby = redis.Redis.from_url(redis_server.url)
            before = lobby.zcard(LOBBY_KEY)
            for settings, reason in (
                ({"decision_seconds": -1}, "BAD_TABLE_SETTINGS"),
                # README: open_seconds "at most 30 days" (and every other time the same).
                ({"open_seconds": 30 * 24 * 3600 + 1}, "BAD_TABLE_SETTINGS"),
                ({"decision_seconds": 30 * 24 * 3600 + 1}, "BAD_TABLE_SETTINGS"),
                ({"increment_seconds": 5}, "BAD_TABLE_SETTINGS"),
                ({"bot_seats": [3]}, "BAD_TABLE_SETTINGS"),
                ({"bot_seats": [1, 1]}, "BAD_TABLE_SETTINGS"),
                ({"bot_level": "grandmaster"}, "UNKNOWN_BOT_LEVEL"),
            ):
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await _create(client, **settings)
                assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
                assert HustingsError.from_rpc_error(refused.value).reason == reason
            assert lobby.zcard(LOBBY_KEY) == before  # nothing was created, not even a lobby entry
            lobby.close()

    run(scenario())


def test_views_show_who_is_present(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with _replica(redis_server.url) as (_, one), _replica(redis_server.url) as (_, two):
            game_id = await _create(one, players=3, bot_seats=[2])
            seats = [await one.join(game_id, name) for name in ("Ada", "Bo")]
            # A join is a call: both joiners are present, as their joins' commits noted them.
            raw = redis.Redis.from_url(redis_server.url)
            try:
                assert sorted(int(s) for s in raw.hkeys(presence_key(game_id))) == [0, 1]
                assert [s.present for s in (await two.view(game_id)).seats] == [True, True, True]
                # Bo was last seen 31 s ago, as if he had not called since; Ada calls now.
                seconds, micros = raw.time()
                raw.hset(presence_key(game_id), "1", seconds * 1000 + micros // 1000 - 31_000)
                mine = await one.view(game_id, seats[0].token)
                assert mine.seats[0].present  # the caller sees itself present at once
                # Another replica, which has not read this game's presence yet, reads it from Redis.
                async with _replica(redis_server.url) as (_, three):
                    view = await three.view(game_id)
            finally:
                raw.close()
            assert [s.present for s in view.seats] == [True, False, True]  # a bot is always there

    run(scenario())


def test_clockbench_prints_its_figures_and_applies_every_due_deadline() -> None:
    import json
    import subprocess
    import sys

    from hustings.service.client_limits import DEFAULT_CREATE_BURST

    # More due games than one client may create at once on a replica with default limits: the
    # tool's own replica must not hold it to them.
    due = DEFAULT_CREATE_BURST + 10
    done = subprocess.run(
        [sys.executable, "-m", "hustings.cli", "clockbench", "--clients", "2", "--seconds", "1", "--due-games", str(due)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["moves_per_s_clocks_off"] > 0 and figures["moves_per_s_clocks_on"] > 0
    assert figures["due_decisions_applied"] == due * 3 and figures["due_games_not_done"] == 0
    assert figures["due_games_indexed"] >= due


def test_a_replica_stopped_right_after_it_started_stops(redis_server: EmbeddedRedis) -> None:
    """Its background loops (deadlines, lobby repair) end even when a Redis call swallows the
    cancellation."""

    async def scenario() -> None:
        for _ in range(5):
            replica = await Replica(ReplicaConfig(redis_url=redis_server.url, address="127.0.0.1:0", grace_s=1.0)).start()
            await asyncio.wait_for(replica.stop(), 15)

    run(scenario(), timeout_s=120)


def test_a_bot_added_at_its_own_level_leaves_the_tables_level_alone(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with _replica(redis_server.url) as (_, client):
            game_id = await _create(client, players=3, bot_seats=[0], bot_level="greedy")
            await client.stub.AddBot(game_service_pb2.AddBotRequest(game_id=game_id, seat=1, level="random"))
            view = await client.view(game_id)
            assert view.table.bot_level == "greedy"
            assert [s.display_name for s in view.seats[:2]] == ["Bot (greedy)", "Bot (random)"]
            with pytest.raises(grpc.aio.AioRpcError) as unknown:
                await client.stub.AddBot(game_service_pb2.AddBotRequest(game_id=game_id, seat=2, level="grandmaster"))
            assert unknown.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert not (await client.view(game_id)).seats[2].taken  # nothing changed

    run(scenario())


def test_a_seat_holding_a_stream_is_present(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with _replica(redis_server.url) as (first, one), _replica(redis_server.url) as (_, two):
            game_id = await _create(one, players=3)
            seats = [await one.join(game_id, name) for name in ("Ada", "Bo", "Cy")]
            # The joins were calls: as if nobody had called for 31 s since, and the first replica
            # had noted nobody (so Bo's stream notes him at once rather than at its next renewal).
            raw = redis.Redis.from_url(redis_server.url)
            try:
                seconds, micros = raw.time()
                long_ago = seconds * 1000 + micros // 1000 - 31_000
                raw.hset(presence_key(game_id), mapping={"0": long_ago, "1": long_ago, "2": long_ago})
            finally:
                raw.close()
            first.host.presence._touched.clear()  # type: ignore[attr-defined]
            stream = one.watch(game_id, seats[1].token)  # Bo only watches; he never calls
            await asyncio.wait_for(stream.__anext__(), 20)
            deadline = time.monotonic() + 20
            view = await two.view(game_id)
            while not view.seats[1].present and time.monotonic() < deadline:
                await asyncio.sleep(0.3)
                view = await two.view(game_id)
            assert view.seats[1].present and not view.seats[2].present
            await stream.aclose()

    run(scenario())
