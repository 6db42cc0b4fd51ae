"""Table clocks and seat states: deadlines computed as data in the stored game.

Every step's new snapshot carries, per seat, when its pending decision began, when it times out
and what is left of its bank. Nothing here waits or runs a timer: ``service/deadlines.py`` keeps a
wake-up index of the earliest deadline per game in Redis, and whichever replica finds it due
applies the bot's decision through the same version-checked commit as a move.
"""

from __future__ import annotations

import random
from typing import AbstractSet, Any, Iterable

from hustings.ai.server import SERVER_DEFAULT_LEVEL, SERVER_LEVELS, server_move
from hustings.engine import Game, Seat
from hustings.engine.base import is_side_move
from hustings.service.errors import invalid, precondition
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2

DEFAULT_ABSENT_AFTER = 2
# A table where bots decide for every seat (bot seats, players who are absent) makes one decision
# at most this often: a bot decides in about a millisecond, and such a table played flat out
# (a Spin Doctors game of 350 steps in a third of a second of the replica) took the replica from
# everyone else; 120 of them at once made another table's moves wait 10-30 times longer. Paced,
# its cost is spread over its game (a Spin Doctors game over about 40 s). A table with a player
# present is not paced: its bots (bot seats, a player timed out or gone) decide at once.
BOT_ONLY_STEP_MS = 100
DEFAULT_OPEN_S = 24 * 3600
MAX_SECONDS = 30 * 24 * 3600
BOT_LEVELS = SERVER_LEVELS  # random, greedy, strong (hustings.ai)
BEST_BOT_LEVEL = SERVER_DEFAULT_LEVEL


def validate(table: game_pb2.TableSettings, seats: int) -> None:
    """Refuse settings that cannot work (negative times, unknown bot level, seats out of range)."""
    for name in ("decision_seconds", "bank_seconds", "increment_seconds", "open_seconds"):
        value = getattr(table, name)
        if not 0 <= value <= MAX_SECONDS:
            raise invalid("BAD_TABLE_SETTINGS", f"table.{name} must be 0 to {MAX_SECONDS}")
    if not 0 <= table.absent_after_timeouts <= 100:
        raise invalid("BAD_TABLE_SETTINGS", "table.absent_after_timeouts must be 0 to 100")
    if table.increment_seconds and not table.bank_seconds:
        raise invalid("BAD_TABLE_SETTINGS", "table.increment_seconds needs table.bank_seconds")
    bots = table.bot_seats  # its length first: a request may hold 65,000 of them
    if len(bots) > seats or len(set(bots)) != len(bots) or any(not 0 <= s < seats for s in bots):
        raise invalid("BAD_TABLE_SETTINGS", f"table.bot_seats must be distinct seats 0 to {seats - 1}")
    check_level(table.bot_level)


def check_level(level: str) -> str:
    """The bot level to use for ``level`` ("" for the server's default, ``BEST_BOT_LEVEL``)."""
    if level and level not in BOT_LEVELS:
        raise invalid("UNKNOWN_BOT_LEVEL", f"bot level must be one of {', '.join(BOT_LEVELS)}")
    return level or BEST_BOT_LEVEL


def open_wait_s(settings: game_pb2.TableSettings) -> int:
    """How long an open game of these settings waits for its players after each seat change."""
    return settings.open_seconds or DEFAULT_OPEN_S


def open_until(stored: storage_pb2.StoredGame) -> int:
    """When an open game's wait for its players runs out (seconds since the Unix epoch): its
    table's wait after its last seat change, or after its creation."""
    return (stored.open_since or stored.created_at) + open_wait_s(stored.table)


def bot_name(level: str) -> str:
    """The display name of a server-side bot."""
    return f"Bot ({level})"


def is_taken(seat: storage_pb2.StoredSeat) -> bool:
    """A seat held by a player or a bot."""
    return bool(seat.token_sha256) or seat.bot


def seat_to_take(stored: storage_pb2.StoredGame, requested: int | None) -> Seat:
    """The seat a joining player or bot takes in an open game: ``requested``, or the lowest
    free one."""
    if requested is None:
        return next(s.seat for s in stored.seats if not is_taken(s))
    if not 0 <= requested < len(stored.seats):
        raise invalid("BAD_SEAT", f"seat must be 0 to {len(stored.seats) - 1}")
    if is_taken(stored.seats[requested]):
        raise precondition("SEAT_TAKEN", f"seat {requested} is taken")
    return requested


def absent_after(table: game_pb2.TableSettings) -> int:
    """Timeouts in a row that make a seat absent."""
    return table.absent_after_timeouts or DEFAULT_ABSENT_AFTER


