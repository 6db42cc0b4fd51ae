"""Prove a finished game fair: replay its full log from the revealed seed.

SHA-256 of the revealed nonce followed by the revealed seed must equal the commitment published
at creation (SHA-256 of the seed alone for games created before games had a nonce); replaying
setup and every move with the counter-based generator must reproduce every logged event (all
shuffles, draws and reveals; a step without a move logs none but the table's) and the state
digest after every step; and the finished game the server shows (its version, table and result)
must be the replay's end.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hustings.engine import EngineError, Rng, get_game, seed_commitment, state_digest
from hustings.engine.rng import SEED_NONCE_BYTES
from hustings.engine.base import fill_event, fill_outcome
from hustings.v1 import game_pb2

# Events about the table (seats taken, left, timed out), not produced by the rules: a replay of
# the moves does not make them.
TABLE_EVENTS = ("seat_taken", "seat_changed")


@dataclass(frozen=True)
class VerifyReport:
    """The verdict: ``ok`` or the first version that does not match, and why."""

    ok: bool
    game_id: str
    steps: int
    draws: int
    message: str
    failed_at_version: int | None = None

    def as_dict(self) -> dict[str, object]:
        """The report as JSON-ready data."""
        return {
            "verified": self.ok,
            "game_id": self.game_id,
            "steps": self.steps,
            "draws": self.draws,
            "message": self.message,
            "failed_at_version": self.failed_at_version,
        }


# What a game created by release 0.1.0 (the one release whose games have no nonce) needs when
# its replay fails: its steps were played under that release's rules, which this build does not
# replay (its Staffs were chosen a Staffer at a time, its Wahlspiel states have an older format).
OLDER_RULES = (
    "; the game was created by hustings 0.1.0 (its revealed seed matches the commitment, which "
    "hashes the seed alone) and steps of it were played under 0.1.0's rules, which this build "
    "does not replay: check a game finished under 0.1.0 with the verify command of release "
    "0.1.0, which reads it from this server"
)


def verify_log(
    view: game_pb2.GameView, entries: list[game_pb2.HistoryEntry], commitment: str | None = None
) -> VerifyReport:
    """Replay ``entries`` against the seed in ``view`` (``replay_log``); a replay that fails for
    a game created by release 0.1.0 says why it may (``OLDER_RULES``)."""
    report = replay_log(view, entries, commitment)
    if report.ok or view.seed_nonce or report.failed_at_version is None:
        return report
    return VerifyReport(False, report.game_id, report.steps, report.draws, report.message + OLDER_RULES, report.failed_at_version)


def replay_log(
    view: game_pb2.GameView, entries: list[game_pb2.HistoryEntry], commitment: str | None = None
) -> VerifyReport:
    """Replay ``entries`` (a finished game's full history) against the seed in ``view``.

    ``commitment`` is the seed commitment the caller recorded when the game was created (every
    view carries it from the start). Without it the seed is checked against the commitment in
    ``view``, which only shows that the server is consistent with itself today.
    """

    def fail(message: str, version: int | None = None, steps: int = 0, draws: int = 0) -> VerifyReport:
        return VerifyReport(False, view.game_id, steps, draws, message, version)

    game = get_game(view.kind)
    if game is None:
        return fail(f"unknown game kind {view.kind!r}")
    if view.status != game_pb2.GAME_STATUS_FINISHED or not view.seed:
        return fail("the game is not finished: its seed is still secret")
    try:
        seed, nonce = bytes.fromhex(view.seed), bytes.fromhex(view.seed_nonce)
    except ValueError:
        return fail("the revealed seed or nonce is not hex")
    if nonce and len(nonce) != SEED_NONCE_BYTES:
        return fail(f"the revealed nonce is not {SEED_NONCE_BYTES} bytes")
    # A game stored before nonces were drawn reveals none: its commitment is SHA-256(seed).
    if seed_commitment(seed, nonce) != (commitment or view.seed_commitment):
        return fail("the revealed nonce and seed do not match the commitment published at creation")
    rng = Rng(seed)
    try:
        state = game.setup(game.options_from_proto(view.options), rng)
    except EngineError as error:
        return fail(f"setup failed: {error.reason}")
    ordered = sorted(entries, key=lambda e: e.version)
    if [e.version for e in ordered] != list(range(1, len(ordered) + 1)):
        return fail("the log has missing or repeated versions")
    steps = 0
    # Seats taken so far, while the game is open: a seat left then is freed, and its party (where
    # the game lets parties be named) is as a new seat finds it.
    taken: set[int] | None = set(view.table.bot_seats)
    for entry in ordered:
        if entry.HasField("move"):
            try:
                move = game.move_from_proto(entry.move)
                state, events = game.apply(state, entry.seat, move, rng)
            except EngineError as error:
                return fail(f"the logged move is not legal on replay: {error.reason}", entry.version, steps, rng.counter)
            replayed = []
            for event in events:
                message = game_pb2.Event()
                fill_event(game, message, event.payload, entry.version, entry.seat)
                replayed.append(message)
            logged = [e for e in entry.events if e.WhichOneof("body") not in TABLE_EVENTS]
            if replayed != logged:
                return fail("the logged events differ from the replay", entry.version, steps, rng.counter)
            steps += 1
        elif any(e.WhichOneof("body") not in TABLE_EVENTS for e in entry.events):
            # Only a move makes the rules act: a draw logged beside a join never happened.
            return fail("a step without a move logs an event of the rules", entry.version, steps, rng.counter)
        for event in entry.events:  # a joining player may name its party (Wahlspiel)
            joined, changed = event.seat_taken, event.seat_changed
            if event.HasField("seat_taken") and (joined.party_name or joined.party_colour):
                try:
                    state = game.name_party(state, joined.seat, joined.party_name, joined.party_colour)  # type: ignore[attr-defined]
                except (AttributeError, EngineError):
                    return fail("a logged party name is not possible on replay", entry.version, steps, rng.counter)
            if taken is None:
                continue
            if event.HasField("seat_taken") or changed.change == game_pb2.SeatChanged.CHANGE_BOT_ADDED:
                taken.add(joined.seat if event.HasField("seat_taken") else changed.seat)
            elif event.HasField("seat_changed") and changed.change == game_pb2.SeatChanged.CHANGE_LEFT:
                taken.discard(changed.seat)
                if hasattr(game, "free_party"):
                    state = game.free_party(state, changed.seat)
            if len(taken) == len(view.seats):
                taken = None  # the game has started: from now on a seat left is absent, not freed
        if entry.state_digest != state_digest(game, state):
            return fail("the state after this step differs from the replay", entry.version, steps, rng.counter)
    if not game.is_over(state):
        return fail("the replayed log does not end the game", None, steps, rng.counter)
    shown = _shown_end(game, state, view, ordered[-1].version if ordered else 0)
    if shown is not None:
        return fail(shown, None, steps, rng.counter)
    return VerifyReport(True, view.game_id, steps, rng.counter, "every shuffle, draw and move matches the seed")


def _shown_end(game: Any, state: Any, view: game_pb2.GameView, last_version: int) -> str | None:
    """Why the finished game ``view`` shows is not the end of the replay (None when it is): its
    version, its table as the viewer sees it, its result. The server builds them from the
    game's stored snapshot, which the log's digests do not cover: a rewritten snapshot showed
    another winner under a log that replayed."""
    if view.version != last_version:
        return f"the finished game shows version {view.version}, the log ends at {last_version}"
    table = view.WhichOneof("game")
    replayed = game_pb2.GameView()
    game.view_to_proto(game.view(state, view.seat if view.HasField("seat") else None), replayed)
    if table is None or getattr(view, table) != getattr(replayed, table):
        return "the finished table the server shows is not the replay's"
    result = game_pb2.Outcome()
    fill_outcome(game, state, result)
    shown = game_pb2.Outcome()
    shown.CopyFrom(view.outcome)
    for placing in shown.placings:
        placing.ClearField("bot_played")  # the table's, not the rules'
    if shown != result:
        return "the result the server shows is not the replay's"
    return None
