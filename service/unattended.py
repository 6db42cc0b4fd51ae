"""A replica's budget for tables where nobody is at the table.

A table where bots decide for every seat (bot seats, players who left) is paced
(``table.BOT_ONLY_STEP_MS``), yet nothing bounded how many such tables a replica plays at once,
and they are charged to nobody: one address could create tables, take every seat, leave, and
have the replica play them out. Forty such Spin Doctors tables made 384 decisions a second, 46 %
of a core, taken from every player of the replica. Tables whose players let every seat time out
under a one-second clock and never call again cost as much (100 of them: 354 decisions a second,
39 %). So a replica makes at most ``per_second`` such decisions a second, all those tables
together, each weighted by what a decision of its level costs (``DECISION_WEIGHTS``); past it a
table's next decision is given a turn, and made then. Such tables play on more slowly, and nobody
else's moves wait for them.
"""

from __future__ import annotations

import collections
import time
from typing import Callable

# Ten tables at their full pace of one decision per ``table.BOT_ONLY_STEP_MS``; measured, 40 or
# 200 Spin Doctors tables of random bots then took 16-23 % of a core (1.6-2.2 ms a decision, their
# costliest decisions being the opening's), where they took 44 % and all of it.
DEFAULT_UNATTENDED_DECISIONS_PER_SECOND = 100.0
# What one decision takes from the budget, a random bot's (a pick from the legal moves, about
# 1.2 ms with its commit) being one. A greedy bot evaluates every legal move (a table of them cost
# 2.5 to 6.5 times as much). A strong one searches for up to 0.15 s, made public at 0.2 s
# (``hustings.ai.server.SERVER_BUDGET``), which the replica's one thinking place for strong bots
# bounds first, at five to seven decisions a second; at 20, five are the whole default budget, so
# that strong tables nobody is at leave nothing to random ones rather than take more, and one such
# table (a demonstration) still plays at its own pace. Weighed as its CPU (about 100), a table of
# strong bots alone made one decision a second.
DECISION_WEIGHTS = {"random": 1, "greedy": 3, "strong": 20}
BURST_S = 1.0  # one second's worth of decisions may be made at once
# A turn a little ahead is as good as come: a wake-up is timed in whole milliseconds.
EARLY_S = 0.005
# Turns never used (the game ended, a player came back, another replica decided first) are
# forgotten this long after they came, and in any case past this many.
STALE_S = 60.0
MAX_TURNS = 100_000


class UnattendedBudget:
    """Decisions at tables where nobody is at the table (``table.unattended``): ``per_second``
    a second on this replica, a second's worth at once (the generic cell rate algorithm, with
    reservations). A table past the budget is given the next turn, a decision's share of a
    second after the last turn given, and keeps it: it comes back then and decides, so that
    waiting tables take their turns one after another, in the order they asked, and none is put
    off again by tables that came later."""

    def __init__(
        self, per_second: float = DEFAULT_UNATTENDED_DECISIONS_PER_SECOND, clock: Callable[[], float] = time.monotonic
    ) -> None:
        if not per_second > 0:
            raise ValueError("the budget must be positive")
        self.per_second = per_second
        self._interval = 1.0 / per_second
        self._clock = clock
        self._next = -float("inf")  # when the budget has room again for one decision (its "theoretical arrival time")
        # game id -> the turn it was given; in the order given, which is the order of the turns
        self._turns: collections.OrderedDict[str, float] = collections.OrderedDict()

    def __len__(self) -> int:
        return len(self._turns)

    def wait_s(self, game_id: str, level: str) -> float:
        """For a decision of ``game_id``'s bot of ``level`` that is due: 0 when it may be made now
        (it was booked, or is counted now), else how long until its turn (booked now, or before:
        a table that asks again before its turn keeps it)."""
        now = self._clock()
        turn = self._turns.get(game_id)
        if turn is None:
            turn = self._next_turn(level, now)
            if turn - now <= EARLY_S:
                return 0.0
            self._keep(game_id, turn, now)
        if turn - now > EARLY_S:
            return turn - now
        del self._turns[game_id]
        return 0.0

    def book(self, game_id: str, level: str) -> float:
        """Book ``game_id``'s next decision (of a bot of ``level``) right after its last, so that
        it costs no look of its own when it falls due: how long until its turn (0 when it may be
        made at once, which the table's pace will put off anyway). ``wait_s`` then finds it."""
        now = self._clock()
        turn = self._turns.get(game_id)
        if turn is None:
            turn = self._next_turn(level, now)
            self._keep(game_id, turn, now)
        return max(0.0, turn - now)

    def _next_turn(self, level: str, now: float) -> float:
        start = max(self._next, now)
        self._next = start + DECISION_WEIGHTS[level] * self._interval
        return start - BURST_S

    def _keep(self, game_id: str, turn: float, now: float) -> None:
        self._forget_stale(now)
        self._turns[game_id] = turn

    def _forget_stale(self, now: float) -> None:
        turns = self._turns
        while turns:
            game_id, turn = next(iter(turns.items()))
            if turn > now - STALE_S and len(turns) < MAX_TURNS:
                break
            del turns[game_id]
