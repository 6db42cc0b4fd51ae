"""Prometheus metrics of a replica, served on their own port (``hustings serve --metrics-address``)."""

from __future__ import annotations

import functools
from typing import Any
from wsgiref.simple_server import WSGIServer

from prometheus_client import Counter, Gauge, Histogram, start_http_server

RPCS = Counter("hustings_rpcs_total", "RPCs handled, by method and gRPC status code.", ["method", "code"])
RPC_SECONDS = Histogram(
    "hustings_rpc_seconds",
    "RPC handling time in seconds, by method.",
    ["method"],
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0),
)
# The REST/JSON face's share of RPCS (which counts both faces, so existing queries stay whole);
# the gRPC face's share is the difference.
REST_RPCS = Counter("hustings_rest_rpcs_total", "RPCs handled over REST/JSON, by method and gRPC status code.", ["method", "code"])
MOVES = Counter("hustings_moves_applied_total", "Moves applied, by game kind.", ["kind"])
CONFLICTS = Counter("hustings_version_conflicts_total", "Commits refused because another step came first.")
CACHE = Counter("hustings_state_cache_total", "Moves decided on a cached state (hit) or after a read (miss).", ["result"])
WATCHERS = Gauge("hustings_watchers", "WatchGame streams open on this replica.")
UNATTENDED_WAITS = Counter(
    "hustings_unattended_waits_total",
    "Decisions at tables nobody is at (bots, absent or timed-out seats only) put off past this replica's budget for them.",
)
THINKING_PLACE_GIVEN_UP = Counter(
    "hustings_thinking_waits_given_up_total",
    "Due bot decisions handed back to the deadline index after waiting half a claim's lease for this replica's thinking place.",
)
STORE_MEMORY_FILL = Gauge(
    "hustings_store_memory_fill",
    "Redis's used memory over its maxmemory as this replica last read it (the fullest node of a Cluster); 0 where Redis has no maxmemory.",
)
GAMES_REMOVED_FOR_ROOM = Counter(
    "hustings_games_removed_for_room_total",
    "Games this replica removed before their time while Redis was nearly full: finished ones an hour after their end, games in play a day after their last step, least recently played first.",
)
REFUSED_CREATIONS = Counter(
    "hustings_refused_creations_total",
    "CreateGame and AddBot calls refused for what they would cost, by reason: TOO_MANY_GAMES_CREATED (the client's allowance), STORE_NEARLY_FULL (the store's last room is kept for the games in play) or TOO_MANY_OPEN_TABLES (the client keeps as many listed tables waiting as it may).",
    ["reason"],
)
for _reason in ("TOO_MANY_GAMES_CREATED", "STORE_NEARLY_FULL", "TOO_MANY_OPEN_TABLES"):
    REFUSED_CREATIONS.labels(_reason)  # scraped as 0 from the start, so that a rate of it is defined


# ``labels()`` validates its values and takes a lock on every call; the move path asks for the
# same few children again and again, so each is looked up once and kept (children are never
# removed from these metrics).
@functools.cache
def _child(metric: Any, *values: str) -> Any:
    return metric.labels(*values)


def rpc_done(method: str, code: str, seconds: float | None) -> None:
    """Count one finished RPC and, unless ``seconds`` is None (a stream), its handling time."""
    _child(RPCS, method, code).inc()
    if seconds is not None:
        _child(RPC_SECONDS, method).observe(seconds)


def move_applied(kind: str) -> None:
    """Count one move applied to a game of ``kind``."""
    _child(MOVES, kind).inc()


def cache_used(hit: bool) -> None:
    """Count one move decided on a cached state (hit) or after a read (miss)."""
    _child(CACHE, "hit" if hit else "miss").inc()


def refused_creation(reason: str) -> None:
    """Count one CreateGame refused for ``reason``."""
    _child(REFUSED_CREATIONS, reason).inc()


def serve_metrics(address: str) -> WSGIServer:
    """Serve /metrics on ``host:port`` (port 0 picks a free one) from a thread; returns the server
    (``server_port`` is the port; ``shutdown()`` stops it)."""
    host, _, port = address.rpartition(":")
    # "[::1]:9464" as the other faces take it: the address without its brackets.
    server, _thread = start_http_server(int(port), addr=host.strip("[]") or "127.0.0.1")
    return server
