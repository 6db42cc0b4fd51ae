"""An open game's wait ends at most twice its open_seconds after its creation (README, Expiry). A
seat change in its last second gives every key of the game that second, those the step creates
included (its presence, its request ids): a step that kept "the expiry the keys have" left a key
it created with none, never to expire. A seat change past the end renews nothing and is refused
as for a game gone, writing nothing: each would otherwise add a second.

Real parts: a Redis server and a bare host over it whose clock the test sets."""

from __future__ import annotations

import grpc
import pytest
import redis as sync_redis

from conftest import run
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.errors import ServiceError
from hustings.service.host import GameHost
from hustings.service.notifier import Notifier
from hustings.service.server_secret import Keys
from hustings.service.store import Store, game_key, log_key, presence_key, requests_key
from hustings.v1 import game_pb2, game_service_pb2 as gs
from service_helpers import stimmvieh_options

SECRET = b"open-wait-end-secret-0123456789a"
START_S = 1_700_000_000.0
WAIT_S = 2


def test_a_seat_change_in_the_last_second_gives_every_key_an_expiry_and_one_past_the_end_is_refused(own_redis: EmbeddedRedis) -> None:
    admin = sync_redis.Redis.from_url(own_redis.url)

    async def scenario() -> None:
        store = Store.from_url(own_redis.url)
        now = [START_S]
        host = GameHost(store, Notifier(store.client), keys=Keys(SECRET), clock=lambda: now[0])
        try:
            create = gs.CreateGameRequest(kind="stimmvieh", options=stimmvieh_options(4))
            create.table.CopyFrom(game_pb2.TableSettings(open_seconds=WAIT_S))
            game_id = (await host.create_game(create)).game_id
            now[0] = START_S + 1.5
            await host.add_bot(gs.AddBotRequest(game_id=game_id, level="random"))  # no presence yet
            now[0] = START_S + 2 * WAIT_S - 0.5  # the wait's last second
            await host.join_game(gs.JoinGameRequest(game_id=game_id, display_name="Ada", request_id="ada-join-5d0e8c2a41f7"))
            keys = [game_key(game_id), log_key(game_id), requests_key(game_id), presence_key(game_id)]
            lives = [admin.pttl(key) for key in keys]
            assert all(0 < left <= 1000 for left in lives), dict(zip(keys, lives))
            version = int(admin.hget(game_key(game_id), "version") or 0)
            now[0] = START_S + 2 * WAIT_S + 0.2  # past the end, the keys not yet gone
            with pytest.raises(ServiceError) as refused:
                await host.join_game(gs.JoinGameRequest(game_id=game_id, display_name="Bo", request_id="bo-join-6e1f9d3b52a8c"))
            assert (refused.value.code, refused.value.reason) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")
            assert int(admin.hget(game_key(game_id), "version") or 0) == version  # nothing written
            assert all(0 < admin.pttl(key) <= 1000 for key in keys)  # nor renewed
        finally:
            await store.close()

    try:
        run(scenario(), 60)
    finally:
        admin.close()
