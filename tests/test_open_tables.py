"""Listed tables one client keeps waiting (README, Limits: open tables): one address made 120
listed tables in 0.2 s and, at its creation rate, kept the first pages of everybody's lobby.
Past ``--open-tables-per-client`` listed tables still waiting, CreateGame of another listed table
is RESOURCE_EXHAUSTED ``TOO_MANY_OPEN_TABLES`` (no retry hint), changing nothing; unlisted tables,
other addresses and retries of a create that happened are answered as before, and a table that
starts or expires makes room."""

from __future__ import annotations

import asyncio
import random
import uuid

import aiohttp
import grpc
import pytest

from conftest import run
from hustings.client import Client, HustingsError
from hustings.service import open_tables
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.open_tables import DEFAULT_OPEN_TABLES_PER_CLIENT, OpenTables
from hustings.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc
from test_client_limits import details, replica
from test_ipv6_sites import Clock


def test_a_client_at_its_bound_is_looked_up_at_most_once_a_second_and_only_its_open_tables_count() -> None:
    """Two tables noted, a bound of two: the lookup is asked which still wait; both do, so the
    client is full, and within RECHECK_S it is full again without a lookup. One started: room
    for one. A retried note counts once; only the newest ``per_client`` are kept; clients past
    ``max_clients`` are forgotten, least recently creating first."""
    clock = Clock()
    tables = OpenTables(per_client=2, max_clients=2, clock=clock)
    asked: list[list[str]] = []
    waiting = {"g1", "g2"}

    async def still_open(ids: list[str]) -> list[str]:
        asked.append(ids)
        return [i for i in ids if i in waiting]

    async def room(client: str) -> bool:
        claim = await tables.claim(client, still_open)
        if claim is not None:
            claim.release()
        return claim is not None

    async def scenario() -> None:
        assert await room("a") and asked == []  # under the bound: no lookup
        tables.note("a", "g1")
        tables.note("a", "g1")  # a retry's game, counted once
        assert await room("a") and asked == []
        tables.note("a", "g2")
        assert not await room("a") and asked == [["g1", "g2"]]
        waiting.discard("g1")  # g1 started
        clock.now += open_tables.RECHECK_S / 2
        assert not await room("a") and len(asked) == 1  # refused again without a lookup
        clock.now += open_tables.RECHECK_S
        assert await room("a") and tables.held("a") == ["g2"]
        for game_id in ("g3", "g4"):
            tables.note("a", game_id)
        assert tables.held("a") == ["g3", "g4"]  # the newest two
        tables.note("b", "g5")
        tables.note("c", "g6")  # a third client: "a", least recently creating, is forgotten
        assert tables.held("a") == [] and tables.held("b") == ["g5"] and tables.held("c") == ["g6"]

    run(scenario())
    with pytest.raises(ValueError):
        OpenTables(per_client=0)


def test_tables_past_their_lifetime_are_forgotten_as_others_are_noted() -> None:
    """A table counts no longer than it may wait, and is then forgotten, its client with it
    when it has no other: a crowd of one table each left every id for as long as the replica
    ran (26 MB at 65,000 addresses). The forgetting walks the clients two a note, in their
    order, so a client with tables still waiting keeps its place, and ids without a lifetime
    (seats) stay."""
    clock = Clock()
    tables = OpenTables(per_client=50, max_clients=1_000, clock=clock)
    for n in range(100):
        tables.note(f"crowd-{n}", f"g{n}", clock.now + 10)
    tables.note("host", "g-long", clock.now + 1_000)
    tables.note("host", "g-short", clock.now + 10)
    tables.note("seated", "g-seat/0/abc")  # no lifetime
    clock.now += 11
    for n in range(60):  # 120 looks: every client noted before, once
        tables.note("newcomer", f"n{n}", clock.now + 10)
    left = list(tables._tables)
    assert left == ["host", "seated", "newcomer"], left
    assert tables.held("host") == ["g-long"] and tables.held("seated") == ["g-seat/0/abc"]
    assert len(tables.held("newcomer")) == 50  # its own bound, as before
    clock.now += 1_000
    for n in range(5):
        tables.note("late", f"l{n}", clock.now + 10)
    assert list(tables._tables) == ["seated", "late"]


