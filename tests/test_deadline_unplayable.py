"""A game in play whose content a new build retires (``CONTENT_VERSION_RETIRED``) kept its entry in
the deadline index, which every replica claimed at every poll (four times a second) until the game
expired, a retention after its last step: 1,000 such games with clocks took 59 % of a core of the
replica and 12,000 Redis commands a second, where none took nothing. Such a game is now looked at
again only after ``seats.UNPLAYABLE_LOOK_AGAIN_MS``, and keeps its entry, so that a replica of a
build that can play it (during a rolling upgrade) still finds it due. So is a game of a kind the
replica's build does not have (a newer build's kind, met by a replica of the build before), and
calls on such a game are refused UNAVAILABLE ``UNKNOWN_STORED_KIND`` with a retry hint (HTTP 503
with ``Retry-After``), never INTERNAL, and change nothing. A real replica over a real Redis (an
embedded one of its own).
"""

from __future__ import annotations

import asyncio
import pathlib
from typing import Any, Awaitable, Callable

import redis.asyncio as aioredis

import grpc
import pytest
import requests

from conftest import run
from hustings.client import ONE_ATTEMPT, Client, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import UNBOUNDED_CALL_RATE, Replica, ReplicaConfig
from hustings.service.deadlines import bucket_key
from hustings.service.host import UNKNOWN_KIND_RETRY_S
from hustings.service.seats import UNPLAYABLE_LOOK_AGAIN_MS
from hustings.service.store import game_key
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2, game_service_pb2

RETIRED = "0000000000000000"  # a content and rules version no build has
NEWER_KIND = "a_kind_of_a_newer_build"


def _retire(stored: storage_pb2.StoredGame) -> None:
    """The game as a build of other rules content recorded it (a deploy that retires it)."""
    stored.content_version = stored.rules_version = RETIRED


def _of_a_newer_kind(stored: storage_pb2.StoredGame) -> None:
    """The game as if of a kind this build does not have (made by a newer build)."""
    stored.kind = NEWER_KIND


UNPLAYABLE = {"retired_content": _retire, "unknown_kind": _of_a_newer_kind}


async def _replica(url: str) -> Replica:
    config = ReplicaConfig(redis_url=url, address="127.0.0.1:0", grace_s=1.0, **UNBOUNDED_CALL_RATE)  # type: ignore[arg-type]
    return await Replica(config).start()


def _on_own_redis(tmp_path: pathlib.Path, scenario: Callable[[str], Awaitable[tuple[Any, ...]]]) -> tuple[Any, ...]:
    """What ``scenario`` returns, run on an embedded Redis of the test's own (its URL given)."""
    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        result = run(scenario(server.url), timeout_s=60)
    assert isinstance(result, tuple)
    return result


async def _seated_game(url: str) -> tuple[str, list[str]]:
    """A three-seat Stimmvieh game with a one-second clock, every seat taken, made by a replica
    that is stopped again (nothing of the game is cached where the test looks next); its id and
    its seats' tokens."""
    first = await _replica(url)
    try:
        async with Client(f"127.0.0.1:{first.port}") as client:
            request = game_service_pb2.CreateGameRequest(kind="stimmvieh", options=game_pb2.GameOptions(players=3))
            request.table.decision_seconds = 1
            game_id = (await client.stub.CreateGame(request)).game_id
            tokens = [(await client.join(game_id, f"Player {seat}")).token for seat in range(3)]
        return game_id, tokens
    finally:
        await first.stop()


