"""GetHistory in pages by version, over gRPC and REST: the pages of a running and of a finished
game cover the log exactly once, in order, filtered as WatchGame filters it; bad page sizes and
versions are refused with their reasons; a seat's secret stays out of every other seat's pages."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from typing import Any, Iterator

import grpc
import pytest

from conftest import run
from rest_helpers import LiveRest
from service_helpers import new_game, play_to_end, replica_and_client
from hustings.client import Client, HustingsError, Joined
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.rest_routes import to_json
from hustings.v1 import game_pb2, game_service_pb2

SMALL_PAGE = 7
DEFAULT_PAGE = 500  # the server's default page size (the proto says so)
HAND_OVERS = 510  # enough to take a game past one default page
MAX_STEPS = 2 * HAND_OVERS
MAX_PAGES = 200


@dataclass(frozen=True)
class Table:
    """A game and its seats; ``secret`` is a version whose move only its own seat may see."""

    game_id: str
    seats: list[Joined]
    secret: int = 0


@pytest.fixture(scope="module")
def live(redis_server: EmbeddedRedis) -> Iterator[LiveRest]:
    with LiveRest(redis_server.url) as server:
        yield server


def _address(live: LiveRest) -> str:
    assert live.replica is not None
    return f"127.0.0.1:{live.replica.port}"


SIDE_MOVES = {"hand_budget", "offer_deal", "withdraw_offer", "decline_offer"}
MAX_CHOOSING_MOVES = 20


def _owed(view: game_pb2.GameView) -> game_pb2.Move:
    """The first listed decision that is not a side move (a Staff first of all)."""
    return next(m for m in view.legal_moves if m.spin_doctors.WhichOneof("kind") not in SIDE_MOVES)


def _hand_over(view: game_pb2.GameView, to: int) -> game_pb2.Move:
    return next(
        m
        for m in view.legal_moves
        if m.spin_doctors.WhichOneof("kind") == "hand_budget"
        and m.spin_doctors.hand_budget.seat == to
        and m.spin_doctors.hand_budget.amount == 1
    )


@pytest.fixture(scope="module")
def running(live: LiveRest) -> Table:
    """A Spin Doctors game still running, longer than one default page: seats 0 and 1 choose
    their (secret) Staffs and Programmes, then hand one Budget point back and forth; when they
    have used the side moves the rules allow between two decisions, whoever owes a decision
    makes one."""

    async def scenario() -> Table:
        async with Client(_address(live)) as client:
            created = await client.create_game("spin_doctors", 3)
            seats = [await client.join(created.game_id, f"P{i}") for i in range(3)]
            game_id = created.game_id
            # Seat 0 takes the last Staff listed, seat 1 the first: their secrets differ.
            staffs = [m for m in (await client.view(game_id, seats[0].token)).legal_moves if m.spin_doctors.HasField("choose_staff")]
            chosen = await client.move(game_id, seats[0].token, staffs[-1])
            for seat in (0, 1):
                for _ in range(MAX_CHOOSING_MOVES):
                    view = await client.view(game_id, seats[seat].token)
                    if seat not in view.to_act:
                        break
                    await client.move(game_id, seats[seat].token, _owed(view), expected_version=view.version)
                else:
                    raise AssertionError(f"seat {seat} still chooses")
            for i in range(MAX_STEPS):
                giver = i % 2
                view = await client.view(game_id, seats[giver].token)
                if view.version > HAND_OVERS:
                    break
                try:
                    move, mover = _hand_over(view, 1 - giver), giver
                except StopIteration:  # out of side moves (or Budget): a decision moves the game on
                    mover = view.to_act[0]
                    view = await client.view(game_id, seats[mover].token)
                    move = _owed(view)
                await client.move(game_id, seats[mover].token, move, expected_version=view.version)
            return Table(game_id, seats, chosen.version)

    table = run(scenario())
    assert isinstance(table, Table)
    return table


@pytest.fixture(scope="module")
def finished(live: LiveRest) -> Table:
    """A Stimmvieh game played to its end."""

    async def scenario() -> Table:
        async with Client(_address(live)) as client:
            seats = await new_game(client, 3)
            view = await play_to_end([client], seats, random.Random(20))
            assert view.status == game_pb2.GAME_STATUS_FINISHED
            return Table(seats[0].game_id, seats)

    table = run(scenario())
    assert isinstance(table, Table)
    return table


async def _pages(client: Client, game_id: str, token: str | None, size: int) -> list[game_service_pb2.GetHistoryResponse]:
    """Every page from the first, each starting where the previous one said."""
    pages = [await client.history_page(game_id, token, 0, size)]
    while pages[-1].next_after_version:
        assert len(pages) < MAX_PAGES, "the pages do not end"
        pages.append(await client.history_page(game_id, token, pages[-1].next_after_version, size))
    return pages


async def _watched(client: Client, game_id: str, token: str | None) -> list[bytes]:
    """The log as WatchGame's first update carries it (its own path to the same filter)."""
    async for update in client.watch(game_id, token, 0):
        return [e.SerializeToString(deterministic=True) for e in update.entries]
    raise AssertionError("WatchGame sent nothing")


