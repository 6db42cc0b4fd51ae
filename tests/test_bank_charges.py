"""Table clocks figure by figure: what a seat's bank (``bank_ms``) holds after a decision made in
time, a decision that timed out and a decision its seat left, each read from the views of a real
replica on a Redis of its own, with the replica's clock held still and moved on by the test.

A decision's time is from when it began to when it was made, and no later than its deadline:
after the deadline the seat may not move (TIME_RUN_OUT) and its bot decides. The bank pays for
that time, and for nothing the seat could not use."""

from __future__ import annotations

import asyncio
import pathlib


from conftest import HeldClock, run
from hustings.client import Client, HustingsError, Joined
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2
from service_helpers import move_behind_the_games_lock, replica_and_client, stimmvieh_options

POLLS = 200  # 0.02 s apart: bounded waits for a bot's or the runner's step
DECISION_S = 10
BANK_S = 60
INCREMENT_S = 5
LATE_MS = 4_000  # how long after the deadline the timeout is applied (replicas busy or down)


async def _until(client: Client, game_id: str, done: object, token: str | None = None) -> game_pb2.GameView:
    """The game's view once ``done(view)`` holds (bounded: ``POLLS`` looks)."""
    view = await client.view(game_id, token)
    for _ in range(POLLS):
        if done(view):  # type: ignore[operator]
            break
        await asyncio.sleep(0.02)
        view = await client.view(game_id, token)
    return view


def test_a_timeout_applied_late_charges_the_bank_no_more_than_the_decisions_limit(tmp_path: pathlib.Path) -> None:
    """Three players choose their top candidates at once, on a table of 10 s a decision, a 60 s
    bank and a 5 s increment; none moves. The decisions time out at the 10 s deadline, but the
    timeouts are applied 4 s later (no replica polled meanwhile: all busy, or restarting). Each
    seat used 10 s of its decision (it could not move after), so its bank holds 60 - 10 + 5 =
    55 s; it holds 51 s: every second the timeouts waited was charged as well. A strong stand-in's
    thinking, and its wait for the replica's thinking place (up to 5 s), are charged the same
    way, and an outage of a minute drains every bank on a clock."""
    clock = HeldClock()

    async def scenario(url: str) -> None:
        async with replica_and_client(url, local_clock=clock) as (replica, client):
            await replica.host.deadline_runner.stop()  # the test says when the timeouts are applied
            settings = game_pb2.TableSettings(
                decision_seconds=DECISION_S, bank_seconds=BANK_S, increment_seconds=INCREMENT_S, bot_level="random"
            )
            game_id = (await client.create_game("stimmvieh", 3, stimmvieh_options(3), table=settings)).game_id
            for name in ("Ada", "Bo", "Cy"):
                await client.join(game_id, name)
            start = await client.view(game_id)
            assert sorted(start.to_act) == [0, 1, 2]
            deadline = start.seats[0].deadline_unix_ms
            assert [(s.deadline_unix_ms, s.bank_ms) for s in start.seats] == [(deadline, BANK_S * 1000)] * 3

            clock.advance_to_ms(replica, deadline + LATE_MS)
            await replica.host.deadline_runner.run_once()
            after = await _until(client, game_id, lambda v: all(s.timeouts for s in v.seats))
            assert [s.timeouts for s in after.seats] == [1, 1, 1]
            expected = BANK_S * 1000 - DECISION_S * 1000 + INCREMENT_S * 1000
            assert [s.bank_ms for s in after.seats] == [expected] * 3, (
                f"banks {[s.bank_ms for s in after.seats]} after a {DECISION_S} s decision timed out; "
                f"{expected} expected"
            )

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url), 60)


