"""What the service's Redis keys hold, and what ends them, against a real Redis: the lobby's
filter sets of a retired kind found on a Cluster whose lobby slot holds many games' keys, and
the kept-games index tidied of games gone as fast as ten times a busy deployment makes them."""

from __future__ import annotations

import asyncio
import binascii
import pathlib
import time

import redis

from conftest import run
from hustings.engine import games
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.lobby import _SWEPT_KEYS, LobbyRepair
from hustings.service.room_maker import BUCKET_KEYS, TIDY_BATCHES, GONE, KEPT, KeptIndex, RoomMaker, bucket_key
from hustings.service.store import (
    LOBBY_KEY,
    Store,
    game_key,
    lobby_filter_key,
    lobby_position,
    log_key,
    presence_key,
    requests_key,
)
from hustings.v1 import game_pb2
from service_helpers import empty_store

OPEN = game_pb2.GAME_STATUS_OPEN
RETIRED = "retired_kind"  # a kind no build of this test plays
SLOT_GAMES = 300  # games whose ids hash to the lobby's slot: 1,200 keys, past one step of 1,000
MAX_STEPS = 50  # steps of the filter-set search, far more than a node of a few thousand keys takes
MAX_PASSES = 3 * len(_SWEPT_KEYS) + MAX_STEPS
RETENTION_S = 30 * 24 * 3600
TIDY_BACKLOG = 6_000  # entries of games gone: more than one tidying round takes (20 batches of 256)
WAIT_S = 10.0  # for the room maker's own loop to tidy what one round left


def ids_in_slot(slot: int, count: int) -> list[str]:
    """``count`` game ids ("g" and 24 hex digits, as the service makes them) whose keys hash to
    ``slot``. Redis's CRC16 is linear, so the crc of a prefix and four hex digits is the digits'
    own crc xor that of four zero bytes run on from the prefix's: one table of the 65,536
    endings finds, for any prefix, an ending that lands in the slot."""
    endings: dict[int, bytes] = {}
    for n in range(1 << 16):
        ending = b"%04x" % n
        endings.setdefault(binascii.crc_hqx(ending, 0) & 0x3FFF, ending)
    found = []
    for n in range(4 * count):
        prefix = b"g%020x" % (n * 2654435761 % (1 << 80))
        ending = endings.get((slot ^ binascii.crc_hqx(b"\0\0\0\0", binascii.crc_hqx(prefix, 0))) & 0x3FFF)
        if ending is not None:
            found.append((prefix + ending).decode())
        if len(found) == count:
            break
    return found


def _summary(game_id: str, kind: str, created_at: int) -> game_pb2.GameSummary:
    return game_pb2.GameSummary(game_id=game_id, kind=kind, status=OPEN, version=1, created_at=created_at)


async def _found_filter_sets(store: Store) -> set[str]:
    """Every filter set the store's search finds, once round (its cursor back at 0)."""
    _process, cursor, keys = await store.lobby_filter_keys(0)
    found = set(keys)
    for _ in range(MAX_STEPS):
        if not cursor:
            break
        _process, cursor, keys = await store.lobby_filter_keys(cursor)
        found.update(keys)
    assert not cursor, "the search did not come round"
    return found


def test_a_cluster_finds_a_retired_kinds_filter_sets_past_a_thousand_keys_of_the_lobby_slot(module_cluster_url: str) -> None:
    """The lobby's slot of a Cluster holds the keys of the games whose ids hash to it too (at
    ten million games, about 610 games' 2,400 keys): with 1,200 of them, the search for filter
    sets still finds a retired kind's, and the repair's sweep drops the position of a game of
    that kind that left the lobby. Before, the search read the slot's first 1,000 keys with no
    cursor past them; Redis 6.2 gives them in key order, so every game's key came before
    ``hustings:{lobby}:…``, the retired kind's sets were never found, and its left positions
    stayed for good."""

    async def scenario() -> None:
        store = await empty_store(module_cluster_url)
        try:
            node = store.client.get_node_from_key(LOBBY_KEY)
            slot = store.client.keyslot(LOBBY_KEY)
            ids = ids_in_slot(slot, SLOT_GAMES)
            assert len(ids) == SLOT_GAMES and all(store.client.keyslot(game_key(g)) == slot for g in ids)
            raw = redis.Redis(host=node.host, port=node.port)
            try:
                with raw.pipeline(transaction=False) as pipe:
                    for game_id in ids:
                        pipe.hset(game_key(game_id), mapping={"version": 1, "status": 1})
                        pipe.xadd(log_key(game_id), {"e": b"x"}, id="1-0")
                        pipe.hset(requests_key(game_id), "r", "1 f")
                        pipe.hset(presence_key(game_id), "0", 1)
                    pipe.execute()
                assert raw.execute_command("CLUSTER COUNTKEYSINSLOT", slot) == 4 * SLOT_GAMES
            finally:
                raw.close()

            now = int(time.time())
            assert await store.index(_summary("ggone", RETIRED, now - 10))
            assert await store.index(_summary("glisted", RETIRED, now))
            await store.unindex("ggone", ())  # the lobby and the status sets only: no summary named its kind
            retired = {lobby_filter_key(RETIRED), lobby_filter_key(RETIRED, OPEN)}
            assert retired <= await _found_filter_sets(store)

            left = lobby_position(now - 10, "ggone")
            repair = LobbyRepair(store, ghost_grace_s=3600)
            assert RETIRED not in games()
            for _ in range(MAX_PASSES):
                await repair.repair_once()
                if await store.client.zscore(lobby_filter_key(RETIRED), left) is None:
                    break
            assert await store.client.zscore(lobby_filter_key(RETIRED), left) is None, "the sweep left a retired kind's position"
            assert await store.client.zscore(lobby_filter_key(RETIRED), lobby_position(now, "glisted")) is not None
        finally:
            await store.close()

    run(scenario(), 90)


