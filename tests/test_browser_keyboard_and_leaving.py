"""/play with a keyboard, leaving a table, and clocks, in headless Chromium (Debian's, as
tests/test_browser.py) against a real replica:

- a pick made with Enter keeps the focus on the control drawn in its place (the whole composer,
  and the whole page at every update, were drawn anew, and the focus went back to the top of
  the page: four top candidates took five rounds of Tab from the top);
- "Leave the table" asks once more, saying that a bot plays the seat, and the player's own seat
  then says so too (one tap handed the seat to a bot without a word, and the page hid the
  player's own absence);
- a table without a clock shows no clock (its bots' decisions, due at once, read "0 s");
- the Result says what the rules rank by, and which value put a place ahead of the next where
  its score was no more than the next one's (a bare score, and a tie broken unsaid, told who
  won but not why).
"""

from __future__ import annotations

from typing import Any

import pytest

from rest_helpers import LiveRest

pytestmark = pytest.mark.slow
MAX_TABS = 60  # Tab presses to reach a control, at most
CLOCK_LOOKS, CLOCK_LOOK_MS = 20, 100  # how often, and how far apart, the seats' clocks are read
GAME_OF_BOTS_S = 90.0  # a three-seat Wahlspiel of bots ends in about 11 s
UPDATES_WATCHED = 4  # updates of a game of bots read for the page's scroll


def _play_against_bots(page: Any, live: LiveRest, kind: str) -> str:
    """Ada's table against bots, made from the lobby; its game id."""
    page.goto(f"{live.base_url}/play")
    page.fill("#player-name", "Ada")
    page.select_option("#new-kind", kind)
    page.click("#play-bots")
    page.wait_for_url("**/play#/game/*")
    return str(page.url.rsplit("/", 1)[1])


FOCUSED = """() => {
  const node = document.activeElement;
  return { inMoves: Boolean(node?.closest("#moves")), onBody: node === document.body, tag: node?.tagName,
           value: node?.dataset?.value ?? null, pressed: node?.getAttribute("aria-pressed"), text: node?.textContent ?? "" };
}"""


def test_a_keyboard_player_keeps_the_focus_through_picks_and_updates(page: Any, live: LiveRest) -> None:
    from playwright.sync_api import expect

    _play_against_bots(page, live, "stimmvieh")
    first = page.locator("#moves button.choice:not([disabled])").first
    expect(first).to_be_visible()
    first.focus()
    picked: list[str] = []
    for _ in range(4):  # Stimmvieh's four top candidates, each with Enter, then Tab to the next
        focused = page.evaluate(FOCUSED)
        assert focused["inMoves"] and focused["value"], focused
        page.keyboard.press("Enter")
        after = page.evaluate(FOCUSED)
        assert after["inMoves"] and after["value"] == focused["value"] and after["pressed"] == "true", (focused, after)
        picked.append(focused["value"])
        for _ in range(MAX_TABS):
            page.keyboard.press("Tab")
            now = page.evaluate(FOCUSED)
            if now["text"].startswith("Confirm") or (now["value"] and now["value"] not in picked and now["pressed"] == "false"):
                break
    for _ in range(MAX_TABS):
        if page.evaluate(FOCUSED)["text"].startswith("Confirm"):
            break
        page.keyboard.press("Tab")
    assert page.evaluate(FOCUSED)["text"].startswith("Confirm"), page.evaluate(FOCUSED)
    version = int(page.inner_text("#version"))
    page.keyboard.press("Enter")
    page.wait_for_function("(v) => Number(document.querySelector('#version')?.textContent) > v", arg=version)
    # The page was drawn anew for the update: the focus is on the table, not the page's top.
    assert not page.evaluate(FOCUSED)["onBody"], page.evaluate(FOCUSED)


def test_leaving_is_asked_once_more_and_the_seat_says_a_bot_plays_it(page: Any, live: LiveRest) -> None:
    from playwright.sync_api import expect

    game_id = _play_against_bots(page, live, "wahlspiel")
    expect(page.locator("#leave")).to_be_visible()
    page.click("#leave")
    expect(page.locator("#leave-told")).to_contain_text("A bot plays your seat")
    assert not live.ok("GET", f"/v1/games/{game_id}/view")["view"]["seats"][0].get("absent")
    page.click("#leave-cancel")
    expect(page.locator("#leave")).to_be_visible()
    assert not live.ok("GET", f"/v1/games/{game_id}/view")["view"]["seats"][0].get("absent")
    page.click("#leave")
    page.click("#leave-confirm")
    expect(page.locator("#return")).to_be_visible()
    assert live.ok("GET", f"/v1/games/{game_id}/view")["view"]["seats"][0]["absent"]
    expect(page.locator("#seats .seat-chip.me")).to_contain_text("a bot plays for you")
    # The bots play on, each decision due at once; a table without a clock shows no clock.
    shown: set[str] = set()
    for _ in range(CLOCK_LOOKS):
        shown |= {text.strip() for text in page.locator("#seats .clock").all_inner_texts()}
        page.wait_for_timeout(CLOCK_LOOK_MS)
    assert shown <= {""}, shown


