"""The seat lifecycle: leaving, returning, taking over an absent seat, bots in seats, and the
decisions that fall due (timeouts, bot seats, absent players).

Every change is a step like a move: computed on the latest snapshot, its next deadline indexed,
then one version-checked commit. So a timeout is applied exactly once, on whichever replica
claims it, and never after the seat moved in time (the move changed the version first).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import hmac
import math
import random
import re
import secrets
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

import grpc
import structlog
from redis.exceptions import RedisError

from hustings.ai.server import SERVER_DECISION_S
from hustings.engine import EngineError, Seat, names
from hustings.engine.base import is_side_move
from hustings.service import deadlines, metrics, table
from hustings.service.client_limits import current_creation, leave_committing
from hustings.service.open_tables import UNBOUNDED, Claim
from hustings.service.errors import ServiceError, aborted, exhausted, invalid, precondition, unauthenticated
from hustings.service.lobby import listing_changed
from hustings.service.server_secret import fingerprint
from hustings.service.unattended import UnattendedBudget
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2, game_service_pb2

if TYPE_CHECKING:
    from hustings.service.host import GameHost, Loaded
    from hustings.service.store import Recorded

log = structlog.get_logger("hustings.seats")

MAX_DUE_STEPS = 200  # per claim; a game of bots only continues at the next look
# Leaving and returning are steps of the log that no rule bounds (an open game's seat left and
# joined again, an active game's seat left and taken back): one client at its rate of calls grew a
# game by 300 steps a second, and every join kept an open game a day longer. So past these
# versions a game refuses them: an open game has no other steps than joins and leaves (a lobby
# table where people come and go a few hundred times stays under it), and the longest games seen,
# every side move made, take about 2,500 steps. A join, a move or a timeout is never refused.
MAX_OPEN_GAME_STEPS = 1_000
MAX_ACTIVE_GAME_SEAT_CHANGES_UP_TO = 20_000
# Levels that pick a legal move without evaluating any (0.1-0.3 ms, 2 ms at most, for every kind):
# they decide on the event loop, never waiting behind another table's thinking bots.
INSTANT_LEVELS = frozenset({"random"})
# A thinking bot's decision is committed no sooner than this after its thinking began. Its speed
# showed what its hidden hand allows: a strong bot with one legal move (a Wahlspiel run-off it
# cannot send a voter to) answered in 3 ms, with a choice after its search, 27-29 ms. The floor
# must outlast the thinking of a decision with a choice, or the lateness of such a decision shows
# it. A strong bot's search stops 50 ms short of its floor (``SEARCH_MARGIN_S``); beside two busy
# processes on two cores it ended at most 9 ms past its time. A greedy bot's longest decisions
# (The Spin Doctors' 924 Staffs, Stimmvieh's 126 top candidates, Wahlspiel's 73 moves) took up to
# 18 ms on an idle machine and often 20-40 ms beside two busy processes: at 20 ms, they were made
# public later than a forced move. On a slower machine of the same kind the Staff choice took
# 16-36 ms idle (median 17) and up to 60 ms beside two busy processes (median 34); since the
# heuristic keeps each Locality's gains (``hustings.ai.heuristics._spot_gains``), 11-25 ms idle
# (median 12) and up to 46 ms beside them (median 23). A slower floor costs each greedy decision its wait, a table of
# bots alone a step every 150 ms rather than 120.
THINKING_FLOOR_S = {"greedy": 0.05, "strong": SERVER_DECISION_S}
# On a machine starved for longer than that (a greedy choice 100 ms late), the floor no longer
# hid the thinking; so a level's floor on a replica rises to this much more than the slowest of
# its last decisions there (``ThinkingFloor``), forced moves waiting as long as choices take.
FLOOR_MARGIN = 1.25
FLOOR_MEMORY = 64  # decisions of a level a replica remembers the thinking time of


class ThinkingFloor:
    """How long a level's decisions wait, at least, from when their thinking began on this
    replica: ``base`` (``THINKING_FLOOR_S``), or ``FLOOR_MARGIN`` times the slowest of the last
    ``FLOOR_MEMORY`` thoughts when that is longer. A loaded replica thinks slower for every table:
    its forced moves then wait as long as its choices take, and only the first choice to run
    past the floor still shows (the rest follow it)."""

    def __init__(self, base: float, memory: int = FLOOR_MEMORY) -> None:
        self.base = base
        self._thoughts: collections.deque[float] = collections.deque(maxlen=memory)

    def after(self, thought_s: float) -> float:
        """Note a decision that thought ``thought_s``; how much longer it waits before it is
        made public."""
        self._thoughts.append(thought_s)
        return max(0.0, max(self.base, FLOOR_MARGIN * max(self._thoughts)) - thought_s)


Change = game_pb2.SeatChanged.Change
MAX_DISPLAY_NAME = 40  # characters
# How long a game that this build cannot play (its content retired) waits in the deadline index
# before a replica looks at it again: 1,000 such games looked at every poll took 59 % of a core of
# every replica and 12,000 Redis commands a second; at this pace they take 100 looks a second in
# all, and a game of a newer build that a replica of the older one claims during a rolling upgrade
# is put off by this long each time such a replica claims it.
UNPLAYABLE_LOOK_AGAIN_MS = 10_000


def bot_rng(stored: storage_pb2.StoredGame, seat: Seat) -> random.Random:
    """The randomness of a server bot's decision for ``seat`` in the game's step after
    ``stored.version``: a keyed hash of the game's secret seed, apart from the stream that deals
    its cards (a bot's draws never follow the deal's). A game whose creator chose its seed
    (``--allow-client-seed``) then plays out the same every time with the same moves from its
    players, bots included (a strong bot's search runs its iterations unless its time runs out
    first); a decision decided again after a conflict draws the same."""
    digest = hmac.new(stored.seed, b"hustings bot decision %d %d" % (stored.version, seat), "sha256").digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


class SeatLifecycle:
    """Seat changes and due decisions for the games of one host."""

    def __init__(self, host: "GameHost", unattended: UnattendedBudget | None = None) -> None:
        self.host = host
        self.unattended = UnattendedBudget() if unattended is None else unattended
        # One thinking place per searching level: a table's greedy bots wait behind greedy
        # decisions only, never behind another client's tables of strong bots.
        self._thinking = {level: ThinkingPlace() for level in table.BOT_LEVELS if level not in INSTANT_LEVELS}
        self.floors = {level: ThinkingFloor(base) for level, base in THINKING_FLOOR_S.items()}

    # --- due decisions --------------------------------------------------------------------------
    async def apply_due_quietly(self, game_id: str) -> None:
        """``apply_due``, logging failures (the deadline index still holds the game)."""
        try:
            await self.apply_due(game_id)
        except (RedisError, ServiceError, EngineError) as error:
            log.warning("due_decision_deferred", game_id=game_id, cause=type(error).__name__)

    async def apply_due(self, game_id: str) -> tuple[int, int]:
        """Make every decision of ``game_id`` that is due now; returns the game's next deadline
        (0 for none) and the version it last saw."""
        host = self.host
        # A quarter of the claim's lease at most: a longer pass (slow bots) would let another
        # replica claim the game as well and compute the same decisions again. The caller
        # looks again at once (the index still holds the game's deadline).
        budget_s = deadlines.LEASE_MS / 4000
        started = time.monotonic()
        for step in range(MAX_DUE_STEPS):
            if step and time.monotonic() - started > budget_s:
                break
            outcome = await self._due_step(game_id, None)
            if isinstance(outcome, _Think):
                # A bot that thinks takes its level's thinking place first, and the game's lock
                # only then: waiting behind other tables' thinking bots while holding the lock
                # made every move to this game wait as long (and, past a claim's lease, the bot
                # then thought for a game another replica had moved on). Holding the place, the
                # step reads the game afresh. A table with a person at it goes before the
                # tables nobody is at: within their budget these kept the strong place busy,
                # and a person's strong bots waited 1.5-2.7 s for two decisions, not 0.4 s.
                # The wait is bounded by half the claim's lease: a game claimed behind a long
                # queue is handed back due (any replica's next poll takes it, one with an idle
                # place first) rather than decided by two replicas once its lease ran out.
                wait_s = deadlines.LEASE_MS / 2000 - (time.monotonic() - started)
                try:
                    async with _Place(self._thinking[outcome.level], first=not outcome.unattended, wait_s=wait_s) as place:
                        outcome = await self._due_step(game_id, outcome.level, place)
                except _NoPlace:
                    metrics.THINKING_PLACE_GIVEN_UP.inc()
                    return host._now_ms(), 0
                if isinstance(outcome, _Think):
                    continue  # the seat due now has a bot of another level (rare): ask again
            if isinstance(outcome, tuple):
                return outcome
            committed = outcome.committed
            if committed is not None:
                # The lobby shows seats and status: a plain bot decision changes neither.
                await host._after_commit(committed, kick=False, index=outcome.listed)
                next_due = table.next_due(committed.stored)
                if next_due > host._now_ms() and table.all_bots(committed.stored):
                    # A table of bots alone is paced: its next decision is a pace away, or
                    # later, at the turn it books now in this replica's budget for such
                    # tables (booked here, it costs no look of its own). This replica wakes
                    # it then; the index's look, which the step's commit left at the decision
                    # just made, moves there too (only later: a lease or a later look stands),
                    # else every poll would claim the game as well.
                    wait_s = self.unattended.book(game_id, self._next_level(committed, next_due))
                    if wait_s:
                        metrics.UNATTENDED_WAITS.inc()
                        next_due = max(next_due, host._now_ms() + math.ceil(wait_s * 1000))
                    self._wake_at(game_id, next_due)
                    await host.deadlines.postpone(game_id, next_due)
                    return next_due, committed.version
        return host._now_ms(), 0

    async def _due_step(self, game_id: str, level: str | None, place: "_Place | None" = None) -> "tuple[int, int] | _Think | _Decided":
        """One due decision of ``game_id``, under the game's lock, with the thinking ``place``
        of ``level`` held (None: none). Returns the answer of ``apply_due`` when there is
        nothing (more) to decide now, the thinking place the due bot needs first (its level,
        and whether nobody is at the table), or the decision made (its commit None when
        another step came first)."""
        host = self.host
        async with host._game_lock(game_id):
            try:
                stored = await host._stored(game_id)
            except ServiceError:
                return 0, 0  # gone (expired)
            try:
                loaded = host._adopt(stored)
            except ServiceError:
                # There, but this build cannot play it (its content retired, its kind unknown):
                # looked at again only after a while, not at every poll of every replica until
                # it expires (a retention after its last step); a replica of another build that
                # can play it (during a rolling upgrade) then finds it due.
                return host._now_ms() + UNPLAYABLE_LOOK_AGAIN_MS, stored.version
            if stored.status != game_pb2.GAME_STATUS_ACTIVE:
                return 0, stored.version
            now = host._now_ms()
            due = table.due_seats(stored, loaded.game.to_act(loaded.state), now)
            if not due:
                return table.next_due(stored), stored.version
            due_level = _level(stored, due[0])
            unattended = table.unattended(stored)
            if due_level not in INSTANT_LEVELS and due_level != level:
                return _Think(due_level, unattended)
            # The budget for tables nobody is at is asked when the decision is about to be made
            # (a thinking bot holding its place): a wait for the place that is given up costs none.
            if unattended:
                wait_s = self.unattended.wait_s(game_id, due_level)
                if wait_s:
                    # Past this replica's budget for tables nobody is at: the decision waits for
                    # its turn, here and in the index (for the replicas that poll it), and
                    # nothing else changes.
                    turn = now + math.ceil(wait_s * 1000)
                    metrics.UNATTENDED_WAITS.inc()
                    self._wake_at(game_id, turn)
                    await host.deadlines.postpone(game_id, turn)
                    return turn, stored.version
            return await self._decide_for(loaded, due[0], now, due_level, place)

    @staticmethod
    def _next_level(loaded: "Loaded", due_ms: int) -> str:
        """The level of the bot whose decision falls due first (at ``due_ms``)."""
        due = table.due_seats(loaded.stored, loaded.game.to_act(loaded.state), due_ms)
        return _level(loaded.stored, due[0]) if due else table.check_level(loaded.stored.table.bot_level)

    def _wake_at(self, game_id: str, due_ms: int) -> None:
        """Apply ``game_id``'s decisions at ``due_ms`` on this replica, so that a paced table of
        bots keeps its pace rather than waiting for the next poll of the deadline index (which
        still holds the game, should this replica stop)."""
        delay_s = max(0.0, (due_ms - self.host._now_ms()) / 1000)
        self.host.deadline_runner.later(game_id, delay_s, lambda: self.apply_due_quietly(game_id))

    async def _decide_for(self, loaded: "Loaded", seat: Seat, now: int, level: str, place: "_Place | None" = None) -> "_Decided":
        """The due decision of ``seat``'s bot of ``level`` (its thinking ``place`` held by the
        caller for a level that thinks, and given up once the bot has thought), committed (None
        when another step came first)."""
        host, game = self.host, loaded.game
        stored_seat = loaded.stored.seats[seat]
        # A player who left after the deadline had passed ran out of time all the same.
        timed_out = not table.bot_decides(stored_seat) or (
            stored_seat.absent and not stored_seat.bot and table.left_overdue(loaded.stored.table, stored_seat)
        )
        stand_in = not stored_seat.bot  # a player's seat: only the decision owed is made for it
        rng = bot_rng(loaded.stored, seat)
        if level in INSTANT_LEVELS:
            move = table.bot_move(game, loaded.state, seat, level, rng, stand_in)  # a pick from the list: at once
        else:
            # A bot that evaluates or searches may think for a while: off the event loop, one
            # decision at a time per level and replica (``apply_due`` holds the place), so that
            # every other call of this replica keeps being served meanwhile.
            began = time.monotonic()
            move = await asyncio.to_thread(table.bot_move, game, loaded.state, seat, level, rng, stand_in)
            if place is not None:
                place.release()  # the next table's bot of this level thinks while this one waits
            floor = self.floors.get(level)
            await asyncio.sleep(floor.after(time.monotonic() - began) if floor is not None else 0.0)
        move_proto = game_pb2.Move()
        game.move_to_proto(move, move_proto)
        new, entry, _due, _events = host._advance(loaded, seat, move, move_proto, by_bot=True)  # settled again below
        changed = new.stored.seats[seat]
        changed.bot_played = True
        # A side move (a hand-over, an item drafted into an offer) ends no decision and leaves the
        # seat due: its timeout counts once, with the move that ends the decision in a later step.
        if timed_out and not is_side_move(game, move, loaded.state):
            changed.timeouts += 1
            table.changed_event(entry, seat, Change.CHANGE_TIMED_OUT, changed.display_name)
            if not changed.absent and changed.timeouts >= table.absent_after(new.stored.table):
                changed.absent = True
                table.changed_event(entry, seat, Change.CHANGE_ABSENT, changed.display_name)
            table.settle(new.stored, game.to_act(new.state), None, now)
        # The step's next deadline is not indexed here, as a plain step's is (moved earlier
        # only): under a claim, with other seats still due, that would pull the claim back to
        # "due now" and another replica would take the game and decide the same seats again.
        # The index already looks at the game no later than now (a kick's step, a wake) or at
        # the claim's lease, whose release indexes the next deadline; a replica that stops
        # meanwhile leaves the game to the next poll or to the lease's end.
        listed = listing_changed(loaded.stored, new.stored)
        result = await self._commit(new, loaded, entry, listed=listed, index=False)
        if result:
            metrics.MOVES.labels(new.stored.kind).inc()
            log.info("due_decision_made", game_id=new.stored.game_id, seat=seat, timed_out=timed_out, version=new.version)
            return _Decided(new, listed)
        return _Decided(None, listed)

    # --- leaving, returning, taking over, bots ------------------------------------------------
    async def leave(self, game_id: str, token: str | None) -> game_service_pb2.LeaveGameResponse:
        """The caller leaves: an active game's seat becomes absent (its bot plays); in an open
        game the seat is freed. The decision it leaves is charged up to when the leave came, as a
        move is judged by when it came: a leave that waited for the game's lock (behind a bot's
        thinking floor, a slow commit) past the deadline left in time."""
        arrived = self.host._now_ms()

        def change(stored: storage_pb2.StoredGame, seat: Seat, entry: storage_pb2.LogEntry) -> None:
            place = stored.seats[seat]
            name = place.display_name  # the event names who left, also when the seat is freed
            if stored.status == game_pb2.GAME_STATUS_OPEN:
                place.display_name = ""
                place.token_sha256 = ""
            else:
                table.charge_bank(stored, place, arrived)
                place.absent = True
            table.changed_event(entry, seat, Change.CHANGE_LEFT, name)

        def freed(loaded: "Loaded", seat: Seat) -> Any:
            # A freed seat keeps nothing its leaver chose (a Wahlspiel party's name and colour):
            # the next player would play under it, and a colour would stay taken for nobody.
            free_party = getattr(loaded.game, "free_party", None)
            if loaded.stored.status != game_pb2.GAME_STATUS_OPEN or free_party is None:
                return None
            return free_party(loaded.state, seat)

        loaded, seat = await self._change(game_id, token, change, lambda s: not s.absent, "ALREADY_ABSENT", freed, committing=leave_committing)
        return game_service_pb2.LeaveGameResponse(view=await self.host._answer_view(loaded, seat))

    async def return_(self, game_id: str, token: str | None) -> game_service_pb2.ReturnToGameResponse:
        """The caller comes back to its absent seat."""

        def change(stored: storage_pb2.StoredGame, seat: Seat, entry: storage_pb2.LogEntry) -> None:
            place = stored.seats[seat]
            place.absent = False
            place.timeouts = 0
            # A decision it still owes keeps the clock it began with: leaving and coming back
            # must not buy a seat a fresh decision time (its bot may not have decided yet, say
            # while it thinks on another replica). A decision its bot made while it was away
            # began a new one then, with its own clock.
            table.changed_event(entry, seat, Change.CHANGE_RETURNED, place.display_name)

        loaded, seat = await self._change(game_id, token, change, lambda s: s.absent, "NOT_ABSENT", returning=True)
        return game_service_pb2.ReturnToGameResponse(view=await self.host._answer_view(loaded, seat))

    async def _change(
        self,
        game_id: str,
        token: str | None,
        change: Callable[[storage_pb2.StoredGame, Seat, storage_pb2.LogEntry], None],
        allowed: Callable[[storage_pb2.StoredSeat], bool],
        refusal: str,
        rules: Callable[["Loaded", Seat], Any] | None = None,
        returning: bool = False,
        committing: Callable[[], None] | None = None,
    ) -> tuple["Loaded", Seat | None]:
        """Apply ``change`` to the caller's seat as a table step; a player ``returning`` is at
        the table again, and noted present with the step. ``committing``: called as the step's
        commit goes out (a leave's charge). Returns the game and the caller's seat (None where
        the call's token no longer holds one)."""
        host = self.host
        sent: storage_pb2.LogEntry | None = None  # the last step this call committed and heard refused
        async with host._game_lock(game_id):
            for _attempt in range(8):
                loaded = await host._load_fresh(game_id)
                if sent is not None and await self._landed(game_id, sent):
                    # The commit ran although its reply was lost (the commits' connection resent
                    # it, and the resend met its own step): the call's one attempt was applied.
                    # These calls carry no request id to be answered by, and were refused
                    # ALREADY_ABSENT or NOT_ABSENT for a change they made (or, leaving an open
                    # game, which frees the seat, refused the token the leave had retired). What
                    # follows a commit follows it here too; the answer shows the seat only if the
                    # token still holds it (a later step may have given it to somebody else).
                    await host._after_resent_commit(loaded)
                    try:
                        return loaded, host.seat_of(loaded, token)
                    except ServiceError:
                        return loaded, None
                seat = host.seat_of(loaded, token)
                if seat is None:
                    raise unauthenticated("SEAT_TOKEN_REQUIRED", "this call needs a seat token")
                if loaded.stored.status == game_pb2.GAME_STATUS_FINISHED:
                    raise precondition("GAME_OVER", "the game is over")
                if not allowed(loaded.stored.seats[seat]):
                    raise precondition(refusal, "the seat is not in a state for this")
                if not returning:
                    # A return is always taken: it ends an absence that a leave (bounded here) or
                    # two timeouts (each a decision of the game) began. Bounded too, one seat's
                    # leaves and returns used the game's bound up, and every absent seat was then
                    # locked out for the rest of the game.
                    _refuse_past_seat_changes(loaded.stored)
                new, entry = self._table_step(loaded, seat, None if rules is None else rules(loaded, seat))
                change(new.stored, seat, entry)
                if committing is not None:
                    committing()
                if await self._commit(new, loaded, entry, present=seat if returning else None):
                    await host._after_commit(new)
                    return new, seat
                sent = entry
        raise aborted("TOO_MUCH_CONTENTION", "the game changed too often; retry")

    async def _landed(self, game_id: str, entry: storage_pb2.LogEntry) -> bool:
        """Whether the game's log holds ``entry`` at its version, as this call wrote it."""
        found = await self.host.store.log_entry(game_id, entry.version)
        return found is not None and found.SerializeToString(deterministic=True) == entry.SerializeToString(deterministic=True)

    async def take_over(self, request: game_service_pb2.TakeOverSeatRequest) -> game_service_pb2.TakeOverSeatResponse:
        """A newcomer takes an absent seat (where the table allows it) with a fresh token."""
        host = self.host
        name = display_name(request.display_name)
        if not request.request_id:
            raise invalid("MISSING_REQUEST_ID", "request_id is required (1 to 64 printable characters)")
        game_id = request.game_id
        key = host.keys.request_key(f"{game_id}:takeover", request.request_id)
        token = host.keys.join_token(game_id, "takeover\x00" + request.request_id)
        wanted = fingerprint(b"takeover", str(request.seat).encode(), name.encode())
        unsure: tuple[Claim, str] | None = None  # an attempt's seat, not counted: its commit was refused
        async with host._game_lock(game_id):
            for _attempt in range(8):
                loaded = await host._load_fresh(game_id)
                stored = loaded.stored
                recorded = await host.store.recorded(game_id, key)
                if recorded is not None:
                    if unsure is not None:  # refused as a conflict, yet it was this call's own commit, resent
                        unsure[0].made(unsure[1])
                    if recorded.fingerprint != wanted:
                        raise precondition("REQUEST_ID_REUSED", "this request_id was used for a different request")
                    seat = request.seat
                    if not hmac.compare_digest(stored.seats[seat].token_sha256, _hash(token)):
                        raise precondition("SEAT_TOKEN_REPLACED", "this seat has been given another token since")
                    return game_service_pb2.TakeOverSeatResponse(seat=seat, seat_token=token, view=await host._answer_view(loaded, seat))
                if not stored.table.allow_takeover:
                    raise ServiceError(grpc.StatusCode.PERMISSION_DENIED, "TAKEOVER_NOT_ALLOWED", "this table does not allow taking over seats")
                if stored.status != game_pb2.GAME_STATUS_ACTIVE:
                    raise precondition("GAME_NOT_ACTIVE", "only seats of a running game can be taken over")
                if not 0 <= request.seat < len(stored.seats):
                    raise invalid("BAD_SEAT", f"seat must be 0 to {len(stored.seats) - 1}")
                if not table.bot_decides(stored.seats[request.seat]):
                    raise precondition("SEAT_NOT_ABSENT", "only an absent seat or a bot's seat can be taken over")
                new, entry = self._table_step(loaded, request.seat)
                place = new.stored.seats[request.seat]
                place.display_name, place.token_sha256 = name, _hash(token)
                place.absent = place.bot = False
                place.timeouts = 0
                # A decision its player left in the middle of (the leave noted that decision's
                # time, ``table.charge_bank``) keeps the clock it began with, as at a return: a
                # take-over that began a new one let a player leave and take its seat over just
                # before each deadline, and the table waited as long as it liked. One that began
                # while the seat was absent or a bot's (its bot's decision still to come) begins
                # now: the newcomer never had it, and its clock may have run out meanwhile.
                if not place.turn_started_ms or place.bank_paid_turn_ms != place.turn_started_ms:
                    place.turn_started_ms = 0
                table.changed_event(entry, request.seat, Change.CHANGE_TAKEN_OVER, name)
                # A seat taken over at another client's listed table counts as a seat joined
                # there (``GameHost._seat_claim``): taken over and never played, it held a table
                # without a clock still as well as a joined one.
                claim = await host._seat_claim(stored)
                if claim is None:
                    raise host._too_many_seats_held()
                item = seat_item(game_id, request.seat, token)
                committed = await self._commit_counted(claim, item, new, loaded, entry, key, wanted, present=request.seat)
                unsure = None if committed else (claim, item)
                if committed:
                    await host._after_commit(new)
                    log.info("seat_taken_over", game_id=game_id, seat=request.seat, version=new.version)
                    return game_service_pb2.TakeOverSeatResponse(
                        seat=request.seat, seat_token=token, view=await host._answer_view(new, request.seat)
                    )
        raise aborted("TOO_MUCH_CONTENTION", "the game changed too often; retry")

    async def add_bot(self, request: game_service_pb2.AddBotRequest, token: str | None = None) -> game_service_pb2.AddBotResponse:
        """A server-side bot takes a free seat of an open game, for a player seated at it
        (``token``) or the client address that made it (``_may_seat_a_bot``)."""
        host = self.host
        game_id = request.game_id
        # The call's own request key: a commit resent after its reply was lost is recognised as
        # this call's (it seated the bot) rather than taken for another step, after which a call
        # naming no seat seated a second bot.
        key = host.keys.request_key(f"{game_id}:bot", secrets.token_urlsafe(24))
        async with host._game_lock(game_id):
            for _attempt in range(8):
                loaded = await host._load_fresh(game_id)
                stored = loaded.stored
                by_maker = self._may_seat_a_bot(stored, token)
                if stored.status != game_pb2.GAME_STATUS_OPEN:
                    if _attempt:  # an attempt before may have seated the bot that filled the table
                        recorded = await host.store.recorded(game_id, key)
                        if recorded is not None:
                            return await self._bot_seated(game_id, recorded)
                    raise precondition("GAME_FULL", "bots join open games only")
                seat = table.seat_to_take(stored, request.seat if request.HasField("seat") else None)
                new, entry = self._table_step(loaded, seat)
                place = new.stored.seats[seat]
                level = table.check_level(request.level or stored.table.bot_level)
                place.bot, place.display_name, place.bot_level = True, table.bot_name(level), level
                if all(table.is_taken(s) for s in new.stored.seats):
                    new.stored.status = game_pb2.GAME_STATUS_ACTIVE
                    table.settle(new.stored, loaded.game.to_act(loaded.state), None, host._now_ms())
                table.changed_event(entry, seat, Change.CHANGE_BOT_ADDED, place.display_name)
                charge = current_creation()
                # A bot a player seats at another client's listed table counts as a seat that
                # player holds (``GameHost._seat_claim``): one who joined, seated bots in every
                # seat but its own and left had filled the table, holding nothing.
                claim = UNBOUNDED if by_maker else await host._seat_claim(stored, charge.client)
                if claim is None:
                    raise host._too_many_seats_held()
                item = bot_item(game_id, seat)
                charge.sent()  # from here the bot may be seated, whatever becomes of this call
                if await self._commit_counted(claim, item, new, loaded, entry, key):
                    if new.stored.status == game_pb2.GAME_STATUS_ACTIVE:  # this bot started the game
                        await host._note_kept(new.stored)
                    await host._after_commit(new)
                    return game_service_pb2.AddBotResponse(seat=seat, view=await host._answer_view(new, None))
                recorded = await host.store.recorded(game_id, key)
                if recorded is not None:
                    claim.made(item)  # this call's own commit, resent: its bot sits in that seat
                    return await self._bot_seated(game_id, recorded)  # a resent commit: this call's bot is seated
                charge.sent(False)  # refused by its version: this attempt seated nobody
        raise aborted("TOO_MUCH_CONTENTION", "the game changed too often; retry")

    def _may_seat_a_bot(self, stored: storage_pb2.StoredGame, token: str | None) -> bool:
        """Refuse an AddBot from a stranger to a listed table: a client that sat nowhere filled
        other people's tables with bots from the lobby (40 of 45 started against their hosts'
        will, their invited players refused GAME_FULL). A player seated at the table (its seat
        token) or the client address that made it may; a table without its maker's mark (made
        without a face, unlisted, or stored before it was kept) takes a bot from anyone who
        knows its id, as before. Whether the caller is the table's maker (or the table has none):
        a bot a player seats counts as a seat of that player's."""
        if not stored.creator_mark or self.host.made_by(stored, current_creation().client):
            return True
        if token and self.host.seat_in(stored, token) is not None:
            return False
        raise ServiceError(
            grpc.StatusCode.PERMISSION_DENIED,
            "NOT_AT_THE_TABLE",
            "only a player seated at this table, or the client address that made it, may seat a bot: send a seat token",
        )

    async def _bot_seated(self, game_id: str, recorded: "Recorded") -> game_service_pb2.AddBotResponse:
        """The answer to an AddBot whose commit landed although its reply was lost (and what
        follows its step: ``GameHost._after_resent_commit``)."""
        entry = await self.host.store.log_entry(game_id, recorded.version)
        if entry is None:
            raise ServiceError(grpc.StatusCode.INTERNAL, "LOG_ENTRY_MISSING", "the bot's step is not in the log")
        landed = await self.host._load_fresh(game_id)
        await self.host._after_resent_commit(landed)
        return game_service_pb2.AddBotResponse(seat=entry.seat, view=await self.host._answer_view(landed, None))

    # --- shared --------------------------------------------------------------------------------
    def _table_step(self, loaded: "Loaded", seat: Seat, state: Any = None) -> tuple["Loaded", storage_pb2.LogEntry]:
        """A copy of the game one version on, with an empty log entry by ``seat`` (a table
        change: the engine state stays as it is, or becomes ``state`` where the rules follow
        the change, its digest logged as after a move)."""
        from hustings.engine import state_digest
        from hustings.service.host import Loaded

        new = storage_pb2.StoredGame()
        new.CopyFrom(loaded.stored)
        new.version = loaded.version + 1
        if state is None:
            state = loaded.state
        else:
            new.engine_state = loaded.game.dump_state(state)
        entry = storage_pb2.LogEntry(version=new.version, seat=seat, state_digest=state_digest(loaded.game, state))
        return Loaded(new, loaded.game, state), entry

    async def _commit_counted(self, claim: Claim, item: str, *commit: Any, **options: Any) -> bool:
        """``_commit``, its seat ``item`` counted by ``claim`` when it took the seat, or may have
        (a call that failed or was cancelled with its commit on its way: the lookup drops the
        item if it did not land)."""
        try:
            committed = await self._commit(*commit, **options)
        except BaseException:
            claim.settle(item, made=True)
            raise
        claim.settle(item, made=committed)
        return committed

    async def _commit(
        self,
        new: "Loaded",
        base: "Loaded",
        entry: storage_pb2.LogEntry,
        key: str = "",
        wanted: str = "",
        listed: bool = True,
        present: Seat | None = None,
        index: bool = True,
    ) -> bool:
        """Commit a table step or a due decision made on ``base``; ``listed``: it changes the
        game's listing; ``present``: the seat whose player made the call, noted present with the
        commit; ``index``: index the step's next deadline first (not for a due decision: see
        ``_decide_for``)."""
        host = self.host
        if new.stored.status == game_pb2.GAME_STATUS_ACTIVE:
            table.settle(new.stored, new.game.to_act(new.state), None, host._now_ms())
        if index:
            await host._schedule(new.stored)
        seen = None if present is None else (present, host._now_ms())
        # Table steps may start a game (AddBot) or free its last seat: set the expiry every time.
        expire_s = host._step_expiry(new.stored)
        try:
            result = await host.store.commit(new.stored, base.version, entry, key, wanted, expire_s=expire_s, listed=listed, present=seen)
        except asyncio.CancelledError:
            host._after_cancelled_commit(new, entry, base.stored.status)
            raise
        if result.status != "OK":
            metrics.CONFLICTS.inc()
            return False
        if seen is not None:
            host.presence.noted(new.stored.game_id, *seen)
        if new.stored.status == game_pb2.GAME_STATUS_FINISHED:
            await host._note_kept(new.stored)
        return True


@dataclass(frozen=True)
class _Think:
    """A due decision needs ``level``'s thinking place first; ``unattended``: nobody is at its table."""

    level: str
    unattended: bool


class ThinkingPlace:
    """Where one bot of a level thinks at a time on a replica. Those waiting for it take it in
    the order they came, those of tables with a person at them (``first``) before those of
    tables nobody is at (``table.unattended``), whom nobody waits for."""

    def __init__(self) -> None:
        self._busy = False
        self._waiting: tuple[collections.deque[asyncio.Future[None]], ...] = (collections.deque(), collections.deque())

    async def acquire(self, first: bool = True) -> None:
        """Take the place, after those waiting before (a table with a person at it: after those
        of such tables only)."""
        if not self._busy and not any(self._waiting):
            self._busy = True
            return
        queue = self._waiting[0 if first else 1]
        came = asyncio.get_running_loop().create_future()
        queue.append(came)
        try:
            await came
        except asyncio.CancelledError:
            if came.cancelled():
                with contextlib.suppress(ValueError):  # unless a release has passed it over already
                    queue.remove(came)
            else:
                self.release()  # handed the place as the wait was given up: hand it on
            raise

    def release(self) -> None:
        """Hand the place to the next waiting, or leave it free."""
        for queue in self._waiting:
            while queue:
                came = queue.popleft()
                if not came.done():
                    came.set_result(None)
                    return
        self._busy = False


class _NoPlace(Exception):
    """The thinking place was not had within the wait allowed."""


class _Place:
    """A level's thinking place, held from entering (within ``wait_s``, else ``_NoPlace``)
    until ``release`` or leaving."""

    def __init__(self, place: ThinkingPlace, first: bool = True, wait_s: float | None = None) -> None:
        self._place = place
        self._first = first
        self._wait_s = wait_s
        self._held = False

    async def __aenter__(self) -> "_Place":
        try:
            async with asyncio.timeout(None if self._wait_s is None else max(0.0, self._wait_s)):
                await self._place.acquire(self._first)
        except TimeoutError:
            raise _NoPlace from None
        self._held = True
        return self

    async def __aexit__(self, *_exc: object) -> None:
        self.release()

    def release(self) -> None:
        if self._held:
            self._held = False
            self._place.release()


def _refuse_past_seat_changes(stored: storage_pb2.StoredGame) -> None:
    """RESOURCE_EXHAUSTED ``TOO_MANY_SEAT_CHANGES`` for a leave in a game whose log has reached
    the bound for its status (``MAX_OPEN_GAME_STEPS``, an active game's
    ``MAX_ACTIVE_GAME_SEAT_CHANGES_UP_TO``)."""
    bound = MAX_OPEN_GAME_STEPS if stored.status == game_pb2.GAME_STATUS_OPEN else MAX_ACTIVE_GAME_SEAT_CHANGES_UP_TO
    if stored.version >= bound:
        raise exhausted(
            "TOO_MANY_SEAT_CHANGES", f"this game has {stored.version} steps: its seats can no longer be left"
        )


def _hash(token: str) -> str:
    from hustings.service.host import token_hash

    return token_hash(token)


def bot_item(game_id: str, seat: Seat) -> str:
    """How a bot a player seated at another client's listed table is counted, as a seat of that
    player's (``seat_item``): while the seat holds a bot."""
    return f"{game_id}/{seat}/{BOT_HELD}"


def seat_item(game_id: str, seat: Seat, token: str) -> str:
    """How a seat joined or taken over at another client's listed table is counted
    (``GameHost.seats_held``): the game, the seat and the first 16 hex digits of its token's
    hash, so that a seat left, or taken by someone else, counts no more."""
    return f"{game_id}/{seat}/{_hash(token)[:16]}"


# What a counted seat holds when a player seated a bot in it (``bot_item``).
BOT_HELD = "bot"

# How /play tells apart seats whose names read alike ("Ada (seat 2)"): no name may end so.
SEAT_LABEL_RE = re.compile(r"[(\[{]\s*seat\s*\d+\s*[)\]}]\W*$")


def display_name(sent: str) -> str:
    """The name a player sits under (JoinGame, TakeOverSeat): ``sent`` without the spaces
    around it, 1 to ``MAX_DISPLAY_NAME`` printable characters that show something, no more
    marks on one letter than ``names.stacked_too_high`` allows, no word mixing the letters of
    several scripts (``names.mixes_scripts``), not beginning with a server bot's name as it
    reads in letters alone (``names.letters``: "Bot(random)", "B0t (rand0m)", "Bot (random)
    (seat 2)") and not ending as the page's seat numbers do; else INVALID_ARGUMENT
    ``BAD_DISPLAY_NAME``. Every seat and spectator sees the name: forty stacked marks drew over
    the whole table, and "Bot (strong)" passed a player off as the server's bot."""
    name = sent.strip()
    if not name or len(name) > MAX_DISPLAY_NAME or not name.isprintable():
        raise invalid("BAD_DISPLAY_NAME", f"display_name must be 1 to {MAX_DISPLAY_NAME} printable characters")
    if names.blank(name):
        raise invalid("BAD_DISPLAY_NAME", "display_name must show something: it holds only characters that show nothing")
    if names.stacked_too_high(name):
        raise invalid(
            "BAD_DISPLAY_NAME",
            f"display_name may stack at most {names.MAX_MARKS_ON_A_LETTER} marks on a letter"
            f" ({names.MAX_CLASSED_MARKS_IN_A_ROW} of a combining class in a row)",
        )
    if names.mixes_scripts(name):
        raise invalid(
            "BAD_DISPLAY_NAME", "display_name may not mix the letters of several scripts in one word: they pass for each other"
        )
    read = names.letters(name)
    if any(read.startswith(names.letters(table.bot_name(level))) for level in table.BOT_LEVELS):
        raise invalid("BAD_DISPLAY_NAME", "display_name may not be a server bot's name")
    if SEAT_LABEL_RE.search(names.skeleton(name)):
        raise invalid("BAD_DISPLAY_NAME", "display_name may not end as a seat's number does on the page, \"(seat 2)\"")
    return name


def check_party_name(sent: str, in_use: frozenset[str]) -> None:
    """The rules a party's name is held to when its player joins, beyond the engine's (length,
    marks, blanks), which replays of stored games check: no word mixing the letters of several
    scripts (INVALID_ARGUMENT ``BAD_PARTY_NAME``), and not reading as a name another party shows
    or falls back to, ``in_use`` (FAILED_PRECONDITION ``PARTY_NAME_TAKEN``, as a colour taken
    is). Every seat sees every party's name on the board, in each coalition and each result:
    "Grüne" beside "Grüne" with a Cyrillic е, or beside "grüne ", passed one party off as the
    other."""
    if names.mixes_scripts(sent):
        raise invalid("BAD_PARTY_NAME", "a party name may not mix the letters of several scripts in one word: they pass for each other")
    read = names.skeleton(sent)
    if any(names.skeleton(other) == read for other in in_use):
        raise precondition("PARTY_NAME_TAKEN", "another party has this name, or one that reads the same: choose another")


@dataclass(frozen=True)
class _Decided:
    """A due decision made by ``SeatLifecycle._decide_for``: the step committed (None when
    another step came first), and whether it changed what the lobby lists."""

    committed: "Loaded | None"
    listed: bool


def _level(stored: storage_pb2.StoredGame, seat: Seat) -> str:
    """The level of the bot that decides for ``seat``: its own (an added bot's), else the table's."""
    return table.check_level(stored.seats[seat].bot_level or stored.table.bot_level)
