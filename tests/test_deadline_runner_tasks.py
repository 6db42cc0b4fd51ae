"""The deadline runner applying claimed games beside its polling (service/deadlines.py) and the
thinking places (service/seats.py): a stop leaves no game applied on and hands every game it held
back, and games queued for a thinking place are handed back due before their claims' leases run
out. Real Redis (a server of each test's own), the runner on the index as the host builds it; the
applying itself is held by a test event, or waits at a real ``ThinkingPlace`` as a strong bot's
decision does, or is a real replica's."""

from __future__ import annotations

import asyncio
import pathlib
import time

import pytest

from conftest import run
from hustings.service import deadlines
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.host import GameHost
from hustings.service.notifier import Notifier
from hustings.service.store import Store
from service_helpers import held_runner


def _now() -> int:
    return int(time.time() * 1000)


async def _until(condition, timeout_s: float = 5.0) -> None:  # type: ignore[no-untyped-def]
    ends = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < ends, "timed out"
        await asyncio.sleep(0.01)


def _game_tasks() -> list[asyncio.Task]:  # type: ignore[type-arg]
    """The runner's tasks applying a game, still running."""
    return [t for t in asyncio.all_tasks() if t.get_name() == f"{deadlines.DeadlineRunner.task_name}-game" and not t.done()]


def test_stop_leaves_no_task_of_a_game_claimed_again_while_applied(tmp_path: pathlib.Path) -> None:
    """A game claimed again while its earlier claim is still being applied (a step made it due
    meanwhile) gets a second task that waits for the first. On stop the runner cancels both:
    a first task left running (a bot thinking, a commit on its way) would call the store the
    replica closes next, and a loop closed meanwhile reports "Task was destroyed but it is
    pending"."""

    async def scenario(server: EmbeddedRedis) -> None:
        store = Store.from_url(server.url)
        never = asyncio.Event()
        try:
            index = GameHost(store, Notifier(store.client)).deadlines
            calls: list[str] = []
            runner = held_runner(index, calls, never)
            await index.schedule("g-twice", _now())
            runner.start()
            await _until(lambda: calls == ["g-twice"])
            await index.schedule("g-twice", _now())  # a step made it due again (ZADD LT under the lease)
            await _until(lambda: len(_game_tasks()) == 2)  # claimed again: a second task waits for the first
            await runner.stop()
            await asyncio.sleep(0.05)  # the cancellations run
            left = _game_tasks()
            assert left == [], f"{len(left)} task(s) applying a game still run after stop()"
        finally:
            never.set()  # let whatever is left finish before the store closes
            await asyncio.sleep(0.05)
            await store.close()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server), 30)


class _RecordingIndex(deadlines.DeadlineIndex):
    """The host's index, noting whether each release still found this replica's lease."""

    def __init__(self, client: object, lane: object) -> None:
        super().__init__(client, lane)  # type: ignore[arg-type]
        self.lapsed: list[str] = []

    async def release(self, game_id: str, lease: int, next_due: int) -> bool:
        held = await super().release(game_id, lease, next_due)
        if not held:
            self.lapsed.append(game_id)
        return held


LEASE_MS = 1_000  # a tenth of the real lease, ...
THINK_S = 0.02  # ... and of a strong bot's thinking (made public at 0.2 s): the same ratio
GAMES = 150  # due at once (3 s of thinking against leases of 1-2 s: the claim adds up to 1 s), every one a strong decision at a table with a person at it