def _check_pages(pages: list[game_service_pb2.GetHistoryResponse], size: int) -> list[game_pb2.HistoryEntry]:
    """The pages' entries, after checking that they run 1..version once, in order, page by page."""
    version = pages[0].version
    entries = [e for page in pages for e in page.entries]
    assert [e.version for e in entries] == list(range(1, version + 1))
    for page in pages:
        assert page.version == version and 0 < len(page.entries) <= size
        assert page.next_after_version == (page.entries[-1].version if page.entries[-1].version < version else 0)
    assert all(len(page.entries) == size for page in pages[:-1])
    return entries


@pytest.mark.parametrize("viewer", [0, 1, None], ids=["seat 0", "seat 1", "spectator"])
def test_pages_of_a_running_game_cover_its_log_once_filtered_for_the_caller(live: LiveRest, running: Table, viewer: int | None) -> None:
    async def scenario() -> None:
        token = running.seats[viewer].token if viewer is not None else None
        async with Client(_address(live)) as client:
            pages = await _pages(client, running.game_id, token, SMALL_PAGE)
            entries = _check_pages(pages, SMALL_PAGE)
            assert not any(page.revealed for page in pages)
            assert pages[0].version == (await client.view(running.game_id)).version > DEFAULT_PAGE
            assert [e.SerializeToString(deterministic=True) for e in entries] == await _watched(client, running.game_id, token)
            assert [e.SerializeToString() for e in await client.history(running.game_id, token, SMALL_PAGE)] == [
                e.SerializeToString() for e in entries
            ]
            # Seat 0's Staff is its secret: its move is in its own page and in nobody else's.
            (secret,) = [e for e in entries if e.version == running.secret]
            own = [e for e in await client.history(running.game_id, running.seats[0].token) if e.version == running.secret]
            assert own[0].move.spin_doctors.WhichOneof("kind") == "choose_staff" and own[0].move.spin_doctors.choose_staff.staffers
            if viewer != 0:
                staff = own[0].move.SerializeToString()
                assert not secret.HasField("move")
                assert not any(staff in page.SerializeToString() for page in pages)

    run(scenario())


def test_a_request_without_paging_fields_gets_the_first_default_page(live: LiveRest, running: Table) -> None:
    async def scenario() -> None:
        async with Client(_address(live)) as client:
            first = await client.history_page(running.game_id)
            assert [e.version for e in first.entries] == list(range(1, DEFAULT_PAGE + 1))
            assert first.next_after_version == DEFAULT_PAGE < first.version
            rest = await client.history_page(running.game_id, None, first.next_after_version, 1000)
            assert [e.version for e in rest.entries] == list(range(DEFAULT_PAGE + 1, first.version + 1))
            assert rest.next_after_version == 0
            full = await client.history(running.game_id)
            assert [e.version for e in full] == list(range(1, first.version + 1))

    run(scenario())


