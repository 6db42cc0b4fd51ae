"""A refused gRPC call leaves nothing for the garbage collector beyond what any call leaves. It was
refused with ``context.abort``, whose AbortError the call's state keeps, its traceback through the
call's frames, and the refusal's own traceback through the handler that held it: some 40 objects
a refused call (a dozen frames) in cycles that only the collector frees, and every call in flight
waits out its pauses. A flood of refusals (an address past its rate, a scan of game ids) made the
most of them.

Real parts: a Redis server and an in-process replica with its gRPC face on loopback; the client is
in the same process, so its own leftovers count too (a call answered leaves the same)."""

from __future__ import annotations

import collections
import gc

import grpc

from conftest import run
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_service_pb2 as gs, game_service_pb2_grpc as rpc
from service_helpers import replica_and_client

CALLS = 200


async def _left_per_call(stub: rpc.GameServiceStub, refused: bool) -> tuple[float, collections.Counter[str]]:
    """The objects that ``CALLS`` calls left in cycles, per call, and their types."""
    request = gs.GetViewRequest(game_id="g" * 24)
    for _ in range(20):  # warm: the first calls fill caches that are not garbage
        await _call(stub, request, refused)
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for _ in range(CALLS):
            await _call(stub, request, refused)
        gc.collect()
        left = collections.Counter(type(o).__name__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    return sum(left.values()) / CALLS, left


async def _call(stub: rpc.GameServiceStub, request: gs.GetViewRequest, refused: bool) -> None:
    if not refused:
        await stub.ListGameKinds(gs.ListGameKindsRequest(), timeout=10)
        return
    try:
        await stub.GetView(request, timeout=10)
    except grpc.aio.AioRpcError as error:
        assert error.code() == grpc.StatusCode.NOT_FOUND
    else:
        raise AssertionError("a view of no game was answered")


def test_a_refused_call_leaves_no_more_to_the_collector_than_an_answered_one(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (replica, _client):
            async with grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}") as channel:
                stub = rpc.GameServiceStub(channel)
                answered, _ = await _left_per_call(stub, refused=False)
                refused, left = await _left_per_call(stub, refused=True)
        # A dozen frames a refused call before; a few in all leave room for a background loop's.
        assert left["frame"] <= CALLS // 20 and left["traceback"] <= CALLS // 20, left.most_common(8)
        assert refused <= answered + 1, (refused, answered, left.most_common(8))

    run(scenario(), 60)
