"""A finished game keeps its request ids a day, not the retention time: they were a fifth of what
a finished game played by clients keeps, and a retry comes within seconds. Its other keys are kept
the retention time, and a retry of its last move within the day still gets its first answer."""

from __future__ import annotations

import pathlib
import random

import redis

from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service import store
from hustings.service.store import game_key, log_key, presence_key, requests_key
from hustings.v1 import game_pb2
from conftest import run
from service_helpers import new_game, replica_and_client

RETENTION_S = 3 * 24 * 3600
DAY_S = 24 * 3600
MAX_MOVES = 2000


def test_a_finished_game_keeps_its_request_ids_a_day_and_its_other_keys_the_retention(tmp_path: pathlib.Path) -> None:
    """README Retries: "A game keeps its request ids while it is open or in play and for a day
    after its last step"."""
    readme = " ".join((pathlib.Path(__file__).resolve().parent.parent / "README.md").read_text().split())
    assert "A game keeps its request ids while it is open or in play and for a day after its last step" in readme
    assert getattr(store, "FINISHED_REQUEST_IDS_S", None) == DAY_S
    async def scenario(url: str, raw: "redis.Redis[bytes]") -> None:
        async with replica_and_client(url, retention_s=RETENTION_S) as (_replica, client):
            seats = await new_game(client)
            game_id = seats[0].game_id
            rng = random.Random(5)
            last: tuple[str, game_pb2.Move, str, object] | None = None
            for number in range(MAX_MOVES):
                view = await client.view(game_id)
                if view.status == game_pb2.GAME_STATUS_FINISHED:
                    break
                if number:  # in play, its request ids live as long as its other keys
                    assert raw.ttl(requests_key(game_id)) > DAY_S
                seat = min(view.to_act)
                mine = await client.view(game_id, seats[seat].token)
                move = rng.choice(list(mine.legal_moves))
                request_id = f"finishing-test-{number}"
                answer = await client.move(game_id, seats[seat].token, move, request_id=request_id)
                last = (seats[seat].token, move, request_id, answer)
            assert view.status == game_pb2.GAME_STATUS_FINISHED and last is not None
            for key in (game_key, log_key, presence_key):
                assert RETENTION_S - 60 <= raw.ttl(key(game_id)) <= RETENTION_S, key.__name__
            assert DAY_S - 60 <= raw.ttl(requests_key(game_id)) <= DAY_S
            # Within the day, a retry of the finishing move is answered as the first time.
            token, move, request_id, first = last
            again = await client.move(game_id, token, move, request_id=request_id)
            assert again == first

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server, redis.Redis.from_url(server.url) as raw:
        run(scenario(server.url, raw))