def test_the_result_says_what_ranks_and_what_broke_a_tie(page: Any, live: LiveRest) -> None:
    import time

    from playwright.sync_api import expect

    game_id = live.ok("POST", "/v1/games", {"kind": "wahlspiel", "options": {"players": 3}, "table": {"botSeats": [0, 1, 2]}})["gameId"]
    deadline = time.monotonic() + GAME_OF_BOTS_S
    while (view := live.ok("GET", f"/v1/games/{game_id}/view")["view"])["status"] != "GAME_STATUS_FINISHED":
        assert time.monotonic() < deadline, f"a game of bots did not end in {GAME_OF_BOTS_S} s"
        time.sleep(0.5)
    page.goto(f"{live.base_url}/play#/game/{game_id}")
    expect(page.locator("#ranked-by")).to_have_text(
        "Ranked by federal councillor, then best candidate votes, then national seats, then cantonal seats, then money"
    )
    placings = view["outcome"]["placings"]
    items = page.locator("#outcome .placings > li")
    expect(items).to_have_count(len(placings))
    for i, (mine, nxt) in enumerate(zip(placings, placings[1:])):
        said = items.nth(i).locator(".tie-broken")
        if mine["rank"] == nxt["rank"] or int(nxt["score"]) < int(mine["score"]):
            expect(said).to_have_count(0)
            continue
        values = [(r["name"].replace("_", " "), int(r["value"]), int(o["value"])) for r, o in zip(mine["rankedBy"], nxt["rankedBy"])]
        name, a, b = next(v for v in values if v[1] != v[2])
        expect(said).to_have_text(f"ahead of {nxt['name']} by {name}: {a} to {b}")


def test_an_update_neither_scrolls_the_page_nor_moves_the_keyboard_onto_a_move(page: Any, live: LiveRest) -> None:
    """After a click on the table (Leave, then Leave), the bots play on: each update left the
    page scrolled to its top (the focus went to a heading, which scrolled into view). And a
    keyboard player's Leave lands on Stay, and Stay back on Leave, never on a move, which another
    Enter would have sent."""
    from playwright.sync_api import expect

    page.set_viewport_size({"width": 800, "height": 500})
    _play_against_bots(page, live, "wahlspiel")
    expect(page.locator("#leave")).to_be_visible()
    page.focus("#leave")
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "leave-cancel"
    page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "leave"
    page.click("#leave")
    page.click("#leave-confirm")
    expect(page.locator("#return")).to_be_visible()
    for _ in range(UPDATES_WATCHED):
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        scrolled = page.evaluate("window.scrollY")
        version = int(page.inner_text("#version"))
        if page.locator("#app").get_attribute("data-status") == "finished":
            break
        page.wait_for_function("(v) => Number(document.querySelector('#version')?.textContent) > v", arg=version)
        assert scrolled > 0 and page.evaluate("window.scrollY") >= scrolled / 2, (scrolled, page.evaluate("window.scrollY"))


def test_a_name_typed_to_take_over_a_seat_survives_an_update(page: Any, live: LiveRest) -> None:
    """A watcher types a name to take over an absent seat while the others play: the update drew
    the field anew with the stored name, and the keyboard, kept in it, typed on into that."""
    table = {"decisionSeconds": 600, "absentAfterTimeouts": 3, "allowTakeover": True}
    game_id = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}, "table": table})["gameId"]
    tokens = [live.ok("POST", f"/v1/games/{game_id}:join", {"displayName": n})["seatToken"] for n in ("Ada", "Bo", "Cy")]
    live.ok("POST", f"/v1/games/{game_id}:leave", {}, token=tokens[2])
    page.goto(f"{live.base_url}/play#/game/{game_id}")
    field = page.locator(".take-over-name")
    field.fill("")
    field.type("Zed")
    version = int(page.inner_text("#version"))
    view = live.ok("GET", f"/v1/games/{game_id}/view", token=tokens[0])["view"]
    live.ok("POST", f"/v1/games/{game_id}/moves", {"move": view["legalMoves"][0], "requestId": f"{game_id}-ada"}, token=tokens[0])
    page.wait_for_function("(v) => Number(document.querySelector('#version')?.textContent) > v", arg=version)
    assert page.evaluate("document.activeElement.classList.contains('take-over-name')")
    page.keyboard.type("!")
    assert field.input_value() == "Zed!"
