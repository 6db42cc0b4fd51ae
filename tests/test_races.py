"""Races between replicas, and between one replica's own calls, on one game: a move of a seat's
old token that waited for the game's lock behind a TakeOverSeat of that seat (it was applied to
the new holder's seat), and a next game that PlayAgain made again under the id of one that
expired, which a replica holding the expired one's copy at the same version answered and wrote
over. Real replicas on one real Redis, real gRPC."""

from __future__ import annotations

import asyncio
import contextlib
import time

import grpc
import pytest

from conftest import run
from service_helpers import choose_top_candidates, replica_and_client, stimmvieh_options
from hustings.client import Client, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2, game_service_pb2

ROUNDS = 10


async def _create(client: Client, players: int = 3, **table: object) -> str:
    request = game_service_pb2.CreateGameRequest(kind="stimmvieh", options=stimmvieh_options(players))
    request.table.CopyFrom(game_pb2.TableSettings(**table))  # type: ignore[arg-type]
    return (await client.stub.CreateGame(request)).game_id


def test_a_move_racing_a_take_over_of_its_seat_is_refused(redis_server: EmbeddedRedis) -> None:
    """Ada left (absent); Cy takes her seat over while Ada's move is in flight on the same
    replica. Either Ada's move lands first (then Cy takes over after it) or it is refused
    INVALID_SEAT_TOKEN: never is it applied to the seat once Cy holds it."""

    async def scenario() -> list[str]:
        wrong: list[str] = []
        # Bots hold seats 1 and 2: once Ada leaves, bots decide for every seat and the table is
        # paced, so her choice is still owed when the two calls arrive.
        async with replica_and_client(redis_server.url, unattended_decisions_per_second=0.5) as (_, client):
            for round_ in range(ROUNDS):
                game_id = await _create(client, allow_takeover=True, bot_seats=[1, 2], bot_level="random")
                ada = await client.join(game_id, "Ada")
                await client.leave(game_id, ada.token)
                request = game_service_pb2.TakeOverSeatRequest(
                    game_id=game_id, seat=ada.seat, display_name="Cy", request_id=f"take-over-{round_}-5e1d0c9a7b"
                )
                taken, moved = await asyncio.gather(
                    client.stub.TakeOverSeat(request),
                    client.move(game_id, ada.token, choose_top_candidates(1, 2, 3, 4)),
                    return_exceptions=True,
                )
                assert isinstance(taken, game_service_pb2.TakeOverSeatResponse), taken
                history = await client.history(game_id)
                took = next(h.version for h in history if any(
                    e.HasField("seat_changed") and e.seat_changed.change == game_pb2.SeatChanged.CHANGE_TAKEN_OVER for e in h.events))
                if isinstance(moved, HustingsError):
                    assert moved.code == grpc.StatusCode.UNAUTHENTICATED, moved
                    continue
                assert not isinstance(moved, BaseException), moved
                if moved.version > took:
                    wrong.append(f"round {round_}: Ada's move made version {moved.version}, after Cy took the seat at {took}")
        return wrong

    wrong = run(scenario(), timeout_s=60)
    assert not wrong, wrong


FINISH_TIMEOUT_S = 40.0
POLL_S = 0.05


async def _until(client: Client, game_id: str, status: int) -> None:
    deadline = time.monotonic() + FINISH_TIMEOUT_S
    while (await client.view(game_id)).status != status:
        assert time.monotonic() < deadline, f"game {game_id} did not reach status {status} in time"
        await asyncio.sleep(POLL_S)


@pytest.mark.usefixtures("quick_bots")  # the bots' game only sets the scene
def test_a_next_game_made_again_is_not_answered_from_a_replicas_copy_of_its_expired_namesake(redis_server: EmbeddedRedis) -> None:
    """Ada and Bo finish a table (a bot in seat 2; its next games wait one second for players).
    Ada plays again through replica A and sits in seat 0 of the next game N, which expires.
    Later Bo plays again through replica B: N is made again under the same id, and Bo sits in
    seat 0. Replica A, which still holds its copy of the first N at the same version, must show
    Bo in seat 0, and Cy joining through A must not bring back the expired N (Ada's seat, its
    seed) over Bo's."""

    async def scenario() -> None:
        table = game_pb2.TableSettings(open_seconds=1)
        table.bot_seats.append(2)
        async with replica_and_client(redis_server.url) as (_, a), replica_and_client(redis_server.url) as (_, b):
            created = await a.create_game("stimmvieh", 3, stimmvieh_options(3), table=table)
            finished = created.game_id
            ada, bo = [await a.join(finished, name, seat=s) for s, name in ((0, "Ada"), (1, "Bo"))]
            for player in (ada, bo):
                await a.leave(finished, player.token)
            await _until(a, finished, game_pb2.GAME_STATUS_FINISHED)

            next_id = (await a.play_again(finished, ada.token)).game_id
            first = await a.join(next_id, "Ada", seat=0)
            assert (await a.view(next_id, first.token)).seats[0].display_name == "Ada"
            deadline = time.monotonic() + 10
            while True:  # N waits a second for players, then expires
                with contextlib.suppress(HustingsError):
                    await b.view(next_id)
                    assert time.monotonic() < deadline, "the next game did not expire"
                    await asyncio.sleep(POLL_S * 4)
                    continue
                break

            again = await b.play_again(finished, bo.token)
            assert again.game_id == next_id and again.view.version == 1
            bo_next = await b.join(next_id, "Bo", seat=0)
            made_again = await b.view(next_id)
            assert made_again.seats[0].display_name == "Bo"

            seen_on_a = await a.view(next_id)
            problems = []
            if seen_on_a.seats[0].display_name != "Bo" or seen_on_a.seed_commitment != made_again.seed_commitment:
                problems.append(f"A shows seat 0 as {seen_on_a.seats[0].display_name!r}, commitment same: {seen_on_a.seed_commitment == made_again.seed_commitment}")
            await a.join(next_id, "Cy", seat=1)
            stored = await b.view(next_id)
            if stored.seats[0].display_name != "Bo" or stored.seed_commitment != made_again.seed_commitment:
                problems.append(f"after Cy's join through A, seat 0 is {stored.seats[0].display_name!r} and the commitment changed: {stored.seed_commitment != made_again.seed_commitment}")
            try:
                await b.view(next_id, bo_next.token)
            except HustingsError as error:
                problems.append(f"Bo's seat token is refused: {error.reason}")
            assert not problems, problems

    run(scenario(), timeout_s=90)
