"""The views that seat changes answer with say who is present, as GetView does (Seat.present:
"True while the player holds a WatchGame stream or has called within the last 30 seconds").

A join's, a leave's, a return's, a takeover's and AddBot's answers showed nobody present, the
caller neither, until the replica answering had read the game's presence for a GetView. Real
Redis, real gRPC replicas, each call on a replica that has not read the game before.
"""

from __future__ import annotations

import uuid
from contextlib import AsyncExitStack

import grpc
import pytest

from conftest import run
from service_helpers import replica_and_client as _replica, stimmvieh_options
from hustings.client import Client, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2, game_service_pb2

REPLICAS = 4


def _auth(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


async def _create(client: Client, players: int, **table: object) -> str:
    request = game_service_pb2.CreateGameRequest(kind="stimmvieh", options=stimmvieh_options(players))
    request.table.CopyFrom(game_pb2.TableSettings(**table))  # type: ignore[arg-type]
    return (await client.stub.CreateGame(request)).game_id


async def _join(client: Client, game_id: str, name: str) -> game_service_pb2.JoinGameResponse:
    request = game_service_pb2.JoinGameRequest(game_id=game_id, display_name=name, request_id=uuid.uuid4().hex)
    return await client.stub.JoinGame(request)


def _present(view: game_pb2.GameView) -> list[bool]:
    return [s.present for s in view.seats]


def test_seat_changes_answer_with_who_is_present(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with AsyncExitStack() as stack:
            clients = [(await stack.enter_async_context(_replica(redis_server.url)))[1] for _ in range(REPLICAS)]
            one, two, three, four = clients
            game_id = await _create(one, 3, decision_seconds=600, allow_takeover=True)
            ada = await _join(one, game_id, "Ada")
            assert _present(ada.view) == [True, False, False]  # the joiner, in its own answer
            bo = await _join(two, game_id, "Bo")
            assert _present(bo.view) == [True, True, False]  # Ada too, read on a replica new to the game
            cy = await _join(three, game_id, "Cy")
            assert cy.view.status == game_pb2.GAME_STATUS_ACTIVE
            assert _present(cy.view) == [True, True, True]

            left = await four.stub.LeaveGame(game_service_pb2.LeaveGameRequest(game_id=game_id), metadata=_auth(cy.seat_token))
            assert left.view.seats[2].absent and _present(left.view) == [True, True, True]  # the leaver called
            back = await four.stub.ReturnToGame(game_service_pb2.ReturnToGameRequest(game_id=game_id), metadata=_auth(cy.seat_token))
            assert not back.view.seats[2].absent and _present(back.view) == [True, True, True]

            await one.stub.LeaveGame(game_service_pb2.LeaveGameRequest(game_id=game_id), metadata=_auth(cy.seat_token))
            # A takeover names its request id (required): without one it is refused, and the seat stays absent.
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await two.stub.TakeOverSeat(game_service_pb2.TakeOverSeatRequest(game_id=game_id, seat=2, display_name="Zed"))
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert HustingsError.from_rpc_error(refused.value).reason == "MISSING_REQUEST_ID"
            assert (await two.view(game_id)).seats[2].absent
            request = game_service_pb2.TakeOverSeatRequest(game_id=game_id, seat=2, display_name="Zed", request_id=uuid.uuid4().hex)
            async with _replica(redis_server.url) as (_, five):
                taken = await five.stub.TakeOverSeat(request)
            assert taken.view.seats[2].display_name == "Zed" and not taken.view.seats[2].absent
            assert _present(taken.view) == [True, True, True]

    run(scenario())


def test_add_bot_answers_with_a_spectators_view_and_a_freed_seat_is_nobodys_presence(redis_server: EmbeddedRedis) -> None:
    """AddBotResponse.view is "the view of a spectator after the bot sat down", also for a caller
    holding a seat; the seat a leaver freed in an open game is not present (its leaver called
    within the window, but nobody sits there)."""

    async def scenario() -> None:
        async with _replica(redis_server.url) as (_, one), _replica(redis_server.url) as (_, two):
            game_id = await _create(one, 4)
            ada = await _join(one, game_id, "Ada")
            bo = await _join(one, game_id, "Bo")
            added = await two.stub.AddBot(game_service_pb2.AddBotRequest(game_id=game_id, seat=3), metadata=_auth(ada.seat_token))
            assert added.seat == 3
            assert not added.view.HasField("seat") and list(added.view.legal_moves) == []
            assert added.view.seats[3].bot and _present(added.view) == [True, True, False, True]
            left = await two.stub.LeaveGame(game_service_pb2.LeaveGameRequest(game_id=game_id), metadata=_auth(bo.seat_token))
            assert not left.view.seats[1].taken
            assert _present(left.view) == [True, False, False, True]
            assert _present(await one.view(game_id)) == [True, False, False, True]

    run(scenario())
