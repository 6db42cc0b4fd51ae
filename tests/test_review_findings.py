"""Problems found by reviewing the service as an attacker and as a crowd, each pinned by a test
through the real parts: a real Redis process, real gRPC replicas (in-process, or `hustings
serve` as a process where its log lines are read).
"""

from __future__ import annotations

import json

import asyncio
import pathlib
import time

import pytest

from conftest import run, running_replica, serve_process
from service_helpers import choose_top_candidates, new_game, stimmvieh_options
from hustings.client import Client, HustingsError
from hustings.service import deadlines, lobby
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.lobby import LobbyRepair
from hustings.service.store import Store
from hustings.v1 import game_pb2

Change = game_pb2.SeatChanged.Change
REAL_GAMES = 8
MAX_PASSES = 12


async def _open_games(url: str, count: int) -> list[str]:
    """``count`` open games made through a replica, which is stopped again (so that only the
    repairs of the test run)."""
    async with running_replica(url) as replica:
        async with Client(f"127.0.0.1:{replica.port}") as client:
            return [(await client.create_game("stimmvieh", 3, stimmvieh_options(3))).game_id for _ in range(count)]


def _small_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Passes of 4 live entries and prunes of 2 lobby entries: the caps of 100,000 games, at the
    size of a test."""
    monkeypatch.setattr(lobby, "REPAIR_BATCH", 2)
    monkeypatch.setattr(lobby, "REPAIR_MAX_PER_PASS", 4)


def test_lobby_repair_reaches_live_entries_beyond_one_pass(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each pass is capped; the next pass must go on where the last one stopped, or the newest
    games of a big lobby are never repaired (here: a ghost whose creation never committed)."""
    _small_passes(monkeypatch)

    async def scenario(url: str) -> None:
        games = await _open_games(url, REAL_GAMES)
        store = Store.from_url(url)
        try:
            ghost = game_pb2.GameSummary(
                game_id="gghostbeyondthecap", kind="stimmvieh", version=1, created_at=int(time.time()) + 60,
                status=game_pb2.GAME_STATUS_OPEN,
            )
            assert await store.index(ghost)
            repair = LobbyRepair(store, clock=lambda: time.time() + 3600)  # long past the ghost's grace
            for _pass in range(MAX_PASSES):
                await repair.repair_once()
                listed = {s.game_id for s in await store.lobby(0, 100)}
                if ghost.game_id not in listed:
                    break
            assert ghost.game_id not in listed, f"still indexed after {MAX_PASSES} passes"
            assert set(games) <= listed  # the real games stay
        finally:
            await store.close()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url))


def test_lobby_prune_reaches_expired_entries_behind_kept_games(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The prune of expired entries looked only at the oldest batch of the lobby: once that
    batch holds games that are kept (running games never expire), the entries of finished
    games that expired behind them stayed in the lobby for ever."""
    _small_passes(monkeypatch)

    async def scenario(url: str) -> None:
        games = await _open_games(url, REAL_GAMES)
        store = Store.from_url(url)
        try:
            expired = game_pb2.GameSummary(
                game_id="gfinishedandexpired", kind="stimmvieh", version=40, created_at=int(time.time()) + 60,
                status=game_pb2.GAME_STATUS_FINISHED,
            )
            assert await store.index(expired)
            repair = LobbyRepair(store, clock=lambda: time.time() + 3600)
            for _pass in range(MAX_PASSES):
                await repair.repair_once()
                listed = {s.game_id for s in await store.lobby(0, 100)}
                if expired.game_id not in listed:
                    break
            assert expired.game_id not in listed, f"still indexed after {MAX_PASSES} passes"
            assert set(games) <= listed
        finally:
            await store.close()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url))


def test_lobby_prune_keeps_up_when_entries_expire_faster_than_a_batch_a_pass(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Entries expire as fast as games were created a retention earlier. A pass pruned one batch
    of the oldest entries (500 every 2.5-5 s, about 130 games a second), so a deployment creating
    more than that kept a growing lobby of expired entries; a pass now goes on while most of a
    batch has expired."""
    _small_passes(monkeypatch)
    expired_count = lobby.REPAIR_BATCH * 3  # three batches' worth, older than every real game

    async def scenario(url: str) -> None:
        games = await _open_games(url, REAL_GAMES)
        store = Store.from_url(url)
        try:
            expired = [f"gexpiredlongago{i:04d}" for i in range(expired_count)]
            for i, game_id in enumerate(expired):
                summary = game_pb2.GameSummary(
                    game_id=game_id, kind="stimmvieh", version=40, created_at=1_000 + i, status=game_pb2.GAME_STATUS_FINISHED
                )
                assert await store.index(summary)
            await LobbyRepair(store).repair_once()  # one pass
            listed = {s.game_id for s in await store.lobby(0, 100)}
            assert not listed & set(expired), f"{len(listed & set(expired))} of {expired_count} expired entries left"
            assert set(games) <= listed  # the real games stay
        finally:
            await store.close()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url))


