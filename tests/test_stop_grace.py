"""A replica that stops gives the calls in flight on both faces the same grace
(``ReplicaConfig.grace_s``): a REST/JSON call and a gRPC call that each need longer than two
seconds to finish (their commits wait while Redis is paused for writes) are both answered, and
their games made. Real Redis, a real replica with both faces, real HTTP and gRPC."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Iterator

import aiohttp
import pytest
from redis import Redis

from conftest import run
from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import UNBOUNDED_CALL_RATE, Replica, ReplicaConfig
from hustings.v1 import game_service_pb2
from service_helpers import stimmvieh_options

GRACE_S = 6.0
# Longer than the REST face once gave its calls (two seconds, twice: aiohttp waits its shutdown
# timeout for the calls in flight, then as long again), within GRACE_S.
PAUSE_MS = 4500
STOP_AFTER_S = 0.3  # the calls are in flight, waiting for Redis, when the stop begins


def _games(redis: Redis) -> int:
    return sum(1 for _ in redis.scan_iter(match="hustings:{*}:game", count=1000))


def test_calls_in_flight_on_both_faces_finish_within_the_same_grace(tmp_path_factory: pytest.TempPathFactory) -> None:
    async def scenario(server: EmbeddedRedis, admin: Redis) -> None:
        config = ReplicaConfig(
            redis_url=server.url, address="127.0.0.1:0", http_address="127.0.0.1:0", grace_s=GRACE_S, **UNBOUNDED_CALL_RATE  # type: ignore[arg-type]
        )
        replica = await Replica(config).start()
        client = Client(f"127.0.0.1:{replica.port}")
        try:
            # One create first, so that the commit script is loaded before Redis is paused.
            await client.stub.CreateGame(game_service_pb2.CreateGameRequest(kind="stimmvieh", options=stimmvieh_options(3)))
            before = _games(admin)
            async with aiohttp.ClientSession() as http:
                admin.execute_command("CLIENT", "PAUSE", PAUSE_MS, "WRITE")
                rest_call = asyncio.ensure_future(
                    http.post(
                        f"http://127.0.0.1:{replica.http_port}/v1/games",
                        json={"kind": "stimmvieh", "options": {"players": 3}},
                        timeout=aiohttp.ClientTimeout(total=30),
                    )
                )
                grpc_call = asyncio.ensure_future(
                    client.stub.CreateGame(game_service_pb2.CreateGameRequest(kind="stimmvieh", options=stimmvieh_options(3)), timeout=30)
                )
                await asyncio.sleep(STOP_AFTER_S)
                assert not rest_call.done() and not grpc_call.done()  # both wait for the paused Redis
                await replica.stop()
                answer = await rest_call
                assert answer.status == 200, (answer.status, await answer.text())
                made = await answer.json()
                created = await grpc_call
            assert made["gameId"] and created.game_id and made["gameId"] != created.game_id
            assert _games(admin) == before + 2
        finally:
            await client.close()
            await replica.stop()

    with _own_redis(tmp_path_factory, "grace") as (server, admin):
        run(scenario(server, admin), 60)


def test_a_rest_call_whose_body_is_still_arriving_when_the_replica_stops_is_answered(redis_server: EmbeddedRedis) -> None:
    """A body that began to arrive before the stop and ends after it is read, and its call
    answered within the grace (aiohttp, once stopping, reads nothing more from a connection: the
    call waited for the rest of its body until cancelled, and its connection closed unanswered)."""

    async def scenario() -> None:
        config = ReplicaConfig(
            redis_url=redis_server.url, address="127.0.0.1:0", http_address="127.0.0.1:0", grace_s=GRACE_S, **UNBOUNDED_CALL_RATE  # type: ignore[arg-type]
        )
        replica = await Replica(config).start()
        try:
            body = json.dumps({"kind": "stimmvieh", "options": {"players": 3}}).encode()
            reader, writer = await asyncio.open_connection("127.0.0.1", replica.http_port)
            head = f"POST /v1/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
            writer.write(head.encode() + body[:10])
            await writer.drain()
            await asyncio.sleep(STOP_AFTER_S)  # the call has begun, the rest of its body not sent
            stopping = asyncio.ensure_future(replica.stop())
            await asyncio.sleep(STOP_AFTER_S)
            assert not stopping.done()
            writer.write(body[10:])
            await writer.drain()
            status, body = await _read_answer(reader)
            assert status.startswith(b"HTTP/1.1 200 "), status
            assert json.loads(body)["gameId"]
            await asyncio.wait_for(stopping, 2 * GRACE_S)
            writer.close()
        finally:
            await replica.stop()

    run(scenario(), timeout_s=60)


async def _read_answer(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    """An HTTP/1.1 answer's status line and body (b"", b"" when the connection closed first)."""
    status = await asyncio.wait_for(reader.readline(), GRACE_S)
    length = 0
    while (line := await asyncio.wait_for(reader.readline(), GRACE_S)) not in (b"\r\n", b""):
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return status, await asyncio.wait_for(reader.readexactly(length), GRACE_S)


