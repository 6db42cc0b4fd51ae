"""The browser client at /play plays again: at a finished table a player's page offers "Play
again", which starts the next game at the same table (PlayAgain) and sits the player in the seat
they had, so that a table of bots starts at once. Headless Chromium, as tests/test_browser.py; the
game itself is played to its end over REST with the page's own seat token."""

from __future__ import annotations

from typing import Any

import pytest

from rest_helpers import LiveRest, play_seat_to_end

pytestmark = pytest.mark.slow
GAME_TIMEOUT_S = 60.0


def test_a_player_plays_again_from_the_finished_table(page: Any, live: LiveRest) -> None:
    from playwright.sync_api import expect

    created = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}, "table": {"botSeats": [1, 2]}})
    game_id = created["gameId"]
    page.goto(f"{live.base_url}/play#/game/{game_id}")
    page.fill("#join-name", "Ada")
    page.click("#join-game")
    expect(page.locator("#you")).to_contain_text("seat 0")
    token = page.evaluate("(id) => JSON.parse(localStorage.getItem(`hustings.seat.${id}`)).token", game_id)
    assert page.locator("#play-again").count() == 0  # not while the game is in play

    play_seat_to_end(live, game_id, token, seed=3, timeout_s=GAME_TIMEOUT_S)
    expect(page.locator("#play-again")).to_be_visible()
    page.click("#play-again")
    page.wait_for_url(lambda url: game_id not in url)
    next_id = page.url.rsplit("/", 1)[1]
    # The next game is the one every player of the table is given.
    assert live.ok("POST", f"/v1/games/{game_id}:playAgain", {}, token=token)["gameId"] == next_id
    expect(page.locator("#you")).to_contain_text("seat 0")
    view = live.ok("GET", f"/v1/games/{next_id}/view")["view"]
    assert view["seats"][0]["displayName"] == "Ada"
    assert [s.get("bot", False) for s in view["seats"]] == [False, True, True]
    assert view["status"] == "GAME_STATUS_ACTIVE"  # every seat taken: it has started
