"""structlog configuration: once per process; JSON lines unless on a terminal."""

from __future__ import annotations

import logging
import sys

import structlog


LEVELS = ("debug", "info", "warning", "error", "critical")


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
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
