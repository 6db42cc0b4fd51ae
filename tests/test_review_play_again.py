"""PlayAgain seen by a stranger, a former player and a crowd: a taken-over seat's old token, a
game of retired content, overlapping creating attempts of different seconds, a next game made
again after it expired, and the page's double click. Tables are finished the quick way: every
player leaves, so the bots finish the game for them (at a quick pace here). Real Redis, real gRPC
and REST; the page's tests drive headless Chromium."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import grpc
import pytest
from redis import Redis

from conftest import run
from rest_helpers import LiveRest
from service_helpers import replica_and_client, stimmvieh_options
from hustings.client import ONE_ATTEMPT, Client, HustingsError, Joined
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.lobby import summary_of
from hustings.service.store import game_key
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2

pytestmark = pytest.mark.usefixtures("quick_bots")  # the bots' games only set the scene

PLAYERS = 3
FINISH_TIMEOUT_S = 40.0
POLL_S = 0.05
SHORT_RETENTION_S = 3
WAIT_MS = 20_000
SEATED_WAIT_MS = 10_000
QUIET_S = 1.0  # how long the page's calls must all have come back before its seats are counted
OPEN_S = 4  # how long the page test's next game waits for players before it expires


def _table(bot_seats: list[int], **settings: Any) -> game_pb2.TableSettings:
    table = game_pb2.TableSettings(**settings)
    table.bot_seats.extend(bot_seats)
    return table


async def _until_finished(client: Client, game_id: str) -> None:
    deadline = time.monotonic() + FINISH_TIMEOUT_S
    while (await client.view(game_id)).status != game_pb2.GAME_STATUS_FINISHED:
        assert time.monotonic() < deadline, "the bots did not finish the game in time"
        await asyncio.sleep(POLL_S)


async def _left_to_the_bots(client: Client, game_id: str, seats: list[int]) -> list[Joined]:
    """Players in ``seats`` of the open game ``game_id``, who then all leave: the bots finish it."""
    joined = [await client.join(game_id, f"Player {s}", seat=s) for s in seats]
    for player in joined:
        await client.leave(game_id, player.token)
    await _until_finished(client, game_id)
    return joined


async def _finished(client: Client, table: game_pb2.TableSettings) -> tuple[str, list[Joined]]:
    """A finished Stimmvieh game of three at ``table`` and its players (every seat not a bot's)."""
    created = await client.create_game("stimmvieh", PLAYERS, stimmvieh_options(PLAYERS), table=table)
    humans = [s for s in range(PLAYERS) if s not in table.bot_seats]
    return created.game_id, await _left_to_the_bots(client, created.game_id, humans)


# --- what holds ------------------------------------------------------------------------------


def test_a_seat_taken_over_leaves_its_old_token_no_next_game(redis_server: EmbeddedRedis) -> None:
    """Ada leaves, Cy takes her seat over (TakeOverSeat gives a fresh token) and leaves too; once
    the bots have finished, Ada's old token is INVALID_SEAT_TOKEN for PlayAgain (nothing made,
    the message names no game but the one asked about), while Cy, a player who left, may."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (replica, client):
            once = client.with_retry(ONE_ATTEMPT)
            created = await client.create_game("stimmvieh", PLAYERS, stimmvieh_options(PLAYERS), table=_table([1, 2], allow_takeover=True))
            game_id = created.game_id
            ada = await client.join(game_id, "Ada", seat=0)
            await client.leave(game_id, ada.token)
            cy = await client.take_over(game_id, 0, "Cy")
            await client.leave(game_id, cy.token)
            await _until_finished(client, game_id)
            next_id = replica.host.keys.next_game_id(game_id, (await replica.host.store.load(game_id)).seed_nonce)  # type: ignore[union-attr]

            with pytest.raises(HustingsError) as refused:
                await once.play_again(game_id, ada.token)
            assert (refused.value.code, refused.value.reason) == (grpc.StatusCode.UNAUTHENTICATED, "INVALID_SEAT_TOKEN")
            assert next_id not in refused.value.message and ada.token not in refused.value.message
            assert await replica.host.store.load(next_id) is None
            assert (await once.play_again(game_id, cy.token)).game_id == next_id

    run(scenario())


# --- what did not hold at first ---------------------------------------------------------------


def test_a_game_of_retired_content_plays_again_under_the_current_content(redis_server: EmbeddedRedis) -> None:
    """A finished game recorded as if by content whose rules this build no longer has (as in
    tests/test_catalogue_service.py): its player's PlayAgain makes the next game, under the
    content the server has now. The next game needs only the finished game's kind, options,
    table and seat tokens, none of which the content version touches."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):
            game_id, (me,) = await _finished(client, _table([1, 2]))
        raw = Redis.from_url(redis_server.url)
        try:
            stored = storage_pb2.StoredGame.FromString(raw.hget(game_key(game_id), "snapshot"))  # type: ignore[arg-type]
            stored.content_version = stored.rules_version = "0000000000000000"
            raw.hset(game_key(game_id), "snapshot", stored.SerializeToString())
        finally:
            raw.close()
        # A replica started now has nothing cached: it reads the game anew.
        async with replica_and_client(redis_server.url) as (replica, client):
            answer = await client.with_retry(ONE_ATTEMPT).play_again(game_id, me.token)
            assert answer.view.status == game_pb2.GAME_STATUS_OPEN
            made = await replica.host.store.load(answer.game_id)
            assert made is not None and made.content_version == replica.host.get_kind("stimmvieh").content_version

    run(scenario())


def test_a_losing_attempt_of_another_second_leaves_the_next_game_listed_once(redis_server: EmbeddedRedis) -> None:
    """Every player of a table calls PlayAgain at the end, on any replica: attempts overlap by
    design. Each indexes the game (summary and lobby position, from its own clock's second)
    before its commit, and only the first index of version 1 is kept. Here the losing attempt's
    write comes first, a second earlier than the winner's clock (the calls straddled a second):
    it is made by hand, the very write ``Host._open`` makes before its commit, so that the
    interleaving is certain. After a player joins, a ListGames filtered by kind (and by kind and
    OPEN) lists the next game twice."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (replica, client):
            game_id, seats = await _finished(client, _table([2]))
            next_id = replica.host.keys.next_game_id(game_id, (await replica.host.store.load(game_id)).seed_nonce)  # type: ignore[union-attr]
            loser = storage_pb2.StoredGame(
                game_id=next_id,
                kind="stimmvieh",
                version=1,
                status=game_pb2.GAME_STATUS_OPEN,
                created_at=int(replica.host._clock()) - 1,
            )
            for seat in range(PLAYERS):
                loser.seats.add(seat=seat)
            loser.seats[2].bot = True
            loser.table.CopyFrom(_table([2]))
            assert await replica.host.store.index(summary_of(loser))

            answer = await client.play_again(game_id, seats[0].token)  # the winner
            assert answer.game_id == next_id
            await client.join(next_id, "Player 0", seat=0)
            for status in (0, game_pb2.GAME_STATUS_OPEN):
                page = await client.games(kind="stimmvieh", status=status, page_size=100)
                listed = [g.game_id for g in page.games]
                assert listed.count(next_id) == 1, (status, listed.count(next_id))

    run(scenario())


@pytest.mark.slow
def test_a_next_game_made_again_after_it_expired_does_not_lead_to_its_predecessors_next_game(redis_server: EmbeddedRedis) -> None:
    """Table A finishes under a retention of 30 days. Its next game B is played, finishes and
    expires while A is still kept (retention lowered to a few seconds meanwhile: replicas of
    another setting, or a lowered --retention-days); B's players had gone on to C. A player of A
    calls PlayAgain again: B is made again under the same id (as the proto says). Whoever plays
    that new B (here a stranger) and then calls PlayAgain must get a table of their own, not C,
    the earlier B's players' table (unlisted here: its id is its only key)."""

    async def scenario() -> None:
        unlisted = _table([1, 2], unlisted=True)
        async with replica_and_client(redis_server.url) as (_replica, client):
            game_id, (me,) = await _finished(client, unlisted)
        async with replica_and_client(redis_server.url, retention_s=SHORT_RETENTION_S) as (replica, client):
            once = client.with_retry(ONE_ATTEMPT)
            b_id = (await once.play_again(game_id, me.token)).game_id
            (early,) = await _left_to_the_bots(client, b_id, [0])
            c_id = (await once.play_again(b_id, early.token)).game_id
            deadline = time.monotonic() + FINISH_TIMEOUT_S
            while await replica.host.store.load(b_id) is not None:  # B expires; A is still kept
                assert time.monotonic() < deadline, "the next game did not expire"
                await asyncio.sleep(POLL_S * 4)
            assert await replica.host.store.load(game_id) is not None

            again = await once.play_again(game_id, me.token)
            assert again.game_id == b_id and again.view.version == 1  # made again, under the same id
            (stranger,) = await _left_to_the_bots(client, b_id, [0])
            theirs = await once.play_again(b_id, stranger.token)
            assert theirs.game_id != c_id

    run(scenario())


# --- the page --------------------------------------------------------------------------------


def _finished_over_rest(live: LiveRest, table: dict[str, Any], seats: list[int]) -> tuple[str, list[dict[str, Any]]]:
    """A finished Stimmvieh game of three whose players (``seats``) joined and left over REST."""
    game_id = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": PLAYERS}, "table": table})["gameId"]
    joined = [
        live.ok("POST", f"/v1/games/{game_id}:join", {"displayName": f"Player {s}", "seat": s, "requestId": str(uuid.uuid4())})
        for s in seats
    ]
    for player in joined:
        live.ok("POST", f"/v1/games/{game_id}:leave", {}, token=player["seatToken"])
    deadline = time.monotonic() + FINISH_TIMEOUT_S
    while live.ok("GET", f"/v1/games/{game_id}/view")["view"]["status"] != "GAME_STATUS_FINISHED":
        assert time.monotonic() < deadline, "the bots did not finish the game in time"
        time.sleep(POLL_S)
    return game_id, joined


def _page_holding(browser: Any, live: LiveRest, game_id: str, joined: dict[str, Any]) -> tuple[Any, Any]:
    """A page whose browser holds ``joined``'s seat of ``game_id`` (as the page's own join keeps
    it), open at that game."""
    from playwright.sync_api import expect

    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    expect.set_options(timeout=WAIT_MS)
    page.goto(f"{live.base_url}/play")
    page.evaluate(
        "([id, seat, token]) => localStorage.setItem(`hustings.seat.${id}`, JSON.stringify({ seat, token }))",
        [game_id, joined.get("seat", 0), joined["seatToken"]],
    )
    page.goto(f"{live.base_url}/play#/game/{game_id}")
    return context, page


def _seat_taken_within(live: LiveRest, game_id: str, seat: int, seconds: float) -> bool:
    """Whether ``seat`` of ``game_id`` is taken within ``seconds`` (a game gone: not taken)."""
    deadline = time.monotonic() + seconds
    while True:
        answer = live.call("GET", f"/v1/games/{game_id}/view")
        if answer.status_code == 200 and answer.json()["view"]["seats"][seat].get("taken"):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(POLL_S * 4)


@pytest.mark.slow
def test_the_page_seats_its_player_in_a_next_game_made_again_after_it_expired(browser: Any, live: LiveRest) -> None:
    """Ada's page plays again: she sits in seat 0 of the next game, which waits (open_seconds: 4)
    for a second player who never comes, and expires. Later Ada plays again from the finished
    table: the next game is made again, under the same id, and her page must seat her again."""
    game_id, (ada, _bo) = _finished_over_rest(live, {"botSeats": [2], "openSeconds": OPEN_S}, [0, 1])
    context, page = _page_holding(browser, live, game_id, ada)
    try:
        page.click("#play-again")
        page.wait_for_url(lambda url: not url.endswith(game_id))
        next_id = page.url.rsplit("/", 1)[1]  # the page goes there once its join is answered
        assert live.ok("GET", f"/v1/games/{next_id}/view")["view"]["seats"][0]["displayName"] == "Player 0"
        deadline = time.monotonic() + FINISH_TIMEOUT_S
        while live.call("GET", f"/v1/games/{next_id}/view").status_code != 404:
            assert time.monotonic() < deadline, "the next game did not expire"
            time.sleep(POLL_S * 4)

        page.goto(f"{live.base_url}/play#/game/{game_id}")
        page.click("#play-again")
        page.wait_for_url(lambda url: url.endswith(next_id))
        # Her seat in the game made again, as the page's first click gave her one; the page
        # shows no error (a stale "You are ..." of the finished table may stay on it).
        assert _seat_taken_within(live, next_id, 0, OPEN_S / 2), page.locator("#error").all_text_contents()
        assert not page.locator("#error").is_visible(), page.locator("#error").all_text_contents()
    finally:
        context.close()


@pytest.mark.slow
def test_a_double_click_on_play_again_takes_one_seat(browser: Any, live: LiveRest) -> None:
    """Ada double-clicks "Play again" on a finished table of two players and a bot: her browser
    takes one seat of the next game and leaves the other to the second player."""
    game_id, (ada, _bo) = _finished_over_rest(live, {"botSeats": [2]}, [0, 1])
    context, page = _page_holding(browser, live, game_id, ada)
    in_flight: set[Any] = set()
    seen: list[str] = []

    def sent(request: Any) -> None:
        if request.method == "POST" and (request.url.endswith(":playAgain") or request.url.endswith(":join")):
            in_flight.add(request)
            seen.append(request.url.rsplit(":", 1)[1])

    page.on("request", sent)
    page.on("requestfinished", lambda request: in_flight.discard(request))
    page.on("requestfailed", lambda request: in_flight.discard(request))
    try:
        page.dblclick("#play-again")
        next_id = live.ok("POST", f"/v1/games/{game_id}:playAgain", {}, token=ada["seatToken"])["gameId"]
        page.wait_for_url(lambda url: url.endswith(next_id))
        # Both clicks' calls come back: none of the page's PlayAgain or join calls is in flight for
        # QUIET_S (a second click's calls, had it been let through, follow one another far sooner).
        deadline = time.monotonic() + SEATED_WAIT_MS / 1000
        quiet_since = time.monotonic()
        while time.monotonic() < deadline:
            page.wait_for_timeout(POLL_S * 1000)  # the page's events are taken meanwhile
            if in_flight:
                quiet_since = time.monotonic()
            elif time.monotonic() - quiet_since >= QUIET_S:
                break
        assert not in_flight, f"the page's calls were still in flight after {SEATED_WAIT_MS} ms"
        assert "join" in seen, seen  # the page sat its player (the test's own calls are not the page's)
        seats = live.ok("GET", f"/v1/games/{next_id}/view")["view"]["seats"]
        taken = [s for s in seats if s.get("taken") and not s.get("bot")]
        assert len(taken) == 1, [s.get("displayName") for s in taken]
    finally:
        context.close()
