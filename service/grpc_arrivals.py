"""Requests still arriving over gRPC.

gRPC reads a unary request's message before any handler sees the call, and meanwhile holds its
body (up to the receive backstop) and one of the server's places for RPCs. A client that opens
calls, announces their messages and never finishes them would hold those places for as long as
its connection lives; a few connections of them fill every place, and then no call is taken at
all. So every method with one request message reads it itself, through ``ArrivalInterceptor``:
the read counts towards the caller's requests in arrival (at most as many as its calls in
flight, and the replica's at most as many as its calls) and must end within ``RECEIPT_S`` (on the
server's CallClock, ``service/call_clock.py``); then the method's own handler runs on the request
as before.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
from typing import Any, AsyncIterator, Awaitable, Callable

import grpc

from hustings.service import metrics
from hustings.service.call_clock import CallClock
from hustings.service.errors import ServiceError, invalid
from hustings.service.limits import SiteTally, count_down

RECEIPT_S = 10.0  # an API request is a few hundred bytes: one packet, or a few retransmissions
GAVE_WAY = "this replica had its maximum of requests arriving, and this client the most of them; retry shortly"


def _exhausted(reason: str, message: str) -> ServiceError:
    return ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, reason, message)


class Arrivals:
    """Requests whose message is still arriving, by client address, with their caps. At the
    replica's cap the client holding the most arriving, when it holds more than one more than
    the newcomer, gives way: its oldest such call is refused (``gave_way``) and the newcomer let
    in. Before, five addresses each under their cap that announced messages and never sent them
    held every place, and every other client's calls were refused. Every call enters here, so
    the counts are plain; the client holding the most is looked for only at the cap."""

    def __init__(self, max_arriving: int, max_per_client: int) -> None:
        if min(max_arriving, max_per_client) < 1:
            raise ValueError("arrival limits must be at least 1")
        self.max_arriving = max_arriving
        self.max_per_client = max_per_client
        self.arriving = 0
        self._by_client: dict[str, int] = {}
        self._tasks: dict[asyncio.Task[Any], str] = {}  # the calls arriving, oldest first, and their clients
        self._gave_way: set[asyncio.Task[Any]] = set()  # cancelled to make room, not yet refused

    def held_by(self, client: str) -> int:
        """How many requests of ``client`` are arriving now."""
        return self._by_client.get(client, 0)

    def enter(self, client: str, task: asyncio.Task[Any]) -> None:
        """Count the request of ``client`` that ``task`` reads in arrival (until ``leave``);
        refuse it with RESOURCE_EXHAUSTED (the reasons of the call caps) when a cap is reached
        that no one gives way at, and then count nothing. Two plain calls rather than a context
        manager: every call enters here."""
        held = self._by_client.get(client, 0)
        if held >= self.max_per_client:
            raise _exhausted(
                "TOO_MANY_CALLS_FOR_CLIENT",
                f"this client has its maximum of {self.max_per_client} requests arriving on this replica; retry shortly",
            )
        if self.arriving >= self.max_arriving and not self._make_room(client):
            raise _exhausted("TOO_MANY_CALLS", f"this replica has {self.max_arriving} requests arriving; retry shortly")
        self.arriving += 1
        self._by_client[client] = held + 1
        self._tasks[task] = client

    def leave(self, client: str, task: asyncio.Task[Any]) -> None:
        """The request of ``client`` that ``task`` reads has arrived, or never will (nothing if
        it gave way)."""
        if self._tasks.pop(task, None) is not None:
            self.arriving -= 1
            count_down(self._by_client, client)

    def gave_way(self, task: asyncio.Task[Any]) -> bool:
        """Whether ``task`` was cancelled to make room (told once)."""
        if task in self._gave_way:
            self._gave_way.discard(task)
            return True
        return False

    def _make_room(self, newcomer: str) -> bool:
        """The oldest call arriving of the room (an IPv6 site's /64s together, or a client alone:
        ``SiteTally.room_of``) holding the most, from its client holding the most, gives way, if
        that room holds more than one more than ``newcomer``'s; whether one did. Compared client
        by client, one /48 holding one call on each of 2,048 /64s held every place. At the cap
        only: a walk of the clients and of the calls arriving (a few thousand at most); the
        counts every call keeps stay plain."""
        rooms: dict[str, int] = {}
        for client, count in self._by_client.items():
            room = SiteTally.room_of(client)
            rooms[room] = rooms.get(room, 0) + count
        room, most = max(rooms.items(), key=lambda item: item[1], default=("", 0))
        if most <= rooms.get(SiteTally.room_of(newcomer), 0) + 1:
            return False
        client = max((c for c in self._by_client if SiteTally.room_of(c) == room), key=self._by_client.__getitem__)
        oldest = next(task for task, whose in self._tasks.items() if whose == client)
        self.leave(client, oldest)
        self._gave_way.add(oldest)
        oldest.cancel()  # its read ends refused TOO_MANY_CALLS (``ArrivalInterceptor._receive``)
        return True


class ArrivalInterceptor(grpc.aio.ServerInterceptor):
    """Serves every method with one request message as one that reads its request itself,
    under ``arrivals`` and within ``RECEIPT_S`` on ``clock`` (``client_of`` names a call's client)."""

    def __init__(
        self, arrivals: Arrivals, client_of: Callable[[grpc.aio.ServicerContext], str], clock: CallClock
    ) -> None:
        self.arrivals = arrivals
        self.client_of = client_of
        self.clock = clock
        self._handlers: dict[str, grpc.RpcMethodHandler] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        """The method's handler, reading its request under the arrival limits."""
        handler = await continuation(handler_call_details)
        if handler is None or handler.request_streaming:
            return handler
        method = handler_call_details.method
        wrapped = self._handlers.get(method)
        if wrapped is None or wrapped.response_serializer is not handler.response_serializer:
            wrapped = self._handlers[method] = self._wrap(method, handler)
        return wrapped

    def _wrap(self, method: str, handler: grpc.RpcMethodHandler) -> grpc.RpcMethodHandler:
        name = method.rpartition("/")[2]
        receive = functools.partial(self._receive, name)
        if not handler.response_streaming:
            unary = handler.unary_unary

            async def unary_behaviour(requests: Any, context: grpc.aio.ServicerContext) -> Any:
                return await unary(await receive(context), context)

            return grpc.stream_unary_rpc_method_handler(
                unary_behaviour, handler.request_deserializer, handler.response_serializer
            )
        streaming = handler.unary_stream
        if inspect.isasyncgenfunction(streaming) or inspect.isasyncgenfunction(getattr(streaming, "__func__", None)):

            async def generator_behaviour(requests: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
                async for response in streaming(await receive(context), context):
                    yield response

            return grpc.stream_stream_rpc_method_handler(
                generator_behaviour, handler.request_deserializer, handler.response_serializer
            )

        async def writer_behaviour(requests: Any, context: grpc.aio.ServicerContext) -> None:
            await streaming(await receive(context), context)  # it writes its responses itself

        return grpc.stream_stream_rpc_method_handler(writer_behaviour, handler.request_deserializer, handler.response_serializer)

    async def _receive(self, name: str, context: grpc.aio.ServicerContext) -> Any:
        """The call's request, read under the arrival limits; aborts the call otherwise."""
        client = self.client_of(context)
        task = asyncio.current_task()
        assert task is not None
        try:
            self.arrivals.enter(client, task)
        except ServiceError as error:
            await _refuse(context, name, error)
        try:
            with self.clock.within(RECEIPT_S):
                request = await context.read()
        except TimeoutError:
            error = ServiceError(
                grpc.StatusCode.DEADLINE_EXCEEDED, "SERVER_DEADLINE", f"the request did not arrive within {RECEIPT_S:.0f} s"
            )
            await _refuse(context, name, error)
        except asyncio.CancelledError:
            if not self.arrivals.gave_way(task):
                raise
            task.uncancel()
            await _refuse(context, name, _exhausted("TOO_MANY_CALLS", GAVE_WAY))
        finally:
            self.arrivals.leave(client, task)
        if request is grpc.aio.EOF:
            await _refuse(context, name, invalid("MALFORMED_REQUEST", "the call ended before its request"))
        return request


async def _refuse(context: grpc.aio.ServicerContext, name: str, error: ServiceError) -> None:
    metrics.rpc_done(name, error.code.name, None)
    status = error.to_status()
    await context.abort(status.code, status.details, status.trailing_metadata)
