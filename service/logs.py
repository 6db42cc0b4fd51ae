"""structlog configuration: once per process; JSON lines unless on a terminal."""

from __future__ import annotations

import contextvars
import logging
import math
import re
import sys
import time
from typing import Any, Callable, Hashable, Mapping, MutableMapping

import structlog


LEVELS = ("debug", "info", "warning", "error", "critical")

# A call's fields for its log lines (rpc, game_id, seat, ...): one context variable holding a
# mapping that is never changed in place, so that a task started by the call keeps what the call
# had then. Every call starts its own (``begin_call``): one set, where structlog's per-key
# context variables cost a walk over the whole context to clear and one variable per key to bind
# (about 4 µs on every move).
_CALL: contextvars.ContextVar[Mapping[str, Any]] = contextvars.ContextVar("hustings_call", default={})


# A game id as the API allows it (service/host.py refuses any other with BAD_GAME_ID). What a
# client sends in its place is not logged as sent: it may be 64 KiB long (a gRPC request's bound),
# and it would be written into every line of its call (a refused stream's too), or carry a
# terminal's control sequences.
_GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
MALFORMED_GAME_ID = "(malformed)"


class SparseLines:
    """Lines of one kind written at most once every ``interval_s`` for each key, the first at
    once: when many fail alike (every call while Redis is away, every stream a client opens past
    its limits) one line stands for the others, counting them (``alike_not_logged``)."""

    def __init__(self, interval_s: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.interval_s = interval_s
        self._clock = clock
        self._last: dict[Hashable, tuple[float, int]] = {}  # key -> (last line, left out since)

    def due(self, key: Hashable) -> int | None:
        """The number of lines for ``key`` left out since the last one written, when a line is
        due now (the caller writes it, with that count as ``alike_not_logged``); else None, and
        this one is counted."""
        now = self._clock()
        last, left_out = self._last.get(key, (-math.inf, 0))
        if now - last < self.interval_s:
            self._last[key] = (last, left_out + 1)
            return None
        self._last[key] = (now, 0)
        return left_out


def begin_call(**fields: Any) -> None:
    """Start the current call's log context with ``fields``, dropping whatever was there; a
    ``game_id`` that is not one is logged as ``MALFORMED_GAME_ID``."""
    game_id = fields.get("game_id")
    if game_id is not None and not _GAME_ID.fullmatch(game_id):
        fields["game_id"] = MALFORMED_GAME_ID
    _CALL.set(fields)


def note(**fields: Any) -> None:
    """Add ``fields`` to the current call's log context."""
    _CALL.set({**_CALL.get(), **fields})


def merge_call(_logger: Any, _method: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """structlog processor: the call's fields under the line's own."""
    for key, value in _CALL.get().items():
        event_dict.setdefault(key, value)
    return event_dict


_LIBRARY_HANDLER = "hustings-json"


def configure(level: str = "info", json: bool | None = None) -> None:
    """Configure structlog and the standard logging it writes through.

    ``level`` is one of :data:`LEVELS` (any case); another raises ValueError naming them.
    """
    if level.lower() not in LEVELS:
        raise ValueError(f"unknown log level {level!r}; choose one of {', '.join(LEVELS)}")
    if json is None:
        json = not sys.stderr.isatty()
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            merge_call,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
    # The libraries' own records (redis-py's "Topology refresh failed" and its traceback, asyncio's)
    # as the same lines, not as plain text beside them: with a Redis Cluster away, 82 of 89 lines
    # on stderr were not JSON.
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[
                structlog.stdlib.add_logger_name,
                structlog.processors.add_log_level,
                structlog.processors.TimeStamper(fmt="iso", utc=True),
            ],
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                renderer,
            ],
        )
    )
    handler.set_name(_LIBRARY_HANDLER)
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == _LIBRARY_HANDLER]:
        root.removeHandler(old)  # configured again: one handler, not two
    root.addHandler(handler)
    root.setLevel(getattr(logging, level.upper()))
