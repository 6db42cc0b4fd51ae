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

import asyncio
import collections
import json
from typing import Any

from hustings.service import rest_routes
from hustings.v1 import game_service_pb2

KEPT_EVENTS = 256  # events of recent updates (most streams are at one version of one game)
# Larger events are rendered for their stream alone: a catch-up of several hundred steps is rare,
# counted towards its client's rate, and would make the kept events hold megabytes.
KEPT_EVENT_BYTES = 64 << 10
# A catch-up of more entries than this is rendered this many at a time, the loop given to the
# other calls and streams in between: from version 0 of a 20,000-step game, rendered whole, it
# held the replica's event loop 0.33-0.37 s (the gRPC stream's catch-up is built 1,000 entries at
# a time, ``watch.CATCH_UP_CHUNK``, and its binary form costs a few milliseconds).
RENDER_CHUNK = 250


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
        event = _event(message.version, json.dumps(rest_routes.to_json(message), separators=(",", ":")))
        if len(event) <= KEPT_EVENT_BYTES:
            self._events[key] = (message, event)
            if len(self._events) > self.kept:
                self._events.popitem(last=False)
        return event

    async def event_in_steps(self, message: Any) -> bytes:
        """``event(message)``, the same bytes, rendered ``RENDER_CHUNK`` entries at a time with
        the loop given up in between when the message catches up on more steps than that."""
        if len(message.entries) <= RENDER_CHUNK:
            return self.event(message)
        self.rendered += 1
        head = game_service_pb2.WatchGameResponse(version=message.version)
        if message.HasField("view"):
            head.view.CopyFrom(message.view)
        members_of_head = rest_routes.to_json(head)
        pieces = []
        for start in range(0, len(message.entries), RENDER_CHUNK):
            await asyncio.sleep(0)
            piece = game_service_pb2.WatchGameResponse()
            piece.entries.extend(message.entries[start : start + RENDER_CHUNK])
            pieces.append(json.dumps(rest_routes.to_json(piece)["entries"], separators=(",", ":"))[1:-1])
        # The members in the message's field order, as the whole message's JSON has them.
        members_of_head.pop("entries", None)  # none in the head: they are the pieces
        members = [f'"version":{json.dumps(members_of_head.pop("version"))}', f'"entries":[{",".join(pieces)}]']
        if "view" in members_of_head:
            members.append(f'"view":{json.dumps(members_of_head.pop("view"), separators=(",", ":"))}')
        assert not members_of_head, f"members of WatchGameResponse not rendered: {sorted(members_of_head)}"
        return _event(message.version, "{" + ",".join(members) + "}")


def _event(version: int, data: str) -> bytes:
    return f"id: {version}\ndata: {data}\n\n".encode()

