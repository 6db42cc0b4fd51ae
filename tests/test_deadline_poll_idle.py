"""The deadline runner's poll (service/deadlines.py): when nothing is due it reads which buckets
hold a due game and stops there, writing nothing and running no script; a game that falls due
after such a read is claimed by the next poll. A Redis server of its own, so that its command
counts are this test's alone."""

from __future__ import annotations

import pathlib
import time

import redis.asyncio as aioredis

from conftest import run
from hustings.service import deadlines
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.host import GameHost
from hustings.service.notifier import Notifier
from hustings.service.store import Store
from service_helpers import held_runner

IDLE_POLLS = 5
FIGURE_POLLS = 400


async def command_calls(client: aioredis.Redis) -> dict[str, int]:
    """Calls per command since the last CONFIG RESETSTAT (``INFO commandstats``), without INFO's own."""
    stats = await client.info("commandstats")
    return {name.removeprefix("cmdstat_"): int(entry["calls"]) for name, entry in stats.items() if name != "cmdstat_info"}


async def dirty(client: aioredis.Redis) -> int:
    """Writes since the last save (``rdb_changes_since_last_save``): every write counts."""
    return int((await client.info("persistence"))["rdb_changes_since_last_save"])


def test_an_idle_poll_writes_nothing_and_a_game_due_after_its_read_is_claimed_next(tmp_path: pathlib.Path) -> None:
    """Polls with a game indexed for later only count buckets (ZCOUNT, no script, no write) on the
    index as the host builds it (on the store's lane); a game scheduled right after a read that
    found nothing due is handed over by the next poll, and its claim is the first script run."""
    server = EmbeddedRedis(tmp_path / "redis", appendonly=False).start()

    async def scenario() -> None:
        store = Store.from_url(server.url)
        try:
            host = GameHost(store, Notifier(store.client))
            index = host.deadlines
            assert index.lane is store.lane is not None  # the host reads the buckets on its lane
            handed: list[str] = []

            async def apply_due(game_id: str) -> tuple[int, int]:
                handed.append(game_id)
                return 0, 0  # nothing more due; a game that does not exist is at version 0

            async def version_of(game_id: str) -> int:
                return 0

            runner = deadlines.DeadlineRunner(index, apply_due, version_of, now_ms=lambda: int(time.time() * 1000))
            await index.schedule("g-later", int(time.time() * 1000) + 3_600_000)
            assert await runner.run_once() == 0  # the lane's connection is opened (HELLO, PING) here
            await store.client.config_resetstat()
            written = await dirty(store.client)
            for _poll in range(IDLE_POLLS):
                assert await runner.run_once() == 0
            calls = await command_calls(store.client)
            assert calls.get("zcount", 0) == IDLE_POLLS * deadlines.BUCKETS
            assert set(calls) <= {"zcount", "config"}, calls  # no script, no write, nothing else
            assert await dirty(store.client) == written

            now = int(time.time() * 1000)
            assert await index.due_buckets(now) == []
            await index.schedule("g-due", now)  # falls due after the read that found nothing
            assert await runner.run_once() == 1
            assert handed == ["g-due"]
            calls = await command_calls(store.client)
            assert calls.get("evalsha", 0) >= 1  # the claim ran, on the one bucket holding the game
            assert await index.pending() == 1  # the later game is still indexed, the due one released

            # Figures, not assertions: what an idle poll costs this process and Redis.
            await store.client.config_resetstat()
            started = time.process_time()
            for _poll in range(FIGURE_POLLS):
                await runner.run_once()
            cpu_us = (time.process_time() - started) / FIGURE_POLLS * 1e6
            stats = await store.client.info("commandstats")
            redis_us = sum(int(e["usec"]) for n, e in stats.items() if n != "cmdstat_config") / FIGURE_POLLS
            print(f"idle deadline poll: {cpu_us:.0f} us CPU in the replica, {redis_us:.1f} us in Redis")
        finally:
            await store.close()

    try:
        run(scenario(), timeout_s=60)
    finally:
        server.stop()


def test_a_stopping_runner_hands_the_games_it_holds_back_at_once(tmp_path: pathlib.Path) -> None:
    """A replica that stops while it applies a due game (a strong bot thinking, say) makes the
    game due again at once, where its claim would otherwise hold it from every other replica
    until the lease runs out (``LEASE_MS``, 10 s)."""
    import asyncio

    async def scenario(server: EmbeddedRedis) -> None:
        store = Store.from_url(server.url)
        try:
            index = GameHost(store, Notifier(store.client)).deadlines
            applying, never = asyncio.Event(), asyncio.Event()

            async def apply_due(game_id: str) -> tuple[int, int]:
                applying.set()
                await never.wait()  # still deciding when the replica stops
                return 0, 0

            async def version_of(game_id: str) -> int:
                return 0

            runner = deadlines.DeadlineRunner(index, apply_due, version_of, poll_s=0.01, now_ms=lambda: int(time.time() * 1000))
            await index.schedule("g-held", int(time.time() * 1000))
            runner.start()
            await asyncio.wait_for(applying.wait(), 10)
            claimed = await store.client.zscore(deadlines.bucket_key("g-held"), "g-held")
            assert claimed > time.time() * 1000 + deadlines.LEASE_MS / 2  # leased to this runner
            await runner.stop()
            handed_back = await store.client.zscore(deadlines.bucket_key("g-held"), "g-held")
            assert handed_back <= time.time() * 1000  # due now: the next poll of any replica takes it
            assert await index.due_buckets(int(time.time() * 1000)) == [deadlines.bucket_key("g-held")]
        finally:
            await store.close()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server), 30)


def test_a_runner_applying_its_most_claims_no_more_until_one_is_done(tmp_path: pathlib.Path) -> None:
    """The runner applies claimed games beside its polling; while ``max_applying`` of them are
    being applied (bots thinking, say) it claims no more, and the games falling due meanwhile
    stay due in the index, for a replica with room, until one is done."""
    import asyncio

    async def scenario(server: EmbeddedRedis) -> None:
        store = Store.from_url(server.url)
        try:
            index = GameHost(store, Notifier(store.client)).deadlines
            release = asyncio.Event()
            applied: list[str] = []
            now = deadlines.now_ms
            runner = held_runner(index, applied, release, max_applying=2)
            for game_id in ("g-a", "g-b"):
                await index.schedule(game_id, now())
            runner.start()
            try:
                for _ in range(200):
                    if len(applied) == 2:
                        break
                    await asyncio.sleep(0.01)
                assert sorted(applied) == ["g-a", "g-b"]
                await index.schedule("g-c", now())
                await asyncio.sleep(0.2)  # about 20 polls
                assert applied == ["g-a", "g-b"] or applied == ["g-b", "g-a"]
                assert await store.client.zscore(deadlines.bucket_key("g-c"), "g-c") <= now()  # still due, unclaimed
                release.set()
                for _ in range(200):
                    if "g-c" in applied:
                        break
                    await asyncio.sleep(0.01)
                assert "g-c" in applied
            finally:
                release.set()
                await runner.stop()
        finally:
            await store.close()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server), 30)
