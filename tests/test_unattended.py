"""A replica's budget for tables of bots alone (``service/unattended.py``): tables whose players
have all left are charged to nobody, so together they get at most ``--unattended-decisions-per-second``
of the replica, weighted by level, and a table past it takes its turn; tables with a player
present are not held back (README, Limits)."""

from __future__ import annotations

import asyncio
import pathlib
import time

from conftest import REPO, run
from hustings.service import metrics, table
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import UNBOUNDED_CREATES
from hustings.service.unattended import (
    BURST_S,
    DECISION_WEIGHTS,
    DEFAULT_UNATTENDED_DECISIONS_PER_SECOND,
    STALE_S,
    UnattendedBudget,
)
from hustings.v1 import game_pb2
from service_helpers import replica_and_client


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_budget_lets_a_seconds_worth_through_then_gives_turns_in_order_one_interval_apart() -> None:
    clock = FakeClock()
    budget = UnattendedBudget(10, clock=clock)
    at_once = [budget.wait_s(f"g{n}", "random") for n in range(11)]
    assert at_once == [0.0] * 11  # a second's worth (and the one the budget is at)
    waits = [budget.wait_s(f"h{n}", "random") for n in range(3)]
    assert all(abs(wait - 0.1 * (n + 1)) < 1e-9 for n, wait in enumerate(waits)), waits
    # Asking again before its turn keeps the turn (nothing more is counted); at the turn it decides.
    assert abs(budget.wait_s("h1", "random") - 0.2) < 1e-9
    clock.now += 0.2
    assert budget.wait_s("h1", "random") == 0.0
    assert abs(budget.wait_s("h2", "random") - 0.1) < 1e-9
    assert len(budget) == 2  # h0's turn unused so far, h2's
    # A table that came later queues behind every turn given.
    assert abs(budget.wait_s("late", "random") - 0.2) < 1e-9


def test_a_decision_weighs_what_its_level_costs_and_a_booked_turn_is_counted_once() -> None:
    assert set(DECISION_WEIGHTS) == set(table.BOT_LEVELS)
    assert DECISION_WEIGHTS["random"] < DECISION_WEIGHTS["greedy"] < DECISION_WEIGHTS["strong"]
    clock = FakeClock()
    budget = UnattendedBudget(100, clock=clock)
    strong = DECISION_WEIGHTS["strong"]
    at_once = [budget.wait_s(f"strong{n}", "strong") for n in range(20)].count(0.0)
    assert at_once == int(100 * BURST_S / strong) + 1  # a second's worth, and the one the budget is at
    wait = budget.wait_s("next", "random")  # behind the fourteen strong ones still waiting
    assert abs(wait - (20 * strong / 100 - BURST_S)) < 1e-9, wait
    # A table books its next decision with its last; when that falls due it costs nothing more.
    fresh = UnattendedBudget(100, clock=clock)
    assert fresh.book("t", "random") == 0.0
    assert fresh.wait_s("t", "random") == 0.0  # the booking, used
    # A second's worth and the one the budget is at: 101 at once, the booked one among them.
    at_once = [fresh.wait_s(f"o{n}", "random") for n in range(200)]
    assert at_once.count(0.0) == 100 and at_once[:100] == [0.0] * 100
    assert fresh.wait_s("t", "random") > 0  # its booking is gone: it asks anew


def test_turns_never_taken_are_forgotten() -> None:
    clock = FakeClock()
    budget = UnattendedBudget(1, clock=clock)
    assert budget.wait_s("a", "random") == budget.wait_s("b", "random") == 0.0
    assert budget.wait_s("gone", "random") > 0 and len(budget) == 1
    clock.now += STALE_S + 5
    assert budget.wait_s("c", "random") == budget.wait_s("d", "random") == 0.0  # refilled
    assert budget.wait_s("e", "random") > 0
    assert len(budget) == 1  # "gone" forgotten, "e" kept


async def _versions(client: object, game_ids: list[str]) -> int:
    views = await asyncio.gather(*(client.view(g) for g in game_ids))  # type: ignore[attr-defined]
    return sum(v.version for v in views)


async def _assert_within_budget(client: object, game_ids: list[str], per_second: float, seconds: float = 2.0) -> None:
    """Over ``seconds`` (and the reads around them) the games made some decisions, and at most
    the budget's: ``per_second`` a second and a second's worth more."""
    started = time.monotonic()
    before = await _versions(client, game_ids)
    await asyncio.sleep(seconds)
    after = await _versions(client, game_ids)
    elapsed = time.monotonic() - started
    made = after - before
    assert 0 < made <= per_second * (elapsed + BURST_S) + 1, (made, elapsed)


