"""Many replicas over one Redis deployment: load, failover, Redis restarts, retry storms.

Replicas are real ``hustings serve`` processes; Redis servers (single, AOF, 3-master Cluster)
are real processes started here on loopback.
"""

from __future__ import annotations

import asyncio
import contextlib
import pathlib
import random
import uuid
from typing import Awaitable, Callable, Iterator

import grpc
import pytest

from conftest import redis_cluster, run, running_replica, serve_process
from service_helpers import choose_top_candidates, new_game
from hustings.bots import RandomBot, Replicas, BotStats, play_seat
from hustings.client import Client, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis, free_port
from hustings.v1 import game_pb2, game_service_pb2
from hustings.verify import verify_log

GAMES = 16
PLAYERS = 4  # 16 games x 4 seats = 64 concurrent clients
LOAD_TIMEOUT_S = 240.0


@contextlib.contextmanager
def replicas(redis_url: str, count: int = 3) -> Iterator[list[tuple[object, int]]]:
    """``count`` replica processes over one Redis deployment."""
    with contextlib.ExitStack() as stack:
        yield [stack.enter_context(serve_process("--redis-url", redis_url)) for _ in range(count)]


class RecordingReplicas(Replicas):
    """A replica pool that records the version of every accepted move, by game."""

    def __init__(self, clients: list[Client], rng: random.Random) -> None:
        super().__init__(clients, rng)
        self.accepted: dict[str, list[int]] = {}

    async def move(
        self, game_id: str, token: str, move: game_pb2.Move, request_id: str | None = None, expected_version: int | None = None
    ) -> game_service_pb2.SubmitMoveResponse:
        answer = await super().move(game_id, token, move, request_id=request_id, expected_version=expected_version)
        self.accepted.setdefault(game_id, []).append(answer.version)
        return answer


async def _read_anywhere(clients: list[Client], game_id: str) -> tuple[game_pb2.GameView, list[game_pb2.HistoryEntry]]:
    """The public view and history of a game from the first replica that answers."""
    for client in clients:
        try:
            return await client.view(game_id), await client.history(game_id)
        except HustingsError as error:
            assert error.code == grpc.StatusCode.UNAVAILABLE, error
    raise AssertionError("no replica answered")


async def _play_load(addresses: list[str], during: "Callable[[], Awaitable[None]] | None" = None) -> None:
    """Play GAMES games of PLAYERS random bots through random replicas, then check every log.

    ``during`` runs once every seat is playing (e.g. to kill a replica under load).
    """
    clients = [Client(a) for a in addresses]
    rng = random.Random(2024)
    pool = RecordingReplicas(clients, rng)
    stats = BotStats()
    try:
        games = []
        for _ in range(GAMES):
            created = await pool.pick().create_game("stimmvieh", PLAYERS)
            games.append([await pool.pick().join(created.game_id, f"P{i}") for i in range(PLAYERS)])
        seats = [
            play_seat(pool, joined, RandomBot(random.Random(rng.getrandbits(32))), stats)
            for game in games
            for joined in game
        ]
        tasks = [asyncio.ensure_future(s) for s in seats]
        if during is not None:
            await during()
        views = await asyncio.gather(*tasks)
        assert stats.errors == 0, stats.error_reasons
        assert all(v is not None and v.status == game_pb2.GAME_STATUS_FINISHED for v in views)
        for game in games:
            game_id = game[0].game_id
            final, history = await _read_anywhere(pool.clients, game_id)
            moves = [e for e in history if e.HasField("move")]
            # Exactly the accepted moves, in order, each once: no loss, no duplicate.
            assert sorted(pool.accepted[game_id]) == [e.version for e in moves]
            assert len(set(pool.accepted[game_id])) == len(pool.accepted[game_id])
            # The stored final state is what a single-process replay of the log gives.
            report = verify_log(final, history)
            assert report.ok, report
    finally:
        for client in clients:
            await client.close()


def test_three_replicas_one_redis_sixty_four_clients(redis_server: EmbeddedRedis) -> None:
    with replicas(redis_server.url) as procs:
        run(_play_load([f"127.0.0.1:{port}" for _, port in procs]), LOAD_TIMEOUT_S)


def test_three_replicas_on_a_three_master_cluster(tmp_path: pathlib.Path) -> None:
    with redis_cluster(tmp_path) as nodes, replicas(f"redis+cluster://127.0.0.1:{nodes[0].port}") as procs:
        run(_play_load([f"127.0.0.1:{port}" for _, port in procs]), LOAD_TIMEOUT_S)


