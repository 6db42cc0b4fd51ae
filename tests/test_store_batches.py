"""The store's work for many games at once: their heads (version, status and the version of the
last listing step) read, lobby entries dropped, seats noted present. On one server a script call
(or one pipeline) does a batch; on a Cluster, whose games are on many shards, a pipeline or one
call each. Both must do what one plain command per game does, across batch boundaries, for games
missing and fields absent."""

from __future__ import annotations

import pathlib
import random

import redis
import redis.asyncio as aioredis

from conftest import redis_cluster, run
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store import FIELDS_BATCH, Store, game_key

GAMES = FIELDS_BATCH * 2 + 37  # three batches, the last one short


async def _check(store: Store, raw: "aioredis.Redis | aioredis.RedisCluster") -> None:
    rng = random.Random(11)
    game_ids = [f"g{rng.getrandbits(96):024x}" for _ in range(GAMES)]
    for game_id in game_ids:
        shape = rng.randrange(4)
        if shape == 0:
            continue  # no such game
        fields = {"version": rng.randrange(1, 500), "status": rng.randrange(1, 4)}
        if shape == 2:
            fields["listed"] = rng.randrange(1, 500)
        if shape == 3:
            del fields["status"]
        await raw.hset(game_key(game_id), mapping=fields)
    heads = await store.heads(game_ids)
    listing = await store.listing_heads(game_ids)
    for game_id in game_ids:
        version, status, listed = await raw.hmget(game_key(game_id), ["version", "status", "listed"])
        if version is None:
            assert game_id not in heads and game_id not in listing
            continue
        assert heads[game_id] == (int(version), int(status or 0))
        assert listing[game_id] == (int(version), int(status or 0), None if listed is None else int(listed))
    assert len(heads) == len(listing) > GAMES // 2
    assert await store.heads([]) == {} and await store.listing_heads([]) == {}


