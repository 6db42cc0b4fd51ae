"""A Wahlspiel seat freed in an open game: its party is as a new seat finds it, and the log says so.
LeaveGame writes the freed party into the stored state; the step's logged digest must be that
state's, not the state the leaver had named."""

from __future__ import annotations

from conftest import run
from hustings.engine import Rng, get_game, state_digest
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2
from service_helpers import replica_and_client

SEED = "f1" * 32


def test_the_step_that_frees_a_named_seat_logs_the_digest_of_the_freed_party(redis_server: EmbeddedRedis) -> None:
    game = get_game("wahlspiel")
    assert game is not None
    dealt = game.setup(game.options_from_proto(game_pb2.GameOptions(players=3)), Rng(bytes.fromhex(SEED)))
    named = game.name_party(dealt, 0, "Leavers United", "black")  # type: ignore[attr-defined]

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, allow_client_seed=True) as (replica, client):
            game_id = (await client.create_game("wahlspiel", 3, seed=SEED)).game_id
            leaver = await client.join(game_id, "Leaver", seat=0, party_name="Leavers United", party_colour="black")
            joined = (await client.view(game_id)).version
            await client.leave(game_id, leaver.token)
            # The digests are revealed to players when the game ends: read the stored log.
            logged = [await replica.host.store.log_entry(game_id, version) for version in (joined, joined + 1)]
            assert logged[0] is not None and logged[0].state_digest == state_digest(game, named)
            assert logged[1] is not None and logged[1].state_digest == state_digest(game, dealt), "the freed party is not the one dealt"
            party = (await client.view(game_id)).wahlspiel.parties[0]
            assert (party.name, party.colour) == (game.view(dealt, None).parties[0].name, game.view(dealt, None).parties[0].colour)

    run(scenario())