def test_creates_in_flight_together_hold_their_places_and_share_one_lookup() -> None:
    """A bound of three and one table made: of ten claims at once, two get a place and eight are
    refused, until a claim is released without a table; one that made its table counts it.
    Twenty claims at the bound while the lookup is slow make one lookup between them. When only
    made tables counted, 100 creates sent at once against a bound of 3 had all been made."""
    tables = OpenTables(per_client=3, clock=Clock())
    lookups = 0

    async def slow_still_open(ids: list[str]) -> list[str]:
        nonlocal lookups
        lookups += 1
        await asyncio.sleep(0.05)
        return ids

    async def scenario() -> None:
        tables.note("a", "g1")
        claims = await asyncio.gather(*(tables.claim("a", slow_still_open) for _ in range(10)))
        held = [c for c in claims if c is not None]
        assert len(held) == 2, claims
        assert await asyncio.gather(*(tables.claim("a", slow_still_open) for _ in range(20))) == [None] * 20
        assert lookups == 1
        held[0].release()  # its create failed before its commit: the place is free again
        again = await tables.claim("a", slow_still_open)
        assert again is not None
        held[1].made("g2")
        held[1].release()
        again.made("g3")
        again.release()
        assert tables.held("a") == ["g1", "g2", "g3"]
        tables._refused_at.clear()
        assert await tables.claim("a", slow_still_open) is None and lookups == 2

    run(scenario())


def test_the_64s_of_an_ipv6_site_keep_no_more_tables_waiting_than_four_addresses() -> None:
    """One /64 at its bound (two here) leaves its /48 neighbours room (a site's bound of one
    address's let it keep every other /64 of the /48 from a listed table); four /64s at their
    bound fill the site's, eight tables, and a fifth /64 of it is refused; another site and an
    IPv4 address are not touched; with sites off each /64 counts alone."""
    from hustings.service.client_limits import client_of

    async def still_open(ids: list[str]) -> list[str]:
        return ids

    async def scenario(sites: bool) -> list[bool]:
        tables = OpenTables(per_client=2)
        tables.sites = sites
        tables.note(client_of("2001:db8:1:1::5"), "g1")
        tables.note(client_of("2001:db8:1:1::6"), "g2")  # that /64 is at its bound
        answers = [await tables.claim(client_of("2001:db8:1:1::7"), still_open) is None]
        answers.append(await tables.claim(client_of("2001:db8:1:2::5"), still_open) is None)  # a neighbour
        for n in range(2, 5):
            for m in range(2 if n > 2 else 1):
                tables.note(client_of(f"2001:db8:1:{n}::{m + 10}"), f"g{n}{m}")
        clients = (client_of("2001:db8:1:9::5"), client_of("2001:db8:2::5"), "203.0.113.5")
        return answers + [await tables.claim(client, still_open) is None for client in clients]

    assert open_tables.SITE_SHARE == 4
    assert run(scenario(True)) == [True, False, True, False, False]
    assert run(scenario(False)) == [True, False, False, False, False]


