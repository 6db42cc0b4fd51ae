"""The lobby's prune at ten times a busy deployment's rate of games (1,300 a second), against a
real Redis of its own: a backlog of expired entries is dropped by passes that follow each other
half a second apart while the prune is behind, each pass still bounded, and the repair's lease
given back by its holder alone."""

from __future__ import annotations

import asyncio
import pathlib
import time

import pytest

from conftest import run
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.lobby import PRUNE_BATCHES_PER_PASS, REPAIR_BATCH, LobbyRepair
from hustings.service.store import LOBBY_KEY, Store, index_call
from hustings.v1 import game_pb2

REPAIR_LEASE = "hustings:{lobby}:lock:repair"
EXPIRED = 10_000  # entries of games gone: about eight seconds of a lobby at 1,300 games a second
INTERVAL_S = 4.0  # the loop's interval here: its lease lasts 3.6 s
FIRST_PASS_WAIT_S = 10.0  # the loop's first pass comes within the interval
EMPTY_WAIT_S = 30.0  # for the passes that follow it: a bound, far above the second or so they take
# A pass drops at most its prune's batches and the newest batch (the live set holds none of these
# finished games).
MOST_A_PASS = (PRUNE_BATCHES_PER_PASS + 1) * REPAIR_BATCH


async def _expired(store: Store, count: int) -> None:
    """``count`` lobby entries of finished games whose keys have expired, created a day ago,
    indexed as the store's own index script does."""
    created = int(time.time()) - 86_400
    await store.client.script_load(store._index.script)
    for start in range(0, count, 2_000):
        async with store.client.pipeline(transaction=False) as pipe:
            for i in range(start, min(count, start + 2_000)):
                summary = game_pb2.GameSummary(
                    game_id=f"gexpired{i:016d}", kind="stimmvieh", version=9,
                    created_at=created + i // 100, status=game_pb2.GAME_STATUS_FINISHED,
                )
                keys, args = index_call(summary)
                await store._index(keys=keys, args=args, client=pipe)
            await pipe.execute()


@pytest.mark.slow
def test_the_repair_loop_drops_a_backlog_of_expired_entries_passes_apart_not_leases_apart(tmp_path: pathlib.Path) -> None:
    """10,000 expired entries: the loop's first pass drops its bounded share, and the rest are
    dropped by passes of the prune alone half a second apart, each taking the lease the one
    before gave back, none waiting for it to run out (3.6 s here) nor for the loop's next turn. Before, a pass kept its lease until it ran out (4.5 s at the default interval) and the
    next came no sooner: 4,000 entries a lease, about 890 a second whatever the number of
    replicas, and a deployment creating 1,300 games a second grew its lobby without end."""

    async def scenario(url: str) -> None:
        store = Store.from_url(url)
        repair = LobbyRepair(store, interval_s=INTERVAL_S)
        try:
            await _expired(store, EXPIRED)
            repair.start()
            deadline = time.monotonic() + FIRST_PASS_WAIT_S
            while await store.client.zcard(LOBBY_KEY) == EXPIRED and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            assert await store.client.zcard(LOBBY_KEY) < EXPIRED, "no pass within the interval"
            deadline = time.monotonic() + EMPTY_WAIT_S
            while await store.client.zcard(LOBBY_KEY) and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            assert await store.client.zcard(LOBBY_KEY) == 0
            # Each pass behind gave its lease back: none ran out (the only keys here with an
            # expiry are the leases) before the next pass took it.
            ran_out = int((await store.client.info("stats"))["expired_keys"])
            assert ran_out == 0, "a pass waited for the lease of the one before to run out"
            # The passes that dropped them (three at least: at most 4,500 a pass) followed each
            # other in the loop's chain, the prune alone, not on its own time (the whole repair,
            # whose sweep reads a filter set once a pass).
            whole = int((await store.client.info("commandstats")).get("cmdstat_zrangebylex", {}).get("calls", 0))
            assert -(-EXPIRED // MOST_A_PASS) > whole, f"{whole} whole passes: none followed the first"
        finally:
            await repair.stop()
            await store.close()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url), 60)


def test_a_pass_behind_is_bounded_and_gives_the_lease_back(tmp_path: pathlib.Path) -> None:
    """A pass over 10,000 expired entries drops no more than its batches (eight of the prune and
    the newest), says it is behind and gives the lease back, so that the next pass, on any
    replica, need not wait it out; the following pass (the prune alone) drops as many again. A
    pass that is not behind keeps the lease until it runs out, so that passes come at most once
    a lease whatever the number of replicas; and a lease that is not its holder's (run out and
    taken by another replica, or held by hand) is never given back by it."""

    async def scenario(url: str) -> None:
        store = Store.from_url(url)
        try:
            await _expired(store, EXPIRED)
            repair = LobbyRepair(store)
            assert await repair.leased_pass() is True
            dropped = EXPIRED - await store.client.zcard(LOBBY_KEY)
            assert PRUNE_BATCHES_PER_PASS * REPAIR_BATCH <= dropped <= MOST_A_PASS
            assert await store.client.get(REPAIR_LEASE) is None, "a pass behind kept the lease"

            other = LobbyRepair(store)  # another replica takes the next pass at once
            assert await other.leased_pass() is True
            assert EXPIRED - await store.client.zcard(LOBBY_KEY) <= 2 * MOST_A_PASS
            assert await store.client.get(REPAIR_LEASE) is None

            # The first replica's next pass (of the prune alone, as soon) drops the rest: it is
            # not behind, and keeps the lease until it runs out.
            assert await repair.leased_pass(following=True) is False
            assert await store.client.zcard(LOBBY_KEY) == 0
            assert await store.client.get(REPAIR_LEASE) is not None, "a pass not behind gave the lease back"
            assert await other.leased_pass() is False  # held: no pass

            token = await store.take_lease("held", 60_000)
            await store.client.set("hustings:{lobby}:lock:held", "test", px=60_000)  # ran out, taken by another
            assert not await store.release_lease("held", token)
            assert await store.client.get("hustings:{lobby}:lock:held") == b"test"
            token = await store.take_lease("mine", 60_000)
            assert token and not await store.take_lease("mine", 60_000)
            assert await store.release_lease("mine", token)
            assert await store.take_lease("mine", 60_000)
        finally:
            await store.close()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url), 60)
