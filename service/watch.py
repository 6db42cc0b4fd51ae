"""WatchGame on one replica: every watcher of a game shares one read per new version.

A game watched on this replica has one ``GameFeed``: it waits for the replica's shared pub/sub
subscription (``Notifier``) to announce a step, reads the new snapshot and the new log entries
once, and keeps them as the feed's latest ``Step`` together with a bounded tail of recent log
entries. Each watcher then only filters the entries for its seat (``visibility``) and builds its
view; watchers of the same seat at the same version share one response.

A shared update is serialised once, when the first gRPC stream writes it, and every other stream
that gets it writes the same bytes (``Watchers.watch_encoded``): per stream and step there is
then one wake-up and one write.

A step committed on this replica is handed to the game's feed at once (``Watchers.committed``),
with no read; the announcement of that step over pub/sub is then recognised by its version and
costs nothing, and one that comes before the commit's own reply (they travel on two connections)
waits for the hand-over while the commit is in flight here. Pub/sub is at-most-once, so the
replica also sweeps every watched game's version in one pipelined read every POLL_S (not one
timer and one read per game), and wakes the feeds that are behind.

A watcher holds no queue: it waits on one event and, when woken, takes whatever is latest. A
slow consumer therefore coalesces the steps it missed into its next update (every entry is
still delivered, from the feed's tail or, when it fell further behind, from the log through the
connection pool) and never holds memory for the steps it has not sent, nor slows anybody else.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, AsyncIterator, Awaitable, Callable

import grpc
import structlog
from redis.exceptions import RedisError

from hustings.engine import Seat
from hustings.service import metrics, visibility
from hustings.service.errors import ServiceError, exhausted, invalid, store_error, unauthenticated
from hustings.service.limits import Held, StreamLimits, calls_for_steps
from hustings.service.logs import SparseLines
from hustings.service.notifier import Announcement, Notifier
from hustings.service.store import Store
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2, game_service_pb2

if TYPE_CHECKING:
    from hustings.service.host import Loaded

log = structlog.get_logger("hustings.watch")
# A large update (a catch-up of several hundred steps) keeps only its bytes once serialised, not
# the message they were encoded from (``Update``).
LARGE_UPDATE_BYTES = 64 << 10

# How often a seat's open, quiet stream renews its presence. Only a stream with no write
# outstanding renews it (a write holds the stream until the peer's window takes it), and over
# gRPC a quiet stream's peer answers keepalive pings or loses its connection and its streams
# (service/grpc_api.py): a gRPC stream whose peer stopped reading or vanished stops counting its
# seat present once the presence window has passed (tests/test_grpc_connections.py).
SEEN_EVERY_S = 10.0
POLL_S = 2.0  # pub/sub is at-most-once: every watched game's version is also read this often
SWEEP_CHUNK = 500  # games read in one pipeline by the sweep
RETRY_S = (0.1, 0.25, 0.5, 1.0, 2.0)  # a feed's pauses after failed reads, then POLL_S
TAIL_ENTRIES = 256  # log entries a feed keeps, so that watchers a little behind need no read
SHARED_RESPONSES = 64  # responses a step keeps for watchers in step (most are at one version)
# Catch-ups from the log (a stream behind the feed's tail) built at once on a replica, and the log
# entries each reads and builds before it lets the loop's other work in: eight catch-ups of a
# 10,000-step game held the loop 28 ms at most, against 135 ms read and built whole.
CATCH_UPS_AT_ONCE = 4
CATCH_UP_CHUNK = 1_000
# The refusal that ends a stream that gave way to another /64 of its IPv6 site (StreamLimits.hold).
GAVE_WAY = (
    "this client's IPv6 site (its /48) held the maximum of one address's streams on this replica, this client"
    " the most of them: this stream gave way to another client of the site"
)
# The refusal that ends a stream that gave way at the replica's cap (StreamLimits.hold).
GAVE_WAY_TO_REPLICA = (
    "this replica had its maximum of streams, and this client address the most of them: this stream gave way"
    " to another client; try another replica"
)
# Streams refused before their first update (a cap, the rate, no such game) are logged at most
# once this often per code and reason, with how many alike since: any client causes them at will,
# and one address made 898 lines a second, one a refusal.
REFUSAL_LOG_EVERY_S = 1.0

Load = Callable[[str], Awaitable["Loaded"]]
BuildView = Callable[["Loaded", "Seat | None"], game_pb2.GameView]
SeatOf = Callable[["Loaded", "str | None"], "Seat | None"]


def shutting_down() -> ServiceError:
    """UNAVAILABLE: the replica is stopping; the client resumes elsewhere from its last version."""
    return ServiceError(grpc.StatusCode.UNAVAILABLE, "REPLICA_SHUTTING_DOWN", "this replica is stopping; reconnect to resume")


def from_version_ahead(version: int) -> ServiceError:
    """OUT_OF_RANGE: a stream asked to start after the game's current version."""
    return ServiceError(
        grpc.StatusCode.OUT_OF_RANGE,
        "FROM_VERSION_AHEAD",
        f"the game is at version {version}; from_version must not be beyond it",
        {"version": str(version)},
    )


