"""Guards of the seat lifecycle that keep players from each other and a game consistent: a move of
a seat's old token decided on a replica's stale copy after another replica handed the seat to a
newcomer; leaving an open game, and a retried join once its seat is another's; leaving,
returning and taking over in a finished game; taking over in an open game; a retried
TakeOverSeat once the seat has been taken over again; the lobby's filing of a game that its
bots finish; a move decided on a stale copy, committed on the latest state. Real replicas on
one real Redis, real gRPC."""

from __future__ import annotations

import asyncio
import time

import grpc
import pytest

from conftest import run
from service_helpers import choose_top_candidates, replica_and_client, stimmvieh_options
from hustings.client import Client, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2, game_service_pb2

MAX_STEPS = 400
PLAY_TIMEOUT_S = 30.0
POLL_S = 0.02


async def _create(client: Client, players: int = 3, **table: object) -> str:
    request = game_service_pb2.CreateGameRequest(kind="stimmvieh", options=stimmvieh_options(players))
    request.table.CopyFrom(game_pb2.TableSettings(**table))  # type: ignore[arg-type]
    return (await client.stub.CreateGame(request)).game_id


async def _refused(call: "asyncio.Future[object] | object") -> HustingsError:
    with pytest.raises(HustingsError) as caught:
        await call  # type: ignore[misc]
    return caught.value


def test_an_old_token_moving_on_a_stale_copy_after_a_take_over_elsewhere_is_refused(redis_server: EmbeddedRedis) -> None:
    """Ada joins and leaves through replica A, which keeps its copy of the game; Cy takes her
    seat over through replica B. Ada's move through A is decided on A's copy (where her token
    still holds the seat), its commit meets B's newer version, and the game read again shows the
    seat is Cy's: the move is refused INVALID_SEAT_TOKEN, never applied to Cy's seat."""

    async def scenario() -> None:
        # Bots hold seats 1 and 2 and decide slowly once nobody is at the table: Ada's choice
        # is still owed when she moves.
        slow = {"unattended_decisions_per_second": 0.5}
        async with replica_and_client(redis_server.url, **slow) as (_, a), replica_and_client(redis_server.url, **slow) as (_, b):
            game_id = await _create(a, allow_takeover=True, bot_seats=[1, 2], bot_level="random")
            ada = await a.join(game_id, "Ada")
            await a.leave(game_id, ada.token)
            cy = await b.take_over(game_id, ada.seat, "Cy", request_id="take-over-5e1d0c9a7b3f4e21")
            before = await b.view(game_id)
            error = await _refused(a.move(game_id, ada.token, choose_top_candidates(1, 2, 3, 4)))
            assert error.code == grpc.StatusCode.UNAUTHENTICATED and error.reason == "INVALID_SEAT_TOKEN", error
            history = await b.history(game_id)
            moved_after = [h.version for h in history if h.version > before.version and h.seat == cy.seat and h.HasField("move")]
            assert not moved_after, f"a move was applied to Cy's seat at versions {moved_after}"
            mine = await b.view(game_id, cy.token)
            assert mine.seats[cy.seat].display_name == "Cy"

    run(scenario(), timeout_s=60)


async def _play_out(client: Client, game_id: str, tokens: dict[int, str]) -> game_pb2.GameView:
    """Play the first legal move of each seat in ``tokens`` whenever it is to act, waiting for
    the bots otherwise, until the game ends (bounded in steps and time)."""
    deadline = time.monotonic() + PLAY_TIMEOUT_S
    for _ in range(MAX_STEPS):
        assert time.monotonic() < deadline, "the game did not end in time"
        view = await client.view(game_id)
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            return view
        mine = [seat for seat in view.to_act if seat in tokens]
        if not mine:
            await asyncio.sleep(POLL_S)
            continue
        seat = min(mine)
        seen = await client.view(game_id, tokens[seat])
        try:
            await client.move(game_id, tokens[seat], seen.legal_moves[0], expected_version=seen.version)
        except HustingsError as error:
            if error.reason not in ("STALE_VERSION", "NOT_YOUR_TURN"):  # a bot stepped meanwhile
                raise
    raise AssertionError("the game did not end within the step bound")


