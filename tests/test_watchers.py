"""WatchGame at scale: a bounded Redis pool, reads shared by the watchers of a game, fair limits
on streams, from_version beyond the game, and reflection of the public API only."""

from __future__ import annotations

import asyncio
import contextlib
import json
import pathlib
from typing import AsyncIterator

import grpc
import pytest
import redis as sync_redis
from google.protobuf import descriptor_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from conftest import run, serve_process
from hustings.client import OWN_CONNECTION, Client, Joined
from hustings.service import watch as watch_module
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import Replica, ReplicaConfig
from hustings.v1 import game_service_pb2, game_service_pb2_grpc
from service_helpers import new_game

WAIT_S = 60.0  # bound on any wait for streams in these tests


def own_channel(address: str) -> grpc.aio.Channel:
    """A channel on a connection of its own (gRPC shares one among a process's channels to one
    target): one client, as the server tells clients apart, as another process or machine is."""
    return grpc.aio.insecure_channel(address, options=OWN_CONNECTION)


@contextlib.asynccontextmanager
async def replica(redis_url: str, **config: object) -> AsyncIterator[Replica]:
    """An in-process replica on a free port with ``config`` on top of the test defaults."""
    started = await Replica(
        ReplicaConfig(redis_url=redis_url, address="127.0.0.1:0", allow_client_seed=True, grace_s=1.0, **config)  # type: ignore[arg-type]
    ).start()
    try:
        yield started
    finally:
        await started.stop()


def reason_of(error: grpc.aio.AioRpcError) -> str:
    """The ErrorInfo reason of a failed call."""
    for key, value in error.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return info.reason
    return ""


async def next_move(client: Client, seats: list[Joined]) -> int:
    """Make one legal move in the game (the first legal move of the lowest seat to act); the new version."""
    game_id = seats[0].game_id
    view = await client.view(game_id)
    seat = min(view.to_act)
    mine = await client.view(game_id, seats[seat].token)
    answer = await client.move(game_id, seats[seat].token, mine.legal_moves[0], expected_version=mine.version)
    return answer.version


class Follower:
    """One WatchGame stream on a raw stub (no client-side retries), recording what it sees."""

    def __init__(self, stub: game_service_pb2_grpc.GameServiceStub, game_id: str, from_version: int, token: str = "") -> None:
        metadata = (("authorization", f"Bearer {token}"),) if token else ()
        self.call = stub.WatchGame(game_service_pb2.WatchGameRequest(game_id=game_id, from_version=from_version), metadata=metadata)
        self.game_id = game_id
        self.versions: list[int] = []
        self.error: grpc.aio.AioRpcError | None = None
        self.opened = asyncio.Event()
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for update in self.call:
                self.versions.extend(e.version for e in update.entries)
                self.opened.set()
        except grpc.aio.AioRpcError as error:
            self.error = error
            self.opened.set()

    async def close(self) -> None:
        """Cancel the stream."""
        self.call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


async def wait_until(condition: "object", timeout_s: float = WAIT_S) -> None:
    """Poll ``condition()`` every 20 ms until it holds (bounded)."""
    async with asyncio.timeout(timeout_s):
        while not condition():  # type: ignore[operator]
            await asyncio.sleep(0.02)


