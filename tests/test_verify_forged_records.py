"""Fair play as a player who kept the seed commitment checks it: a finished game's record in
Redis is changed the way a careless or cheating operator could change it, a replica with an empty
cache serves it, and `hustings verify GAME_ID --server ... --commitment HEX` runs as the README
says. A real Redis, a real replica (gRPC), the command in a process of its own."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import subprocess
import sys

import redis

from conftest import run
from hustings.engine import get_game
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store import game_key, log_key
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2
from service_helpers import new_game, play_to_end, replica_and_client

CLI = [sys.executable, "-m", "hustings.cli"]
PLAYERS = 3


async def _finished_game(url: str, seed: int) -> tuple[str, str, game_pb2.GameView]:
    """A finished Stimmvieh game, the commitment its first player kept from its join, and its
    final view."""
    async with replica_and_client(url) as (_replica, client):
        seats = await new_game(client, PLAYERS)
        recorded = seats[0].view.seed_commitment
        final = await play_to_end([client], seats, random.Random(seed))
    return seats[0].game_id, recorded, final


async def _verify(address: str, game_id: str, commitment: str) -> tuple[int, dict[str, object]]:
    """`hustings verify` as the README shows it: its exit status and JSON line."""
    done = await asyncio.to_thread(
        subprocess.run,
        [*CLI, "verify", game_id, "--server", address, "--commitment", commitment],
        capture_output=True,
        timeout=60,
    )
    lines = [line for line in done.stdout.decode().splitlines() if line.startswith("{")]
    assert lines, done.stderr.decode()[-2000:]
    return done.returncode, json.loads(lines[-1])


def test_verify_refuses_a_finished_game_whose_stored_result_was_rewritten(redis_server: EmbeddedRedis) -> None:
    """The log is left as it was; only the snapshot's final state is changed, so that the game's
    view ranks two parties the other way round. `verify` replays the log to the true final state
    and refuses the result the server shows (it once said the game checked out)."""

    async def scenario() -> None:
        game_id, recorded, final = await _finished_game(redis_server.url, 41)
        game = get_game("stimmvieh")
        with redis.Redis.from_url(redis_server.url) as raw:
            stored = storage_pb2.StoredGame.FromString(raw.hget(game_key(game_id), "snapshot"))  # type: ignore[arg-type]
            state = game.load_state(stored.engine_state)
            record = state.campaign_results[-1]
            # The best and the worst of the parties a player holds (Angelus holds no seat).
            results = sorted((r for r in record.results if state.seat_of(r.party) is not None), key=lambda r: r.rank)
            first, last = results[0], results[-1]

            def as_if(result, other):  # type: ignore[no-untyped-def]
                return dataclasses.replace(result, rank=other.rank, final_donations=other.final_donations, points=other.points)

            swapped = {first.party: as_if(first, last), last.party: as_if(last, first)}
            forged_record = dataclasses.replace(record, results=tuple(swapped.get(r.party, r) for r in record.results))
            forged = dataclasses.replace(state, campaign_results=[*state.campaign_results[:-1], forged_record])
            stored.engine_state = game.dump_state(forged)
            raw.hset(game_key(game_id), "snapshot", stored.SerializeToString())
        async with replica_and_client(redis_server.url) as (replica, client):  # nothing cached
            view = await client.view(game_id)
            assert view.outcome != final.outcome, "the forged result is what the server now shows"
            status, report = await _verify(f"127.0.0.1:{replica.port}", game_id, recorded)
        assert status == 1 and report["verified"] is False, report

    run(scenario())


def test_verify_refuses_a_history_with_an_invented_event_in_a_join_entry(redis_server: EmbeddedRedis) -> None:
    """A card put on display, copied from a later step into the entry of the first seat taken
    (no move, so the replay makes no events for it): the history now shows a draw that never
    happened, and `verify` refuses it (it once said every shuffle, draw and move matched)."""

    async def scenario() -> None:
        game_id, recorded, _final = await _finished_game(redis_server.url, 42)
        with redis.Redis.from_url(redis_server.url) as raw:
            entries = [
                (stream_id, storage_pb2.LogEntry.FromString(fields[b"e"])) for stream_id, fields in raw.xrange(log_key(game_id))
            ]
            refill = next(
                stored for _, entry in entries for stored in entry.events if stored.event.stimmvieh.HasField("display_refilled")
            )
            join_id, join = next((i, e) for i, e in entries if e.events and e.events[0].event.HasField("seat_taken"))
            invented = join.events.add()
            invented.CopyFrom(refill)
            invented.event.version = join.version
            invented.event.seat = join.seat
            raw.delete(log_key(game_id))
            for stream_id, entry in entries:
                raw.xadd(log_key(game_id), {"e": (join if stream_id == join_id else entry).SerializeToString()}, id=stream_id)
        async with replica_and_client(redis_server.url) as (replica, client):  # nothing cached
            history = await client.history(game_id)
            shown = next(e for e in history if e.version == join.version)
            assert any(e.stimmvieh.HasField("display_refilled") for e in shown.events), "the invented draw is served"
            status, report = await _verify(f"127.0.0.1:{replica.port}", game_id, recorded)
        assert status == 1 and report["verified"] is False, report

    run(scenario())
