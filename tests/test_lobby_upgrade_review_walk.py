"""The search of the keyspace for filter sets that releases before the set of kinds filed left
(``Store.filter_walk_step``), against a real Redis restarted in the middle of it: a SCAN cursor
means something only to the process that gave it, so the search begins again on the new one
rather than go on from a place that passes over keys at random and end, for good, with sets never
found; on a Cluster, a search that goes round while the lobby's slot moves to another node does not
end there."""

from __future__ import annotations

import pathlib

import redis
import redis.asyncio as aioredis

from conftest import redis_cluster, run
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store import FILTER_WALK_KEY, LOBBY_KEY, LOBBY_KINDS_KEY, Store, lobby_filter_key

CROWD_KEYS = 20_000  # other keys of the server: the search goes round in some 20 steps of 1,000
KINDS = [f"retired_{n}" for n in range(16)]  # kinds no build plays, each with one set
MAX_STEPS = 200


async def _named(store: Store) -> set[str]:
    return {k.decode() for k in await store.client.smembers(LOBBY_KINDS_KEY)}


def test_a_search_under_way_when_redis_restarts_begins_again_and_finds_every_set(tmp_path: pathlib.Path) -> None:
    """A server of 20,000 keys holds the sets of 16 retired kinds, each left by a release that
    named no kind it filed. The search goes on until about half of them are found, then Redis
    restarts (its data saved and loaded again; a failover to a replica is alike): the search
    then finds every one before it says it has gone round. Before, it went on from the cursor
    the process before gave, over a hash table whose keys the new process had placed by a seed
    of its own, and ended having passed over about half of those not yet found; the search is
    never taken again, so their left positions stayed for good."""
    server = EmbeddedRedis(tmp_path / "redis", appendonly=False)

    async def before_restart() -> None:
        store = Store.from_url(server.url)
        try:
            await store.client.execute_command("DEBUG", "POPULATE", CROWD_KEYS, "hustings:game:crowd")
            for n, kind in enumerate(KINDS):
                await store.client.zadd(lobby_filter_key(kind), {f"{n:012d}:ggone{n}": 0})
            for _ in range(MAX_STEPS):
                assert not await store.filter_walk_step(), "the search went round before half the sets were found"
                if len(await _named(store)) >= len(KINDS) // 2:
                    break
            assert len(await _named(store)) < len(KINDS), "every set was found before the restart"
            assert await store.client.get(FILTER_WALK_KEY)
            await store.client.save()
        finally:
            await store.close()

    async def after_restart() -> None:
        store = Store.from_url(server.url)  # a replica's store, connecting anew
        try:
            assert len(await _named(store)) < len(KINDS)  # the saved data is back
            for _ in range(MAX_STEPS):
                if await store.filter_walk_step():
                    break
            else:
                raise AssertionError("the search did not come round")
            assert await _named(store) == set(KINDS)
        finally:
            await store.close()

    server.start()
    try:
        run(before_restart(), 60)
        server.stop()
        server.start()  # the same port and folder: the saved data is loaded
        run(after_restart(), 60)
    finally:
        server.stop()


def test_a_search_state_of_the_build_before_names_no_process_and_begins_again(tmp_path: pathlib.Path) -> None:
    """The state kept by a build that named the Cluster node ("" on one server) and not the
    process is not gone on from: the search begins again, and finds the set."""

    async def scenario(url: str) -> None:
        store = Store.from_url(url)
        raw = aioredis.Redis.from_url(url)
        try:
            await store.client.execute_command("DEBUG", "POPULATE", 3_000, "hustings:game:crowd")
            await store.client.zadd(lobby_filter_key(KINDS[0]), {"000000000001:ggone": 0})
            await raw.set(FILTER_WALK_KEY, b" 4095")  # near the end of a table of 4,096 buckets
            for _ in range(MAX_STEPS):
                if await store.filter_walk_step():
                    break
            assert await _named(store) == {KINDS[0]}
        finally:
            await raw.aclose()
            await store.close()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url), 60)


def test_a_search_that_goes_round_while_the_lobby_slot_moves_goes_on_with_the_node_it_moves_to(tmp_path: pathlib.Path) -> None:
    """A three-master Cluster moves the lobby's slot to another node (a reshard), and a retired
    kind's set left by the release before has moved already when the search of the node
    serving the slot goes round: it does not end there, and once the slot has moved it searches
    the other node and finds the set. Before, it ended at once (the set out of its SCAN) and
    was never taken again."""

    def move(source: redis.Redis, target_port: int, keys: list[bytes]) -> None:
        for key in keys:
            source.execute_command("MIGRATE", "127.0.0.1", target_port, key, 0, 5000)

    async def scenario(url: str, ports: list[int]) -> None:
        store = Store.from_url(url)
        try:
            await store.client.get(FILTER_WALK_KEY)  # the client learns the Cluster's slots
            serving = store.client.get_node_from_key(LOBBY_KEY)
            slot = store.client.keyslot(LOBBY_KEY)
            source = redis.Redis(host="127.0.0.1", port=serving.port)
            target_port = next(port for port in ports if port != serving.port)
            target = redis.Redis(host="127.0.0.1", port=target_port)
            # The target first, then the source, then the rest: the order Redis's CLUSTER SETSLOT
            # gives for NODE. Told first, the source sent the slot's commands to a target that
            # did not own it yet, and one ran out of redirections (TTL exhausted, once under load).
            order = sorted(ports, key=lambda port: (port != target_port, port != serving.port))
            everyone = [redis.Redis(host="127.0.0.1", port=port) for port in order]
            try:
                retired = lobby_filter_key(KINDS[0])
                await store.client.zadd(retired, {"000000000001:ggone": 0})
                source_id, target_id = source.execute_command("CLUSTER MYID"), target.execute_command("CLUSTER MYID")
                target.execute_command("CLUSTER SETSLOT", slot, "IMPORTING", source_id)
                source.execute_command("CLUSTER SETSLOT", slot, "MIGRATING", target_id)
                move(source, target_port, [retired.encode()])

                for _ in range(3):  # the slot still moving: the search does not end
                    assert not await store.filter_walk_step()
                assert await store.client.get(FILTER_WALK_KEY) != b"done"

                move(source, target_port, source.execute_command("CLUSTER GETKEYSINSLOT", slot, 1000))
                for node in everyone:
                    node.execute_command("CLUSTER SETSLOT", slot, "NODE", target_id)
                for _ in range(MAX_STEPS):
                    if await store.filter_walk_step():
                        break
                else:
                    raise AssertionError("the search did not come round")
                assert await _named(store) == {KINDS[0]}
            finally:
                for client in [source, target, *everyone]:
                    client.close()
        finally:
            await store.close()

    with redis_cluster(tmp_path / "cluster") as nodes:
        run(scenario(f"redis+cluster://127.0.0.1:{nodes[0].port}", [n.port for n in nodes]), 60)
