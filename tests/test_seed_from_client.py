"""A game whose seed its creator chose says so: ``seed_chosen_by_creator`` in every view (seats,
spectators, WatchGame, REST) and in the lobby, from creation on; false for a server-drawn seed
and for games stored before the mark was recorded."""

from __future__ import annotations

from typing import Any, Iterator

import pytest
import redis

from conftest import run
from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store import LOBBY_GAMES_KEY, game_key
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2
from rest_helpers import LiveRest
from service_helpers import replica_and_client, stimmvieh_options

PLAYERS = 3
CLIENT_SEED = "c0ffee" * 10 + "c0de"  # 64 hex digits
BROWSER_WAIT_MS = 20_000
LOBBY_PAGES = 10  # bound on the lobby pages read to find one game (the session's Redis is shared)


async def _lobby_marks(client: Client, game_id: str, status: int) -> list[bool]:
    """The game's mark in the whole lobby and in the lobby filtered by its kind and status."""
    marks = []
    for kind, wanted in (("", 0), ("stimmvieh", status)):
        token = ""
        for _ in range(LOBBY_PAGES):
            page = await client.games(kind=kind, status=wanted, page_size=50, page_token=token)
            found = [g for g in page.games if g.game_id == game_id]
            if found:
                marks.append(found[0].seed_chosen_by_creator)
                break
            token = page.next_page_token
            if not token:
                break
        else:
            raise AssertionError("the lobby page bound was reached")
        assert len(marks) == (1 if not kind else 2), f"game missing from the lobby (kind {kind!r})"
    return marks


async def _first_watched_view(client: Client, game_id: str, token: str | None) -> game_pb2.GameView:
    """The view of WatchGame's first update (the game as it is, from version 0)."""
    async for update in client.watch(game_id, token, from_version=0):
        return update.view
    raise AssertionError("WatchGame ended without an update")


async def _every_mark(client: Client, seed: str) -> list[bool]:
    """The mark as each part of the API shows it, through a game's creation, joins and start."""
    created = await client.create_game("stimmvieh", PLAYERS, stimmvieh_options(PLAYERS), seed=seed)
    game_id = created.game_id
    marks = [created.view.seed_chosen_by_creator]
    marks.append((await client.view(game_id)).seed_chosen_by_creator)  # a spectator
    marks += await _lobby_marks(client, game_id, game_pb2.GAME_STATUS_OPEN)
    first = await client.join(game_id, "Joiner")
    marks.append(first.view.seed_chosen_by_creator)
    marks.append((await client.view(game_id, first.token)).seed_chosen_by_creator)
    marks.append((await _first_watched_view(client, game_id, first.token)).seed_chosen_by_creator)
    for i in range(1, PLAYERS):
        joined = await client.join(game_id, f"Player {i}")
        marks.append(joined.view.seed_chosen_by_creator)
    # Started: every seat's view, a spectator's, a watching spectator's and the lobby's.
    view = await client.view(game_id, first.token)
    assert view.status == game_pb2.GAME_STATUS_ACTIVE
    marks.append(view.seed_chosen_by_creator)
    marks.append((await client.view(game_id)).seed_chosen_by_creator)
    marks.append((await _first_watched_view(client, game_id, None)).seed_chosen_by_creator)
    marks += await _lobby_marks(client, game_id, game_pb2.GAME_STATUS_ACTIVE)
    return marks


