"""A game in play whose content a new build retires (``CONTENT_VERSION_RETIRED``) kept its entry in
the deadline index, which every replica claimed at every poll (four times a second) until the game
expired, a retention after its last step: 1,000 such games with clocks took 59 % of a core of the
replica and 12,000 Redis commands a second, where none took nothing. Such a game is now looked at
again only after ``seats.UNPLAYABLE_LOOK_AGAIN_MS``, and keeps its entry, so that a replica of a
build that can play it (during a rolling upgrade) still finds it due. A real replica over a real
Redis (an embedded one of its own).
"""

from __future__ import annotations

import asyncio
import pathlib
from typing import Any

import redis.asyncio as aioredis

from conftest import run
from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import UNBOUNDED_CALL_RATE, Replica, ReplicaConfig
from hustings.service.deadlines import bucket_key
from hustings.service.seats import UNPLAYABLE_LOOK_AGAIN_MS
from hustings.service.store import game_key
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2, game_service_pb2

RETIRED = "0000000000000000"  # a content and rules version no build has


async def _replica(url: str) -> Replica:
    config = ReplicaConfig(redis_url=url, address="127.0.0.1:0", grace_s=1.0, **UNBOUNDED_CALL_RATE)  # type: ignore[arg-type]
    return await Replica(config).start()


def test_a_game_of_retired_content_leaves_the_deadline_index(tmp_path: pathlib.Path) -> None:
    """A three-seat game with a one-second clock, seated, as if recorded by another build's rules
    content: no replica can play it (CONTENT_VERSION_RETIRED), so once its deadline has come the
    replica looks at it a bounded number of times, not at every poll for the rest of its life."""

    async def scenario(url: str) -> tuple[int, int]:
        raw = aioredis.Redis.from_url(url)
        try:
            first = await _replica(url)
            try:
                async with Client(f"127.0.0.1:{first.port}") as client:
                    request = game_service_pb2.CreateGameRequest(kind="stimmvieh", options=game_pb2.GameOptions(players=3))
                    request.table.decision_seconds = 1
                    game_id = (await client.stub.CreateGame(request)).game_id
                    for seat in range(3):
                        await client.join(game_id, f"Player {seat}")
            finally:
                await first.stop()
            # The game as a build of other rules content recorded it (a deploy that retires it).
            stored = storage_pb2.StoredGame.FromString(await raw.hget(game_key(game_id), "snapshot"))
            stored.content_version = stored.rules_version = RETIRED
            await raw.hset(game_key(game_id), "snapshot", stored.SerializeToString())
            # A replica of the new build: nothing of the game cached, it decodes it anew.
            replica = await _replica(url)
            looks = 0
            apply_due = replica.host.deadline_runner.apply_due

            async def counted(game: str) -> Any:
                nonlocal looks
                looks += 1
                return await apply_due(game)

            replica.host.deadline_runner.apply_due = counted
            try:
                await asyncio.sleep(4.0)  # the deadline comes after 1 s; then 12 polls or so
                pending = await replica.host.deadlines.pending()
                due_in_ms = int(await raw.zscore(bucket_key(game_id), game_id)) - replica.host._now_ms()
                return looks, pending, due_in_ms
            finally:
                await replica.stop()
        finally:
            await raw.aclose()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        result = run(scenario(server.url), timeout_s=60)
    assert isinstance(result, tuple)
    looks, pending, due_in_ms = result
    print(f"\nlooks at the retired game in 4 s: {looks}; games in the deadline index: {pending}; next look in {due_in_ms} ms")
    assert looks == 1, f"the retired game was claimed {looks} times in 4 s"
    # Kept, for a build that can play it, and looked at again a while after the one look (which
    # came within the last 3 s).
    assert pending == 1
    assert UNPLAYABLE_LOOK_AGAIN_MS - 4_000 < due_in_ms <= UNPLAYABLE_LOOK_AGAIN_MS
