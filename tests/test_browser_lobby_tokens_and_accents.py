"""The lobby's page tokens from the end that reads them, and names that differ only in accents.

- A page of the lobby that holds every table still listed carries no token, even while entries
  of tables that expired a moment ago (not yet dropped by the repair) follow it: /play offered
  "More tables" and the click brought nothing (``service/lobby.py``, real Redis).
- /play's "More tables" after the server refused its token ``BAD_PAGE_TOKEN`` (a replica of an
  earlier release, during a rolling upgrade, takes no position token): the list starts over from
  the newest tables and says so, rather than every later click being refused until Refresh; and
  a click that brings nothing says "No more tables" (headless Chromium, real replica).
- Seats named "José" and "Jose" read alike: /play numbers them as it numbers "Ada" and "Ada"
  (``seatLabels`` in service/static/play/dom.js, in Node.js).
"""

from __future__ import annotations

import asyncio
import json
import pathlib
import re
import shutil
import subprocess
import time
from typing import Any

import pytest
import redis

from conftest import run
from rest_helpers import LiveRest
from service_helpers import lobby_pages_after, remove_game, replica_and_client
from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import SOLE_CLIENT
from hustings.service.store import game_id_of_position

REPAIR_LEASE = "hustings:{lobby}:lock:repair"
DOM = pathlib.Path(__file__).resolve().parent.parent / "service" / "static" / "play" / "dom.js"
LOBBY_PAGE = 50  # /play's page size (LOBBY_PAGE in app.js)


async def _next_second() -> None:
    """Wait into the next whole second: creation times (the lobby's order) are in whole seconds."""
    await asyncio.sleep(1.02 - time.time() % 1)


async def _make(client: Client, count: int) -> list[str]:
    return [(await client.create_game("stimmvieh", 3)).game_id for _ in range(count)]


@pytest.mark.parametrize("kind", ["", "stimmvieh"], ids=["whole-lobby", "filtered"])
def test_a_page_holding_every_listed_table_carries_no_token(tmp_path: pathlib.Path, kind: str) -> None:
    """Oldest first: three tables that expire, one listed, three more that expire, five listed
    (the expired ones' keys gone, their entries left: the repair has not run). A page of six
    holds every listed table and should carry no token: it read one entry past its six, saw an
    entry, and sent the client on to a page of nothing. A page of five is followed by the sixth
    table, and carries a token that names its own last table, not an entry it does not show."""

    async def scenario(url: str) -> None:
        async with replica_and_client(url, **SOLE_CLIENT) as (replica, client):
            raw = replica.host.store.client
            await raw.set(REPAIR_LEASE, "test", px=60_000)  # the repair drops no entry meanwhile
            gone = await _make(client, 3)
            await _next_second()
            older = await _make(client, 1)
            await _next_second()
            gone += await _make(client, 3)
            await _next_second()
            newest = await _make(client, 5)
            sync = redis.Redis.from_url(url)
            try:
                for game_id in gone:
                    remove_game(sync, game_id)
            finally:
                sync.close()
            every = await client.games(kind=kind, page_size=6)
            assert sorted(g.game_id for g in every.games) == sorted(newest + older)
            assert not every.next_page_token, "a page holding every listed table sends the client on to an empty one"
            first = await client.games(kind=kind, page_size=5)
            assert sorted(g.game_id for g in first.games) == sorted(newest)
            assert game_id_of_position(first.next_page_token) == first.games[-1].game_id, first.next_page_token
            assert await lobby_pages_after(client, first.next_page_token, 5) == older
            walked = await lobby_pages_after(client, "", 4)
            assert sorted(walked) == sorted(newest + older)

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url), 60)


def _first_page_with_token(page: Any, token: str) -> None:
    """/play's first lobby page answered as the server answers it, but with ``token`` as its
    ``nextPageToken``: the first request only."""

    def rewrite(route: Any) -> None:
        answer = route.fetch()
        body = answer.json()
        body["nextPageToken"] = token
        route.fulfill(response=answer, json=body)
        page.unroute(re.compile(rf"/v1/games\?pageSize={LOBBY_PAGE}$"))

    page.route(re.compile(rf"/v1/games\?pageSize={LOBBY_PAGE}$"), rewrite)


