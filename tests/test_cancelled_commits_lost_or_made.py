"""What follows a step whose call was cancelled while its commit waited, against real parts (a
real Redis paused with ``CLIENT PAUSE WRITE``, or a loopback proxy that holds one commit, real
replicas, real gRPC): it follows only the step that landed, and a create's follows it too.

- A leave given up while its commit waited lost the race to another replica's move at the same
  version; its follow-up still wrote the leave's summary (the seat absent) to the lobby, where no
  repair replaced it. The follow-up now checks that the log holds this step's own entry.
- A CreateGame given up while its commit waited made its game but never noted it made, so that
  a retry after the game was gone made a second game under its id. The note now follows the
  commit whichever way the call ends.
"""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from typing import Any

import grpc
import pytest
import redis as sync_redis

from conftest import run
from hustings.client import Client
from hustings.service import store as store_module
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2, game_service_pb2 as gs
from service_helpers import RedisProxy, new_game, remove_game, replica_and_client

TIMEOUT_S = 30.0
PAUSE_MS = 800  # Redis holds writes this long; a call with GIVE_UP_S gives up long before
GIVE_UP_S = 0.3


def _summary(page: gs.ListGamesResponse, game_id: str) -> game_pb2.GameSummary | None:
    for summary in page.games:
        if summary.game_id == game_id:
            return summary
    return None


async def _one_to_act(client: Client, seats: list) -> game_pb2.GameView:
    """Play the first legal moves until one seat alone is to act (a leave of another seat then
    owes no decision, so its step writes nothing before its commit)."""
    game_id = seats[0].game_id
    for _ in range(50):
        view = await client.view(game_id)
        assert view.status == game_pb2.GAME_STATUS_ACTIVE
        if len(view.to_act) == 1:
            return view
        seat = view.to_act[0]
        mine = await client.view(game_id, seats[seat].token)
        await client.move(game_id, seats[seat].token, mine.legal_moves[0], expected_version=mine.version)
    raise AssertionError("no position with one seat to act within the bound")


def test_a_leave_given_up_mid_commit_that_lost_the_race_leaves_the_lobby_as_the_game_is(redis_server: EmbeddedRedis) -> None:
    """Seat 1 leaves through replica A while Redis holds writes and gives up (its deadline);
    meanwhile a move through replica B, sent first, lands at the version the leave aimed at, so
    the leave's commit is refused (CONFLICT) and the seat is not absent. The follow-up of A's
    cancelled commit sees the game at that version and writes the leave's summary (seat 1
    absent) at it: the index keeps the newest version, so the move's (or the repair's) summary
    never replaces it, and the lobby shows an absent seat that is not absent."""

    async def scenario() -> None:
        admin = sync_redis.Redis.from_url(redis_server.url)
        try:
            async with replica_and_client(redis_server.url) as (replica_a, client_a), replica_and_client(redis_server.url) as (_b, client_b):
                seats = await new_game(client_a, 4)
                game_id = seats[0].game_id
                view = await _one_to_act(client_a, seats)
                mover = view.to_act[0]
                leaver = next(s for s in range(4) if s != mover)
                mine = await client_b.view(game_id, seats[mover].token)
                admin.execute_command("CLIENT", "PAUSE", str(PAUSE_MS), "WRITE")
                move = asyncio.create_task(client_b.move(game_id, seats[mover].token, mine.legal_moves[0], expected_version=mine.version))
                await asyncio.sleep(0.15)  # the move's commit waits in Redis first
                metadata = (("authorization", f"Bearer {seats[leaver].token}"),)
                with pytest.raises(grpc.aio.AioRpcError) as given_up:
                    await client_a.stub.LeaveGame(gs.LeaveGameRequest(game_id=game_id), metadata=metadata, timeout=GIVE_UP_S)
                assert given_up.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
                moved = await asyncio.wait_for(move, TIMEOUT_S)
                assert moved.version == mine.version + 1
                await asyncio.sleep(0.3)  # the follow-ups have run meanwhile
                now = await client_a.view(game_id)
                # The move came first; the leave was refused by the commit's version check.
                assert now.version == mine.version + 1 and not now.seats[leaver].absent, now
                await replica_a.host.lobby_repair.repair_once()  # a repair pass does not mend it either
                for _ in range(20):  # bounded: the lobby as the game is
                    summary = _summary(await client_a.games(page_size=200), game_id)
                    assert summary is not None
                    assert not summary.seats[leaver].absent, "the lobby lists a seat absent by a leave that never happened"
                    await asyncio.sleep(0.05)
        finally:
            admin.close()

    run(scenario(), TIMEOUT_S * 2)


COMMIT_SHA = hashlib.sha1(store_module._COMMIT_LUA.encode()).hexdigest().encode()


class CommitHolder(RedisProxy):
    """A proxy (``RedisProxy``) that, once ``armed``, holds the first request carrying a commit
    (the commit script's hash) ``hold_s`` before it goes on: the commit runs in Redis after its
    call has been given up, and nothing sent before it on the same call (a reservation, a lobby
    entry) is held."""

    def __init__(self, target_port: int, hold_s: float) -> None:
        super().__init__(target_port)
        self.hold_s = hold_s
        self.armed = False
        self.held = 0

    async def request(self, data: bytes, connection: dict[str, Any]) -> None:
        if self.armed and COMMIT_SHA in data:
            self.armed = False
            self.held += 1
            await asyncio.sleep(self.hold_s)


def test_a_create_given_up_mid_commit_is_refused_once_its_game_isremove_game(redis_server: EmbeddedRedis) -> None:
    """A CreateGame gives up (its deadline) while its commit waits; the commit lands and makes
    the game. Once that game is gone (expired, or removed to make room) a retry under the same
    request id must be refused CREATED_GAME_GONE, as for a create that was answered: instead it
    makes a second game under the first one's id, the very thing the marker is for."""

    async def scenario() -> None:
        admin = sync_redis.Redis.from_url(redis_server.url)
        holder = CommitHolder(redis_server.port, hold_s=0.8)
        try:
            async with holder.running(), replica_and_client(holder.url) as (replica, client):
                await client.create_game("stimmvieh", 3)  # Redis has learnt the commit script
                request = gs.CreateGameRequest(kind="stimmvieh", options=game_pb2.GameOptions(players=3), request_id=uuid.uuid4().hex)
                holder.armed = True
                with pytest.raises(grpc.aio.AioRpcError) as given_up:
                    await client.stub.CreateGame(request, timeout=GIVE_UP_S)
                assert given_up.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED and holder.held == 1
                await asyncio.sleep(1.2)  # the held commit has run, and its follow-up too
                # The game was made: the lobby (indexed before the commit) names it, and it exists.
                reserved = admin.get(store_module.create_request_key(replica.host.keys.request_key("create", request.request_id)))
                assert reserved is not None
                first = await client.view(reserved.split()[0].decode())
                assert first.version == 1
                remove_game(admin, first.game_id)
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    again = await client.stub.CreateGame(request, timeout=TIMEOUT_S)
                    raise AssertionError(f"a second game under the first one's id: {again.game_id} (first {first.game_id})")
                assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
                assert "CREATED_GAME_GONE" in (refused.value.details() or "") + str(refused.value.trailing_metadata())
        finally:
            admin.close()

    run(scenario(), TIMEOUT_S * 2)

