"""The seed commitment is salted with a nonce of each game's own: SHA-256(nonce || seed), the
nonce drawn by the server at creation whoever chose the seed, and revealed with the seed when the
game ends (to everybody), never before. A chosen seed cannot be confirmed against the commitment,
and games dealt from one seed show different commitments. Games stored before nonces were drawn
keep their commitment, SHA-256(seed), and still verify. A real replica over gRPC, a real Redis."""

from __future__ import annotations

import hashlib
import random

import pytest
import redis

from conftest import run
from hustings.client import Client, Joined
from hustings.engine import seed_commitment
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store import game_key
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2
from hustings.verify import verify_log
from service_helpers import new_game, play_to_end, replica_and_client

PLAYERS = 3
CHOSEN_SEED = "11" * 32  # one repeated byte: one of the 256 seeds a guesser tries first


def _stored(url: str, game_id: str) -> storage_pb2.StoredGame:
    """The game's snapshot as Redis holds it."""
    with redis.Redis.from_url(url) as raw:
        return storage_pb2.StoredGame.FromString(raw.hget(game_key(game_id), "snapshot"))  # type: ignore[arg-type]


def _forget_nonce(url: str, game_id: str) -> None:
    """Rewrite the game's snapshot as a build that drew no nonce stored it: without the field."""
    stored = _stored(url, game_id)
    assert len(stored.seed_nonce) == 32
    stored.ClearField("seed_nonce")
    with redis.Redis.from_url(url) as raw:
        raw.hset(game_key(game_id), "snapshot", stored.SerializeToString())


async def _views_while_running(client: Client, seats: list[Joined]) -> list[game_pb2.GameView]:
    """Every read of a running game's view: a spectator's and two seats', by GetView and by the
    first update of WatchGame."""
    game_id = seats[0].game_id
    views = []
    for token in (None, seats[0].token, seats[1].token):
        views.append(await client.view(game_id, token))
        async for update in client.watch(game_id, token, from_version=0):
            views.append(update.view)
            break
    return views


def test_the_commitment_is_sha256_of_nonce_then_seed_and_an_empty_nonce_is_the_seed_alone() -> None:
    seed, nonce = bytes(range(32)), bytes(range(100, 132))
    assert seed_commitment(seed, nonce) == hashlib.sha256(nonce + seed).hexdigest()
    assert seed_commitment(seed) == hashlib.sha256(seed).hexdigest()
    with pytest.raises(ValueError):
        seed_commitment(seed, nonce[:31])  # any other length would let the seed start elsewhere


def test_one_chosen_seed_deals_two_games_under_different_commitments(redis_server: EmbeddedRedis) -> None:
    """A duplicate tournament deals two tables from one seed on purpose: the first to end must not
    show anyone which commitment, and so which hands, the other has; and a guessed seed must not be
    confirmed by hashing it."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, allow_client_seed=True) as (_replica, client):
            first = await new_game(client, PLAYERS, seed=CHOSEN_SEED)
            second = await new_game(client, PLAYERS, seed=CHOSEN_SEED)
            drawn = await new_game(client, PLAYERS)
            views = [await client.view(seats[0].game_id) for seats in (first, second, drawn)]
        stored = [_stored(redis_server.url, view.game_id) for view in views]
        assert stored[0].seed == stored[1].seed == bytes.fromhex(CHOSEN_SEED)  # one deal, twice
        assert views[0].seed_commitment != views[1].seed_commitment
        for view, game in zip(views, stored):
            assert view.seed_commitment != hashlib.sha256(game.seed).hexdigest()
            assert view.seed_commitment == hashlib.sha256(game.seed_nonce + game.seed).hexdigest()
        assert len({game.seed_nonce for game in stored}) == 3

    run(scenario())


def test_seed_and_nonce_are_withheld_until_the_end_and_then_shown_to_everybody(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with replica_and_client(redis_server.url, allow_client_seed=True) as (_replica, client):
            seats = await new_game(client, PLAYERS, seed=CHOSEN_SEED)
            game_id = seats[0].game_id
            recorded = seats[0].view.seed_commitment  # what a player keeps from the start
            opening = await _views_while_running(client, seats)
            await client.move(game_id, seats[0].token, (await client.view(game_id, seats[0].token)).legal_moves[0])
            running = await _views_while_running(client, seats)
            for view in opening + running:
                assert view.status == game_pb2.GAME_STATUS_ACTIVE
                assert (view.seed, view.seed_nonce) == ("", "")
                assert view.seed_commitment == recorded
            final = await play_to_end([client], seats, random.Random(26))
            ended = await _views_while_running(client, seats)  # the same reads, now of a finished game
            history = await client.history(game_id)
        nonce = _stored(redis_server.url, game_id).seed_nonce
        for view in [final, *ended]:
            assert view.status == game_pb2.GAME_STATUS_FINISHED
            assert (view.seed, view.seed_nonce) == (CHOSEN_SEED, nonce.hex())
            assert hashlib.sha256(bytes.fromhex(view.seed_nonce + view.seed)).hexdigest() == recorded
        report = verify_log(final, history, recorded)
        assert report.ok, report.message

    run(scenario())


def test_verify_refuses_a_nonce_other_than_the_committed_one(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):
            seats = await new_game(client, PLAYERS)
            recorded = seats[0].view.seed_commitment
            final = await play_to_end([client], seats, random.Random(27))
            history = await client.history(seats[0].game_id)
        assert verify_log(final, history, recorded).ok
        wrong_nonces = {
            "another nonce": "ab" * 32,
            "no nonce (the commitment of the seed alone)": "",
            "a nonce one byte short": final.seed_nonce[2:],
            "not hex": "zz" * 32,
        }
        for what, nonce in wrong_nonces.items():
            forged = game_pb2.GameView()
            forged.CopyFrom(final)
            forged.seed_nonce = nonce
            for commitment in (recorded, None):  # the caller's record, or the server's word
                report = verify_log(forged, history, commitment)
                assert not report.ok, what
                assert "nonce" in report.message, (what, report.message)

    run(scenario())


def test_a_game_stored_before_nonces_keeps_its_commitment_and_verifies(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with replica_and_client(redis_server.url, allow_client_seed=True) as (_replica, client):
            created = await client.create_game("stimmvieh", PLAYERS, seed=CHOSEN_SEED)
        game_id = created.game_id
        _forget_nonce(redis_server.url, game_id)
        # A replica started now has nothing cached: it reads the old snapshot, and plays it.
        async with replica_and_client(redis_server.url, allow_client_seed=True) as (_replica, client):
            seats = [await client.join(game_id, f"Player {i}") for i in range(PLAYERS)]
            recorded = seats[0].view.seed_commitment
            assert recorded == hashlib.sha256(bytes.fromhex(CHOSEN_SEED)).hexdigest()  # as it published then
            final = await play_to_end([client], seats, random.Random(28))
            history = await client.history(game_id)
        assert (final.seed, final.seed_nonce) == (CHOSEN_SEED, "")
        report = verify_log(final, history, recorded)
        assert report.ok, report.message
        # A server that now claims a nonce for it is caught.
        forged = game_pb2.GameView()
        forged.CopyFrom(final)
        forged.seed_nonce = "ab" * 32
        assert not verify_log(forged, history, recorded).ok

    run(scenario())
