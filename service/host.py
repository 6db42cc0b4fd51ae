"""The game host: the application layer between the API faces (gRPC, REST) and the store.

Every handler is thin: authenticate, load, check, run the engine, commit atomically (one Lua
call), publish. Views are built only by ``_view`` from the game's own ``view`` function; events
and history are filtered only by ``visibility``.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import re
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, AsyncIterator, Callable

import grpc
import structlog

from hustings.engine import EngineError, Game, Rng, Seat, games, get_game, seed_commitment, state_digest
from hustings.service import metrics, visibility
from hustings.service.errors import (
    ServiceError,
    aborted,
    exhausted,
    invalid,
    not_found,
    precondition,
    unauthenticated,
)
from hustings.service.notifier import Notifier
from hustings.service.store import Store
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2, game_service_pb2

log = structlog.get_logger("hustings.host")

GAME_ID_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
REQUEST_ID_RE = re.compile(r"^[\x21-\x7e]{1,64}$")
MAX_DISPLAY_NAME = 40
MAX_COMMIT_ATTEMPTS = 8
WATCH_POLL_S = 2.0
DEFAULT_PAGE_SIZE = 50
MAX_PAGE_SIZE = 200
LOBBY_SCAN_LIMIT = 5000


@dataclass(frozen=True)
class Loaded:
    """A decoded game: its stored record, its rules and its engine state (never mutated)."""

    stored: storage_pb2.StoredGame
    game: Game[Any, Any, Any]
    state: Any

    @property
    def version(self) -> int:
        """The version of the snapshot."""
        return self.stored.version


def token_hash(token: str) -> str:
    """The stored form of a seat token."""
    return hashlib.sha256(token.encode()).hexdigest()


def _check_game_id(game_id: str) -> None:
    if not GAME_ID_RE.fullmatch(game_id):
        raise invalid("BAD_GAME_ID", "game_id must be 1 to 64 letters, digits, '-' or '_'")


def _check_request_id(request_id: str, required: bool) -> None:
    if not request_id:
        if required:
            raise invalid("MISSING_REQUEST_ID", "request_id is required (1 to 64 printable characters)")
        return
    if not REQUEST_ID_RE.fullmatch(request_id):
        raise invalid("BAD_REQUEST_ID", "request_id must be 1 to 64 printable ASCII characters without spaces")


class GameHost:
    """Creates, loads and advances games stored in Redis."""

    def __init__(
        self,
        store: Store,
        notifier: Notifier,
        *,
        allow_client_seed: bool = False,
        cache_size: int = 4096,
        max_watchers: int = 10_000,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.notifier = notifier
        self.allow_client_seed = allow_client_seed
        self.max_watchers = max_watchers
        self.closing = False
        self._cache: OrderedDict[str, Loaded] = OrderedDict()
        self._cache_size = cache_size
        self._clock = clock

    def begin_shutdown(self) -> None:
        """Stop accepting new streams and end the open ones (they tell clients to reconnect)."""
        self.closing = True
        self.notifier.wake_all()

    # --- loading ------------------------------------------------------------------------------
    def _decode(self, stored: storage_pb2.StoredGame) -> Loaded:
        game = get_game(stored.kind)
        if game is None:
            raise ServiceError(grpc.StatusCode.INTERNAL, "UNKNOWN_STORED_KIND", "stored game of an unknown kind")
        return Loaded(stored, game, game.load_state(stored.engine_state))

    def _remember(self, loaded: Loaded) -> Loaded:
        game_id = loaded.stored.game_id
        self._cache[game_id] = loaded
        self._cache.move_to_end(game_id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return loaded

    def _adopt(self, stored: storage_pb2.StoredGame) -> Loaded:
        """A decoded game for ``stored``, reusing the cached decoding when the version matches."""
        cached = self._cache.get(stored.game_id)
        if cached is not None and cached.version == stored.version:
            return cached
        return self._remember(self._decode(stored))

    async def _load_fresh(self, game_id: str) -> Loaded:
        _check_game_id(game_id)
        stored = await self.store.load(game_id)
        if stored is None:
            raise not_found("GAME_NOT_FOUND", f"no game {game_id}")
        return self._adopt(stored)

    # --- auth ---------------------------------------------------------------------------------
    @staticmethod
    def seat_of(loaded: Loaded, token: str | None) -> Seat | None:
        """The seat a token belongs to; None for no token (a spectator)."""
        if not token:
            return None
        digest = token_hash(token)
        for seat in loaded.stored.seats:
            if seat.token_sha256 and hmac.compare_digest(seat.token_sha256, digest):
                return seat.seat
        raise unauthenticated("INVALID_SEAT_TOKEN", "the seat token does not belong to this game")

    # --- views --------------------------------------------------------------------------------
    def _view(self, loaded: Loaded, seat: Seat | None) -> game_pb2.GameView:
        stored, game, state = loaded.stored, loaded.game, loaded.state
        finished = stored.status == game_pb2.GAME_STATUS_FINISHED
        view = game_pb2.GameView(
            game_id=stored.game_id,
            kind=stored.kind,
            version=stored.version,
            status=stored.status,
            seed_commitment=seed_commitment(stored.seed),
        )
        view.options.CopyFrom(stored.options)
        if seat is not None:
            view.seat = seat
        for s in stored.seats:
            view.seats.add(seat=s.seat, display_name=s.display_name, taken=bool(s.token_sha256))
        if stored.status == game_pb2.GAME_STATUS_ACTIVE:
            acting = game.to_act(state)
            view.to_act.extend(sorted(acting))
            if seat is not None:  # what it owes, or moves allowed at any time (deals)
                for move in game.legal_moves(state, seat):
                    game.move_to_proto(move, view.legal_moves.add())
        if finished:
            view.seed = stored.seed.hex()
            outcome = game.outcome(state)
            if outcome is not None:
                for p in outcome.placings:
                    placing = view.outcome.placings.add(rank=p.rank, name=p.name, score=p.score, detail=p.detail)
                    if p.seat is not None:
                        placing.seat = p.seat
        game.view_to_proto(game.view(state, seat), view)
        return view

    def _summary(self, stored: storage_pb2.StoredGame) -> game_pb2.GameSummary:
        summary = game_pb2.GameSummary(
            game_id=stored.game_id,
            kind=stored.kind,
            status=stored.status,
            version=stored.version,
            created_at=stored.created_at,
        )
        for s in stored.seats:
            summary.seats.add(seat=s.seat, display_name=s.display_name, taken=bool(s.token_sha256))
        return summary

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
        """A new game, open for joining."""
        game = get_game(request.kind)
        if game is None:
            raise invalid("UNKNOWN_KIND", f"unknown game kind {request.kind[:40]!r}; see ListGameKinds")
        _check_request_id(request.request_id, required=False)
        try:
            options = game.options_from_proto(request.options)
            seats = game.seat_count(options)
            seed = self._seed(request.seed)
            rng = Rng(seed)
            state = game.setup(options, rng)
        except EngineError as error:
            raise ServiceError.from_engine(error) from None
        for _attempt in range(MAX_COMMIT_ATTEMPTS):
            game_id = self._new_game_id(request.request_id)
            stored = storage_pb2.StoredGame(
                game_id=game_id,
                kind=game.info.kind,
                version=1,
                status=game_pb2.GAME_STATUS_OPEN,
                seed=seed,
                rng_counter=rng.counter,
                engine_state=game.dump_state(state),
                created_at=int(self._clock()),
                content_version=self.get_kind(game.info.kind).content_version,
            )
            stored.options.CopyFrom(request.options)
            for seat in range(seats):
                stored.seats.add(seat=seat)
            entry = storage_pb2.LogEntry(version=1, seat=-1, state_digest=state_digest(game, state))
            result = await self.store.commit(stored, 0, entry)
            if result.status == "OK":
                loaded = self._remember(Loaded(stored, game, state))
                await self.store.index(self._summary(stored))
                log.info("game_created", game_id=game_id, kind=game.info.kind, seats=seats)
                return game_service_pb2.CreateGameResponse(game_id=game_id, view=self._view(loaded, None))
            if request.request_id:
                # The same request id already created this game: answer as the first time.
                loaded = await self._load_fresh(game_id)
                return game_service_pb2.CreateGameResponse(game_id=game_id, view=self._view(loaded, None))
        raise ServiceError(grpc.StatusCode.UNAVAILABLE, "ID_COLLISION", "could not allocate a game id; retry")

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

    @staticmethod
    def _new_game_id(request_id: str) -> str:
        if request_id:
            digest = hashlib.sha256(b"create:" + request_id.encode()).digest()
            return "g" + digest[:12].hex()
        return "g" + secrets.token_hex(12)

    async def join_game(self, request: game_service_pb2.JoinGameRequest) -> game_service_pb2.JoinGameResponse:
        """Take a seat; the game starts when the last seat is taken."""
        name = request.display_name.strip()
        if not name or len(name) > MAX_DISPLAY_NAME or not name.isprintable():
            raise invalid("BAD_DISPLAY_NAME", f"display_name must be 1 to {MAX_DISPLAY_NAME} printable characters")
        _check_request_id(request.request_id, required=False)
        loaded = await self._load_fresh(request.game_id)
        request_field = f"join:{request.request_id}" if request.request_id else ""
        for _attempt in range(MAX_COMMIT_ATTEMPTS):
            if request_field:
                first = await self.store.request_version(request.game_id, request_field)
                if first is not None:
                    return await self._rejoin(request.game_id, first)
            stored = loaded.stored
            if stored.status != game_pb2.GAME_STATUS_OPEN:
                raise precondition("GAME_FULL", "every seat of this game is taken")
            free = [s.seat for s in stored.seats if not s.token_sha256]
            if request.HasField("seat"):
                if not 0 <= request.seat < len(stored.seats):
                    raise invalid("BAD_SEAT", f"seat must be 0 to {len(stored.seats) - 1}")
                if request.seat not in free:
                    raise precondition("SEAT_TAKEN", f"seat {request.seat} is taken")
                seat = request.seat
            else:
                seat = free[0]
            token = secrets.token_urlsafe(32)
            new = storage_pb2.StoredGame()
            new.CopyFrom(stored)
            new.version = stored.version + 1
            new.seats[seat].display_name = name
            new.seats[seat].token_sha256 = token_hash(token)
            started = all(s.token_sha256 for s in new.seats)
            if started:
                new.status = game_pb2.GAME_STATUS_ACTIVE
            entry = storage_pb2.LogEntry(version=new.version, seat=seat, state_digest=state_digest(loaded.game, loaded.state))
            event = entry.events.add(public=True)
            event.event.version = new.version
            event.event.seat = seat
            event.event.seat_taken.seat = seat
            event.event.seat_taken.display_name = name
            event.event.seat_taken.game_started = started
            result = await self.store.commit(new, stored.version, entry, request_field)
            if result.status == "OK":
                joined = self._remember(Loaded(new, loaded.game, loaded.state))
                await self.store.index(self._summary(new))
                log.info("seat_taken", game_id=new.game_id, seat=seat, version=new.version, started=started)
                return game_service_pb2.JoinGameResponse(seat=seat, seat_token=token, view=self._view(joined, seat))
            if result.status != "DUPLICATE":
                loaded = await self._reloaded(request.game_id, result.snapshot)
        raise aborted("TOO_MUCH_CONTENTION", "the game changed too often while joining; retry")

    async def _rejoin(self, game_id: str, first_version: int) -> game_service_pb2.JoinGameResponse:
        """Answer a retried JoinGame: the same seat with a fresh token (only hashes are kept,
        so the first token cannot be given again; it stops working)."""
        entry = await self.store.log_entry(game_id, first_version)
        if entry is None:
            raise ServiceError(grpc.StatusCode.INTERNAL, "LOG_ENTRY_MISSING", "the first join is not in the log")
        seat = entry.seat
        for _attempt in range(MAX_COMMIT_ATTEMPTS):
            loaded = await self._load_fresh(game_id)
            token = secrets.token_urlsafe(32)
            new = storage_pb2.StoredGame()
            new.CopyFrom(loaded.stored)
            new.version = loaded.version + 1
            new.seats[seat].token_sha256 = token_hash(token)
            step = storage_pb2.LogEntry(version=new.version, seat=seat, state_digest=state_digest(loaded.game, loaded.state))
            result = await self.store.commit(new, loaded.version, step)
            if result.status == "OK":
                rejoined = self._remember(Loaded(new, loaded.game, loaded.state))
                log.info("seat_token_reissued", game_id=game_id, seat=seat, version=new.version)
                return game_service_pb2.JoinGameResponse(seat=seat, seat_token=token, view=self._view(rejoined, seat))
        raise aborted("TOO_MUCH_CONTENTION", "the game changed too often while joining; retry")

    async def _reloaded(self, game_id: str, snapshot: bytes) -> Loaded:
        if not snapshot:
            return await self._load_fresh(game_id)
        stored = storage_pb2.StoredGame()
        stored.ParseFromString(snapshot)
        return self._adopt(stored)

    async def get_view(self, game_id: str, token: str | None) -> game_pb2.GameView:
        """The caller's view."""
        loaded = await self._load_fresh(game_id)
        return self._view(loaded, self.seat_of(loaded, token))

    async def submit_move(
        self, request: game_service_pb2.SubmitMoveRequest, token: str | None
    ) -> game_service_pb2.SubmitMoveResponse:
        """Apply the caller's move once, atomically."""
        _check_request_id(request.request_id, required=True)
        game_id = request.game_id
        cached = self._cache.get(game_id) if GAME_ID_RE.fullmatch(game_id) else None
        metrics.CACHE.labels("hit" if cached is not None else "miss").inc()
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
        request_field = f"{seat}:{request.request_id}"
        try:
            move = loaded.game.move_from_proto(request.move)
        except EngineError as error:
            raise ServiceError.from_engine(error) from None
        structlog.contextvars.bind_contextvars(game_id=game_id, seat=seat, request_id=request.request_id)
        fresh = cached is None
        for _attempt in range(MAX_COMMIT_ATTEMPTS):
            try:
                self._check_expected(loaded, request)
                new, entry = self._advance(loaded, seat, request, move)
            except ServiceError as error:
                if not fresh:
                    # The cached state may be stale: decide on the latest one.
                    loaded, fresh = await self._load_fresh(game_id), True
                    self._same_seat(loaded, token, seat)
                    continue
                answered = await self._first_answer(game_id, seat, request_field)
                if answered is not None:
                    return answered
                log.info("move_rejected", reason=error.reason, version=loaded.version)
                raise
            result = await self.store.commit(new.stored, loaded.version, entry, request_field)
            if result.status == "OK":
                self._remember(new)
                metrics.MOVES.labels(new.stored.kind).inc()
                if new.stored.status == game_pb2.GAME_STATUS_FINISHED:
                    await self.store.index(self._summary(new.stored))
                log.info("move_applied", version=new.version)
                return self._answer(entry, seat)
            if result.status == "DUPLICATE":
                answered = await self._first_answer(game_id, seat, request_field)
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

    @staticmethod
    def _check_expected(loaded: Loaded, request: game_service_pb2.SubmitMoveRequest) -> None:
        if request.HasField("expected_version") and request.expected_version != loaded.version:
            raise aborted(
                "STALE_VERSION",
                f"the game is at version {loaded.version}, not {request.expected_version}",
            )

    def _advance(
        self, loaded: Loaded, seat: Seat, request: game_service_pb2.SubmitMoveRequest, move: Any
    ) -> tuple[Loaded, storage_pb2.LogEntry]:
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
        new.engine_state = game.dump_state(state)
        if game.is_over(state):
            new.status = game_pb2.GAME_STATUS_FINISHED
        entry = storage_pb2.LogEntry(
            version=version,
            seat=seat,
            move_public=game.move_is_public(move),
            state_digest=hashlib.sha256(new.engine_state).hexdigest(),
            request_id=request.request_id,
        )
        entry.move.CopyFrom(request.move)
        for event in events:
            entry.events.append(visibility.store_event(game, event, version, seat))
        return Loaded(new, game, state), entry

    @staticmethod
    def _answer(entry: storage_pb2.LogEntry, seat: Seat) -> game_service_pb2.SubmitMoveResponse:
        response = game_service_pb2.SubmitMoveResponse(version=entry.version)
        for stored in entry.events:
            event = visibility.event_for(stored, seat, reveal_all=False)
            if event is not None:
                response.events.append(event)
        return response

    async def _first_answer(self, game_id: str, seat: Seat, request_field: str) -> game_service_pb2.SubmitMoveResponse | None:
        version = await self.store.request_version(game_id, request_field)
        if version is None:
            return None
        entry = await self.store.log_entry(game_id, version)
        if entry is None:
            return None
        return self._answer(entry, seat)

    async def history(self, game_id: str, token: str | None) -> game_service_pb2.GetHistoryResponse:
        """The caller's filtered log; everything once the game is over."""
        loaded = await self._load_fresh(game_id)
        seat = self.seat_of(loaded, token)
        entries = await self.store.log_entries(game_id, 0, loaded.version)
        reveal = loaded.stored.status == game_pb2.GAME_STATUS_FINISHED
        response = game_service_pb2.GetHistoryResponse()
        for entry in entries:
            response.entries.append(visibility.entry_for(entry, seat, reveal))
        return response

    async def watch(
        self, game_id: str, token: str | None, from_version: int
    ) -> AsyncIterator[game_service_pb2.WatchGameResponse]:
        """Every step after ``from_version``, then each new one as it is committed, on any replica."""
        if from_version < 0:
            raise invalid("BAD_FROM_VERSION", "from_version must be 0 or more")
        if self.notifier.watcher_count >= self.max_watchers:
            raise exhausted("TOO_MANY_WATCHERS", "this replica serves its maximum of streams; try another")
        loaded = await self._load_fresh(game_id)
        seat = self.seat_of(loaded, token)
        last = from_version
        with self.notifier.waiter(game_id) as wake:
            metrics.WATCHERS.inc()
            try:
                async for update in self._follow(game_id, token, seat, last, wake):
                    yield update
            finally:
                metrics.WATCHERS.dec()

    async def _follow(
        self, game_id: str, token: str | None, seat: Seat | None, last: int, wake: asyncio.Event
    ) -> AsyncIterator[game_service_pb2.WatchGameResponse]:
        while True:
            if self.closing:
                raise ServiceError(
                    grpc.StatusCode.UNAVAILABLE, "REPLICA_SHUTTING_DOWN", "this replica is stopping; reconnect to resume"
                )
            wake.clear()
            loaded = await self._load_fresh(game_id)
            if seat is not None:
                self._same_seat(loaded, token, seat)  # a reissued token ends the old holder's stream
            if loaded.version > last:
                entries = await self.store.log_entries(game_id, last, loaded.version)
                reveal = loaded.stored.status == game_pb2.GAME_STATUS_FINISHED
                update = game_service_pb2.WatchGameResponse(version=loaded.version)
                update.entries.extend(visibility.entry_for(e, seat, reveal) for e in entries)
                update.view.CopyFrom(self._view(loaded, seat))
                yield update
                last = loaded.version
            if loaded.stored.status == game_pb2.GAME_STATUS_FINISHED:
                return
            try:
                await asyncio.wait_for(wake.wait(), WATCH_POLL_S)
            except asyncio.TimeoutError:
                pass

    async def list_games(self, request: game_service_pb2.ListGamesRequest) -> game_service_pb2.ListGamesResponse:
        """The lobby, newest first, filtered by kind and status, paginated."""
        size = request.page_size or DEFAULT_PAGE_SIZE
        if not 0 < size <= MAX_PAGE_SIZE:
            raise invalid("BAD_PAGE_SIZE", f"page_size must be 1 to {MAX_PAGE_SIZE}")
        try:
            offset = int(request.page_token) if request.page_token else 0
        except ValueError:
            raise invalid("BAD_PAGE_TOKEN", "page_token must come from a previous response") from None
        if not 0 <= offset < 1 << 40:  # a real token counts lobby entries; a huge one would reach Redis as an error
            raise invalid("BAD_PAGE_TOKEN", "page_token must come from a previous response")
        response = game_service_pb2.ListGamesResponse()
        scanned = 0
        while len(response.games) < size and scanned < LOBBY_SCAN_LIMIT:
            batch = await self.store.lobby(offset, MAX_PAGE_SIZE)
            if not batch:
                offset = -1
                break
            for summary in batch:
                offset += 1
                scanned += 1
                if request.kind and summary.kind != request.kind:
                    continue
                if request.status and summary.status != request.status:
                    continue
                response.games.append(summary)
                if len(response.games) == size:
                    break
        if offset >= 0:
            response.next_page_token = str(offset)
        return response

    def get_kind(self, kind: str) -> game_service_pb2.GetGameKindResponse:
        """The kind with its whole catalogue and content version (shared: do not change it)."""
        from hustings.service.catalogue import kind_answer  # the catalogue room, kept out of the host's imports

        return kind_answer(kind)