@pytest.mark.slow
def test_more_tables_after_a_refused_token_starts_the_list_over(page: Any, tmp_path: pathlib.Path) -> None:
    """The first page's token is one the server refuses ``BAD_PAGE_TOKEN`` (as a replica of the
    release before refuses this one's). "More tables" should start the list over from the newest
    tables and say so, and the next click go on from there to the rest of the lobby; the page
    kept the refused token and every click was refused again."""
    from playwright.sync_api import expect

    own = EmbeddedRedis(tmp_path / "redis", appendonly=False).start()
    try:
        with LiveRest(own.url) as live:
            made = {live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}})["gameId"] for _ in range(LOBBY_PAGE + 7)}
            refused = live.call("GET", f"/v1/games?pageSize={LOBBY_PAGE}&pageToken=tampered")
            assert refused.status_code == 400 and "BAD_PAGE_TOKEN" in refused.text, refused.text
            _first_page_with_token(page, "tampered")
            page.goto(f"{live.base_url}/play")
            rows = page.locator("#games tr.game-row")
            expect(rows).to_have_count(LOBBY_PAGE)
            more = page.locator("#more-games")
            more.click()
            expect(page.locator("#lobby-status")).to_contain_text("starts again from the newest tables")
            expect(rows).to_have_count(LOBBY_PAGE)
            assert page.locator("#error").is_hidden(), page.locator("#error").inner_text()
            more.click()
            expect(rows).to_have_count(len(made))
            assert {rows.nth(i).get_attribute("data-game-id") for i in range(len(made))} == made
            assert page.locator("#error").is_hidden(), page.locator("#error").inner_text()
            expect(more).to_be_hidden()
    finally:
        own.stop()


@pytest.mark.slow
def test_more_tables_that_brings_nothing_says_so(page: Any, live: LiveRest) -> None:
    """A page token after which the lobby holds nothing (a page that could not tell, having read
    as many entries as a call may): the click brings no table and no token, and the page should
    say "No more tables" rather than leave the list as it was without a word."""
    from playwright.sync_api import expect

    live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}})
    past_the_end = "000000000001:g0"  # a lobby position older than any table
    assert not live.ok("GET", f"/v1/games?pageSize={LOBBY_PAGE}&pageToken={past_the_end}").get("games")
    _first_page_with_token(page, past_the_end)
    page.goto(f"{live.base_url}/play")
    more = page.locator("#more-games")
    expect(more).to_be_visible()
    more.click()
    expect(page.locator("#lobby-status")).to_have_text("No more tables.")
    expect(more).to_be_hidden()
    assert page.locator("#error").is_hidden(), page.locator("#error").inner_text()


SCRIPT = """
const { seatLabels } = await import(process.argv[2]);
console.log(JSON.stringify(seatLabels(JSON.parse(process.argv[3]))));
"""


def test_names_that_differ_only_in_accents_are_numbered(tmp_path: pathlib.Path) -> None:
    """"José" and "Jose" (and "Zoë" written with a combining diaeresis beside "Zoe") read alike
    to players: the page numbers them as it numbers two seats named "Ada". A name of its own
    ("Ann" beside "Anna") stays as it is."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is needed to check the /play modules")
    seats = [
        {"displayName": "Jos\u00e9"}, {"seat": 1, "displayName": "Jose"}, {"seat": 2, "displayName": "Zoe\u0308"},
        {"seat": 3, "displayName": "ZOE"}, {"seat": 4, "displayName": "Ann"}, {"seat": 5, "displayName": "Anna"},
    ]
    script = tmp_path / "names.mjs"
    script.write_text(SCRIPT)
    done = subprocess.run([node, str(script), DOM.as_uri(), json.dumps(seats)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {
        "0": "Jos\u00e9 (seat 0)", "1": "Jose (seat 1)", "2": "Zoe\u0308 (seat 2)", "3": "ZOE (seat 3)", "4": "Ann", "5": "Anna",
    }