def test_a_finished_game_takes_no_leave_return_or_take_over(redis_server: EmbeddedRedis) -> None:
    """Ada plays a table to its end with a bot (seat 2) and Bo, who left (absent: his bot
    played). Then Ada cannot leave, Bo cannot return, and nobody can take over Bo's seat or the
    bot's: each is refused and the finished game keeps its version."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_, client):
            game_id = await _create(client, allow_takeover=True, bot_seats=[2], bot_level="random")
            ada = await client.join(game_id, "Ada", seat=0)
            bo = await client.join(game_id, "Bo", seat=1)
            await client.leave(game_id, bo.token)
            finished = await _play_out(client, game_id, {ada.seat: ada.token})
            version = finished.version
            assert finished.seats[bo.seat].absent

            refusals = {
                "leave": await _refused(client.leave(game_id, ada.token)),
                "return": await _refused(client.return_to_game(game_id, bo.token)),
                "take over the absent seat": await _refused(client.take_over(game_id, bo.seat, "Cy", request_id="take-over-absent-9b2c41e7d05a")),
                "take over the bot's seat": await _refused(client.take_over(game_id, 2, "Di", request_id="take-over-bot-3f8a6d20c1e9")),
            }
            wrong = {what: error.reason for what, error in refusals.items() if error.code != grpc.StatusCode.FAILED_PRECONDITION}
            assert not wrong, wrong
            assert refusals["leave"].reason == refusals["return"].reason == "GAME_OVER", refusals
            assert {refusals["take over the absent seat"].reason, refusals["take over the bot's seat"].reason} == {"GAME_NOT_ACTIVE"}
            after = await client.view(game_id)
            assert after.version == version and after.status == game_pb2.GAME_STATUS_FINISHED
            assert after.seats[bo.seat].absent and after.seats[bo.seat].display_name == "Bo"

    run(scenario(), timeout_s=60)


def test_an_open_games_bot_seat_cannot_be_taken_over(redis_server: EmbeddedRedis) -> None:
    """A bot added to an open table holds its seat until the game runs: TakeOverSeat is for a
    running game's seats, and refuses with GAME_NOT_ACTIVE."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_, client):
            game_id = await _create(client, allow_takeover=True)
            await client.stub.AddBot(game_service_pb2.AddBotRequest(game_id=game_id, seat=1, level="random"))
            version = (await client.view(game_id)).version
            error = await _refused(client.take_over(game_id, 1, "Cy", request_id="take-over-open-7c1e5a9d2b40"))
            assert error.code == grpc.StatusCode.FAILED_PRECONDITION and error.reason == "GAME_NOT_ACTIVE", error
            view = await client.view(game_id)
            assert view.version == version and view.seats[1].bot and view.status == game_pb2.GAME_STATUS_OPEN

    run(scenario(), timeout_s=30)


