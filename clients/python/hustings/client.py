"""The Python client of hustings: typed async calls over the generated gRPC stubs.

    async with Client("127.0.0.1:50051") as client:
        game_id = (await client.create_game("stimmvieh", players=4)).game_id
        seat, token = await client.join(game_id, "Ada")
        view = await client.view(game_id, token)

Errors raise ``HustingsError`` with the gRPC code and the machine-readable reason.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import AsyncIterator

import grpc
from google.rpc import error_details_pb2, status_pb2

from hustings.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc

DEFAULT_TIMEOUT_S = 30.0


class HustingsError(Exception):
    """A refused call: ``code`` (grpc.StatusCode), ``reason`` (e.g. "NOT_YOUR_TURN"), message."""

    def __init__(self, code: grpc.StatusCode, reason: str, message: str) -> None:
        super().__init__(f"{code.name} {reason}: {message}")
        self.code = code
        self.reason = reason
        self.message = message

    @classmethod
    def from_rpc_error(cls, error: grpc.aio.AioRpcError) -> "HustingsError":
        """Parse the google.rpc.Status details of a failed call."""
        reason = ""
        for key, value in error.trailing_metadata() or ():
            if key == "grpc-status-details-bin":
                status = status_pb2.Status()
                status.ParseFromString(value)
                for detail in status.details:
                    info = error_details_pb2.ErrorInfo()
                    if detail.Unpack(info):
                        reason = info.reason
        return cls(error.code(), reason, error.details() or "")


def _metadata(token: str | None, game_id: str = "") -> tuple[tuple[str, str], ...]:
    # x-hustings-game lets a balancer keep a game on one replica (its state stays cached there).
    game = (("x-hustings-game", game_id),) if game_id else ()
    return ((("authorization", f"Bearer {token}"),) if token else ()) + game


@dataclass
class Joined:
    """A seat taken in a game."""

    game_id: str
    seat: int
    token: str
    view: game_pb2.GameView


class Client:
    """An async client; one channel, any number of seats (pass the seat token per call)."""

    def __init__(self, address: str, *, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        self.address = address
        self.timeout_s = timeout_s
        self.channel = grpc.aio.insecure_channel(address)
        self.stub = game_service_pb2_grpc.GameServiceStub(self.channel)

    async def __aenter__(self) -> "Client":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the channel."""
        await self.channel.close()

    async def _call(self, method: str, request: object, token: str | None = None) -> object:
        try:
            metadata = _metadata(token, getattr(request, "game_id", ""))
            return await getattr(self.stub, method)(request, metadata=metadata, timeout=self.timeout_s)
        except grpc.aio.AioRpcError as error:
            raise HustingsError.from_rpc_error(error) from None

    async def kinds(self) -> list[game_pb2.GameKind]:
        """The hosted game kinds."""
        response = await self._call("ListGameKinds", game_service_pb2.ListGameKindsRequest())
        return list(response.kinds)  # type: ignore[attr-defined]

    async def create_game(
        self, kind: str, players: int, options: game_pb2.GameOptions | None = None, seed: str = ""
    ) -> game_service_pb2.CreateGameResponse:
        """Create a game; ``options`` carries the kind's own options."""
        game_options = game_pb2.GameOptions()
        if options is not None:
            game_options.CopyFrom(options)
        game_options.players = players
        request = game_service_pb2.CreateGameRequest(kind=kind, options=game_options, seed=seed, request_id=uuid.uuid4().hex)
        return await self._call("CreateGame", request)  # type: ignore[return-value]

    async def join(self, game_id: str, display_name: str, seat: int | None = None) -> Joined:
        """Take a seat (the lowest free one unless ``seat`` is given)."""
        request = game_service_pb2.JoinGameRequest(game_id=game_id, display_name=display_name)
        if seat is not None:
            request.seat = seat
        response = await self._call("JoinGame", request)
        return Joined(game_id, response.seat, response.seat_token, response.view)  # type: ignore[attr-defined]

    async def view(self, game_id: str, token: str | None = None) -> game_pb2.GameView:
        """The caller's view (a spectator's without a token)."""
        response = await self._call("GetView", game_service_pb2.GetViewRequest(game_id=game_id), token)
        return response.view  # type: ignore[attr-defined]

    async def move(
        self,
        game_id: str,
        token: str,
        move: game_pb2.Move,
        expected_version: int | None = None,
        request_id: str | None = None,
    ) -> game_service_pb2.SubmitMoveResponse:
        """Submit a move; a fresh request id is made unless one is given (give one to retry)."""
        request = game_service_pb2.SubmitMoveRequest(game_id=game_id, request_id=request_id or uuid.uuid4().hex)
        request.move.CopyFrom(move)
        if expected_version is not None:
            request.expected_version = expected_version
        return await self._call("SubmitMove", request, token)  # type: ignore[return-value]

    async def history(self, game_id: str, token: str | None = None) -> list[game_pb2.HistoryEntry]:
        """The caller's history of the game."""
        response = await self._call("GetHistory", game_service_pb2.GetHistoryRequest(game_id=game_id), token)
        return list(response.entries)  # type: ignore[attr-defined]

    async def games(self, kind: str = "", status: int = 0, page_size: int = 50, page_token: str = "") -> game_service_pb2.ListGamesResponse:
        """One page of the lobby."""
        request = game_service_pb2.ListGamesRequest(kind=kind, status=status, page_size=page_size, page_token=page_token)  # type: ignore[arg-type]
        return await self._call("ListGames", request)  # type: ignore[return-value]

    async def watch(self, game_id: str, token: str | None = None, from_version: int = 0) -> AsyncIterator[game_service_pb2.WatchGameResponse]:
        """Updates after ``from_version``, live; ends when the game is over."""
        request = game_service_pb2.WatchGameRequest(game_id=game_id, from_version=from_version)
        call = self.stub.WatchGame(request, metadata=_metadata(token, game_id))
        try:
            async for update in call:
                yield update
        except grpc.aio.AioRpcError as error:
            raise HustingsError.from_rpc_error(error) from None
        finally:
            call.cancel()
