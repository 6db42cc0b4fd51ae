"""/play as players use it, in headless Chromium (as tests/test_browser.py), on a slow network:
a double click on Join, Create table, Play against bots, Take over or Seat a bot sends one
request (it took two seats, made two tables, or showed the second call's refusal), and the
lobby keeps seats in order when their names are written right to left (each name isolated)."""

from __future__ import annotations

from typing import Any

import pytest

from rest_helpers import LiveRest

pytestmark = pytest.mark.slow
SLOW_MS = 800  # a slow network: how long each delayed call waits before it goes out


def _delay(page: Any, pattern: str) -> None:
    """Every request matching ``pattern`` goes out SLOW_MS late (a slow network)."""
    page.route(pattern, lambda route: (page.wait_for_timeout(SLOW_MS), route.continue_()))


def test_a_double_click_on_join_in_the_lobby_takes_one_seat(page: Any, live: LiveRest) -> None:
    from playwright.sync_api import expect

    game_id = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 4}})["gameId"]
    page.goto(f"{live.base_url}/play")
    page.fill("#player-name", "Ada")
    page.dispatch_event("#player-name", "change")
    joins: list[str] = []
    page.on("request", lambda r: joins.append(r.url) if r.url.endswith(":join") else None)
    _delay(page, "**/*:join")
    button = page.locator(f"[data-game-id='{game_id}'] button.join")
    button.dblclick()
    page.wait_for_url(f"**/play#/game/{game_id}")
    expect(page.locator("#you")).to_contain_text("seat")
    page.wait_for_timeout(SLOW_MS)
    seats = live.ok("GET", f"/v1/games/{game_id}/view")["view"]["seats"]
    taken = [s for s in seats if s.get("taken")]
    assert len(taken) == 1, f"one double click took {len(taken)} seats ({len(joins)} join calls): {taken}"


def test_a_double_click_on_play_against_bots_makes_one_table(page: Any, live: LiveRest) -> None:
    from playwright.sync_api import expect

    page.goto(f"{live.base_url}/play")
    page.fill("#player-name", "Ada")
    page.select_option("#new-kind", "stimmvieh")
    created: list[str] = []
    page.on("request", lambda r: created.append(r.url) if r.method == "POST" and r.url.endswith("/v1/games") else None)
    _delay(page, "**/v1/games")
    page.locator("#play-bots").dblclick()
    page.wait_for_url("**/play#/game/*")
    expect(page.locator("#you")).to_contain_text("seat 0")
    page.wait_for_timeout(2 * SLOW_MS)
    assert len(created) == 1, f"one double click on “Play against bots” made {len(created)} tables"


# Where a name stands on screen, from the left: the x of the first character of its first occurrence
# in the text of the element.
NAME_X = """([el, name]) => { const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const at = node.data.indexOf(name);
      if (at < 0) continue;
      const range = document.createRange(); range.setStart(node, at); range.setEnd(node, at + name.length);
      return range.getBoundingClientRect().left; }
    return null; }"""


def test_the_lobby_shows_seats_with_right_to_left_names_in_seat_order(page: Any, live: LiveRest) -> None:
    from playwright.sync_api import expect

    first, second = "אבג", "דהו"  # Hebrew names, seats 0 and 1
    game_id, _ = live.new_game(players=3, names=(first, second))
    page.goto(f"{live.base_url}/play")
    line = page.locator(f"[data-game-id='{game_id}'] .game-main div")
    expect(line).to_contain_text("free seat")
    handle = line.element_handle()
    x0 = page.evaluate(NAME_X, [handle, first])
    x1 = page.evaluate(NAME_X, [handle, second])
    assert x0 is not None and x1 is not None
    assert x0 < x1, f"seat 0 ({first}) is drawn at x={x0}, right of seat 1 ({second}) at x={x1}: {line.inner_text()!r}"


def test_a_double_click_on_take_over_takes_the_seat_without_an_error(page: Any, live: LiveRest) -> None:
    from playwright.sync_api import expect

    table = {"decisionSeconds": 600, "absentAfterTimeouts": 3, "allowTakeover": True}
    game_id = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}, "table": table})["gameId"]
    tokens = [live.ok("POST", f"/v1/games/{game_id}:join", {"displayName": n, "requestId": f"{game_id}-{n}"})["seatToken"] for n in ("Ada", "Bo", "Cy")]
    live.ok("POST", f"/v1/games/{game_id}:leave", {}, token=tokens[2])
    page.goto(f"{live.base_url}/play#/game/{game_id}")
    page.locator(".take-over-name").fill("Dee")
    _delay(page, "**/*:takeOver")
    page.locator("button.take-over").dblclick()
    expect(page.locator("#you")).to_contain_text("seat 2")
    page.wait_for_timeout(2 * SLOW_MS)
    assert page.locator("#error").is_hidden(), page.locator("#error").inner_text()


def test_a_double_click_on_seat_a_bot_seats_one_bot_without_an_error(page: Any, live: LiveRest) -> None:
    from playwright.sync_api import expect

    game_id = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 4}})["gameId"]
    page.goto(f"{live.base_url}/play#/game/{game_id}")
    expect(page.locator("#join-game")).to_be_visible()
    expect(page.locator("#add-bot")).to_have_count(0)  # a spectator seats no bot (NOT_AT_THE_TABLE)
    page.fill("#join-name", "Ada")
    page.click("#join-game")
    expect(page.locator("#add-bot")).to_contain_text("3 free")
    _delay(page, "**/*:addBot")
    page.locator("#add-bot").dblclick()
    expect(page.locator("#add-bot")).to_contain_text("2 free")
    page.wait_for_timeout(2 * SLOW_MS)
    assert page.locator("#error").is_hidden(), page.locator("#error").inner_text()
    seats = live.ok("GET", f"/v1/games/{game_id}/view")["view"]["seats"]
    assert sum(1 for s in seats if s.get("bot")) == 1
