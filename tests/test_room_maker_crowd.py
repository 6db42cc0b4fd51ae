"""The room maker (service/room_maker.py) under a crowd: what its kept-games index costs and how
soon it finds the games it may remove.

- Open games, never removed, are not in the index: they came first in its order (an open game's
  entry was its wait's end, a day at most; a finished game's a retention after its end), so
  every pass under pressure looked at each of them again before any finished game (400 held
  back the removal of finished games for two rounds; one address's day of creations, 86,400,
  would take five and a half minutes a pass).
- Outside pressure a tidying round takes batch after batch while whole batches are due: at 256
  entries per 10 s a replica making more than 25.6 games a second grew the index without end.
"""

from __future__ import annotations

import asyncio
import pathlib
import random

import redis

from conftest import run
from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import UNBOUNDED_CREATES, Replica
from hustings.service.room_maker import RoomMaker, bucket_key
from hustings.service.store import game_key
from hustings.v1 import game_pb2
from service_helpers import new_game, play_to_end, replica_and_client, stimmvieh_options

CROWD_BATCH = 20  # creations sent at once


class Reading:
    """What the store room last read of Redis's memory, as the room maker takes it."""

    def __init__(self, fill: float | None) -> None:
        self.fill = fill


def room_maker(replica: Replica, fill: float | None, **settings: object) -> RoomMaker:
    """A room maker beside the replica's own, over the same index and Redis, with the service's
    batch and its reading given."""
    host = replica.host
    return RoomMaker(host.kept, Reading(fill), host._now_ms, retention_s=host.retention_s, **settings)  # type: ignore[arg-type]


async def crowd_creates(client: Client, games: int, table: game_pb2.TableSettings | None = None) -> list[str]:
    """``games`` open Stimmvieh games, ``CROWD_BATCH`` at a time; their ids."""
    made: list[str] = []
    for _ in range(-(-games // CROWD_BATCH)):
        answers = await asyncio.gather(
            *(client.create_game("stimmvieh", 3, stimmvieh_options(3), table=table) for _ in range(CROWD_BATCH))
        )
        made.extend(answer.game_id for answer in answers)
    return made[:games]


def test_open_games_do_not_hold_back_the_removal_of_finished_games(tmp_path: pathlib.Path) -> None:
    """Three games finished, then a crowd's 400 open games: the first round under pressure
    removes the game that ended first (today it looks at 256 open games and removes nothing, as
    does the next; a pass over an address's day of open games takes 337 rounds)."""

    async def scenario(url: str) -> None:
        async with replica_and_client(url, make_room_from_percent=0.0, **UNBOUNDED_CREATES) as (replica, client):
            finished = []
            for seed in range(3):
                seats = await new_game(client, players=3)
                await play_to_end([client], seats, random.Random(seed))
                finished.append(seats[0].game_id)
            waiting = await crowd_creates(client, 400)
            maker = room_maker(replica, 1.0, finished_after_s=0)  # finished games may go at once here
            removed = await maker.round(remove=True)
            assert removed >= 1, "the first round under pressure removed no finished game: it looked at open games only"
            # The open games stay, as they must.
            admin = redis.asyncio.Redis.from_url(url)
            try:
                assert await admin.exists(*(game_key(game_id) for game_id in waiting)) == len(waiting)
            finally:
                await admin.aclose()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url))


def test_a_tidying_round_keeps_up_with_the_games_a_replica_makes(tmp_path: pathlib.Path) -> None:
    """600 games that waited a second for players, made in about a second by one replica, have
    expired: the tidying that follows (one round, every 10 s) drops all their entries. Today 344
    of them stay, and a replica that makes more than 25.6 games a second, steadily, grows the
    index by the difference for as long as it does."""

    async def scenario(url: str) -> None:
        async with replica_and_client(url, make_room_from_percent=0.0, **UNBOUNDED_CREATES) as (replica, client):
            made = await crowd_creates(client, 600, game_pb2.TableSettings(open_seconds=1))
            admin = redis.asyncio.Redis.from_url(url)
            try:
                await asyncio.sleep(1.3)  # every game's wait is over: its keys have expired
                # The replica's own tidying may have run meanwhile (every 10 s): count after it too.
                maker = room_maker(replica, None)
                assert await maker.round(remove=False) == 0
                async with admin.pipeline(transaction=False) as pipe:
                    for game_id in made:
                        pipe.zscore(bucket_key(game_id), game_id)
                    scores = await pipe.execute()
                left = sum(score is not None for score in scores)
                assert left == 0, f"{left} entries of the {len(made)} expired games are still in the kept-games index after a tidying round"
            finally:
                await admin.aclose()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url))
