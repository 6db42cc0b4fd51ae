"""/play's "More tables" when a page of the lobby brings no table yet more may follow, in headless
Chromium against a real replica: a page that reads as many lobby entries as a call may without
meeting a listed table (entries of tables that were never made, not yet dropped by the repair)
comes back empty with a token. The page should say that more may follow and keep "More tables",
whose next click finds the table behind those entries."""

from __future__ import annotations

import pathlib
import time
from typing import Any

import pytest
import redis

from rest_helpers import LiveRest
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.lobby import PAGE_SCAN_LIMIT
from hustings.service.store import LOBBY_KEY, _INDEX_LUA, index_call
from hustings.v1 import game_pb2

pytestmark = pytest.mark.slow
REPAIR_LEASE = "hustings:{lobby}:lock:repair"
LOBBY_PAGE = 50  # /play's page size (LOBBY_PAGE in app.js)
# Entries that list nothing between the first page and the oldest table: more than one call reads.
UNMADE = PAGE_SCAN_LIMIT + 10


def _make(live: LiveRest) -> str:
    return live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}})["gameId"]


def test_more_tables_that_brings_nothing_yet_says_more_may_follow(page: Any, tmp_path: pathlib.Path) -> None:
    from playwright.sync_api import expect

    own = EmbeddedRedis(tmp_path / "redis", appendonly=False).start()
    raw = redis.Redis.from_url(own.url)
    try:
        with LiveRest(own.url) as live:
            raw.set(REPAIR_LEASE, "test", px=120_000)  # the repair drops no entry meanwhile
            oldest = _make(live)
            created = int(raw.zscore(LOBBY_KEY, oldest) or 0)
            assert created
            # Entries indexed for tables whose creation never committed, just newer than the
            # oldest table (same second, later ids: "gz..." sorts after every made table's id).
            index = raw.register_script(_INDEX_LUA)
            with raw.pipeline(transaction=False) as pipe:
                for n in range(UNMADE):
                    summary = game_pb2.GameSummary(
                        game_id=f"gz{n:04d}", kind="stimmvieh", status=game_pb2.GAME_STATUS_OPEN, version=1, created_at=created
                    )
                    keys, args = index_call(summary)
                    index(keys=keys, args=args, client=pipe)
                pipe.execute()
            time.sleep(1.02 - time.time() % 1)  # the page's tables a second newer than all those
            newest = {_make(live) for _ in range(LOBBY_PAGE)}

            page.goto(f"{live.base_url}/play")
            rows = page.locator("#games tr.game-row")
            expect(rows).to_have_count(LOBBY_PAGE)
            assert {rows.nth(i).get_attribute("data-game-id") for i in range(LOBBY_PAGE)} == newest
            more = page.locator("#more-games")
            status = page.locator("#lobby-status")
            expect(more).to_be_visible()
            more.click()
            expect(status).to_have_text("No more tables on this page; more may follow.")
            expect(more).to_be_visible()
            expect(rows).to_have_count(LOBBY_PAGE)
            more.click()
            expect(rows).to_have_count(LOBBY_PAGE + 1)
            assert rows.nth(LOBBY_PAGE).get_attribute("data-game-id") == oldest
            expect(status).to_be_hidden()
            expect(more).to_be_hidden()
            assert page.locator("#error").is_hidden(), page.locator("#error").inner_text()
    finally:
        raw.close()
        own.stop()
