"""What follows a step whose call is given up while its commit waits in Redis (a real Redis paused
with ``CLIENT PAUSE WRITE``, a real replica, real gRPC), at the call sites and checks that no
other test holds (``GameHost._after_cancelled_commit``): a bot seated by an AddBot given up so is
shown in the lobby, and its still-open game is kept out of the kept-games index; a move given up
so is shown in the lobby at its version; a move given up so on a game removed meanwhile writes no
lobby summary for it. The lobby's own repair is stopped, so that only the step's follow-up can
bring the lobby up to date."""

from __future__ import annotations

import asyncio
import uuid
from contextlib import asynccontextmanager
from typing import AsyncIterator

import grpc
import pytest
import redis as sync_redis

from conftest import run
from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import Replica
from hustings.service.room_maker import bucket_key
from hustings.service.store import LOBBY_VERSIONS_KEY, game_key
from hustings.v1 import game_service_pb2 as gs
from service_helpers import choose_top_candidates, remove_game, replica_and_client

TIMEOUT_S = 30.0
PAUSE_MS = 800  # Redis holds writes this long; the call gives up long before
GIVE_UP_S = 0.3
SETTLE_S = 2.0  # the background follow-up's bound once the pause is over


@asynccontextmanager
async def _without_lobby_repair(redis_url: str) -> AsyncIterator[tuple[Replica, Client]]:
    async with replica_and_client(redis_url) as (replica, client):
        await replica.host.lobby_repair.stop()  # only the step's follow-up writes the lobby
        yield replica, client


async def _given_up(admin: sync_redis.Redis, call: object) -> None:
    """``call`` (a gRPC call with a GIVE_UP_S deadline) given up while Redis holds writes, and the
    pause over."""
    admin.execute_command("CLIENT", "PAUSE", str(PAUSE_MS), "WRITE")
    with pytest.raises(grpc.aio.AioRpcError) as given_up:
        await call  # type: ignore[misc]
    assert given_up.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    await asyncio.sleep(PAUSE_MS / 1000 + 0.2)  # the paused commit has run meanwhile


def _lobby_version(admin: sync_redis.Redis, game_id: str) -> int | None:
    """The version of the game's summary in the lobby (None: not there)."""
    if admin.type(LOBBY_VERSIONS_KEY) == b"zset":
        score = admin.zscore(LOBBY_VERSIONS_KEY, game_id)
        return None if score is None else int(score)
    value = admin.hget(LOBBY_VERSIONS_KEY, game_id)
    return None if value is None else int(value)


async def _lobby_reaches(admin: sync_redis.Redis, game_id: str, version: int) -> bool:
    """Whether the lobby shows the game at ``version`` within SETTLE_S (bounded wait)."""
    for _ in range(int(SETTLE_S / 0.05)):
        if _lobby_version(admin, game_id) == version:
            return True
        await asyncio.sleep(0.05)
    return False


async def _move_given_up(admin: sync_redis.Redis, client: Client, game_id: str, token: str) -> None:
    """A Stimmvieh opening choice by the seat of ``token``, given up while its commit waits."""
    request = gs.SubmitMoveRequest(game_id=game_id, request_id=uuid.uuid4().hex, move=choose_top_candidates(1, 2, 3, 4))
    await _given_up(admin, client.stub.SubmitMove(request, timeout=GIVE_UP_S, metadata=(("authorization", f"Bearer {token}"),)))


def test_an_add_bot_given_up_mid_commit_is_shown_in_the_lobby_and_its_open_game_not_kept(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        admin = sync_redis.Redis.from_url(redis_server.url)
        try:
            async with _without_lobby_repair(redis_server.url) as (_replica, client):
                game_id = (await client.create_game("stimmvieh", 4)).game_id
                await client.join(game_id, "Ada")
                before = (await client.view(game_id)).version
                await _given_up(admin, client.stub.AddBot(gs.AddBotRequest(game_id=game_id, seat=1), timeout=GIVE_UP_S))
                view = await client.view(game_id)
                assert view.version == before + 1 and view.seats[1].bot, "the bot's commit did not land"
                assert await _lobby_reaches(admin, game_id, view.version), (
                    f"the lobby shows version {_lobby_version(admin, game_id)}, not the bot's {view.version}"
                )
                assert admin.zscore(bucket_key(game_id), game_id) is None, "an open game noted in the kept-games index"
        finally:
            admin.close()

    run(scenario(), TIMEOUT_S * 2)


def test_a_move_given_up_mid_commit_is_shown_in_the_lobby_at_its_version(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        admin = sync_redis.Redis.from_url(redis_server.url)
        try:
            async with _without_lobby_repair(redis_server.url) as (_replica, client):
                game_id = (await client.create_game("stimmvieh", 3)).game_id
                seats = [await client.join(game_id, name) for name in ("Ada", "Bo", "Cy")]
                before = (await client.view(game_id)).version
                await _move_given_up(admin, client, game_id, seats[0].token)
                view = await client.view(game_id)
                assert view.version == before + 1, "the move's commit did not land"
                assert await _lobby_reaches(admin, game_id, view.version), (
                    f"the lobby shows version {_lobby_version(admin, game_id)}, not the move's {view.version}"
                )
        finally:
            admin.close()

    run(scenario(), TIMEOUT_S * 2)


def test_a_move_given_up_mid_commit_on_a_removed_game_writes_no_lobby_summary(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        admin = sync_redis.Redis.from_url(redis_server.url)
        try:
            async with _without_lobby_repair(redis_server.url) as (_replica, client):
                game_id = (await client.create_game("stimmvieh", 3)).game_id
                seats = [await client.join(game_id, name) for name in ("Ada", "Bo", "Cy")]
                before = (await client.view(game_id)).version
                assert _lobby_version(admin, game_id) == before
                # Removed as its expiry or the room maker removes it; the replica still holds it.
                remove_game(admin, game_id)
                await _move_given_up(admin, client, game_id, seats[0].token)
                assert not admin.exists(game_key(game_id))
                assert not await _lobby_reaches(admin, game_id, before + 1), "a step that never landed written to the lobby"
        finally:
            admin.close()

    run(scenario(), TIMEOUT_S * 2)
