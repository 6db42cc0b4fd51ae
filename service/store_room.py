"""Room in Redis for new games, kept for the games in play.

Redis with ``maxmemory`` and ``noeviction`` (deploy/redis.conf) refuses every write once full:
the moves of every game in play would fail ``STORE_FULL`` together. A crowd creating games (each
address within its own allowance) could fill it that way. So each replica reads Redis's memory
once a second, and while it is at ``until_percent`` of ``maxmemory`` or more (on a Cluster: on
any node) CreateGame is refused RESOURCE_EXHAUSTED ``STORE_NEARLY_FULL``; joins, moves, clocks
and bots go on in the room left. Creation opens again once finished games have expired (or an
operator has given Redis more memory). A Redis without ``maxmemory`` has no limit to keep room
below; nothing is refused then. One log line when creation stops, one when it opens again; a
warning (``store_may_evict_games``) when Redis has a limit and a policy that evicts keys to keep
within it, which would drop games rather than refuse writes.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import grpc
import structlog
from redis.exceptions import NoPermissionError, ResponseError

from hustings.service import metrics
from hustings.service.background import BackgroundLoop
from hustings.service.errors import ServiceError

log = structlog.get_logger("hustings.store_room")

CHECK_EVERY_S = 1.0
CHECK_TIMEOUT_S = 2.0
DEFAULT_NEW_GAMES_UNTIL_PERCENT = 90.0


def store_nearly_full() -> ServiceError:
    """RESOURCE_EXHAUSTED ``STORE_NEARLY_FULL``: no new games until the store has room again.
    No retry hint: room comes back as finished games expire, not within a call's budget."""
    return ServiceError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "STORE_NEARLY_FULL",
        "the game store keeps its last room for the games in play; create a game later",
    )


def _limited_nodes(info: dict[str, Any]) -> list[dict[str, Any]]:
    """The nodes with a ``maxmemory`` of an ``INFO memory`` answer (one server's, or a
    Cluster's by node)."""
    nodes = [info] if "used_memory" in info else [node for node in info.values() if isinstance(node, dict)]
    return [node for node in nodes if int(node.get("maxmemory", 0) or 0) > 0]


def memory_fill(info: dict[str, Any]) -> float | None:
    """The fullest node's ``used_memory / maxmemory`` from an ``INFO memory`` answer (one
    server's, or a Cluster's by node); None when no node has a ``maxmemory``."""
    fills = [int(node["used_memory"]) / int(node["maxmemory"]) for node in _limited_nodes(info)]
    return max(fills) if fills else None


def evicting_policies(info: dict[str, Any]) -> list[str]:
    """The ``maxmemory-policy`` of every node with a ``maxmemory`` that evicts keys to keep
    within it (every policy but ``noeviction``: a game's keys all expire some day, so even the
    ``volatile-`` ones take games), from an ``INFO memory`` answer; sorted, each once."""
    policies = {str(node.get("maxmemory_policy", "noeviction")) for node in _limited_nodes(info)}
    return sorted(policies - {"noeviction"})


def refused_for_good(refused: ResponseError) -> bool:
    """Whether Redis refused a command to this user for good: not permitted by its ACL
    (``NOPERM``), or unknown (renamed away, as managed services do), rather than for now (``BUSY``
    running a slow script, ``LOADING`` its data)."""
    return isinstance(refused, NoPermissionError) or str(refused).lower().startswith(("unknown command", "err unknown command"))


class StoreRoom(BackgroundLoop):
    """Reads Redis's memory every ``every_s`` and refuses new games while it is at
    ``until_percent`` of its limit or more."""

    task_name = "hustings-store-room"

    def __init__(self, client: Any, until_percent: float = DEFAULT_NEW_GAMES_UNTIL_PERCENT, every_s: float = CHECK_EVERY_S) -> None:
        super().__init__()
        if not 0 < until_percent <= 100:
            raise ValueError("until_percent must be above 0 and at most 100")
        self._client = client
        self._until = until_percent / 100
        self._every_s = every_s
        self.fill: float | None = None  # the last reading; None: no limit, or not read yet
        self.full = False  # new games refused
        self.unreadable = False  # Redis refuses INFO to this user: no reading will ever come
        self._full_since = 0.0
        self._evicting: list[str] = []  # the evicting policies last read

    def refusal(self) -> ServiceError | None:
        """``STORE_NEARLY_FULL`` while new games are refused, else None."""
        return store_nearly_full() if self.full else None

    async def check_once(self) -> None:
        """Read Redis's memory once and open or close creation by it. A failed reading changes
        nothing: the health's pings say when Redis is away."""
        try:
            info = await asyncio.wait_for(self._client.info("memory"), CHECK_TIMEOUT_S)
        except asyncio.CancelledError:
            raise
        except ResponseError as refused:
            if not refused_for_good(refused):
                # BUSY (a script past its time limit), LOADING, ...: Redis answers again soon.
                self.failed(log, "store_memory_unread", refused)
                return
            # A Redis that does not let this user run INFO (an ACL, a managed service that
            # renamed the command): no reading will come, so no new game is ever refused; said once.
            log.warning("store_memory_unreadable", cause=type(refused).__name__, new_games="never refused")
            self.unreadable = True
            return
        except Exception as error:
            self.failed(log, "store_memory_unread", error)
            return
        self.fill = memory_fill(info)
        evicting = evicting_policies(info)
        if evicting != self._evicting:
            self._evicting = evicting
            if evicting:  # at start and whenever it changes: Redis would drop games to make room
                log.warning("store_may_evict_games", maxmemory_policy=",".join(evicting), expected="noeviction")
        metrics.STORE_MEMORY_FILL.set(self.fill or 0.0)
        full = self.fill is not None and self.fill >= self._until
        if full and not self.full:
            self._full_since = time.monotonic()
            log.warning("new_games_refused", memory_fill=round(self.fill or 0, 3), until=self._until)
        elif self.full and not full:
            log.info("new_games_accepted_again", memory_fill=round(self.fill or 0, 3), refused_s=round(time.monotonic() - self._full_since, 1))
        self.full = full

    async def _run(self) -> None:
        # The replica reads once before it serves (``Replica.start``): the loop's first is a period later.
        while not self._stopping and not self.unreadable:
            await asyncio.sleep(self._every_s)
            if not self._stopping:
                await self.check_once()


class NoLimit:
    """The room of a host without a reading (a tool's or a test's own host): never full."""

    full = False

    def refusal(self) -> ServiceError | None:
        return None