def test_pages_of_a_finished_game_reveal_everything_to_everyone(live: LiveRest, finished: Table) -> None:
    async def scenario() -> None:
        async with Client(_address(live)) as client:
            seen = []
            for token in (finished.seats[1].token, None):
                pages = await _pages(client, finished.game_id, token, SMALL_PAGE)
                entries = _check_pages(pages, SMALL_PAGE)
                assert len(pages) > 2 and all(page.revealed for page in pages)
                assert all(e.state_digest for e in entries)
                assert all(e.HasField("move") for e in entries if e.HasField("seat") and e.version > 4)
                serialised = [e.SerializeToString(deterministic=True) for e in entries]
                assert serialised == await _watched(client, finished.game_id, token)
                assert serialised == [e.SerializeToString(deterministic=True) for e in await client.history(finished.game_id, token, SMALL_PAGE)]
                seen.append(serialised)
            assert seen[0] == seen[1]

    run(scenario())


def test_a_page_that_reaches_the_version_is_the_last(live: LiveRest, finished: Table) -> None:
    """GetHistoryResponse.next_after_version: "0 when this page reaches `version` (the last
    page)", at the boundary: a page of exactly the steps left is the last, one step fewer is not,
    and the page after it holds that one step."""
    version = int(live.ok("GET", f"/v1/games/{finished.game_id}/view")["view"]["version"])
    whole = live.ok("GET", f"/v1/games/{finished.game_id}/history?pageSize={version}")
    assert (len(whole["entries"]), whole.get("nextAfterVersion", "0")) == (version, "0")
    short = live.ok("GET", f"/v1/games/{finished.game_id}/history?pageSize={version - 1}")
    assert (len(short["entries"]), short["nextAfterVersion"]) == (version - 1, str(version - 1))
    rest = live.ok("GET", f"/v1/games/{finished.game_id}/history?afterVersion={version - 1}&pageSize=5")
    assert (len(rest["entries"]), rest.get("nextAfterVersion", "0")) == (1, "0")


def test_bad_page_sizes_and_versions_are_refused_with_their_reasons(live: LiveRest, finished: Table) -> None:
    async def scenario() -> None:
        async with Client(_address(live)) as client:
            version = (await client.view(finished.game_id)).version
            cases = [
                ({"page_size": -1}, grpc.StatusCode.INVALID_ARGUMENT, "BAD_PAGE_SIZE"),
                ({"page_size": 1001}, grpc.StatusCode.INVALID_ARGUMENT, "BAD_PAGE_SIZE"),
                ({"after_version": -1}, grpc.StatusCode.INVALID_ARGUMENT, "BAD_AFTER_VERSION"),
                ({"after_version": version + 1}, grpc.StatusCode.OUT_OF_RANGE, "AFTER_VERSION_AHEAD"),
            ]
            for fields, code, reason in cases:
                with pytest.raises(HustingsError) as refused:
                    await client.history_page(finished.game_id, **fields)  # type: ignore[arg-type]
                assert (refused.value.code, refused.value.reason) == (code, reason), fields
                if reason == "BAD_PAGE_SIZE":  # the README's words: 0 or unset is 500
                    assert "0 to 1000 (0: 500)" in refused.value.message, refused.value.message
            at_end = await client.history_page(finished.game_id, None, version, 1000)
            assert (list(at_end.entries), at_end.version, at_end.next_after_version) == ([], version, 0)
            largest = await client.history_page(finished.game_id, None, 0, 1000)
            assert len(largest.entries) == version

    run(scenario())


