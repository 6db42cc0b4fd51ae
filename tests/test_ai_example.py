"""The example bot of the bot kit (``hustings.ai.example_bot``) plays a seat to the end over the
network against server-side bots on a real replica."""

from __future__ import annotations

import random

from conftest import run, running_replica
from hustings.ai.example_bot import play
from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2


def test_the_example_bot_plays_a_game_to_the_end(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                table = game_pb2.TableSettings(bot_seats=[1, 2, 3], bot_level="random")
                created = await client.create_game("wahlspiel", 4, table=table)
                joined = await client.join(created.game_id, "Example")
                final = await play(client, joined, random.Random(3))
                assert final.status == game_pb2.GAME_STATUS_FINISHED
                history = await client.history(created.game_id, joined.token)
                # The example bot made its seat's decisions: the seat never became a bot's.
                assert sum(1 for entry in history if entry.HasField("seat") and entry.seat == joined.seat) > 3
                seat = next(s for s in final.seats if s.seat == joined.seat)
                assert not seat.bot and not seat.bot_played and seat.timeouts == 0

    run(scenario(), timeout_s=120)
