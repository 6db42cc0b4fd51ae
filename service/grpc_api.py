"""The gRPC face: thin typed handlers over the GameHost, health and reflection."""

from __future__ import annotations

import functools
from typing import Any, AsyncIterator, Awaitable, Callable, TypeVar

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from hustings.service.errors import ServiceError, unauthenticated
from hustings.service.host import GameHost
from hustings.v1 import game_service_pb2, game_service_pb2_grpc

log = structlog.get_logger("hustings.grpc")

SERVICE_NAME = game_service_pb2.DESCRIPTOR.services_by_name["GameService"].full_name
MAX_MESSAGE_BYTES = 1 << 20

R = TypeVar("R")


def bearer_token(context: grpc.aio.ServicerContext) -> str | None:
    """The seat token from ``authorization: Bearer <token>``, or None."""
    for key, value in context.invocation_metadata() or ():
        if key == "authorization":
            text = value.decode() if isinstance(value, bytes) else value
            scheme, _, token = text.partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
            return ""
    return None


def _unary(method: Callable[..., Awaitable[R]]) -> Callable[..., Awaitable[R]]:
    """Bind the request context for logs and turn ServiceError into a rich gRPC status."""

    @functools.wraps(method)
    async def handler(self: "GameServicer", request: Any, context: grpc.aio.ServicerContext) -> R:
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(rpc=method.__name__, game_id=getattr(request, "game_id", None) or None)
        try:
            return await method(self, request, context)
        except ServiceError as error:
            status = error.to_status()
            await context.abort(status.code, status.details, status.trailing_metadata)
            raise  # unreachable: abort raises

    return handler


def _auth_error(token: str | None) -> None:
    if token == "":
        raise unauthenticated("MALFORMED_AUTHORIZATION", "authorization must be 'Bearer <seat token>'")


class GameServicer(game_service_pb2_grpc.GameServiceServicer):
    """hustings.v1.GameService."""

    def __init__(self, host: GameHost) -> None:
        self.host = host

    def _token(self, context: grpc.aio.ServicerContext) -> str | None:
        token = bearer_token(context)
        _auth_error(token)
        return token

    @_unary
    async def ListGameKinds(self, request: game_service_pb2.ListGameKindsRequest, context: grpc.aio.ServicerContext) -> game_service_pb2.ListGameKindsResponse:
        return self.host.list_kinds()

    @_unary
    async def CreateGame(self, request: game_service_pb2.CreateGameRequest, context: grpc.aio.ServicerContext) -> game_service_pb2.CreateGameResponse:
        return await self.host.create_game(request)

    @_unary
    async def JoinGame(self, request: game_service_pb2.JoinGameRequest, context: grpc.aio.ServicerContext) -> game_service_pb2.JoinGameResponse:
        return await self.host.join_game(request)

    @_unary
    async def GetView(self, request: game_service_pb2.GetViewRequest, context: grpc.aio.ServicerContext) -> game_service_pb2.GetViewResponse:
        view = await self.host.get_view(request.game_id, self._token(context))
        return game_service_pb2.GetViewResponse(view=view)

    @_unary
    async def SubmitMove(self, request: game_service_pb2.SubmitMoveRequest, context: grpc.aio.ServicerContext) -> game_service_pb2.SubmitMoveResponse:
        return await self.host.submit_move(request, self._token(context))

    @_unary
    async def GetHistory(self, request: game_service_pb2.GetHistoryRequest, context: grpc.aio.ServicerContext) -> game_service_pb2.GetHistoryResponse:
        return await self.host.history(request.game_id, self._token(context))

    @_unary
    async def ListGames(self, request: game_service_pb2.ListGamesRequest, context: grpc.aio.ServicerContext) -> game_service_pb2.ListGamesResponse:
        return await self.host.list_games(request)

    async def WatchGame(self, request: game_service_pb2.WatchGameRequest, context: grpc.aio.ServicerContext) -> AsyncIterator[game_service_pb2.WatchGameResponse]:
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(rpc="WatchGame", game_id=request.game_id or None)
        try:
            async for update in self.host.watch(request.game_id, self._token(context), request.from_version):
                yield update
        except ServiceError as error:
            status = error.to_status()
            await context.abort(status.code, status.details, status.trailing_metadata)


def build_server(host: GameHost, address: str) -> tuple[grpc.aio.Server, int, health.aio.HealthServicer]:
    """A gRPC server with GameService, health checking and reflection, bound to ``address``."""
    server = grpc.aio.server(
        options=[
            ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
            ("grpc.max_send_message_length", 4 * MAX_MESSAGE_BYTES),
            ("grpc.so_reuseport", 0),
        ]
    )
    game_service_pb2_grpc.add_GameServiceServicer_to_server(GameServicer(host), server)
    health_servicer = health.aio.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME),
        server,
    )
    port = server.add_insecure_port(address)
    if port == 0:
        raise RuntimeError(f"could not bind {address}")
    return server, port, health_servicer
