"""Through the real service: whichever Staff a seat takes in The Spin Doctors, a ready-made one
or its own, the other seats and spectators receive the same views, history, stream and versions.
(A ready-made Staff once showed them `staff_count` jumping from 1 to 7 in one version, where a
Staff chosen Staffer by Staffer took six.) The module uses only the public API, so it runs
unchanged against any version of the engine."""

from __future__ import annotations

import json
from typing import Any, Callable

import grpc
import pytest
import requests

from conftest import run, running_replica
from hustings.client import Client, HustingsError
from rest_helpers import LiveRest, SseReader
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2, spin_doctors_pb2

SEED = "5d" * 32
MAX_CHOOSING_MOVES = 40  # 3 seats: at most 7 choices each while choosing


def _staff_choices(view: game_pb2.GameView) -> list[game_pb2.Move]:
    return [m for m in view.legal_moves if m.spin_doctors.WhichOneof("kind") != "hand_budget"]


def _seen(view: game_pb2.GameView) -> tuple[Any, ...]:
    """What a view says about the game itself (not its id, seats or clocks)."""
    return view.version, view.status, tuple(view.to_act), tuple(m.SerializeToString() for m in view.legal_moves), view.spin_doctors


async def _play_choosing(client: Client, pick: Callable[[list[game_pb2.Move]], game_pb2.Move]) -> dict[str, Any]:
    """A game where seat 0 takes the Staff ``pick`` chooses from its list and every other choice
    is the first listed one; what seat 1 and a spectator receive until the choosing is over."""
    created = await client.create_game("spin_doctors", 3, seed=SEED)
    seats = [await client.join(created.game_id, f"P{i}") for i in range(3)]
    game_id = created.game_id
    observers = {"seat 1": seats[1].token, "spectator": None}
    views: dict[str, list[Any]] = {name: [] for name in observers}
    chosen = False
    for _ in range(MAX_CHOOSING_MOVES):
        table = await client.view(game_id)
        if table.spin_doctors.phase != spin_doctors_pb2.SPIN_DOCTORS_PHASE_CHOOSING:
            break
        seat = 0 if 0 in table.to_act and not chosen else min(table.to_act)
        mine = await client.view(game_id, seats[seat].token)
        move = pick(_staff_choices(mine)) if seat == 0 and not chosen else _staff_choices(mine)[0]
        chosen = chosen or seat == 0
        await client.move(game_id, seats[seat].token, move, expected_version=mine.version)
        for name, token in observers.items():
            views[name].append(_seen(await client.view(game_id, token)))
    else:
        raise AssertionError("the choosing did not end")
    received: dict[str, Any] = {"views": views}
    for name, token in observers.items():
        history = await client.history(game_id, token)
        received[f"{name} history"] = [e.SerializeToString(deterministic=True) for e in history]
        async for update in client.watch(game_id, token, 0):
            received[f"{name} watch"] = ([e.SerializeToString(deterministic=True) for e in update.entries], _seen(update.view))
            break  # everything so far arrives in the first update
    return received


def test_a_ready_made_staff_looks_like_any_other_to_the_table(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica, Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
            ready_made = await _play_choosing(client, lambda staffs: staffs[0])
            own_choice = await _play_choosing(client, lambda staffs: staffs[-1])
            for name in ("seat 1", "spectator"):
                assert ready_made["views"][name] == own_choice["views"][name], f"{name}'s views tell the Staffs apart"
                assert ready_made[f"{name} history"] == own_choice[f"{name} history"], f"{name}'s history tells them apart"
                assert ready_made[f"{name} watch"] == own_choice[f"{name} watch"], f"{name}'s stream tells them apart"

    run(scenario())


def _rest_seen(view: dict[str, Any]) -> tuple[Any, ...]:
    """What a JSON view says about the game itself (not its id, seats or clocks)."""
    return view["version"], view["status"], view.get("toAct", []), view.get("legalMoves", []), view["spinDoctors"]


def _rest_choosing(live: LiveRest, pick: Callable[[list[Any]], Any]) -> dict[str, Any]:
    """As ``_play_choosing``, over REST/JSON, with the Server-Sent-Events stream of WatchGame."""
    game_id = live.ok("POST", "/v1/games", {"kind": "spin_doctors", "options": {"players": 3}, "seed": SEED})["gameId"]
    tokens = [live.ok("POST", f"/v1/games/{game_id}:join", {"displayName": f"P{i}"})["seatToken"] for i in range(3)]
    observers = {"seat 1": tokens[1], "spectator": None}
    received: dict[str, Any] = {name: [] for name in observers}
    chosen = False
    for number in range(MAX_CHOOSING_MOVES):
        table = live.ok("GET", f"/v1/games/{game_id}/view")["view"]
        if table["spinDoctors"]["phase"] != "SPIN_DOCTORS_PHASE_CHOOSING":
            break
        seat = 0 if 0 in table["toAct"] and not chosen else min(table["toAct"])
        mine = live.ok("GET", f"/v1/games/{game_id}/view", token=tokens[seat])["view"]
        choices = [m for m in mine["legalMoves"] if "handBudget" not in m["spinDoctors"]]
        move = pick(choices) if seat == 0 and not chosen else choices[0]
        chosen = chosen or seat == 0
        body = {"move": move, "requestId": f"r{number}", "expectedVersion": mine["version"]}
        live.ok("POST", f"/v1/games/{game_id}/moves", body, token=tokens[seat])
        for name, token in observers.items():
            received[name].append(_rest_seen(live.ok("GET", f"/v1/games/{game_id}/view", token=token)["view"]))
    else:
        raise AssertionError("the choosing did not end")
    for name, token in observers.items():
        received[f"{name} history"] = live.ok("GET", f"/v1/games/{game_id}/history", token=token)["entries"]
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        with requests.get(f"{live.base_url}/v1/games/{game_id}:watch", headers=headers, stream=True, timeout=20) as response:
            (first,) = SseReader(response).events(1)
        update = json.loads(first["data"])
        received[f"{name} stream"] = (first["id"], update["entries"], _rest_seen(update["view"]))
    return received


def test_a_ready_made_staff_looks_like_any_other_over_rest_and_sse(redis_server: EmbeddedRedis) -> None:
    with LiveRest(redis_server.url, allow_client_seed=True) as live:
        ready_made = _rest_choosing(live, lambda staffs: staffs[0])
        own_choice = _rest_choosing(live, lambda staffs: staffs[-1])
    assert ready_made["seat 1"], "no move was made"
    for key in ready_made:
        assert ready_made[key] == own_choice[key], f"{key} tells a ready-made Staff from another"


def test_a_staff_of_the_wrong_shape_is_refused_through_the_service(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica, Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
            created = await client.create_game("spin_doctors", 3, seed=SEED)
            seats = [await client.join(created.game_id, f"P{i}") for i in range(3)]
            before = await client.view(created.game_id, seats[0].token)
            move = game_pb2.Move()
            move.spin_doctors.choose_staff.staffers.extend([3, 5, 6, 9, 10])
            with pytest.raises(HustingsError) as error:
                await client.move(created.game_id, seats[0].token, move)
            assert error.value.reason == "BAD_STAFF"
            assert error.value.code == grpc.StatusCode.INVALID_ARGUMENT  # malformed, as Stimmvieh's BAD_TOP_CANDIDATES
            after = await client.view(created.game_id, seats[0].token)
            assert after.version == before.version and list(after.spin_doctors.players[0].staff) == [0]  # the Candidate alone

    run(scenario())