class Update:
    """One response as every watcher that needs it shares it: the message (REST renders it as
    JSON) and, once a gRPC stream has written it, its serialised bytes.

    A large update (a catch-up of many steps, ``LARGE_UPDATE_BYTES`` or more) keeps only its
    bytes once serialised: its message took about ten times as much memory as the bytes it was
    encoded to (a spectator's catch-up of 20,000 seat changes: 4.2 MB for 449 kB), and it was held
    as long as a stream wrote the update or a step kept it to share; the caps on unread bytes
    count the bytes. ``message`` then parses the bytes again, for a REST stream that needs one."""

    __slots__ = ("_message", "_encoded")

    def __init__(self, message: game_service_pb2.WatchGameResponse) -> None:
        self._message: game_service_pb2.WatchGameResponse | None = message
        self._encoded: bytes | None = None

    @property
    def message(self) -> game_service_pb2.WatchGameResponse:
        """The response (parsed from its bytes anew, not kept, when only the bytes are kept)."""
        if self._message is None:
            assert self._encoded is not None
            return game_service_pb2.WatchGameResponse.FromString(self._encoded)
        return self._message

    def encoded(self) -> bytes:
        """The message's wire bytes, serialised on first use; a large update then lets its
        message go."""
        if self._encoded is None:
            assert self._message is not None
            self._encoded = self._message.SerializeToString()
            if len(self._encoded) >= LARGE_UPDATE_BYTES:
                self._message = None
        return self._encoded


@dataclass
class Step:
    """A version of a game as read once for every local watcher, with the updates built so far
    (by the version a watcher had and its seat), which watchers in step share."""

    loaded: "Loaded"
    responses: dict[tuple[int, Seat | None], Update] = field(default_factory=dict)
    views: dict[Seat | None, game_pb2.GameView] = field(default_factory=dict)

    @property
    def version(self) -> int:
        """The version of the snapshot."""
        return self.loaded.version

    @property
    def finished(self) -> bool:
        """Whether the game is over at this step."""
        return self.loaded.stored.status == game_pb2.GAME_STATUS_FINISHED