class Reading:
    """What the store room last read of Redis's memory, as the room maker takes it."""

    fill = None  # no maxmemory: nothing is ever removed, the index is only tidied


async def _gone_entries(client: redis.asyncio.Redis, count: int, due_ms: int) -> list[str]:
    """``count`` entries of the kept-games index, due at ``due_ms``, of games that do not exist."""
    ids = [f"g{n:024x}" for n in range(count)]
    async with client.pipeline(transaction=False) as pipe:
        for n, game_id in enumerate(ids):
            pipe.zadd(bucket_key(game_id), {game_id: due_ms - count + n})
        await pipe.execute()
    return ids


async def _indexed(client: redis.asyncio.Redis) -> int:
    return sum([await client.zcard(bucket) for bucket in BUCKET_KEYS])


async def _commands(client: redis.asyncio.Redis) -> int:
    """Commands clients have sent Redis since its start (INFO commandstats, less the reads the
    look scripts make of the games' keys)."""
    stats = await client.info("commandstats")
    return sum(int(stat["calls"]) for name, stat in stats.items() if name not in ("cmdstat_pttl", "cmdstat_hget", "cmdstat_del"))


def test_the_kept_games_index_is_tidied_faster_than_ten_times_a_busy_deployment_makes_games(tmp_path: pathlib.Path) -> None:
    """6,000 entries of the kept-games index are due, their games gone (expired). A tidying
    round drops 5,120 (its 20 batches) in a few commands a batch rather than two a game (a
    script call to look at the game, a ZREM to drop it: about 85 microseconds of the replica an
    entry), and as it ended with whole batches due, the room maker's own loop tidies again a
    round under pressure later (here 0.05 s), not a look later (here an hour). Before, the next
    round came 10 s later, so one replica dropped 512 entries a second: ten times the 130 games
    a second of a busy deployment grew the index by some 70 million entries a day."""

    async def scenario(url: str) -> None:
        client = redis.asyncio.Redis.from_url(url)
        maker = RoomMaker(KeptIndex(client), Reading(), lambda: int(time.time() * 1000), retention_s=RETENTION_S, every_s=0.05, look_every_s=3600)
        try:
            await _gone_entries(client, TIDY_BACKLOG, int(time.time() * 1000) - 1000)
            before = await _commands(client)
            assert await maker.round(remove=False) == 0
            sent = await _commands(client) - before
            assert await _indexed(client) == TIDY_BACKLOG - TIDY_BATCHES * maker.batch
            tidied = TIDY_BATCHES * maker.batch
            assert sent < tidied // 4, f"{sent} Redis commands to tidy {tidied} entries"
            maker.start()
            deadline = time.monotonic() + WAIT_S
            while await _indexed(client) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert await _indexed(client) == 0, "the entries one round left waited for the next look"
        finally:
            await maker.stop()
            await client.aclose()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url), 60)


def test_a_cluster_reads_the_kept_games_lives_by_their_own_shards(module_cluster_url: str) -> None:
    """The tidying's reads of the games' time to live on a Cluster, whose games are on every
    shard: a game gone, one without an expiry and one with."""

    async def scenario() -> None:
        store = await empty_store(module_cluster_url)
        try:
            ids = [f"g{n:024x}" for n in range(30)]
            for n, game_id in enumerate(ids):
                if n % 3:
                    await store.client.hset(game_key(game_id), "status", 2)
                if n % 3 == 2:
                    await store.client.pexpire(game_key(game_id), 60_000)
            assert len({store.client.keyslot(game_key(g)) for g in ids}) > 1
            lives = await KeptIndex(store.client).lives(ids)
            assert [kind for kind, _ in lives] == [GONE if n % 3 == 0 else KEPT for n in range(30)]
            assert [left for n, (_, left) in enumerate(lives) if n % 3 == 1] == [-1] * 10
            assert all(0 < left <= 60_000 for n, (_, left) in enumerate(lives) if n % 3 == 2)
        finally:
            await store.close()

    run(scenario(), 60)
