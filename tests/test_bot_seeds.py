"""Server bots draw their choices from the game's seed: a game whose creator chose the seed
(``--allow-client-seed``: tests, tournaments, research) plays out the same every time, bots
included, and games of other seeds differ."""

from __future__ import annotations

import asyncio
import time

from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import SOLE_CLIENT
from hustings.service.seats import bot_rng
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2, game_service_pb2
from conftest import run
from service_helpers import replica_and_client

FINISH_SECONDS = 60.0


async def bots_game(client: Client, kind: str, players: int, level: str, seed: str) -> list[bytes]:
    """A game of one player, who always makes the first move listed once the bots have made
    theirs, and ``level`` bots, played to its end; the events of its full history."""
    request = game_service_pb2.CreateGameRequest(kind=kind, options=game_pb2.GameOptions(players=players), seed=seed)
    request.table.bot_seats.extend(range(1, players))
    request.table.bot_level = level
    created = await client.stub.CreateGame(request)
    player = await client.join(created.game_id, "Player", seat=0)
    deadline = time.monotonic() + FINISH_SECONDS
    view = await client.view(created.game_id, player.token)
    while view.status != game_pb2.GAME_STATUS_FINISHED and time.monotonic() < deadline:
        if list(view.to_act) == [0]:
            await client.move(created.game_id, player.token, view.legal_moves[0], expected_version=view.version)
        else:
            await asyncio.sleep(0.005)
        view = await client.view(created.game_id, player.token)
    assert view.status == game_pb2.GAME_STATUS_FINISHED, f"the game did not finish in {FINISH_SECONDS} s"
    return [event.SerializeToString(deterministic=True) for entry in await client.history(created.game_id) for event in entry.events]


def test_a_seeded_table_of_bots_plays_the_same_game_again(tmp_path) -> None:  # type: ignore[no-untyped-def]
    async def scenario(url: str) -> None:
        async with replica_and_client(url, allow_client_seed=True, **SOLE_CLIENT) as (_replica, client):
            for kind, players, level in (("stimmvieh", 4, "random"), ("wahlspiel", 3, "greedy"), ("spin_doctors", 3, "random")):
                # Played at once: a greedy bot's decision is made public 50 ms after it began to
                # think (seats.THINKING_FLOOR_S), and the three games wait out their floors together.
                first, again, other = await asyncio.gather(
                    *(bots_game(client, kind, players, level, seed=seed) for seed in ("1" * 64, "1" * 64, "2" * 64))
                )
                assert len(first) > 20, (kind, len(first))
                assert again == first, kind
                assert other != first, kind

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url), timeout_s=240)


def test_a_bot_draws_apart_from_the_deal_and_by_step_and_seat() -> None:
    """Keyed by the seed, never the seed's own stream: each step and seat draws afresh."""
    stored = storage_pb2.StoredGame(seed=b"s" * 32, version=7)
    draws = {bot_rng(stored, seat).getrandbits(64) for seat in range(4)}
    stored.version = 8
    draws |= {bot_rng(stored, seat).getrandbits(64) for seat in range(4)}
    assert len(draws) == 8
    assert bot_rng(stored, 2).getrandbits(64) == bot_rng(storage_pb2.StoredGame(seed=b"s" * 32, version=8), 2).getrandbits(64)
