"""What the README's "Tables" section and the proto's TableSettings and Seat comments promise that
no other test held the service to: the defaults (two timeouts in a row make a seat absent, an
open game waits a day, no table means no clock and no bots), presence as a call within the last
30 s, and the warning about a clock a second or more off Redis'. Real replicas over gRPC, a real
Redis."""

from __future__ import annotations

import asyncio
import time

import redis as sync_redis
import structlog

from conftest import run, running_replica
from hustings.client import Client
from hustings.service import clock as shared_clock
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store import game_key, presence_key
from hustings.v1 import game_pb2

Change = game_pb2.SeatChanged.Change
DAY_S = 24 * 3600
ABSENT_WAIT_S = 20.0
POLL_S = 0.2


def _changes(history: list[game_pb2.HistoryEntry]) -> list[tuple[int, int]]:
    """(seat, change) of every SeatChanged event, in order."""
    return [(e.seat_changed.seat, e.seat_changed.change) for h in history for e in h.events if e.HasField("seat_changed")]


def test_two_timeouts_in_a_row_make_a_seat_absent_by_default(redis_server: EmbeddedRedis) -> None:
    """README: `absent_after_timeouts` "(default 2)"; proto: "0 means the default, 2". A table
    of 1-s decisions where nobody answers: a seat's first timeout leaves it present, its
    second in a row makes it absent."""

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                table = game_pb2.TableSettings(decision_seconds=1)
                game_id = (await client.create_game("stimmvieh", 3, table=table)).game_id
                for name in ("Ada", "Bo", "Cy"):
                    await client.join(game_id, name)
                deadline = time.monotonic() + ABSENT_WAIT_S
                changes: list[tuple[int, int]] = []
                while time.monotonic() < deadline:
                    changes = _changes(await client.history(game_id))
                    if any(change == Change.CHANGE_ABSENT for _seat, change in changes):
                        break
                    await asyncio.sleep(POLL_S)
                (first_absent, _) = next(c for c in changes if c[1] == Change.CHANGE_ABSENT)
                before = changes[: changes.index((first_absent, Change.CHANGE_ABSENT))]
                timed_out = [seat for seat, change in before if change == Change.CHANGE_TIMED_OUT]
                assert timed_out.count(first_absent) == 2, changes
                assert all(timed_out.count(seat) <= 2 for seat in range(3)), changes
                # Every seat timed out on its secret choice; none of them was made absent by it.
                assert sorted(timed_out[:3]) == [0, 1, 2], changes

    run(scenario(), timeout_s=60)


def test_an_open_game_waits_a_day_by_default(redis_server: EmbeddedRedis) -> None:
    """README: `open_seconds` "(how long an open game waits for players, default one day)";
    proto CreateGameRequest.table: "Absent: no clock, no bots"; Seat.deadline_unix_ms "0 when
    ... the table has no clock"."""
    raw = sync_redis.Redis.from_url(redis_server.url)

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                created = await client.create_game("stimmvieh", 3)
                game_id = created.game_id
                assert DAY_S - 60 < raw.ttl(game_key(game_id)) <= DAY_S
                await asyncio.sleep(1.1)
                left_before_join = raw.pttl(game_key(game_id))
                joined = await client.join(game_id, "Ada")  # the wait runs from the last join
                # Renewed by the join: more left than before it (without a renewal, less).
                assert left_before_join < raw.pttl(game_key(game_id)) <= DAY_S * 1000
                view = joined.view
                assert view.table == game_pb2.TableSettings()
                assert [(s.bot, s.deadline_unix_ms, s.bank_ms) for s in view.seats] == [(False, 0, 0)] * 3
                for name in ("Bo", "Cy"):
                    joined = await client.join(game_id, name)
                assert joined.view.status == game_pb2.GAME_STATUS_ACTIVE and joined.view.to_act
                assert all(s.deadline_unix_ms == 0 for s in joined.view.seats)  # owing, yet no clock

    try:
        run(scenario())
    finally:
        raw.close()