def test_request_ids_of_moves_are_not_logged(redis_server: EmbeddedRedis) -> None:
    """A move's request id (applied, retried and refused) never reaches the log lines; the
    lines still say what happened."""
    move_id = "move-request-id-Qv8LzT3w"
    refused_id = "refused-request-id-Hn5Rk2Ye"
    with serve_process("--redis-url", redis_server.url) as (process, port):

        async def scenario() -> str:
            async with Client(f"127.0.0.1:{port}") as client:
                seats = await new_game(client, 4)
                game_id = seats[0].game_id
                move = choose_top_candidates(1, 2, 3, 4)
                first = await client.move(game_id, seats[0].token, move, request_id=move_id)
                again = await client.move(game_id, seats[0].token, move, request_id=move_id)
                assert again.version == first.version  # the retry answered, nothing applied twice
                try:  # a second choice of the same seat: refused by the rules
                    await client.move(game_id, seats[0].token, move, request_id=refused_id)
                except HustingsError as refusal:
                    assert refusal.reason
                else:
                    raise AssertionError("a seat chose its top candidates twice")
                return game_id

        game_id = run(scenario())
    logs = process.log_text  # type: ignore[attr-defined]
    assert f'"game_id": "{game_id}"' in logs and "move_applied" in logs and "move_rejected" in logs
    assert move_id not in logs
    assert refused_id not in logs
    # README: a move's lines are bound with game id, seat, version and request_key (a keyed
    # hash of the request id: the applied move and its retry share one, the refused one not).
    lines = [json.loads(line) for line in logs.splitlines() if line.startswith("{")]
    applied = [line for line in lines if line.get("event") == "move_applied"]
    rejected = [line for line in lines if line.get("event") == "move_rejected"]
    assert len(applied) == 1 and len(rejected) == 1, (applied, rejected)
    assert applied[0]["game_id"] == game_id and applied[0]["seat"] == 0 and applied[0]["version"] >= 1
    assert rejected[0]["game_id"] == game_id and rejected[0]["seat"] == 0
    keys = {line["request_key"] for line in applied + rejected}
    assert len(keys) == 2 and all(len(key) == 16 for key in keys)


def test_leaving_an_open_game_names_who_left(redis_server: EmbeddedRedis) -> None:
    """The SeatChanged LEFT event of a freed seat names the player who left (the name was
    cleared before the event was written, so every seat read an anonymous departure)."""

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                created = await client.create_game("stimmvieh", 3, stimmvieh_options(3))
                ada = await client.join(created.game_id, "Ada")
                await client.leave(created.game_id, ada.token)
                history = await client.history(created.game_id)
                left = [
                    e.seat_changed
                    for h in history
                    for e in h.events
                    if e.HasField("seat_changed") and e.seat_changed.change == Change.CHANGE_LEFT
                ]
                assert [(c.seat, c.display_name) for c in left] == [(ada.seat, "Ada")]
                view = await client.view(created.game_id)
                assert not view.seats[ada.seat].taken and view.seats[ada.seat].display_name == ""

    run(scenario())


def test_a_pass_over_due_decisions_stays_within_its_lease(redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch) -> None:
    """A replica that claims a due game holds it for one lease; a pass that went on past it
    (200 decisions of 0.2 s bots are 40 s against a 10 s lease) let other replicas claim the
    game too and compute the same decisions again. With no lease at all, a pass makes one
    decision and asks for the next look at once, where it used to play the whole game."""
    lease_ms = deadlines.LEASE_MS
    monkeypatch.setattr(deadlines, "LEASE_MS", 0)

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                table = game_pb2.TableSettings(bot_seats=[0, 1, 2], bot_level="random")
                created = await client.create_game("stimmvieh", 3, stimmvieh_options(3), table=table)
                game_id = created.game_id
                before = time.time() * 1000
                next_due, _seen = await replica.host.seats.apply_due(game_id)
                view = await client.view(game_id)
                assert view.status == game_pb2.GAME_STATUS_ACTIVE, "the whole game was played in one pass"
                assert next_due >= before  # look again at once
                # With its lease back, the runner brings the game to its end from where it stood.
                monkeypatch.setattr(deadlines, "LEASE_MS", lease_ms)
                for _look in range(600):
                    if (await client.view(game_id)).status == game_pb2.GAME_STATUS_FINISHED:
                        break
                    await asyncio.sleep(0.05)
                assert (await client.view(game_id)).status == game_pb2.GAME_STATUS_FINISHED

    run(scenario())