# --- finding: Redis connections run out ----------------------------------------------------------
def test_a_burst_waits_for_the_bounded_pool_instead_of_failing(tmp_path: pathlib.Path) -> None:
    """300 GetView calls while Redis pauses for 5.5 s: the pool (4 connections) makes them wait,
    none fails, and the replica never opens more connections than its pool holds."""
    server = EmbeddedRedis(tmp_path, appendonly=False).start()
    raw = sync_redis.Redis.from_url(server.url)

    async def scenario() -> None:
        async with replica(server.url, redis_max_connections=4) as one:
            async with Client(f"127.0.0.1:{one.port}") as client:
                seats = await new_game(client, 4)
                # Three connections of 100 calls each: a connection carries 128 streams at once.
                channels = [own_channel(f"127.0.0.1:{one.port}") for _ in range(3)]
                stubs = [game_service_pb2_grpc.GameServiceStub(c) for c in channels]
                raw.execute_command("CLIENT", "PAUSE", "5500", "ALL")
                request = game_service_pb2.GetViewRequest(game_id=seats[0].game_id)
                results = await asyncio.gather(*(stubs[i % 3].GetView(request, timeout=30) for i in range(300)), return_exceptions=True)
                for channel in channels:
                    await channel.close()
                failures = [r for r in results if isinstance(r, BaseException)]
                assert failures == []
                assert all(r.view.game_id == seats[0].game_id for r in results)  # type: ignore[union-attr]
                connected = int(raw.info("clients")["connected_clients"])
                assert connected - 1 <= 4  # everything but this test's own connection is the pool

    try:
        run(scenario())
    finally:
        raw.close()
        server.stop()


def test_watchers_of_one_game_share_one_read_per_version(redis_server: EmbeddedRedis) -> None:
    """200 streams on one game and three moves cost a handful of reads, not one per stream."""
    raw = sync_redis.Redis.from_url(redis_server.url)

    def reads() -> int:
        stats = raw.info("commandstats")
        return sum(int(stats.get(f"cmdstat_{c}", {}).get("calls", 0)) for c in ("hget", "xrange", "hmget", "hgetall"))

    async def scenario() -> None:
        # The 200 streams come from one loopback address: its cap on streams of one game is that of a few.
        async with replica(redis_server.url, max_streams_per_game=200) as one:
            async with Client(f"127.0.0.1:{one.port}") as client:
                seats = await new_game(client, 4)
                game_id = seats[0].game_id
                start = (await client.view(game_id)).version
                channels = [own_channel(f"127.0.0.1:{one.port}") for _ in range(4)]
                stubs = [game_service_pb2_grpc.GameServiceStub(c) for c in channels]
                followers = [Follower(stubs[i % 4], game_id, start - 1) for i in range(200)]
                await wait_until(lambda: all(f.opened.is_set() for f in followers))
                assert [f.error for f in followers if f.error] == []
                before = reads()
                versions = [await next_move(client, seats) for _ in range(3)]
                await wait_until(lambda: all(f.versions[-1:] == versions[-1:] for f in followers))
                # Each move reads a little itself (views, the seat check); the streams add about
                # two reads per version, where every stream used to read twice on its own.
                spent = reads() - before
                assert spent < 60, spent
                assert all(f.versions == [start, *versions] for f in followers)
                for f in followers:
                    await f.close()
                for c in channels:
                    await c.close()

    try:
        run(scenario())
    finally:
        raw.close()


def test_a_step_committed_here_reaches_its_streams_without_a_read(redis_server: EmbeddedRedis) -> None:
    """Moves made through the replica that holds the streams are handed to the game's feed: no
    log read (XRANGE) for them, although every stream gets every step."""
    run(moves_reach_followers_without_a_log_read(redis_server, redis_server.url, followers=20))


async def moves_reach_followers_without_a_log_read(
    redis_server: EmbeddedRedis, replica_redis_url: str, followers: int, settle_s: float = 0.0
) -> None:
    """Three moves made through a replica (reaching Redis at ``replica_redis_url``) that holds
    ``followers`` streams of the game: every stream gets every step, and the Redis server makes
    no log read (XRANGE) for them after ``settle_s`` for the feed's own start."""
    raw = sync_redis.Redis.from_url(redis_server.url)

    def log_reads() -> int:
        return int(raw.info("commandstats").get("cmdstat_xrange", {}).get("calls", 0))

    try:
        async with replica(replica_redis_url) as one:
            async with Client(f"127.0.0.1:{one.port}") as client:
                seats = await new_game(client, 4)
                game_id = seats[0].game_id
                start = (await client.view(game_id)).version
                channel = own_channel(f"127.0.0.1:{one.port}")
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                watching = [Follower(stub, game_id, start - 1) for _ in range(followers)]
                await wait_until(lambda: all(f.opened.is_set() for f in watching))
                await wait_until(lambda: one.host.watchers.feeds == 1)
                await asyncio.sleep(settle_s)
                before = log_reads()
                versions = [await next_move(client, seats) for _ in range(3)]
                await wait_until(lambda: all(f.versions[-1:] == versions[-1:] for f in watching))
                assert all(f.versions == [start, *versions] for f in watching)
                assert log_reads() == before
                for f in watching:
                    await f.close()
                await channel.close()
    finally:
        raw.close()


