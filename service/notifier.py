"""Wakes the local readers of a game when any replica commits a step of it.

One pub/sub subscription (one connection) per replica serves every stream on it: the replica
subscribes only to the update channels of games that it has watchers for, so moves of unwatched
games cost it nothing, and each watched game has one waiter here, its feed (``service/watch.py``),
which reads the new step once for all the game's streams. Pub/sub is at-most-once, so feeds also
poll on a timer and are woken whenever a subscription (re)starts: a missed message costs latency,
never a gap (feeds always read the log from their last version).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from typing import Any, Iterator

import structlog
from redis.exceptions import RedisError

from hustings.service.background import FAILURE_LOG_EVERY_S
from hustings.service.logs import SparseLines
from hustings.service.store import game_id_of_channel, updates_channel

log = structlog.get_logger("hustings.notifier")

# How long one read of the subscription waits, which bounds how late a new watcher's
# subscription starts.
LISTEN_SLICE_S = 0.05
# A subscription that has heard nothing for PROBE_EVERY_S is pinged, and one whose ping has no
# answer PROBE_ANSWER_S later is taken for dead and made again. A connection whose packets stop
# without a reset (a NAT or firewall that forgot it, a peer half gone) stays open and hears
# nothing, and its replica's streams then learned of every step by their POLL_S sweep alone,
# about a second late, with no sign of it.
PROBE_EVERY_S = 5.0
PROBE_ANSWER_S = 5.0
PROBE = b"hustings-notifier"


class SubscriptionSilent(ConnectionError):
    """The subscription did not answer its ping in time."""


class Announcement(asyncio.Event):
    """A waiter's event that also keeps the highest version announced since it was last taken
    (an announcement without a version, e.g. after a reconnect, asks for a read whatever the
    waiter has)."""

    UNKNOWN = sys.maxsize

    def __init__(self) -> None:
        super().__init__()
        self._version = 0

    def heard(self, version: int | None) -> None:
        """Note ``version`` (None: unknown) and wake the waiter."""
        self._version = max(self._version, self.UNKNOWN if version is None else version)
        self.set()

    def take(self) -> int:
        """The highest version heard since the last take (0 if none)."""
        version, self._version = self._version, 0
        return version


class Notifier:
    """Routes update messages from Redis to the asyncio events of local waiters (game feeds)."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._reconnect_lines = SparseLines(FAILURE_LOG_EVERY_S)
        self._waiters: dict[str, set[Announcement]] = {}
        # Games whose first waiter came or last waiter went since the subscription last followed
        # (``_follow_changes``): it looks at those alone, not at every watched game. Diffing the
        # whole watched set at every change took 0.52 ms at 10,000 watched games.
        self._touched: set[str] = set()
        self._changed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    @property
    def waiter_count(self) -> int:
        """How many waiters (one per watched game) wait on this replica."""
        return sum(len(w) for w in self._waiters.values())

    async def start(self) -> None:
        """Start listening (no-op without a client, e.g. in engine-only tools)."""
        if self._client is not None and self._task is None:
            self._task = asyncio.create_task(self._run(), name="hustings-notifier")

    async def stop(self) -> None:
        """Stop listening and wake everybody so that streams can end."""
        if self._task is not None:
            # The flag as well as the cancellation: the Redis client may turn a cancellation
            # into a connection error, which the loop would otherwise survive.
            self._stopping = True
            self._changed.set()
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, RedisError):
                await self._task
            self._task = None
        self.wake_all()

    def wake_all(self) -> None:
        """Wake every local watcher."""
        for game_id in list(self._waiters):
            self._wake(game_id)

    def _wake(self, game_id: str, version: int | None = None) -> None:
        for event in self._waiters.get(game_id, ()):
            event.heard(version)

    @contextlib.contextmanager
    def waiter(self, game_id: str) -> Iterator[Announcement]:
        """An event set whenever ``game_id`` gets a new version, with the version announced."""
        event = Announcement()
        waiters = self._waiters.setdefault(game_id, set())
        if not waiters:
            self._touched.add(game_id)
            self._changed.set()
        waiters.add(event)
        try:
            yield event
        finally:
            waiters.discard(event)
            if not waiters:
                del self._waiters[game_id]
                self._touched.add(game_id)
                self._changed.set()

    async def _run(self) -> None:
        while not self._stopping:
            pubsub = self._client.pubsub(ignore_subscribe_messages=True)
            subscribed: set[str] = set()
            self._touched.update(self._waiters)  # a new connection subscribes to every watched game
            clock = asyncio.get_running_loop().time
            heard, pinged = clock(), None  # when the subscription last answered; the ping waiting
            try:
                while not self._stopping:
                    subscribed = await self._follow_changes(pubsub, subscribed)
                    if not subscribed:
                        await self._changed.wait()
                        heard, pinged = clock(), None
                        continue
                    message = await pubsub.get_message(timeout=LISTEN_SLICE_S)
                    now = clock()
                    if message is not None:
                        heard, pinged = now, None
                        if message["type"] != "pong":
                            channel = message["channel"]
                            if isinstance(channel, bytes):
                                channel = channel.decode()
                            self._wake(game_id_of_channel(channel) or "", _announced_version(message.get("data")))
                    elif pinged is not None and now - pinged > PROBE_ANSWER_S:
                        raise SubscriptionSilent(f"no answer to a ping in {PROBE_ANSWER_S:g} s")
                    elif pinged is None and now - heard > PROBE_EVERY_S:
                        await pubsub.ping(PROBE)
                        pinged = now
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as error:
                if self._stopping:
                    return
                # Every half second while Redis is away: one line per cause every 10 s, counting
                # the others, as the background loops write theirs.
                cause = type(error).__name__
                left_out = self._reconnect_lines.due(cause)
                if left_out is not None:
                    log.warning("notifier_reconnecting", error=cause, alike_not_logged=left_out)
                self.wake_all()  # anything may have been missed: let watchers re-read
                self._changed.set()  # the next connection subscribes to every watched game again
                await asyncio.sleep(0.5)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    async def _follow_changes(self, pubsub: Any, subscribed: set[str]) -> set[str]:
        """Subscribe to newly watched games and drop games nobody watches any more (of the
        games touched since the last call); ``subscribed`` is kept up to date and returned."""
        if not self._changed.is_set():
            return subscribed
        self._changed.clear()
        touched, self._touched = self._touched, set()
        added = sorted(g for g in touched if g in self._waiters and g not in subscribed)
        dropped = sorted(g for g in touched if g not in self._waiters and g in subscribed)
        if added:
            await pubsub.subscribe(*(updates_channel(g) for g in added))
            subscribed.update(added)
            for game_id in added:
                self._wake(game_id)  # a step may have come before the subscription took hold
        if dropped:
            await pubsub.unsubscribe(*(updates_channel(g) for g in dropped))
            subscribed.difference_update(dropped)
        return subscribed


def _announced_version(data: Any) -> int | None:
    """The version a commit published (``service/lua/commit.lua``), or None when unreadable."""
    try:
        return int(data)
    except (TypeError, ValueError):
        return None
