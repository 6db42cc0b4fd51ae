"""Every unary gRPC call has the server's own deadline (README: 15 s): a move whose commit cannot
reach Redis (here: Redis frozen) is answered DEADLINE_EXCEEDED SERVER_DEADLINE rather than held
open, and once Redis is back the same request id finds the move applied exactly once."""

from __future__ import annotations

import os
import pathlib
import signal

import pytest

from conftest import run, running_replica
from hustings.client import Client, HustingsError, RetryPolicy
from hustings.service import grpc_api
from hustings.service.embedded_redis import EmbeddedRedis
from service_helpers import new_game

SHORT_DEADLINE_S = 1.0
ONE_ATTEMPT = RetryPolicy(max_attempts=1, attempt_timeout_s=30.0)


def test_a_move_past_the_server_deadline_is_deadline_exceeded_and_applies_once(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def scenario(server: EmbeddedRedis) -> None:
        async with running_replica(server.url) as replica:
            address = f"127.0.0.1:{replica.port}"  # type: ignore[attr-defined]
            async with Client(address, retry=ONE_ATTEMPT) as client:
                seats = await new_game(client, players=3)
                game_id = seats[0].game_id
                view = await client.view(game_id, seats[0].token)
                seat = view.to_act[0]
                mine = await client.view(game_id, seats[seat].token)
                move = mine.legal_moves[0]
                monkeypatch.setattr(grpc_api, "RPC_DEADLINE_S", SHORT_DEADLINE_S)
                pid = server._process.pid  # type: ignore[union-attr]
                os.kill(pid, signal.SIGSTOP)
                try:
                    with pytest.raises(HustingsError) as refused:
                        await client.move(game_id, seats[seat].token, move, request_id="frozen-move-1")
                finally:
                    os.kill(pid, signal.SIGCONT)
                monkeypatch.setattr(grpc_api, "RPC_DEADLINE_S", 15.0)
                assert (refused.value.code.name, refused.value.reason) == ("DEADLINE_EXCEEDED", "SERVER_DEADLINE")
                # The commit waited in the lane and ran when Redis came back; the retry under
                # the same request id gets the first answer and the game moved by one step.
                again = await client.move(game_id, seats[seat].token, move, request_id="frozen-move-1")
                assert again.version == view.version + 1
                after = await client.view(game_id)
                assert after.version == view.version + 1

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server), timeout_s=60)
