"""Room made in Redis under pressure: the games played least recently go first.

A finished game is kept for the retention time (30 days), and so is a game in play that nobody
plays any more. A crowd creating and finishing (or abandoning) games, every address within its
allowances, could fill Redis that way for a month, and every CreateGame was then refused
``STORE_NEARLY_FULL`` (``service/store_room.py``) until the games expired. So while Redis is at
``from_percent`` of its ``maxmemory`` or more, each replica removes games before their time,
least recently played first (a finished game counts from its end): a finished game once it has
been over for ``finished_after_s`` (an hour), a game in play once nobody has moved in it for
``idle_after_s`` (a day). An open game is never removed: it waits for its players for its
``open_seconds`` at most, and each one is charged to its creator's allowance.

Which games to look at comes from the kept-games index: ``BUCKETS`` sorted sets with distinct
hash tags (``hustings:kept:{k<n>}``), member the game id, score a time no later than the one at
which the game's keys expire (ms since the epoch). A game is indexed by the step that starts it
(or its creation, for a table of bots only) and again by the step that finishes it, each time at
the expiry that step gave its keys (after the commit: a Redis that fails the write leaves the
game to expire in its time). Open games are not indexed: none is ever removed. The steps in
between push the expiry later without writing the index, so the index is corrected when a look
finds it behind. The order of expiry is the order of play: every step of a game in play gives
its keys the retention time, and the step that finishes it does too. Looks:
- every ``look_every_s`` (every ``every_s`` while the last round left whole batches due), the
  entries whose time has come, batch after batch while whole batches are due, read by their
  games' time to live alone: a game that expired leaves the index, one that did not is given
  its true expiry;
- under pressure, every ``every_s``, the entries in the order of their time, a batch per round,
  each looked at by a script in the game's own slot that removes the game's keys only if the
  game is, at that moment, finished or idle long enough (a step that came meanwhile renewed its
  expiry, and the game stays). A game in play with a decision pending on a clock that runs out
  within ``clock_within_s`` (a day; an entry in the deadline index) is never idle: its deadline
  brings a step, the player's or the bot's. A clock that runs out later keeps nothing.
A game's idleness is read from its keys' own time to live (the retention time less what is left
of it), on Redis's clock: the replicas' clocks do not enter into it. Replicas must share their
``--retention-days`` (a shorter one on one replica makes it take games for idler than they are).
Games started under a release without this index enter it when they finish; until then they
expire in their time.
"""

from __future__ import annotations

import asyncio
import zlib
from typing import Any, Callable

import structlog
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisError

from hustings.service import metrics
from hustings.service.background import BackgroundLoop
from hustings.service.deadlines import bucket_key as deadline_bucket
from hustings.service.lane import Lane
from hustings.service.store import game_key, log_key, presence_key, requests_key
from hustings.v1 import game_pb2

log = structlog.get_logger("hustings.room_maker")

BUCKETS = 16
DEFAULT_MAKE_ROOM_FROM_PERCENT = 85.0  # below the 90 % at which new games are refused
FINISHED_AFTER_S = 3600  # a finished game stays at least this long after its end
IDLE_AFTER_S = 24 * 3600  # a game in play stays at least this long after its last step
# A game in play whose pending decision runs out within this time stays, however long ago its
# last step: the timeout brings one. A clock that runs out later shields nothing: one address
# created tables with 30-day clocks, sat at every seat itself (each charged as one game) and
# kept them all a month while Redis filled, the room maker passing them over and removing
# other people's finished games, and every CreateGame refused STORE_NEARLY_FULL.
CLOCK_WITHIN_S = IDLE_AFTER_S
EVERY_S = 1.0  # a round under pressure: the store's memory is read this often too
LOOK_EVERY_S = 10.0  # a round of tidying the index otherwise
# Batches a tidying round takes at most, one after another while whole batches come due: 5,120
# entries of expired games a round, every 10 s, and every second while a round ends with whole
# batches still due (a busy deployment makes about 130 games a second, ten times that 1,300: at
# 512 a second the index grew by the difference, about 70 million entries a day, 7 GB). A
# round of 5,120 entries of games gone costs the replica about 0.1 s of CPU.
TIDY_BATCHES = 20
BATCH = 256  # games looked at per round (under pressure: removed per second, at most)

# Replies of the look script.
GONE, KEPT, REMOVED = 0, 1, 2

