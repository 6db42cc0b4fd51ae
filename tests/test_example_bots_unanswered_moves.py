"""The example bots and a long run of moves that no server answered.

A move that comes back with a "no answer" code (UNAVAILABLE, DEADLINE_EXCEEDED, UNKNOWN,
CANCELLED; over REST also a balancer's bare 502, 503 or 504) is not the end of the bot: it watches
the game again and, the table still at that version, sends the same decision again (move, version
and request id). Here ten such answers in a row, from a proxy in front of a real replica that
answers the first ten moves itself without passing them on; the bot then plays the game to its
end. Each client makes one attempt per call, so that every one of them reaches the bot."""

from __future__ import annotations

import asyncio
import itertools
import pathlib
import random
from typing import Any

import grpc

from conftest import run
from rest_helpers import LiveRest
from service_helpers import RefusingProxy, replica_and_client
from test_example_bots_refusals import Answer, RestRefusingProxy, _refusal, _rest_game, _serving, _ts_play
from hustings.ai.example_bot import MAX_WATCHES, play
from hustings.client import ONE_ATTEMPT, Client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.errors import ServiceError
from hustings.v1 import game_pb2

UNANSWERED_IN_A_ROW = 10
# Each watch again waits a pause drawn up to 0.5 s (the stream before it brought an update).
PLAY_TIMEOUT_S = 45
assert UNANSWERED_IN_A_ROW + 5 < MAX_WATCHES  # the run does not reach the bot's own limit


# The "no answer" codes, as the bots' documentation names them (not read from the bot under test).
NO_ANSWER = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNKNOWN, grpc.StatusCode.CANCELLED)


def _no_answers() -> list[ServiceError]:
    codes = itertools.cycle(NO_ANSWER)
    return [ServiceError(code, "", "no answer") for code in itertools.islice(codes, UNANSWERED_IN_A_ROW)]


def test_the_python_bot_plays_on_after_ten_unanswered_moves_in_a_row(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (replica, client):
            table = game_pb2.TableSettings(bot_seats=[1, 2, 3], bot_level="random")
            game_id = (await client.create_game("stimmvieh", 4, table=table)).game_id
            joined = await client.join(game_id, "Ada")
            async with RefusingProxy(f"127.0.0.1:{replica.port}", _no_answers()) as proxy, \
                    Client(f"127.0.0.1:{proxy.port}", retry=ONE_ATTEMPT) as through:
                played = await asyncio.wait_for(play([through], joined, random.Random(3)), PLAY_TIMEOUT_S)
        assert played.view.status == game_pb2.GAME_STATUS_FINISHED
        assert proxy.watches >= UNANSWERED_IN_A_ROW + 1 and len(played.watched_from) == proxy.watches
        first = proxy.moves[0]
        for again in proxy.moves[1 : UNANSWERED_IN_A_ROW + 1]:  # the last of them passed through
            assert (again.request_id, again.expected_version, again.move) == (first.request_id, first.expected_version, first.move)
        assert played.decided and len(proxy.moves) > UNANSWERED_IN_A_ROW + 1  # it played on after the run

    run(scenario(), timeout_s=PLAY_TIMEOUT_S + 15)


def _bare(status: int) -> Answer:
    """A balancer's own answer: a status and a line of text, no google.rpc.Status."""
    return status, {"Content-Type": "text/plain"}, f"{status} from the balancer".encode()


def test_the_typescript_bot_plays_on_after_ten_unanswered_moves_in_a_row(typescript_dist: pathlib.Path, redis_server: EmbeddedRedis) -> None:
    answers = [_refusal(error) for error in _no_answers()[:6]] + [_bare(s) for s in (502, 503, 504, 502)]
    assert len(answers) == UNANSWERED_IN_A_ROW
    with LiveRest(redis_server.url) as live:
        game_id, (ada,) = _rest_game(live, [1, 2, 3], ["Ada"])
        with _serving(RestRefusingProxy(live, move_refusals=answers)) as proxy:
            played: dict[str, Any] = _ts_play(typescript_dist, proxy, ada, game_id)
        assert played.get("status") == game_pb2.GAME_STATUS_FINISHED, played
        assert proxy.watches >= UNANSWERED_IN_A_ROW + 1 and len(played["watchedFrom"]) == proxy.watches
        bodies = [body for _at, body in proxy.moves]
        assert all(body == bodies[0] for body in bodies[: UNANSWERED_IN_A_ROW + 1])  # move, version and request id
        assert played["decided"] >= 1 and len(bodies) > UNANSWERED_IN_A_ROW + 1
