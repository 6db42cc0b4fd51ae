"""AddBot at a listed table is for a player seated at it (its seat token) or the client address
that made it: a client that sat nowhere filled other people's tables from the lobby with bots
(40 of 45 started against their hosts' will, their invited players refused GAME_FULL). A stranger
is refused PERMISSION_DENIED NOT_AT_THE_TABLE, nothing seated and nothing of its allowance
taken. Real Redis, a real replica, REST from distinct loopback addresses."""

from __future__ import annotations

from contextlib import AsyncExitStack
from typing import Any

from conftest import run
from service_helpers import replica_and_client
from hustings.service.embedded_redis import EmbeddedRedis

HOST, FRIEND, STRANGER = "127.0.0.81", "127.0.0.82", "127.0.0.83"  # Linux answers on all of 127.0.0.0/8


def test_only_the_table_seats_a_bot(redis_server: EmbeddedRedis) -> None:
    import aiohttp

    async def scenario() -> None:
        # Three games' worth of allowance each: a refused AddBot that took one would leave the
        # stranger short of its own table, its bot and one more table.
        async with replica_and_client(redis_server.url, http_address="127.0.0.1:0", create_burst=3) as (replica, client):
            base = f"http://127.0.0.1:{replica.http_port}"
            async with AsyncExitStack() as stack:

                async def session(source: str) -> aiohttp.ClientSession:
                    connector = aiohttp.TCPConnector(local_addr=(source, 0))
                    return await stack.enter_async_context(aiohttp.ClientSession(connector=connector))

                host, friend, stranger = await session(HOST), await session(FRIEND), await session(STRANGER)

                async def call(http: aiohttp.ClientSession, path: str, body: dict[str, Any], token: str = "") -> tuple[int, dict[str, Any]]:
                    headers = {"Authorization": f"Bearer {token}"} if token else {}
                    async with http.post(base + path, json=body, headers=headers) as response:
                        return response.status, await response.json()

                status, made = await call(host, "/v1/games", {"kind": "wahlspiel", "options": {"players": 4}})
                assert status == 200
                game_id = made["gameId"]
                status, joined = await call(friend, f"/v1/games/{game_id}:join", {"displayName": "Bo"})
                assert status == 200
                for attempt in range(2):
                    status, refused = await call(stranger, f"/v1/games/{game_id}:addBot", {"seat": 3})
                    assert (status, refused["details"][0]["reason"]) == (403, "NOT_AT_THE_TABLE"), refused
                seats = (await client.view(game_id)).seats
                assert [s.taken for s in seats] == [True, False, False, False]
                # The stranger's allowance is whole (the refused calls took nothing).
                status, own = await call(stranger, "/v1/games", {"kind": "wahlspiel", "options": {"players": 4}})
                assert status == 200
                status, _ = await call(stranger, f"/v1/games/{own['gameId']}:addBot", {"seat": 1})  # its own table
                assert status == 200
                status, _ = await call(stranger, "/v1/games", {"kind": "wahlspiel", "options": {"players": 4}})
                assert status == 200
                # A seated player (its token, from its own address), and the table's maker (no token).
                status, _ = await call(friend, f"/v1/games/{game_id}:addBot", {"seat": 2}, token=joined["seatToken"])
                assert status == 200
                status, _ = await call(host, f"/v1/games/{game_id}:addBot", {"seat": 3})
                assert status == 200
                # A token of another game's seat is no seat at this one: refused as by every call.
                status, again = await call(host, "/v1/games", {"kind": "wahlspiel", "options": {"players": 3}})
                status, refused = await call(friend, f"/v1/games/{again['gameId']}:addBot", {"seat": 1}, token=joined["seatToken"])
                assert (status, refused["details"][0]["reason"]) == (401, "INVALID_SEAT_TOKEN")
                assert not any(s.taken for s in (await client.view(again["gameId"])).seats)

    run(scenario(), timeout_s=60)


def test_bots_a_player_seats_at_anothers_table_count_as_its_seats(redis_server: EmbeddedRedis) -> None:
    """A stranger joined a listed table (one call), seated bots in every seat but its own, and
    left: the table was full of bots, the host's friends refused GAME_FULL, and the stranger held
    no seat. A bot a player seats at a table another address made counts as a seat of that
    player's (``--seats-per-client``) while it sits there; the table's maker seats them freely."""
    import aiohttp

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, http_address="127.0.0.1:0", seats_per_client=2) as (replica, client):
            base = f"http://127.0.0.1:{replica.http_port}"
            host = aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(HOST, 0)))
            stranger = aiohttp.ClientSession(connector=aiohttp.TCPConnector(local_addr=(STRANGER, 0)))
            async with host, stranger:

                async def call(http: aiohttp.ClientSession, path: str, body: dict[str, Any], token: str = "") -> tuple[int, dict[str, Any]]:
                    headers = {"Authorization": f"Bearer {token}"} if token else {}
                    async with http.post(base + path, json=body, headers=headers) as response:
                        return response.status, await response.json()

                game_id = (await call(host, "/v1/games", {"kind": "wahlspiel", "options": {"players": 6}}))[1]["gameId"]
                status, joined = await call(stranger, f"/v1/games/{game_id}:join", {"displayName": "Mal"})
                assert status == 200
                status, _ = await call(stranger, f"/v1/games/{game_id}:addBot", {"seat": 1}, token=joined["seatToken"])
                assert status == 200  # its second seat: its join and this bot
                status, refused = await call(stranger, f"/v1/games/{game_id}:addBot", {"seat": 2}, token=joined["seatToken"])
                assert (status, refused["details"][0]["reason"]) == (429, "TOO_MANY_SEATS_HELD"), refused
                assert [s.bot for s in (await client.view(game_id)).seats] == [False, True, False, False, False, False]
                for seat in (2, 3):  # the table's maker seats bots as it likes
                    status, _ = await call(host, f"/v1/games/{game_id}:addBot", {"seat": seat})
                    assert status == 200

    run(scenario(), timeout_s=60)
