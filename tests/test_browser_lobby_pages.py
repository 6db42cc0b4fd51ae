"""/play's lobby a page at a time, in headless Chromium against a real replica: the first page
shows the newest 50 tables, "More tables" follows the page token until the lobby ends (the page
showed the first 50 and no way to the rest), and a table is never shown twice."""

from __future__ import annotations

from typing import Any

import pytest

from rest_helpers import LiveRest

pytestmark = pytest.mark.slow
TABLES = 57  # more than a page of 50


def test_more_tables_shows_the_rest_of_the_lobby(page: Any, live: LiveRest) -> None:
    from playwright.sync_api import expect

    made = {live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}})["gameId"] for _ in range(TABLES)}
    page.goto(f"{live.base_url}/play")
    rows = page.locator("#games tr.game-row")
    expect(rows).to_have_count(50)
    more = page.locator("#more-games")
    for _ in range(10):  # bounded: the tables made here are the lobby's newest, in its first pages
        shown = {rows.nth(i).get_attribute("data-game-id") for i in range(rows.count())}
        if made <= shown or more.is_hidden():
            break
        count = rows.count()
        more.click()
        expect(rows).not_to_have_count(count)
    ids = [rows.nth(i).get_attribute("data-game-id") for i in range(rows.count())]
    assert len(ids) == len(set(ids)), "a table was shown twice"
    assert made <= set(ids), f"{len(made - set(ids))} of the {TABLES} tables made are not shown"
    assert page.locator("#error").is_hidden(), page.locator("#error").inner_text()


def test_a_lobby_that_ends_on_its_page_offers_no_more(page: Any, tmp_path_factory: Any) -> None:
    """A lobby of fewer tables than a page: every table at once, and no "More tables"."""
    from playwright.sync_api import expect

    from hustings.service.embedded_redis import EmbeddedRedis

    own = EmbeddedRedis(tmp_path_factory.mktemp("small-lobby"), appendonly=False).start()
    try:
        with LiveRest(own.url) as small:
            for _ in range(3):
                small.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}})
            page.goto(f"{small.base_url}/play")
            expect(page.locator("#games tr.game-row")).to_have_count(3)
            assert page.locator("#more-games").is_hidden()
    finally:
        own.stop()


def test_tables_waiting_for_players_come_first(page: Any, live: LiveRest) -> None:
    """One address's games in play, made and joined at its create rate, filled the lobby's first
    page and pushed a table waiting for players off it. Now the newest tables waiting for players
    come first, and then the newest of all: an older open table is on top of 50 newer games in
    play, and shown once (a page may come back short while more follow: at least 50 rows)."""
    from playwright.sync_api import expect

    waiting = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}})["gameId"]
    made = [live.new_game(players=3)[0] for _ in range(50)]  # newer, and in play: every seat joined
    page.goto(f"{live.base_url}/play")
    rows = page.locator("#games tr.game-row")
    expect(rows.first).to_have_attribute("data-game-id", waiting)
    expect(rows.nth(49)).to_be_visible()  # then the newest of all: the games in play
    ids = [rows.nth(i).get_attribute("data-game-id") for i in range(rows.count())]
    in_play = set(made)
    assert ids.count(waiting) == 1 and len(ids) == len(set(ids)) and len(in_play & set(ids[1:])) >= 49
    assert page.locator("#error").is_hidden(), page.locator("#error").inner_text()
