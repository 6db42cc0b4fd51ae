"""One client address holds a bounded number of seats at listed tables that other addresses made
(``--seats-per-client``, 12 by default; ``TOO_MANY_SEATS_HELD`` past it), in games not finished.

One address that polled the lobby and took every free seat it showed (a call a seat, about 8
calls a second) kept every host's friends out (GAME_FULL), and started the tables with seats
that never moved: a table without a clock then stood still for good. Its own tables (a
household's, a classroom's, a bot farm's) and unlisted ones do not count; a seat left while its
table waits counts no more. Real Redis, a real replica, REST calls from distinct loopback
addresses."""

from __future__ import annotations

import asyncio
import uuid
from contextlib import AsyncExitStack
from typing import Any

from conftest import run
from service_helpers import replica_and_client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.open_tables import RECHECK_S

HOST, SQUATTER = "127.0.0.61", "127.0.0.62"  # Linux answers on all of 127.0.0.0/8
BOUND = 3


def _from(source: str, base: str | None = None) -> Any:
    """An HTTP session whose connections come from the loopback address ``source`` (its paths
    under ``base``, when given)."""
    import aiohttp

    return aiohttp.ClientSession(base, connector=aiohttp.TCPConnector(local_addr=(source, 0)))


async def _post(http: Any, url: str, body: dict[str, Any], token: str = "") -> tuple[int, dict[str, Any]]:
    """A REST call (``url`` a path of ``http``'s base, if it has one): its status and its JSON."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with http.post(url, json=body, headers=headers) as response:
        return response.status, await response.json()


def test_seats_at_others_listed_tables_are_bounded_per_address(redis_server: EmbeddedRedis) -> None:
    import aiohttp

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, http_address="127.0.0.1:0", seats_per_client=BOUND) as (replica, client):
            base = f"http://127.0.0.1:{replica.http_port}"
            async with AsyncExitStack() as stack:
                host = await stack.enter_async_context(_from(HOST, base))
                squatter = await stack.enter_async_context(_from(SQUATTER, base))

                async def table(unlisted: bool = False, players: int = 4) -> str:
                    body = {"kind": "stimmvieh", "options": {"players": players}, "table": {"unlisted": unlisted}, "requestId": uuid.uuid4().hex}
                    status, made = await _post(host, "/v1/games", body)
                    assert status == 200, made
                    return str(made["gameId"])

                async def join(http: aiohttp.ClientSession, game_id: str, name: str) -> tuple[int, dict[str, Any]]:
                    return await _post(http, f"/v1/games/{game_id}:join", {"displayName": name, "requestId": uuid.uuid4().hex})

                tables = [await table() for _ in range(2)]
                # The host sits at its own tables as often as it likes: not counted.
                for n in range(BOUND + 1):
                    status, _ = await join(host, tables[0], f"Home{n}")
                    assert status == 200
                status, view = await _post(host, f"/v1/games/{tables[0]}:join", {"displayName": "Late"})
                assert status == 400 and view["details"][0]["reason"] == "GAME_FULL"  # it started with four
                # The squatter: BOUND seats at the host's other table, then refused, nothing changed.
                held = []
                for n in range(BOUND):
                    status, joined = await join(squatter, tables[1], f"Squat{n}")
                    assert status == 200, joined
                    held.append(joined["seatToken"])
                other = await table()
                async with squatter.get(f"/v1/games/{other}/view") as response:
                    before = (await response.json())["view"]
                status, refused = await join(squatter, other, "Squat9")
                assert status == 429 and refused["details"][0]["reason"] == "TOO_MANY_SEATS_HELD", refused
                assert "12" not in refused["message"] and str(BOUND) in refused["message"]
                async with squatter.get(f"/v1/games/{other}/view") as response:
                    after = (await response.json())["view"]
                assert after["version"] == before["version"] and not any(s.get("taken") for s in after["seats"])
                # An unlisted table of the host's is not counted.
                status, _ = await join(squatter, await table(unlisted=True), "Invited")
                assert status == 200
                # A seat left while its table waits counts no more (looked up again after RECHECK_S).
                status, _ = await _post(squatter, f"/v1/games/{tables[1]}:leave", {}, token=held[0])
                assert status == 200
                await asyncio.sleep(RECHECK_S + 0.1)
                status, joined = await join(squatter, other, "Squat9")
                assert status == 200, joined
                # A table made over gRPC is its address's over REST too.
                loopback = await stack.enter_async_context(_from("127.0.0.1", base))
                made_over_grpc = (await client.create_game("stimmvieh", 4)).game_id
                for n in range(BOUND + 1):
                    status, joined = await join(loopback, made_over_grpc, f"Own{n}")
                    assert status == 200, joined

    run(scenario(), timeout_s=60)


def test_seats_in_games_that_began_still_count(redis_server: EmbeddedRedis) -> None:
    """Filling a table starts it: its seats still count until the game ends, or one address would
    fill table after table, each one's start giving its places back."""
    import aiohttp

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, http_address="127.0.0.1:0", seats_per_client=2) as (replica, client):
            base = f"http://127.0.0.1:{replica.http_port}"
            connector = aiohttp.TCPConnector(local_addr=(SQUATTER, 0))
            async with aiohttp.ClientSession(connector=connector) as squatter, aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(local_addr=(HOST, 0))
            ) as host:

                async def made() -> str:
                    body = {"kind": "stimmvieh", "options": {"players": 3}, "table": {}}
                    async with host.post(f"{base}/v1/games", json=body) as response:
                        return str((await response.json())["gameId"])

                first = await made()
                async with host.post(f"{base}/v1/games/{first}:join", json={"displayName": "Ada"}) as response:
                    assert response.status == 200
                for name in ("S1", "S2"):
                    async with squatter.post(f"{base}/v1/games/{first}:join", json={"displayName": name}) as response:
                        assert response.status == 200
                assert (await client.view(first)).status == 2  # GAME_STATUS_ACTIVE
                await asyncio.sleep(RECHECK_S + 0.1)
                async with squatter.post(f"{base}/v1/games/{await made()}:join", json={"displayName": "S3"}) as response:
                    assert response.status == 429
                    assert (await response.json())["details"][0]["reason"] == "TOO_MANY_SEATS_HELD"

    run(scenario(), timeout_s=60)


