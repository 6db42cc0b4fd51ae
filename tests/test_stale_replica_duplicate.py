"""A request id's first answer goes only to a token that holds the seat in the latest state,
whatever state the call that finds it decided on.

Move request ids are kept per seat, not per holder. A replica that last read a game while Ada
held seat 0 still takes her token there; after she left and Dee took the seat over elsewhere,
Ada sending Dee's request id with Dee's move met Dee's recorded request before the version
check, and was answered with Dee's own events (a Stimmvieh seat's face-down top candidates,
before the reveal); a wrong guess said REQUEST_ID_REUSED, so the 126 choices could be tried in
turn. The same came of a fresh read that another replica's takeover and move overtook before the
call's commit (answered DUPLICATE) or before its refusal looked the request id up. The token is
now checked against the latest state first whenever the answer recorded is newer than the state
the call holds."""

from __future__ import annotations

from typing import Any, Awaitable, Callable

import pytest

from conftest import run
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.errors import ServiceError
from hustings.service.host import GameHost
from hustings.service.notifier import Notifier
from hustings.service.server_secret import Keys
from hustings.service.store import Store
from hustings.v1 import game_pb2, game_service_pb2

SECRET = b"stale-replica-secret-0123456789ab"
DEE_REQUEST = "dee-campaign-choice-0001"


def _host(url: str) -> GameHost:
    """A replica's host without its background loops: nothing refreshes its cache by itself."""
    store = Store.from_url(url)
    return GameHost(store, Notifier(store.client), keys=Keys(SECRET))


def _choice(influences: list[int]) -> game_pb2.Move:
    move = game_pb2.Move()
    move.stimmvieh.choose_top_candidates.influences.extend(influences)
    return move


async def _table_with_ada(current: GameHost) -> tuple[str, list[str]]:
    create = game_service_pb2.CreateGameRequest(kind="stimmvieh", options=game_pb2.GameOptions(players=3))
    create.table.allow_takeover = True
    game_id = (await current.create_game(create)).game_id
    tokens = [
        (await current.join_game(game_service_pb2.JoinGameRequest(game_id=game_id, display_name=name))).seat_token
        for name in ("Ada", "Bo", "Cy")
    ]
    return game_id, tokens


def test_a_former_holder_on_a_stale_replica_gets_no_answer_of_the_new_holder(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        stale, current = _host(redis_server.url), _host(redis_server.url)
        game_id, tokens = await _table_with_ada(current)
        seen = await stale.get_view(game_id, tokens[0])  # the stale replica now holds Ada at seat 0
        assert seen.HasField("seat") and seen.seat == 0 and seen.status == game_pb2.GAME_STATUS_ACTIVE
        await current.leave_game(game_id, tokens[0])
        dee = await current.take_over_seat(
            game_service_pb2.TakeOverSeatRequest(game_id=game_id, seat=0, display_name="Dee", request_id="dee-takes-seat-0-0001")
        )
        dee_move = game_service_pb2.SubmitMoveRequest(game_id=game_id, move=_choice([2, 5, 7, 9]), request_id=DEE_REQUEST)
        answered = await current.submit_move(dee_move, dee.seat_token)
        assert answered.events, "Dee's answer carries her choice"
        for guess in ([1, 2, 3, 4], [2, 5, 7, 9]):  # a wrong guess, then Dee's very move
            probe = game_service_pb2.SubmitMoveRequest(game_id=game_id, move=_choice(guess), request_id=DEE_REQUEST)
            with pytest.raises(ServiceError) as refused:
                await stale.submit_move(probe, tokens[0])
            assert refused.value.reason == "INVALID_SEAT_TOKEN", (guess, refused.value.reason)
        # Dee's own retry on the stale replica still gets her first answer.
        assert await stale.submit_move(dee_move, dee.seat_token) == answered

    run(scenario())


def _overtaken(current: GameHost, game_id: str, ada: str, step: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """``step`` (a store call of Ada's replica, on the real Redis) that another replica overtakes
    the first time: Ada leaves, Dee takes her seat over and moves with DEE_REQUEST."""
    done: list[bool] = []

    async def overtaken(*args: Any, **kwargs: Any) -> Any:
        if not done:
            done.append(True)
            await current.leave_game(game_id, ada)
            dee = await current.take_over_seat(
                game_service_pb2.TakeOverSeatRequest(game_id=game_id, seat=0, display_name="Dee", request_id="dee-takes-seat-0-0001")
            )
            move = game_service_pb2.SubmitMoveRequest(game_id=game_id, move=_choice([2, 5, 7, 9]), request_id=DEE_REQUEST)
            await current.submit_move(move, dee.seat_token)
        return await step(*args, **kwargs)

    return overtaken


@pytest.mark.parametrize("guess", [[2, 5, 7, 9], [1, 2, 3, 4]])
def test_a_fresh_read_overtaken_before_its_commit_gets_no_answer_of_the_new_holder(redis_server: EmbeddedRedis, guess: list[int]) -> None:
    async def scenario() -> None:
        ada_side, current = _host(redis_server.url), _host(redis_server.url)
        game_id, tokens = await _table_with_ada(current)
        assert game_id not in ada_side._cache  # Ada's replica reads the game fresh
        ada_side.store.commit = _overtaken(current, game_id, tokens[0], ada_side.store.commit)  # type: ignore[method-assign]
        probe = game_service_pb2.SubmitMoveRequest(game_id=game_id, move=_choice(guess), request_id=DEE_REQUEST)
        with pytest.raises(ServiceError) as refused:
            await ada_side.submit_move(probe, tokens[0])
        assert refused.value.reason == "INVALID_SEAT_TOKEN", refused.value.reason

    run(scenario())


def test_a_refusal_overtaken_before_it_looks_the_request_up_gets_no_answer_of_the_new_holder(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        ada_side, current = _host(redis_server.url), _host(redis_server.url)
        game_id, tokens = await _table_with_ada(current)
        ada_side.store.recorded = _overtaken(current, game_id, tokens[0], ada_side.store.recorded)  # type: ignore[method-assign]
        probe = game_service_pb2.SubmitMoveRequest(game_id=game_id, move=_choice([2, 5, 7, 9]), request_id=DEE_REQUEST, expected_version=0)
        with pytest.raises(ServiceError) as refused:  # refused STALE_VERSION on a fresh read, then the request id looked up
            await ada_side.submit_move(probe, tokens[0])
        assert refused.value.reason == "INVALID_SEAT_TOKEN", refused.value.reason

    run(scenario())
