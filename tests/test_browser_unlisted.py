"""An unlisted table made from the lobby page at /play: its creator joins it, the lobby's Tables
list never shows it, and a second player who is sent its address opens it and joins. A listed
table made beside it is shown, so the list is read. Headless Chromium, as tests/test_browser.py."""

from __future__ import annotations

from typing import Any

import pytest

from conftest import create_and_join_from_the_lobby
from rest_helpers import LiveRest

pytestmark = pytest.mark.slow


def test_an_unlisted_table_is_joined_by_its_address_and_not_from_the_lobby(page: Any, second_page: Any, live: LiveRest) -> None:
    from playwright.sync_api import expect

    ada, bo = page, second_page
    game_id = create_and_join_from_the_lobby(ada, live.base_url, unlisted=True)
    address = ada.url
    view = live.ok("GET", f"/v1/games/{game_id}/view")["view"]
    assert view["table"]["unlisted"] is True

    # A listed table made after it is in Bo's lobby; the unlisted one is not.
    listed = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}})["gameId"]
    bo.goto(live.base_url + "/play")
    expect(bo.locator(f"[data-game-id='{listed}']")).to_have_count(1)
    expect(bo.locator(f"[data-game-id='{game_id}']")).to_have_count(0)

    # Sent the address, Bo opens the table and joins it.
    bo.goto(address)
    bo.fill("#join-name", "Bo")
    bo.click("#join-game")
    expect(bo.locator("#you")).to_contain_text("seat 1")
    seats = live.ok("GET", f"/v1/games/{game_id}/view")["view"]["seats"]
    assert [s.get("displayName") for s in seats[:2]] == ["Ada", "Bo"]
