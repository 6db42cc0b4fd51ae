"""A game that is gone (removed for room, or expired) gets no presence hash back: a move or a view
of a seat whose replica still holds the game answers NOT_FOUND, and the seat it saw is not
written to Redis. Before, the move's presence note made the hash again, kept a day after its game."""

from __future__ import annotations

import asyncio

import grpc
import pytest
import redis

from conftest import run
from service_helpers import choose_top_candidates, new_game, remove_game, replica_and_client
from hustings.client import HustingsError
from hustings.service import presence
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store import presence_key


def test_a_move_and_a_view_of_a_gone_game_leave_no_presence_behind(redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(presence, "TOUCH_EVERY_S", 0.0)  # every sighting is written, not one a seat each 10 s
    raw = redis.Redis.from_url(redis_server.url)

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_, client):
            seats = await new_game(client, 3)
            game_id = seats[0].game_id
            await client.move(game_id, seats[0].token, choose_top_candidates(1, 2, 3, 4))  # the replica holds the game
            await asyncio.sleep(presence.FLUSH_S * 3)
            assert raw.exists(presence_key(game_id))
            remove_game(raw, game_id)  # as the room maker does
            for seat in seats[1:]:
                try:
                    await client.move(game_id, seat.token, choose_top_candidates(1, 2, 3, 4))
                except HustingsError as refused:
                    assert refused.code == grpc.StatusCode.NOT_FOUND and refused.reason == "GAME_NOT_FOUND", refused
                else:
                    raise AssertionError("a move of a gone game was taken")
                try:
                    await client.view(game_id, seat.token)
                except HustingsError as refused:
                    assert refused.code == grpc.StatusCode.NOT_FOUND, refused
                else:
                    raise AssertionError("a gone game was shown")
            await asyncio.sleep(presence.FLUSH_S * 3)  # the seats' notes were flushed, if any
            assert not raw.exists(presence_key(game_id)), raw.hgetall(presence_key(game_id))

    try:
        run(scenario(), timeout_s=30)
    finally:
        raw.close()
