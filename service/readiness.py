"""Whether this replica can reach Redis, told to the health service.

Every call but ListGameKinds needs Redis, so a replica that cannot reach it would only answer
STORE_UNAVAILABLE. Its health for ``hustings.v1.GameService`` (what balancers and readiness
probes ask) turns NOT_SERVING after a few failed pings in a row, and SERVING again at the first
answer; the server's own health (the empty name, what a liveness probe asks) stays SERVING, since
restarting the process would not bring Redis back. One log line when Redis is lost, one when it
answers again, however long it was away.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Callable

import structlog
from grpc_health.v1 import health_pb2

from hustings.service.background import BackgroundLoop

log = structlog.get_logger("hustings.readiness")

PING_EVERY_S = 1.0
PING_TIMEOUT_S = 2.0  # a Redis this slow to answer PING is as good as away for a caller
FAILURES_BEFORE_NOT_SERVING = 2  # one lost ping (a blip) does not take the replica out


class StoreReadiness(BackgroundLoop):
    """Pings Redis every ``every_s`` and sets ``service``'s health from the answers."""

    task_name = "hustings-readiness"

    def __init__(
        self, client: Any, health: Any, service: str, every_s: float = PING_EVERY_S, also: Callable[[], bool] = lambda: True
    ) -> None:
        super().__init__()
        self._client = client
        self._health = health
        self._service = service
        self._every_s = every_s
        self._also = also  # what else the replica needs to serve (its server secret in use)
        self.failures = 0  # pings failed in a row
        self.reachable = True
        self._told = True  # the health last set: SERVING from the start
        self._lost_at = 0.0

    @property
    def serving(self) -> bool:
        """Whether the replica serves games: Redis answers, and ``also`` holds."""
        return self.reachable and self._also()

    async def _tell(self) -> None:
        """Set the health from ``serving`` when it changed."""
        serving = self.serving
        if serving != self._told:
            self._told = serving
            await self._health.set(self._service, health_pb2.HealthCheckResponse.SERVING if serving else health_pb2.HealthCheckResponse.NOT_SERVING)

    async def ping_once(self) -> bool:
        """Ping Redis once and update the health; returns whether Redis answered."""
        try:
            await asyncio.wait_for(self._client.ping(), PING_TIMEOUT_S)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # any failure to answer is the same to a caller
            self.failures += 1
            if self.reachable and self.failures >= FAILURES_BEFORE_NOT_SERVING:
                self.reachable = False
                self._lost_at = time.monotonic()
                await self._tell()
                log.warning("store_unreachable", cause=type(error).__name__, health="NOT_SERVING", failed_pings=self.failures)
            return False
        self.failures = 0
        if not self.reachable:
            self.reachable = True
            log.info("store_reachable_again", health="SERVING" if self.serving else "NOT_SERVING", away_s=round(time.monotonic() - self._lost_at, 1))
        await self._tell()
        return True

    async def _run(self) -> None:
        while not self._stopping:
            await asyncio.sleep(self._every_s)
            if not self._stopping:
                await self.ping_once()
