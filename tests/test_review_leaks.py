"""What one client can learn of, or do to, another's seat through the API: each test plays the
attacker against a real replica (real Redis, real gRPC) and checks that the secret stays hidden
or the interference is refused."""

from __future__ import annotations

from conftest import run
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2
from service_helpers import replica_and_client

SEED = "5e" * 32  # a fixed deal, so that the same hands are dealt in every run


def _hand(view: game_pb2.GameView, party: int) -> set[str]:
    """The Wahlspiel cards (voters and events) of ``party`` that ``view`` shows."""
    shown = view.wahlspiel.parties[party]
    return {card.card_id for card in shown.voters} | {card.card_id for card in shown.events}


def test_a_seat_left_in_an_open_game_shows_its_next_holder_no_known_hand(redis_server: EmbeddedRedis) -> None:
    """Wahlspiel deals every party's voter and event cards when the game is created. A client
    that takes each seat of an open game in turn and leaves it again (leaving an open game frees
    the seat) must not learn the hands the real players then sit down with."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, allow_client_seed=True) as (_replica, client):
            game_id = (await client.create_game("wahlspiel", 3, seed=SEED)).game_id
            peeked: dict[int, set[str]] = {}
            for seat in range(3):
                peeker = await client.join(game_id, "Peeker", seat=seat)
                seen = _hand(peeker.view, seat) | _hand(await client.view(game_id, peeker.token), seat)
                peeked[seat] = seen
                await client.leave(game_id, peeker.token)
            players = [await client.join(game_id, f"Player {seat}", seat=seat) for seat in range(3)]
            for seat, player in enumerate(players):
                view = await client.view(game_id, player.token)
                assert view.status == game_pb2.GAME_STATUS_ACTIVE
                hand = _hand(view, seat)
                assert len(hand) == 6, "four core voters and two events are dealt to every party"
                known = peeked[seat] & hand
                assert not known, f"a client that sat in seat {seat} of the open game and left knows {sorted(known)} of its hand"

    run(scenario())
