"""What games keep in Redis, and what a crowd of client addresses can make one replica and Redis
hold, measured on a real Redis (the embedded one) through the real service. Each test prints its
figures (run with ``-s``) and checks them against ceilings a little above what was measured, so a
change that makes a game keep much more fails here.

Bytes are Redis's own accounting: ``MEMORY USAGE <key> SAMPLES 0`` per key (every element
counted), and ``INFO memory`` ``used_memory`` before and after many games for what the keys'
accounting leaves out (the key space's own entries, expiry entries).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import pathlib
import random
import statistics
import sys
import time
from typing import Any

import grpc
import pytest
import redis.asyncio as aioredis

from conftest import run
from hustings.client import Client, HustingsError, Joined
from hustings.service import deadlines
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import UNBOUNDED_CALL_RATE, UNBOUNDED_CREATES, Replica, ReplicaConfig
from hustings.service.seats import MAX_ACTIVE_GAME_SEAT_CHANGES_UP_TO
from hustings.service.store import LOBBY_KEY, game_key, log_key, presence_key, requests_key
from hustings.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc
from service_helpers import seat_changes

pytestmark = pytest.mark.slow

KINDS = ("stimmvieh", "wahlspiel", "spin_doctors")
PLAYERS = 4
GAMES_PER_KIND = 3
MAX_STEPS = 5_000  # a bound on any one game's moves here
NAMES = {"game": game_key, "log": log_key, "requests": requests_key, "presence": presence_key}
# Ceilings, a little above what was measured on Redis 6.2 (bytes of MEMORY USAGE, every key of a game).
OPEN_GAME_CEILING = 9_000
FINISHED_GAME_CEILING = {"stimmvieh": 30_000, "wahlspiel": 100_000, "spin_doctors": 200_000}
REQUEST_ID_CEILING = 120  # bytes of the request-id hash per move sent with a request id
LOBBY_ENTRY_CEILING = 1_500  # bytes of all the lobby's keys per listed game


async def _replica(url: str, **config: Any) -> Replica:
    return await Replica(ReplicaConfig(redis_url=url, address="127.0.0.1:0", grace_s=1.0, **config)).start()  # type: ignore[arg-type]


async def _usage(raw: aioredis.Redis, key: str) -> int:
    return int(await raw.execute_command("MEMORY", "USAGE", key, "SAMPLES", "0") or 0)


async def _keys_of(raw: aioredis.Redis, game_id: str) -> dict[str, int]:
    """Bytes of each of the game's keys (0: absent)."""
    return {name: await _usage(raw, key(game_id)) for name, key in NAMES.items()}


async def _without_expiry(raw: aioredis.Redis, game_id: str) -> list[str]:
    """The game's keys that exist and have no expiry."""
    return [name for name, key in NAMES.items() if await raw.pttl(key(game_id)) == -1]


async def _lobby_bytes(raw: aioredis.Redis) -> int:
    return sum([await _usage(raw, key) async for key in raw.scan_iter(match="hustings:{lobby}:*", count=1000)])


async def _used(raw: aioredis.Redis) -> int:
    return int((await raw.info("memory"))["used_memory"])


async def _step_randomly(client: Client, game_id: str, seats: list[Joined], rng: random.Random) -> game_pb2.GameView:
    """One random legal move of a seat to act (a spectator's view first); the view before it."""
    view = await client.view(game_id)
    if view.status != game_pb2.GAME_STATUS_ACTIVE:
        return view
    seat = rng.choice(sorted(view.to_act))
    mine = await client.view(game_id, seats[seat].token)
    if mine.legal_moves:
        try:
            await client.move(game_id, seats[seat].token, rng.choice(list(mine.legal_moves)), expected_version=mine.version)
        except HustingsError as refused:
            assert refused.code == grpc.StatusCode.ABORTED, refused  # another seat's step came first
    return mine


