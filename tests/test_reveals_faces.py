"""What the REST/JSON face and the refusals of SubmitMove tell the others of one seat's secret
choice, played through a real replica (real Redis, gRPC and HTTP on loopback).

One fixed deal of each game is played twice, identical up to a secret decision of one seat, made
two ways that the rules say the table cannot tell apart (equal ``secret_footprint``). Beside the
gRPC reads that tests/test_review_hidden.py compares, everything the spectator and every other
seat then receive must be the same bytes in both branches (less the game's own id and seed
commitment, which each branch has of its own):

- GET .../view, GET .../history (a whole page and a page of one step) and the first event of
  GET ...:watch as the REST face writes them, their lengths included;
- whether each other seat's attempt to make either of the two choices itself, and then a move
  it may make, is taken, or its refusal's code, reason and message: a refusal that depended on
  the secret (a choice "already made", a card "not available") would tell it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest
import requests

from hustings.client import Client, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2
from rest_helpers import CALL_TIMEOUT_S, LiveRest
from test_review_hidden import SecretPoint, _secret_point

DECISIONS = [
    # kind, players, deal, decision: one of each game's simultaneous or face-down choices
    ("stimmvieh", 4, bytes([3]) * 32, "ChooseTopCandidates"),
    ("spin_doctors", 3, bytes([7]) * 32, "PlayStaffer"),
    ("wahlspiel", 3, bytes([4]) * 32, "SendRunoffVoter"),
]


def _sse_first_event(live: LiveRest, game_id: str, token: str | None, from_version: int) -> bytes:
    """The raw bytes of the first event of a REST event stream from ``from_version``."""
    headers = {"Accept": "text/event-stream"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    url = f"{live.base_url}/v1/games/{game_id}:watch?fromVersion={from_version}"
    with requests.get(url, headers=headers, stream=True, timeout=CALL_TIMEOUT_S) as response:
        assert response.status_code == 200, response.text
        raw = b""
        for chunk in response.iter_content(chunk_size=None):
            raw += chunk
            # An event ends at a blank line; comments (keepalives) and a lone retry field are
            # not updates.
            events = [e for e in raw.split(b"\n\n")[:-1] if b"data:" in e]
            if events:
                return events[0]
            assert len(raw) < 1 << 22, "no event in 4 MiB of the stream"
    raise AssertionError("the stream ended before its first event")


def _neutral(raw: bytes, game_id: str, commitment: str) -> bytes:
    """``raw`` with the branch's own game id and seed commitment (equal lengths in every branch)
    replaced, so that two branches compare byte for byte, lengths included."""
    return raw.replace(game_id.encode(), b"<game>").replace(commitment.encode(), b"<commitment>")


async def _attempt(client: Client, game_id: str, token: str, move: game_pb2.Move) -> tuple[Any, ...]:
    """What a seat is told of its attempt to make ``move``: a refusal's code, reason and message,
    or that it was taken."""
    try:
        await client.move(game_id, token, move)
    except HustingsError as refusal:
        assert refusal.code != grpc.StatusCode.UNAVAILABLE, refusal
        return (refusal.code.name, refusal.reason, refusal.message)
    return ("taken",)


def _branch(live: LiveRest, client: Client, kind: str, players: int, seed: bytes, point: SecretPoint, choice: game_pb2.Move) -> dict[str, Any]:
    """Play the deal to ``point`` in a new game, make ``choice``, and note what the spectator and
    every other seat (not the chooser's confidants) receive from the REST face and from their
    own attempts at moves."""

    async def seated() -> tuple[str, list[Any]]:
        game_id = (await client.create_game(kind, players, seed=seed.hex())).game_id
        seats = [await client.join(game_id, f"Player {seat}", seat=seat) for seat in range(players)]
        for seat, move in point.played:
            await client.move(game_id, seats[seat].token, move)
        await client.move(game_id, seats[point.seat].token, choice)
        return game_id, seats

    game_id, seats = asyncio.run_coroutine_threadsafe(seated(), live.loop).result(CALL_TIMEOUT_S * 4)
    viewers = [None, *(s for s in range(players) if s != point.seat and s not in point.confidants)]
    shown = live.ok("GET", f"/v1/games/{game_id}/view")
    commitment, version = shown["view"]["seedCommitment"], int(shown["view"]["version"])
    received: dict[str, Any] = {}
    for viewer in viewers:
        token = None if viewer is None else seats[viewer].token
        reads = [
            live.call("GET", f"/v1/games/{game_id}/view", token=token).content,
            live.call("GET", f"/v1/games/{game_id}/history", token=token).content,
            live.call("GET", f"/v1/games/{game_id}/history?afterVersion={version - 1}&pageSize=1", token=token).content,
            _sse_first_event(live, game_id, token, version - 1),
        ]
        received[f"reads of {'a spectator' if viewer is None else f'seat {viewer}'}"] = [
            _neutral(raw, game_id, commitment) for raw in reads
        ]

    async def attempts() -> dict[str, Any]:
        told: dict[str, Any] = {}
        for viewer in viewers[1:]:
            token = seats[viewer].token
            mine = await client.view(game_id, token)
            probes = [*point.choices, *mine.legal_moves[:1]]
            told[f"attempts of seat {viewer}"] = [await _attempt(client, game_id, token, move) for move in probes]
        return told

    received.update(asyncio.run_coroutine_threadsafe(attempts(), live.loop).result(CALL_TIMEOUT_S * 4))
    return received


@pytest.mark.parametrize(("kind", "players", "seed", "move_type"), DECISIONS, ids=[f"{d[0]}-{d[3]}" for d in DECISIONS])
def test_a_secret_choice_reaches_nobody_through_rest_or_refusals(
    redis_server: EmbeddedRedis, kind: str, players: int, seed: bytes, move_type: str
) -> None:
    """Two alike secret choices of one seat: the REST face and the refusals of moves give the
    spectator and every other seat the same bytes and the same answers in both branches."""
    point = _secret_point(kind, players, seed, move_type)
    with LiveRest(redis_server.url, allow_client_seed=True) as live:
        assert live.replica is not None
        port = live.replica.port

        async def connected() -> Client:
            return Client(f"127.0.0.1:{port}")  # made on the replica's loop, where it is used

        client = asyncio.run_coroutine_threadsafe(connected(), live.loop).result(CALL_TIMEOUT_S)
        try:
            first = _branch(live, client, kind, players, seed, point, point.choices[0])
            second = _branch(live, client, kind, players, seed, point, point.choices[1])
        finally:
            asyncio.run_coroutine_threadsafe(client.close(), live.loop).result(CALL_TIMEOUT_S)
    assert first.keys() == second.keys() and len(first) >= 3
    faces = ("GET view", "GET history", "GET history (one step)", "the event stream's first event")
    for what, mine in first.items():
        theirs = second[what]
        if what.startswith("reads"):
            for face, a, b in zip(faces, mine, theirs):
                assert a == b, f"{what.removeprefix('reads of ')} tells seat {point.seat}'s two {move_type} choices apart by {face} ({len(a)} and {len(b)} bytes)"
        else:
            assert mine == theirs, f"the {what} tell seat {point.seat}'s two {move_type} choices apart: {mine} against {theirs}"