def test_tables_whose_players_all_left_share_the_replicas_budget_and_a_player_is_not_held_back(
    tmp_path: pathlib.Path,
) -> None:
    """Eight three-seat Stimmvieh tables, every seat taken and then left: their bots would make ten
    decisions a second each (80 together). With a budget of 10 a second they make at most 10 a
    second and a second's worth more over any stretch, and the replica counts the waits. Meanwhile
    a table with a player present and two bot seats gets its bots' decisions at once."""
    per_second = 10

    async def scenario(url: str) -> None:
        async with replica_and_client(
            url, unattended_decisions_per_second=per_second, **UNBOUNDED_CREATES
        ) as (_replica, client):
            waits_before = metrics.UNATTENDED_WAITS._value.get()
            abandoned = []
            for _ in range(8):
                game_id = (await client.create_game("stimmvieh", 3)).game_id
                tokens = [(await client.join(game_id, f"P{seat}")).token for seat in range(3)]
                for token in tokens:
                    await client.leave(game_id, token)
                abandoned.append(game_id)
            await _assert_within_budget(client, abandoned, per_second)
            assert metrics.UNATTENDED_WAITS._value.get() > waits_before

            beside = game_pb2.TableSettings(bot_seats=[1, 2], bot_level="random")
            game_id = (await client.create_game("stimmvieh", 3, table=beside)).game_id
            player = await client.join(game_id, "Ada")  # the game starts: all three choose at once
            for _ in range(100):
                view = await client.view(game_id, player.token)
                if list(view.to_act) == [0]:
                    break
                await asyncio.sleep(0.02)
            assert list(view.to_act) == [0], list(view.to_act)

    with EmbeddedRedis(tmp_path, appendonly=False) as redis_server:  # its own: no other test's tables of bots
        run(scenario(redis_server.url), timeout_s=90)


OPENING_TIMED_OUT_S = 10.0  # past the opening's deadlines, how long its timeouts may take to be applied


def test_tables_whose_players_never_call_again_share_the_budget_once_every_seat_timed_out(
    tmp_path: pathlib.Path,
) -> None:
    """Twelve three-seat Stimmvieh tables with a one-second clock and a seat absent only after 100
    timeouts in a row, every seat taken and then never a call: without the budget each table's
    bots made a timed-out decision a second (and three at once in the opening), charged to
    nobody, for as long as the game lasts. Once every seat of a table has timed out its decisions
    take their turns in the budget: here 2 a second, and a second's worth more."""
    per_second = 2

    async def scenario(url: str) -> None:
        async with replica_and_client(
            url, unattended_decisions_per_second=per_second, **UNBOUNDED_CREATES
        ) as (_replica, client):
            clock = game_pb2.TableSettings(decision_seconds=1, absent_after_timeouts=100)
            silent = []
            for _ in range(12):
                game_id = (await client.create_game("stimmvieh", 3, table=clock)).game_id
                for seat in range(3):
                    await client.join(game_id, f"P{seat}")
                silent.append(game_id)
            # Every seat's first decision is due a second after the last join; the deadline
            # runner applies them at its next polls (a quarter of a second apart), which a loaded
            # machine delays: the views are read again, up to OPENING_TIMED_OUT_S, until it has.
            await asyncio.sleep(1.5)
            loop = asyncio.get_running_loop()
            waited_until = loop.time() + OPENING_TIMED_OUT_S
            while True:  # bounded by OPENING_TIMED_OUT_S
                views = await asyncio.gather(*(client.view(g) for g in silent))
                if all(s.timeouts >= 1 for v in views for s in v.seats) or loop.time() > waited_until:
                    break
                await asyncio.sleep(0.05)
            assert all(s.timeouts >= 1 for v in views for s in v.seats), "the opening's decisions did not time out"
            await _assert_within_budget(client, silent, per_second)

    with EmbeddedRedis(tmp_path, appendonly=False) as redis_server:  # its own: no other test's tables of bots
        run(scenario(redis_server.url), timeout_s=90)


