"""What an operator's dashboards and alerts read, held to what README.md and deploy/README.md say
of them: the store's memory reading (`hustings_store_memory_fill`, the refusals of new games it
drives) and the `stream_ended` lines of refused streams. Real replicas, real Redis servers, gRPC
and HTTP over loopback; every wait is bounded."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from typing import Any, AsyncIterator

import aiohttp
import grpc
import pytest
import redis
import structlog
from prometheus_client import REGISTRY

from conftest import run
from hustings.client import HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import UNBOUNDED_CALL_RATE, Replica, ReplicaConfig
from hustings.v1 import game_service_pb2, game_service_pb2_grpc
from service_helpers import replica_and_client, run_with_admin, stimmvieh_options

ROOM_CHECK_S = 0.02  # the replica reads Redis's memory this often here (1 s in service)
BUSY_S = 0.5  # how long Redis runs a script past its time limit here
WAIT_S = 3.0  # bound on any one wait for the replica to notice
REFUSAL_TRIES = 5
NO_GAME = "g" + "0" * 24  # a well-formed id of no game


def _fill_gauge() -> float:
    return REGISTRY.get_sample_value("hustings_store_memory_fill") or 0.0


def _busy_redis(admin: "redis.Redis[bytes]", url: str) -> None:
    """Redis busy running a script past its time limit (every other command is answered BUSY
    meanwhile) for ``BUSY_S``, then the script killed, as an operator's SCRIPT KILL does."""
    admin.config_set("lua-time-limit", 50)
    spinner = redis.Redis.from_url(url)
    ended: list[BaseException] = []

    def spin() -> None:
        try:
            spinner.eval("while true do end", 0)
        except redis.RedisError as error:  # killed
            ended.append(error)

    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    try:
        time.sleep(BUSY_S)
    finally:
        for _attempt in range(50):  # bounded: the script may not be past its limit yet
            try:
                admin.script_kill()
                break
            except redis.RedisError:
                time.sleep(0.05)
        thread.join(WAIT_S)
        spinner.close()
    assert ended, "the script was not killed"


def test_the_memory_reading_goes_on_after_redis_was_busy_for_a_moment(tmp_path: Any) -> None:
    """deploy/README.md: each replica reads Redis's memory once a second, `hustings_store_memory_fill`
    is the share it last read (alert on it well before 0.9), and from 90 % CreateGame is refused
    STORE_NEARLY_FULL. A Redis busy for half a second with a slow script (an operator's, or one
    past `lua-time-limit`) answers INFO with `BUSY ...`, a ResponseError; the replica takes that
    for a user that may not run INFO (`store_memory_unreadable`) and never reads again. Redis
    then fills to 95 %: the gauge still showed the old reading, so the alert never fired, and
    new games went on being made until every write of every game in play failed STORE_FULL. Only
    a refusal for good (NOPERM, an unknown command) stops the reading now."""

    async def scenario(url: str, admin: "redis.Redis[bytes]") -> None:
        async with replica_and_client(url, store_room_check_s=ROOM_CHECK_S) as (replica, client):
            await client.create_game("stimmvieh", 4, stimmvieh_options(4))
            before = _fill_gauge()
            assert before < 0.5, before  # no maxmemory: 0
            await asyncio.to_thread(_busy_redis, admin, url)
            await client.create_game("stimmvieh", 4, stimmvieh_options(4))  # Redis serves again
            used = int(admin.info("memory")["used_memory"])
            admin.config_set("maxmemory", int(used / 0.95))  # 95 % full: past the 90 % default
            # Redis's reading moves by a few percent between readings (its clients' buffers: 0.95,
            # then 0.894, then 0.928 in a loaded run), so a reading under 0.9 may come between the
            # gauge's and the call: a few tries, each after a reading of 0.9 or more.
            refusals = []
            for _attempt in range(REFUSAL_TRIES):
                deadline = time.monotonic() + WAIT_S
                while _fill_gauge() < 0.9 and time.monotonic() < deadline:
                    await asyncio.sleep(ROOM_CHECK_S)
                assert _fill_gauge() >= 0.9, f"the gauge still reads {_fill_gauge():.3f} with Redis 95 % full"
                try:
                    await client.create_game("stimmvieh", 4, stimmvieh_options(4))
                except HustingsError as refused:
                    refusals.append(refused.reason)
                    break
            assert refusals == ["STORE_NEARLY_FULL"], refusals
            admin.config_set("maxmemory", 0)

    run_with_admin(tmp_path, scenario)


@contextlib.asynccontextmanager
async def _behind_a_proxy(redis_url: str) -> AsyncIterator[Replica]:
    """A replica with gRPC and REST faces that trusts loopback as its proxy (`--trusted-proxy`):
    a caller's address is the one `x-forwarded-for` names, as behind deploy/'s Envoy."""
    replica = await Replica(
        ReplicaConfig(
            redis_url=redis_url, address="127.0.0.1:0", http_address="127.0.0.1:0", grace_s=1.0,
            trusted_proxies=("127.0.0.0/8",), **UNBOUNDED_CALL_RATE,
        )
    ).start()
    try:
        yield replica
    finally:
        await replica.stop()


def _stream_ended_lines(logged: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line for line in logged if line.get("event") == "stream_ended"]