def test_serve_takes_the_seat_bound_and_defaults_to_twelve() -> None:
    """The README's and the proto's figure is the default, `0` turns the bound off, and a replica
    started with it counts seats (one without it, none)."""
    from hustings.cli import _parser
    from hustings.service.open_tables import DEFAULT_SEATS_HELD_PER_CLIENT
    from hustings.service.replica import ReplicaConfig

    from conftest import REPO

    assert DEFAULT_SEATS_HELD_PER_CLIENT == 12
    readme = " ".join((REPO / "README.md").read_text().split())
    assert "`--seats-per-client` (12) seats at listed tables other addresses made" in readme
    proto = " ".join((REPO / "proto" / "hustings" / "v1" / "game_service.proto").read_text().replace("//", " ").split())
    assert "in games not finished, as a replica allows (12 by default) is refused another RESOURCE_EXHAUSTED TOO_MANY_SEATS_HELD" in proto
    assert _parser().parse_args(["serve"]).seats_per_client == 12
    assert _parser().parse_args(["serve", "--seats-per-client", "0"]).seats_per_client == 0
    assert ReplicaConfig(redis_url="redis://127.0.0.1:1/0").seats_per_client == 12


def test_a_join_that_fails_before_its_commit_gives_its_place_back(redis_server: EmbeddedRedis, monkeypatch: Any) -> None:
    """A join whose step could not be indexed (Redis failing as its deadline is written) sent no
    commit: its place among the joiner's seats is given back, not held for ever."""
    from redis.exceptions import ConnectionError as RedisConnectionError

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, http_address="127.0.0.1:0", seats_per_client=1) as (replica, _):
            base = f"http://127.0.0.1:{replica.http_port}"
            async with _from(HOST) as host, _from(SQUATTER) as squatter:

                async def made(players: int) -> str:
                    body = {"kind": "stimmvieh", "options": {"players": players}, "table": {"decisionSeconds": 600}}
                    async with host.post(f"{base}/v1/games", json=body) as response:
                        return str((await response.json())["gameId"])

                clocked = await made(3)
                for name in ("Ada", "Bo"):  # the third seat starts the game: its first deadline is indexed
                    async with host.post(f"{base}/v1/games/{clocked}:join", json={"displayName": name}) as response:
                        assert response.status == 200

                async def failing(*_args: Any, **_kwargs: Any) -> None:
                    raise RedisConnectionError("the deadline index is unreachable")

                with monkeypatch.context() as patched:
                    patched.setattr(replica.host.deadlines, "schedule", failing)
                    async with squatter.post(f"{base}/v1/games/{clocked}:join", json={"displayName": "Cy"}) as response:
                        assert response.status == 503, await response.text()
                async with squatter.post(f"{base}/v1/games/{await made(4)}:join", json={"displayName": "Cy"}) as response:
                    assert response.status == 200, await response.text()

    run(scenario(), timeout_s=60)


