"""The one place where the service decides what a caller may see of stored steps and events.

Views themselves are built by each game's ``view`` function; this module filters the log and the
events stored beside it, and turns engine events into their stored, visibility-tagged form.
"""

from __future__ import annotations

from typing import Any

from hustings.engine import Event, Game, Seat
from hustings.engine.base import fill_event
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2


def store_event(game: Game[Any, Any, Any], event: Event, version: int, seat: Seat | None) -> storage_pb2.StoredEvent:
    """An engine event in its stored form: the full event, who sees it, and the redacted form."""
    stored = storage_pb2.StoredEvent()
    fill_stored_event(stored, game, event, version, seat)
    return stored


def fill_stored_event(
    stored: storage_pb2.StoredEvent, game: Game[Any, Any, Any], event: Event, version: int, seat: Seat | None
) -> None:
    """Fill ``stored`` (say, a new element of a log entry's events, which saves a copy) with
    the stored form of an engine event."""
    stored.public = event.public
    fill_event(game, stored.event, event.payload, version, seat)
    if event.visible_to is not None:
        stored.visible_to.extend(sorted(event.visible_to))
        if event.redacted is not None:
            fill_event(game, stored.redacted, event.redacted, version, seat)


def event_for(stored: storage_pb2.StoredEvent, seat: Seat | None, reveal_all: bool) -> game_pb2.Event | None:
    """The event as ``seat`` (None: spectator) may see it, or None when it sees nothing."""
    if reveal_all or stored.public or (seat is not None and seat in stored.visible_to):
        return stored.event
    if stored.HasField("redacted"):
        return stored.redacted
    return None


def entry_for(entry: storage_pb2.LogEntry, seat: Seat | None, reveal_all: bool) -> game_pb2.HistoryEntry:
    """A log entry as ``seat`` may see it. ``reveal_all`` once the game is over."""
    out = game_pb2.HistoryEntry(version=entry.version)
    if entry.seat >= 0:
        out.seat = entry.seat
    if entry.HasField("move") and (reveal_all or entry.move_public or entry.seat == seat):
        out.move.CopyFrom(entry.move)
    for stored in entry.events:
        event = event_for(stored, seat, reveal_all)
        if event is not None:
            out.events.append(event)
    if reveal_all:
        out.state_digest = entry.state_digest
    return out
