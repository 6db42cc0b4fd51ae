"""The lobby's pages while games come and go: a client that follows ``next_page_token`` from the
first page should see every game the lobby listed all along exactly once, whatever was created or
dropped meanwhile, and the last page should carry no token (proto: "empty on the last page").

Each test runs a real replica on a Redis of its own, so that the lobby holds only its games. The
lobby repair runs only when a test runs it (the test holds the replica's lease).
"""

from __future__ import annotations

import asyncio
import pathlib
import time

import grpc

from conftest import run
from service_helpers import lobby_pages_after, replica_and_client
from hustings.client import Client, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.lobby import LobbyRepair
from hustings.service.replica import SOLE_CLIENT
from hustings.v1 import game_pb2

REPAIR_LEASE = "hustings:{lobby}:lock:repair"


async def _next_second() -> None:
    """Wait into the next whole second: creation times (the lobby's order) are in whole seconds."""
    await asyncio.sleep(1.02 - time.time() % 1)


async def _make(client: Client, count: int, table: game_pb2.TableSettings | None = None) -> list[str]:
    return [(await client.create_game("stimmvieh", 3, table=table)).game_id for _ in range(count)]


def _run_alone(tmp_path: pathlib.Path, scenario) -> None:  # type: ignore[no-untyped-def]
    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url), 60)


def test_a_game_created_while_paging_repeats_no_game_of_the_pages_already_read(tmp_path: pathlib.Path) -> None:
    """Four games; the first page of two is read; someone creates a game (newer than all); the
    walk goes on with the first page's token. The next pages should hold the other two games,
    not one of the first page again."""

    async def scenario(url: str) -> None:
        async with replica_and_client(url, **SOLE_CLIENT) as (replica, client):
            await replica.host.store.client.set(REPAIR_LEASE, "test", px=60_000)
            made = await _make(client, 4)
            first = await client.games(page_size=2)
            assert len(first.games) == 2 and first.next_page_token
            first_ids = [g.game_id for g in first.games]
            await _next_second()
            newcomer = (await client.create_game("stimmvieh", 3)).game_id
            assert (await client.games(page_size=1)).games[0].game_id == newcomer  # the newest: before the token's place
            rest = await lobby_pages_after(client, first.next_page_token, 2)
            walked = first_ids + rest
            assert sorted(walked) == sorted(made), f"first page {first_ids}, then {rest}: listed twice {set(first_ids) & set(rest)}"

    _run_alone(tmp_path, scenario)


def test_a_newer_game_leaving_the_lobby_skips_no_game_listed_all_along(tmp_path: pathlib.Path) -> None:
    """Four games, then one whose table waits one second for its players (``open_seconds``, any
    creator may ask for it). The first page of two is read (the short-lived game and one other);
    the short-lived game expires and the repair drops its entry; the walk goes on with the first
    page's token. Every one of the four games, listed all along, should be on some page."""

    async def scenario(url: str) -> None:
        async with replica_and_client(url, **SOLE_CLIENT) as (replica, client):
            store = replica.host.store
            await store.client.set(REPAIR_LEASE, "test", px=60_000)
            made = await _make(client, 4)
            await _next_second()
            short = (await _make(client, 1, game_pb2.TableSettings(open_seconds=1)))[0]
            first = await client.games(page_size=2)
            first_ids = [g.game_id for g in first.games]
            assert first_ids[0] == short and first.next_page_token
            for _ in range(60):  # its keys expire a second after its creation
                try:
                    await client.view(short)
                except HustingsError as error:
                    assert error.code == grpc.StatusCode.NOT_FOUND
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError("the one-second table did not expire in 3 s")
            assert await LobbyRepair(store).repair_once() >= 1  # drops its entry
            rest = await lobby_pages_after(client, first.next_page_token, 2)
            missing = set(made) - set(first_ids) - set(rest)
            assert not missing, f"first page {first_ids}, then {rest}: never listed {missing}"

    _run_alone(tmp_path, scenario)


def test_a_page_that_reaches_the_end_of_the_lobby_carries_no_token(tmp_path: pathlib.Path) -> None:
    """Three games, a page of three: that page is the last, for the whole lobby and for a filter."""

    async def scenario(url: str) -> None:
        async with replica_and_client(url, **SOLE_CLIENT) as (replica, client):
            await replica.host.store.client.set(REPAIR_LEASE, "test", px=60_000)
            made = await _make(client, 3)
            for status in (0, game_pb2.GAME_STATUS_OPEN):
                page = await client.games(status=status, page_size=3)
                assert sorted(g.game_id for g in page.games) == sorted(made)
                after = (await client.games(status=status, page_size=3, page_token=page.next_page_token)).games if page.next_page_token else []
                assert page.next_page_token == "", f"status {status}: token {page.next_page_token!r} to a page of {len(after)} games"

    _run_alone(tmp_path, scenario)
