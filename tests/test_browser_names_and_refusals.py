"""/play as a player meets the server's name checks, in headless Chromium (Debian's, as
tests/test_browser.py) against a real replica: a display name the server refuses
(BAD_DISPLAY_NAME) on "Play against bots" makes one table, not one per try; "Play again" sits the
player under the name the seat played under, not a refused one typed since; the log names seats
whose names read alike as the seat strip does; and no name passes for another seat's label.
"""

from __future__ import annotations

from typing import Any

import pytest

from rest_helpers import LiveRest, play_seat_to_end

pytestmark = pytest.mark.slow

MIXED = "B\u043eb"  # Latin B and b around a Cyrillic о: refused BAD_DISPLAY_NAME
ALIKE = "\u0410\u0501\u0430"  # "Ada" wholly in Cyrillic letters: sits, and reads as "Ada"
GAME_TIMEOUT_S = 30.0
SETTLE_MS = 5000  # how long a page may take to show the answer of a click it was given


def _lobby_ids(live: LiveRest) -> set[str]:
    """Every game the lobby lists, following its page tokens (bounded)."""
    ids: set[str] = set()
    token = ""
    for _ in range(20):
        page = live.ok("GET", f"/v1/games?pageSize=50{'&pageToken=' + token if token else ''}")
        ids |= {g["gameId"] for g in page.get("games", [])}
        token = page.get("nextPageToken", "")
        if not token:
            return ids
    raise AssertionError("the lobby's pages did not end")


def test_play_against_bots_with_a_refused_name_leaves_no_table_behind(page: Any, live: LiveRest) -> None:
    """A player types a name the server refuses and presses "Play against bots", reads the
    refusal, corrects the name and presses again: one table of theirs in the lobby, not also
    the first try's, whose seat 0 is free beside its bots."""
    from playwright.sync_api import expect

    page.goto(f"{live.base_url}/play")
    page.select_option("#new-kind", "stimmvieh")
    before = _lobby_ids(live)
    page.fill("#player-name", MIXED)
    page.click("#play-bots")
    expect(page.locator("#error")).to_contain_text("BAD_DISPLAY_NAME")
    page.fill("#player-name", "Bob")
    page.click("#play-bots")
    page.wait_for_url("**/play#/game/*")
    expect(page.locator("#you")).to_contain_text("seat 0")
    made = _lobby_ids(live) - before
    assert len(made) == 1, f"two presses of “Play against bots”, one refused, left {len(made)} tables in the lobby"


def test_a_name_written_as_another_seats_label_does_not_pass_for_that_seat(page: Any, live: LiveRest) -> None:
    """Two server bots share a name, so the page numbers them: "Bot (random) (seat 1)" and
    "Bot (random) (seat 2)". A player who sits as "Bot (random) (seat 2)" should not show as the
    bot of seat 2 (the seat strip, the log, "Waiting for"): every seat reads as itself."""
    from playwright.sync_api import expect

    game_id = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}, "table": {"botSeats": [1, 2]}})["gameId"]
    bot = live.ok("GET", f"/v1/games/{game_id}/view")["view"]["seats"][2]["displayName"]
    live.call("POST", f"/v1/games/{game_id}:join", {"displayName": f"{bot} (seat 2)", "seat": 0})  # refused once fixed on the server
    page.goto(f"{live.base_url}/play#/game/{game_id}")
    chips = page.locator("#seats .seat-name")
    expect(chips).to_have_count(3)
    labels = [chips.nth(i).inner_text() for i in range(3)]
    assert len(set(labels)) == 3, f"two seats show as one: {labels}"


def test_the_log_tells_which_of_two_alike_named_seats_left(page: Any, live: LiveRest) -> None:
    """"Ada" sits at seat 0 and "Аԁа" (Cyrillic letters) at seat 1: the seat strip numbers them,
    and the log's line for seat 1 leaving should too, not read "Ada left the table" while Ada is
    there."""
    from playwright.sync_api import expect

    game_id = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}, "table": {"botSeats": [2]}})["gameId"]
    live.ok("POST", f"/v1/games/{game_id}:join", {"displayName": "Ada", "seat": 0})
    cyr = live.ok("POST", f"/v1/games/{game_id}:join", {"displayName": ALIKE, "seat": 1})
    live.ok("POST", f"/v1/games/{game_id}:leave", {}, token=cyr["seatToken"])
    page.goto(f"{live.base_url}/play#/game/{game_id}")
    expect(page.locator("#seats .seat-name").nth(1)).to_have_text(f"{ALIKE} (seat 1)")  # the strip tells them apart
    left = page.locator("#log li", has_text="left the table")
    expect(left).to_have_count(1)
    assert "seat 1" in left.inner_text(), f"the log reads {left.inner_text()!r}"


