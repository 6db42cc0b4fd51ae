"""Every gRPC refusal carries its reason as plain text in the ``hustings-reason`` trailer, and a
refusal with a retry hint its delay in ``hustings-retry-after-ms``, beside the google.rpc.Status
in ``grpc-status-details-bin``: a Node bot (@grpc/grpc-js decodes no Status details) could only
read the reason by loading google/rpc/status.proto and error_details.proto and decoding each
detail by its type URL, so ALREADY_CHOSEN, NOT_YOUR_TURN, TIME_RUN_OUT and GAME_OVER, all FAILED_PRECONDITION,
looked alike to it."""

from __future__ import annotations

import grpc
import pytest

from conftest import run
from service_helpers import replica_and_client
from hustings.client import HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2, game_service_pb2


def _trailers(error: grpc.aio.AioRpcError) -> dict[str, str]:
    return {key: value for key, value in (error.trailing_metadata() or ()) if isinstance(value, str)}


def test_refusals_carry_their_reason_and_retry_hint_in_plain_trailers(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with replica_and_client(redis_server.url, create_burst=1, creates_per_client_per_minute=1.0) as (_, client):
            game_id = (await client.create_game("stimmvieh", 3)).game_id
            seats = [await client.join(game_id, name) for name in ("Ada", "Bo", "Cy")]
            move = game_pb2.Move()
            move.stimmvieh.choose_top_candidates.influences.extend([1, 2, 3, 4])
            await client.move(game_id, seats[0].token, move)
            for request, token, reason in (
                (game_service_pb2.SubmitMoveRequest(game_id=game_id, move=move, request_id="0123456789abcdef-again"), seats[0].token, "ALREADY_CHOSEN"),
                (game_service_pb2.SubmitMoveRequest(game_id=game_id, move=move), seats[1].token, "MISSING_REQUEST_ID"),
                (game_service_pb2.SubmitMoveRequest(game_id="g" + "0" * 24, move=move, request_id="0123456789abcdef"), seats[1].token, "GAME_NOT_FOUND"),
            ):
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await client.stub.SubmitMove(request, metadata=(("authorization", f"Bearer {token}"),))
                assert HustingsError.from_rpc_error(refused.value).reason == reason  # the Status's ErrorInfo
                assert _trailers(refused.value)["hustings-reason"] == reason
                assert "hustings-retry-after-ms" not in _trailers(refused.value)
            with pytest.raises(grpc.aio.AioRpcError) as refused:  # the one game of the burst is made
                await client.stub.CreateGame(game_service_pb2.CreateGameRequest(kind="stimmvieh", options=game_pb2.GameOptions(players=3)))
            hint = HustingsError.from_rpc_error(refused.value)
            trailers = _trailers(refused.value)
            assert trailers["hustings-reason"] == hint.reason == "TOO_MANY_GAMES_CREATED"
            assert hint.retry_after_s is not None and int(trailers["hustings-retry-after-ms"]) == round(hint.retry_after_s * 1000)

    run(scenario())