def test_the_deadline_index_is_claimed_in_one_pipeline_on_a_cluster_too(tmp_path: pathlib.Path, redis_server: EmbeddedRedis) -> None:
    """Every bucket of the deadline index is claimed in one pipelined round trip, on one Redis and
    on a Cluster (where the buckets live on different shards): each due game is claimed once, and
    a claimed game is leased, so the next poll does not take it again."""
    from hustings.service.deadlines import BUCKETS, DeadlineIndex, bucket_key
    from hustings.service.store import Store

    games = [f"deadline-game-{i}" for i in range(3 * BUCKETS)]
    assert len({bucket_key(g) for g in games}) > BUCKETS // 2  # spread over many buckets

    async def scenario(url: str) -> None:
        store = Store.from_url(url)
        try:
            index = DeadlineIndex(store.client)
            before = await index.pending()  # the session's Redis may hold other tests' entries
            for i, game_id in enumerate(games):
                await index.schedule(game_id, 1_000 + i)
            await index.schedule("deadline-game-later", 10**13)
            await store.client.script_flush()  # a Redis that lost its scripts: the pipeline loads them
            claimed, lease = await index.claim(now=50_000)
            assert sorted(claimed) == sorted(games) and lease > 50_000
            again, _ = await index.claim(now=50_000)
            assert again == []
            # The same claim sent again (its answer lost) answers what it leased.
            resent, same = await index.claim(now=50_000, lease=lease, again=True)
            assert sorted(resent) == sorted(games) and same == lease
            for game_id in games:
                assert await index.release(game_id, lease, 0)
            assert await index.pending() == before + 1  # the later game is still indexed
        finally:
            await store.close()

    run(scenario(redis_server.url), 60)
    with redis_cluster(tmp_path) as nodes:
        run(scenario(f"redis+cluster://127.0.0.1:{nodes[0].port}"), 60)


def test_a_replica_killed_during_load_loses_nothing(redis_server: EmbeddedRedis) -> None:
    with replicas(redis_server.url) as procs:
        victim = procs[0][0]

        async def kill_soon() -> None:
            await asyncio.sleep(0.3)
            victim.kill()  # type: ignore[attr-defined]

        async def scenario() -> None:
            await _play_load([f"127.0.0.1:{port}" for _, port in procs], kill_soon)

        run(scenario(), LOAD_TIMEOUT_S)
        assert victim.poll() is not None  # type: ignore[attr-defined]


def test_redis_restart_with_aof_keeps_the_game(tmp_path: pathlib.Path) -> None:
    server = EmbeddedRedis(tmp_path / "aof", port=free_port(), appendonly=True).start()
    try:
        async def scenario() -> None:
            async with running_replica(server.url) as replica:
                async with Client(f"127.0.0.1:{replica.port}") as client:
                    seats = await new_game(client, 4)
                    game_id = seats[0].game_id
                    await client.move(game_id, seats[0].token, choose_top_candidates(1, 2, 3, 4))
                    await client.move(game_id, seats[1].token, choose_top_candidates(2, 3, 4, 5))
                    before = await client.view(game_id, seats[0].token)
                    server.stop()
                    server.start()  # same folder and port: replays the append-only file
                    after = None
                    for _attempt in range(50):  # bounded: the pool reconnects within a few tries
                        try:
                            after = await client.view(game_id, seats[0].token)
                            break
                        except HustingsError as error:
                            assert error.code == grpc.StatusCode.UNAVAILABLE, error
                            await asyncio.sleep(0.1)
                    assert after is not None and after.version == before.version
                    assert after.stimmvieh == before.stimmvieh
                    await client.move(game_id, seats[2].token, choose_top_candidates(3, 4, 5, 6))
                    await client.move(game_id, seats[3].token, choose_top_candidates(4, 5, 6, 7))
                    view = await client.view(game_id, seats[0].token)
                    assert view.version == before.version + 2
                    assert view.stimmvieh.phase == 2  # the campaign began: everybody had chosen

        run(scenario())
    finally:
        server.stop()


