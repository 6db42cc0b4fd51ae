"""The wake-up index of pending deadlines, and the loop that applies those that are due.

The deadlines themselves live in each game's snapshot (``service/table.py``); this index only
says when to look. It is spread over ``BUCKETS`` sorted sets with distinct hash tags
(``hustings:deadlines:{d<n>}``), so a Redis Cluster spreads them and no key is hot: member the
game id, score the earliest deadline (ms since the epoch).

- A step's next deadline is indexed *before* its commit, and only ever moved earlier (``ZADD
  LT``): a crash after the commit loses no timer, and a commit that then fails only causes an
  early look.
- A replica claims a due game by moving its score a lease ahead (a script, so one replica wins
  per due entry); if it dies, the lease runs out and another replica takes the game. A poll
  first counts what is due (plain reads) and runs the script only on buckets that hold some.
- Having applied what was due, it sets the score to the game's next deadline (or removes the
  entry) only if the score is still its lease, then checks that the game did not move meanwhile.
Applying a timeout is a version-checked commit like any move, so it happens exactly once and
never after the seat moved in time.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
import zlib
from typing import Awaitable, Callable

import structlog
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import RedisError

from hustings.service.background import STOP_ATTEMPTS, STOP_WAIT_S, BackgroundLoop
from hustings.service.lane import Lane

log = structlog.get_logger("hustings.deadlines")

BUCKETS = 16
POLL_S = 0.25
LEASE_MS = 10_000
HAND_BACK_S = 0.4  # a stopping replica waits this long at most for Redis to take its claims back
CLAIM_BATCH = 64
# A replica claims more due games only while it applies fewer than a whole poll's worth: past
# that the games wait in the index, where a replica with room takes them (and none of its leases
# runs out while a crowd of games queues on one event loop).
MAX_APPLYING = BUCKETS * CLAIM_BATCH

# Returns the games holding the claim's lease, those it leased before included: a claim sent
# again (redis-py resends a command once after its connection failed, and the reply of one that
# ran may be what was lost) answers what it leased, which it found leased already. It answered
# nothing then, and the games waited out the lease: a one-second clock timed out 10-11 s late.
_CLAIM_LUA = """
-- KEYS[1] bucket   ARGV[1] now (ms)   ARGV[2] lease until (ms)   ARGV[3] how many
local held = redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[2], ARGV[2])
local room = tonumber(ARGV[3]) - #held
if room > 0 then
  local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, room)
  for _, member in ipairs(due) do
    redis.call('ZADD', KEYS[1], 'XX', ARGV[2], member)
    held[#held + 1] = member
  end
end
return held
"""

_RELEASE_LUA = """
-- KEYS[1] bucket   ARGV[1] game id   ARGV[2] the lease score   ARGV[3] next due (ms), 0 for none
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score == false or tonumber(score) ~= tonumber(ARGV[2]) then
  return 0
end
if tonumber(ARGV[3]) > 0 then
  redis.call('ZADD', KEYS[1], 'XX', ARGV[3], ARGV[1])
else
  redis.call('ZREM', KEYS[1], ARGV[1])
end
return 1
"""


def bucket_key(game_id: str) -> str:
    """The index bucket of a game."""
    return f"hustings:deadlines:{{d{zlib.crc32(game_id.encode()) % BUCKETS}}}"


ALL_BUCKETS = tuple(f"hustings:deadlines:{{d{bucket}}}" for bucket in range(BUCKETS))


def new_lease(now: int) -> float:
    """The score of a claim made at ``now``: when its lease runs out, plus up to a second at
    random, to the fraction of a millisecond, so that leases tell claimers apart (a claim
    answers the games holding its lease: two with one lease would share their games)."""
    return now + LEASE_MS + random.random() * 1000


def now_ms() -> int:
    """This machine's wall clock in ms since the epoch (a replica passes its shared clock instead)."""
    return int(time.time() * 1000)


class DeadlineIndex:
    """Reads and writes the index in Redis."""

    def __init__(self, client: object, lane: Lane | None = None) -> None:
        self.client = client
        self.lane = lane  # the store's pipelined connection, where it has one (not on a Cluster)
        self._claim = client.register_script(_CLAIM_LUA)  # type: ignore[attr-defined]
        self._release = client.register_script(_RELEASE_LUA)  # type: ignore[attr-defined]

    async def schedule(self, game_id: str, due_ms: int) -> None:
        """Look at ``game_id`` no later than ``due_ms``."""
        await self.client.zadd(bucket_key(game_id), {game_id: due_ms}, lt=True)  # type: ignore[attr-defined]

    async def postpone(self, game_id: str, due_ms: int) -> None:
        """Move the index's look at ``game_id`` to ``due_ms`` if the game is indexed and that is
        later (ZADD XX GT: a lease or a later look stands); on the commits' connection where
        there is one, which costs the replica least per command (safe to resend)."""
        key = bucket_key(game_id)
        if self.lane is not None:
            await self.lane.call(b"ZADD", key, b"XX", b"GT", b"%d" % due_ms, game_id)
        else:
            await self.client.zadd(key, {game_id: due_ms}, xx=True, gt=True)  # type: ignore[attr-defined]

    async def due_buckets(self, now: int) -> list[str]:
        """The buckets holding a game due at ``now``, in random order: one pipelined round trip
        of plain reads (ZCOUNT), which writes nothing and costs Redis no script."""
        keys = random.sample(ALL_BUCKETS, BUCKETS)
        if self.lane is not None:
            # On the commits' connection the reads cost half of what a pipeline of the pool's
            # costs the replica (they are reads: safe to resend, as the lane may).
            upper = b"%d" % now
            counts = await asyncio.gather(*(self.lane.call(b"ZCOUNT", key, b"-inf", upper) for key in keys))
        else:
            async with self.client.pipeline(transaction=False) as pipe:  # type: ignore[attr-defined]
                for key in keys:
                    pipe.zcount(key, "-inf", now)
                counts = await pipe.execute()
        return [key for key, count in zip(keys, counts) if count]

    async def claim(self, now: int, most: int = CLAIM_BATCH, lease: float | None = None, again: bool = False) -> tuple[list[str], float]:
        """Due games of every bucket (``most`` of each), leased to this replica; returns them
        and the lease score: ``lease``, or a new one (``new_lease``). A claim made ``again``
        with the lease of one whose answer was lost gets the games that one leased too (it asks
        every bucket: those games are no longer due).

        Every replica polls several times a second, busy or idle, so a poll is cheap: first one
        pipelined read of which buckets hold a due game (most polls find none and stop there),
        then one pipelined round trip of claims for those buckets only (on a Cluster, their
        calls at once). A game that falls due after the read keeps its entry until someone
        claims it, so the next poll's read finds it."""
        if lease is None:
            lease = new_lease(now)
        keys = list(ALL_BUCKETS) if again else await self.due_buckets(now)
        if not keys:
            return [], lease
        args = [now, lease, most]
        if isinstance(self.client, RedisCluster):
            # A Cluster pipeline refuses scripts: the buckets' calls go out together instead.
            replies = await asyncio.gather(*(self._claim(keys=[key], args=args) for key in keys))
        else:
            async with self.client.pipeline(transaction=False) as pipe:  # type: ignore[attr-defined]
                for key in keys:
                    await self._claim(keys=[key], args=args, client=pipe)
                replies = await pipe.execute()
        return [d.decode() if isinstance(d, bytes) else d for due in replies for d in due], lease

    async def release(self, game_id: str, lease: float, next_due: int) -> bool:
        """Set a claimed game's next look (or drop it) if the lease is still ours."""
        return bool(await self._release(keys=[bucket_key(game_id)], args=[game_id, lease, next_due]))

    async def pending(self) -> int:
        """How many games the index holds."""
        total = 0
        for key in ALL_BUCKETS:
            total += await self.client.zcard(key)  # type: ignore[attr-defined]
        return total


class DeadlineRunner(BackgroundLoop):
    """Polls the index and hands due games to ``apply_due`` (which applies what is due and
    returns the game's next deadline and the version it last saw), on every replica."""

    task_name = "hustings-deadlines"

    def __init__(
        self,
        index: DeadlineIndex,
        apply_due: Callable[[str], Awaitable[tuple[int, int]]],
        version_of: Callable[[str], Awaitable[int]],
        *,
        poll_s: float = POLL_S,
        now_ms: Callable[[], int] = now_ms,
        max_applying: int = MAX_APPLYING,
    ) -> None:
        self.index = index
        self.max_applying = max_applying
        self.now_ms = now_ms  # the replicas' shared clock (service/clock.py)
        self.apply_due = apply_due
        self.version_of = version_of
        self.poll_s = poll_s
        # The tasks applying a game, each with the game and the lease it was claimed under, and
        # each game's latest task (a game claimed again while applied waits for the one before).
        self._applying: dict[asyncio.Task[None], tuple[str, float]] = {}
        self._latest: dict[str, asyncio.Task[None]] = {}
        self._failed: list[tuple[str, float]] = []  # claims whose applying failed: handed back at the next poll
        self._unheard: float | None = None  # the lease of a claim that got no answer
        super().__init__()

    async def _run(self) -> None:
        while not self._stopping:
            try:
                await self.poll()
            except RedisError as error:
                self.failed(log, "deadline_poll_failed", error)
            await asyncio.sleep(self.poll_s * random.uniform(0.5, 1.5))

    async def stop(self) -> None:
        """Stop polling, then stop applying: every game still being applied is cancelled and
        handed back at once (made due now where its lease is still ours), so that another
        replica takes it at its next poll rather than when the lease runs out; however the
        polling ended (a poll's unexpected error ends it until the loop begins again)."""
        await super().stop()
        held = dict(self._applying)
        for _attempt in range(STOP_ATTEMPTS):  # a cancellation swallowed by a Redis call is repeated
            running = [task for task in held if not task.done()]
            if not running:
                break
            for task in running:
                task.cancel()
            await asyncio.wait(running, timeout=STOP_WAIT_S)
        # Besides the games stopped half-way, those whose applying failed since the last poll,
        # which that poll would have handed back.
        failed, self._failed = self._failed, []
        unfinished = [claim for task, claim in held.items() if task.cancelled() or not task.done() or task.exception() is not None]
        await self._hand_back(list(dict.fromkeys(failed + unfinished)))

    async def poll(self) -> list[asyncio.Task[None]]:
        """Claim the due games and start applying each beside the loop, which polls again on
        time: a game whose bot waits to think (behind other tables' bots at the replica's one
        thinking place) held up every other table's clock until the next poll, and a person's
        one-second clock timed out 2.6 s late. A game claimed again while still being applied
        (a step made it due meanwhile) is applied again after that. Claims no more than
        ``max_applying`` games being applied allow (a bucket's share of the room, one at least).
        Returns the tasks started."""
        if self._failed:
            # Games whose applying failed (Redis went away mid-way): due again now, so that
            # the first poll after Redis is back takes them, not the end of their leases.
            failed, self._failed = self._failed, []
            try:
                now = self.now_ms()
                await asyncio.gather(*(self.index.release(game_id, lease, now) for game_id, lease in failed))
            except BaseException:
                self._failed.extend(failed)
                raise
        room = self.max_applying - len(self._applying)
        if room <= 0:
            return []
        now = self.now_ms()
        # A claim whose answer was lost (it may have leased games all the same) is made again
        # under its lease while that has a while to run, so that its games are not left to wait
        # it out; and the due buckets it had not reached are claimed with them.
        unheard = self._unheard
        again = unheard is not None and unheard - now > LEASE_MS // 2
        lease = unheard if again and unheard is not None else new_lease(now)
        self._unheard = lease
        games, lease = await self.index.claim(now, min(CLAIM_BATCH, max(1, room // BUCKETS)), lease, again)
        self._unheard = None
        return [self._start(game_id, lease) for game_id in games]

    async def run_once(self) -> int:
        """Claim and apply every due game once, and wait for them and for every other game being
        applied (claimed by the loop's own polls); returns how many games this poll claimed."""
        started = await self.poll()
        if self._applying:
            await asyncio.wait(set(self._applying))
        return len(started)

    def _start(self, game_id: str, lease: float) -> asyncio.Task[None]:
        task = asyncio.create_task(self._handle_after(self._latest.get(game_id), game_id, lease), name=f"{self.task_name}-game")
        self._latest[game_id] = task
        self._applying[task] = (game_id, lease)
        task.add_done_callback(self._handled)
        return task

    def _handled(self, task: asyncio.Task[None]) -> None:
        game_id, lease = self._applying.pop(task)
        if self._latest.get(game_id) is task:
            del self._latest[game_id]
        if not task.cancelled() and task.exception() is not None:
            error = task.exception()
            log.warning("deadline_failed", game_id=game_id, cause=type(error).__name__)
            if isinstance(error, RedisError) and len(self._failed) < self.max_applying:
                # Redis went away mid-way: handed back at the next poll. Another failure (a game
                # this build cannot read) waits out its lease rather than come back every poll.
                self._failed.append((game_id, lease))

    async def _handle_after(self, before: asyncio.Task[None] | None, game_id: str, lease: float) -> None:
        if before is not None:
            await asyncio.wait({before})  # one game is applied once at a time on a replica
        await self._handle(game_id, lease)

    async def _hand_back(self, claims: list[tuple[str, float]]) -> None:
        """Make each claimed (game id, lease) due now where the lease is still ours; bounded, and
        quiet if Redis does not answer (the leases then run out as after a crash)."""
        if not claims:
            return
        now = self.now_ms()
        with contextlib.suppress(RedisError, asyncio.TimeoutError, asyncio.CancelledError):
            await asyncio.wait_for(
                asyncio.gather(*(self.index.release(game_id, lease, now) for game_id, lease in claims)), HAND_BACK_S
            )
        log.info("deadlines_handed_back", games=len(claims))

    async def _handle(self, game_id: str, lease: float) -> None:
        next_due, version = await self.apply_due(game_id)
        if not await self.index.release(game_id, lease, next_due):
            return  # a step scheduled an earlier look meanwhile: that entry stands
        if await self.version_of(game_id) != version:
            # A step committed after our last read (its own earlier look may have been later
            # than our lease): look again at once.
            await self.index.schedule(game_id, self.now_ms())
