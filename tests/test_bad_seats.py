"""A seat number out of range is bad input: JoinGame and TakeOverSeat refuse it INVALID_ARGUMENT
``BAD_SEAT`` (HTTP 400 over REST), naming the seats there are, and the game is left as it was
(its view, its lobby entry). A seat in range that cannot be had is refused as the proto's
comments on the two ``seat`` fields say: FAILED_PRECONDITION ``SEAT_TAKEN`` for a join,
``SEAT_NOT_ABSENT`` for a takeover of a seat whose player is there. Real Redis, a real replica
on both faces."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any, Awaitable, Callable

import grpc
import pytest

from hustings.client import Client, HustingsError
from rest_helpers import LiveRest

PLAYERS = 3
OUT_OF_RANGE = (PLAYERS, -1, 2**31 - 1)  # -1 would name the last seat, were it taken as an index


def _state(live: LiveRest, game_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The game's view as a spectator gets it (less who is present, which lapses with time), and
    its lobby entry."""
    view = live.ok("GET", f"/v1/games/{game_id}/view")["view"]
    for seat in view["seats"]:
        seat.pop("present", None)
    listed = [g for g in live.ok("GET", "/v1/games", params={"kind": "stimmvieh"})["games"] if g["gameId"] == game_id]
    return view, listed


def _refusals(
    live: LiveRest, game_id: str, verb: str, body: dict[str, Any], call: Callable[[Client, int], Awaitable[Any]], held: int, held_reason: str
) -> None:
    """``POST :verb`` with ``body`` and each seat out of range over REST, then ``call`` over gRPC:
    every one refused BAD_SEAT; then the seat ``held`` (in range, not to be had) on both faces,
    refused FAILED_PRECONDITION ``held_reason``; and the game as it was."""
    before = _state(live, game_id)
    for seat in OUT_OF_RANGE:
        refused = live.call("POST", f"/v1/games/{game_id}:{verb}", {**body, "seat": seat, "requestId": str(uuid.uuid4())})
        assert refused.status_code == 400, (seat, refused.status_code, refused.text)
        (info,) = refused.json()["details"]
        assert info["reason"] == "BAD_SEAT", (seat, info)
        assert f"0 to {PLAYERS - 1}" in refused.json()["message"]
    refused = live.call("POST", f"/v1/games/{game_id}:{verb}", {**body, "seat": held, "requestId": str(uuid.uuid4())})
    assert (refused.status_code, refused.json()["details"][0]["reason"]) == (400, held_reason), refused.text

    async def over_grpc() -> list[tuple[grpc.StatusCode, str]]:
        assert live.replica is not None
        answers = []
        async with Client(f"127.0.0.1:{live.replica.port}") as client:
            for seat in (*OUT_OF_RANGE, held):
                with pytest.raises(HustingsError) as error:
                    await call(client, seat)
                answers.append((error.value.code, error.value.reason))
        return answers

    bad = [(grpc.StatusCode.INVALID_ARGUMENT, "BAD_SEAT")] * len(OUT_OF_RANGE)
    assert asyncio.run(over_grpc()) == [*bad, (grpc.StatusCode.FAILED_PRECONDITION, held_reason)]
    assert _state(live, game_id) == before


def test_join_with_a_seat_out_of_range_or_taken_is_refused_and_changes_nothing(live: LiveRest) -> None:
    game_id = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": PLAYERS}})["gameId"]
    live.ok("POST", f"/v1/games/{game_id}:join", {"displayName": "Ada", "seat": 0, "requestId": str(uuid.uuid4())})
    _refusals(live, game_id, "join", {"displayName": "Bo"}, lambda client, seat: client.join(game_id, "Bo", seat=seat), 0, "SEAT_TAKEN")


def test_take_over_of_a_seat_out_of_range_or_present_is_refused_and_changes_nothing(live: LiveRest) -> None:
    table = {"allowTakeover": True}
    game_id = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": PLAYERS}, "table": table})["gameId"]
    for seat in range(PLAYERS):
        live.ok("POST", f"/v1/games/{game_id}:join", {"displayName": f"Player {seat}", "seat": seat, "requestId": str(uuid.uuid4())})
    assert _state(live, game_id)[0]["status"] == "GAME_STATUS_ACTIVE"  # a running game: seats may be taken over
    _refusals(live, game_id, "takeOver", {"displayName": "Cy"}, lambda client, seat: client.take_over(game_id, seat, "Cy"), 1, "SEAT_NOT_ABSENT")
