"""GetHistory reads its page and then the game's stored record in one round trip, and uses only
the record's version, status and seat token hashes: it never decodes the engine state. Its
answers are the ones the full load gave (checked against that path for every seat, a spectator
and every page of a running and a finished game), pages read while moves commit never run past
their version, and a Redis Cluster (no lane; a pipeline to the game's shard) answers the same.
The figures of what a call costs, before and after, are printed, not asserted."""

from __future__ import annotations

import asyncio
import pathlib
import random
import time

import grpc
import pytest

from conftest import redis_cluster, run
from service_helpers import new_game, replica_and_client
from hustings.client import Client, Joined
from hustings.service import visibility
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.errors import ServiceError
from hustings.service.host import GameHost
from hustings.v1 import game_pb2, game_service_pb2

PAGE = 4
MAX_MOVES = 400
MAX_PAGES = 200
CONCURRENT_MOVES = 24
FIGURE_CALLS = 300


async def full_load_page(host: GameHost, request: game_service_pb2.GetHistoryRequest, token: str | None) -> game_service_pb2.GetHistoryResponse:
    """GetHistory as it was answered before: the whole game loaded and decoded, then the page up
    to its version (the reference the lighter read must equal)."""
    size = request.page_size or 500
    loaded = await host._load_fresh(request.game_id)
    seat = host.seat_of(loaded, token)
    entries = await host.store.log_entries(request.game_id, request.after_version, loaded.version, count=size)
    reveal = loaded.stored.status == game_pb2.GAME_STATUS_FINISHED
    response = game_service_pb2.GetHistoryResponse(version=loaded.version, revealed=reveal)
    for entry in entries:
        response.entries.append(visibility.entry_for(entry, seat, reveal))
    if entries and entries[-1].version < loaded.version:
        response.next_after_version = entries[-1].version
    return response


async def play(client: Client, seats: list[Joined], moves: int, rng: random.Random) -> game_pb2.GameView:
    """Up to ``moves`` random legal moves (fewer if the game ends); the last view."""
    game_id = seats[0].game_id
    view = await client.view(game_id)
    for _ in range(moves):
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            break
        seat = min(view.to_act)
        mine = await client.view(game_id, seats[seat].token)
        await client.move(game_id, seats[seat].token, rng.choice(list(mine.legal_moves)), expected_version=mine.version)
        view = await client.view(game_id)
    return view


async def every_page_matches(light: GameHost, reference: GameHost, game_id: str, tokens: list[str | None]) -> int:
    """Walk every page (size ``PAGE``) for each token on ``light`` and compare each with the full
    load's page on ``reference``; returns the pages compared."""
    compared = 0
    for token in tokens:
        after = 0
        for _page in range(MAX_PAGES):
            request = game_service_pb2.GetHistoryRequest(game_id=game_id, after_version=after, page_size=PAGE)
            page = await light.history(request, token)
            assert page == await full_load_page(reference, request, token)
            compared += 1
            if not page.next_after_version:
                break
            after = page.next_after_version
        else:
            raise AssertionError("the pages do not end")
    return compared


def test_history_equals_the_full_load_and_decodes_nothing(redis_server: EmbeddedRedis) -> None:
    """Replica B (which never sees a move) serves the history of a game played on replica A:
    every page for every seat and a spectator equals the full load's, mid-game and finished,
    and B's cache of decoded games stays empty (history decoded nothing). Then pages read on
    B while A commits moves each stop at their own version with no gap."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (a, client_a), replica_and_client(redis_server.url) as (b, client_b):
            seats = await new_game(client_a, 4)
            game_id = seats[0].game_id
            tokens: list[str | None] = [s.token for s in seats] + [None]
            rng = random.Random(7)
            await play(client_a, seats, 9, rng)
            assert await every_page_matches(b.host, a.host, game_id, tokens) > len(tokens)
            assert game_id not in set(b.host._cache)  # nothing decoded, so nothing kept

            moving = asyncio.create_task(play(client_a, seats, CONCURRENT_MOVES, rng))
            pages = 0
            for _read in range(MAX_PAGES):
                if moving.done():
                    break
                after = rng.randrange(0, 8)
                page = await client_b.history_page(game_id, seats[0].token, after, PAGE)
                versions = [e.version for e in page.entries]
                assert versions == list(range(after + 1, min(after + PAGE, page.version) + 1))
                assert page.next_after_version == (versions[-1] if versions[-1] < page.version else 0)
                pages += 1
                await asyncio.sleep(0)
            await moving
            assert pages > 0

            final = await play(client_a, seats, MAX_MOVES, rng)
            assert final.status == game_pb2.GAME_STATUS_FINISHED
            assert await every_page_matches(b.host, a.host, game_id, tokens) > len(tokens)
            assert game_id not in set(b.host._cache)  # nothing decoded, so nothing kept

            # Figures: a one-entry page and the whole log, on B's empty cache and on A's.
            version = final.version
            for label, request in (
                ("one entry", game_service_pb2.GetHistoryRequest(game_id=game_id, after_version=version - 1)),
                ("whole log", game_service_pb2.GetHistoryRequest(game_id=game_id)),
            ):
                for name, host, clear in (("not cached", b.host, True), ("cached", a.host, False)):
                    costs = []
                    for path in (full_load_page, GameHost.history):
                        started = time.process_time()
                        for _call in range(FIGURE_CALLS):
                            if clear:
                                host._cache.clear()
                            await path(host, request, seats[1].token)
                        costs.append((time.process_time() - started) / FIGURE_CALLS * 1e6)
                    print(f"GetHistory {label} ({version} steps), {name}: full load {costs[0]:.0f} us, page and head {costs[1]:.0f} us CPU per call")

    run(scenario(), timeout_s=120)


def test_history_on_a_cluster_equals_the_full_load(tmp_path: pathlib.Path) -> None:
    """On a Redis Cluster the page and the record are read in one pipeline to the game's shard:
    every page for every seat and a spectator equals the full load's."""

    async def scenario(url: str) -> None:
        async with replica_and_client(url) as (one, client):
            seats = await new_game(client, 3)
            await play(client, seats, 11, random.Random(3))
            tokens: list[str | None] = [s.token for s in seats] + [None]
            assert await every_page_matches(one.host, one.host, seats[0].game_id, tokens) > len(tokens)
            with pytest.raises(ServiceError) as missing:
                await one.host.history(game_service_pb2.GetHistoryRequest(game_id="g-no-such-game"), None)
            assert (missing.value.code, missing.value.reason) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")

    with redis_cluster(tmp_path) as nodes:
        run(scenario(f"redis+cluster://127.0.0.1:{nodes[0].port}"), timeout_s=90)