def _rest_pages(live: LiveRest, game_id: str, token: str | None, size: int) -> list[dict[str, Any]]:
    pages = [live.ok("GET", f"/v1/games/{game_id}/history?pageSize={size}", token=token)]
    while pages[-1]["nextAfterVersion"] != "0":
        assert len(pages) < MAX_PAGES, "the pages do not end"
        after = pages[-1]["nextAfterVersion"]
        pages.append(live.ok("GET", f"/v1/games/{game_id}/history?afterVersion={after}&page_size={size}", token=token))
    return pages


@pytest.mark.parametrize("game", ["running", "finished"])
def test_rest_pages_are_the_grpc_pages_in_json(live: LiveRest, game: str, request: pytest.FixtureRequest) -> None:
    table: Table = request.getfixturevalue(game)

    async def grpc_pages(token: str | None) -> list[dict[str, Any]]:
        async with Client(_address(live)) as client:
            return [to_json(page) for page in await _pages(client, table.game_id, token, SMALL_PAGE)]

    for token in (table.seats[0].token, None):
        expected = run(grpc_pages(token))
        assert _rest_pages(live, table.game_id, token, SMALL_PAGE) == expected
        assert all(page["revealed"] == (game == "finished") for page in expected)


def test_rest_refuses_bad_page_sizes_and_versions(live: LiveRest, finished: Table) -> None:
    version = int(live.ok("GET", f"/v1/games/{finished.game_id}/view")["view"]["version"])
    path = f"/v1/games/{finished.game_id}/history"
    cases = [
        ("pageSize=0&pageSize=1", "BAD_PARAMETER"),
        ("pageSize=1001", "BAD_PAGE_SIZE"),
        ("pageSize=-3", "BAD_PAGE_SIZE"),
        ("afterVersion=-1", "BAD_AFTER_VERSION"),
        ("afterVersion=x", "BAD_PARAMETER"),
        (f"afterVersion={version + 1}", "AFTER_VERSION_AHEAD"),
    ]
    for query, reason in cases:
        response = live.call("GET", f"{path}?{query}")
        assert response.status_code == 400, query
        (info,) = response.json()["details"]
        assert info["reason"] == reason, query
    ahead = live.call("GET", f"{path}?afterVersion={version + 1}").json()
    assert ahead["code"] == grpc.StatusCode.OUT_OF_RANGE.value[0]
    assert ahead["details"][0]["metadata"] == {"version": str(version)}


def test_client_history_starts_again_when_the_game_ends_part_way(redis_server: EmbeddedRedis) -> None:
    """README: `client.history` walks every page, starting again if the game ends part-way, so
    that all is filtered or all revealed. A spectator reads a table of bots alone in pages of 5;
    the game ends between its first and second page: the answer is the revealed history, the
    same as one read after the end."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):
            table = game_pb2.TableSettings(bot_seats=[0, 1, 2])
            game_id = (await client.create_game("stimmvieh", 3, table=table)).game_id
            for _ in range(200):  # one bot decision per 100 ms: a few steps in a second or so
                if (await client.view(game_id)).version >= 6:
                    break
                await asyncio.sleep(0.05)
            pages: list[game_service_pb2.GetHistoryResponse] = []
            read_page = client.history_page

            async def page_after_the_end(*args: Any, **kwargs: Any) -> game_service_pb2.GetHistoryResponse:
                if len(pages) == 1:  # between the first page and the second, the game ends
                    for _ in range(600):
                        if (await client.view(game_id)).status == game_pb2.GAME_STATUS_FINISHED:
                            break
                        await asyncio.sleep(0.05)
                page = await read_page(*args, **kwargs)
                pages.append(page)
                return page

            client.history_page = page_after_the_end  # type: ignore[method-assign]
            walked = await client.history(game_id, page_size=5)
            client.history_page = read_page  # type: ignore[method-assign]
            after = await client.history(game_id)
            assert not pages[0].revealed and pages[1].revealed  # the game did end part-way
            assert list(pages[0].entries) != list(after[:5])  # a filtered page differs from the revealed
            assert walked == after and len(after) == (await client.view(game_id)).version

    run(scenario(), timeout_s=120)
