"""The example bot of the bot kit (``hustings.ai.example_bot``) plays a seat to the end over the
network against server-side bots on a real replica, and rides out the death of the replica it
watches: it resumes on another replica of the same Redis from the last version it saw, and makes
no decision twice."""

from __future__ import annotations

import asyncio
import collections
import random

import pytest

from conftest import run, running_replica
from hustings.ai import example_bot
from hustings.ai.example_bot import play
from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2

STOP_AFTER_DECISIONS = 3  # the replica dies after the bot's third decision, well before the game ends


def test_the_example_bot_plays_a_game_to_the_end(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                table = game_pb2.TableSettings(bot_seats=[1, 2, 3], bot_level="random")
                created = await client.create_game("wahlspiel", 4, table=table)
                joined = await client.join(created.game_id, "Example")
                played = await play([client], joined, random.Random(3))
                assert played.view.status == game_pb2.GAME_STATUS_FINISHED
                assert played.watched_from == [0]  # one stream, never broken
                history = await client.history(created.game_id, joined.token)
                # The example bot made its seat's decisions: the seat never became a bot's.
                mine = [e.version for e in history if e.HasField("seat") and e.seat == joined.seat and e.HasField("move")]
                assert len(mine) > 3 and sorted(mine) == sorted(played.decided)
                seat = next(s for s in played.view.seats if s.seat == joined.seat)
                assert not seat.bot and not seat.bot_played and seat.timeouts == 0

    run(scenario(), timeout_s=120)


def test_the_example_bot_resumes_on_another_replica_when_its_replica_stops(
    redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen_at: list[int] = []  # the version of every decision the bot took, in order
    enough = asyncio.Event()

    def counting_choose(view: game_pb2.GameView, rng: random.Random) -> game_pb2.Move:
        chosen_at.append(view.version)
        if len(chosen_at) == STOP_AFTER_DECISIONS:
            enough.set()
        return rng.choice(list(view.legal_moves))

    monkeypatch.setattr(example_bot, "choose", counting_choose)

    async def scenario() -> None:
        async with running_replica(redis_server.url) as doomed, running_replica(redis_server.url) as survivor:
            async with Client(f"127.0.0.1:{doomed.port}") as first, Client(f"127.0.0.1:{survivor.port}") as second:  # type: ignore[attr-defined]
                table = game_pb2.TableSettings(bot_seats=[1, 2, 3], bot_level="random")
                created = await second.create_game("stimmvieh", 4, table=table)
                joined = await first.join(created.game_id, "Example")
                bot = asyncio.create_task(play([first, second], joined, random.Random(5)))
                await asyncio.wait_for(enough.wait(), 60)
                stopped_at = (await second.view(created.game_id)).version
                await doomed.stop()  # type: ignore[attr-defined]  # its streams end UNAVAILABLE, then it is gone
                # The server's bots may step on while the replica stops: its streams ended by now.
                broken_by = (await second.view(created.game_id)).version
                played = await asyncio.wait_for(bot, 90)

                final = played.view
                assert final.status == game_pb2.GAME_STATUS_FINISHED and final.version > stopped_at + 5
                # The stream broke mid-game and was opened again, on the survivor, one version
                # before the last one seen (at least the version of its last decision before the break).
                assert len(played.watched_from) >= 2 and played.watched_from[0] == 0
                assert chosen_at[STOP_AFTER_DECISIONS - 1] - 1 <= played.watched_from[1] <= broken_by
                # No decision twice: one per version, and each applied once, by this bot alone.
                assert [v for v, n in collections.Counter(chosen_at).items() if n > 1] == []
                history = await second.history(created.game_id, joined.token)
                mine = [e.version for e in history if e.HasField("seat") and e.seat == joined.seat and e.HasField("move")]
                assert sorted(mine) == sorted(played.decided) and len(set(mine)) == len(mine)
                assert any(version > stopped_at for version in mine)  # it went on deciding after the break
                seat = next(s for s in final.seats if s.seat == joined.seat)
                assert not seat.bot and not seat.bot_played and seat.timeouts == 0

    run(scenario(), timeout_s=150)