def test_a_refused_event_stream_is_logged_with_its_client(redis_server: EmbeddedRedis) -> None:
    """README Many replicas: "Every stream that ends in an error is logged (`stream_ended`, with
    code, reason and client; never a token)", refused ones sparsely. Over gRPC the line has its
    `client`; an event stream refused before it starts (no such game, over its caps or its
    rate, a foreign token) was logged with code and reason only, and an operator who saw
    `alike_not_logged` climb could not tell which address opened them."""

    async def scenario() -> list[dict[str, Any]]:
        async with _behind_a_proxy(redis_server.url) as replica:
            with structlog.testing.capture_logs() as logged:
                async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=WAIT_S)) as session:
                    url = f"http://127.0.0.1:{replica.http_port}/v1/games/{NO_GAME}:watch"
                    async with session.get(url, headers={"X-Forwarded-For": "203.0.113.8"}) as answer:
                        assert answer.status == 404
            return _stream_ended_lines(logged)

    ended = run(scenario(), 60)
    assert isinstance(ended, list)
    assert len(ended) == 1, ended
    assert ended[0]["reason"] == "GAME_NOT_FOUND"
    assert "client" in ended[0], ended[0]
    assert "203.0.113.8" in str(ended[0]["client"]), ended[0]


def test_a_refused_grpc_stream_behind_a_proxy_is_logged_with_the_callers_address(redis_server: EmbeddedRedis) -> None:
    """deploy/README.md: behind a proxy, `--trusted-proxy` makes the replica count each caller by
    the address `x-forwarded-for` names (its calls, its streams). The `stream_ended` line of a
    WatchGame refused before its first update named only the gRPC connection
    (`grpc:ipv4:127.0.0.1:PORT`, the proxy's): behind deploy/'s Envoy every such line named
    Envoy. The line now carries the `address` the stream caps and rate count."""

    async def scenario() -> list[dict[str, Any]]:
        async with _behind_a_proxy(redis_server.url) as replica:
            with structlog.testing.capture_logs() as logged:
                async with grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}") as channel:
                    stub = game_service_pb2_grpc.GameServiceStub(channel)
                    call = stub.WatchGame(
                        game_service_pb2.WatchGameRequest(game_id=NO_GAME), metadata=(("x-forwarded-for", "203.0.113.7"),), timeout=WAIT_S
                    )
                    with pytest.raises(grpc.aio.AioRpcError) as refused:
                        async for _update in call:
                            pass
                    assert refused.value.code() == grpc.StatusCode.NOT_FOUND
            return _stream_ended_lines(logged)

    ended = run(scenario(), 60)
    assert isinstance(ended, list)
    assert len(ended) == 1, ended
    assert ended[0]["reason"] == "GAME_NOT_FOUND"
    assert "203.0.113.7" in " ".join(str(value) for value in ended[0].values()), ended[0]


def _moves_applied(kind: str) -> float:
    return REGISTRY.get_sample_value("hustings_moves_applied_total", {"kind": kind}) or 0.0


def test_a_move_that_lands_after_its_call_was_given_up_is_counted(tmp_path: Any) -> None:
    """README Metrics: `hustings_moves_applied_total{kind}` counts the moves applied. A SubmitMove
    whose client's deadline passes while its commit is on its way (Redis slow for a moment) is
    applied all the same (the commit goes out; README Retries), and the counter counted only the
    moves whose call saw the reply: when Redis was slow, the moves-per-second panel dropped though
    the games went on, and the `move_applied` line was missing too."""
    import os
    import signal

    async def scenario(server: EmbeddedRedis, stack: contextlib.ExitStack) -> None:
        async with replica_and_client(server.url) as (replica, client):
            created = await client.create_game("stimmvieh", 3, stimmvieh_options(3))
            seats = [await client.join(created.game_id, name) for name in ("Ada", "Bo", "Cy")]
            view = await client.view(created.game_id)
            mover = next(seat for seat in seats if seat.seat in view.to_act)
            mine = await client.view(created.game_id, mover.token)
            before = _moves_applied("stimmvieh")
            logged = stack.enter_context(structlog.testing.capture_logs())
            async with grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}") as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                request = game_service_pb2.SubmitMoveRequest(
                    game_id=created.game_id, move=mine.legal_moves[0], request_id="given-up", expected_version=mine.version
                )
                os.kill(server.pid, signal.SIGSTOP)  # type: ignore[arg-type]
                try:
                    with pytest.raises(grpc.aio.AioRpcError) as given_up:
                        await stub.SubmitMove(request, metadata=(("authorization", f"Bearer {mover.token}"),), timeout=0.5)
                    assert given_up.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
                    # Redis stays slow a little longer: the replica, too, has given the call up by
                    # then (its own deadline timer), not only the client.
                    await asyncio.sleep(0.5)
                finally:
                    os.kill(server.pid, signal.SIGCONT)  # type: ignore[arg-type]
            deadline = time.monotonic() + WAIT_S
            while (await client.view(created.game_id)).version == mine.version and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert (await client.view(created.game_id)).version == mine.version + 1  # the move was applied
            while _moves_applied("stimmvieh") == before and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert _moves_applied("stimmvieh") == before + 1
            applied = [line for line in logged if line.get("event") == "move_applied"]
            assert [line.get("answered") for line in applied] == [False], applied

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server, contextlib.ExitStack() as stack:
        run(scenario(server, stack), 60)