def bot_decides(seat: storage_pb2.StoredSeat) -> bool:
    """True when the seat's decisions are due at once (a bot seat, or an absent player)."""
    return seat.bot or seat.absent


def settle(
    stored: storage_pb2.StoredGame,
    acting: AbstractSet[Seat],
    mover: Seat | None,
    now_ms: int,
    side_move: bool = False,
    decided_ms: int = 0,
) -> int:
    """Bring every seat's clock in line with who owes a decision after a step by ``mover``.

    ``side_move``: the step ended no decision of ``mover`` (``is_side_move``: made beside it, or
    a step of composing it), which is still pending; its clock runs on from when that decision
    began, with no increment and no charge to the bank until the decision is made or times out.
    Otherwise a step by a seat that owed a decision ends it: the bank pays for the time used and
    gets the increment, and a seat that owes another one starts it now. The time used ends when
    the decision was made (``decided_ms``: when the move came, if not now) and never after its
    deadline: a timeout applied late, or a move that waited for the game behind a bot's
    thinking, charged the bank for time the seat could not use.

    Returns the game's earliest pending deadline now, what ``next_due`` would find (0 for none),
    so that a caller need not walk the seats again."""
    # Every step runs this over every seat, and each read of a stored field costs a lookup by
    # name: each is read once.
    table = stored.table
    if stored.status != game_pb2.GAME_STATUS_ACTIVE:
        acting = frozenset()
    bank_seconds = table.bank_seconds
    # A side move ends no decision: its mover's clock is left as any other's (a hand-over one
    # second before the deadline must not buy a whole new decision time and an increment).
    decided = None if side_move else mover
    earliest = 0
    unattended = None  # whether bots decide for every seat: looked at once, where a bot acts
    for seat in stored.seats:
        number, started = seat.seat, seat.turn_started_ms
        if number == decided and started and bank_seconds and not bot_decides(seat):
            ended = decided_ms or now_ms
            # The player's own deadline, not the stored one: a seat that comes back by moving
            # from absence had its bot's deadline stored (due at once).
            limit = _deadline(table, seat)
            if limit:
                ended = min(ended, limit)
            used = max(0, ended - started - paid(seat))
            seat.bank_ms = max(0, seat.bank_ms - used) + table.increment_seconds * 1000
        if number not in acting:
            seat.turn_started_ms = 0
            seat.deadline_ms = 0
            continue
        if number == decided or not started:
            seat.turn_started_ms = now_ms  # a new decision begins
        if bot_decides(seat):
            if unattended is None:
                unattended = all_bots(stored)
            # Due at once, or at a table of bots alone one pace after this step (each step
            # pushes the table's next decision, so it makes one a pace at most).
            due = seat.deadline_ms = now_ms + BOT_ONLY_STEP_MS if unattended else seat.turn_started_ms
        else:
            due = seat.deadline_ms = _deadline(table, seat)
        if due and (not earliest or due < earliest):
            earliest = due
    return earliest


def charge_bank(stored: storage_pb2.StoredGame, seat: storage_pb2.StoredSeat, now_ms: int) -> None:
    """A seat that leaves mid-decision pays its bank for the time it used so far (no increment:
    the decision is not made), noted as paid (``bank_paid_ms``) so that the decision's end
    charges only the rest; the decision keeps its start and its deadline. Its bot then decides
    uncharged; were the time not taken here, a seat that left once per decision could spend a
    whole bank on every decision while the table waited (a per-decision limit bounds each
    decision, not the game). The time used is noted at a table without a bank too (where no
    clock reads it): it says whether the seat left after its deadline (``left_overdue``)."""
    started = seat.turn_started_ms
    if started and not bot_decides(seat):
        used = max(0, min(now_ms, _deadline(stored.table, seat) or now_ms) - started)
        if stored.table.bank_seconds:
            seat.bank_ms = max(0, seat.bank_ms - max(0, used - paid(seat)))
        seat.bank_paid_ms, seat.bank_paid_turn_ms = used, started


def left_overdue(table: game_pb2.TableSettings, seat: storage_pb2.StoredSeat) -> bool:
    """True when the seat's player left after the deadline of the decision it still owes had
    passed (``charge_bank`` noted all of the decision's time used): the decision timed out
    while the player held it, and counts as a timeout when the bot makes it, as it would had
    the player stayed; before, leaving between the deadline and the replica acting on it made
    it an absent seat's decision, no timeout counted."""
    started = seat.turn_started_ms
    if not started or seat.bank_paid_turn_ms != started:
        return False
    limit = _deadline(table, seat)  # the same deadline after the leave as before it
    return 0 < limit <= started + seat.bank_paid_ms