def test_play_again_after_a_refused_name_sits_the_player_under_the_name_it_had(page: Any, live: LiveRest) -> None:
    """Ada finishes a game against bots, tries a name the server refuses at another table
    (the page keeps it as her name), comes back and presses "Play again": she should sit in
    the next game under the name she played as, not be refused BAD_DISPLAY_NAME at the
    finished table (which has no name field to correct)."""
    from playwright.sync_api import expect

    game_id = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}, "table": {"botSeats": [1, 2]}})["gameId"]
    other = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}})["gameId"]
    page.goto(f"{live.base_url}/play#/game/{game_id}")
    page.fill("#join-name", "Ada")
    page.click("#join-game")
    expect(page.locator("#you")).to_contain_text("seat 0")
    token = page.evaluate("(id) => JSON.parse(localStorage.getItem(`hustings.seat.${id}`)).token", game_id)
    play_seat_to_end(live, game_id, token, seed=5, timeout_s=GAME_TIMEOUT_S)
    expect(page.locator("#play-again")).to_be_visible()
    page.evaluate("() => { location.hash = ''; }")
    page.fill("#player-name", MIXED)
    page.locator(f"tr.game-row[data-game-id='{other}'] button.join").click()
    expect(page.locator("#error")).to_contain_text("BAD_DISPLAY_NAME")
    page.evaluate("(id) => { location.hash = `#/game/${id}`; }", game_id)
    page.click("#play-again")
    page.wait_for_function(
        "(id) => !location.hash.includes(id) || !document.getElementById('error').hidden", arg=game_id, timeout=SETTLE_MS
    )
    assert game_id not in page.url, f"the page stayed at the finished table: {page.locator('#error').inner_text()}"
    expect(page.locator("#you")).to_contain_text("seat 0")


def test_a_server_bots_name_without_its_blank_is_refused(live: LiveRest) -> None:
    """proto JoinGameRequest.display_name: not a server bot's name ("Bot (random)", however
    written). On /play "Bot(random)" at a table of bots reads as one more of them."""
    game_id = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}})["gameId"]
    answer = live.call("POST", f"/v1/games/{game_id}:join", {"displayName": "Bot(random)"})
    assert answer.status_code == 400, f"“Bot(random)” sat: HTTP {answer.status_code}"  # (the answer holds a seat token)
    assert answer.json()["details"][0]["reason"] == "BAD_DISPLAY_NAME"


def test_the_log_names_a_seats_earlier_moves_by_the_player_who_made_them(page: Any, live: LiveRest) -> None:
    """Ada chooses her top candidates, leaves, and Dee takes her seat over: the log tells Ada's
    choice as Ada's (with her seat's number, as a name the seat no longer has), not as Dee's,
    and what Dee does after as Dee's."""
    from playwright.sync_api import expect

    table = {"decisionSeconds": 600, "absentAfterTimeouts": 3, "allowTakeover": True}
    game_id = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}, "table": table})["gameId"]
    tokens = {n: live.ok("POST", f"/v1/games/{game_id}:join", {"displayName": n, "requestId": f"{game_id}-{n}"})["seatToken"] for n in ("Ada", "Bo", "Cy")}
    view = live.ok("GET", f"/v1/games/{game_id}/view", token=tokens["Ada"])["view"]
    live.ok("POST", f"/v1/games/{game_id}/moves", {"move": view["legalMoves"][0], "expectedVersion": view["version"], "requestId": f"{game_id}-ada-move"}, token=tokens["Ada"])
    live.ok("POST", f"/v1/games/{game_id}:leave", {}, token=tokens["Ada"])
    live.ok("POST", f"/v1/games/{game_id}:takeOver", {"seat": 0, "displayName": "Dee", "requestId": f"{game_id}-takeover-dee"})
    page.goto(f"{live.base_url}/play#/game/{game_id}")
    expect(page.locator("#log li").first).to_contain_text("Dee", timeout=SETTLE_MS)
    lines = page.locator("#log li").all_inner_texts()
    chose = [line for line in lines if "top candidates" in line.lower()]
    assert len(chose) == 1 and "Ada (seat 0)" in chose[0] and "Dee" not in chose[0], lines
    assert any("Dee" in line and "took over" in line for line in lines), lines