def test_retry_storm_applies_once_and_answers_alike(redis_server: EmbeddedRedis) -> None:
    with replicas(redis_server.url) as procs:
        async def scenario() -> None:
            clients = [Client(f"127.0.0.1:{port}") for _, port in procs]
            try:
                seats = await new_game(clients[0], 4)
                game_id = seats[0].game_id
                move = choose_top_candidates(3, 5, 7, 9)
                request_id = uuid.uuid4().hex
                answers = await asyncio.gather(
                    *(clients[i % 3].move(game_id, seats[0].token, move, request_id=request_id) for i in range(50))
                )
                assert all(a == answers[0] for a in answers)
                history = await clients[1].history(game_id, seats[0].token)
                applied = [e for e in history if e.HasField("move")]
                assert len(applied) == 1 and applied[0].version == answers[0].version
                view = await clients[2].view(game_id)
                assert view.version == answers[0].version
            finally:
                for client in clients:
                    await client.close()

        run(scenario())


def test_graceful_shutdown_tells_streams_to_reconnect(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with running_replica(redis_server.url) as other:
            replica_cm = running_replica(redis_server.url)
            replica = await replica_cm.__aenter__()
            client = Client(f"127.0.0.1:{replica.port}")
            seats = await new_game(client, 4)
            game_id = seats[0].game_id
            updates = []
            with pytest.raises(HustingsError) as caught:
                async for update in client.watch(game_id, seats[0].token):
                    updates.append(update.version)
                    asyncio.get_running_loop().call_soon(asyncio.ensure_future, replica_cm.__aexit__(None, None, None))
            assert caught.value.code == grpc.StatusCode.UNAVAILABLE
            assert caught.value.reason == "REPLICA_SHUTTING_DOWN"
            await client.close()
            # The client resumes on another replica from the last version it saw.
            async with Client(f"127.0.0.1:{other.port}") as again:
                await again.move(game_id, seats[0].token, choose_top_candidates(1, 2, 3, 4))
                async for update in again.watch(game_id, seats[0].token, from_version=updates[-1]):
                    assert [e.version for e in update.entries] == [updates[-1] + 1]
                    break

    run(scenario())


def test_watchers_over_the_limit_are_resource_exhausted(redis_server: EmbeddedRedis) -> None:
    from hustings.service.replica import Replica, ReplicaConfig

    async def scenario() -> None:
        replica = await Replica(ReplicaConfig(redis_url=redis_server.url, address="127.0.0.1:0", max_watchers=1, grace_s=1)).start()
        try:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                seats = await new_game(client, 4)
                game_id = seats[0].game_id
                first = client.watch(game_id, seats[0].token)
                await first.__anext__()  # the first stream is open and counted
                with pytest.raises(HustingsError) as caught:
                    async for _update in client.watch(game_id, seats[1].token):
                        break
                assert caught.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert caught.value.reason == "TOO_MANY_WATCHERS"
                await first.aclose()
        finally:
            await replica.stop()

    run(scenario())


def test_metrics_count_rpcs_moves_and_watchers(tmp_path: pathlib.Path) -> None:
    # A Redis of its own: the session's shared one holds other tests' tables, whose clocks and
    # bots this replica would play too, adding moves to the counts below.
    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as redis_server:
        text = _metrics_after_one_move(redis_server, free_port())
    counted = [line for line in text.splitlines() if line.startswith(("hustings_rpcs_total", "hustings_moves_applied_total"))]
    assert 'hustings_rpcs_total{code="OK",method="SubmitMove"} 1.0' in text, counted
    assert 'hustings_rpcs_total{code="NOT_FOUND",method="GetView"} 1.0' in text, counted
    assert 'hustings_moves_applied_total{kind="stimmvieh"} 1.0' in text, counted
    assert "hustings_rpc_seconds_bucket" in text and "hustings_watchers" in text


def _metrics_after_one_move(redis_server: EmbeddedRedis, metrics_port: int) -> str:
    """The /metrics text of a served replica after one game, one move and one missing view."""
    import urllib.request

    with serve_process("--redis-url", redis_server.url, "--metrics-address", f"127.0.0.1:{metrics_port}") as (_, port):
        async def scenario() -> None:
            async with Client(f"127.0.0.1:{port}") as client:
                seats = await new_game(client, 4)
                await client.move(seats[0].game_id, seats[0].token, choose_top_candidates(1, 2, 3, 4))
                with pytest.raises(HustingsError):
                    await client.view("gmissing")

        run(scenario())
        with urllib.request.urlopen(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10) as response:
            return response.read().decode()
