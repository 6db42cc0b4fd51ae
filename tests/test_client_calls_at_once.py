"""The Python client sends at most ``CALLS_AT_ONCE`` unary calls at once on its channel: a replica
gives a connection 128 HTTP/2 streams (``--max-streams-per-connection``) and refuses a stream past
them, and 200 moves at once on one channel lost 146 of them to REFUSED_STREAM in the watch load
test. More calls wait in the client for a place. A real gRPC server on loopback counts the calls
it holds at once."""

from __future__ import annotations

import asyncio

import grpc

from conftest import run
from hustings.client import CALLS_AT_ONCE, Client
from hustings.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc

CALLS = 4 * CALLS_AT_ONCE
HOLD_S = 0.05  # each call is held this long by the server


class _Counting(game_service_pb2_grpc.GameServiceServicer):
    """GetView answered after ``HOLD_S``, counting the calls held at once."""

    def __init__(self) -> None:
        self.now = 0
        self.most = 0

    async def GetView(self, request: game_service_pb2.GetViewRequest, context: grpc.aio.ServicerContext) -> game_service_pb2.GetViewResponse:
        self.now += 1
        self.most = max(self.most, self.now)
        try:
            await asyncio.sleep(HOLD_S)
        finally:
            self.now -= 1
        return game_service_pb2.GetViewResponse(view=game_pb2.GameView(game_id=request.game_id))


def test_a_client_holds_its_calls_past_calls_at_once_until_a_place_frees() -> None:
    async def scenario() -> tuple[int, int]:
        counting = _Counting()
        server = grpc.aio.server()
        game_service_pb2_grpc.add_GameServiceServicer_to_server(counting, server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            async with Client(f"127.0.0.1:{port}") as client:
                views = await asyncio.gather(*(client.view(f"g{i:024x}") for i in range(CALLS)))
        finally:
            await server.stop(None)
        assert [v.game_id for v in views] == [f"g{i:024x}" for i in range(CALLS)]
        return counting.most, len(views)

    most, answered = run(scenario(), timeout_s=60)
    assert answered == CALLS
    assert most == CALLS_AT_ONCE, f"the server held {most} calls of one client at once"
