"""What the move path's shortcuts must keep: the same stored bytes, presence noted by the move's
own commit (and still noted when a move is refused), and the same metrics series."""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import asdict

import pytest
import redis
from prometheus_client import REGISTRY

from conftest import run, running_replica
from service_helpers import stimmvieh_options
from hustings.client import Client, HustingsError
from hustings.engine import Rng, get_game
from hustings.engine.stimmvieh import serial
from hustings.service import metrics
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store import presence_key
from hustings.v1 import game_pb2, stimmvieh_pb2

# A slogan with quotes, a backslash, non-ASCII and the text of a stand-in that the fast
# serialisation uses inside its own encoding.
AWKWARD_SLOGAN = 'Wir "schaffen" das \\ é中 "options":-9000000000000000001'


def _canonical(state: object) -> bytes:
    """The Stimmvieh state format as first written: plain ``json.dumps`` of the whole tree."""
    data = asdict(state)  # type: ignore[call-overload]
    data["format"] = serial.FORMAT
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


@pytest.mark.parametrize("players,campaigns,slogan", [(4, 1, ""), (3, 2, AWKWARD_SLOGAN), (4, 2, AWKWARD_SLOGAN)])
def test_stimmvieh_dump_is_the_canonical_json_of_every_state(players: int, campaigns: int, slogan: str) -> None:
    """Stored states and their digests must not change with a faster serialisation: every state
    of whole games dumps to exactly the canonical JSON, and loads back equal."""
    game = get_game("stimmvieh")
    assert game is not None
    options = game_pb2.GameOptions(players=players)
    options.stimmvieh.campaigns = campaigns
    if slogan:
        options.stimmvieh.custom_vote_card.CopyFrom(stimmvieh_pb2.StimmviehCustomVoteCard(slogan=slogan, replaces_card_id="V01"))
    choices = random.Random(players * 10 + campaigns)
    rng = Rng(bytes([players, campaigns]) * 16)
    state = game.setup(game.options_from_proto(options), rng)
    checked = 0
    for _ in range(2000):
        dumped = serial.dump_state(state)
        assert dumped == _canonical(state)
        assert serial.load_state(dumped) == state
        checked += 1
        if game.is_over(state):
            break
        seat = min(game.to_act(state))
        state, _events = game.apply(state, seat, choices.choice(game.legal_moves(state, seat)), rng)
    assert game.is_over(state) and checked > 20


def test_metric_helpers_count_in_the_labelled_series() -> None:
    """The cached children are the very series ``labels()`` gives (the README's names)."""

    def value(name: str, labels: dict[str, str]) -> float:
        return REGISTRY.get_sample_value(name, labels) or 0.0

    before = value("hustings_rpcs_total", {"method": "PerfProbe", "code": "OK"})
    before_count = value("hustings_rpc_seconds_count", {"method": "PerfProbe"})
    before_moves = value("hustings_moves_applied_total", {"kind": "perf-probe"})
    before_hits = value("hustings_state_cache_total", {"result": "hit"})
    for _ in range(3):
        metrics.rpc_done("PerfProbe", "OK", 0.001)
        metrics.move_applied("perf-probe")
        metrics.cache_used(True)
    metrics.rpc_done("PerfProbe", "OK", None)  # a stream: counted, not timed
    assert value("hustings_rpcs_total", {"method": "PerfProbe", "code": "OK"}) == before + 4
    assert value("hustings_rpc_seconds_count", {"method": "PerfProbe"}) == before_count + 3
    assert value("hustings_moves_applied_total", {"kind": "perf-probe"}) == before_moves + 3
    assert value("hustings_state_cache_total", {"result": "hit"}) == before_hits + 3


def _presence(redis_server: EmbeddedRedis, game_id: str) -> dict[int, int]:
    raw = redis.Redis.from_url(redis_server.url).hgetall(presence_key(game_id))
    return {int(k): int(v) for k, v in raw.items()}


def test_a_move_notes_its_seat_present_in_its_commit_and_a_refused_one_still_does(redis_server: EmbeddedRedis) -> None:
    """The mover's presence rides on the commit; a refused move (no commit) is written apart."""

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            client = Client(f"127.0.0.1:{replica.port}")  # type: ignore[attr-defined]
            try:
                created = await client.create_game("stimmvieh", 4, stimmvieh_options(4))
                seats = [await client.join(created.game_id, f"P{i}") for i in range(4)]
                game_id = created.game_id
                redis.Redis.from_url(redis_server.url).delete(presence_key(game_id))
                replica.host.presence._touched.clear()  # type: ignore[attr-defined]  # forget the joins' views
                view = await client.view(game_id, seats[0].token)
                redis.Redis.from_url(redis_server.url).delete(presence_key(game_id))
                replica.host.presence._touched.clear()  # type: ignore[attr-defined]
                started = int(time.time() * 1000)
                await client.move(game_id, seats[0].token, view.legal_moves[0])
                # Written by the commit itself: there at once, with no background write to wait for.
                seen = _presence(redis_server, game_id)
                assert set(seen) == {0} and seen[0] >= started - 1000
                # Seat 1 refused (a malformed move): nothing committed, yet it was seen.
                with pytest.raises(HustingsError):
                    await client.move(game_id, seats[1].token, game_pb2.Move())
                for _ in range(100):
                    if 1 in _presence(redis_server, game_id):
                        break
                    await asyncio.sleep(0.05)
                assert 1 in _presence(redis_server, game_id)
            finally:
                await client.close()

    run(scenario())


def test_a_move_commits_after_redis_forgot_the_commit_script(redis_server: EmbeddedRedis) -> None:
    """The commit runs its script by hash; a Redis that lost its scripts (a restart, a failover)
    is taught it again and the move is applied once."""

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            client = Client(f"127.0.0.1:{replica.port}")  # type: ignore[attr-defined]
            try:
                created = await client.create_game("stimmvieh", 4, stimmvieh_options(4))
                seats = [await client.join(created.game_id, f"P{i}") for i in range(4)]
                view = await client.view(created.game_id, seats[0].token)
                redis.Redis.from_url(redis_server.url).script_flush()
                answer = await client.move(created.game_id, seats[0].token, view.legal_moves[0])
                assert answer.version == view.version + 1
                assert (await client.view(created.game_id)).version == view.version + 1
            finally:
                await client.close()

    run(scenario())
