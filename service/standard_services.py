"""The standard gRPC services beside GameService, health checking (``grpc.health.v1.Health``)
and server reflection, held to the replica's limits.

Their reference servicers keep streams outside the caps that bound WatchGame streams: a
health ``Watch`` stays open for any service name, known or not, as the health protocol asks,
holding the name (up to gRPC's 128 KiB receive limit) while it lasts, and a reflection stream
stays open as long as its client likes. So one connection held 1,000 health watches of 100 kB
names, 380 MB of a replica, or 1,000 reflection streams (26 MB), and an address any number on
more connections, which their streams keep from ever being idle; and the requests on a
reflection stream took nothing of the address's rate of calls (one address had GameService's
descriptors, 51 kB an answer, 1,783 times a second: a whole core and 91 MB/s). Here a service
name longer than any service's is refused, every health ``Watch`` and reflection stream counts
as a stream of its client address and connection (``limits.StreamLimits``), beside the
address's WatchGame streams and event streams, and every reflection request as a call of the
address's rate.
"""

from __future__ import annotations

from typing import Any, AsyncIterator, Callable, Iterable

import grpc
from google.protobuf import descriptor_pool
from grpc_health.v1 import health, health_pb2
from grpc_reflection.v1alpha import reflection, reflection_pb2

from hustings.service.errors import ServiceError, invalid
from hustings.service.limits import StreamLimits

# Characters of a service name: a full name such as ``hustings.v1.GameService`` is a few dozen.
MAX_SERVICE_NAME = 256


class HealthService(health.aio.HealthServicer):
    """The health servicer, with ``Watch`` streams held within ``streams`` as a stream of the
    client address that ``client_of`` gives for a call, and of the connection ``connection_of``
    gives."""

    def __init__(
        self,
        streams: StreamLimits,
        client_of: Callable[[grpc.aio.ServicerContext], str],
        connection_of: Callable[[grpc.aio.ServicerContext], str],
    ) -> None:
        super().__init__()
        self._streams = streams
        self._client_of = client_of
        self._connection_of = connection_of

    async def Check(self, request: health_pb2.HealthCheckRequest, context: grpc.aio.ServicerContext) -> Any:
        """The service's status now; INVALID_ARGUMENT ``BAD_SERVICE_NAME`` for a name too long."""
        await _check_name(request, context)
        return await super().Check(request, context)

    async def Watch(self, request: health_pb2.HealthCheckRequest, context: grpc.aio.ServicerContext) -> None:
        """The service's status, then each change, while the stream is held within the caps
        on streams (RESOURCE_EXHAUSTED with the cap's reason past one)."""
        await _check_name(request, context)
        try:
            with self._streams.hold(self._connection_of(context), None, self._client_of(context)):
                await super().Watch(request, context)
        except ServiceError as error:  # a cap reached: the stream was refused, nothing held
            await _abort(context, error)


class ReflectionService(reflection.aio.ReflectionServicer):  # type: ignore[misc]
    """The reflection servicer for ``service_names`` from ``pool``, each stream held within
    ``streams`` as a stream of the client address that ``client_of`` gives for a call, and of
    the connection ``connection_of`` gives."""

    def __init__(
        self,
        service_names: Iterable[str],
        pool: descriptor_pool.DescriptorPool,
        streams: StreamLimits,
        client_of: Callable[[grpc.aio.ServicerContext], str],
        connection_of: Callable[[grpc.aio.ServicerContext], str],
    ) -> None:
        super().__init__(tuple(service_names), pool=pool)
        self._streams = streams
        self._client_of = client_of
        self._connection_of = connection_of

    async def ServerReflectionInfo(
        self, request_iterator: Any, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[reflection_pb2.ServerReflectionResponse]:
        """An answer to each request, each a call of the address's rate, while the stream is
        held within the caps on streams; the stream ends at the first refusal."""
        address = self._client_of(context)
        try:
            with self._streams.hold(self._connection_of(context), None, address):
                async for response in super().ServerReflectionInfo(self._paced(request_iterator, address), context):
                    yield response
        except ServiceError as error:  # a cap reached, or the rate: refused with its reason
            await _abort(context, error)

    async def _paced(self, requests: Any, address: str) -> AsyncIterator[reflection_pb2.ServerReflectionRequest]:
        """The stream's requests, each let through once it has taken a call of ``address``'s
        rate (CALL_RATE_EXCEEDED with the hint when there is none left)."""
        async for request in requests:
            if self._streams.rate is not None:
                self._streams.rate.take(address)
            yield request


async def _check_name(request: health_pb2.HealthCheckRequest, context: grpc.aio.ServicerContext) -> None:
    if len(request.service) > MAX_SERVICE_NAME:
        await _abort(context, invalid("BAD_SERVICE_NAME", f"a service name is at most {MAX_SERVICE_NAME} characters"))


async def _abort(context: grpc.aio.ServicerContext, error: ServiceError) -> None:
    status = error.to_status()
    await context.abort(status.code, status.details, status.trailing_metadata)