def test_serve_takes_the_bound_and_defaults_to_fifty() -> None:
    from hustings.cli import _parser
    from hustings.service.replica import SOLE_CLIENT, UNBOUNDED_CREATES, ReplicaConfig

    from conftest import REPO

    assert DEFAULT_OPEN_TABLES_PER_CLIENT == 50 and open_tables.RECHECK_S == 1.0
    readme = " ".join((REPO / "README.md").read_text().split())
    assert "`--open-tables-per-client` (50, a lobby page)" in readme and "none within a second of finding it full" in readme
    proto = " ".join((REPO / "proto" / "hustings" / "v1" / "game_service.proto").read_text().replace("//", " ").split())
    assert "as many listed tables waiting for players as a replica allows (50 by default)" in proto
    assert _parser().parse_args(["serve"]).open_tables_per_client == 50
    assert _parser().parse_args(["serve", "--open-tables-per-client", "0"]).open_tables_per_client == 0
    assert ReplicaConfig(redis_url="redis://127.0.0.1:1/0").open_tables_per_client == 50
    assert UNBOUNDED_CREATES["open_tables_per_client"] == SOLE_CLIENT["open_tables_per_client"] == 0
    with pytest.raises(SystemExit):
        _parser().parse_args(["serve", "--open-tables-per-client", "-1"])


def _refusals() -> float:
    from prometheus_client import REGISTRY

    return REGISTRY.get_sample_value("hustings_refused_creations_total", {"reason": "TOO_MANY_OPEN_TABLES"}) or 0.0


def _create(table: game_pb2.TableSettings | None = None, request_id: str = "") -> game_service_pb2.CreateGameRequest:
    return game_service_pb2.CreateGameRequest(
        kind="stimmvieh", options=game_pb2.GameOptions(players=3), table=table, request_id=request_id
    )