def test_a_game_dealt_from_its_creators_seed_says_so_in_every_view_and_the_lobby(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with replica_and_client(redis_server.url, allow_client_seed=True) as (_replica, client):
            chosen = await _every_mark(client, CLIENT_SEED)
            drawn = await _every_mark(client, "")  # the server may take a seed, but none was sent
        assert chosen == [True] * len(chosen)
        assert drawn == [False] * len(drawn)

    run(scenario())


def test_a_server_that_chooses_every_seed_marks_no_game(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with replica_and_client(redis_server.url, allow_client_seed=False) as (_replica, client):
            marks = await _every_mark(client, "")
        assert marks == [False] * len(marks)

    run(scenario())


def test_a_game_stored_before_the_mark_loads_and_reads_unmarked(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with replica_and_client(redis_server.url, allow_client_seed=True) as (_replica, client):
            created = await client.create_game("stimmvieh", PLAYERS, stimmvieh_options(PLAYERS), seed=CLIENT_SEED)
        game_id = created.game_id
        assert created.view.seed_chosen_by_creator
        # The snapshot and lobby summary as a build without the mark wrote them: without the field.
        raw = redis.Redis.from_url(redis_server.url)
        try:
            stored = storage_pb2.StoredGame.FromString(raw.hget(game_key(game_id), "snapshot"))  # type: ignore[arg-type]
            assert stored.seed_from_client
            stored.ClearField("seed_from_client")
            raw.hset(game_key(game_id), "snapshot", stored.SerializeToString())
            summary = game_pb2.GameSummary.FromString(raw.hget(LOBBY_GAMES_KEY, game_id))  # type: ignore[arg-type]
            summary.ClearField("seed_chosen_by_creator")
            raw.hset(LOBBY_GAMES_KEY, game_id, summary.SerializeToString())
        finally:
            raw.close()
        # A replica started now has nothing cached: it reads the old snapshot, and plays it.
        async with replica_and_client(redis_server.url, allow_client_seed=True) as (_replica, client):
            assert (await client.view(game_id)).seed_chosen_by_creator is False
            assert await _lobby_marks(client, game_id, game_pb2.GAME_STATUS_OPEN) == [False, False]
            seats = [await client.join(game_id, f"Player {i}") for i in range(PLAYERS)]
            view = await client.view(game_id, seats[0].token)
            assert view.status == game_pb2.GAME_STATUS_ACTIVE and view.seed_chosen_by_creator is False
            assert await _lobby_marks(client, game_id, game_pb2.GAME_STATUS_ACTIVE) == [False, False]

    run(scenario())


@pytest.fixture(scope="module")
def live(redis_server: EmbeddedRedis) -> Iterator[LiveRest]:
    with LiveRest(redis_server.url, allow_client_seed=True) as served:
        yield served


def test_rest_json_shows_the_mark_in_camel_case(live: LiveRest) -> None:
    body = {"kind": "stimmvieh", "options": {"players": PLAYERS}}
    chosen = live.ok("POST", "/v1/games", {**body, "seed": CLIENT_SEED})
    drawn = live.ok("POST", "/v1/games", body)
    lobby = live.ok("GET", "/v1/games", params={"kind": "stimmvieh", "status": "GAME_STATUS_OPEN", "pageSize": 50})
    listed = {g["gameId"]: g for g in lobby["games"]}
    for created, mark in ((chosen, True), (drawn, False)):
        game_id = created["gameId"]
        assert created["view"]["seedChosenByCreator"] is mark
        assert live.ok("GET", f"/v1/games/{game_id}/view")["view"]["seedChosenByCreator"] is mark
        assert listed[game_id]["seedChosenByCreator"] is mark


@pytest.mark.slow
def test_the_browser_table_notes_a_deal_chosen_by_its_creator(live: LiveRest, browser: Any) -> None:
    body = {"kind": "stimmvieh", "options": {"players": PLAYERS}}
    chosen = live.ok("POST", "/v1/games", {**body, "seed": CLIENT_SEED})["gameId"]
    drawn = live.ok("POST", "/v1/games", body)["gameId"]
    assert "chosen by its creator" in (_table_note(live, browser, chosen) or "")
    assert _table_note(live, browser, drawn) is None


def _table_note(live: LiveRest, browser: Any, game_id: str) -> str | None:
    """The note on a deal chosen by its creator, as a fresh page of the game's table shows it."""
    page = browser.new_page()
    try:
        page.goto(f"{live.base_url}/play#/game/{game_id}")
        # The note is drawn with the rest of the summary, in the same render as "You are watching."
        page.wait_for_selector("#summary #you", timeout=BROWSER_WAIT_MS)
        return page.inner_text("#seed-chosen") if page.locator("#seed-chosen").count() else None
    finally:
        page.close()
