"""Wakes local watchers when any replica commits a step: one pattern subscription per replica.

Pub/sub is at-most-once, so watchers also poll on a timer; a missed message costs latency, never
a gap (watchers always read the log from their last version).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Iterator

import redis.asyncio as aioredis
import structlog
from redis.exceptions import RedisError

from hustings.service.store import UPDATES_PATTERN, game_id_of_channel

log = structlog.get_logger("hustings.notifier")


class Notifier:
    """Routes update messages from Redis to the asyncio events of local watchers."""

    def __init__(self, client: "aioredis.Redis | None") -> None:
        self._client = client
        self._waiters: dict[str, set[asyncio.Event]] = {}
        self._task: asyncio.Task[None] | None = None

    @property
    def watcher_count(self) -> int:
        """How many watchers wait on this replica."""
        return sum(len(w) for w in self._waiters.values())

    async def start(self) -> None:
        """Start listening (no-op without a client, e.g. in engine-only tools)."""
        if self._client is not None and self._task is None:
            self._task = asyncio.create_task(self._run(), name="hustings-notifier")

    async def stop(self) -> None:
        """Stop listening and wake everybody so that streams can end."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, RedisError):
                await self._task
            self._task = None
        self.wake_all()

    def wake_all(self) -> None:
        """Wake every local watcher."""
        for waiters in self._waiters.values():
            for event in waiters:
                event.set()

    @contextlib.contextmanager
    def waiter(self, game_id: str) -> Iterator[asyncio.Event]:
        """An event set whenever ``game_id`` gets a new version."""
        event = asyncio.Event()
        self._waiters.setdefault(game_id, set()).add(event)
        try:
            yield event
        finally:
            waiters = self._waiters.get(game_id)
            if waiters is not None:
                waiters.discard(event)
                if not waiters:
                    del self._waiters[game_id]

    async def _run(self) -> None:
        assert self._client is not None
        while True:
            pubsub = self._client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.psubscribe(UPDATES_PATTERN)
                # After (re)subscribing, anything may have been missed: let watchers re-read.
                self.wake_all()
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is None:
                        continue
                    channel = message["channel"]
                    if isinstance(channel, bytes):
                        channel = channel.decode()
                    game_id = game_id_of_channel(channel)
                    for event in self._waiters.get(game_id or "", ()):
                        event.set()
            except asyncio.CancelledError:
                raise
            except (RedisError, OSError) as error:
                log.warning("notifier_reconnecting", error=type(error).__name__)
                await asyncio.sleep(0.5)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