def test_games_waiting_for_a_thinking_place_do_not_outlive_their_leases(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A strong bot thinks 0.2 s, so 50 decisions fill a 10 s lease, and a replica may claim up
    to 1,024 games. A game claimed past what its replica's thinking place gets through waits
    there half its lease at most (as ``SeatLifecycle.apply_due`` does) and is handed back due:
    left waiting, its lease ran out, another replica claimed it as well and the two decided it
    (or the decisions after it) at once, while that replica's place had been idle. So no claim
    runs out, and the second replica takes part. Scaled down tenfold here (lease 1 s, thinking
    0.02 s), two replicas' runners, 150 games due at once."""
    monkeypatch.setattr(deadlines, "LEASE_MS", LEASE_MS)
    from hustings.service.seats import ThinkingPlace, _NoPlace, _Place

    async def scenario(server: EmbeddedRedis) -> None:
        store = Store.from_url(server.url)
        runners: list[deadlines.DeadlineRunner] = []
        try:
            decided: dict[str, list[str]] = {}

            def replica(name: str) -> tuple[deadlines.DeadlineRunner, _RecordingIndex]:
                index = _RecordingIndex(store.client, store.lane)
                place = ThinkingPlace()

                async def apply_due(game_id: str) -> tuple[int, int]:
                    # As ``SeatLifecycle.apply_due`` waits for a place: half a lease at most, then
                    # the game is handed back due (a table with a person at it).
                    try:
                        async with _Place(place, first=True, wait_s=deadlines.LEASE_MS / 2000):
                            await asyncio.sleep(THINK_S)  # the bot thinks
                            decided.setdefault(game_id, []).append(name)
                    except _NoPlace:
                        return _now(), 0
                    return 0, 0

                async def version_of(game_id: str) -> int:
                    return 0

                return deadlines.DeadlineRunner(index, apply_due, version_of, poll_s=0.05, now_ms=_now), index

            (first, first_index), (second, second_index) = replica("A"), replica("B")
            due = _now()
            for number in range(GAMES):
                await first_index.schedule(f"g-{number}", due)
            runners = [first, second]
            first.start()
            await asyncio.sleep(0.1)  # the first replica polls first, as one of them always does
            second.start()
            await _until(lambda: len(decided) == GAMES, timeout_s=20)
            await asyncio.sleep(0.2)
            both = sum(1 for by in decided.values() if set(by) == {"A", "B"})
            by_second = sum(1 for by in decided.values() if "B" in by)
            lapsed = first_index.lapsed + second_index.lapsed
            assert not lapsed, (
                f"{len(lapsed)} of {GAMES} claims ran out while their games waited for the thinking place; "
                f"{both} games were applied by both replicas, {by_second} by the second at all"
            )
            assert both == 0 and by_second > 0, (both, by_second)
        finally:
            for runner in runners:
                await runner.stop()
            await store.close()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server), 60)


class _FailingIndex(deadlines.DeadlineIndex):
    """The host's index, whose polls fail with an error the runner's rounds do not expect once
    ``failing`` is set (as a Redis Cluster out of reach did, raised as no RedisError)."""

    failing = False

    async def claim(self, now: int, most: int = deadlines.CLAIM_BATCH, lease: int | None = None, again: bool = False) -> tuple[list[str], int]:
        if self.failing:
            raise OSError("cluster out of reach")
        return await super().claim(now, most, lease, again)


def test_a_runner_stopped_after_an_unexpected_poll_error_hands_its_games_back(tmp_path: pathlib.Path) -> None:
    """A poll that raised an error its rounds do not catch ends ``_run``, and
    ``BackgroundLoop._kept`` begins it again ``RESTART_S`` (1 s) later. A stop in that second
    still cancels the games being applied and makes them due again at once: left running after
    the replica stopped, their claims held them from every other replica until the leases ran
    out (10 s)."""

    async def scenario(server: EmbeddedRedis) -> None:
        store = Store.from_url(server.url)
        never = asyncio.Event()
        try:
            index = _FailingIndex(store.client, store.lane)
            calls: list[str] = []
            runner = held_runner(index, calls, never)
            await index.schedule("g-held", _now())
            runner.start()
            await _until(lambda: calls == ["g-held"])
            index.failing = True
            await asyncio.sleep(0.1)  # a poll fails; the loop begins again a second later
            await runner.stop()
            await asyncio.sleep(0.05)
            left = _game_tasks()
            score = await store.client.zscore(deadlines.bucket_key("g-held"), "g-held")
            assert (len(left), score <= _now()) == (0, True), (
                f"{len(left)} task(s) still applying after stop(); the game's claim runs {score - _now():.0f} ms more"
            )
        finally:
            never.set()
            await asyncio.sleep(0.05)
            await store.close()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server), 30)


