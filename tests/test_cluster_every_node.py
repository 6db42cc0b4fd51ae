"""Redis Cluster end to end: what a replica reads of the Cluster as a whole is every master's.

Redis-py sends INFO to one node of a Cluster only, its default node (the one named in the URL).
The store's room (new games refused, games removed to make room) and the check of Redis's
version are the fullest or oldest node's, "on any node" / "on every node" as the README says:
the Cluster client asks every primary (``store.BoundedCluster.info``). Before, a master other
than the URL's could fill past the share with CreateGame still accepted, get no room made, or
run a Redis too old for the scripts. One three-master Cluster serves the module; each test puts
back what it changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import AsyncIterator, Iterator

import pytest
import redis.asyncio as aioredis

from conftest import redis_cluster, run
from service_helpers import new_game, replica_and_client
from hustings.client import HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store import Store, game_key

# A limit far above what the nodes hold (about 1.7 MB each): a share of a few percent, which a
# low threshold treats as pressure without any write ever meeting the limit.
SHARE_PERCENT = 2.0
LIMIT_TIMES_USED = 20  # maxmemory set to 20 times a node's used memory: a fill of 5 %
WAIT_S = 5.0


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[EmbeddedRedis]]:
    with redis_cluster(tmp_path_factory.mktemp("cluster")) as nodes:
        yield nodes


def _url(nodes: list[EmbeddedRedis]) -> str:
    return f"redis+cluster://127.0.0.1:{nodes[0].port}"


class _Limits:
    """Sets a maxmemory on every master but the store client's default node (the one INFO
    reaches), and puts every node back to no limit afterwards."""

    def __init__(self, nodes: list[EmbeddedRedis], store: Store) -> None:
        self.nodes = nodes
        self.default_port = int(store.client.get_default_node().port)
        self.shards = [aioredis.Redis.from_url(node.url) for node in nodes]

    async def squeeze_the_others(self) -> int:
        squeezed = 0
        for node, shard in zip(self.nodes, self.shards):
            if node.port == self.default_port:
                await shard.config_set("maxmemory", 0)
                continue
            used = int((await shard.info("memory"))["used_memory"])
            await shard.config_set("maxmemory", used * LIMIT_TIMES_USED)
            squeezed += 1
        return squeezed

    async def close(self) -> None:
        for shard in self.shards:
            await shard.config_set("maxmemory", 0)
            await shard.aclose()


@contextlib.asynccontextmanager
async def _limits(nodes: list[EmbeddedRedis], store: Store) -> AsyncIterator[_Limits]:
    limits = _Limits(nodes, store)
    try:
        yield limits
    finally:
        await limits.close()


def test_create_game_is_refused_when_another_master_is_nearly_full(cluster: list[EmbeddedRedis]) -> None:
    """The README: CreateGame is refused STORE_NEARLY_FULL while Redis is at the share or more,
    "on a Cluster: on any node". Here two of the three masters (every one but the node named in
    the URL) are past the share: the next CreateGame must be refused, as it is when the named
    node is."""

    async def scenario() -> None:
        async with replica_and_client(
            _url(cluster), new_games_until_percent=SHARE_PERCENT, make_room_from_percent=0, store_room_check_s=0.1
        ) as (replica, client):
            async with _limits(cluster, replica.host.store) as limits:
                assert await limits.squeeze_the_others() == len(cluster) - 1
                await replica._parts["room"].check_once()  # type: ignore[attr-defined]
                with pytest.raises(HustingsError) as refused:
                    await client.create_game("stimmvieh", 3)
                assert refused.value.reason == "STORE_NEARLY_FULL"

    run(scenario(), 60)


def test_games_are_removed_for_room_when_another_master_is_under_pressure(cluster: list[EmbeddedRedis]) -> None:
    """The room maker removes games nobody plays while Redis is at its share of maxmemory. With
    every master but the URL's node past the share, games idle past ``idle_kept_s`` (0 here)
    must go, as they do when the URL's node is the full one."""

    async def scenario() -> None:
        async with replica_and_client(
            _url(cluster),
            new_games_until_percent=100.0,
            make_room_from_percent=SHARE_PERCENT,
            store_room_check_s=0.1,
            idle_kept_s=0,
            finished_kept_s=0,
        ) as (replica, client):
            store = replica.host.store
            game_ids = [(await new_game(client, 3))[0].game_id for _ in range(4)]  # in play, nobody moves
            assert all([await store.client.exists(game_key(g)) for g in game_ids])
            async with _limits(cluster, store) as limits:
                await limits.squeeze_the_others()
                deadline = time.monotonic() + WAIT_S
                left = game_ids
                while left and time.monotonic() < deadline:
                    await asyncio.sleep(0.1)
                    left = [g for g in game_ids if await store.client.exists(game_key(g))]
                assert not left, f"{len(left)} of {len(game_ids)} idle games kept under pressure"

    run(scenario(), 60)


def test_the_version_check_asks_every_master(cluster: list[EmbeddedRedis]) -> None:
    """The README: "It needs Redis 6.2 or newer, on every node: serve refuses an older server at
    start". A master that is not asked cannot be refused: every master must answer INFO to the
    check (its command statistics count the call)."""

    async def scenario() -> None:
        shards = [aioredis.Redis.from_url(node.url) for node in cluster]
        store = Store.from_url(_url(cluster))
        try:
            await store.client.ping()
            for shard in shards:
                await shard.config_resetstat()
            await store.check_server()
            asked = [int((await shard.info("commandstats")).get("cmdstat_info", {}).get("calls", 0)) for shard in shards]
            assert all(asked), f"INFO calls by master: {asked}"
        finally:
            await store.close()
            for shard in shards:
                await shard.aclose()

    run(scenario(), 60)


def test_the_masters_are_all_reachable_through_the_url(cluster: list[EmbeddedRedis]) -> None:
    """The tests above rest on the Cluster client spreading games over every master: games made
    through the URL land on more than the default node (so the squeezed masters hold games)."""

    async def scenario() -> None:
        store = Store.from_url(_url(cluster))
        try:
            await store.client.ping()
            ports = {int(store.client.get_node_from_key(game_key(f"g{i:021d}")).port) for i in range(64)}
            assert ports == {node.port for node in cluster}
        finally:
            await store.close()

    run(scenario(), 60)