def test_past_its_open_tables_a_client_is_refused_on_both_faces_and_a_started_table_makes_room(
    redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bound of two, behind a trusted proxy: an address with two listed tables waiting is
    refused a third TOO_MANY_OPEN_TABLES over gRPC (no RetryInfo) and REST (429), the lobby and
    its creation allowance unchanged; its unlisted table, a retry of its second create, and
    another address's table are made or answered; once one of its tables has started, it makes
    a listed table again."""
    monkeypatch.setattr(open_tables, "RECHECK_S", 0.0)

    async def scenario() -> None:
        config = {"open_tables_per_client": 2, "create_burst": 4, "creates_per_client_per_minute": 0.01, "trusted_proxies": ("127.0.0.0/8",)}
        async with replica(redis_server.url, **config) as served:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{served.port}") as channel, aiohttp.ClientSession() as http:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                me = (("x-forwarded-for", "203.0.113.30"),)
                second_id = str(uuid.uuid4())
                first = await stub.CreateGame(_create(), metadata=me, timeout=10)
                second = await stub.CreateGame(_create(request_id=second_id), metadata=me, timeout=10)

                async def lobby() -> set[str]:
                    page = await stub.ListGames(game_service_pb2.ListGamesRequest(page_size=200), timeout=10)
                    return {g.game_id for g in page.games}

                listed = await lobby()
                assert {first.game_id, second.game_id} <= listed
                # Counted for as long as a table may wait: twice its wait from its creation (a
                # day by default), and a minute more, by the replica's monotonic clock.
                tables = served.host.open_tables
                assert tables is not None
                lifetime = tables._tables["203.0.113.30"][first.game_id] - tables.clock()
                assert 2 * 86_400 + 55 < lifetime <= 2 * 86_400 + 60, lifetime
                counted = _refusals()
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await stub.CreateGame(_create(), metadata=me, timeout=10)
                assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert details(refused.value) == ("TOO_MANY_OPEN_TABLES", None)
                url = f"http://127.0.0.1:{served.http_port}/v1/games"
                body = {"kind": "stimmvieh", "options": {"players": 3}}
                async with http.post(url, json=body, headers={"X-Forwarded-For": "203.0.113.30"}) as answer:
                    assert answer.status == 429 and "Retry-After" not in answer.headers
                    assert (await answer.json())["details"][0]["reason"] == "TOO_MANY_OPEN_TABLES"
                assert await lobby() == listed  # nothing was made
                assert _refusals() == counted + 2  # hustings_refused_creations_total{reason}
                again = await stub.CreateGame(_create(request_id=second_id), metadata=me, timeout=10)
                assert again.game_id == second.game_id  # a retry is answered with its game
                unlisted = await stub.CreateGame(
                    _create(game_pb2.TableSettings(unlisted=True), str(uuid.uuid4())), metadata=me, timeout=10
                )
                assert unlisted.game_id not in await lobby()
                other = await stub.CreateGame(_create(), metadata=(("x-forwarded-for", "203.0.113.31"),), timeout=10)
                assert other.game_id in await lobby()
                for name in ("Ada", "Bo", "Cy"):  # the first table fills and starts
                    await stub.JoinGame(game_service_pb2.JoinGameRequest(game_id=first.game_id, display_name=name), timeout=10)
                # Room again, and the refused calls took nothing of the allowance (4: three made, one left).
                made = await stub.CreateGame(_create(), metadata=me, timeout=10)
                assert made.game_id in await lobby()

    run(scenario(), timeout_s=60)


def test_creates_sent_together_make_no_more_listed_tables_than_the_bound(redis_server: EmbeddedRedis) -> None:
    """Thirty creates at once from one address with a bound of three, over gRPC and REST
    together: three tables made, the others refused TOO_MANY_OPEN_TABLES (all thirty were made
    when a create counted only once its table was)."""

    async def scenario() -> None:
        config = {"open_tables_per_client": 3, "trusted_proxies": ("127.0.0.0/8",)}
        async with replica(redis_server.url, **config) as served:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{served.port}") as channel, aiohttp.ClientSession() as http:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                me = "203.0.113.40"
                url = f"http://127.0.0.1:{served.http_port}/v1/games"

                async def over_grpc() -> str:
                    try:
                        await stub.CreateGame(_create(), metadata=(("x-forwarded-for", me),), timeout=20)
                        return "made"
                    except grpc.aio.AioRpcError as error:
                        return details(error)[0]

                async def over_rest() -> str:
                    body = {"kind": "stimmvieh", "options": {"players": 3}}
                    async with http.post(url, json=body, headers={"X-Forwarded-For": me}) as answer:
                        return "made" if answer.status == 200 else (await answer.json())["details"][0]["reason"]

                outcomes = await asyncio.gather(*(over_grpc() if i % 2 else over_rest() for i in range(30)))
                assert sorted(outcomes) == ["TOO_MANY_OPEN_TABLES"] * 27 + ["made"] * 3, outcomes

    run(scenario(), timeout_s=60)


def test_a_next_game_of_a_listed_table_counts_as_a_listed_table_of_the_player_who_makes_it(
    redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PlayAgain makes a listed table of a listed one: uncounted, a client at its bound played a
    game through and asked for the next, a listed table at its creation rate past the bound. With
    a bound of one and a table of its own waiting, the player's PlayAgain is refused
    TOO_MANY_OPEN_TABLES and makes nothing; once that table has started, it makes the next game."""
    from service_helpers import play_to_end

    monkeypatch.setattr(open_tables, "RECHECK_S", 0.0)

    async def scenario() -> None:
        config = {"open_tables_per_client": 1, "trusted_proxies": ("127.0.0.0/8",)}
        async with replica(redis_server.url, **config) as served:
            async with Client(f"127.0.0.1:{served.port}") as client:
                finished = (await client.create_game("stimmvieh", 3)).game_id
                seats = [await client.join(finished, name) for name in ("Ada", "Bo", "Cy")]
                await play_to_end([client], seats, random.Random(5))
                waiting = (await client.create_game("stimmvieh", 3)).game_id  # the first has started: room
                with pytest.raises(HustingsError) as refused:
                    await client.play_again(finished, seats[0].token)
                assert (refused.value.code, refused.value.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_OPEN_TABLES")
                listed = {g.game_id for g in (await client.games(page_size=200)).games}
                for name in ("Di", "Ed", "Fa"):
                    await client.join(waiting, name)
                made = await client.play_again(finished, seats[0].token)
                assert made.game_id not in listed and made.view.status == game_pb2.GAME_STATUS_OPEN

    run(scenario(), timeout_s=120)
