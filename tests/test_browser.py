"""The browser client at /play in headless Chromium: two players in two browser sessions join
the same Stimmvieh game, each sees only their own hand, and a move by one appears in the other's
page without a reload.

Chromium is Debian's (``/usr/bin/chromium``; ``tests/install-system-deps.sh`` installs it), driven
by Playwright for Python (never ``playwright install``); the ``browser`` fixture is in conftest.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from conftest import create_and_join_from_the_lobby
from rest_helpers import LiveRest

pytestmark = pytest.mark.slow


def _seat(page: Any, game_id: str) -> dict[str, Any]:
    stored = page.evaluate("(id) => JSON.parse(sessionStorage.getItem(`hustings.seat.${id}`))", game_id)
    assert stored and stored["token"], "the seat token is kept in sessionStorage"
    return stored  # type: ignore[no-any-return]


def _influences(page: Any, selector: str) -> list[int]:
    return [int(n) for n in page.locator(f"{selector} .politician").evaluate_all("(ns) => ns.map((n) => n.dataset.influence)")]


def _party(view: dict[str, Any], seat: int) -> dict[str, Any]:
    (party,) = [p for p in view["stimmvieh"]["parties"] if p.get("seat") == seat and not p.get("angelus")]
    return party


def _choose_top_candidates(page: Any) -> None:
    """Compose the secret choice in the move panel: four politicians, then confirm (bounded)."""
    moves = page.locator("#moves")
    for _click in range(12):
        confirm = moves.locator("button.move")
        if confirm.count():
            confirm.first.click()
            return
        moves.locator("button.choice:not(.selected):not([disabled])").first.click()
    raise AssertionError("no confirm button after twelve choices")


def test_two_players_in_two_browsers(page: Any, second_page: Any, live: LiveRest) -> None:
    from playwright.sync_api import expect

    ada, bo = page, second_page
    # Ada creates a three-seat table in the lobby and joins it from the table's page.
    game_id = create_and_join_from_the_lobby(ada, live.base_url)

    # Bo finds it in the lobby; joining without a name is refused plainly.
    bo.goto(live.base_url + "/play")
    row = bo.locator(f"[data-game-id='{game_id}']")
    row.locator("button.join").click()
    expect(bo.locator("#error")).to_be_visible()
    expect(bo.locator("#error")).to_contain_text("name")
    bo.fill("#player-name", "Bo")
    row.locator("button.join").click()
    expect(bo.locator("#you")).to_contain_text("seat 1")
    for page in (ada, bo):
        page.evaluate("window.__noReload = true")

    # The third player joins over the API; both pages go live without a reload.
    live.ok("POST", f"/v1/games/{game_id}:join", {"displayName": "Cy"})
    for page in (ada, bo):
        expect(page.locator("#summary h2")).to_contain_text("active")
        expect(page.locator("#moves")).to_be_visible()

    # Each page shows its own hand, exactly as that seat's view has it, and no other hand.
    for page, seat, other in ((ada, 0, 1), (bo, 1, 0)):
        token = _seat(page, game_id)["token"]
        view = live.ok("GET", f"/v1/games/{game_id}/view", token=token)["view"]
        mine, theirs = _party(view, seat), _party(view, other)
        expect(page.locator("#hand h2")).to_contain_text(mine["name"])
        assert _influences(page, "#hand .backbenchers") == list(mine["backbenchers"])
        assert page.locator("#hand").count() == 1
        assert _influences(page, f".party[data-party='{theirs.get('party', 0)}'] .backs") == []

    # Bo chooses top candidates (a secret): Bo's hand shows them; Ada's page learns, live,
    # only that Bo has chosen.
    bo_party = _party(live.ok("GET", f"/v1/games/{game_id}/view", token=_seat(bo, game_id)["token"])["view"], 1)
    version_before = ada.locator("#version").inner_text()
    _choose_top_candidates(bo)
    expect(bo.locator("#hand .top-candidates .politician")).to_have_count(4)
    expect(ada.locator("#version")).not_to_have_text(version_before)
    expect(ada.locator(f".party[data-party='{bo_party.get('party', 0)}'] .tops")).to_contain_text("chosen, face down")
    assert _influences(ada, "#hand .top-candidates") == []

    # And Ada's move reaches Bo's page the same way.
    bo_version = bo.locator("#version").inner_text()
    _choose_top_candidates(ada)
    expect(ada.locator("#hand .top-candidates .politician")).to_have_count(4)
    expect(bo.locator("#version")).not_to_have_text(bo_version)
    expect(bo.locator("#log li").first).to_contain_text("top candidates chosen")

    for page in (ada, bo):
        assert page.evaluate("window.__noReload === true"), "the page was reloaded"
        expect(page.locator("#error")).to_be_hidden()