@pytest.mark.parametrize("unplayable", sorted(UNPLAYABLE))
def test_a_game_this_build_cannot_play_leaves_the_deadline_index(tmp_path: pathlib.Path, unplayable: str) -> None:
    """A three-seat game with a one-second clock, seated, as if recorded by another build's rules
    content (CONTENT_VERSION_RETIRED) or of a kind this build does not have: this replica cannot
    play it, so once its deadline has come the replica looks at it a bounded number of times,
    not at every poll for the rest of its life."""

    async def scenario(url: str) -> tuple[int, int]:
        raw = aioredis.Redis.from_url(url)
        try:
            game_id, _tokens = await _seated_game(url)
            stored = storage_pb2.StoredGame.FromString(await raw.hget(game_key(game_id), "snapshot"))
            UNPLAYABLE[unplayable](stored)
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

    looks, pending, due_in_ms = _on_own_redis(tmp_path, scenario)
    print(f"\nlooks at the {unplayable} game in 4 s: {looks}; games in the deadline index: {pending}; next look in {due_in_ms} ms")
    assert looks == 1, f"the {unplayable} game was claimed {looks} times in 4 s"
    # Kept, for a build that can play it, and looked at again a while after the one look (which
    # came within the last 3 s).
    assert pending == 1
    assert UNPLAYABLE_LOOK_AGAIN_MS - 4_000 < due_in_ms <= UNPLAYABLE_LOOK_AGAIN_MS


def test_calls_on_a_game_of_a_kind_this_build_lacks_are_refused_unavailable_and_change_nothing(tmp_path: pathlib.Path) -> None:
    """GetView, SubmitMove and (the game over) PlayAgain on a game of a kind this replica's build
    does not have: UNAVAILABLE ``UNKNOWN_STORED_KIND`` with the retry hint over gRPC, 503 with
    ``Retry-After`` over REST, the kind named and nothing else of the game; its stored record
    unchanged."""

    async def scenario(url: str) -> tuple[list[tuple[grpc.StatusCode, str, float | None, str]], tuple[int, str, str, str], bool]:
        raw = aioredis.Redis.from_url(url)
        try:
            game_id, tokens = await _seated_game(url)
            stored = storage_pb2.StoredGame.FromString(await raw.hget(game_key(game_id), "snapshot"))
            _of_a_newer_kind(stored)
            # Over, for PlayAgain (which reads the finished game's kind to make the next one).
            stored.status = game_pb2.GAME_STATUS_FINISHED
            await raw.hset(game_key(game_id), "snapshot", stored.SerializeToString())
            before = await raw.hgetall(game_key(game_id))
            config = ReplicaConfig(redis_url=url, address="127.0.0.1:0", http_address="127.0.0.1:0", grace_s=1.0, **UNBOUNDED_CALL_RATE)  # type: ignore[arg-type]
            replica = await Replica(config).start()
            refusals = []
            try:
                async with Client(f"127.0.0.1:{replica.port}", retry=ONE_ATTEMPT) as client:
                    calls = (
                        lambda: client.view(game_id),
                        lambda: client.move(game_id, tokens[0], game_pb2.Move()),
                        lambda: client.play_again(game_id, tokens[0]),
                    )
                    for call in calls:
                        with pytest.raises(HustingsError) as refused:
                            await call()
                        error = refused.value
                        refusals.append((error.code, error.reason, error.retry_after_s, error.message))
                answer = await asyncio.to_thread(requests.get, f"http://127.0.0.1:{replica.http_port}/v1/games/{game_id}/view", timeout=10)
                rest = (answer.status_code, answer.headers.get("Retry-After", ""), answer.json()["details"][0]["reason"], answer.json()["message"])
            finally:
                await replica.stop()
            return refusals, rest, await raw.hgetall(game_key(game_id)) == before
        finally:
            await raw.aclose()

    refusals, rest, unchanged = _on_own_redis(tmp_path, scenario)
    assert [(code, reason, hint) for code, reason, hint, _ in refusals] == [
        (grpc.StatusCode.UNAVAILABLE, "UNKNOWN_STORED_KIND", UNKNOWN_KIND_RETRY_S)
    ] * 3
    assert rest[:3] == (503, str(int(UNKNOWN_KIND_RETRY_S)), "UNKNOWN_STORED_KIND")
    for message in [m for *_, m in refusals] + [rest[3]]:
        assert NEWER_KIND in message
    assert unchanged
