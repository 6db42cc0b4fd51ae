"""What the host's cheaper move path must keep: every byte a move writes to Redis and every answer.

Seeded games of every kind (with and without table clocks) are played move by move through a
real ``GameHost`` on a real Redis with a fixed clock. After each move the snapshot, the log
entry, the request record and the presence note read back from Redis are compared with what the
step writes when made the plain way, field by field from the snapshot before it, and the answer
with the log entry's events as ``visibility`` filters them. The keyed hashes are checked against
the standard library's HMAC and the generic fingerprint, the lane's packed commands against
redis-py's, and a token that does not hold a seat is refused whatever the host remembers of
the game.
"""

from __future__ import annotations

import hashlib
import hmac
import random

import pytest
from redis.connection import Connection

from conftest import run
from hustings.engine import Rng, get_game
from hustings.engine.base import is_side_move
from hustings.service import table, visibility
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.errors import ServiceError
from hustings.service.host import GameHost, Loaded
from hustings.service.lane import _packed
from hustings.service.notifier import Notifier
from hustings.service.server_secret import Keys, fingerprint, move_fingerprint
from hustings.service.store import MAX_KEPT_KEYS, Store, game_key, log_key, presence_key, requests_key, updates_channel
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2, game_service_pb2

SECRET = b"move-bytes-secret-0123456789abcd"
START_S = 1_700_000_000.0
STEP_S = 1.25  # the clock between two moves: decisions take time, banks are charged
MAX_MOVES = 60  # per game: far enough into each kind to pass its phases, and a bound on the loop
GAMES = [
    ("stimmvieh", 4, None),
    ("stimmvieh", 3, game_pb2.TableSettings(decision_seconds=60, bank_seconds=300, increment_seconds=5)),
    ("spin_doctors", 4, game_pb2.TableSettings(decision_seconds=90)),
    ("wahlspiel", 4, game_pb2.TableSettings(bank_seconds=120)),
]


@pytest.mark.parametrize("length", [16, 32, 64, 65, 100])
def test_the_keyed_hashes_are_hmac_sha256_under_the_secret(length: int) -> None:
    secret = bytes(range(length))
    keys = Keys(secret)
    for scope, request_id in [("g1:0", "r"), ("gAbC_-9:3", "0123456789abcdef" * 4), ("", "")]:
        expected = hmac.new(secret, f"request\x00{scope}\x00{request_id}".encode(), hashlib.sha256).digest()
        assert keys.request_key(scope, request_id) == expected[:20].hex()
    other = Keys(secret[:-1] + bytes([secret[-1] ^ 1]))
    assert other.request_key("g1:0", "r") != keys.request_key("g1:0", "r")


@pytest.mark.parametrize("move", [b"", b"\x08\x01", bytes(range(256)) * 3])
def test_a_move_fingerprint_is_the_generic_fingerprint_of_the_move(move: bytes) -> None:
    assert move_fingerprint(move) == fingerprint(b"move", move)
    assert move_fingerprint(move) != fingerprint(b"takeover", move)


def _plain_step(
    before: storage_pb2.StoredGame, seat: int, move_proto: game_pb2.Move, now_ms: int
) -> tuple[storage_pb2.StoredGame, storage_pb2.LogEntry]:
    """The snapshot and log entry of ``seat``'s move, written field by field from the snapshot
    before it (a move by a player, not a bot)."""
    game = get_game(before.kind)
    assert game is not None
    state = game.load_state(before.engine_state)
    move = game.move_from_proto(move_proto)
    rng = Rng(before.seed, before.rng_counter)
    after_state, events = game.apply(state, seat, move, rng)
    after = storage_pb2.StoredGame.FromString(before.SerializeToString())
    after.version = before.version + 1
    after.rng_counter = rng.counter
    after.engine_state = game.dump_state(after_state)
    if game.is_over(after_state):
        after.status = game_pb2.GAME_STATUS_FINISHED
    after.seats[seat].timeouts = 0
    table.settle(after, game.to_act(after_state), seat, now_ms, is_side_move(game, move, state))
    entry = storage_pb2.LogEntry(version=after.version, seat=seat, move_public=game.move_is_public(move))
    entry.state_digest = hashlib.sha256(after.engine_state).hexdigest()
    entry.move.CopyFrom(move_proto)
    entry.events.extend(visibility.store_event(game, event, after.version, seat) for event in events)
    return after, entry


