"""What the README's "Retries" and the proto's request_id comments promise that no other test
held the service to: a request id reused with another seat, seed or newcomer is refused, request
ids are 1 to 64 printable characters on every call that takes one, a CreateGame request id is
kept for a day, and a table that allows no takeover says so. A real replica over gRPC, a real
Redis."""

from __future__ import annotations

from typing import Awaitable

import grpc
import pytest
import redis as sync_redis

from conftest import run, running_replica
from hustings.client import Client, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store import game_key
from hustings.v1 import game_pb2
from service_helpers import choose_top_candidates, new_game

DAY_S = 24 * 3600
SEED_A, SEED_B = "a1" * 32, "b2" * 32
# Not printable ASCII, or longer than 64: each refused as BAD_REQUEST_ID before anything changes.
BAD_REQUEST_IDS = ("r" * 65, "with space 1234567", "tab\there-12345678", "caf\u00e9-0123456789ab")


async def _refused(call: Awaitable[object]) -> HustingsError:
    with pytest.raises(HustingsError) as caught:
        await call
    return caught.value


def _version(raw: sync_redis.Redis, game_id: str) -> int:
    return int(raw.hget(game_key(game_id), "version") or 0)


def test_a_request_id_reused_for_another_seat_seed_or_newcomer_is_refused(redis_server: EmbeddedRedis) -> None:
    """README: "One id sent with a different request (another move, name, seat, kind or
    options) is refused with FAILED_PRECONDITION `REQUEST_ID_REUSED`"; proto: CreateGame's id
    with another seed, TakeOverSeat's with another seat or name. TakeOverSeat where the table
    does not allow it is PERMISSION_DENIED."""
    raw = sync_redis.Redis.from_url(redis_server.url)

    async def scenario() -> None:
        async with running_replica(redis_server.url, allow_client_seed=True) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                created = await client.create_game("stimmvieh", 3, seed=SEED_A, request_id="create-seed-Hq4x")
                reused = await _refused(client.create_game("stimmvieh", 3, seed=SEED_B, request_id="create-seed-Hq4x"))
                assert (reused.code, reused.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "REQUEST_ID_REUSED")
                again = await client.create_game("stimmvieh", 3, seed=SEED_A, request_id="create-seed-Hq4x")
                assert again.game_id == created.game_id

                game_id = created.game_id
                rid = "join-seat-ada-7Lw2c9Qe"
                ada = await client.join(game_id, "Ada", seat=1, request_id=rid)
                version = _version(raw, game_id)
                reused = await _refused(client.join(game_id, "Ada", seat=2, request_id=rid))
                assert (reused.code, reused.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "REQUEST_ID_REUSED")
                assert _version(raw, game_id) == version
                assert (await client.join(game_id, "Ada", seat=1, request_id=rid)).token == ada.token

                table = game_pb2.TableSettings(allow_takeover=True)
                open_table = (await client.create_game("stimmvieh", 3, table=table)).game_id
                closed_table = (await client.create_game("stimmvieh", 3)).game_id
                for gid in (open_table, closed_table):
                    seats = [await client.join(gid, name) for name in ("Ada", "Bo", "Cy")]
                    await client.leave(gid, seats[0].token)
                    await client.leave(gid, seats[1].token)
                closed = await _refused(client.take_over(closed_table, 0, "Dee", request_id="take-closed-Vb81mq"))
                assert (closed.code, closed.reason) == (grpc.StatusCode.PERMISSION_DENIED, "TAKEOVER_NOT_ALLOWED")
                take = "take-over-dee-3Kp0sZ"
                dee = await client.take_over(open_table, 0, "Dee", request_id=take)
                version = _version(raw, open_table)
                for seat, name in ((1, "Dee"), (0, "Eve")):
                    reused = await _refused(client.take_over(open_table, seat, name, request_id=take))
                    assert (reused.code, reused.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "REQUEST_ID_REUSED")
                assert _version(raw, open_table) == version
                assert (await client.take_over(open_table, 0, "Dee", request_id=take)).token == dee.token

    try:
        run(scenario())
    finally:
        raw.close()


def test_request_ids_longer_than_64_or_not_printable_are_refused(redis_server: EmbeddedRedis) -> None:
    """proto: a request_id is "1 to 64 printable characters" - on CreateGame, JoinGame,
    SubmitMove and TakeOverSeat alike; otherwise INVALID_ARGUMENT BAD_REQUEST_ID, nothing
    changed. 64 printable characters are taken."""
    raw = sync_redis.Redis.from_url(redis_server.url)

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                seats = await new_game(client, 3)
                game_id = seats[0].game_id
                version = _version(raw, game_id)
                move = choose_top_candidates(1, 2, 3, 4)
                for rid in BAD_REQUEST_IDS:
                    calls = (
                        client.create_game("stimmvieh", 3, request_id=rid),
                        client.join(game_id, "Late", request_id=rid),
                        client.move(game_id, seats[0].token, move, request_id=rid),
                        client.take_over(game_id, 0, "Dee", request_id=rid),
                    )
                    for call in calls:
                        refused = await _refused(call)
                        assert (refused.code, refused.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_REQUEST_ID"), rid
                assert _version(raw, game_id) == version
                longest = "~" * 32 + "!" * 32  # 64 characters from both ends of printable ASCII
                created = await client.create_game("stimmvieh", 3, request_id=longest)
                assert created.game_id
                answer = await client.move(game_id, seats[0].token, move, request_id=longest)
                assert answer.version == version + 1

    try:
        run(scenario())
    finally:
        raw.close()


def test_a_create_request_id_is_kept_for_a_day(redis_server: EmbeddedRedis) -> None:
    """proto CreateGameRequest.request_id: "kept for a day". Its record in Redis (a keyed hash,
    never the id) expires after a day, not sooner and not never."""
    raw = sync_redis.Redis.from_url(redis_server.url)
    rid = "create-kept-a-day-Zx81"

    async def scenario() -> str:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                before = set(raw.scan_iter(match="hustings:create:*", count=1000))
                created = await client.create_game("stimmvieh", 3, request_id=rid)
                # The record, and the note that its game was made.
                records = set(raw.scan_iter(match="hustings:create:*", count=1000)) - before
                assert len(records) == 2 and sum(r.endswith(b":made") for r in records) == 1, records
                for record in records:
                    assert rid.encode() not in record and rid.encode() not in (raw.get(record) or b"")
                    assert DAY_S - 60 < raw.ttl(record) <= DAY_S
                return created.game_id

    try:
        run(scenario())
    finally:
        raw.close()