_LOOK_LUA = """
-- Look at one game; remove its keys if asked to and it is finished or idle long enough.
-- KEYS: the game's hash, log, request ids, presence
-- ARGV[1] the retention time (ms)   ARGV[2] a finished game is removable this long after its
-- end (ms)   ARGV[3] a game in play this long after its last step (ms)   ARGV[4] "1": remove a
-- removable game   ARGV[5] the status of a game in play   ARGV[6] that of a finished game
-- ARGV[7] "1" when the game has a decision pending on a clock that runs out soon (it is played: never idle)
-- Returns {0, 0} when the game is gone, {2, 0} when it was removed, else {1, its keys' time to
-- live in ms, -1 for none}.
local status = redis.call('HGET', KEYS[1], 'status')
if not status then
  return {0, 0}
end
local left = redis.call('PTTL', KEYS[1])
if left < 0 then
  return {1, -1}
end
if ARGV[4] == '1' then
  local since = tonumber(ARGV[1]) - left
  local after = nil
  if status == ARGV[5] and ARGV[7] ~= '1' then
    after = tonumber(ARGV[3])
  elseif status == ARGV[6] then
    after = tonumber(ARGV[2])
  end
  if after ~= nil and since >= after then
    redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
    return {2, 0}
  end
end
return {1, left}
"""

# The time to live (ms) of each key: -2 for one that does not exist, -1 for one without expiry.
_LIVES_LUA = """
local out = {}
for i = 1, #KEYS do
  out[i] = redis.call('PTTL', KEYS[i])
end
return out
"""


def bucket_key(game_id: str) -> str:
    """The kept-games index bucket of a game."""
    return f"hustings:kept:{{k{zlib.crc32(game_id.encode()) % BUCKETS}}}"


BUCKET_KEYS = tuple(f"hustings:kept:{{k{bucket}}}" for bucket in range(BUCKETS))