def test_presence_lasts_thirty_seconds_after_a_call(redis_server: EmbeddedRedis) -> None:
    """README: `present` is "seen through a call within the last 30 s"; proto Seat.present:
    "has called within the last 30 seconds". Seat 0 was last seen 29 s ago, seat 1 31 s ago
    (as Redis holds it for every replica); a replica that reads it shows only seat 0."""
    raw = sync_redis.Redis.from_url(redis_server.url)

    async def scenario() -> None:
        async with running_replica(redis_server.url) as first:
            async with Client(f"127.0.0.1:{first.port}") as client:  # type: ignore[attr-defined]
                created = await client.create_game("stimmvieh", 3)
                game_id = created.game_id
                for name in ("Ada", "Bo", "Cy"):
                    await client.join(game_id, name)
        seconds, micros = raw.time()
        now_ms = seconds * 1000 + micros // 1000
        raw.delete(presence_key(game_id))
        raw.hset(presence_key(game_id), mapping={"0": now_ms - 29_000, "1": now_ms - 31_000})
        async with running_replica(redis_server.url) as second:
            async with Client(f"127.0.0.1:{second.port}") as spectator:  # type: ignore[attr-defined]
                view = await spectator.view(game_id)
        assert [s.present for s in view.seats] == [True, False, False]

    try:
        run(scenario())
    finally:
        raw.close()


def test_a_clock_a_second_off_is_warned_about(redis_server: EmbeddedRedis) -> None:
    """README: each replica measures its clock's offset from Redis `TIME` "at start and every
    minute, and warns when it is a second or more"."""
    import redis.asyncio

    assert shared_clock.RECHECK_S == 60.0

    async def offset_logged(skew_s: float) -> list[dict[str, object]]:
        client = redis.asyncio.Redis.from_url(redis_server.url)
        try:
            clock = shared_clock.SharedClock(client, local=lambda: time.time() + skew_s)
            with structlog.testing.capture_logs() as logged:
                await clock.calibrate()
            return [line for line in logged if line.get("event") == "clock_offset_from_redis"]
        finally:
            await client.aclose()

    (warned,) = run(offset_logged(1.5))  # type: ignore[misc]
    assert warned["log_level"] == "warning" and abs(float(warned["offset_s"]) + 1.5) < 0.5  # type: ignore[arg-type]
    assert run(offset_logged(0.5)) == []


def test_the_deadline_index_is_sixteen_sets_under_distinct_hash_tags(redis_server: EmbeddedRedis) -> None:
    """README Tables: the earliest deadline of each game "is indexed in Redis (16 sorted sets
    under distinct hash tags, so a Cluster spreads them) before the step commits. Every replica
    polls the index four times a second". Clocked games started through a replica are found in
    those sets, and game ids spread over all sixteen."""
    import re

    from hustings.service import deadlines

    assert deadlines.POLL_S == 0.25  # four polls a second
    raw = sync_redis.Redis.from_url(redis_server.url)
    keys = {deadlines.bucket_key(f"g{n:024x}") for n in range(400)}
    tags = {re.fullmatch(r"hustings:deadlines:\{(d\d+)\}", key).group(1) for key in keys}  # type: ignore[union-attr]
    assert len(keys) == len(tags) == 16

    async def scenario() -> list[str]:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                table = game_pb2.TableSettings(decision_seconds=600)
                started = []
                for _ in range(6):
                    game_id = (await client.create_game("stimmvieh", 3, table=table)).game_id
                    for name in ("Ada", "Bo", "Cy"):
                        await client.join(game_id, name)
                    started.append(game_id)
                return started

    try:
        started = run(scenario())
        assert isinstance(started, list)
        for game_id in started:
            due = raw.zscore(deadlines.bucket_key(game_id), game_id)
            assert due is not None and due > time.time() * 1000 + 500_000, game_id  # its 600-s decision
    finally:
        raw.close()