def paid(seat: storage_pb2.StoredSeat) -> int:
    """What the bank has paid of the seat's pending decision already (``charge_bank``)."""
    return seat.bank_paid_ms if seat.turn_started_ms and seat.bank_paid_turn_ms == seat.turn_started_ms else 0


def all_bots(stored: storage_pb2.StoredGame) -> bool:
    """True when bots decide for every seat (bot seats and absent players): nobody is at the
    table to wait for, and its bots are paced (``BOT_ONLY_STEP_MS``)."""
    return all(bot_decides(s) for s in stored.seats)


def unattended(stored: storage_pb2.StoredGame) -> bool:
    """True when nobody is at the table: every seat is a bot's, a player's who is absent, or a
    player's whose last decision timed out (so a bot made it). Such a table's decisions are
    charged to nobody, and take their turns in the replica's budget for them
    (``service/unattended.py``)."""
    return all(bot_decides(s) or s.timeouts for s in stored.seats)


def _deadline(table: game_pb2.TableSettings, seat: storage_pb2.StoredSeat) -> int:
    limits = []
    if table.decision_seconds:
        limits.append(seat.turn_started_ms + table.decision_seconds * 1000)
    if table.bank_seconds:
        # What the bank paid of this decision at a leave is time used: the same deadline.
        limits.append(seat.turn_started_ms + paid(seat) + seat.bank_ms)
    return min(limits) if limits else 0


def start_banks(stored: storage_pb2.StoredGame) -> None:
    """Fill every seat's bank at creation."""
    for seat in stored.seats:
        seat.bank_ms = stored.table.bank_seconds * 1000


def next_due(stored: storage_pb2.StoredGame) -> int:
    """The earliest pending deadline of the game (ms since the epoch), 0 for none."""
    if stored.status != game_pb2.GAME_STATUS_ACTIVE:
        return 0
    due = [s.deadline_ms for s in stored.seats if s.deadline_ms]
    return min(due) if due else 0


def due_seats(stored: storage_pb2.StoredGame, acting: Iterable[Seat], now_ms: int) -> list[Seat]:
    """Seats owing a decision whose deadline has passed."""
    acting = set(acting)
    return [s.seat for s in stored.seats if s.seat in acting and 0 < s.deadline_ms <= now_ms]


def bot_move(game: Game[Any, Any, Any], state: Any, seat: Seat, level: str, rng: random.Random, stand_in: bool = False) -> Any:
    """The decision a server-side bot of ``level`` makes for ``seat``, from what the seat knows
    only. ``stand_in``: the seat is a player's (timed out, or absent), and the bot makes the
    decision the player owes and nothing beside it: no side move (The Spin Doctors' hand-overs
    and deals, items drafted into a Wahlspiel offer) where a move that ends the decision is
    legal. A random stand-in handed a Spin Doctors player's Budget to other seats before about
    one decision in three."""
    if not game.legal_moves(state, seat):
        raise RuntimeError("a seat owing a decision has no legal move")
    return server_move(DecisionsOnly(game) if stand_in else game, state, seat, level, rng)


class DecisionsOnly:
    """``game`` whose legal moves are, where any is, only those that end a decision
    (``engine.base.is_side_move``); the rest of it as it is."""

    def __init__(self, game: Game[Any, Any, Any]) -> None:
        self.wrapped = game  # its sampling and rebuilding are the game's (engine.base.sampler)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)

    def legal_moves(self, state: Any, seat: Seat) -> list[Any]:
        moves = self.wrapped.legal_moves(state, seat)
        owed = [move for move in moves if not is_side_move(self.wrapped, move, state)]
        return owed or moves


def seat_to_proto(stored: storage_pb2.StoredSeat, target: game_pb2.Seat, present: bool) -> None:
    """The public facts of a seat."""
    target.seat = stored.seat
    target.display_name = stored.display_name
    target.taken = is_taken(stored)
    target.bot = stored.bot
    target.absent = stored.absent
    target.present = (present and target.taken) or stored.bot  # a freed seat's leaver is no one's presence
    target.deadline_unix_ms = stored.deadline_ms
    target.bank_ms = stored.bank_ms
    target.timeouts = stored.timeouts
    target.bot_played = stored.bot_played or stored.bot


def changed_event(entry: storage_pb2.LogEntry, seat: Seat, change: int, name: str) -> None:
    """Add a public SeatChanged event to a log entry."""
    event = entry.events.add(public=True)
    event.event.version = entry.version
    event.event.seat = seat
    event.event.seat_changed.seat = seat
    event.event.seat_changed.change = change  # type: ignore[assignment]
    event.event.seat_changed.display_name = name
