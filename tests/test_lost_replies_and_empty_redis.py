"""Durability and failures mid-call, each against real parts (a real Redis, a real replica, a real
loopback TCP proxy between them).

- The commits' lane (service/lane.py) sends a commit again when its reply is lost with the
  connection, and counts on the request key and the version check to make that safe. A step
  without a request key (a JoinGame without ``request_id``, as the README's grpcurl, curl and
  Node.js sessions send it; an AddBot that names no seat) came back CONFLICT, against its own
  first write, and the call decided again on the game it made itself: one call took two seats.
  Each such call now carries a request key of its own, and its resend comes back DUPLICATE.
- Without ``--secret-file`` or ``HUSTINGS_SECRET`` (as the compose file and the Kubernetes
  manifests run) the secret is kept in Redis. A Redis that comes back empty (no persistence, a
  new server behind the same address) has lost it, while the running replicas keep theirs and
  put its check value back: a replica started after that drew another secret and refused to
  start, so no replica could be added or restarted until every one was stopped at once. The
  running replicas now put the secret back with its check value.
"""

from __future__ import annotations

import asyncio
import contextlib
import pathlib

import pytest
import redis as sync_redis

from conftest import run
from hustings.client import Client
from hustings.service import server_secret
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import Replica, ReplicaConfig
from hustings.v1 import game_pb2, game_service_pb2 as gs
from service_helpers import CommitReplyCutter, replica_and_client

TIMEOUT_S = 30.0


def _named(view: game_pb2.GameView, name: str) -> list[int]:
    return [seat.seat for seat in view.seats if seat.display_name == name]



def test_a_join_without_request_id_whose_commit_reply_is_lost_takes_one_seat(redis_server: EmbeddedRedis) -> None:
    """README's grpcurl, curl and Node.js sessions join without a requestId. The replica's lane
    loses the reply of the join's commit, sends it again, gets CONFLICT (the join itself moved
    the game on) and seats the caller a second time: the call answers one token, and another
    seat is held by a token nobody has. At a table of two the game starts with nobody at one
    seat."""

    async def scenario() -> None:
        async with CommitReplyCutter(redis_server.port, b"Ada-lost-reply").running() as proxy:
            async with replica_and_client(proxy.url) as (_replica, client):
                created = await client.create_game("stimmvieh", 3)
                game_id = created.game_id
                answer = await asyncio.wait_for(
                    client.stub.JoinGame(gs.JoinGameRequest(game_id=game_id, display_name="Ada-lost-reply")), TIMEOUT_S
                )
                assert proxy.cut == 1  # the commit's first reply was lost on the way back
                view = await client.view(game_id)
                # One call, one seat: the one its answer names.
                assert _named(view, "Ada-lost-reply") == [answer.seat]
                assert view.version == 2

    run(scenario(), TIMEOUT_S * 2)



def test_an_add_bot_naming_no_seat_whose_commit_reply_is_lost_seats_one_bot(redis_server: EmbeddedRedis) -> None:
    """AddBot takes the lowest free seat when the request names none (REST and gRPC callers
    other than the project's clients send none). Its commit's reply lost, the lane sends it
    again, CONFLICT sends the call round its loop, and a second bot takes the next seat; the
    call answers one seat, and the second bot was not charged (``charge.sent(False)``). A
    three-seat table with one player fills with two bots and starts without its third player."""

    async def scenario() -> None:
        async with CommitReplyCutter(redis_server.port, b"Bot (random)").running() as proxy:
            async with replica_and_client(proxy.url) as (_replica, client):
                created = await client.create_game("stimmvieh", 3)
                game_id = created.game_id
                await client.join(game_id, "Ada")
                answer = await asyncio.wait_for(client.stub.AddBot(gs.AddBotRequest(game_id=game_id)), TIMEOUT_S)
                assert proxy.cut == 1  # the commit's first reply was lost on the way back
                view = await client.view(game_id)
                assert [seat.seat for seat in view.seats if seat.bot] == [answer.seat]
                assert view.status == game_pb2.GAME_STATUS_OPEN

    run(scenario(), TIMEOUT_S * 2)



def test_a_replica_started_after_redis_came_back_empty_shares_the_running_replicas_secret(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The running replica holds the secret it read from Redis and, with its guard's next round,
    claims the check value again in the empty Redis; the secret itself is not put back. A
    replica started then draws a new secret (SET NX finds nothing), finds the running replica's
    check value and stops with SecretMismatch. It should start with the running replica's
    secret: a join retried on it answers the same seat and token."""
    monkeypatch.setattr(server_secret, "CHECK_EVERY_S", 0.2)  # the guard's round, 10 s in service

    async def scenario(server: EmbeddedRedis) -> None:
        config = dict(redis_url=server.url, address="127.0.0.1:0", grace_s=0.5)
        running = await Replica(ReplicaConfig(**config)).start()  # type: ignore[arg-type]
        raw = sync_redis.Redis.from_url(server.url)
        try:
            server.stop()
            server.start()  # the same address, no append-only file: nothing came back
            for _round in range(50):  # bounded: 5 s, 25 of the guard's rounds
                await asyncio.sleep(0.1)
                with contextlib.suppress(sync_redis.RedisError):
                    if raw.exists(server_secret.CHECK_KEY):
                        break
            assert raw.exists(server_secret.CHECK_KEY)  # the running replica claimed it again
            later = await asyncio.wait_for(Replica(ReplicaConfig(**config)).start(), TIMEOUT_S)  # type: ignore[arg-type]
            try:
                async with Client(f"127.0.0.1:{running.port}") as first, Client(f"127.0.0.1:{later.port}") as second:
                    game_id = (await first.create_game("stimmvieh", 3)).game_id
                    request_id = "join-after-redis-came-back-0001"
                    ada = await first.join(game_id, "Ada", request_id=request_id)
                    again = await second.join(game_id, "Ada", request_id=request_id)
                    assert (again.seat, again.token) == (ada.seat, ada.token)
            finally:
                await later.stop()
        finally:
            raw.close()
            await running.stop()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server), 60)
