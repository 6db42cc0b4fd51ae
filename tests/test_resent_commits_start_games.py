"""The kept-games index is written by the step that starts a game (service/host.py _note_kept),
after its commit. A start whose commit's reply was lost (the lane resends it and hears
DUPLICATE) is answered through the replay path, which wrote nothing after the commit: the game
played on unindexed (an abandoned one never removed to make room), open in the lobby, its bots
waiting for the next poll. The replay path now does what follows a commit."""

from __future__ import annotations

import asyncio
from typing import Awaitable, Callable

import pytest
import redis as sync_redis

from conftest import run
from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.room_maker import bucket_key
from hustings.v1 import game_pb2, game_service_pb2 as gs
from service_helpers import CommitReplyCutter, replica_and_client

TIMEOUT_S = 30.0


def _indexed(server: EmbeddedRedis, game_id: str) -> bool:
    admin = sync_redis.Redis.from_url(server.url)
    try:
        return admin.zscore(bucket_key(game_id), game_id) is not None
    finally:
        admin.close()


async def _started_game(client: Client) -> str:
    """A game started by a join whose reply came back."""
    game_id = (await client.create_game("stimmvieh", 3)).game_id
    for name in ("Ann", "Ben", "Col"):
        await client.join(game_id, name)
    return game_id


async def _last_seat_joined(client: Client, game_id: str) -> None:
    await asyncio.wait_for(client.stub.JoinGame(gs.JoinGameRequest(game_id=game_id, display_name="Cy-lost-reply")), TIMEOUT_S)


async def _last_seat_to_a_bot(client: Client, game_id: str) -> None:
    await asyncio.wait_for(client.stub.AddBot(gs.AddBotRequest(game_id=game_id, level="random")), TIMEOUT_S)


@pytest.mark.parametrize(
    "marker, take_last_seat",
    [(b"Cy-lost-reply", _last_seat_joined), (b"Bot (random)", _last_seat_to_a_bot)],
    ids=["join", "add_bot"],
)
def test_a_game_started_by_a_step_whose_commit_reply_was_lost_is_indexed(
    redis_server: EmbeddedRedis, marker: bytes, take_last_seat: Callable[[Client, str], Awaitable[None]]
) -> None:
    async def scenario() -> None:
        async with CommitReplyCutter(redis_server.port, marker).running() as proxy:
            async with replica_and_client(proxy.url) as (_replica, client):
                assert _indexed(redis_server, await _started_game(client))  # the path without a lost reply does
                game_id = (await client.create_game("stimmvieh", 3)).game_id
                await client.join(game_id, "Ada")
                await client.join(game_id, "Bo")
                await take_last_seat(client, game_id)
                assert proxy.cut == 1  # the starting commit's first reply was lost on the way back
                assert (await client.view(game_id)).status == game_pb2.GAME_STATUS_ACTIVE
                assert _indexed(redis_server, game_id), "a game in play missing from the kept-games index"

    run(scenario(), TIMEOUT_S * 2)
