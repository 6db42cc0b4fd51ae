"""Server-Sent Events of WatchGame updates, rendered once for every event stream that sends them.

The streams of one game in step get the very same update message (``service/watch.py`` shares it
by version and seat), which gRPC serialises once for all of them. An event stream renders it as
JSON, and that costs far more than the binary form (a Wahlspiel step with a spectator's view: 1.2
ms, The Spin Doctors' and Stimmvieh's 0.4 ms): rendered for each stream, 1,000 spectators of one
table over REST cost a replica over a second of its time for every step. So the last few events
are kept by the message they were rendered from, and a stream that sends the same message sends
the same bytes.
"""

from __future__ import annotations

import collections
import json
from typing import Any

from hustings.service import rest_routes

KEPT_EVENTS = 256  # events of recent updates (most streams are at one version of one game)
# Larger events are rendered for their stream alone: a catch-up of several hundred steps is rare,
# counted towards its client's rate, and would make the kept events hold megabytes.
KEPT_EVENT_BYTES = 64 << 10


class RenderedEvents:
    """The ``id:``/``data:`` event of each recent update message, by the message's identity."""

    def __init__(self, kept: int = KEPT_EVENTS) -> None:
        self.kept = kept
        self.rendered = 0  # how many events were rendered (not taken from those kept)
        # id(message) -> (message, event); the message is held so that its id stays its own.
        self._events: collections.OrderedDict[int, tuple[Any, bytes]] = collections.OrderedDict()

    def event(self, message: Any) -> bytes:
        """The event that sends ``message`` (a WatchGameResponse, never changed once sent)."""
        key = id(message)
        kept = self._events.get(key)
        if kept is not None and kept[0] is message:
            self._events.move_to_end(key)
            return kept[1]
        self.rendered += 1
        data = json.dumps(rest_routes.to_json(message), separators=(",", ":"))
        event = f"id: {message.version}\ndata: {data}\n\n".encode()
        if len(event) <= KEPT_EVENT_BYTES:
            self._events[key] = (message, event)
            if len(self._events) > self.kept:
                self._events.popitem(last=False)
        return event
