"""An unlisted table (``TableSettings.unlisted``) is played by whoever has its game id and is never
in the lobby: no ListGames page, filtered or not, shows it, in any status, over gRPC or REST, and
the lobby's keys in Redis never hold it, nor after a repair pass. A listed game made beside it
shows that the lobby is read. A Redis server of this module's own, so that its lobby holds only
this module's games and the pages can be read to their end."""

from __future__ import annotations

import random
import re
import time
import uuid
from typing import Iterator

import grpc
import pytest
from redis import Redis

from conftest import run
from rest_helpers import LiveRest
from service_helpers import play_to_end, replica_and_client, stimmvieh_options
from hustings.client import Client, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.lobby import LobbyRepair, summary_of
from hustings.service.store import game_key
from hustings.v1 import game_pb2

PLAYERS = 3
MAX_PAGES = 50  # far more than this module's games fill at 10 a page
STATUSES = (0, game_pb2.GAME_STATUS_OPEN, game_pb2.GAME_STATUS_ACTIVE, game_pb2.GAME_STATUS_FINISHED)


@pytest.fixture(scope="module")
def own_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    server = EmbeddedRedis(tmp_path_factory.mktemp("unlisted"), appendonly=False).start()
    try:
        yield server
    finally:
        server.stop()


async def _lobby(client: Client, kind: str = "", status: int = 0) -> list[str]:
    """Every game id ListGames lists with this filter, page after page to the end."""
    ids: list[str] = []
    token = ""
    for _ in range(MAX_PAGES):
        page = await client.games(kind=kind, status=status, page_size=10, page_token=token)
        ids += [g.game_id for g in page.games]
        token = page.next_page_token
        if not token:
            return ids
    raise AssertionError("the lobby did not end within the page bound")


async def _check_lobby(client: Client, listed: str, unlisted: str, status: int) -> None:
    """Neither the whole lobby nor any filter shows the unlisted game; the listed one is shown
    wherever its status is asked for."""
    for kind in ("", "stimmvieh"):
        for asked in STATUSES:
            ids = await _lobby(client, kind, asked)
            assert unlisted not in ids, (kind, asked)
            if asked in (0, status):
                assert listed in ids, (kind, asked)


def _lobby_keys_hold(server: EmbeddedRedis, game_id: str) -> list[str]:
    """The lobby's keys in Redis that hold ``game_id`` as a member, field or part of either."""
    redis = Redis.from_url(server.url)
    found = []
    for key in redis.scan_iter(match="hustings:{lobby}*", count=1000):
        kind = redis.type(key)
        if kind == b"zset":
            hits = list(redis.zscan_iter(key, match=f"*{game_id}*"))
        elif kind == b"hash":
            hits = list(redis.hscan_iter(key, match=f"*{game_id}*"))
        elif kind == b"set":
            hits = list(redis.sscan_iter(key, match=f"*{game_id}*"))
        else:
            hits = []
        if hits:
            found.append(key.decode())
    return found


