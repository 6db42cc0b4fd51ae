"""Games stored by release 0.1.0, read and continued by this tree.

``tests/data/stored_0_1_0/keys.jsonl`` holds every Redis key a 0.1.0 replica wrote for nine games
(an open game, a game in play and a finished game of each kind; see the README beside it). They
are loaded into a real Redis of this module's own and served by a real replica over gRPC: every
game loads, shows its views to spectators and to each seat (by the seat tokens 0.1.0 issued),
takes moves to its end, and lists in the lobby, filtered by kind and status once the lobby repair
has filed it. ``hustings verify`` checks what it can replay and says why it cannot replay steps
played under 0.1.0's rules.
"""

from __future__ import annotations

import base64
import json
import pathlib
import random
from typing import Iterator

import pytest
import redis

from conftest import run
from hustings.client import Client
from hustings.engine import seed_commitment
from hustings.engine.wahlspiel.model import ANSWERING, Offer
from hustings.engine.wahlspiel.serial import dump_state, load_state
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.lobby import LobbyRepair
from hustings.service.store import Store, game_key
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2
from hustings.verify import OLDER_RULES, verify_log
from service_helpers import replica_and_client

DATA = pathlib.Path(__file__).resolve().parent / "data" / "stored_0_1_0" / "keys.jsonl"
KINDS = {"stimmvieh": "stimmvieh", "wahlspiel": "wahlspiel", "spin": "spin_doctors"}
# name -> (status as stored, version as stored)
STORED = {
    "stimmvieh-open": (game_pb2.GAME_STATUS_OPEN, 4),
    "stimmvieh-play": (game_pb2.GAME_STATUS_ACTIVE, 14),
    "stimmvieh-end": (game_pb2.GAME_STATUS_FINISHED, 43),
    "wahlspiel-open": (game_pb2.GAME_STATUS_OPEN, 3),
    "wahlspiel-play": (game_pb2.GAME_STATUS_ACTIVE, 75),
    "wahlspiel-end": (game_pb2.GAME_STATUS_FINISHED, 127),
    "spin-open": (game_pb2.GAME_STATUS_OPEN, 3),
    "spin-play": (game_pb2.GAME_STATUS_ACTIVE, 17),
    "spin-end": (game_pb2.GAME_STATUS_FINISHED, 330),
}
MAX_MOVES = 1000  # the longest game here takes about 350 steps


def _value(stored: object) -> bytes:
    """A value as the export holds it: text, or {"base64": ...} for bytes that are not."""
    return base64.b64decode(stored["base64"]) if isinstance(stored, dict) else str(stored).encode()


def _load_export(url: str) -> dict[str, str]:
    """Write every exported key into the Redis at ``url``; the names of the games."""
    lines = DATA.read_text().splitlines()
    names: dict[str, str] = json.loads(lines[0])["games"]
    with redis.Redis.from_url(url) as raw:
        raw.flushdb()
        for line in lines[1:]:
            row = json.loads(line)
            key, value = row["key"], row["value"]
            if row["type"] == "string":
                raw.set(key, _value(value))
            elif row["type"] == "hash":
                raw.hset(key, mapping={field: _value(v) for field, v in value.items()})
            elif row["type"] == "zset":
                raw.zadd(key, {member: score for member, score in value})
            elif row["type"] == "stream":
                for entry_id, fields in value:
                    raw.xadd(key, {field: _value(v) for field, v in fields.items()}, id=entry_id)
            else:
                raise AssertionError(f"{key}: type {row['type']} not in the export's README")
    return names


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """A Redis of the module's own: each test loads the export into it afresh."""
    launched = EmbeddedRedis(tmp_path_factory.mktemp("upgrade-redis"), appendonly=False).start()
    try:
        yield launched
    finally:
        launched.stop()


def _tokens(names: dict[str, str], name: str) -> list[str]:
    return names[name + ":tokens"].split(",")


def test_every_stored_game_loads_with_its_views_for_spectators_and_each_seat(server: EmbeddedRedis) -> None:
    names = _load_export(server.url)

    async def scenario() -> None:
        async with replica_and_client(server.url) as (_replica, client):
            for name, (status, version) in STORED.items():
                game_id = names[name]
                view = await client.view(game_id)
                assert (view.kind, view.status, view.version) == (KINDS[name.split("-")[0]], status, version), name
                assert view.seed_commitment == names[name + ":commitment"]
                assert not view.seed_nonce and bool(view.seed) == (status == game_pb2.GAME_STATUS_FINISHED)
                for seat, token in enumerate(_tokens(names, name)):
                    mine = await client.view(game_id, token)
                    assert mine.seat == seat, name  # the token 0.1.0 issued still names its seat
                    assert bool(mine.legal_moves) == (seat in mine.to_act), (name, seat)
                assert len(await client.history(game_id)) == version

    run(scenario(), 60)