def test_a_retried_take_over_after_the_seat_was_taken_over_again_gives_no_token(redis_server: EmbeddedRedis) -> None:
    """Cy takes over Ada's absent seat, leaves, and Di takes it over. Cy's TakeOverSeat sent
    again with its request id does not answer as if the seat were still Cy's: it is refused
    SEAT_TOKEN_REPLACED (Di holds the seat) and changes nothing."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, unattended_decisions_per_second=0.5) as (_, client):
            game_id = await _create(client, allow_takeover=True, bot_seats=[1, 2], bot_level="random")
            ada = await client.join(game_id, "Ada")
            await client.leave(game_id, ada.token)
            cy_request = "take-over-cy-0d4e7b91a2c6f358"
            cy = await client.take_over(game_id, ada.seat, "Cy", request_id=cy_request)
            await client.leave(game_id, cy.token)
            di = await client.take_over(game_id, ada.seat, "Di", request_id="take-over-di-6a3f0c8e2d1b7594")
            version = (await client.view(game_id)).version
            error = await _refused(client.take_over(game_id, ada.seat, "Cy", request_id=cy_request))
            assert error.code == grpc.StatusCode.FAILED_PRECONDITION and error.reason == "SEAT_TOKEN_REPLACED", error
            mine = await client.view(game_id, di.token)
            assert mine.seats[ada.seat].display_name == "Di" and mine.version >= version

    run(scenario(), timeout_s=30)


@pytest.mark.usefixtures("quick_bots")  # the bots' game only sets the scene
def test_a_game_its_bots_finish_leaves_the_running_games_list(redis_server: EmbeddedRedis) -> None:
    """A table of bots alone plays to its end; its last step is a bot's decision, which changes
    the game's status: the lobby files the game as finished, and a ListGames of running games no
    longer lists it."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_, client):
            game_id = await _create(client, bot_seats=[0, 1, 2], bot_level="random")
            deadline = time.monotonic() + PLAY_TIMEOUT_S
            while (await client.view(game_id)).status != game_pb2.GAME_STATUS_FINISHED:
                assert time.monotonic() < deadline, "the bots did not finish the game in time"
                await asyncio.sleep(POLL_S * 5)
            listed = {}
            for status in (game_pb2.GAME_STATUS_ACTIVE, game_pb2.GAME_STATUS_FINISHED):
                page = await client.stub.ListGames(game_service_pb2.ListGamesRequest(kind="stimmvieh", status=status, page_size=50))
                listed[status] = [game.game_id for game in page.games]
            assert game_id not in listed[game_pb2.GAME_STATUS_ACTIVE], listed
            assert game_id in listed[game_pb2.GAME_STATUS_FINISHED], listed

    run(scenario(), timeout_s=60)


def test_a_move_decided_on_a_stale_copy_commits_once_on_the_latest_state(redis_server: EmbeddedRedis) -> None:
    """Ada, Bo and Cy choose at the same time. Bo's choice goes through replica B while replica
    A still holds its copy of the game from before it; Ada's choice then goes through A, in one
    call that the client does not repeat. A decides on its copy, the commit finds the game has
    moved on, and A decides again on the latest state: one answer, at the version after Bo's,
    and both choices are in the log once each."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_, a), replica_and_client(redis_server.url) as (_, b):
            game_id = await _create(a)
            ada, bo, _cy = [await a.join(game_id, name) for name in ("Ada", "Bo", "Cy")]
            started = (await a.view(game_id)).version
            bo_moved = await b.move(game_id, bo.token, choose_top_candidates(1, 2, 3, 4))
            assert bo_moved.version == started + 1
            request = game_service_pb2.SubmitMoveRequest(
                game_id=game_id, move=choose_top_candidates(1, 2, 3, 4), request_id="stale-copy-4b7e1d0a9c2f"
            )
            answer = await a.stub.SubmitMove(request, metadata=(("authorization", f"Bearer {ada.token}"),), timeout=10)
            assert answer.version == started + 2, answer
            history = await b.history(game_id)
            movers = [h.seat for h in history if h.version > started]
            assert sorted(movers) == sorted([ada.seat, bo.seat]), movers

    run(scenario(), timeout_s=30)


def test_leaving_an_open_game_frees_the_seat_and_a_retried_join_then_gives_no_token(redis_server: EmbeddedRedis) -> None:
    """Ada joins an open table in seat 0 and leaves: her token stops working and the seat is
    free, so Bo takes it. Ada's join sent again with its request id is not answered as if seat 0
    were still hers: it is refused SEAT_TOKEN_REPLACED and Bo keeps the seat."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_, client):
            game_id = await _create(client)
            ada_request = "join-ada-2c9f4e7a1b0d6385"
            ada = await client.join(game_id, "Ada", seat=0, request_id=ada_request)
            await client.leave(game_id, ada.token)
            error = await _refused(client.view(game_id, ada.token))
            assert error.code == grpc.StatusCode.UNAUTHENTICATED and error.reason == "INVALID_SEAT_TOKEN", error
            bo = await client.join(game_id, "Bo", seat=0)
            version = (await client.view(game_id)).version
            error = await _refused(client.join(game_id, "Ada", seat=0, request_id=ada_request))
            assert error.code == grpc.StatusCode.FAILED_PRECONDITION and error.reason == "SEAT_TOKEN_REPLACED", error
            view = await client.view(game_id, bo.token)
            assert view.version == version and view.seats[0].display_name == "Bo" and view.seat == 0

    run(scenario(), timeout_s=30)