def test_heads_of_many_games_on_one_server(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        store = Store.from_url(redis_server.url)
        raw = aioredis.Redis.from_url(redis_server.url)
        try:
            assert store.lane is not None  # the script's path
            await _check(store, raw)
        finally:
            await raw.aclose()
            await store.close()

    run(scenario())


def test_heads_of_many_games_on_a_cluster(tmp_path: pathlib.Path) -> None:
    async def scenario(port: int) -> None:
        url = f"redis+cluster://127.0.0.1:{port}"
        store = Store.from_url(url)
        raw = aioredis.RedisCluster.from_url(f"redis://127.0.0.1:{port}")
        try:
            assert store.lane is None  # the pipeline's path
            await _check(store, raw)
        finally:
            await raw.aclose()
            await store.close()

    with redis_cluster(tmp_path) as nodes:
        run(scenario(nodes[0].port), 60)


def test_unindex_many_drops_lobby_entries_on_one_server_and_on_a_cluster(tmp_path: pathlib.Path) -> None:
    """The prune drops a batch of expired entries in one pipeline of the unindex script, which
    must also work where the lobby's keys are on one shard of a Cluster."""
    from hustings.v1 import game_pb2

    async def scenario(url: str) -> None:
        store = Store.from_url(url)
        try:
            ids = [f"gunindexmany{i:012d}" for i in range(5)]
            for i, game_id in enumerate(ids):
                await store.index(game_pb2.GameSummary(game_id=game_id, kind="stimmvieh", version=3, created_at=100 + i))
            await store.client.script_flush()  # as after a restart: the pipeline must load the script
            await store.unindex_many([(ids[0], ("stimmvieh",)), (ids[3], ("stimmvieh", "wahlspiel"))])
            left = [s.game_id for s in await store.lobby(0, 100)]
            assert sorted(left) == sorted([ids[1], ids[2], ids[4]])
            await store.unindex_many([])
        finally:
            await store.close()

    with EmbeddedRedis(tmp_path / "one", appendonly=False) as server:
        run(scenario(server.url))
    with redis_cluster(tmp_path / "cluster") as nodes:
        run(scenario(f"redis+cluster://127.0.0.1:{nodes[0].port}"), 60)


def test_games_without_expiry_are_given_one_on_one_server_and_on_a_cluster(tmp_path: pathlib.Path) -> None:
    """The lobby repair gives games stored without an expiry (by 0.1.0) one: each game's four
    keys get its seconds when its hash has none, across batches on one server and a call per game
    on a Cluster; a game that has an expiry, or does not exist, is left as it is."""
    from hustings.service.store import log_key, presence_key, requests_key

    async def scenario(url: str) -> None:
        store = Store.from_url(url)
        try:
            raw = store.client
            games: list[tuple[str, int]] = []
            for i in range(FIELDS_BATCH + 3 if store.lane is not None else 7):
                game_id = f"gexpiry{i:017d}"
                games.append((game_id, 1000 + i))
                if i % 3 == 2:
                    continue  # no such game
                await raw.hset(game_key(game_id), "version", 1)
                await raw.xadd(log_key(game_id), {"v": 1})
                await raw.hset(requests_key(game_id), "r", "1 f")
                if i % 3 == 1:
                    await raw.expire(game_key(game_id), 50)  # a game of this release: left alone
            given = await store.give_expiry(games)
            assert given == sum(1 for i in range(len(games)) if i % 3 == 0)
            for i, (game_id, seconds) in enumerate(games):
                ttls = [await raw.ttl(key(game_id)) for key in (game_key, log_key, requests_key, presence_key)]
                if i % 3 == 0:
                    assert seconds - 5 <= min(ttls[:3]) and max(ttls[:3]) <= seconds and ttls[3] == -2, (i, ttls)
                elif i % 3 == 1:
                    assert 0 < ttls[0] <= 50 and ttls[1:3] == [-1, -1], (i, ttls)
                else:
                    assert ttls == [-2, -2, -2, -2], (i, ttls)
            assert await store.give_expiry([]) == 0
        finally:
            await store.close()

    with EmbeddedRedis(tmp_path / "one", appendonly=False) as server:
        run(scenario(server.url))
    with redis_cluster(tmp_path / "cluster") as nodes:
        run(scenario(f"redis+cluster://127.0.0.1:{nodes[0].port}"), 60)


def _calls(raw: "redis.Redis", command: str) -> int:
    """How many times Redis ran ``command`` since its statistics were last reset."""
    return int(raw.info("commandstats").get(f"cmdstat_{command}", {}).get("calls", 0))


def test_seats_seen_together_are_written_in_one_call(tmp_path: pathlib.Path) -> None:
    """Presence: 300 seats of 100 games seen within the flush window reach Redis in one script
    call (each was one pipelined round trip of its own, about 0.15 ms of the replica apiece,
    which 10,000 players' streams renewing every 10 s made 1,000 a second), every seat written,
    every hash it made given what is left of its game's expiry; on a Cluster, in pipelines. A
    hash that a game's step made keeps the game's expiry: renewed to a day, it outlived a game
    that expired within seconds. A game that does not exist (it expired, or was removed for room,
    just after its seat was seen) gets no hash: it lived a day after its game."""
    import asyncio

    from hustings.service import presence as presence_module
    from hustings.service.presence import Presence
    from hustings.service.store import presence_key

    games = [f"gpresence{i:015d}" for i in range(100)]
    gone = [f"gpresencegone{i:011d}" for i in range(20)]
    GAME_EXPIRY_S = 60
    GAME_LEFT_S = 3_600  # what is left of the expiry of a game whose hash this makes

    async def scenario(url: str, raw: "redis.Redis | redis.RedisCluster", one_server: bool) -> None:
        store = Store.from_url(url)
        try:
            seen = Presence(store)
            for game_id in games[::2]:  # as a game's join left them: the game's own expiry
                raw.hset(game_key(game_id), "version", 2)
                raw.expire(game_key(game_id), GAME_EXPIRY_S)
                raw.hset(presence_key(game_id), "0", 1)
                raw.expire(presence_key(game_id), GAME_EXPIRY_S)
            for game_id in games[1::2]:
                raw.hset(game_key(game_id), "version", 1)
                raw.expire(game_key(game_id), GAME_LEFT_S)
            if one_server:
                raw.config_resetstat()
            for game_id in games + gone:
                for seat in range(3):
                    seen.touch(game_id, seat)
            for _ in range(100):  # bounded wait for the flush (FLUSH_S, 0.2 s)
                if not seen._tasks:
                    break
                await asyncio.sleep(0.05)
            assert not seen._tasks
            if one_server:
                assert _calls(raw, "evalsha") + _calls(raw, "eval") <= 2  # the script, loaded on first use
                assert _calls(raw, "hset") == 300 and _calls(raw, "pexpire") == 50  # inside the script
            for i, game_id in enumerate(games):
                assert sorted(int(s) for s in raw.hgetall(presence_key(game_id))) == [0, 1, 2]
                ttl = raw.ttl(presence_key(game_id))
                if i % 2:
                    assert GAME_LEFT_S - 30 < ttl <= GAME_LEFT_S < presence_module.KEEP_S, ttl  # the game's, not a day
                else:
                    assert 0 < ttl <= GAME_EXPIRY_S, ttl  # the game's, not renewed to a day
            assert [game_id for game_id in gone if raw.exists(presence_key(game_id))] == []
        finally:
            await store.close()

    with EmbeddedRedis(tmp_path / "one", appendonly=False) as server:
        raw = redis.Redis.from_url(server.url)
        run(scenario(server.url, raw, True))
        raw.close()
    with redis_cluster(tmp_path / "cluster") as nodes:
        raw_cluster = redis.RedisCluster(host="127.0.0.1", port=nodes[0].port)
        run(scenario(f"redis+cluster://127.0.0.1:{nodes[0].port}", raw_cluster, False), 60)
        raw_cluster.close()


def test_a_flush_cancelled_while_it_waits_does_not_stop_later_ones(redis_server: EmbeddedRedis) -> None:
    """A touch that finds nothing pending starts the flush; were a cancelled flush to leave its
    seats pending, no touch would ever start another and presence would stop being written."""
    import asyncio

    from hustings.service.presence import Presence
    from hustings.service.store import presence_key

    async def scenario() -> None:
        store = Store.from_url(redis_server.url)
        raw = redis.Redis.from_url(redis_server.url)
        try:
            seen = Presence(store)
            for n in range(2):  # games that exist: a seat of a game that does not is not written
                raw.hset(game_key(f"gcancelledflush000000000{n}"), "version", 1)
            seen.touch("gcancelledflush0000000000", 0)
            (first,) = seen._tasks
            first.cancel()
            await asyncio.gather(first, return_exceptions=True)
            seen.touch("gcancelledflush0000000001", 1)
            for _ in range(100):  # bounded wait for the flush (FLUSH_S, 0.2 s)
                if raw.hkeys(presence_key("gcancelledflush0000000001")):
                    break
                await asyncio.sleep(0.05)
            assert raw.hkeys(presence_key("gcancelledflush0000000001")) == [b"1"]
            assert raw.hkeys(presence_key("gcancelledflush0000000000")) == [b"0"]  # left pending, written with it
        finally:
            raw.close()
            await store.close()

    run(scenario())
