"""The project's own tools within a replica's caps on a gRPC connection's streams (128, of which
a client's streams may take 96): `hustings bots` and `hustings loadtest` spread their seats and
load clients over connections of their own, where each had held one connection per address."""

from __future__ import annotations

import asyncio

import pytest

from conftest import run
from service_helpers import replica_and_client
from hustings import loadtest
from hustings.bots import run_bots
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import SOLE_CLIENT, UNBOUNDED_CREATES

# Games played at once by `hustings bots`: 26 tables of 4 seats follow 104 WatchGame streams,
# past the 96 a connection from a client may hold.
BOT_GAMES = 26
# They finish in about 4 s on 2 cores; a game with a seat refused waits for it up to the bots'
# GAME_TIMEOUT_S (10 minutes).
BOTS_WAIT_S = 15.0


def test_bots_at_a_concurrency_past_the_connections_room_finish_every_game(redis_server: EmbeddedRedis) -> None:
    """`hustings bots --games 26 --concurrency 26 --players 4`, against the embedded server's
    limits (``SOLE_CLIENT``, as ``server_at`` starts it): every game finishes, promptly, and no
    seat is refused. On the tool's one connection the seats past the 96th stream were refused: a
    game with all its seats refused was given up, one with some of them waited for them until
    the tool's 10-minute game timeout."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, **SOLE_CLIENT) as (replica, _client):
            bots = run_bots(f"127.0.0.1:{replica.port}", "stimmvieh", BOT_GAMES, 4, concurrency=BOT_GAMES, seed=1)
            try:
                summary = await asyncio.wait_for(bots, BOTS_WAIT_S)
            except TimeoutError:
                pytest.fail(f"{BOT_GAMES} bot games at once did not finish within {BOTS_WAIT_S:.0f} s")
            assert summary["error_reasons"] == {}
            assert summary["games_finished"] == BOT_GAMES

    run(scenario(), timeout_s=90)


# Tables of `hustings loadtest --replicas 1 --clients 200`, one move in flight each.
LOAD_CLIENTS = 200


def test_loadtest_moves_from_more_clients_than_a_connections_streams_are_not_refused(redis_server: EmbeddedRedis) -> None:
    """The load test's move phase with 200 clients against one replica with the limits the
    load test gives its replicas (``loadtest._replicas``): every move is answered. Over the
    tool's one channel, 200 calls at once, the replica refused those past its 128 streams, and
    each refused table stopped with an UNAVAILABLE error."""
    config = {
        **UNBOUNDED_CREATES,
        "allow_client_seed": True,
        "max_calls_per_client": 2048,
        "max_streams_per_address": 10_000,
        "max_streams_per_game": 10_000,
    }

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, **config) as (replica, _client):
            sampler, _elapsed, moves, _finished, _cpu = await loadtest._move_phase(
                [f"127.0.0.1:{replica.port}"], LOAD_CLIENTS, 1.0, "stimmvieh", 3, 1.0, [], "game"
            )
            assert sampler.error_reasons == {}
            assert moves > 0

    run(scenario(), timeout_s=90)
