"""What a spectator or another seat can learn of a seat's secrets through the API, played through
a real replica (real Redis, real gRPC): the secret choices of every game seen from outside, and
the state digests and seed withheld until the game is over.

Each branch test plays one fixed deal twice, identical up to a secret decision, which is made two
ways that the rules say the table cannot tell apart (equal ``secret_footprint``); everything the
others receive afterwards (GetView, a history page, a WatchGame update, the lobby line) must be
the same bytes in both branches.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest

from conftest import run
from hustings.client import Client
from hustings.engine import Rng, get_game
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2
from service_helpers import new_game, play_to_end, replica_and_client

STEP_LIMIT = 3000  # engine steps searched for a secret decision in one deal


@dataclass(frozen=True)
class SecretPoint:
    """A seat owing a secret decision after ``played`` (seat, move) steps of a deal, with two
    choices the table cannot tell apart, neither of which reveals anything at once."""

    played: list[tuple[int, game_pb2.Move]]
    seat: int
    choices: tuple[game_pb2.Move, game_pb2.Move]
    confidants: frozenset[int]  # seats the rules let see the decision (a coalition partner)


def _message(game: Any, move: Any) -> game_pb2.Move:
    message = game_pb2.Move()
    game.move_to_proto(move, message)
    return message


def _alike_classes(game: Any, state: Any, seat: int, move_type: str) -> list[list[Any]]:
    """``seat``'s secret ``move_type`` decisions, in classes the table cannot tell apart."""
    classes: dict[Any, list[Any]] = {}
    for move in game.legal_moves(state, seat):
        if type(move).__name__ == move_type and not game.move_is_public(move):
            classes.setdefault(game.secret_footprint(state, seat, move), []).append(move)
    return [moves for moves in classes.values() if len(moves) > 1]


def _secret_point(kind: str, players: int, seed: bytes, move_type: str) -> SecretPoint:
    """The first point of random play on ``seed``'s deal where a seat owes a ``move_type``
    decision with alike choices that reveal nothing when made (the first and the last listed)."""
    game = get_game(kind)
    assert game is not None
    rng, chooser = Rng(seed), Rng(b"chooser:" + seed)
    state = game.setup(game.options_from_proto(game_pb2.GameOptions(players=players)), rng)
    played: list[tuple[int, game_pb2.Move]] = []
    while not game.is_over(state) and len(played) < STEP_LIMIT:
        acting = sorted(game.to_act(state))
        for seat, moves in ((s, m) for s in acting for m in _alike_classes(game, state, s, move_type)):
            pair = (moves[0], moves[-1])
            after = [game.apply(state, seat, move, Rng(seed, rng.counter))[1] for move in pair]
            if not any(event.reveals for events in after for event in events):
                confidants = game.secret_footprint(state, seat, pair[0]).confidants
                return SecretPoint(played, seat, (_message(game, pair[0]), _message(game, pair[1])), confidants)
        seat = chooser.choice(acting)
        move = chooser.choice(game.legal_moves(state, seat))
        played.append((seat, _message(game, move)))
        state, _ = game.apply(state, seat, move, rng)
    raise AssertionError(f"no quiet {move_type} decision with alike choices in {kind}'s deal")


async def _received(
    client: Client, kind: str, players: int, seed: bytes, point: SecretPoint, choice: game_pb2.Move
) -> dict[int | None, list[bytes]]:
    """Play the deal up to ``point`` in a new game, make ``choice``, and read what the spectator
    and every seat but the chooser and its confidants receive, less the game's id (each branch
    is a game of its own) and its creation time."""
    game_id = (await client.create_game(kind, players, seed=seed.hex())).game_id
    seats = [await client.join(game_id, f"Player {seat}", seat=seat) for seat in range(players)]
    for seat, move in point.played:
        await client.move(game_id, seats[seat].token, move)
    await client.move(game_id, seats[point.seat].token, choice)
    received: dict[int | None, list[bytes]] = {}
    for viewer in [None, *(s for s in range(players) if s != point.seat and s not in point.confidants)]:
        token = None if viewer is None else seats[viewer].token
        view = await client.view(game_id, token)
        page = await client.history_page(game_id, token, after_version=view.version - 2)
        update = None
        async for update in client.watch(game_id, token, from_version=view.version - 1):
            break
        assert update is not None and update.version == view.version
        for message in (view, update.view):
            message.ClearField("game_id")
            message.ClearField("seed_commitment")  # each branch commits with a nonce of its own
        received[viewer] = [
            view.SerializeToString(deterministic=True),
            page.SerializeToString(deterministic=True),
            update.SerializeToString(deterministic=True),
        ]
    lobby = await client.games(kind=kind, page_size=100)
    line = next(summary for summary in lobby.games if summary.game_id == game_id)
    line.ClearField("game_id")
    line.ClearField("created_at")
    received[None].append(line.SerializeToString(deterministic=True))
    return received