def test_a_seat_left_and_taken_by_another_counts_no_more(redis_server: EmbeddedRedis) -> None:
    """The seat a joiner left, taken by someone else (the next newcomer takes the lowest free
    seat: often that one), was still counted as the joiner's, being taken; a resent join counted
    a second seat. A seat counts while it holds the token of the join that counted it."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, http_address="127.0.0.1:0", seats_per_client=1) as (replica, _):
            base = f"http://127.0.0.1:{replica.http_port}"
            async with _from(HOST, base) as host, _from(SQUATTER, base) as squatter:

                async def made() -> str:
                    return str((await _post(host, "/v1/games", {"kind": "stimmvieh", "options": {"players": 4}}))[1]["gameId"])

                first, second = await made(), await made()
                status, joined = await _post(host, f"/v1/games/{first}:join", {"displayName": "Ada"})
                request = {"displayName": "Cy", "requestId": "0123456789abcdef-cy"}
                for _ in range(3):  # one join, sent three times: one seat
                    status, mine = await _post(squatter, f"/v1/games/{first}:join", request)
                    assert (status, mine.get("seat")) == (200, 1)
                status, _ = await _post(squatter, f"/v1/games/{first}:leave", {}, token=mine["seatToken"])
                assert status == 200
                status, bo = await _post(host, f"/v1/games/{first}:join", {"displayName": "Bo"})
                assert bo["seat"] == 1  # the seat the squatter left
                await asyncio.sleep(RECHECK_S + 0.1)
                status, again = await _post(squatter, f"/v1/games/{second}:join", {"displayName": "Cy"})
                assert status == 200, again

    run(scenario(), timeout_s=60)


def test_a_seat_taken_over_counts_and_the_next_game_keeps_its_maker(redis_server: EmbeddedRedis) -> None:
    """TakeOverSeat at another client's listed table counts as a join there (it went around the
    bound); PlayAgain's next game keeps the table's maker, whoever asks for it (the player who
    asked first became its maker, and the maker a stranger at its own table)."""
    import time

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, http_address="127.0.0.1:0", seats_per_client=1) as (replica, client):
            base = f"http://127.0.0.1:{replica.http_port}"
            async with _from(HOST, base) as host, _from(SQUATTER, base) as guest:

                async def made(table: dict[str, Any]) -> str:
                    return str((await _post(host, "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}, "table": table}))[1]["gameId"])

                # The guest's one seat: at a table of bots, which it then leaves to them.
                bots = await made({"botSeats": [1, 2]})
                status, mine = await _post(guest, f"/v1/games/{bots}:join", {"displayName": "Cy"})
                assert status == 200
                # A seat left absent at another table of the host's: the guest may not take it over.
                clocked = await made({"allowTakeover": True, "decisionSeconds": 600})
                joined = [(await _post(host, f"/v1/games/{clocked}:join", {"displayName": n}))[1] for n in ("Ada", "Bo", "Dee")]
                status, _ = await _post(host, f"/v1/games/{clocked}:leave", {}, token=joined[2]["seatToken"])
                assert status == 200
                takeover = {"seat": 2, "displayName": "Cy", "requestId": "0123456789abcdef-takeover"}
                status, refused = await _post(guest, f"/v1/games/{clocked}:takeOver", takeover)
                assert (status, refused["details"][0]["reason"]) == (429, "TOO_MANY_SEATS_HELD"), refused
                assert (await client.view(clocked)).seats[2].absent  # nothing changed
                # The guest leaves its seat to the bots, which finish the game; it asks for the next.
                status, _ = await _post(guest, f"/v1/games/{bots}:leave", {}, token=mine["seatToken"])
                deadline = time.monotonic() + 60
                while (await client.view(bots)).status != 3:  # GAME_STATUS_FINISHED
                    assert time.monotonic() < deadline, "the bots did not finish the game"
                    await asyncio.sleep(0.2)
                status, again = await _post(guest, f"/v1/games/{bots}:playAgain", {}, token=mine["seatToken"])
                assert status == 200, again
                # The host, seated nowhere in it, is still its maker: it seats a bot without a token.
                status, seated = await _post(host, f"/v1/games/{again['gameId']}:addBot", {"seat": 0})
                assert status == 200, seated

    run(scenario(), timeout_s=90)


def test_the_64s_of_a_site_hold_four_addresses_worth_of_seats(redis_server: EmbeddedRedis) -> None:
    """README: "The /64s of an IPv6 site hold no more together than four addresses may" (as for
    open tables), and each /64 its own bound; with sites off (`--clients-per-ipv6-site 0`), a
    /64 counts alone."""
    from hustings.service.client_limits import client_of

    async def scenario() -> None:
        for per_site, sites in ((16, True), (0, False)):
            async with replica_and_client(redis_server.url, seats_per_client=BOUND, clients_per_ipv6_site=per_site) as (replica, _):
                held = replica.host.seats_held
                assert held is not None and held.sites is sites
                one = client_of("2001:db8:1:2::5")
                keys = held._keys(one)
                assert keys == ([one, "2001:db8:1::/48"] if sites else [one])
                assert [held._bound(key) for key in keys] == ([BOUND, 4 * BOUND] if sites else [BOUND])

    run(scenario())