def test_a_bot_decision_waiting_too_long_for_the_thinking_place_is_handed_back_due(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real replica: a seat's strong bot owes a decision while another table's bot holds the
    thinking place. ``apply_due`` waits half a claim's lease (here 0.3 s of a 0.6 s lease) and
    hands the game back due, deciding nothing and leaving the place to its holder; counted by
    ``hustings_thinking_waits_given_up_total``. Once the place is free it decides."""
    from hustings.service import metrics
    from hustings.v1 import game_pb2
    from service_helpers import replica_and_client

    monkeypatch.setattr(deadlines, "LEASE_MS", 600)

    async def scenario(url: str) -> None:
        async with replica_and_client(url) as (replica, client):
            host = replica.host
            await host.deadline_runner.stop()  # this test starts the due decisions itself
            game_id = (await client.create_game("stimmvieh", 3, table=game_pb2.TableSettings(bot_level="strong"))).game_id
            tokens = [(await client.join(game_id, f"P{seat}")).token for seat in range(3)]
            place = host.seats._thinking["strong"]
            await place.acquire()  # another table's bot thinks
            given_up = metrics.THINKING_PLACE_GIVEN_UP._value.get()
            try:
                await client.leave(game_id, tokens[0])  # seat 0's bot owes its top candidates now
                await asyncio.sleep(0.05)  # the leave's own kick waits at the place too, and gives up
                version = (await client.view(game_id)).version
                began = time.monotonic()
                next_due, seen = await asyncio.wait_for(host.seats.apply_due(game_id), 10)
                waited = time.monotonic() - began
                assert (seen, next_due <= host._now_ms()) == (0, True)  # due again at once
                assert 0.25 <= waited < 2.0, waited
                assert (await client.view(game_id)).version == version  # nothing decided
                assert metrics.THINKING_PLACE_GIVEN_UP._value.get() >= given_up + 1
            finally:
                place.release()
            await asyncio.wait_for(host.seats.apply_due(game_id), 10)
            after = await client.view(game_id)
            assert after.version > version and after.seats[0].bot_played  # decided once it had the place

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url), 60)


def test_a_stopping_runner_hands_back_a_game_whose_applying_failed(tmp_path: pathlib.Path) -> None:
    """A game whose applying failed (a Redis error mid-way) is kept to be handed back due at the
    runner's next poll. A replica stopped before that poll (a rolling restart after a Redis
    blip) hands it back as it hands back the games still being applied: left, its claim stood
    until the lease ran out (10-11 s), and no replica applied its clocks or bots meanwhile."""

    async def scenario(server: EmbeddedRedis) -> None:
        store = Store.from_url(server.url)
        try:
            index = GameHost(store, Notifier(store.client)).deadlines
            calls: list[str] = []

            async def apply_due(game_id: str) -> tuple[int, int]:
                calls.append(game_id)
                await store.client.execute_command("HUSTINGS-NO-SUCH-COMMAND")  # Redis refuses: a RedisError
                return 0, 0

            async def version_of(game_id: str) -> int:
                return 0

            # One poll, then a long sleep: the stop comes before the next poll.
            runner = deadlines.DeadlineRunner(index, apply_due, version_of, poll_s=20.0, now_ms=_now)
            await index.schedule("g-failed", _now())
            runner.start()
            await _until(lambda: calls == ["g-failed"])
            await _until(lambda: not runner._applying)  # its task ended with the error
            await runner.stop()
            score = await store.client.zscore(deadlines.bucket_key("g-failed"), "g-failed")
            assert score is not None and score <= _now(), f"the failed game's claim runs {score - _now():.0f} ms more after stop()"
        finally:
            await store.close()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server), 30)


def test_stop_cancels_again_a_game_task_that_swallowed_its_cancellation(tmp_path: pathlib.Path) -> None:
    """The game's applying swallows the first cancellation (as a Redis call caught mid-way may)
    and holds on; ``stop`` cancels it again (bounded), so it ends, and its claim is handed back
    due at once."""

    async def scenario(server: EmbeddedRedis) -> None:
        store = Store.from_url(server.url)
        never = asyncio.Event()
        try:
            index = GameHost(store, Notifier(store.client)).deadlines
            calls: list[str] = []
            swallowed: list[str] = []
            runner = held_runner(index, calls, never, swallowed)
            await index.schedule("g-stubborn", _now())
            runner.start()
            await _until(lambda: calls == ["g-stubborn"])
            await asyncio.wait_for(runner.stop(), 10)
            await asyncio.sleep(0.05)
            left = _game_tasks()
            score = await store.client.zscore(deadlines.bucket_key("g-stubborn"), "g-stubborn")
            assert (swallowed, len(left)) == (["g-stubborn"], 0), f"{len(left)} task(s) still applying after stop()"
            assert score is not None and score <= _now(), "the claim was not handed back due"
        finally:
            never.set()
            await asyncio.sleep(0.05)
            await store.close()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server), 30)