class KeptIndex:
    """Writes and reads the kept-games index."""

    def __init__(self, client: Any, lane: Lane | None = None) -> None:
        self.client = client
        self.lane = lane  # the store's pipelined connection, where it has one (not on a Cluster)
        self._look = client.register_script(_LOOK_LUA)
        self._lives = client.register_script(_LIVES_LUA)

    async def note(self, game_id: str, expires_ms: int) -> None:
        """Index ``game_id`` at ``expires_ms``, the expiry a step (the one that started or
        finished the game) just gave its keys; a failure is logged: a game missing from the index
        is not removed to make room, and expires in its time."""
        try:
            if self.lane is not None:
                # On the commits' connection, which costs the replica least per command (a ZADD
                # is safe to resend, as the lane may); a step that finishes a game pays for it.
                await self.lane.call(b"ZADD", bucket_key(game_id), b"%d" % expires_ms, game_id)
            else:
                await self.client.zadd(bucket_key(game_id), {game_id: expires_ms})
        except RedisError as error:
            log.warning("kept_index_write_failed", cause=type(error).__name__)

    async def with_deadlines(self, game_ids: list[str], until_ms: int) -> list[bool]:
        """Whether each game has a decision pending on a clock that runs out by ``until_ms`` (an
        entry in the deadline index no later): its deadline brings a step (the player's, or the
        bot's at the timeout), so it is played."""
        async with self.client.pipeline(transaction=False) as pipe:
            for game_id in game_ids:
                pipe.zscore(deadline_bucket(game_id), game_id)
            scores = await pipe.execute()
        return [score is not None and score <= until_ms for score in scores]

    async def fronts(self, after: float, until: int, count: int) -> tuple[list[tuple[float, str, str]], float]:
        """The first ``count`` entries of every bucket with a time above ``after`` and at most
        ``until``, all together earliest first, as (time, game id, bucket), and the time up to
        which they are all the index holds (the earliest last time of a bucket that gave
        ``count``; infinite when none did): one pipelined round trip of plain reads."""
        low = "-inf" if after == float("-inf") else f"({after:.0f}"
        async with self.client.pipeline(transaction=False) as pipe:
            for bucket in BUCKET_KEYS:
                pipe.zrangebyscore(bucket, low, until, start=0, num=count, withscores=True)
            found = await pipe.execute()
        entries = [
            (score, member.decode() if isinstance(member, bytes) else member, bucket)
            for bucket, members in zip(BUCKET_KEYS, found)
            for member, score in members
        ]
        entries.sort()
        complete = min((members[-1][1] for members in found if len(members) == count), default=float("inf"))
        return entries, complete

    async def lives(self, game_ids: list[str]) -> list[tuple[int, int]]:
        """What ``look`` without removing answers of each game, from its hash's time to live
        alone (PTTL: -2 for a game gone, -1 for one without an expiry), by plain reads: one
        script call on one server, a pipeline on a Cluster (the games are on many shards). A
        script call a game cost the replica about 85 microseconds an entry tidied."""
        keys = [game_key(game_id) for game_id in game_ids]
        if isinstance(self.client, RedisCluster):
            async with self.client.pipeline(transaction=False) as pipe:
                for key in keys:
                    pipe.pttl(key)
                lefts = await pipe.execute()
        else:
            lefts = await self._lives(keys=keys) if keys else []
        return [(GONE, 0) if left == -2 else (KEPT, int(left)) for left in lefts]

    async def look(
        self, game_ids: list[str], retention_s: int, finished_after_s: int, idle_after_s: int, remove: bool, clocked: list[bool] | None = None
    ) -> list[tuple[int, int]]:
        """Look at each game (and remove the removable ones when ``remove``; a game in play
        that is ``clocked`` never is): one pipelined round trip, each script in its game's own
        slot."""
        base = [
            retention_s * 1000,
            finished_after_s * 1000,
            idle_after_s * 1000,
            "1" if remove else "",
            int(game_pb2.GAME_STATUS_ACTIVE),
            int(game_pb2.GAME_STATUS_FINISHED),
        ]
        calls = [
            ([game_key(game_id), log_key(game_id), requests_key(game_id), presence_key(game_id)], [*base, "1" if clocked and clocked[i] else ""])
            for i, game_id in enumerate(game_ids)
        ]
        if isinstance(self.client, RedisCluster):
            # A Cluster pipeline does not load a script its nodes lack: one call at a time.
            replies = [await self._look(keys=keys, args=args) for keys, args in calls]
        else:
            async with self.client.pipeline(transaction=False) as pipe:
                for keys, args in calls:
                    await self._look(keys=keys, args=args, client=pipe)
                replies = await pipe.execute()
        return [(int(kind), int(left)) for kind, left in replies]

    async def settle(self, dropped: list[tuple[str, str]], later: list[tuple[str, str, int]]) -> None:
        """Drop the entries (bucket, game id) of games gone, and their deadlines' (a game with a
        clock of days removed to make room, or expired under a short retention, left its entry
        in the deadline index until its deadline came); and move others (bucket, game id, time)
        to their keys' expiry, only if they are still indexed (ZADD XX)."""
        if not dropped and not later:
            return
        gone: dict[str, list[str]] = {}
        moved: dict[str, dict[str, int]] = {}
        for bucket, game_id in dropped:
            gone.setdefault(bucket, []).append(game_id)
            gone.setdefault(deadline_bucket(game_id), []).append(game_id)
        for bucket, game_id, expires in later:
            moved.setdefault(bucket, {})[game_id] = expires
        # A command per bucket, not per entry: each of redis-py's costs the replica about 30 us.
        async with self.client.pipeline(transaction=False) as pipe:
            for bucket, members in gone.items():
                pipe.zrem(bucket, *members)
            for bucket, scores in moved.items():
                pipe.zadd(bucket, scores, xx=True)
            await pipe.execute()