SECRET_CHOICES = [
    # kind, players, deal, decision
    ("stimmvieh", 4, bytes([3]) * 32, "ChooseTopCandidates"),
    ("spin_doctors", 3, bytes([7]) * 32, "ChooseStaff"),
    ("spin_doctors", 3, bytes([7]) * 32, "PlayStaffer"),
    ("spin_doctors", 3, bytes([7]) * 32, "SwapStaffer"),
    ("spin_doctors", 3, bytes([7]) * 32, "ExchangeProgramme"),
    ("wahlspiel", 3, bytes([4]) * 32, "OfferTrade"),
    ("wahlspiel", 3, bytes([4]) * 32, "AnswerTrade"),
    ("wahlspiel", 3, bytes([4]) * 32, "SendRunoffVoter"),
]


@pytest.mark.parametrize(("kind", "players", "seed", "move_type"), SECRET_CHOICES, ids=[f"{c[0]}-{c[3]}" for c in SECRET_CHOICES])
def test_a_secret_choice_reaches_nobody_else_through_the_service(
    redis_server: EmbeddedRedis, kind: str, players: int, seed: bytes, move_type: str
) -> None:
    """Two alike secret choices of one seat: the spectator and every other seat (but a coalition
    partner, whom the rules show the offer) receive the same bytes from every read of the API."""
    point = _secret_point(kind, players, seed, move_type)

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, allow_client_seed=True) as (_replica, client):
            first = await _received(client, kind, players, seed, point, point.choices[0])
            second = await _received(client, kind, players, seed, point, point.choices[1])
        assert first.keys() == second.keys() and len(first) >= 2
        reads = ("GetView", "GetHistory", "WatchGame", "ListGames")
        for viewer, mine in first.items():
            who = "a spectator" if viewer is None else f"seat {viewer}"
            for read, a, b in zip(reads, mine, second[viewer]):
                assert a == b, f"{who} tells seat {point.seat}'s two {move_type} choices apart by {read}"

    run(scenario())


def test_state_digests_and_the_seed_are_withheld_until_the_game_is_over(redis_server: EmbeddedRedis) -> None:
    """A state digest is a hash of the whole state, secrets included: given while the game runs,
    anyone could test guesses of a hand against it (Stimmvieh's 126 choices of top candidates,
    say). Every read of a running game (a seat's and a spectator's history pages and streams)
    carries none, nor the seed; the finished game reveals both."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):
            seats = await new_game(client, 3)
            game_id = seats[0].game_id
            await client.move(game_id, seats[0].token, (await client.view(game_id, seats[0].token)).legal_moves[0])
            for token in (None, seats[0].token, seats[1].token):
                view = await client.view(game_id, token)
                assert view.status == game_pb2.GAME_STATUS_ACTIVE and not view.seed
                page = await client.history_page(game_id, token)
                assert page.entries and not page.revealed
                assert not any(entry.state_digest for entry in page.entries), "a running game's history gives state digests"
                async for update in client.watch(game_id, token, from_version=0):
                    assert not any(entry.state_digest for entry in update.entries), "a running game's stream gives state digests"
                    assert not update.view.seed
                    break
            final = await play_to_end([client], seats, random.Random(26))
            assert final.seed
            page = await client.history_page(game_id)
            assert page.revealed and all(entry.state_digest for entry in page.entries)

    run(scenario())
