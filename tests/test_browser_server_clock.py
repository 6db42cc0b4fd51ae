"""The browser client's countdowns keep the server's time (service/static/play/api.js serverNow):
the deadlines are the server's, and a browser whose clock is off by minutes showed every seat's
time as run out (or minutes long). The page makes the server's clock out from its answers' Date
headers. Real Chromium, its clock set ten minutes ahead."""

from __future__ import annotations

import datetime
import re
from typing import Any

import pytest

from rest_helpers import LiveRest

AHEAD = datetime.timedelta(minutes=10)
DECISION_S = 60  # the page's "decision" clock


@pytest.mark.slow
def test_a_seats_countdown_keeps_the_servers_time_on_a_browser_whose_clock_is_off(page: Any, live: LiveRest) -> None:
    from playwright.sync_api import expect

    page.clock.set_system_time(datetime.datetime.now(datetime.timezone.utc) + AHEAD)
    page.goto(live.base_url + "/play")
    page.fill("#player-name", "Ada")
    page.select_option("#new-kind", "stimmvieh")
    page.fill("#new-players", "3")
    page.dispatch_event("#new-players", "change")
    page.select_option("#new-clock", "decision")
    page.click("#create-game")
    page.wait_for_url("**/play#/game/*")  # its creator sits at once: she gave her name
    expect(page.locator("#you")).to_contain_text("seat 0")
    for free in (2, 1):
        expect(page.locator("#add-bot")).to_contain_text(f"{free} free")
        page.click("#add-bot")
    clock = page.locator("#seats .seat-chip[data-seat='0'] .clock")
    expect(clock).to_contain_text(" s")
    shown = int(re.search(r"(\d+) s", clock.inner_text()).group(1))  # type: ignore[union-attr]
    # Within the decision's minute (the page rounds up, and a few seconds went by), not 0.
    assert DECISION_S - 15 <= shown <= DECISION_S + 1, clock.inner_text()