def test_a_move_that_came_in_time_is_charged_until_it_came(tmp_path: pathlib.Path) -> None:
    """Seat 2 is a strong server bot: it decides as the game starts and holds the game's lock for
    its thinking floor before it commits. Seat 0's move reaches the replica 1 ms before its 30 s
    deadline and waits for the lock while the clock moves on 1 s. The move is taken (it came in
    time), and the bank should pay for the 30 s the player took; it pays 31 s, the replica's
    wait included, more than the decision's limit allows any seat."""
    clock = HeldClock()
    decision_s, bank_s = 30, 600

    async def scenario(url: str) -> None:
        async with replica_and_client(url, local_clock=clock) as (replica, client):
            await replica.host.deadline_runner.stop()  # only the kicks of steps decide here
            settings = game_pb2.TableSettings(decision_seconds=decision_s, bank_seconds=bank_s, bot_seats=[2], bot_level="strong")
            game_id = (await client.create_game("stimmvieh", 3, stimmvieh_options(3), table=settings)).game_id
            first = await client.join(game_id, "Ada")
            await client.join(game_id, "Bo")  # the last seat: the game starts, the bot's decision is kicked
            view = await client.view(game_id, first.token)
            assert view.status == game_pb2.GAME_STATUS_ACTIVE and 0 in view.to_act
            deadline = view.seats[0].deadline_unix_ms
            began = deadline - decision_s * 1000
            lock = replica.host._locks.get(game_id)
            assert lock is not None and lock[0].locked(), "the bot's step does not hold the game's lock"
            clock.advance_to_ms(replica, deadline - 1)  # the move comes in time
            moving = await move_behind_the_games_lock(replica, client, game_id, first.token, view.legal_moves[0])
            clock.advance_to_ms(replica, deadline + 1_000)  # the wait for the lock: 1 s by the clock
            try:
                await moving
            except HustingsError as error:
                raise AssertionError(f"a move that came in time was refused {error.reason}") from None
            after = await client.view(game_id, first.token)
            assert after.seats[0].timeouts == 0 and not after.seats[0].bot_played
            used = bank_s * 1000 - after.seats[0].bank_ms
            assert used <= deadline - began, f"the bank paid {used} ms for a decision of at most {deadline - began} ms"

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url), 60)


def test_leaving_mid_decision_at_a_table_with_a_decision_limit_pays_the_bank_the_time_used(tmp_path: pathlib.Path) -> None:
    """A table of 60 s a decision and a 100 s bank, beside two bots. A player who thinks 50 s
    and moves pays 50 s of the bank (two such decisions and the bank is nearly gone: the table
    waits no more than about 100 s for that seat over the game). A player who thinks 50 s and
    then leaves has its bot decide at once and pays nothing: left and taken back at every
    decision, the seat holds the table 50 s a decision for the whole game, its bank full, while
    its bot (as strong as the table's) plays for it. The bank-only table charges such a leave
    (service/table.py charge_bank); this one does not."""
    clock = HeldClock()
    decision_s, bank_s, thought_ms = 60, 100, 50_000

    async def scenario(url: str) -> None:
        async with replica_and_client(url, local_clock=clock) as (replica, client):
            settings = game_pb2.TableSettings(decision_seconds=decision_s, bank_seconds=bank_s, bot_seats=[1, 2], bot_level="random")
            game_id = (await client.create_game("stimmvieh", 3, stimmvieh_options(3), table=settings)).game_id
            staller: Joined = await client.join(game_id, "Staller")  # the last seat: the game starts
            view = await _until(client, game_id, lambda v: list(v.to_act) == [0], staller.token)
            assert list(view.to_act) == [0] and view.seats[0].bank_ms == bank_s * 1000
            began = view.seats[0].deadline_unix_ms - decision_s * 1000

            clock.advance_to_ms(replica, began + thought_ms)  # the table waits 50 s for the staller
            await client.leave(game_id, staller.token)
            # Bots alone at the table now: their decisions are paced (a tenth of a second apart).
            clock.advance_to_ms(replica, began + thought_ms + 1_000)
            chosen = await _until(client, game_id, lambda v: v.stimmvieh.parties[0].top_candidates_chosen, staller.token)
            assert chosen.stimmvieh.parties[0].top_candidates_chosen, "the absent seat's bot made the decision"
            back = (await client.return_to_game(game_id, staller.token)).view
            assert back.seats[0].bank_ms <= bank_s * 1000 - thought_ms, (
                f"the table waited {thought_ms} ms for the staller's decision, and its bank still holds"
                f" {back.seats[0].bank_ms} ms of {bank_s * 1000}"
            )

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url), 60)