def test_an_unlisted_table_is_never_listed_from_creation_to_its_end(own_redis: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with replica_and_client(own_redis.url) as (replica, client):
            options = stimmvieh_options(PLAYERS)
            listed = (await client.create_game("stimmvieh", PLAYERS, options)).game_id
            created = await client.create_game("stimmvieh", PLAYERS, options, table=game_pb2.TableSettings(unlisted=True))
            unlisted = created.game_id
            assert created.view.table.unlisted  # everyone at the table can see that it is unlisted
            assert re.fullmatch(r"g[0-9a-f]{24}", unlisted)  # the key players are given: 96 random bits
            await _check_lobby(client, listed, unlisted, game_pb2.GAME_STATUS_OPEN)

            # Its players join by its id, as for any game; the first join gets the lowest seat.
            seats = [await client.join(unlisted, f"Friend {i}") for i in range(PLAYERS)]
            for i in range(PLAYERS):
                await client.join(listed, f"Stranger {i}")
            view = await client.view(unlisted, seats[0].token)
            assert view.status == game_pb2.GAME_STATUS_ACTIVE and view.table.unlisted
            await _check_lobby(client, listed, unlisted, game_pb2.GAME_STATUS_ACTIVE)

            finished = await play_to_end([client], seats, random.Random(7))
            assert finished.status == game_pb2.GAME_STATUS_FINISHED
            repair = LobbyRepair(replica.host.store)
            await repair.repair_once()
            ids = await _lobby(client, "stimmvieh", game_pb2.GAME_STATUS_FINISHED)
            assert unlisted not in ids
            assert listed in await _lobby(client, "stimmvieh", game_pb2.GAME_STATUS_ACTIVE)
            assert _lobby_keys_hold(own_redis, unlisted) == []
            assert _lobby_keys_hold(own_redis, listed) != []  # the scan finds a listed game's entries

            # The table setting is part of what a create's request id is bound to.
            secret_id = uuid.uuid4().hex
            await client.create_game("stimmvieh", PLAYERS, options, request_id=secret_id,
                                     table=game_pb2.TableSettings(unlisted=True))
            with pytest.raises(HustingsError) as refused:
                await client.create_game("stimmvieh", PLAYERS, options, request_id=secret_id)
            assert refused.value.code == grpc.StatusCode.FAILED_PRECONDITION
            assert refused.value.reason == "REQUEST_ID_REUSED"

            # A retry is answered with the game, so an unlisted table's request id must be as hard
            # to guess as its id; a short one is refused and makes nothing.
            before = await _lobby(client)
            with pytest.raises(HustingsError) as refused:
                await client.create_game("stimmvieh", PLAYERS, options, request_id="table-1",
                                         table=game_pb2.TableSettings(unlisted=True))
            assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT
            assert refused.value.reason == "BAD_REQUEST_ID"
            assert await replica.host.store.recorded_create(replica.host.keys.request_key("create", "table-1")) is None
            assert await _lobby(client) == before

    run(scenario())


def test_an_unlisted_table_made_over_rest_is_not_in_its_lobby(own_redis: EmbeddedRedis) -> None:
    with LiveRest(own_redis.url) as rest:
        body = {"kind": "wahlspiel", "options": {"players": 2}, "table": {"unlisted": True}}
        created = rest.ok("POST", "/v1/games", body)
        game_id = created["gameId"]
        assert created["view"]["table"]["unlisted"] is True
        shown = rest.ok("POST", "/v1/games", {**body, "table": {}})["gameId"]
        for query in ("", "?kind=wahlspiel", "?status=GAME_STATUS_OPEN"):
            lobby = rest.ok("GET", f"/v1/games{query}" + ("&" if query else "?") + "pageSize=100")
            ids = [g["gameId"] for g in lobby.get("games", [])]
            assert shown in ids and game_id not in ids, query
        rest.ok("POST", f"/v1/games/{game_id}:join", {"displayName": "Friend"})


def test_an_entry_an_earlier_release_wrote_for_an_unlisted_game_is_never_shown_and_is_dropped(own_redis: EmbeddedRedis) -> None:
    """A replica of the release before unlisted tables keeps the setting as an unknown field but
    writes the game's summary to the lobby after each join (during a rolling upgrade, or after a
    rollback): the game's hash is marked unlisted by its creating commit, so ListGames never
    shows such an entry and the lobby repair drops it."""

    async def scenario() -> None:
        async with replica_and_client(own_redis.url) as (replica, client):
            options = stimmvieh_options(PLAYERS)
            listed = (await client.create_game("stimmvieh", PLAYERS, options)).game_id
            game_id = (await client.create_game("stimmvieh", PLAYERS, options, table=game_pb2.TableSettings(unlisted=True))).game_id
            await client.join(game_id, "Friend")
            store = replica.host.store
            stored = await store.load(game_id)
            assert stored is not None and stored.table.unlisted
            assert Redis.from_url(own_redis.url).hget(game_key(game_id), "unlisted") == b"1"
            # What the earlier release's JoinGame does after its commit.
            assert await store.index(summary_of(stored))
            assert _lobby_keys_hold(own_redis, game_id) != []
            for kind, status in (("", 0), ("stimmvieh", 0), ("", game_pb2.GAME_STATUS_OPEN), ("stimmvieh", game_pb2.GAME_STATUS_OPEN)):
                ids = await _lobby(client, kind, status)
                assert game_id not in ids and listed in ids, (kind, status)
            # Past the grace a just-created game's entry is given, the repair drops the entry.
            repair = LobbyRepair(store, clock=lambda: time.time() + 3600)
            for _ in range(3):
                await repair.repair_once()
            assert _lobby_keys_hold(own_redis, game_id) == []
            assert listed in await _lobby(client)

    run(scenario())
