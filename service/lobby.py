"""The lobby's convergence: summaries written beside the commits, and repaired from the games.

On Redis Cluster a game and the lobby live in different slots, so no script writes both. The
lobby is therefore only an index, kept right in three ways:
- A new game is indexed *before* its creating commit: a game is never missing from the lobby;
  an entry whose game never came to be is dropped by the repair after ``GHOST_GRACE_S``.
- After a join or the last move the summary is written, but the answer to the client never
  depends on that write: a failure is logged and left to the repair.
- ``LobbyRepair`` runs on every replica; one at a time (a short lease in Redis) it compares each
  unfinished game's indexed version with the game's own and rewrites what is behind. The index
  script keeps the newest summary, so writes may repeat or cross in any order.
ListGames also reads each listed game's current version and status, so those two are exact at
once, whatever the index says.
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Callable

import structlog
from redis.exceptions import RedisError

from hustings.service import table
from hustings.service.background import BackgroundLoop
from hustings.service.store import Store
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2

log = structlog.get_logger("hustings.lobby")

REPAIR_INTERVAL_S = 5.0
GHOST_GRACE_S = 60.0  # how long an entry may wait for its game's creating commit
REPAIR_BATCH = 500
REPAIR_MAX_PER_PASS = 20_000


def summary_of(stored: storage_pb2.StoredGame) -> game_pb2.GameSummary:
    """The lobby summary of a stored game (public facts only: no token, no seed)."""
    summary = game_pb2.GameSummary(
        game_id=stored.game_id,
        kind=stored.kind,
        status=stored.status,
        version=stored.version,
        created_at=stored.created_at,
    )
    for s in stored.seats:
        table.seat_to_proto(s, summary.seats.add(), present=False)
    return summary


async def index_quietly(store: Store, stored: storage_pb2.StoredGame) -> None:
    """Write a game's summary after its commit; a failure is logged and left to the repair."""
    try:
        await store.index(summary_of(stored))
    except RedisError as error:
        log.warning("lobby_write_deferred", game_id=stored.game_id, version=stored.version, cause=type(error).__name__)


class LobbyRepair(BackgroundLoop):
    """Brings the lobby in line with the games, one replica at a time, every ``interval_s``."""

    task_name = "hustings-lobby-repair"

    def __init__(
        self,
        store: Store,
        *,
        interval_s: float = REPAIR_INTERVAL_S,
        ghost_grace_s: float = GHOST_GRACE_S,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.interval_s = interval_s
        self.ghost_grace_s = ghost_grace_s
        self._clock = clock
        super().__init__()
        # Where the next pass starts, in the live set and in the whole lobby: passes are capped,
        # so each goes on where the last one stopped (else a big lobby's newest entries are never
        # looked at), and starts over once it has reached the end.
        self._live_from = 0
        self._prune_from = 0

    async def _run(self) -> None:
        while not self._stopping:
            # Jitter keeps replicas from asking for the lease at the same instant.
            await asyncio.sleep(self.interval_s * random.uniform(0.5, 1.0))
            try:
                if await self.store.try_lock("repair", int(self.interval_s * 1000 * 0.9)):
                    await self.repair_once()
            except RedisError as error:
                log.warning("lobby_repair_failed", cause=type(error).__name__)

    async def repair_once(self) -> int:
        """One pass over the unfinished games of the lobby; returns how many entries it fixed."""
        fixed = 0
        offset = self._live_from
        scanned = 0
        while scanned < REPAIR_MAX_PER_PASS:
            batch = await self.store.live_games(offset, REPAIR_BATCH)
            if not batch:
                if offset and not scanned:  # the last pass stopped at the very end: start over now
                    offset = 0
                    continue
                offset = 0  # the end: the next pass starts over
                break
            offset += len(batch)
            scanned += len(batch)
            heads = await self.store.heads([game_id for game_id, _ in batch])
            for game_id, indexed in batch:
                head = heads.get(game_id)
                if head is None:
                    if await self._drop_ghost(game_id):
                        offset -= 1  # the entry left the live set: the next one moved up
                        fixed += 1
                    continue
                if head[0] > indexed:
                    stored = await self.store.load(game_id)
                    if stored is not None and await self.store.index(summary_of(stored)):
                        fixed += 1
                        if stored.status == game_pb2.GAME_STATUS_FINISHED:
                            offset -= 1
        self._live_from = offset
        fixed += await self._prune_expired()
        if fixed:
            log.info("lobby_repaired", entries=fixed)
        return fixed

    async def _prune_expired(self) -> int:
        """Drop entries whose games have expired, one batch of the lobby per pass from the
        oldest on (kept games stay; running games never expire, so the batch moves on past them)."""
        dropped = 0
        ids = await self.store.oldest_lobby_ids(REPAIR_BATCH, self._prune_from)
        heads = await self.store.heads(ids)
        for game_id in ids:
            if game_id not in heads and await self._drop_ghost(game_id):
                dropped += 1
        # A dropped entry's followers moved up by one; a short batch was the end.
        self._prune_from = self._prune_from + len(ids) - dropped if len(ids) == REPAIR_BATCH else 0
        return dropped

    async def _drop_ghost(self, game_id: str) -> bool:
        summaries = await self.store.lobby_summaries([game_id])
        summary = summaries.get(game_id)
        if summary is not None and self._clock() - summary.created_at < self.ghost_grace_s:
            return False
        await self.store.unindex(game_id)
        log.info("lobby_ghost_dropped", game_id=game_id)
        return True
