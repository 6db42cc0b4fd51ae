"""A lobby page's token never names an unlisted table: its id is the table's only key. The test
runs against a real replica (gRPC) over a Redis server of its own, so that the lobby holds only
the test's games."""

from __future__ import annotations

import asyncio
import time

from conftest import run
from service_helpers import replica_and_client, stimmvieh_options
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.lobby import PAGE_SCAN_LIMIT, summary_of
from hustings.service.replica import UNBOUNDED_CREATES
from hustings.service.store import game_id_of_position
from hustings.v1 import game_pb2

PLAYERS = 3


def test_a_page_token_never_names_an_unlisted_table(own_redis: EmbeddedRedis) -> None:
    """An entry a replica of an earlier release writes for an unlisted table (during a rolling
    upgrade, or after a rollback) is "never shown", as the README says. A page's token was the
    position of the last entry the page read, shown or not, so a stranger paging the lobby with
    pages of ``PAGE_SCAN_LIMIT`` read the table's id from it and could take its free seats. Here
    the stranger's own listed games put the entry at the end of the first page's scan (any
    stranger could get the same by starting pages after each listed game). The page's token now
    names the last entry before it, and the page drops the entry from the lobby."""

    async def scenario() -> None:
        async with replica_and_client(own_redis.url, **UNBOUNDED_CREATES) as (replica, client):
            options = stimmvieh_options(PLAYERS)
            store = replica.host.store
            older = await store.load((await client.create_game("stimmvieh", PLAYERS, options)).game_id)
            assert older is not None  # the scan goes on past the table to this game
            # Creation times are in seconds (ties sort by id): each group is a second newer.
            await asyncio.sleep(max(0.0, older.created_at + 1.05 - time.time()))
            unlisted = (await client.create_game("stimmvieh", PLAYERS, options, table=game_pb2.TableSettings(unlisted=True))).game_id
            await client.join(unlisted, "Friend")
            stored = await store.load(unlisted)
            assert stored is not None and stored.table.unlisted
            # What the earlier release's JoinGame writes after its commit (tests/test_unlisted_tables.py).
            assert await store.index(summary_of(stored))
            await asyncio.sleep(max(0.0, stored.created_at + 1.05 - time.time()))
            for _ in range(PAGE_SCAN_LIMIT - 1):
                await client.create_game("stimmvieh", PLAYERS, options)

            tokens = {}
            for kind, status in (("", 0), ("stimmvieh", game_pb2.GAME_STATUS_OPEN)):
                page = await client.games(kind=kind, status=status, page_size=PAGE_SCAN_LIMIT)
                assert all(g.game_id != unlisted for g in page.games)  # the entry itself is not shown
                tokens[(kind, status)] = page.next_page_token
            named = {filt: game_id_of_position(token) for filt, token in tokens.items()}
            assert unlisted not in named.values(), f"page tokens name the unlisted table: {tokens}"
            # The page that met the entry dropped it: a run of such entries longer than a page's
            # scan cannot hold the next page's token where it was.
            assert await store.in_lobby([unlisted]) == [False]
            page = await client.games(kind="stimmvieh", status=game_pb2.GAME_STATUS_OPEN, page_size=PAGE_SCAN_LIMIT)
            assert all(g.game_id != unlisted for g in page.games) and not page.next_page_token  # every game on it

    run(scenario())


def test_a_first_page_behind_a_scan_of_unlisted_entries_still_finds_the_listed_games(own_redis: EmbeddedRedis) -> None:
    """A first page whose whole scan meets only entries an earlier release wrote for unlisted
    tables can name none of them in a token, and an empty token reads as the end of the lobby:
    the page drops them and reads again, and finds the listed game behind them."""

    async def scenario() -> None:
        async with replica_and_client(own_redis.url, **UNBOUNDED_CREATES) as (replica, client):
            options = stimmvieh_options(PLAYERS)
            store = replica.host.store
            listed = (await client.create_game("stimmvieh", PLAYERS, options)).game_id
            older = await store.load(listed)
            assert older is not None
            await asyncio.sleep(max(0.0, older.created_at + 1.05 - time.time()))  # the tables are newer
            hidden = []
            for _ in range(PAGE_SCAN_LIMIT):
                game_id = (await client.create_game("stimmvieh", PLAYERS, options, table=game_pb2.TableSettings(unlisted=True))).game_id
                stored = await store.load(game_id)
                assert stored is not None and await store.index(summary_of(stored))  # as the earlier release's join does
                hidden.append(game_id)
            page = await client.games(page_size=50)
            assert [g.game_id for g in page.games] == [listed] and not page.next_page_token
            assert await store.in_lobby(hidden) == [False] * len(hidden)

    run(scenario())
