"""Bots and clocks under a crowd: whether tables nobody is at, or other tables' thinking bots,
make a person's table's bots or clock late. Each test runs a real replica on a Redis of its own
(games of strong bots left behind would be claimed by later tests' replicas), counts decisions
rather than milliseconds, and is bounded in time."""

from __future__ import annotations

import asyncio
import pathlib
import time
from typing import Awaitable, Callable


from conftest import run
from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import UNBOUNDED_CREATES
from hustings.v1 import game_pb2
from service_helpers import replica_and_client


async def _decisions(client: Client, game_ids: list[str]) -> int:
    """How many steps the games have taken so far (their versions, summed)."""
    views = await asyncio.gather(*(client.view(game_id) for game_id in game_ids))
    return sum(view.version for view in views)


async def _until(check: Callable[[], Awaitable[bool]], what: str) -> None:
    """Wait (30 s at most, looking every 10 ms) until ``check`` holds."""
    ends = time.monotonic() + 30
    while not await check():
        assert time.monotonic() < ends, what
        await asyncio.sleep(0.01)


UNATTENDED_TABLES = 8  # four strong bots each, nobody at them


def test_a_persons_strong_bots_do_not_queue_behind_tables_nobody_is_at(tmp_path: pathlib.Path) -> None:
    """The replica's budget for tables nobody is at weighs a strong decision as 20 of its 100 a
    second: five a second, as many as its one thinking place for strong bots makes (0.2 s each).
    Such tables, within the budget, keep that place busy; a table with a person at it goes before
    them there. Here the budget is ten times the default, so that each of the eight unattended
    tables keeps a decision waiting for the place: taken in the order they came, the person's two
    bots made 8-9 of theirs wait in between; now a decision or two (counted from the join's answer
    to the test's sight of both choices: the one in hand when the person came, and what the
    polling's own delay lets through on a loaded machine)."""

    async def scenario(url: str) -> None:
        # A budget of 50 strong decisions a second: every unattended table keeps a decision
        # waiting for the thinking place, so that a person's bot queued behind them would wait
        # for all eight.
        budget = {"unattended_decisions_per_second": 1000.0}
        async with replica_and_client(url, **UNBOUNDED_CREATES, **budget) as (_replica, client):
            alone = game_pb2.TableSettings(bot_seats=[0, 1, 2, 3], bot_level="strong")
            flood = [(await client.create_game("stimmvieh", 4, table=alone)).game_id for _ in range(UNATTENDED_TABLES)]
            await asyncio.sleep(1.0)  # past the budget's burst: the tables take their turns
            beside = game_pb2.TableSettings(bot_seats=[1, 2], bot_level="strong")
            game_id = (await client.create_game("stimmvieh", 3, table=beside)).game_id
            person = await client.join(game_id, "Ada")  # the game starts: both bots owe their top candidates
            before = await _decisions(client, flood)
            async def chosen() -> bool:
                return list((await client.view(game_id, person.token)).to_act) == [0]

            await _until(chosen, "the person's bots never chose")
            between = await _decisions(client, flood) - before
            assert between < 5, f"the person's two strong bots waited while tables nobody is at made {between} decisions"

    with EmbeddedRedis(tmp_path, appendonly=False) as redis_server:
        run(scenario(redis_server.url), timeout_s=90)


BUSY_TABLES = 8  # one seat a person's, three strong bots: 24 opening decisions of up to 0.2 s


def test_a_timeout_is_not_held_up_by_other_tables_thinking_bots(tmp_path: pathlib.Path) -> None:
    """The deadline runner applies the games it claims beside its polling. When it waited for
    every claimed game before polling again, a claimed game whose strong bot was due waited there
    for the replica's one thinking place, behind every other strong decision queued, and no
    deadline of any table on the replica was applied meanwhile, a random stand-in's (which
    decides at once) included: a person's one-second clock timed out 2.6 s late (0.2 s without
    them) while eight tables of strong bots that one client had just joined made their opening
    decisions, 12 of them in between. The timeout lands at the next poll (a quarter of a
    second), a decision or two of theirs later."""

    async def scenario(url: str) -> None:
        async with replica_and_client(url, **UNBOUNDED_CREATES) as (_replica, client):
            strong = game_pb2.TableSettings(bot_seats=[1, 2, 3], bot_level="strong")
            busy = [(await client.create_game("stimmvieh", 4, table=strong)).game_id for _ in range(BUSY_TABLES)]
            clock = game_pb2.TableSettings(bot_seats=[1, 2], bot_level="random", decision_seconds=1)
            game_id = (await client.create_game("stimmvieh", 3, table=clock)).game_id
            person = await client.join(game_id, "Bo")  # its random bots choose at once; Bo's clock runs
            deadline_ms = (await client.view(game_id, person.token)).seats[0].deadline_unix_ms
            assert deadline_ms
            await asyncio.gather(*(client.join(g, "Owner") for g in busy))  # their bots now owe 24 decisions
            await asyncio.sleep(max(0.0, deadline_ms / 1000 - time.time()))
            before = await _decisions(client, busy)
            assert before < 5 * BUSY_TABLES, "the busy tables were done before the deadline"  # two steps each, then three bots
            async def timed_out() -> bool:
                return bool((await client.view(game_id, person.token)).seats[0].timeouts)

            await _until(timed_out, "the timeout never landed")
            between = await _decisions(client, busy) - before
            assert between < 5, f"Bo's timeout waited while other tables' strong bots made {between} decisions"

    with EmbeddedRedis(tmp_path, appendonly=False) as redis_server:
        run(scenario(redis_server.url), timeout_s=90)
