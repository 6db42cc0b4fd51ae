"""Retries that converge: joins whose answer is a function of the request, strict request ids,
random game ids, request ids at rest only as keyed hashes, a lobby repaired after a failed write,
a full Redis named as such, and simultaneous choices without contention errors.

Real parts throughout: Redis server processes on loopback, in-process replicas serving real gRPC.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import pathlib
import random
from typing import AsyncIterator

import grpc
import pytest
import redis

from conftest import run, running_replica
from service_helpers import choose_top_candidates, new_game, play_to_end, stimmvieh_options
from hustings.client import Client, HustingsError
from hustings.service import metrics
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.lobby import LobbyRepair
from hustings.service.store import LOBBY_VERSIONS_KEY, Store, game_key
from hustings.v1 import game_pb2, game_service_pb2


async def _refused(call: "asyncio.Future[object] | object") -> HustingsError:
    with pytest.raises(HustingsError) as caught:
        await call  # type: ignore[misc]
    return caught.value


def _version(redis_url: str, game_id: str) -> int:
    client = redis.Redis.from_url(redis_url)
    try:
        return int(client.hget(game_key(game_id), "version"))  # type: ignore[arg-type]
    finally:
        client.close()


@contextlib.asynccontextmanager
async def _three(redis_url: str) -> AsyncIterator[list[Client]]:
    """Three replicas over one Redis and a client for each."""
    async with running_replica(redis_url) as a, running_replica(redis_url) as b, running_replica(redis_url) as c:
        clients = [Client(f"127.0.0.1:{r.port}") for r in (a, b, c)]
        try:
            yield clients
        finally:
            for client in clients:
                await client.close()


def test_one_join_sent_to_three_replicas_at_once_answers_one_working_token(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with _three(redis_server.url) as clients:
            for round_ in range(20):
                created = await clients[0].create_game("stimmvieh", 3, stimmvieh_options(3))
                game_id = created.game_id
                for n, name in enumerate(("Ada", "Bo", "Cy")):
                    before = _version(redis_server.url, game_id)
                    request = game_service_pb2.JoinGameRequest(game_id=game_id, display_name=name, request_id=f"join-{round_}-{n}-x7Qz-b41e")
                    answers = await asyncio.gather(*(c.stub.JoinGame(request) for c in clients))
                    assert len({a.seat for a in answers}) == 1
                    assert len({a.seat_token for a in answers}) == 1
                    assert _version(redis_server.url, game_id) == before + 1, "the version moves once per seat"
                    for answer in answers:
                        view = await clients[round_ % 3].view(game_id, answer.seat_token)
                        assert view.seat == answer.seat
                view = await clients[1].view(game_id)
                assert view.status == game_pb2.GAME_STATUS_ACTIVE and view.version == 4

    run(scenario(), timeout_s=180)


def test_a_retried_join_changes_nothing_and_a_finished_game_refuses_joins(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                created = await client.create_game("stimmvieh", 3, stimmvieh_options(3))
                game_id = created.game_id
                request = game_service_pb2.JoinGameRequest(game_id=game_id, display_name="Ada", request_id="join-ada-Zq81-7c3e9a")
                first = await client.stub.JoinGame(request)
                watch = client.watch(game_id)
                opened = await watch.__anext__()
                retries = await asyncio.gather(*(client.stub.JoinGame(request) for _ in range(20)))
                assert {r.seat_token for r in retries} == {first.seat_token}
                assert _version(redis_server.url, game_id) == opened.version == 2
                # No wake-up of watchers: the next update the stream sees is the next real step.
                others = [await client.join(game_id, name) for name in ("Bo", "Cy")]
                update = await asyncio.wait_for(watch.__anext__(), 10)
                assert update.version >= 3 and [e.version for e in update.entries][0] == 3
                # The same request id with another name is a different request.
                other = game_service_pb2.JoinGameRequest(game_id=game_id, display_name="Eve", request_id="join-ada-Zq81-7c3e9a")
                with pytest.raises(grpc.aio.AioRpcError) as reused:
                    await client.stub.JoinGame(other)
                assert reused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
                assert HustingsError.from_rpc_error(reused.value).reason == "REQUEST_ID_REUSED"
                await play_to_end([client], [_joined(first, game_id), *others], random.Random(3))
                after = _version(redis_server.url, game_id)
                with pytest.raises(grpc.aio.AioRpcError) as over:
                    await client.stub.JoinGame(request)
                assert over.value.code() == grpc.StatusCode.FAILED_PRECONDITION
                assert HustingsError.from_rpc_error(over.value).reason == "GAME_OVER"
                assert _version(redis_server.url, game_id) == after

    run(scenario())


def _joined(answer: game_service_pb2.JoinGameResponse, game_id: str) -> object:
    from hustings.client import Joined

    return Joined(game_id, answer.seat, answer.seat_token, answer.view)


def test_request_ids_reused_for_another_request_are_refused(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                first = await client.create_game("stimmvieh", 3, stimmvieh_options(3), request_id="create-Kp2-0123456789")
                again = await client.create_game("stimmvieh", 3, stimmvieh_options(3), request_id="create-Kp2-0123456789")
                assert again.game_id == first.game_id
                refused = await _refused(client.create_game("stimmvieh", 4, stimmvieh_options(4), request_id="create-Kp2-0123456789"))
                assert (refused.code, refused.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "REQUEST_ID_REUSED")
                refused = await _refused(client.create_game("wahlspiel", 3, request_id="create-Kp2-0123456789"))
                assert refused.reason == "REQUEST_ID_REUSED"

                seats = await new_game(client, players=4)
                game_id = seats[0].game_id
                applied = await client.move(game_id, seats[0].token, choose_top_candidates(1, 2, 3, 4), request_id="move-Wt5")
                version = _version(redis_server.url, game_id)
                refused = await _refused(
                    client.move(game_id, seats[0].token, choose_top_candidates(5, 6, 7, 8), request_id="move-Wt5")
                )
                assert (refused.code, refused.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "REQUEST_ID_REUSED")
                retried = await client.move(game_id, seats[0].token, choose_top_candidates(1, 2, 3, 4), request_id="move-Wt5")
                assert retried.version == applied.version
                assert _version(redis_server.url, game_id) == version

    run(scenario())


def test_game_ids_are_random_not_derived_from_the_request_id(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                created = await client.create_game("stimmvieh", 3, stimmvieh_options(3), request_id="derive-me-0123456789")
                derived = "g" + hashlib.sha256(b"create:derive-me-0123456789").digest()[:12].hex()
                assert created.game_id != derived
                other = await client.create_game("stimmvieh", 3, stimmvieh_options(3), request_id="derive-me-too-0123456789")
                assert other.game_id != created.game_id and len(other.game_id) == len(created.game_id)

    run(scenario())


def _every_byte_in_redis(url: str) -> bytes:
    """Every key, field, member and value in a Redis database, concatenated."""
    client = redis.Redis.from_url(url)
    try:
        parts: list[bytes] = []
        for key in client.scan_iter(count=1000):
            parts.append(key)
            kind = client.type(key)
            if kind == b"string":
                parts.append(client.get(key) or b"")
            elif kind == b"hash":
                for field, value in client.hgetall(key).items():
                    parts += [field, value]
            elif kind == b"zset":
                parts += [member for member, _ in client.zrange(key, 0, -1, withscores=True)]
            elif kind == b"stream":
                for _id, fields in client.xrange(key):
                    for field, value in fields.items():
                        parts += [field, value]
        return b"\n".join(parts)
    finally:
        client.close()


def test_request_ids_are_kept_only_as_keyed_hashes(tmp_path: pathlib.Path) -> None:
    join_id, move_id, create_id = "JOINsecret4711-e0c2b9", "MOVEsecret4712", "CREATEsecret4713"

    async def scenario(url: str) -> None:
        async with running_replica(url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                created = await client.create_game("stimmvieh", 3, stimmvieh_options(3), request_id=create_id)
                request = game_service_pb2.JoinGameRequest(game_id=created.game_id, display_name="Ada", request_id=join_id)
                joined = await client.stub.JoinGame(request)
                await client.join(created.game_id, "Bo")
                await client.join(created.game_id, "Cy")
                await client.move(created.game_id, joined.seat_token, choose_top_candidates(1, 2, 3, 4), request_id=move_id)

    with EmbeddedRedis(tmp_path / "redis", appendonly=True) as server:
        run(scenario(server.url))
        everything = _every_byte_in_redis(server.url)
        client = redis.Redis.from_url(server.url)
        client.execute_command("BGREWRITEAOF")
        client.close()
    assert b"Ada" in everything  # the scan reads what is there
    on_disk = b"".join(p.read_bytes() for p in (tmp_path / "redis").rglob("*") if p.is_file())
    for secret in (join_id, move_id, create_id):
        assert secret.encode() not in everything
        assert secret.encode() not in on_disk


def test_a_lobby_write_that_fails_after_a_commit_is_repaired(tmp_path: pathlib.Path) -> None:
    async def scenario(url: str) -> None:
        async with running_replica(url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                created = await client.create_game("stimmvieh", 3, stimmvieh_options(3))
                game_id = created.game_id
                # Break the lobby's version index: every lobby write now fails (WRONGTYPE) while
                # the games' own keys work.
                raw = redis.Redis.from_url(url)
                raw.delete(LOBBY_VERSIONS_KEY)
                raw.set(LOBBY_VERSIONS_KEY, "broken")
                seats = [await client.join(game_id, name) for name in ("Ada", "Bo", "Cy")]
                assert [s.seat for s in seats] == [0, 1, 2]  # the answers are the commits' answers
                final = await play_to_end([client], seats, random.Random(5))
                assert final.status == game_pb2.GAME_STATUS_FINISHED
                store = Store.from_url(url)
                try:
                    indexed = {s.game_id: s for s in await store.lobby(0, 1000)}[game_id]
                    assert indexed.status == game_pb2.GAME_STATUS_OPEN  # the writes did fail
                    raw.delete(LOBBY_VERSIONS_KEY)  # the fault ends
                    raw.close()
                    assert await LobbyRepair(store).repair_once() >= 1
                    indexed = {s.game_id: s for s in await store.lobby(0, 1000)}[game_id]
                    assert indexed.status == game_pb2.GAME_STATUS_FINISHED
                    assert indexed.version == final.version
                    assert [s.display_name for s in indexed.seats] == ["Ada", "Bo", "Cy"]
                    assert await LobbyRepair(store).repair_once() == 0  # idempotent
                finally:
                    await store.close()
                listed = {s.game_id: s for s in (await client.games(page_size=200)).games}[game_id]
                assert listed.status == game_pb2.GAME_STATUS_FINISHED and listed.version == final.version

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url))


def test_the_lobby_shows_each_games_current_version_and_drops_ghosts(tmp_path: pathlib.Path) -> None:
    async def scenario(url: str) -> None:
        async with running_replica(url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                seats = await new_game(client, players=4)
                game_id = seats[0].game_id
                for seat in seats:
                    await client.move(game_id, seat.token, choose_top_candidates(1, 2, 3, 4))
                listed = {s.game_id: s for s in (await client.games()).games}[game_id]
                assert listed.version == (await client.view(game_id)).version == 9
                # An entry whose creating commit never happened (the index is written first).
                store = Store.from_url(url)
                try:
                    ghost = game_pb2.GameSummary(game_id="gnevercommitted", kind="stimmvieh", version=1, created_at=1)
                    await store.index(ghost)
                    assert "gnevercommitted" not in {s.game_id for s in (await client.games()).games}
                    # One entry fixed: the ghost dropped. The game's entry was written at its last
                    # join (version 5); its moves changed nothing the lobby lists, so the repair
                    # leaves it, and ListGames still shows the game's current version.
                    assert await LobbyRepair(store).repair_once() == 1
                    indexed = {s.game_id: s for s in await store.lobby(0, 1000)}
                    assert "gnevercommitted" not in indexed
                    assert indexed[game_id].version == 5
                    listed = {s.game_id: s for s in (await client.games()).games}[game_id]
                    assert listed.version == 9 and listed.status == game_pb2.GAME_STATUS_ACTIVE
                finally:
                    await store.close()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url))


def test_a_full_redis_answers_store_full_and_changes_nothing(tmp_path: pathlib.Path) -> None:
    async def scenario(url: str) -> None:
        async with running_replica(url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                seats = await new_game(client, players=4)
                game_id = seats[0].game_id
                raw = redis.Redis.from_url(url)
                used = int(raw.info("memory")["used_memory"])
                raw.config_set("maxmemory-policy", "noeviction")
                raw.config_set("maxmemory", str(max(used // 2, 1)))
                try:
                    for call in (
                        client.move(game_id, seats[0].token, choose_top_candidates(1, 2, 3, 4)),
                        client.create_game("stimmvieh", 3, stimmvieh_options(3)),
                    ):
                        refused = await _refused(call)
                        # No hint: a full store frees memory as games expire, not within a call's budget.
                        assert (refused.code, refused.reason, refused.retry_after_s) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "STORE_FULL", None)
                    view = await client.view(game_id)  # reads still work
                    assert view.version == 5
                finally:
                    raw.config_set("maxmemory", "0")
                    raw.close()
                applied = await client.move(game_id, seats[0].token, choose_top_candidates(1, 2, 3, 4))
                assert applied.version == 6

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url))


@pytest.mark.slow
def test_simultaneous_choices_through_three_replicas_never_abort(redis_server: EmbeddedRedis) -> None:
    """200 rounds of six commits racing on one game: four seats' simultaneous choices, each sent
    to another replica, and two of them sent twice more (retries with the same request id)."""
    games = 200

    async def round_(clients: list[Client], index: int) -> list[object]:
        seats = await new_game(clients[index % 3], players=4)
        game_id = seats[0].game_id
        calls = []
        for seat in seats:
            move = choose_top_candidates(1, 2, 3, 4)
            rid = f"r{index}-{seat.seat}"
            calls.append(clients[(index + seat.seat) % 3].move(game_id, seat.token, move, request_id=rid))
            if seat.seat < 2:
                calls.append(clients[(index + seat.seat + 1) % 3].move(game_id, seat.token, move, request_id=rid))
        return await asyncio.gather(*calls, return_exceptions=True)

    async def scenario() -> None:
        conflicts_before = metrics.CONFLICTS._value.get()
        async with _three(redis_server.url) as clients:
            results: list[object] = []
            for start in range(0, games, 20):
                batches = await asyncio.gather(*(round_(clients, i) for i in range(start, start + 20)))
                results += [r for batch in batches for r in batch]
            failures = [r for r in results if isinstance(r, BaseException)]
            assert not failures, failures[:3]
            assert len(results) == games * 6
        # The commits did race (replicas retried on fresh state), and no caller saw it.
        print("version conflicts retried:", metrics.CONFLICTS._value.get() - conflicts_before)
        assert metrics.CONFLICTS._value.get() > conflicts_before

    # About 3 s; bounded well inside the suite's per-test timeout, so that replicas that keep
    # refusing (their clients retrying every call for its whole budget) fail here, not as a hang.
    run(scenario(), timeout_s=60)


def test_a_short_join_request_id_is_refused(redis_server: EmbeddedRedis) -> None:
    """A join's request id hands out its seat token to whoever repeats it: a guessable one is
    refused before anything changes."""

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                created = await client.create_game("stimmvieh", 3, stimmvieh_options(3))
                for request_id in ("1", "join-ada-1", "x" * 15):
                    request = game_service_pb2.JoinGameRequest(game_id=created.game_id, display_name="Ada", request_id=request_id)
                    with pytest.raises(grpc.aio.AioRpcError) as refused:
                        await client.stub.JoinGame(request)
                    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
                    assert HustingsError.from_rpc_error(refused.value).reason == "BAD_REQUEST_ID"
                assert _version(redis_server.url, created.game_id) == 1

    run(scenario())


def test_a_repair_pass_reads_no_game_whose_moves_changed_no_listing(tmp_path: pathlib.Path) -> None:
    """Games in play move between two repair passes; a pass reads their heads and rewrites none
    of them (it read and rewrote every game that had moved: 0.35 ms of the replica per game and
    pass), while a seat given up during a failed lobby write is still repaired."""
    games = 12

    async def scenario(url: str) -> None:
        async with running_replica(url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                tables = [await new_game(client, players=4) for _ in range(games)]
                for seats in tables:
                    for seat in seats:
                        await client.move(seat.game_id, seat.token, choose_top_candidates(1, 2, 3, 4))
                store = Store.from_url(url)
                raw = redis.Redis.from_url(url)
                try:
                    assert await LobbyRepair(store).repair_once() == 0
                    indexed = {s.game_id: s for s in await store.lobby(0, 1000)}
                    # Each entry as its last join wrote it: no summary was rewritten.
                    assert [indexed[seats[0].game_id].version for seats in tables] == [5] * games
                    # A listing step whose summary was never written is still found: a seat is
                    # given up while every lobby write fails.
                    raw.delete(LOBBY_VERSIONS_KEY)
                    raw.set(LOBBY_VERSIONS_KEY, "broken")
                    left = tables[0][1]
                    await client.leave(left.game_id, left.token)
                    raw.delete(LOBBY_VERSIONS_KEY)
                    assert await LobbyRepair(store).repair_once() >= 1
                    indexed = {s.game_id: s for s in await store.lobby(0, 1000)}[left.game_id]
                    assert indexed.seats[left.seat].absent
                finally:
                    raw.close()
                    await store.close()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url))
