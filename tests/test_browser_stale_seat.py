"""The browser client at /play with a seat it kept that the game no longer knows (taken over, or of
an earlier game under the same id): the table opens as a spectator's, with the form to join, and
the seat is forgotten; and a table that cannot be loaded shows its error on an empty table, not
under the screen of the table before. Headless Chromium, as tests/test_browser.py."""

from __future__ import annotations

from typing import Any

import pytest

from rest_helpers import LiveRest

pytestmark = pytest.mark.slow


def test_a_seat_the_game_no_longer_knows_is_forgotten_and_a_failed_table_shows_nothing_before(page: Any, live: LiveRest) -> None:
    from playwright.sync_api import expect

    game_id = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}, "table": {"botSeats": [1, 2]}})["gameId"]
    page.goto(f"{live.base_url}/play")
    key = f"hustings.seat.{game_id}"
    page.evaluate("(key) => localStorage.setItem(key, JSON.stringify({ seat: 0, token: 'a-token-this-game-never-gave-out' }))", key)

    page.goto(f"{live.base_url}/play#/game/{game_id}")
    expect(page.locator("#join-name")).to_be_visible()  # a spectator's table, free to join
    assert page.evaluate("(key) => localStorage.getItem(key)", key) is None
    expect(page.locator("#error")).to_be_hidden()
    page.fill("#join-name", "Ada")
    page.click("#join-game")
    expect(page.locator("#you")).to_contain_text("seat 0")

    page.evaluate("() => { location.hash = '#/game/gnosuchgame'; }")
    expect(page.locator("#error")).to_contain_text("GAME_NOT_FOUND")
    expect(page.locator("#you")).to_have_count(0)  # nothing of the table before under this address