async def _answer_status(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes) -> bytes:
    """The status line of ``request`` sent on a kept-alive connection (b"" when it is closed
    unanswered)."""
    try:
        writer.write(request)
        await writer.drain()
        return (await _read_answer(reader))[0]
    except ConnectionError:
        return b""


@contextlib.contextmanager
def _own_redis(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[tuple[EmbeddedRedis, Redis]]:
    """A Redis of the test's own (it pauses its writes) and a client to administer it."""
    server = EmbeddedRedis(tmp_path_factory.mktemp(name), appendonly=False).start()
    admin = Redis.from_url(server.url)
    try:
        yield server, admin
    finally:
        admin.close()
        server.stop()


def test_a_stopping_replica_takes_no_new_rest_call_on_a_connection_kept_alive(tmp_path_factory: pytest.TempPathFactory) -> None:
    """While a stop waits for a call in flight, a connection kept alive from before it is closed
    (it waits for a request) rather than answered again: new calls were served on such
    connections for as long as the stop waited, and one begun late then had a tenth of the
    grace before it was cut."""
    kinds = b"GET /v1/kinds HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"

    async def scenario(server: EmbeddedRedis, admin: Redis) -> None:
        config = ReplicaConfig(
            redis_url=server.url, address="127.0.0.1:0", http_address="127.0.0.1:0", grace_s=GRACE_S, **UNBOUNDED_CALL_RATE  # type: ignore[arg-type]
        )
        replica = await Replica(config).start()
        try:
            async with aiohttp.ClientSession() as http:
                url = f"http://127.0.0.1:{replica.http_port}/v1/games"
                await http.post(url, json={"kind": "stimmvieh", "options": {"players": 3}})  # the commit script loaded
                reader, writer = await asyncio.open_connection("127.0.0.1", replica.http_port)
                assert (await _answer_status(reader, writer, kinds)).startswith(b"HTTP/1.1 200 ")
                admin.execute_command("CLIENT", "PAUSE", PAUSE_MS, "WRITE")
                slow = asyncio.ensure_future(http.post(url, json={"kind": "stimmvieh", "options": {"players": 3}}))
                await asyncio.sleep(STOP_AFTER_S)
                stopping = asyncio.ensure_future(replica.stop())
                await asyncio.sleep(STOP_AFTER_S)
                assert not slow.done() and not stopping.done()  # the stop waits for the slow call
                assert await _answer_status(reader, writer, kinds) == b""
                assert (await slow).status == 200
                await asyncio.wait_for(stopping, 2 * GRACE_S)
                writer.close()
        finally:
            await replica.stop()

    with _own_redis(tmp_path_factory, "keptalive") as (server, admin):
        run(scenario(server, admin), 60)


def test_a_stopped_replica_leaves_no_kick_or_follow_up_running(redis_server: EmbeddedRedis) -> None:
    """A person's join starts a table of three strong bots, whose decisions are due at once: the
    join kicks them, and they think in the background while the replica stops. The kick is given
    a second, then cancelled before the store closes (a decision left stays in the deadline
    index, for another replica), rather than run on against a closed store after the stop."""
    from hustings.v1 import game_pb2

    async def scenario() -> None:
        config = ReplicaConfig(redis_url=redis_server.url, address="127.0.0.1:0", grace_s=0.5, **UNBOUNDED_CALL_RATE)  # type: ignore[arg-type]
        replica = await Replica(config).start()
        async with Client(f"127.0.0.1:{replica.port}") as client:
            table = game_pb2.TableSettings(bot_seats=[1, 2, 3], bot_level="strong")
            created = await client.create_game("stimmvieh", 4, table=table)
            await client.join(created.game_id, "Ada")
        kicks = list(replica.host._kicks)
        assert kicks, "no kick of the bots' decisions was running"
        await replica.stop()
        assert all(task.done() for task in kicks), "a kick ran on after the replica stopped"

    run(scenario(), timeout_s=60)


def test_a_kick_started_by_a_follow_up_during_the_stop_is_waited_for_or_cancelled_too(redis_server: EmbeddedRedis) -> None:
    """``GameHost.finish_background`` looks at its tasks again until none is left or its time is
    up: a follow-up that ends within the grace may kick its game, and that kick is the host's
    too (before, only the tasks there when the stop began were waited for or cancelled)."""

    async def scenario() -> None:
        config = ReplicaConfig(redis_url=redis_server.url, address="127.0.0.1:0", grace_s=0.5, **UNBOUNDED_CALL_RATE)  # type: ignore[arg-type]
        replica = await Replica(config).start()
        host = replica.host
        started: list[asyncio.Task[None]] = []

        def keep(task: asyncio.Task[None]) -> None:
            host._kicks.add(task)
            task.add_done_callback(host._kicks.discard)

        async def kick() -> None:
            await asyncio.sleep(30)  # a long think

        async def follow_up() -> None:
            await asyncio.sleep(0.05)
            started.append(asyncio.create_task(kick()))
            keep(started[-1])

        keep(asyncio.create_task(follow_up()))
        await host.finish_background(0.5)
        assert started and all(task.done() for task in started), "a kick started during the stop ran on"
        await replica.stop()

    run(scenario(), timeout_s=30)