class GameFeed:
    """The shared reader of one game on this replica, and the events of its watchers."""

    def __init__(self, game_id: str, first: "Loaded") -> None:
        self.game_id = game_id
        self.step = Step(first)
        self.tail: collections.deque[storage_pb2.LogEntry] = collections.deque(maxlen=TAIL_ENTRIES)
        self.watchers: set[asyncio.Event] = set()
        self.failure: ServiceError | None = None  # what ends every stream of the feed
        self.task: asyncio.Task[None] | None = None
        self.announced: Announcement | None = None  # the reader's wake-up, once it runs
        # Commits of this game in flight on this replica, and an event set when none is: their
        # announcements may come before their replies, and the reader then waits for the
        # hand-over rather than reading the step.
        self.committing = 0
        self.settled = asyncio.Event()
        self.settled.set()

    def publish(self, loaded: "Loaded", entries: list[storage_pb2.LogEntry]) -> None:
        """Make ``loaded`` the latest step and wake every watcher (a step no newer than the
        latest, e.g. a read that a local hand-off overtook, changes nothing)."""
        if loaded.version <= self.step.version:
            return
        entries = [e for e in entries if e.version > self.step.version]
        if not entries or entries[0].version != self.step.version + 1:
            self.tail.clear()  # never keep a tail with a hole in it
        self.tail.extend(entries)
        self.step = Step(loaded)
        self.wake()

    def poke(self) -> None:
        """Make the reader read the game now (it may be behind)."""
        if self.announced is not None:
            self.announced.heard(None)

    def wake(self) -> None:
        """Wake every watcher of this game."""
        for event in self.watchers:
            event.set()

    def entries(self, after: int, up_to: int) -> list[storage_pb2.LogEntry] | None:
        """The entries with ``after < version <= up_to`` from the tail, or None when the tail
        does not reach back that far."""
        if not self.tail or self.tail[0].version > after + 1 or self.tail[-1].version < up_to:
            return None
        start = after + 1 - self.tail[0].version
        return [self.tail[i] for i in range(start, start + up_to - after)]


class SparseRefusals:
    """``stream_ended`` lines of streams refused before they started: at most one per code and
    reason every ``interval_s``, the first at once, each with the count of refusals alike that
    it stands for since the line before (``alike_not_logged``)."""

    def __init__(self, interval_s: float = REFUSAL_LOG_EVERY_S) -> None:
        self._lines = SparseLines(interval_s)

    def note(self, error: ServiceError, **fields: Any) -> None:
        """One stream refused with ``error``; ``fields`` (its client) go into a line if one is due."""
        left_out = self._lines.due((error.code.name, error.reason))
        if left_out is None:
            return
        level = log.warning if error.code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.INTERNAL) else log.info
        level("stream_ended", code=error.code.name, reason=error.reason, alike_not_logged=left_out, **fields)


