"""/play's table in words, in headless Chromium (Debian's, as tests/test_browser.py) against a
real replica:

- The Spin Doctors before the first round say so (the headline read "Round 0" while the Staffs
  were chosen);
- each seat's presence dot says in words what its colour means, and a seat that is here says
  "here" (a green dot beside a name, and nothing else, told nobody that its player was connected);
- a disclosure the player opened stays open through an update (Wahlspiel's "Your other
  politicians" closed at every move of every seat, as the page draws the table anew).
"""

from __future__ import annotations

from typing import Any

import pytest

from rest_helpers import LiveRest

pytestmark = pytest.mark.slow
PRESENCE_WORDS = {
    "here": "here: connected",
    "away": "away: not connected, still in the game",
    "absent": "absent: a bot plays this seat",
    "bot": "a server bot",
    "free": "free seat",
}


def test_the_spin_doctors_before_the_first_round_and_the_seats_presence_in_words(page: Any, live: LiveRest) -> None:
    from playwright.sync_api import expect

    page.goto(f"{live.base_url}/play")
    page.fill("#player-name", "Ada")
    page.select_option("#new-kind", "spin_doctors")
    page.click("#play-bots")
    page.wait_for_url("**/play#/game/*")
    game_id = page.url.rsplit("/", 1)[1]
    view = live.ok("GET", f"/v1/games/{game_id}/view")["view"]
    assert int(view["spinDoctors"].get("round", 0)) == 0, "the test needs the Staff choice, before round 1"
    headline = page.locator("#app .headline")
    expect(headline).to_contain_text("Before the first round")
    expect(headline).not_to_contain_text("Round 0")
    chips = page.locator("#seats .seat-chip")
    expect(chips).to_have_count(len(view["seats"]))
    for i in range(len(view["seats"])):
        chip = chips.nth(i)
        presence = chip.get_attribute("data-presence")
        dot = chip.locator(".dot")
        assert dot.get_attribute("role") == "img"
        assert dot.get_attribute("aria-label") == PRESENCE_WORDS[presence]
        assert dot.get_attribute("title") == PRESENCE_WORDS[presence]
    expect(page.locator("#seats .seat-chip.me")).to_have_attribute("data-presence", "here")
    expect(page.locator("#seats .seat-chip:not(.me)[data-presence='bot']").first).to_contain_text("bot")


def test_an_opened_disclosure_stays_open_through_an_update(page: Any, live: LiveRest) -> None:
    from playwright.sync_api import expect

    game_id = live.ok("POST", "/v1/games", {"kind": "wahlspiel", "options": {"players": 3}, "table": {"decisionSeconds": 600}})["gameId"]
    joined = [live.ok("POST", f"/v1/games/{game_id}:join", {"displayName": name}) for name in ("Ada", "Bo", "Cy")]
    page.goto(f"{live.base_url}/play")
    page.evaluate(
        "([id, seat, token]) => localStorage.setItem(`hustings.seat.${id}`, JSON.stringify({ seat, token }))",
        [game_id, joined[0].get("seat", 0), joined[0]["seatToken"]],
    )
    page.goto(f"{live.base_url}/play#/game/{game_id}")
    bench = page.locator("details#other-politicians")
    expect(bench).to_be_visible()
    bench.locator("summary").click()
    expect(bench).to_have_attribute("open", "")
    page.evaluate("document.querySelector('details#other-politicians').dataset.drawnBefore = 'yes'")
    version = int(page.inner_text("#version"))
    mover = next(  # a seat with a move to make (Ada's too: made here, not on the page)
        (j, v) for j in joined if (v := live.ok("GET", f"/v1/games/{game_id}/view", token=j["seatToken"])["view"]).get("legalMoves")
    )
    live.ok("POST", f"/v1/games/{game_id}/moves", {"move": mover[1]["legalMoves"][0], "requestId": f"{game_id}-move"}, token=mover[0]["seatToken"])
    page.wait_for_function("(v) => Number(document.querySelector('#version')?.textContent) > v", arg=version)
    assert page.evaluate("document.querySelector('details#other-politicians').dataset.drawnBefore ?? null") is None, "not drawn anew"
    expect(bench).to_have_attribute("open", "")


GAMES_OF_BOTS = 3  # finished games looked at for a seat's Votes past a Turnout marker
GAME_OF_BOTS_S = 120.0  # a three-seat Spin Doctors of random bots ends in about 20 s


def test_votes_past_the_turnout_say_what_counts(page: Any, live: LiveRest) -> None:
    """The Spin Doctors' party table showed where each Vote marker stands, and the Result counted
    only up to each group's Turnout marker: a seat with 12 Votes in a group reading 10 at the end
    was told nothing of it. A Vote count past its group's marker says what counts."""
    import time

    from playwright.sync_api import expect

    for _ in range(GAMES_OF_BOTS):
        game_id = live.ok("POST", "/v1/games", {"kind": "spin_doctors", "options": {"players": 3}, "table": {"botSeats": [0, 1, 2]}})["gameId"]
        deadline = time.monotonic() + GAME_OF_BOTS_S
        while (view := live.ok("GET", f"/v1/games/{game_id}/view")["view"])["status"] != "GAME_STATUS_FINISHED":
            assert time.monotonic() < deadline, f"a game of bots did not end in {GAME_OF_BOTS_S} s"
            time.sleep(0.5)
        k = view["spinDoctors"]
        markers = [int(m) for m in k["turnoutMarkers"]]
        past = {(p.get("seat", 0), g): m for p in k["players"] for g, (v, m) in enumerate(zip(p["votes"], markers)) if int(v) > m}
        if past:
            break
    else:
        raise AssertionError(f"no Votes past a Turnout marker in {GAMES_OF_BOTS} games")
    page.goto(f"{live.base_url}/play#/game/{game_id}")
    expect(page.locator("#app")).to_have_attribute("data-version", view["version"])
    for (seat, group), marker in past.items():
        cell = page.locator(f"#party-table tr[data-seat='{seat}'] td.votes").nth(group)
        expect(cell).to_have_attribute("data-counts", str(marker))
        expect(cell).to_have_attribute("title", f"{k['players'][seat]['votes'][group]} votes, {marker} of them count (the Turnout marker)")
        after = page.evaluate("(n) => getComputedStyle(n, '::after').content", cell.element_handle())
        assert after == f'" → {marker}"', after
    assert page.locator("#party-table td.votes[data-counts]").count() == len(past)


def test_create_table_seats_its_creator_at_once_when_named(page: Any, live: LiveRest) -> None:
    """"Create table" made the table and left its creator to take a seat from the table's page:
    a stranger watching the lobby took it first. With a name given, the creator now sits as the
    table is made; without one, the table is made with every seat free (a table for others)."""
    from playwright.sync_api import expect

    for named in (True, False):
        page.goto(f"{live.base_url}/play")
        page.fill("#player-name", "Ada" if named else "")
        page.select_option("#new-kind", "wahlspiel")
        page.click("#create-game")
        page.wait_for_url("**/play#/game/*")
        game_id = page.url.rsplit("/", 1)[1]
        expect(page.locator("#summary h2")).to_contain_text("open")
        seats = live.ok("GET", f"/v1/games/{game_id}/view")["view"]["seats"]
        if named:
            expect(page.locator("#you")).to_contain_text("seat 0")
            assert seats[0].get("displayName") == "Ada" and seats[0].get("taken")
        else:
            expect(page.locator("#join-game")).to_be_visible()
            assert not any(s.get("taken") for s in seats)
        page.evaluate("localStorage.clear(); sessionStorage.clear()")