async def _play(url: str, number: int, kind: str, players: int, settings: game_pb2.TableSettings | None) -> int:
    """Play one seeded game move by move, checking each move's bytes; returns the moves made."""
    store = Store.from_url(url)
    now = [START_S]
    host = GameHost(store, Notifier(store.client), keys=Keys(SECRET), clock=lambda: now[0], allow_client_seed=True)
    game = get_game(kind)
    assert game is not None
    rng = random.Random(number)
    try:
        create = game_service_pb2.CreateGameRequest(kind=kind, options=game_pb2.GameOptions(players=players))
        create.seed = bytes(rng.getrandbits(8) for _ in range(32)).hex()
        if settings is not None:
            create.table.CopyFrom(settings)
        game_id = (await host.create_game(create)).game_id
        tokens = []
        for i in range(players):
            joined = await host.join_game(game_service_pb2.JoinGameRequest(game_id=game_id, display_name=f"P{i}"))
            tokens.append(joined.seat_token)
        made = 0
        for step in range(MAX_MOVES):
            before = storage_pb2.StoredGame.FromString(await store.client.hget(game_key(game_id), "snapshot"))
            state = game.load_state(before.engine_state)
            if game.is_over(state):
                break
            seat = min(game.to_act(state))
            move = game_pb2.Move()
            game.move_to_proto(rng.choice(game.legal_moves(state, seat)), move)
            now[0] += STEP_S
            now_ms = int(now[0] * 1000)
            request = game_service_pb2.SubmitMoveRequest(game_id=game_id, move=move, request_id=f"move-{number}-{step}")
            answer = await host.submit_move(request, tokens[seat])
            made += 1

            plain, entry = _plain_step(before, seat, move, now_ms)
            assert await store.client.hget(game_key(game_id), "snapshot") == plain.SerializeToString()
            [(_id, fields)] = await store.client.xrange(log_key(game_id), min=f"{plain.version}-0", max=f"{plain.version}-0")
            assert fields[b"e"] == entry.SerializeToString()
            expected = game_service_pb2.SubmitMoveResponse(version=plain.version)
            for stored in entry.events:
                event = visibility.event_for(stored, seat, reveal_all=False)
                if event is not None:
                    expected.events.append(event)
            assert answer == expected
            key = hmac.new(SECRET, f"request\x00{game_id}:{seat}\x00{request.request_id}".encode(), hashlib.sha256)
            recorded = await store.client.hget(requests_key(game_id), key.digest()[:20].hex())
            assert recorded == f"{plain.version} {fingerprint(b'move', move.SerializeToString(deterministic=True))}".encode()
            assert await store.client.hget(presence_key(game_id), str(seat)) == str(now_ms).encode()

            if step % 9 == 0:  # a retry gets the first answer and writes nothing
                assert await host.submit_move(request, tokens[seat]) == answer
                assert await store.client.hget(game_key(game_id), "version") == str(plain.version).encode()
            if step % 11 == 0:  # a token of no seat is refused, on the state this host remembers
                for token in ("not-a-seat-token", tokens[seat] + "x"):
                    with pytest.raises(ServiceError) as refused:
                        await host.submit_move(
                            game_service_pb2.SubmitMoveRequest(game_id=game_id, move=move, request_id=f"bad-{step}"), token
                        )
                    assert refused.value.reason == "INVALID_SEAT_TOKEN"
        return made
    finally:
        await host.notifier.stop()
        await store.close()


@pytest.mark.parametrize("number", range(len(GAMES)), ids=[f"{kind}-{players}" for kind, players, _ in GAMES])
def test_every_move_writes_what_the_plain_step_writes(redis_server: EmbeddedRedis, number: int) -> None:
    kind, players, settings = GAMES[number]
    made = run(_play(redis_server.url, number, kind, players, settings))
    assert made >= 20, made  # every game got well past its opening


def test_a_remembered_seat_holds_only_while_the_snapshot_gives_the_token_that_seat() -> None:
    """``seat_of`` keeps which seat a token hashed to and passes that on to the next version; a
    snapshot whose seats say otherwise (a token reissued, freed, or moved) is believed instead."""
    game = get_game("stimmvieh")
    assert game is not None
    tokens = ["token-zero", "token-one", "token-two"]
    stored = storage_pb2.StoredGame(game_id="g1", kind="stimmvieh")
    for number, token in enumerate(tokens):
        stored.seats.add(seat=number, token_sha256=hashlib.sha256(token.encode()).hexdigest())
    first = Loaded(stored, game, None)
    assert [GameHost.seat_of(first, token) for token in tokens] == [0, 1, 2]
    assert first.token_seats  # remembered

    changed = storage_pb2.StoredGame()
    changed.CopyFrom(stored)
    changed.seats[1].token_sha256 = hashlib.sha256(b"reissued").hexdigest()  # a rejoin's new token
    changed.seats[0].token_sha256, changed.seats[2].token_sha256 = (
        stored.seats[2].token_sha256,
        stored.seats[0].token_sha256,
    )
    later = Loaded(changed, game, None, first.token_seats)  # as a move passes the hints on
    with pytest.raises(ServiceError) as refused:
        GameHost.seat_of(later, "token-one")
    assert refused.value.reason == "INVALID_SEAT_TOKEN"
    assert GameHost.seat_of(later, "reissued") == 1
    assert GameHost.seat_of(later, "token-zero") == 2 and GameHost.seat_of(later, "token-two") == 0
    assert GameHost.seat_of(later, "") is None


def test_the_commit_keys_kept_per_game_are_the_keys_and_stay_bounded(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        store = Store.from_url(redis_server.url)
        try:
            ids = [f"g{number}" for number in range(MAX_KEPT_KEYS + 10)]
            for game_id in ids + ids[:3]:
                made = store._commit_keys(game_id)
                assert made == tuple(
                    name(game_id).encode() for name in (game_key, log_key, requests_key, presence_key, updates_channel)
                )
                assert len(store._keys_by_game) <= MAX_KEPT_KEYS
        finally:
            await store.close()

    run(scenario())


@pytest.mark.parametrize("length", [0, 1, 9, 10, 1023, 1024, 1025, 70_000])
def test_the_lane_writes_what_redis_py_writes_and_redis_reads_it(redis_server: EmbeddedRedis, length: int) -> None:
    """Commands packed with the kept bulk-string headers (and past them) are redis-py's bytes,
    and a value of that length makes the round trip through Redis whole."""
    value = bytes(range(256)) * (length // 256) + bytes(length % 256)
    command = ("SET", f"hustings:test:lane:{length}", value)
    assert _packed([(command, None)]) == b"".join(Connection().pack_command(*command))

    async def scenario() -> None:
        store = Store.from_url(redis_server.url)
        try:
            assert store.lane is not None
            assert await store.lane.call(*command) == b"OK"
            assert await store.round_trip(f"hustings:test:lane:{length}") == value
        finally:
            await store.close()

    run(scenario())