def test_finished_games_show_their_outcome_and_say_why_verify_cannot_replay_them(server: EmbeddedRedis) -> None:
    names = _load_export(server.url)

    async def scenario() -> None:
        async with replica_and_client(server.url) as (_replica, client):
            for name in ("stimmvieh-end", "wahlspiel-end", "spin-end"):
                game_id = names[name]
                view = await client.view(game_id)
                assert view.outcome.placings, name
                # The commitment of 0.1.0 hashes the seed alone, and the revealed seed matches it.
                assert seed_commitment(bytes.fromhex(view.seed), b"") == names[name + ":commitment"]
                report = verify_log(view, await client.history(game_id), names[name + ":commitment"])
                assert not report.ok and report.message.endswith(OLDER_RULES), (name, report)
                assert report.failed_at_version is not None

    run(scenario(), 60)


def test_every_stored_game_takes_moves_to_its_end(server: EmbeddedRedis) -> None:
    names = _load_export(server.url)
    rng = random.Random(7)

    async def play(client: Client, game_id: str, tokens: list[str]) -> game_pb2.GameView:
        for _ in range(MAX_MOVES):
            view = await client.view(game_id)
            if view.status == game_pb2.GAME_STATUS_FINISHED:
                return view
            seat = min(view.to_act)
            mine = await client.view(game_id, tokens[seat])
            await client.move(game_id, tokens[seat], rng.choice(list(mine.legal_moves)), expected_version=mine.version)
        raise AssertionError(f"{game_id} did not end within {MAX_MOVES} moves")

    async def scenario() -> None:
        async with replica_and_client(server.url) as (_replica, client):
            for name, (status, version) in STORED.items():
                if status == game_pb2.GAME_STATUS_FINISHED:
                    continue
                game_id, tokens = names[name], _tokens(names, name)
                if status == game_pb2.GAME_STATUS_OPEN:
                    tokens.append((await client.join(game_id, "Newcomer")).token)
                view = await play(client, game_id, tokens)
                assert view.version > version and view.outcome.placings, name
                report = verify_log(view, await client.history(game_id), names[name + ":commitment"])
                if name in ("stimmvieh-open", "spin-open"):
                    # Nothing was played under 0.1.0's rules (it only dealt and seated): it verifies.
                    assert report.ok, (name, report)
                else:
                    assert not report.ok and report.message.endswith(OLDER_RULES), (name, report)

    run(scenario(), 120)


def test_the_lobby_lists_stored_games_and_files_them_by_kind_and_status_in_one_repair_pass(server: EmbeddedRedis) -> None:
    names = _load_export(server.url)
    ids = {names[name]: status for name, (status, _version) in STORED.items()}

    async def scenario() -> None:
        async with replica_and_client(server.url) as (_replica, client):
            whole = await client.games(page_size=50)
            assert {g.game_id: g.status for g in whole.games} == ids
            store = Store.from_url(server.url)
            try:
                await LobbyRepair(store).repair_once()  # what any replica does every 2.5-5 s
            finally:
                await store.close()
            for kind in KINDS.values():
                for status in (game_pb2.GAME_STATUS_OPEN, game_pb2.GAME_STATUS_ACTIVE, game_pb2.GAME_STATUS_FINISHED):
                    listed = {g.game_id for g in (await client.games(kind=kind, status=status)).games}
                    wanted = {names[n] for n, (s, _v) in STORED.items() if s == status and KINDS[n.split("-")[0]] == kind}
                    assert listed == wanted, (kind, status)

    run(scenario(), 60)


def test_a_wahlspiel_state_of_format_1_with_an_open_offer_loads_as_a_bundle(server: EmbeddedRedis) -> None:
    """0.1.0's offer was one item each way from the party on the field; no stored game holds one
    open, so one is written into a stored 0.1.0 state here, as 0.1.0 wrote it."""
    names = _load_export(server.url)
    with redis.Redis.from_url(server.url) as raw:
        stored = storage_pb2.StoredGame.FromString(raw.hget(game_key(names["wahlspiel-play"]), "snapshot"))  # type: ignore[arg-type]
    data = json.loads(stored.engine_state)
    assert data["format"] == 1
    card = data["parties"][0]["voters"][0]
    data["step"], data["current"] = ANSWERING, 0
    data["coalition"] = {"offers": 1, "partner": 1, "pending": {"ask_kind": "event", "ask_money": 0, "give_card": card, "give_money": 1000}}
    state = load_state(json.dumps(data).encode())
    assert state.coalition is not None and state.coalition.proposer == -1
    assert state.coalition.pending == Offer(give_cards=(card,), give_money=1000, ask_events=1)
    assert load_state(dump_state(state)) == state
