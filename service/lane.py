"""One Redis connection that carries every step's commit, pipelined.

Every move is one Lua call to Redis. Sent one by one through redis-py's pool, each call pays for
taking and returning a pooled connection, its own write to the socket, a retry wrapper and a
timeout task, which together cost a replica more CPU than the engine's step. A ``Lane`` holds one
connection of the pool instead, and whatever commands callers queue while the event loop runs
(the moves of many games, arriving together) are written to it in one go and their replies read
back in order. Redis runs them one after another as it would anyway; nothing is made atomic
together and nothing waits for more commands to come: a command queued while the lane is idle
is sent in the same loop iteration's batch.

A lost connection (or a reply that does not come within the socket timeout) is redialled and the
commands not yet answered are sent again, as redis-py's own retry does for a single command.
Every command sent here must therefore be safe to repeat: the commit script is (a repeated
request key answers DUPLICATE, a repeated version check CONFLICT), and so is a read.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.connection import AbstractConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

Command = tuple[Any, ...]
Pending = list[tuple[Command, "asyncio.Future[Any]"]]

RESENDS = 3  # a batch is sent at most this many more times when the connection fails
RESEND_PAUSE_S = (0.01, 0.1, 0.5)  # before each resend: a failover or a restart takes a moment


class Lane:
    """Pipelined commands over one connection held from ``client``'s pool."""

    def __init__(self, client: aioredis.Redis) -> None:
        self._pool = client.connection_pool
        self._connection: AbstractConnection | None = None
        self._timeout_s: float | None = None  # the pool's socket timeout: the bound on a batch
        self._queue: Pending = []
        self._worker: asyncio.Task[None] | None = None
        self._closed = False
        self.batches = 0  # batches written, and the commands in them: the mean batch size
        self.commands = 0

    def call(self, *command: Any) -> "asyncio.Future[Any]":
        """Queue ``command`` (its parts bytes or text); the future gets its reply, or its error:
        a ``ResponseError`` for a command Redis refused, a ``ConnectionError`` or
        ``TimeoutError`` of redis-py once the connection could not be restored."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if self._closed:
            future.set_exception(RedisConnectionError("the store is closed"))
            return future
        self._queue.append((command, future))
        if self._worker is None:
            # Started now, it first runs in the next loop iteration: by then every call made in
            # this one has been queued, and they go out together.
            self._worker = asyncio.get_running_loop().create_task(self._work())
        return future

    async def _work(self) -> None:
        try:
            while self._queue:
                batch, self._queue = self._queue, []
                await self._send(batch)
        finally:
            self._worker = None

    async def _send(self, batch: Pending) -> None:
        """Write ``batch`` and hand out its replies; on a failed connection, redial and resend
        what is unanswered, then give up with the error."""
        pending = list(batch)
        for attempt in range(RESENDS + 1):
            try:
                connection = await self._held()
                data = _packed(pending)
                # One bound on the whole batch, its write and its replies, rather than a timer
                # (and, for the write, a task of its own) per socket operation.
                async with asyncio.timeout(self._timeout_s):
                    await connection.send_packed_command(data, check_health=False)
                    while pending:
                        command, future = pending[0]
                        try:
                            reply = await connection.read_response(timeout=math.inf)
                        except ResponseError as refused:  # this command's own error; the rest follow
                            if not future.done():
                                future.set_exception(refused)
                        else:
                            if not future.done():
                                future.set_result(reply)
                        pending.pop(0)
                self.batches += 1
                self.commands += len(batch)
                return
            except (RedisConnectionError, RedisTimeoutError, OSError, TimeoutError) as failure:
                await self._drop()
                if attempt == RESENDS or self._closed:
                    if not isinstance(failure, (RedisConnectionError, RedisTimeoutError)):
                        # The batch's own bound or the socket: callers see a store error either way.
                        failure = RedisTimeoutError(f"no reply from Redis: {type(failure).__name__}")
                    _fail(pending, failure)
                    return
                await asyncio.sleep(RESEND_PAUSE_S[min(attempt, len(RESEND_PAUSE_S) - 1)])
            except asyncio.CancelledError:  # the store is closing: nobody is left to answer
                await self._drop()
                _fail(pending, RedisConnectionError("the store is closing"))
                raise
            except Exception as failure:  # a reply that breaks the protocol: this connection is done
                await self._drop()
                _fail(pending, failure if isinstance(failure, RedisError) else RedisConnectionError(type(failure).__name__))
                return

    async def _held(self) -> AbstractConnection:
        if self._connection is None:
            connection = await self._pool.get_connection()
            # With a socket timeout redis-py runs every write as a task of its own under
            # wait_for; the batch's bound (above) covers the write instead. The connection gets
            # its timeout back when it returns to the pool. No health check either: a batch that
            # finds the connection dead redials and resends.
            self._timeout_s, connection.socket_timeout = connection.socket_timeout, None
            self._connection = connection
        return self._connection

    async def _drop(self) -> None:
        """Give the connection back closed: the next batch takes (and dials) one afresh."""
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.socket_timeout = self._timeout_s
            await connection.disconnect(nowait=True)
            await self._pool.release(connection)

    async def close(self) -> None:
        """Answer what is queued with an error and return the connection to the pool."""
        self._closed = True
        queued, self._queue = self._queue, []
        _fail(queued, RedisConnectionError("the store is closed"))
        if self._worker is not None:
            self._worker.cancel()
            try:
                await self._worker
            except asyncio.CancelledError:
                pass
        await self._drop()


# RESP's header of a bulk string of each length most arguments have, made once: a commit has
# eighteen arguments, and formatting a header costs more than the rest of packing its argument.
_HEADERS_KEPT = 1024
_BULK_HEADERS = tuple(b"$%d\r\n" % length for length in range(_HEADERS_KEPT))


def _packed(pending: Pending) -> bytes:
    """The commands in Redis' protocol (RESP). Their arguments are bytes or text, so this is one
    join rather than redis-py's general encoder, which costs more than the rest of the send."""
    parts: list[bytes] = []
    headers = _BULK_HEADERS
    for command, _ in pending:
        parts.append(b"*%d\r\n" % len(command))
        for argument in command:
            if isinstance(argument, str):
                argument = argument.encode()
            length = len(argument)
            header = headers[length] if length < _HEADERS_KEPT else b"$%d\r\n" % length
            parts += (header, argument, b"\r\n")
    return b"".join(parts)


def _fail(pending: Pending, error: BaseException) -> None:
    for _, future in pending:
        if not future.done():
            future.set_exception(error)
