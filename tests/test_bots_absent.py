"""Tables through the Python client: ``hustings bots`` with seats that never answer on a clock,
and the client's table calls (create with settings, leave, return, take over, add a bot)
against a real replica over a real Redis.
"""

from __future__ import annotations

import asyncio
import json
import pathlib
import subprocess
import sys
import time

import grpc
import pytest

from conftest import run, running_replica
from service_helpers import stimmvieh_options
from hustings.bots import ABSENT_AFTER_TIMEOUTS
from hustings.client import Client, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis, free_port
from hustings.v1 import game_pb2

Change = game_pb2.SeatChanged.Change
CLI = [sys.executable, "-m", "hustings.cli"]


def _changes(history: list[game_pb2.HistoryEntry], change: int) -> list[int]:
    return [e.seat_changed.seat for h in history for e in h.events if e.HasField("seat_changed") and e.seat_changed.change == change]


def test_bots_with_absent_seats_finish_every_game_through_timeouts() -> None:
    games, absent = 2, 1
    done = subprocess.run(
        [*CLI, "bots", "--games", str(games), "--players", "3", "--absent-seats", str(absent), "--move-seconds", "1", "--seed", "3"],
        capture_output=True, text=True, timeout=240,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["games_finished"] == games and summary["errors"] == 0, summary
    # Each seat that never answers times out this often in a row before it is absent.
    assert summary["timeouts"] >= games * absent * ABSENT_AFTER_TIMEOUTS, summary
    assert (summary["absent_seats"], summary["move_seconds"]) == (absent, 1)
    assert summary["moves"] > 0  # the two answering seats played too


def test_bots_refuse_absent_seats_without_a_clock_in_one_line() -> None:
    for argv, words in (
        (["--absent-seats", "1"], "needs --move-seconds"),
        (["--absent-seats", "5", "--players", "4", "--move-seconds", "1"], "0 to --players (4)"),
    ):
        done = subprocess.run([*CLI, "bots", *argv], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, done.stderr
        (line,) = [line for line in done.stderr.splitlines() if line.strip()]
        assert words in line and "Traceback" not in done.stderr


async def _joined(client: Client, game_id: str, names: tuple[str, ...]) -> list[str]:
    return [(await client.join(game_id, name)).token for name in names]


def test_client_creates_a_table_leaves_returns_and_takes_over(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica, Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
            table = game_pb2.TableSettings(decision_seconds=600, allow_takeover=True)
            created = await client.create_game("stimmvieh", 3, stimmvieh_options(3), table=table)
            assert created.view.table.decision_seconds == 600 and created.view.table.allow_takeover
            ada, _bo, _cy = await _joined(client, created.game_id, ("Ada", "Bo", "Cy"))
            game_id = created.game_id

            left = await client.leave(game_id, ada)
            assert left.view.seat == 0 and left.view.seats[0].absent
            with pytest.raises(HustingsError) as twice:
                await client.leave(game_id, ada)  # not a retry: the refusal stands
            assert (twice.value.code, twice.value.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "ALREADY_ABSENT")

            back = await client.return_to_game(game_id, ada)
            assert not back.view.seats[0].absent
            with pytest.raises(HustingsError) as again:
                await client.return_to_game(game_id, ada)
            assert again.value.reason == "NOT_ABSENT"

            with pytest.raises(HustingsError) as present:
                await client.take_over(game_id, 0, "Dee")
            assert present.value.reason == "SEAT_NOT_ABSENT"
            await client.leave(game_id, ada)
            dee = await client.take_over(game_id, 0, "Dee", request_id="dee-takes-over-4f9c2e")
            retried = await client.take_over(game_id, 0, "Dee", request_id="dee-takes-over-4f9c2e")
            assert (dee.seat, retried.token) == (0, dee.token) and dee.view.seats[0].display_name == "Dee"
            mine = await client.view(game_id, dee.token)
            assert mine.seat == 0 and not mine.seats[0].absent
            with pytest.raises(HustingsError) as old:
                await client.view(game_id, ada)
            assert old.value.code == grpc.StatusCode.UNAUTHENTICATED

            history = await client.history(game_id)
            assert _changes(history, Change.CHANGE_LEFT) == [0, 0]
            assert _changes(history, Change.CHANGE_RETURNED) == [0]
            assert _changes(history, Change.CHANGE_TAKEN_OVER) == [0]

    run(scenario())


def test_a_bots_seat_in_a_running_game_can_be_taken_over_where_the_table_allows_it(redis_server: EmbeddedRedis) -> None:
    """TakeOverSeat takes a server bot's seat as it takes an absent one (the proto's comment on
    ``TakeOverSeatRequest.seat``): the newcomer gets a token of the seat, which is then a player's,
    and sees what the seat hides; at a table that does not allow takeovers it is refused."""

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica, Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
            refused_ids = []
            for allow in (True, False):
                table = game_pb2.TableSettings(decision_seconds=600, allow_takeover=allow)
                game_id = (await client.create_game("stimmvieh", 3, stimmvieh_options(3), table=table)).game_id
                await _joined(client, game_id, ("Ada", "Bo"))
                bot = await client.add_bot(game_id, level="random")  # seat 2: the game starts
                assert bot.seat == 2 and bot.view.status == game_pb2.GAME_STATUS_ACTIVE and bot.view.seats[2].bot
                if not allow:
                    with pytest.raises(HustingsError) as refused:
                        await client.take_over(game_id, 2, "Dee")
                    assert (refused.value.code, refused.value.reason) == (grpc.StatusCode.PERMISSION_DENIED, "TAKEOVER_NOT_ALLOWED")
                    refused_ids.append(game_id)
                    continue
                dee = await client.take_over(game_id, 2, "Dee", request_id="dee-takes-the-bots-seat-51c0")
                assert dee.seat == 2 and not dee.view.seats[2].bot and dee.view.seats[2].display_name == "Dee"
                mine = await client.view(game_id, dee.token)
                # The party's hidden politicians, now shown to the seat's newcomer and to no spectator.
                own, seen = mine.stimmvieh.parties[2], (await client.view(game_id)).stimmvieh.parties[2]
                assert mine.seat == 2 and own.backbenchers and len(own.backbenchers) == own.backbencher_count
                assert not seen.backbenchers and seen.backbencher_count == own.backbencher_count
                assert _changes(await client.history(game_id), Change.CHANGE_TAKEN_OVER) == [2]
            (kept,) = refused_ids
            assert (await client.view(kept)).seats[2].bot

    run(scenario())


def test_returning_and_taking_over_note_the_seat_present(redis_server: EmbeddedRedis) -> None:
    """ReturnToGame and TakeOverSeat are calls of the seat's player: the seat is present from
    them (Seat.present: "has called within the last 30 seconds"), noted with their commits."""
    import redis

    from hustings.service.store import presence_key

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica, Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
            table = game_pb2.TableSettings(decision_seconds=600, allow_takeover=True)
            game_id = (await client.create_game("stimmvieh", 3, stimmvieh_options(3), table=table)).game_id
            ada, _bo, _cy = await _joined(client, game_id, ("Ada", "Bo", "Cy"))
            raw = redis.Redis.from_url(redis_server.url)
            try:
                await client.leave(game_id, ada)
                raw.delete(presence_key(game_id))
                replica.host.presence._touched.clear()  # type: ignore[attr-defined]
                await client.return_to_game(game_id, ada)
                assert raw.hkeys(presence_key(game_id)) == [b"0"]
                await client.leave(game_id, ada)
                raw.delete(presence_key(game_id))
                replica.host.presence._touched.clear()  # type: ignore[attr-defined]
                await client.take_over(game_id, 0, "Dee", request_id="dee-takes-over-7e1d3a")
                assert raw.hkeys(presence_key(game_id)) == [b"0"]
            finally:
                raw.close()

    run(scenario())


def test_client_adds_bots_to_the_lowest_free_seat_or_the_one_asked_for(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica, Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
            game_id = (await client.create_game("stimmvieh", 4, stimmvieh_options(4))).game_id
            await client.join(game_id, "Ada")  # seat 0
            lowest = await client.add_bot(game_id)
            assert lowest.seat == 1 and lowest.view.seats[1].bot
            asked = await client.add_bot(game_id, seat=3, level="random")
            assert asked.seat == 3 and asked.view.seats[3].bot
            with pytest.raises(HustingsError) as taken:
                await client.add_bot(game_id, seat=0)
            assert (taken.value.code, taken.value.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "SEAT_TAKEN")
            last = await client.add_bot(game_id)  # seat 2, the last free one: the game starts
            assert last.seat == 2 and last.view.status == game_pb2.GAME_STATUS_ACTIVE
            with pytest.raises(HustingsError) as full:
                await client.add_bot(game_id)
            assert full.value.reason == "GAME_FULL"
            with pytest.raises(HustingsError) as level:
                await client.add_bot((await client.create_game("stimmvieh", 3, stimmvieh_options(3))).game_id, level="grandmaster")
            assert (level.value.code, level.value.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_BOT_LEVEL")

            view = await client.view(game_id)
            assert [s.bot for s in view.seats] == [False, True, True, True]
            history = await client.history(game_id)
            assert sorted(_changes(history, Change.CHANGE_BOT_ADDED)) == [1, 2, 3]

    run(scenario())


def test_play_seat_rereads_a_quiet_stream_and_follows_server_decisions(redis_server: EmbeddedRedis) -> None:
    """Two random bots play beside a seat that never answers; a short idle bound makes the
    bots read the view again while they wait for the server's timeouts."""
    import random

    from hustings.bots import BotStats, RandomBot, Replicas, play_seat, timeouts_in

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica, Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
            table = game_pb2.TableSettings(decision_seconds=1, absent_after_timeouts=1)
            game_id = (await client.create_game("stimmvieh", 3, stimmvieh_options(3), table=table)).game_id
            seats = [await client.join(game_id, name) for name in ("Ada", "Bo", "Silent")]
            stats = BotStats()
            pool = Replicas([client])
            started = time.monotonic()
            views = await asyncio.gather(
                *(play_seat(pool, j, RandomBot(random.Random(j.seat)), stats, idle_s=0.3) for j in seats[:2])
            )
            assert all(v is not None and v.status == game_pb2.GAME_STATUS_FINISHED for v in views)
            assert stats.errors == 0 and stats.moves > 0 and stats.rereads > 0, stats
            history = await client.history(game_id)
            # The silent seat timed out once, was absent from then on, and its bot played.
            assert _changes(history, Change.CHANGE_TIMED_OUT).count(2) == 1 and timeouts_in(history) >= 1
            assert _changes(history, Change.CHANGE_ABSENT) == [2]
            assert any(h.seat == 2 and h.HasField("move") for h in history)
            assert time.monotonic() - started < 90

    run(scenario())


def test_the_readme_tables_example_runs(redis_server: EmbeddedRedis) -> None:
    import re

    from conftest import REPO

    section = re.search(r"^## Tables: clocks, leaving, bots and expiry\n(.*?)(?=^## |\Z)", (REPO / "README.md").read_text(), re.S | re.M)
    assert section, "README has no Tables section"
    (example,) = re.findall(r"^```python\n(.*?)^```", section.group(1), re.S | re.M)
    assert "127.0.0.1:50051" in example

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-c", example.replace("127.0.0.1:50051", f"127.0.0.1:{replica.port}"),  # type: ignore[attr-defined]
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            )
            out, err = await asyncio.wait_for(process.communicate(), 60)
            assert process.returncode == 0, err.decode()[-3000:]
            assert out.decode().splitlines() == ["Ada absent: True", "seat 0 is now Cy, absent: False"]

    run(scenario())


def test_run_bots_counts_every_timeout_in_the_histories(tmp_path: pathlib.Path) -> None:
    """Games played at once each add their timeouts; the line's figure is the histories' sum."""
    from hustings.bots import run_bots, timeouts_in

    games = 5  # at once: their counts land together, which is what could lose some

    async def scenario(redis_url: str) -> None:
        async with running_replica(redis_url) as replica, Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
            address = f"127.0.0.1:{replica.port}"  # type: ignore[attr-defined]
            summary = await run_bots(address, "stimmvieh", games, 3, seed=9, absent_seats=1, move_seconds=1)
            assert summary["games_finished"] == games and summary["errors"] == 0, summary
            game_ids = [g.game_id for g in (await client.games(page_size=50)).games]  # this Redis holds only these
            assert len(game_ids) == games
            counted = [timeouts_in(await client.history(game_id)) for game_id in game_ids]
            assert all(c >= ABSENT_AFTER_TIMEOUTS for c in counted), counted
            assert summary["timeouts"] == sum(counted)

    with EmbeddedRedis(tmp_path, port=free_port(), appendonly=False) as server:
        run(scenario(server.url), timeout_s=240)
