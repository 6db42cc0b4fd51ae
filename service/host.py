"""The game host: the application layer between the API faces (gRPC, REST) and the store.

Every handler is thin: authenticate, load, check, run the engine, commit atomically (one Lua
call), publish. Views are built only by ``_view`` from the game's own ``view`` function; events
and history are filtered only by ``visibility``.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import hmac
import math
import random
import re
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Awaitable, Callable, Iterable, Iterator, TypeVar

import grpc
import structlog
from redis.exceptions import RedisError

from hustings.engine import EngineError, Game, Rng, Seat, games, get_game, seed_commitment, state_digest
from hustings.engine.base import fill_outcome, is_side_move
from hustings.engine.registry import check_content_version, get_catalogue
from hustings.engine.rng import SEED_NONCE_BYTES
from hustings.service import logs, metrics, visibility
from hustings.service.errors import (
    RetryLater,
    ServiceError,
    aborted,
    exhausted,
    invalid,
    not_found,
    precondition,
    unauthenticated,
)
from hustings.service import deadlines, table
from hustings.service.defaults import DEFAULT_RETENTION_S
from hustings.service.client_limits import CreationCharge, current_creation, current_joiner, games_counted
from hustings.service.legal_moves import fill_legal_moves
from hustings.service.lobby import LobbyRepair, in_lobby, index_quietly, lobby_page, summary_of
from hustings.service.open_tables import LIFETIME_SLACK_S, UNBOUNDED, Claim, OpenTables
from hustings.service.presence import Presence
from hustings.service.seats import BOT_HELD, SeatLifecycle, check_party_name, display_name, seat_item
from hustings.service.limits import (
    DEFAULT_MAX_STREAMS,
    DEFAULT_MAX_STREAMS_PER_ADDRESS,
    DEFAULT_MAX_STREAMS_PER_CLIENT,
    DEFAULT_MAX_STREAMS_PER_CONNECTION,
    DEFAULT_MAX_STREAMS_PER_GAME,
    DEFAULT_MAX_STREAMS_PER_SEAT,
    StreamLimits,
)
from hustings.service.notifier import Notifier
from hustings.service.server_secret import Keys, fingerprint, move_fingerprint
from hustings.service.store import Recorded, Store
from hustings.service.room_maker import KeptIndex
from hustings.service.store_room import NoLimit, StoreRoom
from hustings.service.unattended import DEFAULT_UNATTENDED_DECISIONS_PER_SECOND, UnattendedBudget
from hustings.service.watch import Watchers
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2, game_service_pb2

log = structlog.get_logger("hustings.host")
_T = TypeVar("_T")
# The finished game a PlayAgain's charge was worked out from (``GameHost.play_again_cost``, which
# the gRPC and REST handlers call first), taken by the call itself (``GameHost.play_again``): one
# read of the record per call. Read again, it cost the call a round trip for nothing: nothing is
# ever written to a finished game, and one removed or expired in between made the call refuse
# GAME_NOT_FOUND where a call a moment earlier had its answer.
_FINISHED_READ: contextvars.ContextVar[storage_pb2.StoredGame | None] = contextvars.ContextVar("finished_read", default=None)

GAME_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
REQUEST_ID_RE = re.compile(r"^[\x21-\x7e]{1,64}$")
MIN_SECRET_REQUEST_ID = 16
MAX_COMMIT_ATTEMPTS = 32
COMMIT_BUDGET_S = 5.0  # within the 15 s server deadline of a call
DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
# GetHistory pages: by default a whole game of usual length in one answer (so that a client that
# does not page still gets all of it); at most 1000 steps, about half of gRPC's 4 MiB message
# limit were every step as large as the largest seen (README, "History pages").
DEFAULT_HISTORY_PAGE_SIZE = 500
MAX_HISTORY_PAGE_SIZE = 1000
# A stored game of a kind this build does not have (a replica of the build before the kind was
# added, during a rolling upgrade, or after a rollback) is not a fault of the server: a replica of
# a build that has the kind plays it, and this one does once upgraded. So the call is refused
# UNAVAILABLE with a retry hint, as a store restarting is, not INTERNAL.
UNKNOWN_KIND_RETRY_S = 1.0


def unknown_kind(kind: str) -> RetryLater:
    """UNAVAILABLE ``UNKNOWN_STORED_KIND`` for a stored game of ``kind``, which this build does
    not play (``UNKNOWN_KIND_RETRY_S``)."""
    return RetryLater(
        grpc.StatusCode.UNAVAILABLE,
        "UNKNOWN_STORED_KIND",
        f"this replica does not play {kind!r} games (a build without the kind); a replica that does plays it: retry",
        UNKNOWN_KIND_RETRY_S,
    )


def fill_state_view(game: Game[Any, Any, Any], state: Any, status: int, seat: Seat | None, view: game_pb2.GameView) -> None:
    """What a GameView for ``seat`` (None: a spectator) takes from the game's state at
    ``status``: in a game in play who is to act and the seat's legal moves (what it owes, or
    moves allowed at any time, such as deals), and the game's own part of the view."""
    if status == game_pb2.GAME_STATUS_ACTIVE:
        view.to_act.extend(sorted(game.to_act(state)))
        if seat is not None:
            fill_legal_moves(game, state, seat, view)
    # Until the game starts a seat may still change hands (leaving an open game frees it): it
    # sees the game as a spectator does, or a client could sit in each seat in turn and learn
    # the hands dealt at creation before the real players sit down.
    viewer = None if status == game_pb2.GAME_STATUS_OPEN else seat
    game.view_to_proto(game.view(state, viewer), view)


@dataclass(frozen=True)
class Loaded:
    """A decoded game: its stored record, its rules and its engine state (never mutated)."""

    stored: storage_pb2.StoredGame
    game: Game[Any, Any, Any]
    state: Any
    # Token hash -> seat, noted as tokens are checked, so that a move need not walk the seats.
    # Only a hint (``seat_of`` checks every hit against the snapshot); a move keeps every
    # seat's token, so the version it makes takes the hints over (``_advance``).
    token_seats: dict[str, Seat] = field(default_factory=dict, compare=False, repr=False)

    @property
    def version(self) -> int:
        """The version of the snapshot."""
        return self.stored.version


def token_hash(token: str) -> str:
    """The stored form of a seat token."""
    return hashlib.sha256(token.encode()).hexdigest()


def _seat_with(stored: storage_pb2.StoredGame, digest: str) -> Seat:
    """The seat of ``stored`` whose token hashes to ``digest``."""
    for seat in stored.seats:
        if seat.token_sha256 and hmac.compare_digest(seat.token_sha256, digest):
            return seat.seat
    raise unauthenticated("INVALID_SEAT_TOKEN", "the seat token does not belong to this game")


def _check_game_id(game_id: str) -> None:
    if not GAME_ID_RE.fullmatch(game_id):
        raise invalid("BAD_GAME_ID", "game_id must be 1 to 64 letters, digits, '-' or '_'")


def _attempts(limit: int = MAX_COMMIT_ATTEMPTS, budget_s: float = COMMIT_BUDGET_S) -> Iterator[Awaitable[None] | None]:
    """Commit attempts, bounded in count and time: the first two at once, then each after a
    jittered, growing pause (replicas that keep colliding on one game spread out). Each is
    the pause to await before it, None for the first: most moves need only that one, and it
    neither yields to the event loop nor awaits anything."""
    deadline = time.monotonic() + budget_s
    for n in range(limit):
        if n and time.monotonic() > deadline:
            return
        yield None if n == 0 else asyncio.sleep(0 if n < 2 else random.uniform(0, min(0.1, 0.002 * 2**n)))


def _found_party(game: Game[Any, Any, Any], state: Any, seat: Seat, name: str, colour: str) -> Any:
    """The state after the joining player names its party (where the game lets parties be named)."""
    name_party = getattr(game, "name_party", None)
    if name_party is None:
        raise invalid("PARTY_NAME_UNSUPPORTED", "parties of this game cannot be named at joining")
    try:
        founded = name_party(state, seat, name, colour)
    except EngineError as error:
        raise ServiceError.from_engine(error) from None
    in_use = getattr(game, "party_names_in_use", None)
    if name.strip() and in_use is not None:
        check_party_name(name, in_use(state, seat))
    return founded


def _same_request(recorded: str, current: str) -> None:
    """Refuse a request id reused for a different request (a retry must repeat its request)."""
    if recorded and not hmac.compare_digest(recorded, current):
        raise precondition(
            "REQUEST_ID_REUSED", "this request_id was used for a different request; use a new request_id"
        )


def _create_fingerprint(game: Game[Any, Any, Any], request: game_service_pb2.CreateGameRequest) -> str:
    """What a CreateGame's request id is bound to: the kind, options, seed and table."""
    return fingerprint(
        b"create",
        game.info.kind.encode(),
        request.options.SerializeToString(deterministic=True),
        request.seed.encode(),
        request.table.SerializeToString(deterministic=True),
    )