class Watchers:
    """The WatchGame streams of one replica: their limits, their shared feeds, their ends."""

    def __init__(
        self,
        store: Store,
        notifier: Notifier,
        *,
        load: Load,
        view: BuildView,
        seat_of: SeatOf,
        closing: Callable[[], bool],
        limits: StreamLimits,
        seen: Callable[[str, "Seat | None"], None] = lambda game_id, seat: None,
    ) -> None:
        self._store = store
        self._notifier = notifier
        self._load = load
        self._view = view
        self._seat_of = seat_of
        self._closing = closing
        self._seen = seen
        self.limits = limits
        self._feeds: dict[str, GameFeed] = {}
        self._reads: dict[tuple[str, ...], asyncio.Future[Any]] = {}
        self._catching_up = asyncio.Semaphore(CATCH_UPS_AT_ONCE)
        self._sweeper: asyncio.Task[None] | None = None
        self.refusals = SparseRefusals()  # the streams refused before their first update, logged sparsely

    @property
    def feeds(self) -> int:
        """How many games have a feed (a shared reader) on this replica."""
        return len(self._feeds)

    def committing(self, game_id: str) -> GameFeed | None:
        """A commit of ``game_id`` is about to start here: the game's feed, if it has one, to
        give to ``settled`` once the commit has ended and, if it succeeded, been handed over
        (``committed``). Until then an announcement of a newer version waits for it."""
        feed = self._feeds.get(game_id)
        if feed is not None:
            feed.committing += 1
            feed.settled.clear()
        return feed

    @staticmethod
    def settled(feed: GameFeed) -> None:
        """A commit announced by ``committing`` has ended."""
        feed.committing -= 1
        if not feed.committing:
            feed.settled.set()

    def committed(self, loaded: "Loaded", entries: list[storage_pb2.LogEntry]) -> None:
        """A step this replica has just committed (``entries`` are its new log entries): the
        game's watchers here get it at once, without a read."""
        feed = self._feeds.get(loaded.stored.game_id)
        if feed is None or feed.failure is not None or loaded.version <= feed.step.version:
            return
        if entries and entries[0].version == feed.step.version + 1 and entries[-1].version == loaded.version:
            feed.publish(loaded, entries)
        else:
            feed.poke()  # steps of other replicas came in between: read them

    async def watch(
        self,
        game_id: str,
        token: str | None,
        from_version: int,
        client: str,
        address: str | None = None,
        opening_counted: bool = False,
    ) -> AsyncIterator[game_service_pb2.WatchGameResponse]:
        """Every step after ``from_version``, then each new one; a stream that ends in an error
        is logged with its reason (never with its token). It counts towards the caps of
        ``client`` and of the client ``address`` (``service/limits.py``), and its opening as a
        call of the address's rate unless ``opening_counted`` (the caller counted it)."""
        updates = self._logged(game_id, token, from_version, client, address, opening_counted)
        async with contextlib.aclosing(updates):
            async for update in updates:
                yield update.message

    async def watch_encoded(
        self, game_id: str, token: str | None, from_version: int, client: str, address: str | None = None
    ) -> AsyncIterator[bytes]:
        """As ``watch``, each update as its serialised ``WatchGameResponse``, shared by every
        stream that gets the same update (gRPC writes the bytes as they are)."""
        async with contextlib.aclosing(self._logged(game_id, token, from_version, client, address)) as updates:
            async for update in updates:
                yield update.encoded()

    async def _logged(
        self, game_id: str, token: str | None, from_version: int, client: str, address: str | None, opening_counted: bool = False
    ) -> AsyncIterator[Update]:
        started = False
        try:
            # aclosing: a stream that goes away releases its place and its feed at once, not
            # whenever the garbage collector finalises the inner generators.
            updates = self._watch(game_id, token, from_version, client, address, opening_counted)
            async with contextlib.aclosing(updates):
                async for update in updates:
                    started = True
                    yield update
        except ServiceError as error:
            self._ended(error, client, address, started)
            raise
        except RedisError as failure:
            error = store_error(failure)  # logs the cause
            self._ended(error, client, address, started)
            raise error from None

    def _ended(self, error: ServiceError, client: str, address: str | None, started: bool) -> None:
        """The ``stream_ended`` line of a stream that ends in ``error``: its client (the
        connection) and the address its limits count (behind a trusted proxy, the forwarded one,
        not the proxy's)."""
        who = {"client": client} if address is None else {"client": client, "address": address}
        if started:
            log.info("stream_ended", code=error.code.name, reason=error.reason, **who)
        else:
            self.refusals.note(error, **who)

    async def _watch(
        self, game_id: str, token: str | None, from_version: int, client: str, address: str | None, opening_counted: bool = False
    ) -> AsyncIterator[Update]:
        if from_version < 0:
            raise invalid("BAD_FROM_VERSION", "from_version must be 0 or more")
        if self._closing():
            raise shutting_down()
        paying = address if address is not None else client
        with self.limits.hold(client, token, address, game_id) as held:
            # Opening counts towards the address's rate of calls as a unary call does, before
            # anything is read: a stream refused after a read (no such game, a version ahead, a
            # foreign token) is paid for as a refused call is, and an address over its rate
            # makes the replica read nothing.
            if not opening_counted:
                self.limits.catch_up(paying, 0)
            feed = self._feeds.get(game_id)
            if feed is not None and feed.failure is None:
                loaded = feed.step.loaded  # no read: the feed has the latest step it heard of
            else:
                loaded = await self._shared(("load", game_id), lambda: self._load(game_id))
            if from_version > loaded.version and feed is not None:
                loaded = await self._load(game_id)  # the feed may not have heard of the newest step yet
            if from_version > loaded.version:
                raise from_version_ahead(loaded.version)
            try:
                seat = self._seat_of(loaded, token)
            except ServiceError:
                if feed is None:
                    raise
                # The seat may have been taken after the feed's last step: ask the game itself.
                loaded = await self._load(game_id)
                seat = self._seat_of(loaded, token)
            # A long catch-up counts as more calls, as a long page does.
            if self.limits.rate is not None:
                self.limits.rate.charge(paying, calls_for_steps(loaded.version - from_version))
            metrics.WATCHERS.inc()
            try:
                if loaded.stored.status == game_pb2.GAME_STATUS_FINISHED:
                    if loaded.version > from_version:  # nothing will follow: no feed needed
                        yield await self._update(None, Step(loaded), from_version, seat)
                    return
                async with contextlib.aclosing(self._follow(game_id, token, seat, from_version, loaded, held)) as updates:
                    async for update in updates:
                        yield update
            finally:
                metrics.WATCHERS.dec()

    async def _follow(
        self, game_id: str, token: str | None, seat: Seat | None, last: int, loaded: "Loaded", held: Held
    ) -> AsyncIterator[Update]:
        wake = asyncio.Event()
        feed = self._join(game_id, loaded, wake)
        self.limits.follow(held, wake)  # from now on it may be asked to give way (StreamLimits.hold)
        try:
            if loaded.version > feed.step.version:
                step = Step(loaded)  # this watcher read a newer version than the feed has yet
            else:
                step = feed.step
            while True:
                wake.clear()
                if feed.failure is not None:
                    failure = feed.failure
                    raise ServiceError(failure.code, failure.reason, failure.message, failure.metadata)
                if self._closing():
                    raise shutting_down()
                if held.gave_way:
                    if held.to_replica:
                        raise exhausted("TOO_MANY_WATCHERS", GAVE_WAY_TO_REPLICA)
                    raise exhausted("TOO_MANY_STREAMS_FOR_ADDRESS", GAVE_WAY)
                if step.version > last:
                    if seat is not None and self._seat_of(step.loaded, token) != seat:
                        # A reissued token ends the old holder's stream.
                        raise unauthenticated("INVALID_SEAT_TOKEN", "the seat token does not belong to this game")
                    # Watchers in step find their update built (the common case: no coroutine).
                    update = step.responses.get((last, seat))
                    yield update if update is not None else await self._update(feed, step, last, seat)
                    last = step.version
                if step.finished:
                    return
                if feed.step.version <= last:
                    if seat is None:
                        await wake.wait()
                    else:  # a seat holding a stream, its last update written, is present
                        self._seen(game_id, seat)
                        await _woken(wake, SEEN_EVERY_S)
                step = feed.step
        finally:
            self.limits.unfollow(held)
            self._leave(feed, wake)

    async def _update(self, feed: GameFeed | None, step: Step, last: int, seat: Seat | None) -> Update:
        """The update from ``last`` to ``step`` for ``seat``, shared by watchers in step."""
        key = (last, seat)
        update = step.responses.get(key)
        if update is not None:
            return update
        entries = feed.entries(last, step.version) if feed is not None else None
        if entries is None:  # behind the tail: catch up from the log, through the pool
            game_id = step.loaded.stored.game_id
            return await self._shared(
                ("catch-up", game_id, str(last), str(step.version), str(seat)), lambda: self._catch_up(step, last, seat)
            )
        return self._built(step, key, entries, seat)

    def _built(self, step: Step, key: tuple[int, Seat | None], entries: list[storage_pb2.LogEntry], seat: Seat | None) -> Update:
        """The update of ``entries`` (from the feed's tail) for ``seat``, kept for the watchers
        in step."""
        update = step.responses.get(key)  # another watcher may have built it meanwhile
        if update is not None:
            return update
        message = game_service_pb2.WatchGameResponse(version=step.version)
        message.entries.extend(visibility.entry_for(e, seat, step.finished) for e in entries)
        return self._kept(step, key, message, seat)

    def _kept(self, step: Step, key: tuple[int, Seat | None], message: game_service_pb2.WatchGameResponse, seat: Seat | None) -> Update:
        view = step.views.get(seat)
        if view is None:
            view = step.views[seat] = self._view(step.loaded, seat)
        message.view.CopyFrom(view)
        update = Update(message)
        if len(step.responses) < SHARED_RESPONSES:
            step.responses[key] = update
        return update

    async def _catch_up(self, step: Step, last: int, seat: Seat | None) -> Update:
        """The update from ``last`` to ``step`` for ``seat`` read from the log, built by at most
        ``CATCH_UPS_AT_ONCE`` at a time on this replica, ``CATCH_UP_CHUNK`` entries a read, the
        event loop taken up by one chunk at a time. Read and built whole, one catch-up of a
        20,000-step game held the loop for 0.1-0.2 s and the log's entries all at once, and a
        crowd's 300 of them, from versions of their own, made a call that came after them wait
        30 s (the loop's queue is first come, first served)."""
        key = (last, seat)
        async with self._catching_up:
            update = step.responses.get(key)
            if update is not None:
                return update
            game_id = step.loaded.stored.game_id
            message = game_service_pb2.WatchGameResponse(version=step.version)
            after = last
            while after < step.version:
                entries = await self._store.log_entries(game_id, after, step.version, count=CATCH_UP_CHUNK)
                if not entries:
                    break
                message.entries.extend(visibility.entry_for(e, seat, step.finished) for e in entries)
                after = entries[-1].version
                await asyncio.sleep(0)  # the chunk's work done: let the loop's other work in
            update = step.responses.get(key)
            if update is not None:
                return update
            return self._kept(step, key, message, seat)

    async def _shared(self, key: tuple[str, ...], read: Callable[[], Awaitable[Any]]) -> Any:
        """One read for every watcher that needs the same thing at the same time (a burst of
        new watchers of one game needs one snapshot and one log read, not one each)."""
        pending = self._reads.get(key)
        if pending is None:
            pending = self._reads[key] = asyncio.ensure_future(read())
            pending.add_done_callback(lambda done: self._read_done(key, done))
        # Shielded: a watcher that goes away must not cancel the read the others wait for.
        return await asyncio.shield(pending)

    def _read_done(self, key: tuple[str, ...], done: "asyncio.Future[Any]") -> None:
        self._reads.pop(key, None)
        if not done.cancelled():
            done.exception()  # retrieved here too: every waiter may have gone away meanwhile

    def _join(self, game_id: str, loaded: "Loaded", wake: asyncio.Event) -> GameFeed:
        feed = self._feeds.get(game_id)
        if feed is None:
            feed = self._feeds[game_id] = GameFeed(game_id, loaded)
            feed.task = asyncio.create_task(self._read(feed), name=f"hustings-feed-{game_id}")
            # A sweep ends by itself once it finds no feed left (the last one failed: its game
            # was gone), so a new feed starts one unless one is still running.
            if self._sweeper is None or self._sweeper.done():
                self._sweeper = asyncio.create_task(self._sweep(), name="hustings-feed-sweep")
        feed.watchers.add(wake)
        return feed

    def _leave(self, feed: GameFeed, wake: asyncio.Event) -> None:
        feed.watchers.discard(wake)
        if not feed.watchers and self._feeds.get(feed.game_id) is feed:
            del self._feeds[feed.game_id]
            # Forgotten as it is cancelled: the cancelled task keeps its CancelledError, whose
            # traceback keeps the reader's frames and so the feed; a feed still naming its task
            # made a cycle (the feed, its tail and its step's views) that only the collector freed.
            task, feed.task = feed.task, None
            if task is not None:
                task.cancel()
            if not self._feeds and self._sweeper is not None:
                self._sweeper.cancel()
                self._sweeper = None

    async def _sweep(self) -> None:
        """Every POLL_S, read the version of every watched game in pipelined reads and poke the
        feeds that are behind (or whose game is gone): what pub/sub failed to announce."""
        while self._feeds and not self._closing():
            await asyncio.sleep(POLL_S)
            feeds = list(self._feeds.values())
            for start in range(0, len(feeds), SWEEP_CHUNK):
                chunk = feeds[start : start + SWEEP_CHUNK]
                try:
                    heads = await self._store.heads([f.game_id for f in chunk])
                except (RedisError, OSError) as error:
                    log.warning("feed_sweep_failed", error=type(error).__name__)
                    for feed in chunk:
                        feed.poke()  # each feed then retries with its own pauses
                    continue
                for feed in chunk:
                    version = heads.get(feed.game_id, (0, 0))[0]
                    if version == 0 or version > feed.step.version:
                        feed.poke()

    async def _read(self, feed: GameFeed) -> None:
        """The feed's one reader: read each new version once and hand it to every watcher."""
        game_id = feed.game_id
        failures = 0
        with self._notifier.waiter(game_id) as announced:
            feed.announced = announced
            fresh = True  # read at once: a step may have come before the subscription
            while feed.watchers:
                announced.clear()
                if self._closing():
                    feed.wake()
                    return
                try:
                    # A step already handed over locally is announced too: no read for it. (A
                    # game gone, expired, is poked by the sweep: the load then says NOT_FOUND.)
                    heard = announced.take()
                    if not fresh and heard > feed.step.version and feed.committing:
                        # Likely the announcement of a commit of this replica whose reply has not
                        # come yet: its hand-over saves the read. (Bounded by the commit's own
                        # bound; a step of another replica is read after it, as before.)
                        await feed.settled.wait()
                    if fresh or heard > feed.step.version:
                        await self._advance(feed)
                    failures = 0
                except (RedisError, OSError) as error:
                    task = asyncio.current_task()
                    if task is not None and task.cancelling():
                        raise asyncio.CancelledError from error  # the client may report a cancel as a lost connection
                    # Watchers keep their streams: they get the step once Redis answers again.
                    log.warning("feed_read_failed", game_id=game_id, error=type(error).__name__)
                    failures += 1
                    await asyncio.sleep(RETRY_S[min(failures, len(RETRY_S)) - 1])
                    fresh = True
                    continue
                except ServiceError as error:  # e.g. the game expired: its streams end with NOT_FOUND
                    self._fail(feed, error)
                    return
                except Exception:  # noqa: BLE001 - reported to the watchers as INTERNAL
                    log.exception("feed_failed", game_id=game_id)
                    self._fail(feed, ServiceError(grpc.StatusCode.INTERNAL, "INTERNAL", "internal error"))
                    return
                if feed.step.finished:
                    return
                await announced.wait()
                fresh = False

    def _fail(self, feed: GameFeed, error: ServiceError) -> None:
        feed.failure = error
        if self._feeds.get(feed.game_id) is feed:
            del self._feeds[feed.game_id]  # the next watcher starts a new feed
        feed.wake()

    async def _advance(self, feed: GameFeed) -> None:
        loaded = await self._load(feed.game_id)
        if loaded.version <= feed.step.version:
            return
        entries = await self._store.log_entries(feed.game_id, feed.step.version, loaded.version)
        feed.publish(loaded, entries)


async def _woken(event: asyncio.Event, timeout_s: float) -> bool:
    """Wait for ``event`` up to ``timeout_s``; whether it was set. (A timer on this task, not
    ``wait_for``, which starts a task of its own for every wait of every seat's stream.)"""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(timeout_s):
            await event.wait()
        return True
    return False