def test_serve_takes_the_budget_and_the_readme_states_it() -> None:
    readme = " ".join((REPO / "README.md").read_text().split())
    cli = (REPO / "clients/python/hustings/cli.py").read_text()
    assert "--unattended-decisions-per-second" in cli
    assert f"--unattended-decisions-per-second` ({DEFAULT_UNATTENDED_DECISIONS_PER_SECOND:.0f} by default)" in readme


def test_a_claimed_games_decisions_keep_the_claim_until_it_is_released(tmp_path: pathlib.Path) -> None:
    """A replica that claimed a game due for several timed-out seats decides them one after
    another under its claim. Each decision's commit used to index the game's next deadline as a
    plain step does (moved earlier only): with the other seats still due, that pulled the claim
    back to "due now", and another replica's poll took the game and decided the same seats again
    (with two replicas and 100 strong tables timing out together: 49 commits refused of 315, each
    a strong bot's thinking done twice). The claim now stands until its release."""
    from hustings.service.deadlines import bucket_key

    async def scenario(url: str) -> None:
        async with replica_and_client(url) as (replica, client):
            host = replica.host
            await host.deadline_runner.stop()  # this test claims by hand
            clock = game_pb2.TableSettings(decision_seconds=1)
            game_id = (await client.create_game("stimmvieh", 3, table=clock)).game_id
            for seat in range(3):
                await client.join(game_id, f"P{seat}")  # the game starts: all three choose at once
            await asyncio.sleep(1.3)  # every seat's decision has timed out
            claimed, lease = await host.deadlines.claim(host._now_ms())
            assert claimed == [game_id]
            _next_due, version = await host.seats.apply_due(game_id)
            assert version >= 5, version  # the three timed-out decisions were made (creation, three joins: 4)
            score = await host.store.client.zscore(bucket_key(game_id), game_id)
            assert score == lease, (score, lease)

    with EmbeddedRedis(tmp_path, appendonly=False) as redis_server:
        run(scenario(redis_server.url), timeout_s=60)


def test_a_bot_waits_for_its_thinking_place_without_holding_up_its_games_moves(tmp_path: pathlib.Path) -> None:
    """A replica's strong bots think one decision at a time. A due bot used to wait for that
    thinking place holding its game's lock, so a player's move to the game waited behind every
    other table's thinking bots (here it never came: the test's move timed out), and a bot that
    waited past its claim's lease then thought for a game another replica had moved on (two
    replicas, 100 strong tables timing out together: 539 decisions thought for 342 timeouts).
    Now it takes the place first and reads the game afresh once it holds it: seat 0's player,
    gone and its decision due, comes back with a move while its bot waits, and bots then decide
    only for the seats whose time ran out."""

    async def scenario(url: str) -> None:
        async with replica_and_client(url) as (replica, client):
            host = replica.host
            await host.deadline_runner.stop()  # this test starts the due decisions itself
            strong_clock = game_pb2.TableSettings(decision_seconds=2, bot_level="strong")
            game_id = (await client.create_game("stimmvieh", 3, table=strong_clock)).game_id
            tokens = [(await client.join(game_id, f"P{seat}")).token for seat in range(3)]
            conflicts = metrics.CONFLICTS._value.get()
            place = host.seats._thinking["strong"]
            await place.acquire()  # another table's bot thinks: seat 0's bot will wait
            try:
                # Seat 0's player leaves: its bot's decision is due at once, and waits for the place.
                await client.leave(game_id, tokens[0])
                deciding = asyncio.create_task(host.seats.apply_due(game_id))
                await asyncio.sleep(0.1)
                # The player comes back with a move, answered while the bot waits.
                view = await client.view(game_id, tokens[0])
                moved = await asyncio.wait_for(client.move(game_id, tokens[0], view.legal_moves[0]), 10)
                assert moved.version == view.version + 1
                assert not deciding.done()
            finally:
                place.release()
            await asyncio.wait_for(deciding, 30)
            assert metrics.CONFLICTS._value.get() == conflicts  # nothing thought for a stale version
            await asyncio.sleep(2.1)  # the other seats' decisions time out
            await asyncio.wait_for(host.seats.apply_due(game_id), 30)
            after = await client.view(game_id)
            assert [s.timeouts for s in after.seats] == [0, 1, 1], [s.timeouts for s in after.seats]
            assert not after.seats[0].absent

    with EmbeddedRedis(tmp_path, appendonly=False) as redis_server:
        run(scenario(redis_server.url), timeout_s=60)