def _again(finished: storage_pb2.StoredGame) -> game_service_pb2.CreateGameRequest:
    """The CreateGame a PlayAgain of ``finished`` makes: its kind, options and table settings
    as it was created with, and no seed (the server draws one, never the finished game's)."""
    request = game_service_pb2.CreateGameRequest(kind=finished.kind)
    request.options.CopyFrom(finished.options)
    request.table.CopyFrom(finished.table)
    return request


@dataclass(frozen=True)
class _NewGame:
    """A game checked and set up, not yet stored: its rules, the request it was made by, its
    number of seats, seed, random number generator after the deal and first state."""

    game: Game[Any, Any, Any]
    request: game_service_pb2.CreateGameRequest
    seats: int
    seed: bytes
    rng: Rng
    state: Any


def _check_secret_request_id(request_id: str, what: str = "a seat token") -> None:
    """A request id that hands out a seat token (JoinGame, TakeOverSeat) or a game (CreateGame)
    is as secret as what it hands out: a short one could be guessed and replayed, or sent first
    (another client's create under an organiser's "round1-table1" answered the organiser with
    the other client's game, or REQUEST_ID_REUSED)."""
    if request_id and len(request_id) < MIN_SECRET_REQUEST_ID:
        raise invalid(
            "BAD_REQUEST_ID",
            f"this request_id gives out {what}: use at least {MIN_SECRET_REQUEST_ID} random characters (a UUID)",
        )


def _check_request_id(request_id: str, required: bool) -> None:
    if not request_id:
        if required:
            raise invalid("MISSING_REQUEST_ID", "request_id is required (1 to 64 printable characters)")
        return
    if not REQUEST_ID_RE.fullmatch(request_id):
        raise invalid("BAD_REQUEST_ID", "request_id must be 1 to 64 printable ASCII characters without spaces")


class _GameLock:
    """The lock of one game while anyone uses it (a plain class: every move takes one, and a
    generator-based context manager costs several times as much)."""

    __slots__ = ("_locks", "_game_id", "_lock")

    def __init__(self, locks: dict[str, list[Any]], game_id: str) -> None:
        self._locks = locks
        self._game_id = game_id
        held = locks.get(game_id)
        if held is None:
            held = locks[game_id] = [asyncio.Lock(), 0]
        held[1] += 1
        self._lock: asyncio.Lock = held[0]

    async def __aenter__(self) -> None:
        try:
            await self._lock.acquire()
        except BaseException:
            self._release_use()
            raise

    async def __aexit__(self, *exc: object) -> None:
        self._lock.release()
        self._release_use()

    def _release_use(self) -> None:
        held = self._locks[self._game_id]
        held[1] -= 1
        if not held[1]:
            del self._locks[self._game_id]