def test_what_a_game_of_each_kind_keeps_in_redis_open_in_play_and_finished(tmp_path: pathlib.Path) -> None:
    """Three four-seat games of each kind, played by their players with random legal moves (each
    move with a request id, as the clients send), measured unjoined, at the first move, halfway and
    finished; every key of the game has an expiry at each of them. Then what 200 unjoined games of
    each kind add to ``used_memory``, their lobby entries and create request ids included."""

    async def scenario(url: str) -> dict[str, Any]:
        replica = await _replica(url, allow_client_seed=True, **UNBOUNDED_CALL_RATE, **UNBOUNDED_CREATES)
        raw = aioredis.Redis.from_url(url)
        figures: dict[str, Any] = {}
        try:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                for kind in KINDS:
                    rows = []
                    for number in range(GAMES_PER_KIND):
                        rng = random.Random(f"{kind}-{number}")
                        clock = game_pb2.TableSettings(decision_seconds=3600)  # a clock: its deadline is indexed
                        created = await client.create_game(kind, PLAYERS, seed=hashlib.sha256(f"storage-{kind}-{number}".encode()).hexdigest(), table=clock)
                        game_id = created.game_id
                        unjoined = await _keys_of(raw, game_id)
                        assert await _without_expiry(raw, game_id) == []
                        seats = [await client.join(game_id, f"Player {i}") for i in range(PLAYERS)]
                        started = await _keys_of(raw, game_id)
                        assert await _without_expiry(raw, game_id) == []
                        totals = []
                        view = await client.view(game_id)
                        for _ in range(MAX_STEPS):
                            view = await _step_randomly(client, game_id, seats, rng)
                            if view.status == game_pb2.GAME_STATUS_FINISHED:
                                break
                            totals.append((view.version, await _keys_of(raw, game_id)))
                        assert view.status == game_pb2.GAME_STATUS_FINISHED, f"{kind} did not end in {MAX_STEPS} moves"
                        finished = await _keys_of(raw, game_id)
                        assert await _without_expiry(raw, game_id) == []
                        halfway = totals[len(totals) // 2][1]
                        moves = int(await raw.hlen(requests_key(game_id))) - PLAYERS  # the joins' request ids besides
                        rows.append((view.version, moves, unjoined, started, halfway, finished))
                    figures[kind] = rows
                # What many unjoined games add to Redis as a whole (the key space, expiry entries, the lobby).
                for kind in KINDS:
                    before, lobby_before = await _used(raw), await _lobby_bytes(raw)
                    for _ in range(200):
                        await client.create_game(kind, PLAYERS)
                    figures[f"{kind} used_memory per unjoined game"] = (await _used(raw) - before) / 200
                    figures[f"{kind} lobby per game"] = (await _lobby_bytes(raw) - lobby_before) / 200
                figures["deadline index entries"] = await replica.host.deadlines.pending()
                figures["deadline index per game"] = sum(
                    [await _usage(raw, f"hustings:deadlines:{{d{b}}}") for b in range(deadlines.BUCKETS)]
                ) / max(1, await replica.host.deadlines.pending())
                create_keys = [key async for key in raw.scan_iter(match="hustings:create:*", count=1000)]
                figures["create request id"] = statistics.mean([await _usage(raw, k) for k in create_keys[:100]])
                assert all([0 < await raw.ttl(k) <= 24 * 3600 for k in create_keys[:100]])
        finally:
            await raw.aclose()
            await replica.stop()
        return figures

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        figures = run(scenario(server.url), timeout_s=600)
    assert isinstance(figures, dict)
    print()
    for kind in KINDS:
        for version, moves, unjoined, started, halfway, finished in figures[kind]:
            print(
                f"{kind:13} {version:4} steps: unjoined {sum(unjoined.values()):6} B {unjoined}\n"
                f"{'':19} first move {sum(started.values()):6} B, halfway {sum(halfway.values()):6} B {halfway}\n"
                f"{'':19} finished {sum(finished.values()):6} B {finished}; request ids {finished['requests'] / max(1, moves):.0f} B a move"
            )
        print(
            f"{kind:13} 200 unjoined games: {figures[f'{kind} used_memory per unjoined game']:.0f} B of used_memory each, "
            f"{figures[f'{kind} lobby per game']:.0f} B of it the lobby's"
        )
    print(f"deadline index {figures['deadline index per game']:.0f} B a game ({figures['deadline index entries']} entries); create request id {figures['create request id']:.0f} B")
    for kind in KINDS:
        for version, moves, unjoined, started, halfway, finished in figures[kind]:
            assert sum(unjoined.values()) <= OPEN_GAME_CEILING
            assert sum(finished.values()) <= FINISHED_GAME_CEILING[kind]
            assert finished["requests"] <= REQUEST_ID_CEILING * (moves + PLAYERS)
        assert figures[f"{kind} lobby per game"] <= LOBBY_ENTRY_CEILING


def _forwarded(address: str) -> tuple[tuple[str, str], ...]:
    return (("x-forwarded-for", address),)


CROWD_ADDRESSES = 200
CROWD_GAMES = 10_000  # fifty from each address: within each one's burst of creates and its listed tables waiting
PAGE = 200


def test_a_crowd_of_addresses_fills_the_lobby_with_unjoined_games_and_pages_it(tmp_path: pathlib.Path) -> None:
    """10,000 unjoined games from 200 forwarded addresses through a replica with its default
    limits (nothing replica-wide bounds them); then what Redis holds, and what reading the whole
    lobby costs, page by page, unfiltered and by kind and status."""

    async def scenario(url: str) -> dict[str, Any]:
        replica = await _replica(url, trusted_proxies=("127.0.0.0/8",))
        raw = aioredis.Redis.from_url(url)
        figures: dict[str, Any] = {}
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}") as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                used_before = await _used(raw)
                request = game_service_pb2.CreateGameRequest(kind="stimmvieh", options=game_pb2.GameOptions(players=3))
                started = time.monotonic()

                async def creates(address: str) -> None:
                    for _ in range(CROWD_GAMES // CROWD_ADDRESSES):
                        await stub.CreateGame(request, metadata=_forwarded(address), timeout=30)

                for first in range(0, CROWD_ADDRESSES, 25):  # 25 addresses at once
                    await asyncio.gather(*(creates(f"198.18.{a // 250}.{a % 250 + 1}") for a in range(first, first + 25)))
                figures["create s"] = time.monotonic() - started
                figures["used_memory per game"] = (await _used(raw) - used_before) / CROWD_GAMES
                figures["lobby per game"] = await _lobby_bytes(raw) / CROWD_GAMES
                figures["lobby entries"] = int(await raw.zcard(LOBBY_KEY))
                for name, kind, status in (("all", "", 0), ("open stimmvieh", "stimmvieh", game_pb2.GAME_STATUS_OPEN)):
                    token, pages, listed, sizes, times = "", 0, 0, [], []
                    while True:
                        ask = game_service_pb2.ListGamesRequest(kind=kind, status=status, page_size=PAGE, page_token=token)
                        began = time.monotonic()
                        page = await stub.ListGames(ask, metadata=_forwarded(f"198.19.0.{pages % 250 + 1}"), timeout=30)
                        times.append(time.monotonic() - began)
                        sizes.append(page.ByteSize())
                        pages, listed, token = pages + 1, listed + len(page.games), page.next_page_token
                        if not token or pages > 2 * CROWD_GAMES // PAGE:
                            break
                    figures[f"list {name}"] = (pages, listed, statistics.median(sizes), statistics.median(times), max(times))
        finally:
            await raw.aclose()
            await replica.stop()
        return figures

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        figures = run(scenario(server.url), timeout_s=600)
    assert isinstance(figures, dict)
    print(
        f"\n{CROWD_GAMES} unjoined games from {CROWD_ADDRESSES} addresses in {figures['create s']:.1f} s: "
        f"{figures['used_memory per game']:.0f} B of used_memory each, {figures['lobby per game']:.0f} B of it the lobby's"
    )
    assert figures["lobby entries"] == CROWD_GAMES
    for name in ("all", "open stimmvieh"):
        pages, listed, size, median_s, max_s = figures[f"list {name}"]
        print(f"ListGames {name}: {pages} pages of {PAGE}, {listed} games, {size:.0f} B a page, {median_s * 1000:.1f} ms median, {max_s * 1000:.1f} ms at most")
        assert listed == CROWD_GAMES and pages <= CROWD_GAMES // PAGE + 1
        assert size <= PAGE * 300  # a listed game's summary: about 150 B
    assert figures["lobby per game"] <= LOBBY_ENTRY_CEILING


def test_the_longest_game_a_client_can_make_and_what_reading_it_whole_costs(tmp_path: pathlib.Path) -> None:
    """One seat of a four-seat Spin Doctors game left and taken back until the service refuses
    (TOO_MANY_SEAT_CHANGES), the other seats idle, then the game played to its end: its keys'
    bytes, its whole history read page by page, and the first update of a WatchGame from version 1
    (one message, which a gRPC client takes up to 4 MiB of by default)."""

    async def scenario(url: str) -> dict[str, Any]:
        replica = await _replica(url, allow_client_seed=True, **UNBOUNDED_CALL_RATE, **UNBOUNDED_CREATES)
        raw = aioredis.Redis.from_url(url)
        figures: dict[str, Any] = {}
        try:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                game_id = (await client.create_game("spin_doctors", PLAYERS, seed=hashlib.sha256(b"storage-longest").hexdigest())).game_id
                seats = [await client.join(game_id, f"Player {i}") for i in range(PLAYERS)]
                started = time.monotonic()
                await seat_changes(replica, game_id, seats[0].token, 2 * MAX_ACTIVE_GAME_SEAT_CHANGES_UP_TO)
                figures["seat changes s"] = time.monotonic() - started
                with pytest.raises(HustingsError) as refused:
                    await client.leave(game_id, seats[0].token)
                assert refused.value.reason == "TOO_MANY_SEAT_CHANGES", refused.value.reason
                figures["version at the cap"] = (await client.view(game_id)).version
                rng = random.Random(7)
                view = await client.view(game_id)
                for _ in range(MAX_STEPS):
                    view = await _step_randomly(client, game_id, seats, rng)
                    if view.status == game_pb2.GAME_STATUS_FINISHED:
                        break
                assert view.status == game_pb2.GAME_STATUS_FINISHED
                figures["version"] = (await client.view(game_id)).version
                figures["keys"] = await _keys_of(raw, game_id)
                began = time.monotonic()
                history = await client.history(game_id, page_size=1000)
                figures["history"] = (len(history), sum(e.ByteSize() for e in history), time.monotonic() - began)
                for who, token in (("spectator", None), ("seat", seats[1].token)):
                    began = time.monotonic()
                    async for update in client.watch(game_id, token, from_version=1):
                        figures[f"watch {who}"] = (len(update.entries), update.ByteSize(), time.monotonic() - began)
                        break
        finally:
            await raw.aclose()
            await replica.stop()
        return figures

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        figures = run(scenario(server.url), timeout_s=600)
    assert isinstance(figures, dict)
    keys = figures["keys"]
    print(
        f"\nseat changes (through the replica's host, without gRPC) to version {figures['version at the cap']} in {figures['seat changes s']:.1f} s; finished at "
        f"{figures['version']}: {sum(keys.values())} B {keys} ({keys['log'] / figures['version']:.0f} B of log a step)"
    )
    entries, size, seconds = figures["history"]
    print(f"GetHistory, pages of 1,000: {entries} entries, {size} B, {seconds:.2f} s")
    for who in ("spectator", "seat"):
        entries, size, seconds = figures[f"watch {who}"]
        print(f"WatchGame from version 1 ({who}): first update {entries} entries, {size} B, {seconds:.2f} s")
        assert size < 4 << 20  # a default gRPC client takes it
    assert sum(keys.values()) <= 4_000_000


CROWD_CLIENT = """
import asyncio, sys, grpc
from hustings.v1 import game_service_pb2 as pb, game_service_pb2_grpc as rpc
async def main(port, game_id, count, hold_s):
    # Each stream on a connection of its own, from an address of its own, never read.
    channels = [grpc.aio.insecure_channel(f"127.0.0.1:{port}", options=[("grpc.http2.bdp_probe", 0)]) for _ in range(count)]
    calls = [
        rpc.GameServiceStub(channel).WatchGame(
            pb.WatchGameRequest(game_id=game_id, from_version=1 + i), metadata=(("x-forwarded-for", f"198.18.1.{i + 1}"),)
        )
        for i, channel in enumerate(channels)
    ]
    await asyncio.sleep(hold_s)
    print(sum(not call.done() for call in calls), flush=True)
    for channel in channels:
        await channel.close()
asyncio.run(main(int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), float(sys.argv[4])))
"""
CATCH_UP_STREAMS = 60
CATCH_UP_STEPS = 10_000


def _rss_bytes() -> int:
    return int(pathlib.Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_catch_ups_a_crowd_never_reads_hold_a_few_times_their_bytes_of_the_replica(tmp_path: pathlib.Path) -> None:
    """60 addresses each open a WatchGame from a version of their own near the start of a game of
    10,000 seat changes, and never read: each catch-up (about 225 kB, a spectator's) is held until
    its reader takes it, counted towards the caps on unread bytes. The replica's memory grows by a
    few times those bytes (the bytes, gRPC's copy), not by the message each was built as (about
    ten times its bytes)."""

    async def scenario(url: str) -> dict[str, Any]:
        maker = await _replica(url, **UNBOUNDED_CALL_RATE, **UNBOUNDED_CREATES)
        try:
            async with Client(f"127.0.0.1:{maker.port}") as client:
                game_id = (await client.create_game("spin_doctors", PLAYERS)).game_id
                seats = [await client.join(game_id, f"Player {i}") for i in range(PLAYERS)]
                assert await seat_changes(maker, game_id, seats[0].token, CATCH_UP_STEPS) >= CATCH_UP_STEPS
        finally:
            await maker.stop()
        replica = await _replica(url, trusted_proxies=("127.0.0.0/8",))
        figures: dict[str, Any] = {}
        try:
            before = _rss_bytes()
            crowd = await asyncio.create_subprocess_exec(
                sys.executable, "-c", CROWD_CLIENT, str(replica.port), game_id, str(CATCH_UP_STREAMS), "60",
                stdout=asyncio.subprocess.PIPE,
            )
            unread = replica.limits.unread
            started = time.monotonic()
            while len(unread._by_address) < CATCH_UP_STREAMS and time.monotonic() - started < 60:
                await asyncio.sleep(0.5)
            figures["streams held"] = len(unread._by_address)
            figures["unread bytes"] = unread.held
            figures["replica growth"] = _rss_bytes() - before
            figures["s"] = time.monotonic() - started
            crowd.kill()
            await crowd.wait()
        finally:
            await replica.stop()
        return figures

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        figures = run(scenario(server.url), timeout_s=600)
    assert isinstance(figures, dict)
    held, growth = figures["unread bytes"], figures["replica growth"]
    print(
        f"\n{figures['streams held']} catch-ups never read, written in {figures['s']:.1f} s: {held} B unread "
        f"({held / max(1, figures['streams held']):.0f} B each); the replica grew {growth >> 20} MiB "
        f"({growth / max(1, held):.1f} times the bytes)"
    )
    assert figures["streams held"] == CATCH_UP_STREAMS
    assert growth <= 6 * held + (32 << 20)