def test_a_step_whose_announcement_is_lost_arrives_by_the_sweep(redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pub/sub is at-most-once: with the watching replica deaf to announcements, a move made on
    another replica still reaches its stream, by the sweep of watched games' versions."""
    monkeypatch.setattr(watch_module, "POLL_S", 0.2)

    async def scenario() -> None:
        async with replica(redis_server.url) as watching, replica(redis_server.url) as moving:
            async with Client(f"127.0.0.1:{moving.port}") as client:
                seats = await new_game(client, 4)
                game_id = seats[0].game_id
                start = (await client.view(game_id)).version
                channel = own_channel(f"127.0.0.1:{watching.port}")
                follower = Follower(game_service_pb2_grpc.GameServiceStub(channel), game_id, start - 1)
                await wait_until(follower.opened.is_set)
                await watching.host.notifier.stop()  # hears nothing from here on
                version = await next_move(client, seats)
                await wait_until(lambda: follower.versions[-1:] == [version], timeout_s=10)
                assert follower.versions == [start, version] and follower.error is None
                await follower.close()
                await channel.close()

    run(scenario())


def test_a_watcher_far_behind_catches_up_from_the_log(redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stream that takes nothing while the game moves on gets every step in its next update
    (from the log when the feed's tail no longer reaches back), while another stays current."""
    monkeypatch.setattr(watch_module, "TAIL_ENTRIES", 2)

    async def scenario() -> None:
        async with replica(redis_server.url) as one:
            async with Client(f"127.0.0.1:{one.port}") as client:
                seats = await new_game(client, 4)
                game_id = seats[0].game_id
                start = (await client.view(game_id)).version
                slow = one.host.watch(game_id, None, start, "slow")
                quick = one.host.watch(game_id, seats[1].token, start, "quick")
                first_move = asyncio.ensure_future(next_move(client, seats))
                seen_quick = [e.version for e in (await quick.__anext__()).entries]
                seen_slow = [e.version for e in (await slow.__anext__()).entries]
                await first_move
                versions = [start + 1]
                for _ in range(7):
                    versions.append(await next_move(client, seats))
                    update = await asyncio.wait_for(quick.__anext__(), WAIT_S)
                    seen_quick.extend(e.version for e in update.entries)
                update = await asyncio.wait_for(slow.__anext__(), WAIT_S)
                seen_slow.extend(e.version for e in update.entries)
                assert seen_quick == versions
                assert seen_slow == versions  # every step once, in order, the last ones coalesced
                assert update.version == versions[-1] and update.view.version == versions[-1]
                await slow.aclose()
                await quick.aclose()
                assert one.host.watchers.feeds == 0  # the last watcher gone, the feed is gone

    run(scenario())


# --- finding: one client can starve everyone -----------------------------------------------------
def test_a_client_at_its_stream_cap_is_refused_and_others_are_not(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with replica(redis_server.url, max_streams_per_client=5, max_streams_per_seat=2) as one:
            address = f"127.0.0.1:{one.port}"
            async with Client(address) as setup, own_channel(address) as greedy, own_channel(address) as other, own_channel(address) as third_client:
                seats = await new_game(setup, 4)
                game_id = seats[0].game_id
                greedy_stub = game_service_pb2_grpc.GameServiceStub(greedy)
                other_stub = game_service_pb2_grpc.GameServiceStub(other)
                held = [Follower(greedy_stub, game_id, 0) for _ in range(5)]
                await wait_until(lambda: all(f.opened.is_set() for f in held))
                assert [f.error for f in held if f.error] == []
                extra = Follower(greedy_stub, game_id, 0)
                await wait_until(extra.opened.is_set)
                assert extra.error is not None and extra.error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert reason_of(extra.error) == "TOO_MANY_STREAMS_FOR_CLIENT"
                # Another client streams and calls as usual meanwhile.
                theirs = [Follower(other_stub, game_id, 0) for _ in range(3)]
                views = await asyncio.gather(*(other_stub.GetView(game_service_pb2.GetViewRequest(game_id=game_id), timeout=30) for _ in range(50)))
                await wait_until(lambda: all(f.opened.is_set() for f in theirs))
                assert [f.error for f in theirs if f.error] == [] and len(views) == 50
                # One seat token holds at most two streams, whichever connection they come on.
                third_stub = game_service_pb2_grpc.GameServiceStub(third_client)
                mine = []
                for stub in (other_stub, third_stub):
                    mine.append(Follower(stub, game_id, 0, seats[2].token))
                    await wait_until(mine[-1].opened.is_set)
                assert [f.error for f in mine if f.error] == []
                third = Follower(other_stub, game_id, 0, seats[2].token)
                await wait_until(third.opened.is_set)
                assert third.error is not None and reason_of(third.error) == "TOO_MANY_STREAMS_FOR_SEAT"
                # A stream closed frees its place.
                await held[0].close()
                await wait_until(lambda: one.host.watchers.limits.open == 4 + 3 + 2)
                again = Follower(greedy_stub, game_id, 0)
                await wait_until(again.opened.is_set)
                assert again.error is None
                for f in [*held, *theirs, *mine, again]:
                    await f.close()

    run(scenario())


# --- finding: from_version beyond the game -------------------------------------------------------
def test_from_version_beyond_the_game_is_out_of_range_and_logged(redis_server: EmbeddedRedis) -> None:
    with serve_process("--redis-url", redis_server.url, "--max-streams-per-seat", "1") as (process, port):

        async def scenario() -> str:
            async with Client(f"127.0.0.1:{port}") as client:
                seats = await new_game(client, 4)
                game_id = seats[0].game_id
                stub = game_service_pb2_grpc.GameServiceStub(client.channel)
                ahead = stub.WatchGame(game_service_pb2.WatchGameRequest(game_id=game_id, from_version=99), timeout=10)
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    async for _update in ahead:
                        pass
                assert caught.value.code() == grpc.StatusCode.OUT_OF_RANGE
                assert reason_of(caught.value) == "FROM_VERSION_AHEAD"
                # A refused stream with a seat token: logged with its reason, never its token.
                first = Follower(stub, game_id, 0, seats[1].token)
                second = Follower(stub, game_id, 0, seats[1].token)
                await wait_until(lambda: first.opened.is_set() and second.opened.is_set())
                assert second.error is not None and reason_of(second.error) == "TOO_MANY_STREAMS_FOR_SEAT"
                await first.close()
                return seats[1].token

        token = run(scenario())
    lines = [json.loads(line) for line in process.log_text.splitlines() if line.startswith("{")]  # type: ignore[attr-defined]
    ended = {line.get("reason") for line in lines if line.get("event") == "stream_ended"}
    assert {"FROM_VERSION_AHEAD", "TOO_MANY_STREAMS_FOR_SEAT"} <= ended
    assert token not in process.log_text  # type: ignore[attr-defined]


# --- finding: reflection serves the storage schema -----------------------------------------------
def test_reflection_serves_only_the_public_api(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with replica(redis_server.url) as one:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{one.port}") as channel:
                stub = reflection_pb2_grpc.ServerReflectionStub(channel)
                requests = [
                    reflection_pb2.ServerReflectionRequest(list_services=""),
                    reflection_pb2.ServerReflectionRequest(file_by_filename="hustings/storage/v1/storage.proto"),
                    reflection_pb2.ServerReflectionRequest(file_containing_symbol="hustings.storage.v1.StoredGame"),
                    reflection_pb2.ServerReflectionRequest(file_containing_symbol="hustings.v1.GameService"),
                ]
                answers = [a async for a in stub.ServerReflectionInfo(iter(requests), timeout=10)]
        services = {s.name for s in answers[0].list_services_response.service}
        assert services == {"hustings.v1.GameService", "grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"}
        for refused in answers[1:3]:
            assert refused.error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]
        files = [descriptor_pb2.FileDescriptorProto.FromString(b) for b in answers[3].file_descriptor_response.file_descriptor_proto]
        names = {f.name for f in files}
        assert "hustings/v1/game_service.proto" in names
        assert not [f.name for f in files if f.package.startswith("hustings.storage")]

    run(scenario())


# --- acceptance: the bounded load test -----------------------------------------------------------
CLIENTS = 40
STREAMS_PER_CLIENT = 75  # within a connection's room for streams (--max-streams-per-connection less 32)
GAMES = 10
MOVES = 3
VIEW_CALLS = 500


def test_three_thousand_streams_from_forty_clients_and_five_hundred_views(redis_server: EmbeddedRedis) -> None:
    """One replica: 3,000 WatchGame streams from 40 clients and 500 concurrent GetView calls (from
    five connections: a connection carries 128 streams at once) while the games move: no
    UNAVAILABLE, every stream sees every step of its game; a client past its stream cap is refused
    while another client's calls all succeed."""
    with serve_process(
        "--redis-url", redis_server.url, "--max-streams-per-client", str(STREAMS_PER_CLIENT), "--redis-max-connections", "16",
        # The 40 clients are connections from one loopback address: its caps on streams and on
        # calls (each stream opened counts one) are those of 40 addresses.
        "--max-streams-per-address", "10000", "--max-streams-per-game", "10000", "--call-burst", "18000",
    ) as (process, port):
        address = f"127.0.0.1:{port}"

        async def scenario() -> None:
            async with Client(address) as host_client, own_channel(address) as viewer:
                games = [await new_game(host_client, 4) for _ in range(GAMES)]
                start = (await host_client.view(games[0][0].game_id)).version
                channels = [own_channel(address) for _ in range(CLIENTS)]
                stubs = [game_service_pb2_grpc.GameServiceStub(c) for c in channels]
                followers = [
                    Follower(stubs[c], games[(c * STREAMS_PER_CLIENT + s) % GAMES][0].game_id, start - 1)
                    for c in range(CLIENTS)
                    for s in range(STREAMS_PER_CLIENT)
                ]
                await wait_until(lambda: all(f.opened.is_set() for f in followers))
                assert [f.error.code() for f in followers if f.error] == []
                over = Follower(stubs[0], games[0][0].game_id, start - 1)
                viewer_stub = game_service_pb2_grpc.GameServiceStub(viewer)
                view_channels = [own_channel(address) for _ in range(4)]
                viewers = [viewer_stub, *(game_service_pb2_grpc.GameServiceStub(c) for c in view_channels)]
                views = [
                    viewers[i % len(viewers)].GetView(game_service_pb2.GetViewRequest(game_id=games[i % GAMES][0].game_id), timeout=30)
                    for i in range(VIEW_CALLS)
                ]
                moving = [asyncio.ensure_future(_moves(host_client, seats)) for seats in games]
                results = await asyncio.gather(*views, return_exceptions=True)
                assert [r for r in results if isinstance(r, BaseException)] == []
                expected = {seats[0].game_id: [start, *await m] for seats, m in zip(games, moving)}
                await wait_until(over.opened.is_set)
                assert over.error is not None and over.error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert reason_of(over.error) == "TOO_MANY_STREAMS_FOR_CLIENT"
                mine = Follower(viewer_stub, games[0][0].game_id, start - 1)  # the other client still streams
                await wait_until(lambda: all(f.versions == expected[f.game_id] for f in followers))
                await wait_until(lambda: mine.versions == expected[games[0][0].game_id])
                assert [f.error for f in followers if f.error] == []
                for f in [*followers, mine]:
                    await f.close()
                for c in [*channels, *view_channels]:
                    await c.close()

        run(scenario(), timeout_s=300)
    assert "TOO_MANY_STREAMS_FOR_CLIENT" in process.log_text  # type: ignore[attr-defined]


async def _moves(client: Client, seats: list[Joined]) -> list[int]:
    return [await next_move(client, seats) for _ in range(MOVES)]


def test_event_streams_past_the_cap_or_ahead_are_refused_before_streaming(redis_server: EmbeddedRedis) -> None:
    """Over REST a client is its remote address: its second event stream is refused with a plain
    429 TOO_MANY_STREAMS_FOR_CLIENT before any event; from_version ahead is a 400 OUT_OF_RANGE."""
    import requests

    from rest_helpers import LiveRest, SseReader

    live = LiveRest(redis_server.url)
    live.config.max_streams_per_client = 1
    with live:
        game_id, _joined = live.new_game(players=3)
        url = f"{live.base_url}/v1/games/{game_id}:watch"
        ahead = requests.get(url + "?fromVersion=40", timeout=20)
        assert ahead.status_code == 400 and ahead.headers["Access-Control-Allow-Origin"] == "*"
        assert ahead.json()["code"] == grpc.StatusCode.OUT_OF_RANGE.value[0]
        assert ahead.json()["details"][0]["reason"] == "FROM_VERSION_AHEAD"
        with requests.get(url + "?fromVersion=3", stream=True, timeout=20) as first:
            reader = SseReader(first)  # kept: dropping its line iterator would close the connection
            (update,) = reader.events(1)
            assert update["id"] == "4"
            refused = requests.get(url + "?fromVersion=3", timeout=20)
        assert refused.status_code == 429
        assert refused.json()["details"][0]["reason"] == "TOO_MANY_STREAMS_FOR_CLIENT"


def test_the_streams_of_a_game_that_is_gone_end_with_not_found(redis_server: EmbeddedRedis) -> None:
    """A game that expires while watched ends its streams with NOT_FOUND (the feed's poll sees
    it), instead of leaving them open forever."""
    from hustings.service.errors import ServiceError
    from hustings.service.store import game_key

    raw = sync_redis.Redis.from_url(redis_server.url)

    async def scenario() -> None:
        async with replica(redis_server.url) as one:
            async with Client(f"127.0.0.1:{one.port}") as client:
                seats = await new_game(client, 4)
                game_id = seats[0].game_id
                stream = one.host.watch(game_id, None, 0, "gone")
                assert (await stream.__anext__()).version == 5
                raw.delete(game_key(game_id))
                with pytest.raises(ServiceError) as caught:
                    await asyncio.wait_for(stream.__anext__(), WAIT_S)
                assert caught.value.code == grpc.StatusCode.NOT_FOUND and caught.value.reason == "GAME_NOT_FOUND"

    try:
        run(scenario())
    finally:
        raw.close()


def test_a_cluster_client_waits_for_its_bounded_slots(tmp_path: pathlib.Path) -> None:
    """RedisCluster has no blocking pool: with two slots, 300 commands at once over three
    masters all succeed (they wait their turn) instead of failing with MaxConnectionsError."""
    from conftest import redis_cluster
    from hustings.service.store import Store

    with redis_cluster(tmp_path, masters=3) as nodes:

        async def scenario() -> None:
            store = Store.from_url(f"redis+cluster://127.0.0.1:{nodes[0].port}", max_connections=2)
            try:
                await asyncio.gather(*(store.client.set(f"k{i}", i) for i in range(300)))
                values = await asyncio.gather(*(store.client.get(f"k{i}") for i in range(300)))
                assert [int(v) for v in values] == list(range(300))
            finally:
                await store.close()

        run(scenario())


def test_unary_calls_have_a_cap_of_their_own_that_streams_do_not_use(tmp_path: pathlib.Path) -> None:
    """With room for two unary calls in flight, a third waiting call is refused TOO_MANY_CALLS,
    while streams, counted apart, still open."""
    server = EmbeddedRedis(tmp_path, appendonly=False).start()
    raw = sync_redis.Redis.from_url(server.url)

    async def scenario() -> None:
        async with replica(server.url, max_calls=2) as one:
            address = f"127.0.0.1:{one.port}"
            async with Client(address) as setup, own_channel(address) as channel:
                seats = await new_game(setup, 4)
                game_id = seats[0].game_id
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                streams = []
                for _ in range(5):  # one after another: requests arriving together count towards the cap of 2
                    streams.append(Follower(stub, game_id, 0))
                    await wait_until(streams[-1].opened.is_set)
                assert [f.error for f in streams if f.error] == []
                raw.execute_command("CLIENT", "PAUSE", "1000", "ALL")  # the first two calls wait for Redis
                request = game_service_pb2.GetViewRequest(game_id=game_id)
                results = await asyncio.gather(*(stub.GetView(request, timeout=30) for _ in range(3)), return_exceptions=True)
                refused = [r for r in results if isinstance(r, grpc.aio.AioRpcError)]
                assert len(refused) == 1 and reason_of(refused[0]) == "TOO_MANY_CALLS"
                assert refused[0].code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert [f.error for f in streams if f.error] == []
                for f in streams:
                    await f.close()

    try:
        run(scenario())
    finally:
        raw.close()
        server.stop()


def test_a_seat_joined_while_others_watch_can_watch_at_once(redis_server: EmbeddedRedis) -> None:
    """The shared feed of a watched game may not have heard of a join yet (it hears of it
    through pub/sub, a moment later): a new seat's stream must still be let in at once."""

    async def scenario() -> None:
        async with replica(redis_server.url) as one, replica(redis_server.url) as two:
            async with Client(f"127.0.0.1:{one.port}") as watcher_side, Client(f"127.0.0.1:{two.port}") as join_side:
                for _game in range(12):
                    created = await join_side.create_game("stimmvieh", 4)
                    game_id = created.game_id
                    first = await join_side.join(game_id, "Ada")
                    watching = watcher_side.watch(game_id, first.token)
                    await watching.__anext__()  # the game now has a feed on replica one
                    for name in ("Bo", "Cy", "Dee"):
                        joined = await join_side.join(game_id, name)  # through the other replica
                        stream = watcher_side.watch(game_id, joined.token)
                        update = await asyncio.wait_for(stream.__anext__(), 20)
                        assert update.view.seat == joined.seat
                        await stream.aclose()
                    await watching.aclose()

    run(scenario())


def test_an_update_is_serialised_once_for_the_streams_that_share_it(redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch) -> None:
    """30 spectators and two seats watch one game: at each version the spectators' streams write
    one shared update's bytes (the same bytes reach every spectator), and each seat gets an
    update of its own, with its own view."""
    written: dict[int, list[int]] = {}  # version -> the shared update each stream wrote, by identity
    encoded = watch_module.Update.encoded

    def noted(update: watch_module.Update) -> bytes:
        written.setdefault(update.message.version, []).append(id(update))
        return encoded(update)

    monkeypatch.setattr(watch_module.Update, "encoded", noted)

    async def scenario() -> None:
        async with replica(redis_server.url) as one:
            async with Client(f"127.0.0.1:{one.port}") as client:
                seats = await new_game(client, 4)
                game_id = seats[0].game_id
                start = (await client.view(game_id)).version
                channels = [own_channel(f"127.0.0.1:{one.port}") for _ in range(4)]
                # The updates as bytes, as they came over the wire.
                watch = [
                    c.unary_stream(
                        "/hustings.v1.GameService/WatchGame",
                        request_serializer=game_service_pb2.WatchGameRequest.SerializeToString,
                        response_deserializer=None,
                    )
                    for c in channels
                ]
                viewers: list[str] = ["", seats[0].token, seats[1].token] + [""] * 29
                received: list[list[bytes]] = [[] for _ in viewers]

                async def follow(i: int, token: str) -> None:
                    metadata = (("authorization", f"Bearer {token}"),) if token else ()
                    call = watch[i % 4](game_service_pb2.WatchGameRequest(game_id=game_id, from_version=start - 1), metadata=metadata)
                    while (data := await call.read()) is not grpc.aio.EOF:
                        received[i].append(data)

                tasks = [asyncio.create_task(follow(i, token)) for i, token in enumerate(viewers)]
                await wait_until(lambda: all(received))
                versions = [await next_move(client, seats) for _ in range(2)]
                await wait_until(lambda: all(len(r) == 3 for r in received))
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                for c in channels:
                    await c.close()

                spectators = [r for r, token in zip(received, viewers) if not token]
                for n, version in enumerate([start, *versions]):
                    updates = [game_service_pb2.WatchGameResponse.FromString(r[n]) for r in received]
                    assert [u.version for u in updates] == [version] * len(viewers)
                    assert len({r[n] for r in spectators}) == 1  # the same bytes for every spectator
                    assert received[1][n] != spectators[0][n] and received[2][n] != received[1][n]
                    assert (updates[1].view.seat, updates[2].view.seat) == (0, 1)
                    # One update object per viewpoint wrote every stream's bytes.
                    assert len(written[version]) == len(viewers) and len(set(written[version])) == 3

    run(scenario())


class SlowRepliesProxy:
    """A loopback TCP proxy in front of Redis that hands Redis's replies to a connection
    ``delay_s`` late, except on a connection that has subscribed (pub/sub): announcements then
    come before the replies of the commits they announce, as they may on a busy network."""

    def __init__(self, redis_port: int, delay_s: float) -> None:
        self.redis_port = redis_port
        self.delay_s = delay_s
        self.port = 0
        self._server: asyncio.AbstractServer | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> "SlowRepliesProxy":
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _serve(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        redis_reader, redis_writer = await asyncio.open_connection("127.0.0.1", self.redis_port)
        subscribed = asyncio.Event()
        pending: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()
        loop = asyncio.get_running_loop()

        async def upstream() -> None:
            while chunk := await client_reader.read(65536):
                if b"SUBSCRIBE" in chunk.upper():
                    subscribed.set()
                redis_writer.write(chunk)
                await redis_writer.drain()
            redis_writer.close()

        async def downstream() -> None:
            while chunk := await redis_reader.read(65536):
                delay = 0.0 if subscribed.is_set() else self.delay_s
                await pending.put((loop.time() + delay, chunk))
            await pending.put((loop.time(), b""))

        async def deliver() -> None:
            while True:
                due, chunk = await pending.get()
                await asyncio.sleep(max(0.0, due - loop.time()))
                if not chunk:
                    client_writer.close()
                    return
                client_writer.write(chunk)
                await client_writer.drain()

        tasks = [asyncio.ensure_future(part()) for part in (upstream, downstream, deliver)]
        self._tasks.update(tasks)
        try:
            await asyncio.gather(*tasks)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            for task in tasks:
                task.cancel()
                self._tasks.discard(task)
            redis_writer.close()
            client_writer.close()


def test_a_step_committed_here_reaches_its_streams_without_a_read_when_its_announcement_comes_first(
    redis_server: EmbeddedRedis,
) -> None:
    """Redis's replies reach the replica 50 ms late but its announcements at once, so every move's
    announcement is heard before the reply of its commit: the feed waits for the commit in flight
    on this replica, which hands the step over, instead of reading the log for it."""

    async def scenario() -> None:
        async with SlowRepliesProxy(redis_server.port, delay_s=0.05) as proxy:
            # A quarter of a second for any read of the feed's start to have had its reply.
            await moves_reach_followers_without_a_log_read(
                redis_server, f"redis://127.0.0.1:{proxy.port}", followers=3, settle_s=0.25
            )

    run(scenario())