class GameHost:
    """Creates, loads and advances games stored in Redis."""

    def __init__(
        self,
        store: Store,
        notifier: Notifier,
        *,
        allow_client_seed: bool = False,
        cache_size: int = 4096,
        max_watchers: int = DEFAULT_MAX_STREAMS,
        max_streams_per_client: int = DEFAULT_MAX_STREAMS_PER_CLIENT,
        max_streams_per_seat: int = DEFAULT_MAX_STREAMS_PER_SEAT,
        max_streams_per_address: int = DEFAULT_MAX_STREAMS_PER_ADDRESS,
        max_streams_per_game: int = DEFAULT_MAX_STREAMS_PER_GAME,
        max_streams_per_connection: int = DEFAULT_MAX_STREAMS_PER_CONNECTION,
        clock: Callable[[], float] = time.time,
        keys: Keys | None = None,
        retention_s: int = DEFAULT_RETENTION_S,
        unattended_decisions_per_second: float = DEFAULT_UNATTENDED_DECISIONS_PER_SECOND,
    ) -> None:
        self.store = store
        self.notifier = notifier
        # Without a shared secret (one replica in a tool or test) a secret of this process.
        self.keys = keys or Keys(secrets.token_bytes(32))
        self.lobby_repair = LobbyRepair(store, retention_s=retention_s, clock=clock)  # the replicas' shared clock
        # Whether Redis has room for new games (a replica sets its StoreRoom here).
        self.room: StoreRoom | NoLimit = NoLimit()
        # The listed tables each client keeps waiting (a replica with the bound sets it here).
        self.open_tables: OpenTables | None = None
        # Seats each client address holds at listed tables other clients made, in games not
        # finished (items: ``seats.seat_item``, ``seats.bot_item``); None: no such bound.
        self.seats_held: OpenTables | None = None
        self.retention_s = retention_s
        self.deadlines = deadlines.DeadlineIndex(store.client, store.lane)
        self.kept = KeptIndex(store.client, store.lane)  # which games to look at when Redis needs room
        self.seats = SeatLifecycle(self, UnattendedBudget(unattended_decisions_per_second))
        self.deadline_runner = deadlines.DeadlineRunner(
            self.deadlines, self.seats.apply_due, self.store.version_of, now_ms=self._now_ms
        )
        self.presence = Presence(store, now_ms=self._now_ms)
        self._kicks: set[asyncio.Task[Any]] = set()
        self._kicking: set[str] = set()  # games whose kick is running
        self._kick_again: set[str] = set()  # games kicked while their kick ran
        self._locks: dict[str, list[Any]] = {}  # game id -> [its lock, how many use it]
        self.allow_client_seed = allow_client_seed
        self.max_watchers = max_watchers
        self.watchers = Watchers(
            store,
            notifier,
            load=self._load_fresh,
            view=self._view,
            seat_of=self.seat_of,
            closing=lambda: self.closing,
            limits=StreamLimits(
                max_watchers,
                max_streams_per_client,
                max_streams_per_seat,
                max_streams_per_address,
                max_streams_per_game,
                max_streams_per_connection,
            ),
            seen=lambda game_id, seat: self.presence.touch(game_id, seat),
        )
        self.closing = False
        self._cache: OrderedDict[str, Loaded] = OrderedDict()
        self._cache_size = cache_size
        self._clock = clock

    # --- clocks and expiry ------------------------------------------------------------------------
    def _now_ms(self) -> int:
        return int(self._clock() * 1000)

    def _expiry(self, stored: storage_pb2.StoredGame, before: storage_pb2.StoredGame | None = None) -> int | None:
        """How long the game's keys live after this step: open games wait a while for players,
        finished ones are kept for the retention time, and active ones for the retention time
        after their last step (a game nobody plays any more, say one a client made and filled
        itself, must not stay for ever). None (leave it as it is) when the step after ``before``
        did not change the status of a game that is not active."""
        if stored.status == game_pb2.GAME_STATUS_ACTIVE:
            return self.retention_s  # renewed by every step, in the step's own script
        if before is not None and before.status == stored.status:
            return None
        if stored.status == game_pb2.GAME_STATUS_OPEN:
            return table.open_wait_s(stored.table)
        return self.retention_s

    def _step_expiry(self, stored: storage_pb2.StoredGame) -> int | None:
        """``_expiry`` of a table step (a seat taken, left or given to a bot): in an open game
        the step begins its wait for players again, noted for the lobby's ``open_until``, but
        never past twice its wait from its creation. A seat change a day kept a table charged
        for one day's wait in the store for as long as its steps lasted (up to 1,000 days)."""
        if stored.status != game_pb2.GAME_STATUS_OPEN:
            return self._expiry(stored)
        now = self._clock()
        wait = table.open_wait_s(stored.table)
        last = (stored.created_at or int(now)) + wait  # the latest start of a wait
        if now < last:
            stored.open_since = int(now)
            return wait
        stored.open_since = last
        left = math.ceil(last + wait - now)  # whole seconds: the keys outlive the end by under one
        if left < 1:
            # Past its end, its keys about to expire: no step renews them (each would add a
            # second, and keys a step creates, its presence or request ids, need an expiry).
            raise not_found("GAME_NOT_FOUND", f"no game {stored.game_id}")
        return left

    async def _schedule(self, stored: storage_pb2.StoredGame, due: int | None = None) -> None:
        """Index the step's next deadline before its commit (a crash after it loses no timer).
        ``due``: that deadline (0 for none) when the caller has it already."""
        if due is None:
            due = table.next_due(stored)
        if due:
            await self.deadlines.schedule(stored.game_id, due)

    def _kick_if_due(self, stored: storage_pb2.StoredGame, due: int | None = None) -> None:
        """Apply decisions due at once (bot seats, absent players) here and now rather than at
        the next poll; the index still holds them should this replica stop. ``due``: the
        game's next deadline when the caller has it already."""
        if due is None:
            due = table.next_due(stored)
        if due and due <= self._now_ms():
            game_id = stored.game_id
            if game_id in self._kicking:
                # One kick of a game at a time: the one running looks again once it is done.
                # Every late move (TIME_RUN_OUT) kicked the game, and a hundred of them left two
                # hundred tasks waiting for one strong bot's thinking place.
                self._kick_again.add(game_id)
                return
            task = asyncio.create_task(self._kick(game_id))
            self._kicking.add(game_id)
            self._kicks.add(task)
            task.add_done_callback(self._kicks.discard)

    async def _kick(self, game_id: str) -> None:
        """Apply ``game_id``'s due decisions, and again while kicks came meanwhile."""
        try:
            while True:
                self._kick_again.discard(game_id)
                await self.seats.apply_due_quietly(game_id)
                if game_id not in self._kick_again:
                    return
        finally:
            self._kicking.discard(game_id)
            self._kick_again.discard(game_id)

    async def _after_commit(self, new: Loaded, kick: bool = True, index: bool = True) -> None:
        """After a table step or a due decision: keep it, update the lobby, act on what is due."""
        self._remember(new)
        if index:
            await index_quietly(self.store, new.stored)
        if kick:
            self._kick_if_due(new.stored)

    async def _after_resent_commit(self, landed: Loaded) -> None:
        """What follows a table step whose commit landed though its reply was lost (the lane
        sent it again and heard DUPLICATE): the lobby's summary, the kept-games index of a game
        it started, the due decisions. Without it such a game stayed open in the lobby, out of
        the index (never removed to make room) and its bots waited for the next poll."""
        await index_quietly(self.store, landed.stored)
        if landed.stored.status == game_pb2.GAME_STATUS_ACTIVE:
            await self._note_kept(landed.stored)
        self._kick_if_due(landed.stored)

    def _after_cancelled_commit(
        self, new: Loaded, entry: storage_pb2.LogEntry, was: int, made_key: str = "", moved: bool = False
    ) -> None:
        """What follows a step whose call was cancelled (its client's deadline passed, its
        connection dropped, PlayAgain's caller gone) while its commit was on its way: the commit
        goes out all the same, and what follows it must not be lost with the call. Without this
        a game started by a join given up mid-commit was never noted in the kept-games index
        (so never removed to make room), and its bots waited for the next poll; a retry of the
        join is answered from its record and writes nothing. In the background, once the
        commits this replica sent before are answered, and only if the log holds this step's
        ``entry`` at its version (another step may have come first: its summary must not be
        overwritten by this one's): its lobby summary, the kept-games index of a game the step
        started or finished (``was``: its status before), its due decisions, and for a create
        the note that its game was made (``made_key``: its request's); a move (``moved``) is
        counted and logged as a move answered is."""
        sent = entry.SerializeToString()

        async def follow() -> None:
            try:
                if await self.store.logged_after_commits(new.stored.game_id, new.version) != sent:
                    return  # the step did not land (another came first), or the game is gone
                if moved:
                    metrics.move_applied(new.stored.kind)
                    log.info("move_applied", version=new.version, answered=False)
                if made_key:
                    await self.store.note_create_made(made_key, new.stored.game_id)
                if new.version == 1 and in_lobby(new.stored):  # a game made (``_open``)
                    await self._listed_as_made(new.stored)
                else:
                    await index_quietly(self.store, new.stored)
                if new.stored.status != was and new.stored.status != game_pb2.GAME_STATUS_OPEN:
                    await self._note_kept(new.stored)
                self._kick_if_due(new.stored)
            except RedisError as error:
                log.warning("follow_up_lost", game_id=new.stored.game_id, version=new.version, cause=type(error).__name__)

        task = asyncio.create_task(follow())
        self._kicks.add(task)
        task.add_done_callback(self._kicks.discard)

    async def _note_kept(self, stored: storage_pb2.StoredGame) -> None:
        """The step that started or finished ``stored`` gave its keys the retention time: the
        kept-games index notes the game at that expiry (service/room_maker.py), whatever becomes
        of the call. Open games are not in it: none is ever removed to make room."""
        await asyncio.shield(self.kept.note(stored.game_id, self._now_ms() + self.retention_s * 1000))

    async def finish_background(self, within_s: float) -> None:
        """At stop, once no call runs: the follow-ups of cancelled commits and the kicks of due
        decisions started here get ``within_s`` to end (a follow-up writes what a landed commit
        needs), then are cancelled (a due decision stays in the deadline index, for another
        replica). Before, they ran on against a closed store, or were dropped with the loop."""
        loop = asyncio.get_running_loop()
        until = loop.time() + within_s
        # Again while some remain: a follow-up that ends may start a kick of its game.
        while self._kicks and (left := until - loop.time()) > 0:
            await asyncio.wait(list(self._kicks), timeout=left)
        pending = list(self._kicks)
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=within_s)

    def begin_shutdown(self) -> None:
        """Stop accepting new streams and end the open ones (they tell clients to reconnect)."""
        self.closing = True
        self.notifier.wake_all()

    # --- loading ------------------------------------------------------------------------------
    def _decode(self, stored: storage_pb2.StoredGame) -> Loaded:
        game = get_game(stored.kind)
        if game is None:
            raise unknown_kind(stored.kind)
        try:
            check_content_version(stored.kind, stored.content_version, stored.rules_version)
        except EngineError as error:
            raise ServiceError.from_engine(error) from None
        return Loaded(stored, game, game.load_state(stored.engine_state))

    def _remember(self, loaded: Loaded) -> Loaded:
        game_id = loaded.stored.game_id
        self._cache[game_id] = loaded
        self._cache.move_to_end(game_id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return loaded

    def _adopt(self, stored: storage_pb2.StoredGame) -> Loaded:
        """A decoded game for ``stored``, reusing the cached decoding when it is of the same game
        (the nonce drawn at its creation: PlayAgain makes a next game again under the id of one
        that expired, from version 0) at the same version."""
        cached = self._cache.get(stored.game_id)
        if cached is not None and cached.version == stored.version and cached.stored.seed_nonce == stored.seed_nonce:
            return cached
        return self._remember(self._decode(stored))

    async def _load_fresh(self, game_id: str) -> Loaded:
        return self._adopt(await self._stored(game_id))

    async def _stored(self, game_id: str) -> storage_pb2.StoredGame:
        """The stored record of ``game_id``, not decoded (GAME_NOT_FOUND when there is none)."""
        _check_game_id(game_id)
        stored = await self.store.load(game_id)
        if stored is None:
            raise not_found("GAME_NOT_FOUND", f"no game {game_id}")
        return stored

    # --- auth ---------------------------------------------------------------------------------
    @staticmethod
    def seat_of(loaded: Loaded, token: str | None) -> Seat | None:
        """The seat a token belongs to; None for no token (a spectator)."""
        if not token:
            return None
        digest = token_hash(token)
        seat = loaded.token_seats.get(digest)
        if seat is not None and hmac.compare_digest(loaded.stored.seats[seat].token_sha256, digest):
            return seat  # the hint holds for this snapshot: no walk over the seats
        seat = _seat_with(loaded.stored, digest)
        loaded.token_seats[digest] = seat
        return seat

    @staticmethod
    def seat_in(stored: storage_pb2.StoredGame, token: str | None) -> Seat | None:
        """The seat of ``stored`` a token belongs to; None for no token (a spectator)."""
        return _seat_with(stored, token_hash(token)) if token else None

    # --- views --------------------------------------------------------------------------------
    def _view(self, loaded: Loaded, seat: Seat | None) -> game_pb2.GameView:
        stored, game, state = loaded.stored, loaded.game, loaded.state
        finished = stored.status == game_pb2.GAME_STATUS_FINISHED
        view = game_pb2.GameView(
            game_id=stored.game_id,
            kind=stored.kind,
            version=stored.version,
            status=stored.status,
            seed_commitment=seed_commitment(stored.seed, stored.seed_nonce),
            seed_chosen_by_creator=stored.seed_from_client,
        )
        view.options.CopyFrom(stored.options)
        if seat is not None:
            view.seat = seat
        view.table.CopyFrom(stored.table)
        present = self.presence.seen(stored.game_id)
        for s in stored.seats:
            table.seat_to_proto(s, view.seats.add(), s.seat in present)
        if finished:
            view.seed = stored.seed.hex()
            view.seed_nonce = stored.seed_nonce.hex()  # with the seed, never before it
            fill_outcome(game, state, view.outcome)
            for placing in view.outcome.placings:
                if placing.HasField("seat"):
                    placing.bot_played = stored.seats[placing.seat].bot_played or stored.seats[placing.seat].bot
        fill_state_view(game, state, stored.status, seat, view)
        return view

    async def _answer_view(self, loaded: Loaded, seat: Seat | None) -> game_pb2.GameView:
        """The view a seat change answers with (a join, a leave, a return, a takeover, a bot
        seated): who is present read as GetView reads it, and the caller's seat among them (it
        just called). Their answers showed nobody present, the caller neither, until this replica
        had read the game's presence for a GetView. The step is made: a presence that cannot be
        read leaves the view with what this replica last read rather than fail the call."""
        game_id = loaded.stored.game_id
        try:
            await self.presence.refresh(game_id)
        except RedisError as error:
            log.debug("presence_not_read", game_id=game_id, cause=type(error).__name__)
        self.presence.touch(game_id, seat)
        return self._view(loaded, seat)

    # --- RPCs ---------------------------------------------------------------------------------
    def list_kinds(self) -> game_service_pb2.ListGameKindsResponse:
        """Every hosted kind."""
        response = game_service_pb2.ListGameKindsResponse()
        for game in games().values():
            info = game.info
            kind = response.kinds.add(
                kind=info.kind, title=info.title, min_players=info.min_players, max_players=info.max_players
            )
            for variant in info.variants:
                kind.variants.add(name=variant.name, description=variant.description)
        return response

    async def create_game(self, request: game_service_pb2.CreateGameRequest) -> game_service_pb2.CreateGameResponse:
        """A new game, open for joining; a retried request id answers with the first game."""
        game = get_game(request.kind)
        if game is None:
            raise invalid("UNKNOWN_KIND", f"unknown game kind {request.kind[:40]!r}; see ListGameKinds")
        _check_request_id(request.request_id, required=False)
        # A retry is answered with the game: one whose request id is guessed answers with the
        # game (for an unlisted table, its id is its only key), and one sent first by another
        # client took the id.
        _check_secret_request_id(request.request_id, "its game")
        creation = current_creation()

        async def replayed() -> game_service_pb2.CreateGameResponse | None:
            return await self._replayed_create(game, request) if request.request_id else None

        answer = await self._unless_refused(creation, replayed)
        if answer is not None:
            return answer
        new = self._set_up(game, request)
        claim = await self._open_table_claim(creation.client, request.table)
        if claim is None:  # the client keeps as many listed tables waiting as it may
            answer = await replayed()  # a retry of a create that happened is answered, as above
            if answer is None:
                raise self._too_many_open_tables()
            creation.replayed()
            return answer
        game_id = "g" + secrets.token_hex(12)  # random: never derived from what a client sent
        try:
            if request.request_id:
                request_fingerprint = _create_fingerprint(game, request)
                key = self.keys.request_key("create", request.request_id)
                game_id, first_fingerprint = await self.store.reserve_create(key, game_id, request_fingerprint)
                _same_request(first_fingerprint, request_fingerprint)
                existing = await self.store.load(game_id)
                if existing is not None:
                    creation.replayed()  # a retry of a create that happened takes no game of the allowance
                    claim.made(game_id)  # counted once, whichever attempt notes it
                    # Noted again: the attempt that made the game may have ended before it could.
                    await self.store.note_create_made(key, game_id)
                    return game_service_pb2.CreateGameResponse(game_id=game_id, view=self._view(self._adopt(existing), None))
                await self._refuse_gone(key, game_id)
            loaded = await self._open(game_id, new, creation, key if request.request_id else "")
        finally:
            claim.settle(game_id, made=creation.committed)  # made, or being made whatever becomes of this call
        return game_service_pb2.CreateGameResponse(game_id=game_id, view=self._view(loaded, None))

    def _too_many_open_tables(self) -> ServiceError:
        """RESOURCE_EXHAUSTED ``TOO_MANY_OPEN_TABLES`` (counted among the refused creations)."""
        metrics.refused_creation("TOO_MANY_OPEN_TABLES")
        return exhausted(
            "TOO_MANY_OPEN_TABLES",
            f"this client keeps its maximum of {self.open_tables.per_client} listed tables"  # type: ignore[union-attr]
            " waiting for players on this replica; wait until one starts or expires, or make an unlisted table",
        )

    async def _open_table_claim(self, client: str, settings: game_pb2.TableSettings) -> Claim | None:
        """A place for one more table of ``client``, counted when it is listed and tables are
        bounded (``OpenTables``; else ``UNBOUNDED``) for as long as it may wait (twice its
        ``open_seconds`` from its creation, see ``_step_expiry``); None when it keeps as many waiting as it may."""
        if settings.unlisted or self.open_tables is None or not client:
            return UNBOUNDED
        return await self.open_tables.claim(client, self._still_waiting, 2 * table.open_wait_s(settings) + LIFETIME_SLACK_S)

    async def _seat_claim(self, stored: storage_pb2.StoredGame, client: str = "") -> Claim | None:
        """A place for the JoinGame being run (``current_joiner``; or ``client``'s seat: a
        takeover, a bot seated) at ``stored``, counted when the table is listed and another
        client made it (``seats_held``; else ``UNBOUNDED``);
        None when the joiner holds as many such seats as it may. One address that took every
        free seat the lobby showed, a call a seat, kept hosts' friends out and stopped their
        tables for good (a table without a clock waits for its seats' moves)."""
        joiner = client or current_joiner()
        if self.seats_held is None or not joiner or not stored.creator_mark or stored.table.unlisted:
            return UNBOUNDED
        if self.made_by(stored, joiner):
            return UNBOUNDED  # its creator's own table: a household or a classroom sits at it
        return await self.seats_held.claim(joiner, self._seats_still_held)

    def made_by(self, stored: storage_pb2.StoredGame, client: str) -> bool:
        """Whether the client address ``client`` made the table ``stored`` (its ``creator_mark``;
        never for a table without one, nor for no client)."""
        return bool(client and stored.creator_mark) and hmac.compare_digest(stored.creator_mark, self.keys.client_mark(client))

    async def _seats_still_held(self, items: list[str]) -> list[str]:
        """Those of the seats (``seat_item``, ``bot_item``) still counted: the seat still holds
        the token of the join that counted it (or a bot, for one a player seated), in a game in
        play or still waiting (a seat left, taken over, or never taken by a join whose commit did
        not land, and a game ended, gone or whose wait ran out, count no more). Read from the
        games themselves: at most the bound's snapshots, once a second at most for a client at
        its bound."""
        now_s = self._clock()
        game_ids = list(dict.fromkeys(item.split("/")[0] for item in items))
        games = dict(zip(game_ids, await asyncio.gather(*(self.store.load(game_id) for game_id in game_ids))))
        kept = []
        for item in items:
            game_id, seat, held = item.split("/")
            stored = games.get(game_id)
            if stored is None or not int(seat) < len(stored.seats):
                continue
            place = stored.seats[int(seat)]
            if not (place.bot if held == BOT_HELD else place.token_sha256.startswith(held)):
                continue
            if stored.status == game_pb2.GAME_STATUS_ACTIVE:
                kept.append(item)
            elif stored.status == game_pb2.GAME_STATUS_OPEN and table.open_until(stored) > now_s:
                kept.append(item)
        return kept

    def _too_many_seats_held(self) -> ServiceError:
        """RESOURCE_EXHAUSTED ``TOO_MANY_SEATS_HELD``."""
        return exhausted(
            "TOO_MANY_SEATS_HELD",
            f"this client address holds its maximum of {self.seats_held.per_client} seats at listed tables"  # type: ignore[union-attr]
            " other clients made, in games not finished, on this replica; wait until one ends, or sit at a table"
            " of your own or an unlisted one",
        )

    async def _still_waiting(self, game_ids: list[str]) -> list[str]:
        """Those of ``game_ids`` the lobby lists as open tables whose wait has not run out."""
        now_s = self._clock()
        summaries = await self.store.lobby_summaries(game_ids)
        return [
            game_id
            for game_id, summary in summaries.items()
            if summary.status == game_pb2.GAME_STATUS_OPEN and (not summary.open_until or summary.open_until > now_s)
        ]

    async def _refuse_gone(self, key: str, game_id: str) -> None:
        """Refuse a retried create whose game was made and is gone (it expired, or was removed
        to make room): another game under its id would answer the retry with a game it never
        asked for, and its id would name two games."""
        if await self.store.create_made(key, game_id):
            raise precondition(
                "CREATED_GAME_GONE",
                f"the game this request_id created ({game_id}) is gone: it expired or was removed; send a new request_id for a new game",
            )

    async def _unless_refused(self, creation: CreationCharge, made: Callable[[], Awaitable[_T | None]]) -> _T | None:
        """None when a game may be created now. Else (the client's allowance is used up, or the
        store keeps its last room for the games in play) the answer ``made`` gives for a game
        the call made already (reads only), or the refusal, raised with nothing written."""
        refusal = creation.refusal or self.room.refusal()
        if refusal is None:
            return None
        answer = await made()
        if answer is None:
            metrics.refused_creation(refusal.reason)
            raise refusal
        return answer

    def _set_up(self, game: Game[Any, Any, Any], request: game_service_pb2.CreateGameRequest) -> _NewGame:
        """The first state of a game ``request`` asks for, checked: its options, seed and table."""
        try:
            options = game.options_from_proto(request.options)
            seats = game.seat_count(options)
            seed = self._seed(request.seed)
            rng = Rng(seed)
            state = game.setup(options, rng)
        except EngineError as error:
            raise ServiceError.from_engine(error) from None
        table.validate(request.table, seats)
        return _NewGame(game, request, seats, seed, rng, state)

    async def _open(self, game_id: str, new: _NewGame, creation: CreationCharge, made_key: str = "", maker: bytes = b"") -> Loaded:
        """Store ``new`` as the open game ``game_id``, unless an attempt that chose the same id
        (a retry of one create, a PlayAgain of one game) made it first: only the first commit
        at version 0 is written, and the others answer with its game, charged nothing.
        ``made_key``: the CreateGame request's, noted once the game is made (``_refuse_gone``),
        also when the call is cancelled while its commit is on its way. ``maker``: the table's
        ``creator_mark`` to keep (a PlayAgain's), else the creating client's for a listed table."""
        game, request, seats, state = new.game, new.request, new.seats, new.state
        stored = storage_pb2.StoredGame(
            game_id=game_id,
            kind=game.info.kind,
            version=1,
            status=game_pb2.GAME_STATUS_OPEN,
            seed=new.seed,
            seed_from_client=bool(request.seed),  # a sent seed is used or refused above, never ignored
            # Drawn here whoever chose the seed: a chosen seed may be guessable, and one seed may
            # deal several games; the nonce keeps the commitment from confirming either.
            seed_nonce=secrets.token_bytes(SEED_NONCE_BYTES),
            rng_counter=new.rng.counter,
            engine_state=game.dump_state(state),
            created_at=int(self._clock()),
            content_version=self.get_kind(game.info.kind).content_version,
            # What the rules read of the content: the game plays on under edits of its labels,
            # names and notes (engine.registry.check_content_version).
            rules_version=self._rules_version(game.info.kind),
        )
        stored.options.CopyFrom(request.options)
        stored.table.CopyFrom(request.table)
        if maker or (creation.client and not request.table.unlisted):  # its joins are told from strangers' (``_seat_claim``)
            stored.creator_mark = maker or self.keys.client_mark(creation.client)
        level = table.check_level(request.table.bot_level)
        for seat in range(seats):
            stored.seats.add(seat=seat)
            if seat in request.table.bot_seats:
                stored.seats[seat].bot = True
                stored.seats[seat].display_name = table.bot_name(level)
        table.start_banks(stored)
        if all(table.is_taken(s) for s in stored.seats):  # a table of bots only
            stored.status = game_pb2.GAME_STATUS_ACTIVE
            table.settle(stored, game.to_act(state), None, self._now_ms())
        entry = storage_pb2.LogEntry(version=1, seat=-1, state_digest=state_digest(game, state))
        # Indexed before the commit, so a created game is never missing from the lobby (an entry
        # whose commit never happens is dropped by the lobby repair); an unlisted table never is.
        indexed = in_lobby(stored) and await self.store.index(summary_of(stored))
        await self._schedule(stored)
        expire_s = self._expiry(stored)
        creation.sent()  # from here the game may be made, whatever becomes of this call
        try:
            result = await self.store.commit(stored, 0, entry, expire_s=expire_s)
        except asyncio.CancelledError:
            self._after_cancelled_commit(Loaded(stored, game, state), entry, game_pb2.GAME_STATUS_OPEN, made_key)
            raise
        if made_key:
            await self.store.note_create_made(made_key, game_id)  # whichever attempt's commit made the game
        if result.status != "OK":
            # Another attempt with the same game id created it first: answer with that game.
            creation.replayed()
            return await self._load_fresh(game_id)
        if in_lobby(stored) and not indexed:
            await self._listed_as_made(stored)
        if stored.status == game_pb2.GAME_STATUS_ACTIVE:  # a table of bots only
            # After the commit: a write before it would be the first to wait on a paused Redis,
            # and a call given up then would make no game.
            await self._note_kept(stored)
        loaded = self._remember(Loaded(stored, game, state))
        log.info("game_created", game_id=game_id, kind=game.info.kind, seats=seats)
        self._kick_if_due(stored)
        return loaded

    async def _listed_as_made(self, stored: storage_pb2.StoredGame) -> None:
        """After the commit that made ``stored`` (at version 0), the lobby lists it as it was
        made, when another entry of its id was there before its index (which keeps the first
        summary of a version, or a higher version): another attempt's to make the same game (a
        PlayAgain on another replica, a create retried), from that attempt's clock, whose
        commit lost; or its namesake's, a next game made again after it expired. An entry of
        the game's own creation time is left as it is: the same summary, or a later step's.
        Before, every PlayAgain that made a game dropped the entry first, so that a losing
        call on a replica whose clock read another second left its summary listed (creation
        time, place, open until) until the first join, and the game out of the lobby for a
        moment. The entry is replaced in one script (``Store.index``, ``made``): a drop and an
        index apart left the game out of the lobby between them. A failure is logged and left to
        the next listing change."""
        try:
            await self.store.index(summary_of(stored), made=True)
        except RedisError as error:
            log.warning("lobby_write_deferred", game_id=stored.game_id, version=stored.version, cause=type(error).__name__)

    def _next_game_id(self, finished: storage_pb2.StoredGame) -> str:
        """The next game's id: derived from the finished game's id and the nonce drawn at its
        creation, so that a next game made again after it expired (same id) leads on to a new
        game of its own, never to the one its expired namesake led to."""
        return self.keys.next_game_id(finished.game_id, finished.seed_nonce)

    async def play_again_cost(self, game_id: str) -> tuple[str, int]:
        """What a PlayAgain of ``game_id`` is charged under (reads only): the key its attempts
        from one client share on this replica, and the games a CreateGame of the finished
        game's table counts as (``client_limits.games_counted``)."""
        # Not decoded: a game recorded under content this build no longer plays still has a next game.
        finished = await self._stored(game_id)
        _FINISHED_READ.set(finished)  # the call's own read (``play_again``)
        return "play-again " + self._next_game_id(finished), games_counted(_again(finished))

    async def play_again(self, game_id: str, token: str | None) -> game_service_pb2.PlayAgainResponse:
        """The next game at the table of the finished game ``game_id``, for one of its players.

        Its id is derived from the finished game's under the server secret, so every call, from
        any seat on any replica, names the same game and nothing is written to the finished one;
        the first call makes it (charged as a CreateGame of the same table, seed drawn here,
        dealt by the content this build has) by the commit at version 0 that only one attempt
        wins, and every other call answers with it as it is, charged nothing."""
        # Not decoded, so that a game recorded under content this build no longer plays still has
        # a next game, made under the content the server has now (it needs only the record's kind,
        # options, table and seats). Read once per call: its charge's read, if it had one.
        finished = _FINISHED_READ.get()
        _FINISHED_READ.set(None)
        if finished is None or finished.game_id != game_id:
            finished = await self._stored(game_id)
        if self.seat_in(finished, token) is None:
            raise unauthenticated("SEAT_TOKEN_REQUIRED", "only a player of the game may start the next one: send its seat token")
        if finished.status != game_pb2.GAME_STATUS_FINISHED:
            raise precondition("GAME_NOT_FINISHED", "the game is not over: the next one starts once it is")
        game = get_game(finished.kind)
        if game is None:
            raise unknown_kind(finished.kind)
        next_id = self._next_game_id(finished)
        creation = current_creation()

        async def made() -> Loaded | None:
            existing = await self.store.load(next_id)
            return None if existing is None else self._adopt(existing)

        loaded = await self._unless_refused(creation, made)
        if loaded is None:
            loaded = await made()
            if loaded is not None:
                creation.replayed()  # made by an earlier call: this one takes no game of the allowance
            else:
                loaded = await self._make_next(next_id, game, _again(finished), creation, made, finished.creator_mark)
        return game_service_pb2.PlayAgainResponse(game_id=next_id, view=self._view(loaded, None))

    async def _make_next(
        self,
        next_id: str,
        game: Game[Any, Any, Any],
        again: game_service_pb2.CreateGameRequest,
        creation: CreationCharge,
        made: Callable[[], Awaitable[Loaded | None]],
        maker: bytes = b"",
    ) -> Loaded:
        """Make the next game ``next_id`` as ``again`` asks, counted as a listed table of the
        caller's when it is one (``TOO_MANY_OPEN_TABLES`` unless another call made it meanwhile).
        ``maker``: the finished game's ``creator_mark``, which the next game keeps (the player
        who asks first is not the table's maker)."""
        claim = await self._open_table_claim(creation.client, again.table)
        if claim is None:
            loaded = await made()
            if loaded is None:
                raise self._too_many_open_tables()
            creation.replayed()
            return loaded
        try:
            # A next game made again after it expired may find its namesake's entry in the
            # lobby still: the commit that makes it lists it instead (``_listed_as_made``).
            return await self._open(next_id, self._set_up(game, again), creation, maker=maker)
        finally:
            claim.settle(next_id, made=creation.committed)

    async def _replayed_create(
        self, game: Game[Any, Any, Any], request: game_service_pb2.CreateGameRequest
    ) -> game_service_pb2.CreateGameResponse | None:
        """The answer of an earlier create under this request id, if its game exists; reads only."""
        request_fingerprint = _create_fingerprint(game, request)
        key = self.keys.request_key("create", request.request_id)
        recorded = await self.store.recorded_create(key)
        if recorded is None:
            return None
        game_id, first_fingerprint = recorded
        _same_request(first_fingerprint, request_fingerprint)
        existing = await self.store.load(game_id)
        if existing is None:
            await self._refuse_gone(key, game_id)
            return None  # reserved by an attempt that never committed: this one would create it
        return game_service_pb2.CreateGameResponse(game_id=game_id, view=self._view(self._adopt(existing), None))

    def _seed(self, seed_hex: str) -> bytes:
        if not seed_hex:
            return secrets.token_bytes(32)
        if not self.allow_client_seed:
            raise ServiceError(
                grpc.StatusCode.PERMISSION_DENIED, "CLIENT_SEED_NOT_ALLOWED", "this server chooses seeds itself"
            )
        try:
            seed = bytes.fromhex(seed_hex)
        except ValueError:
            raise invalid("BAD_SEED", "seed must be 64 hex digits") from None
        if len(seed) != 32:
            raise invalid("BAD_SEED", "seed must be 64 hex digits")
        return seed

    def _game_lock(self, game_id: str) -> "_GameLock":
        """Steps of one game on this replica one at a time: they would only conflict with each
        other in Redis (simultaneous choices of several seats arrive together)."""
        return _GameLock(self._locks, game_id)

    async def join_game(self, request: game_service_pb2.JoinGameRequest) -> game_service_pb2.JoinGameResponse:
        """Take a seat; the game starts when the last seat is taken.

        With a request id the answer is a function of the request: every attempt, however many
        overlap on however many replicas, gets the same seat and the same token (derived from the
        server secret and the request), and only the first changes the game."""
        name = display_name(request.display_name)
        _check_request_id(request.request_id, required=False)
        _check_secret_request_id(request.request_id)
        game_id = request.game_id
        loaded = await self._load_fresh(game_id)
        # A join without a request id is given one for the call: a commit resent after its
        # reply was lost (the lane resends on a dropped connection) is then recognised as this
        # join's, instead of the game it changed being taken for another's and a second seat
        # taken for the caller.
        request_id = request.request_id or secrets.token_urlsafe(24)
        key = self.keys.request_key(f"{game_id}:join", request_id)
        token = self.keys.join_token(game_id, request_id)
        wanted = str(request.seat) if request.HasField("seat") else ""
        request_fingerprint = fingerprint(
            b"join", name.encode(), wanted.encode(), request.party_name.encode(), request.party_colour.encode()
        )

        async def as_landed(loaded: Loaded) -> game_service_pb2.JoinGameResponse | None:
            """The answer of this join's first attempt, when the caller's request id shows one that
            landed (its answer lost): a retry then finds the game full, its seat taken, or itself
            past a bound, by its own first attempt."""
            recorded = await self.store.recorded(game_id, key) if request.request_id else None
            return None if recorded is None else await self._rejoin(loaded, recorded, request_fingerprint, token)

        async with self._game_lock(game_id):
            for attempt in _attempts():
                if attempt is not None:
                    await attempt
                stored = loaded.stored
                if stored.status == game_pb2.GAME_STATUS_FINISHED:
                    raise precondition("GAME_OVER", "the game is over")
                if stored.status != game_pb2.GAME_STATUS_OPEN:
                    landed = await as_landed(loaded)  # a retry of a join that took the last seat
                    if landed is not None:
                        return landed
                    raise precondition("GAME_FULL", "every seat of this game is taken")
                try:
                    seat = table.seat_to_take(stored, request.seat if request.HasField("seat") else None)
                except ServiceError as error:
                    if error.reason == "SEAT_TAKEN":  # perhaps taken by this very join
                        landed = await as_landed(loaded)
                        if landed is not None:
                            return landed
                    raise
                try:
                    new, entry = self._seated(loaded, seat, name, token, request.party_name, request.party_colour)
                except ServiceError:
                    # A retry of a join that landed (its answer lost) finds its own party's name
                    # or colour taken, by itself, at the next free seat; or, landed on a replica
                    # of an earlier release, its party's name refused by a rule that release did
                    # not have. Its record answers it.
                    landed = await as_landed(loaded)
                    if landed is not None:
                        return landed
                    raise
                claim = await self._seat_claim(stored)
                if claim is None:
                    landed = await as_landed(loaded)  # a retry of a join that landed is answered, as above
                    if landed is not None:
                        return landed
                    raise self._too_many_seats_held()
                try:
                    await self._schedule(new.stored)
                except BaseException:
                    claim.release()  # nothing went out: the place is given back
                    raise
                # A join is the player's first call: its seat is present from it (noted with the
                # commit, as a move notes its mover).
                seen_at = self._now_ms()
                expire_s = self._step_expiry(new.stored)
                try:
                    result = await self.store.commit(
                        new.stored,
                        stored.version,
                        entry,
                        key,
                        request_fingerprint,
                        expire_s=expire_s,
                        present=(seat, seen_at),
                    )
                except BaseException as failure:
                    claim.settle(seat_item(game_id, seat, token), made=True)  # its commit may have landed: counted
                    if isinstance(failure, asyncio.CancelledError):
                        self._after_cancelled_commit(new, entry, stored.status)
                    raise
                # Counted when it took the seat (a version conflict took none: the next attempt asks again).
                # A resent join's own commit (DUPLICATE) may have landed in another seat: its item
                # then names a seat this token does not hold, and the lookup drops it.
                claim.settle(seat_item(game_id, seat, token), made=result.status in ("OK", "DUPLICATE"))
                if result.status == "OK":
                    self.presence.noted(game_id, seat, seen_at)
                    joined = self._remember(new)
                    await index_quietly(self.store, new.stored)
                    started = new.stored.status == game_pb2.GAME_STATUS_ACTIVE
                    if started:
                        await self._note_kept(new.stored)
                    log.info("seat_taken", game_id=game_id, seat=seat, version=new.version, started=started)
                    self._kick_if_due(new.stored)
                    return game_service_pb2.JoinGameResponse(seat=seat, seat_token=token, view=await self._answer_view(joined, seat))
                if result.status == "DUPLICATE" and result.recorded is not None:
                    # This join's own commit, sent again after its reply was lost: it landed.
                    landed = await self._load_fresh(game_id)
                    answer = await self._rejoin(landed, result.recorded, request_fingerprint, token)
                    await self._after_resent_commit(landed)
                    return answer
                loaded = await self._reloaded(game_id, result.snapshot)
        raise aborted("TOO_MUCH_CONTENTION", "the game changed too often while joining; retry")

    def _seated(
        self, loaded: Loaded, seat: Seat, name: str, token: str, party_name: str = "", party_colour: str = ""
    ) -> tuple[Loaded, storage_pb2.LogEntry]:
        stored, state = loaded.stored, loaded.state
        if party_name or party_colour:
            state = _found_party(loaded.game, state, seat, party_name, party_colour)
        new = storage_pb2.StoredGame()
        new.CopyFrom(stored)
        new.version = stored.version + 1
        new.seats[seat].display_name = name
        new.seats[seat].token_sha256 = token_hash(token)
        started = all(table.is_taken(s) for s in new.seats)
        if started:
            new.status = game_pb2.GAME_STATUS_ACTIVE
            table.settle(new, loaded.game.to_act(state), None, self._now_ms())
        if state is not loaded.state:
            new.engine_state = loaded.game.dump_state(state)
        entry = storage_pb2.LogEntry(version=new.version, seat=seat, state_digest=state_digest(loaded.game, state))
        event = entry.events.add(public=True)
        event.event.version = new.version
        event.event.seat = seat
        event.event.seat_taken.seat = seat
        event.event.seat_taken.display_name = name
        event.event.seat_taken.game_started = started
        event.event.seat_taken.party_name = party_name
        event.event.seat_taken.party_colour = party_colour
        return Loaded(new, loaded.game, state), entry

    async def _rejoin(
        self, loaded: Loaded, recorded: Recorded, request_fingerprint: str, token: str
    ) -> game_service_pb2.JoinGameResponse:
        """Answer a retried JoinGame: the same seat and token as the first attempt, and nothing
        written (no new version, no wake-up of watchers)."""
        _same_request(recorded.fingerprint, request_fingerprint)
        entry = await self.store.log_entry(loaded.stored.game_id, recorded.version)
        if entry is None:
            raise ServiceError(grpc.StatusCode.INTERNAL, "LOG_ENTRY_MISSING", "the first join is not in the log")
        seat = entry.seat
        if not hmac.compare_digest(loaded.stored.seats[seat].token_sha256, token_hash(token)):
            raise precondition("SEAT_TOKEN_REPLACED", "this seat has been given another token since this join")
        return game_service_pb2.JoinGameResponse(seat=seat, seat_token=token, view=await self._answer_view(loaded, seat))

    async def _reloaded(self, game_id: str, snapshot: bytes) -> Loaded:
        if not snapshot:
            return await self._load_fresh(game_id)
        stored = storage_pb2.StoredGame()
        stored.ParseFromString(snapshot)
        return self._adopt(stored)

    async def get_view(self, game_id: str, token: str | None) -> game_pb2.GameView:
        """The caller's view."""
        loaded = await self._load_fresh(game_id)
        seat = self.seat_of(loaded, token)
        await self.presence.refresh(game_id)
        self.presence.touch(game_id, seat)  # after the read, so the caller sees itself present
        return self._view(loaded, seat)

    async def leave_game(self, game_id: str, token: str | None) -> game_service_pb2.LeaveGameResponse:
        """The caller leaves its seat (its bot plays until it returns)."""
        return await self.seats.leave(game_id, token)

    async def return_to_game(self, game_id: str, token: str | None) -> game_service_pb2.ReturnToGameResponse:
        """The caller comes back to its absent seat."""
        return await self.seats.return_(game_id, token)

    async def take_over_seat(self, request: game_service_pb2.TakeOverSeatRequest) -> game_service_pb2.TakeOverSeatResponse:
        """A newcomer takes over an absent seat where the table allows it."""
        _check_request_id(request.request_id, required=True)
        _check_secret_request_id(request.request_id)
        _check_game_id(request.game_id)
        return await self.seats.take_over(request)

    async def add_bot(self, request: game_service_pb2.AddBotRequest, token: str | None = None) -> game_service_pb2.AddBotResponse:
        """A server-side bot takes a free seat of an open game (``Seats.add_bot``: for a player
        at the table, ``token``, or the address that made it)."""
        return await self.seats.add_bot(request, token)

    async def added_bot_level(self, request: game_service_pb2.AddBotRequest) -> str:
        """The level the bot of an AddBot will play at, as ``add_bot`` resolves it: the
        request's, else the table's; the call is charged for that bot before it runs."""
        if request.level:
            return request.level
        _check_game_id(request.game_id)
        return (await self._load_fresh(request.game_id)).stored.table.bot_level

    async def submit_move(
        self, request: game_service_pb2.SubmitMoveRequest, token: str | None
    ) -> game_service_pb2.SubmitMoveResponse:
        """Apply the caller's move once, atomically."""
        _check_request_id(request.request_id, required=True)
        game_id = request.game_id
        cached = self._cache.get(game_id) if GAME_ID_RE.fullmatch(game_id) else None
        metrics.cache_used(cached is not None)
        loaded = cached if cached is not None else await self._load_fresh(game_id)
        try:
            seat = self.seat_of(loaded, token)
        except ServiceError:
            if cached is None:
                raise
            # The seat may have been taken through another replica since this copy was cached.
            loaded, cached = await self._load_fresh(game_id), None
            seat = self.seat_of(loaded, token)
        if seat is None:
            raise unauthenticated("SEAT_TOKEN_REQUIRED", "moves need a seat token (authorization: Bearer <token>)")
        # A move is in time by when it came, not when its turn to be decided came; only a table
        # with a clock (its settings never change) has a deadline to be in time for.
        clocked = loaded.stored.table.decision_seconds or loaded.stored.table.bank_seconds
        arrived = self._now_ms() if clocked else 0
        try:
            key = self.keys.request_key(f"{game_id}:{seat}", request.request_id)
            request_fingerprint = move_fingerprint(request.move.SerializeToString(deterministic=True))
            try:
                move = loaded.game.move_from_proto(request.move)
            except EngineError as error:
                raise ServiceError.from_engine(error) from None
            # The keyed hash, never the request id: it tells a retry's lines apart without revealing it.
            logs.note(game_id=game_id, seat=seat, request_key=key[:16])
            return await self._decide(request, token, seat, loaded, cached is None, move, key, request_fingerprint, arrived)
        finally:
            # The seat was seen: a no-op when the commit noted it present, else written in the background.
            self.presence.touch(game_id, seat)

    async def _decide(
        self,
        request: game_service_pb2.SubmitMoveRequest,
        token: str | None,
        seat: Seat,
        loaded: Loaded,
        fresh: bool,
        move: Any,
        key: str,
        request_fingerprint: str,
        arrived: int,
    ) -> game_service_pb2.SubmitMoveResponse:
        """Decide the move on the latest state this replica knows and commit it, retrying on
        a fresh state after a conflict; a retried request id gets its first answer."""
        game_id = request.game_id
        async with self._game_lock(game_id):
            if not fresh and self._cache.get(game_id) is not loaded:
                # A step of this game committed here while this call waited: decide on it, if
                # the token still holds the seat there (the step may have been a takeover of it).
                loaded = self._cache.get(game_id) or loaded
                self._same_seat(loaded, token, seat)
            for attempt in _attempts():
                if attempt is not None:
                    await attempt
                try:
                    self._check_expected(loaded, request)
                    self._check_in_time(loaded, seat, arrived)
                    new, entry, due, events = self._advance(loaded, seat, move, request.move, arrived=arrived)
                except ServiceError as error:
                    if error.reason == "TIME_RUN_OUT":
                        self._kick_if_due(loaded.stored)  # the bot decides now, not at the next poll
                    if not fresh:
                        # The cached state may be stale: decide on the latest one.
                        loaded, fresh = await self._load_fresh(game_id), True
                        self._same_seat(loaded, token, seat)
                        continue
                    answered = await self._first_answer(game_id, seat, key, request_fingerprint, loaded, token)
                    if answered is not None:
                        return answered
                    log.info("move_rejected", reason=error.reason, version=loaded.version)
                    raise
                if due:  # most moves set no deadline: no coroutine to make and await
                    await self._schedule(new.stored, due)
                seen_at = self._now_ms()
                # A player's move takes, frees or hands no seat to a bot (table steps do): of what
                # the lobby lists, only the status can change, at the end, and the absence of a
                # seat whose player moves again.
                listed = new.stored.status != loaded.stored.status or loaded.stored.seats[seat].absent
                feed = self.watchers.committing(game_id)  # its announcement may come before its reply
                try:
                    try:
                        result = await self.store.commit(
                            new.stored,
                            loaded.version,
                            entry,
                            key,
                            request_fingerprint,
                            expire_s=self._expiry(new.stored, loaded.stored),
                            present=(seat, seen_at),
                            listed=listed,
                        )
                    except asyncio.CancelledError:
                        self._after_cancelled_commit(new, entry, loaded.stored.status, moved=True)
                        raise
                    if result.status == "OK":
                        self.presence.noted(game_id, seat, seen_at)
                        self._remember(new)
                        self.watchers.committed(new, [entry])  # this replica's streams get it without a read
                finally:
                    if feed is not None:
                        self.watchers.settled(feed)
                if result.status == "OK":
                    self._kick_if_due(new.stored, due)
                    metrics.move_applied(new.stored.kind)
                    if listed:
                        await index_quietly(self.store, new.stored)
                        if new.stored.status == game_pb2.GAME_STATUS_FINISHED:
                            await self._note_kept(new.stored)
                    log.info("move_applied", version=new.version)
                    return self._answer(new.version, events, seat)
                if result.status == "DUPLICATE":
                    answered = await self._first_answer(game_id, seat, key, request_fingerprint, loaded, token)
                    if answered is not None:
                        return answered
                metrics.CONFLICTS.inc()
                loaded, fresh = await self._reloaded(game_id, result.snapshot), True
                self._same_seat(loaded, token, seat)
        raise aborted("TOO_MUCH_CONTENTION", "the game changed too often while moving; retry")

    def _same_seat(self, loaded: Loaded, token: str | None, seat: Seat) -> None:
        """Refuse a token that no longer holds ``seat`` in this newer state (a rejoin reissued it)."""
        if self.seat_of(loaded, token) != seat:
            raise unauthenticated("INVALID_SEAT_TOKEN", "the seat token does not belong to this game")

    def _check_in_time(self, loaded: Loaded, seat: Seat, arrived: int) -> None:
        """FAILED_PRECONDITION ``TIME_RUN_OUT`` for a move of a seat whose decision's time has
        run out (by the replicas' shared clock): its bot makes that decision. Before, a move
        that came after its deadline was taken or refused by when the deadline runner's next
        poll fell (up to a quarter of a second later). An absent seat's move is its player's
        return, and is taken, unless it makes the decision whose time ran out before its player
        left (``table.left_overdue``). ``arrived``: when the move came (it may have waited for the
        game's lock behind a bot's thinking floor); 0 at a table without a clock."""
        stored_seat = loaded.stored.seats[seat]
        if arrived and (
            table.left_overdue(loaded.stored.table, stored_seat)
            if stored_seat.absent
            else 0 < stored_seat.deadline_ms <= arrived
        ):
            raise precondition("TIME_RUN_OUT", "this seat's time for its decision ran out: its bot makes the decision")

    @staticmethod
    def _check_expected(loaded: Loaded, request: game_service_pb2.SubmitMoveRequest) -> None:
        if request.HasField("expected_version") and request.expected_version != loaded.version:
            raise aborted(
                "STALE_VERSION",
                f"the game is at version {loaded.version}, not {request.expected_version}",
                {"version": str(loaded.version)},
            )

    def _advance(
        self, loaded: Loaded, seat: Seat, move: Any, move_proto: game_pb2.Move, by_bot: bool = False, arrived: int = 0
    ) -> tuple[Loaded, storage_pb2.LogEntry, int, list[storage_pb2.StoredEvent]]:
        """The game after ``seat``'s move, its log entry, its earliest pending deadline (0 for
        none), which the table's clocks work out anyway, and the entry's events as a list: the
        answer to the move filters them, and a list is cheaper to walk than a repeated field.
        A player's move from an absent seat brings it back: the entry's first event says so
        (CHANGE_RETURNED), as ReturnToGame's would. ``arrived``: when the move came, at a table
        with a clock (its decision's time ends then, not after a wait for the game)."""
        stored, game = loaded.stored, loaded.game
        if stored.status == game_pb2.GAME_STATUS_OPEN:
            raise precondition("GAME_NOT_STARTED", "the game starts when every seat is taken")
        if stored.status == game_pb2.GAME_STATUS_FINISHED:
            raise precondition("GAME_OVER", "the game is over")
        rng = Rng(stored.seed, stored.rng_counter)
        try:
            state, events = game.apply(loaded.state, seat, move, rng)
        except EngineError as error:
            raise ServiceError.from_engine(error) from None
        version = stored.version + 1
        new = storage_pb2.StoredGame()
        new.CopyFrom(stored)
        new.version = version
        new.rng_counter = rng.counter
        engine_state = new.engine_state = game.dump_state(state)
        if game.is_over(state):
            new.status = game_pb2.GAME_STATUS_FINISHED
        returned = False
        if not by_bot:
            place = new.seats[seat]
            place.timeouts = 0
            if place.absent:  # a player who moves is at the table again, as ReturnToGame says
                place.absent, returned = False, True
        due = table.settle(new, game.to_act(state), seat, self._now_ms(), is_side_move(game, move, loaded.state), arrived)
        # Fields set one by one: the keyword constructor costs a third more.
        entry = storage_pb2.LogEntry()
        entry.version = version
        entry.seat = seat
        entry.move_public = game.move_is_public(move)
        entry.state_digest = hashlib.sha256(engine_state).hexdigest()  # the bytes in hand, not a copy read back
        entry.move.CopyFrom(move_proto)
        stored_events = []
        if returned:
            table.changed_event(entry, seat, game_pb2.SeatChanged.CHANGE_RETURNED, place.display_name)
            stored_events.append(entry.events[-1])
        for event in events:
            stored_event = entry.events.add()
            visibility.fill_stored_event(stored_event, game, event, version, seat)
            stored_events.append(stored_event)
        return Loaded(new, game, state, loaded.token_seats), entry, due, stored_events

    @staticmethod
    def _answer(
        version: int, events: Iterable[storage_pb2.StoredEvent], seat: Seat
    ) -> game_service_pb2.SubmitMoveResponse:
        """The answer to ``seat``'s move that made ``version`` with ``events`` (its log entry's)."""
        response = game_service_pb2.SubmitMoveResponse()
        response.version = version  # not a keyword of the constructor, which costs twice as much
        for stored in events:
            event = visibility.event_for(stored, seat, reveal_all=False)
            if event is not None:
                response.events.append(event)
        return response

    async def _first_answer(
        self, game_id: str, seat: Seat, key: str, request_fingerprint: str, loaded: Loaded, token: str | None
    ) -> game_service_pb2.SubmitMoveResponse | None:
        """The answer a request id of ``seat`` recorded first, for the token that holds the seat
        in ``loaded``. A step recorded after ``loaded`` may be another holder's: move request ids
        are kept per seat, and a former holder whose replica read the game before a takeover (or
        whose call read it just before one, on another replica) got the new holder's answer,
        its private events too, or learnt by REQUEST_ID_REUSED which move it was not. So the
        token is checked on the latest state first (INVALID_SEAT_TOKEN)."""
        recorded = await self.store.recorded(game_id, key)
        if recorded is None:
            return None
        if recorded.version > loaded.version:
            self._same_seat(await self._load_fresh(game_id), token, seat)
        _same_request(recorded.fingerprint, request_fingerprint)
        entry = await self.store.log_entry(game_id, recorded.version)
        if entry is None:
            return None
        return self._answer(entry.version, entry.events, seat)

    async def history(
        self, request: game_service_pb2.GetHistoryRequest, token: str | None
    ) -> game_service_pb2.GetHistoryResponse:
        """One page of the caller's filtered log, the steps after ``request.after_version``
        oldest first; everything once the game is over.

        A game's log has no bound on its length, so only the page is read from Redis, in one
        round trip with the game's snapshot after it: every entry of the page is of a version
        the snapshot has reached, so the page and ``revealed`` agree. Only the stored record's
        version, status and seat token hashes are used: the engine state is never decoded."""
        size = request.page_size or DEFAULT_HISTORY_PAGE_SIZE
        if not 0 < size <= MAX_HISTORY_PAGE_SIZE:
            raise invalid("BAD_PAGE_SIZE", f"page_size must be 0 to {MAX_HISTORY_PAGE_SIZE} (0: {DEFAULT_HISTORY_PAGE_SIZE})")
        after = request.after_version
        if after < 0:
            raise invalid("BAD_AFTER_VERSION", "after_version must be 0 or more")
        _check_game_id(request.game_id)
        entries, stored = await self.store.history_page(request.game_id, after, size)
        if stored is None:
            raise not_found("GAME_NOT_FOUND", f"no game {request.game_id}")
        seat = self.seat_in(stored, token)
        if after > stored.version:
            raise ServiceError(
                grpc.StatusCode.OUT_OF_RANGE,
                "AFTER_VERSION_AHEAD",
                f"the game is at version {stored.version}; after_version must not be beyond it",
                {"version": str(stored.version)},
            )
        reveal = stored.status == game_pb2.GAME_STATUS_FINISHED
        response = game_service_pb2.GetHistoryResponse(version=stored.version, revealed=reveal)
        for entry in entries:
            response.entries.append(visibility.entry_for(entry, seat, reveal))
        # Entries run in version order, so the last one is where the next page starts; a page
        # that reads nothing ends the walk even if versions are missing from the log.
        if entries and entries[-1].version < stored.version:
            response.next_after_version = entries[-1].version
        return response

    def watch(
        self, game_id: str, token: str | None, from_version: int, client: str = "local"
    ) -> AsyncIterator[game_service_pb2.WatchGameResponse]:
        """Every step after ``from_version``, then each new one as it is committed, on any replica.

        ``client`` names the caller for the per-client stream cap (``service/limits.py``); the
        streams of one replica share their reads (``service/watch.py``).
        """
        return self.watchers.watch(game_id, token, from_version, client)

    async def list_games(self, request: game_service_pb2.ListGamesRequest) -> game_service_pb2.ListGamesResponse:
        """The lobby, newest first, filtered by kind and status, paginated (``service/lobby.py``:
        a filtered page reads only its filter's games, and no call reads more than a bounded
        number of lobby entries)."""
        size = request.page_size or DEFAULT_PAGE_SIZE
        if not 0 < size <= MAX_PAGE_SIZE:
            raise invalid("BAD_PAGE_SIZE", f"page_size must be 0 to {MAX_PAGE_SIZE} (0: {DEFAULT_PAGE_SIZE})")
        return await lobby_page(self.store, request, size)

    @staticmethod
    def _rules_version(kind: str) -> str:
        """The rules version of ``kind``'s content, recorded by every game created here."""
        catalogue = get_catalogue(kind)
        return catalogue.rules_version if catalogue is not None else ""

    def get_kind(self, kind: str) -> game_service_pb2.GetGameKindResponse:
        """The kind with its whole catalogue and content version (shared: do not change it)."""
        from hustings.service.catalogue import kind_answer  # the catalogue room, kept out of the host's imports

        return kind_answer(kind)
