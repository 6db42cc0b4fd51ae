"""A page that drops an unlisted table's lobby entry drops it from every filter set too, even when
the entry's summary is gone (so that it no longer says the game's kind): otherwise its kind's
filter sets keep its position for good, since the repair's sweep walks only the status sets, and
the lobby's memory grows with each such entry. Against a real replica (gRPC) over a Redis server
of its own, so that the lobby holds only the test's games."""

from __future__ import annotations

import pathlib

import pytest

from conftest import redis_cluster, run
from service_helpers import replica_and_client, stimmvieh_options
from hustings.engine import games
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.lobby import LobbyRepair, summary_of
from hustings.service.replica import UNBOUNDED_CREATES
from hustings.service.store import FILED_STATUSES, LOBBY_FILTER_PREFIX, LOBBY_GAMES_KEY, Store, game_key, lobby_filter_key, lobby_position
from hustings.v1 import game_pb2

PLAYERS = 3


async def _filed_under(store: Store, position: str) -> list[str]:
    """The filter sets that hold ``position`` (the test's lobby has a few dozen keys)."""
    keys = [k.decode() async for k in store.client.scan_iter(match=LOBBY_FILTER_PREFIX + "*", count=1000)]
    return sorted([k for k in keys if await store.client.zscore(k, position) is not None])


@pytest.mark.parametrize(
    "kind, status",
    [("", 0), ("stimmvieh", 0), ("", game_pb2.GAME_STATUS_OPEN), ("stimmvieh", game_pb2.GAME_STATUS_OPEN)],
    ids=["whole", "kind", "status", "kind-and-status"],
)
def test_a_dropped_unlisted_entry_without_its_summary_leaves_no_filter_set(own_redis: EmbeddedRedis, kind: str, status: int) -> None:
    async def scenario() -> None:
        async with replica_and_client(own_redis.url, **UNBOUNDED_CREATES) as (replica, client):
            store = replica.host.store
            options = stimmvieh_options(PLAYERS)
            listed = (await client.create_game("stimmvieh", PLAYERS, options)).game_id
            unlisted = (await client.create_game("stimmvieh", PLAYERS, options, table=game_pb2.TableSettings(unlisted=True))).game_id
            stored = await store.load(unlisted)
            assert stored is not None and stored.table.unlisted
            # What a replica of an earlier release writes for the table, whose summary then went.
            assert await store.index(summary_of(stored))
            await store.client.hdel(LOBBY_GAMES_KEY, unlisted)
            position = lobby_position(stored.created_at, unlisted)
            open_ = game_pb2.GAME_STATUS_OPEN
            filed = [lobby_filter_key("stimmvieh"), lobby_filter_key("", open_), lobby_filter_key("stimmvieh", open_)]
            assert await _filed_under(store, position) == sorted(filed)

            page = await client.games(kind=kind, status=status, page_size=50)
            assert [g.game_id for g in page.games] == [listed] and not page.next_page_token
            assert await store.in_lobby([unlisted]) == [False]
            # The repair's passes (one walks each status's set) do not find it either.
            repair = LobbyRepair(store)
            for _ in range(len(FILED_STATUSES) + 1):
                await repair.repair_once()
            assert await _filed_under(store, position) == [], "the dropped entry stays in filter sets"
            page = await client.games(kind=kind, status=status, page_size=50)
            assert [g.game_id for g in page.games] == [listed]

    run(scenario())


def test_positions_left_in_a_kinds_filter_sets_alone_are_dropped(own_redis: EmbeddedRedis) -> None:
    """Positions an earlier release left in a kind's filter sets alone (its pages dropped such an
    entry from the lobby and the status sets only) are dropped too: by a page of that kind that
    meets one while its game is there, and by the repair's sweep once the game is gone."""
    run(_left_in_a_kinds_filter_sets(own_redis.url))


def test_positions_left_in_a_kinds_filter_sets_alone_are_dropped_on_a_cluster(tmp_path: pathlib.Path) -> None:
    """The same on a Redis Cluster, whose store drops a page's entries one call each (its client
    pipelines no scripts), each with the position the page read: the lobby no longer holds it."""
    with redis_cluster(tmp_path) as nodes:
        run(_left_in_a_kinds_filter_sets(f"redis+cluster://127.0.0.1:{nodes[0].port}"), 120)


async def _left_in_a_kinds_filter_sets(url: str) -> None:
    async with replica_and_client(url, **UNBOUNDED_CREATES) as (replica, client):
        store = replica.host.store
        options = stimmvieh_options(PLAYERS)
        listed = (await client.create_game("stimmvieh", PLAYERS, options)).game_id
        left = {}
        for _ in range(2):
            game_id = (await client.create_game("stimmvieh", PLAYERS, options, table=game_pb2.TableSettings(unlisted=True))).game_id
            stored = await store.load(game_id)
            assert stored is not None and await store.index(summary_of(stored))
            await store.unindex(game_id, ())  # the lobby and the status sets only, as that release did
            left[game_id] = lobby_position(stored.created_at, game_id)
            assert len(await _filed_under(store, left[game_id])) == 2  # its kind's set, and its kind's OPEN set
        met, expired = left
        await store.client.delete(game_key(expired))  # the game is gone: no page can tell it is a table

        page = await client.games(kind="stimmvieh", page_size=50)
        assert [g.game_id for g in page.games] == [listed]
        assert await _filed_under(store, left[met]) == [], "a page met the table's position and kept it"
        repair = LobbyRepair(store)
        for _ in range(len(FILED_STATUSES) + len(games())):  # one filter set a pass
            await repair.repair_once()
        assert await _filed_under(store, left[expired]) == [], "the sweep keeps a gone game's position"
        page = await client.games(kind="stimmvieh", status=game_pb2.GAME_STATUS_OPEN, page_size=50)
        assert [g.game_id for g in page.games] == [listed]