class RoomMaker(BackgroundLoop):
    """Tidies the kept-games index, and removes the games played least recently while Redis is
    at ``from_percent`` of its ``maxmemory`` or more (``room.fill``, read by the StoreRoom)."""

    task_name = "hustings-room-maker"

    def __init__(
        self,
        index: KeptIndex,
        room: Any,
        now_ms: Callable[[], int],
        *,
        retention_s: int,
        from_percent: float = DEFAULT_MAKE_ROOM_FROM_PERCENT,
        finished_after_s: int = FINISHED_AFTER_S,
        idle_after_s: int = IDLE_AFTER_S,
        clock_within_s: int = CLOCK_WITHIN_S,
        every_s: float = EVERY_S,
        look_every_s: float = LOOK_EVERY_S,
        batch: int = BATCH,
    ) -> None:
        super().__init__()
        if not 0 <= from_percent <= 100:
            raise ValueError("from_percent must be 0 (never) to 100")
        self.index = index
        self.room = room
        self.now_ms = now_ms
        self.retention_s = retention_s
        self._from = from_percent / 100
        self.finished_after_s = finished_after_s
        self.idle_after_s = idle_after_s
        self.clock_within_s = clock_within_s
        self.every_s = every_s
        self.look_every_s = look_every_s
        self.batch = batch
        self._cursor = float("-inf")  # where a pass under pressure is
        self._since_look = 0.0
        # A tidying round stopped at ``TIDY_BATCHES`` with whole batches still due: the next one
        # comes a round under pressure later (``every_s``), not a look later (``look_every_s``).
        self.behind = False

    @property
    def pressing(self) -> bool:
        """Whether Redis is full enough to remove games (never where it has no maxmemory)."""
        fill = self.room.fill
        return self._from > 0 and fill is not None and fill >= self._from

    async def _run(self) -> None:
        while not self._stopping:
            await asyncio.sleep(self.every_s)
            self._since_look += self.every_s
            pressing = self.pressing
            if not pressing and not self.behind and self._since_look < self.look_every_s:
                continue
            self._since_look = 0.0
            try:
                await self.round(pressing)
            except RedisError as error:
                self.failed(log, "room_round_failed", error)

    async def round(self, remove: bool) -> int:
        """One round: tidy the entries whose time has come (batch after batch while whole
        batches come due, ``TIDY_BATCHES`` at most), or (``remove``) go on through the entries
        in the order of their time from where the last round stopped, removing the games that
        may go; ``batch`` entries at most. Returns how many games were removed."""
        if remove:
            return (await self._batch(True))[1]
        self._cursor = float("-inf")  # the next pressure starts from the front
        for _ in range(TIDY_BATCHES):
            looked, _removed = await self._batch(False)
            if looked < self.batch:
                self.behind = False
                break
        else:
            self.behind = True  # whole batches may still be due: the next round comes soon
        return 0

    async def _batch(self, remove: bool) -> tuple[int, int]:
        """One batch of looks: how many entries it looked at, and how many games it removed."""
        now = self.now_ms()
        if remove:
            # Every entry that might be removable: a finished game expires a retention after
            # its end, so one removable now expires before this.
            until = now + (self.retention_s - min(self.finished_after_s, self.idle_after_s)) * 1000
            after = self._cursor
        else:
            until, after = now, float("-inf")
        # A quarter of the batch from each bucket (at least 16): the batch's earliest entries of
        # all, unless one bucket holds over a quarter of them (they are spread at random).
        entries, complete = await self.index.fronts(after, until, min(self.batch, max(16, self.batch // 4)))
        looked = [entry for entry in entries if entry[0] <= complete][: self.batch]
        if remove:
            # Entries a look does not remove are passed over (a game in play idle for less than
            # a day comes early in the order); once through, the next round begins at the front.
            through = len(looked) == len(entries) and complete == float("inf")
            self._cursor = float("-inf") if through or not looked else looked[-1][0]
        if not looked:
            return 0, 0
        game_ids = [game_id for _, game_id, _ in looked]
        clocked = await self.index.with_deadlines(game_ids, now + self.clock_within_s * 1000) if remove else None
        if remove:
            looks = await self.index.look(game_ids, self.retention_s, self.finished_after_s, self.idle_after_s, True, clocked)
        else:
            looks = await self.index.lives(game_ids)
        dropped: list[tuple[str, str]] = []
        later: list[tuple[str, str, int]] = []
        removed = 0
        for (score, game_id, bucket), (kind, left) in zip(looked, looks):
            if kind == KEPT:
                # The game's true expiry (a game without one is looked at again a retention on).
                expires = now + (left if left >= 0 else self.retention_s * 1000)
                if expires > score:
                    later.append((bucket, game_id, expires))
            else:
                dropped.append((bucket, game_id))
                removed += kind == REMOVED
        if removed:
            # Counted before the index is written: a Redis at its limit refuses that write, and
            # the games are gone all the same.
            metrics.GAMES_REMOVED_FOR_ROOM.inc(removed)
            log.info("games_removed_for_room", games=removed, memory_fill=round(self.room.fill or 0, 3))
        await self.index.settle(dropped, later)
        return len(looked), removed
