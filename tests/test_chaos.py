"""A bounded chaos run: the project's own bots play 20 games through three replica processes
while one replica is killed and Redis is frozen for a while. Every game must finish, every seat
must still be its player's, and the lobby must match the games.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import random
import signal
import time

import pytest

from conftest import run
from test_scale import replicas
from hustings.bots import BotStats, RandomBot, Replicas, play_seat
from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.lobby import REPAIR_INTERVAL_S
from hustings.service.store import Store
from hustings.v1 import game_pb2

GAMES = 20
PLAYERS = 4
REDIS_FREEZE_S = 2.0
CHAOS_TIMEOUT_S = 240.0


@pytest.mark.slow
def test_bots_finish_every_game_through_a_replica_kill_and_a_redis_freeze(tmp_path: pathlib.Path) -> None:
    with EmbeddedRedis(tmp_path / "redis", appendonly=True) as redis_server, replicas(redis_server.url) as procs:
        victim = procs[0][0]
        redis_pid = redis_server._process.pid  # type: ignore[union-attr]

        frozen_at: list[float] = []

        async def chaos() -> None:
            await asyncio.sleep(0.4)
            victim.kill()  # type: ignore[attr-defined]
            await asyncio.sleep(0.6)
            os.kill(redis_pid, signal.SIGSTOP)
            frozen_at.append(time.monotonic())
            try:
                await asyncio.sleep(REDIS_FREEZE_S)
            finally:
                os.kill(redis_pid, signal.SIGCONT)

        async def game(pool: Replicas, rng: random.Random, stats: BotStats) -> tuple[list[object], list[object]]:
            created = await pool.create_game("stimmvieh", PLAYERS)
            seats = [await pool.join(created.game_id, f"P{i}") for i in range(PLAYERS)]
            views = await asyncio.gather(
                *(play_seat(pool, joined, RandomBot(random.Random(rng.getrandbits(32))), stats) for joined in seats)
            )
            return seats, list(views)

        async def scenario() -> None:
            clients = [Client(f"127.0.0.1:{port}") for _, port in procs]
            rng = random.Random(77)
            pool = Replicas(clients, rng)
            stats = BotStats()
            try:
                trouble = asyncio.ensure_future(chaos())
                played = await asyncio.gather(*(game(pool, random.Random(rng.getrandbits(32)), stats) for _ in range(GAMES)))
                finished_at = time.monotonic()
                await trouble
                # The faults struck while the games were being played, not after.
                assert frozen_at and finished_at > frozen_at[0] + REDIS_FREEZE_S
                assert stats.errors == 0, stats.error_reasons
                survivors = clients[1:]
                for seats, views in played:
                    assert all(v is not None and v.status == game_pb2.GAME_STATUS_FINISHED for v in views)
                    for joined in seats:  # no seat locked out: each token still opens its seat
                        view = await survivors[0].view(joined.game_id, joined.token)  # type: ignore[attr-defined]
                        assert view.seat == joined.seat  # type: ignore[attr-defined]
                game_ids = {seats[0].game_id for seats, _ in played}  # type: ignore[attr-defined]
                listed = {s.game_id: s for s in (await survivors[1].games(page_size=200)).games}
                assert game_ids <= set(listed)
                assert all(listed[g].status == game_pb2.GAME_STATUS_FINISHED for g in game_ids)
                # The index itself converges too (the repair runs every few seconds).
                store = Store.from_url(redis_server.url)
                try:
                    deadline = time.monotonic() + 6 * REPAIR_INTERVAL_S
                    while True:
                        indexed = {s.game_id: s for s in await store.lobby(0, 1000)}
                        behind = [g for g in game_ids if indexed[g].status != game_pb2.GAME_STATUS_FINISHED]
                        if not behind or time.monotonic() > deadline:
                            break
                        await asyncio.sleep(0.5)
                    assert not behind, f"{len(behind)} games still indexed as unfinished"
                finally:
                    await store.close()
            finally:
                for client in clients:
                    await client.close()

        run(scenario(), CHAOS_TIMEOUT_S)
        assert victim.poll() is not None  # type: ignore[attr-defined]
