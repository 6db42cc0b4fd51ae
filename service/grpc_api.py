"""The gRPC face: thin typed handlers over the GameHost, health and reflection."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import resource
import time
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, TypeVar

import grpc
import structlog
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc
from redis.exceptions import RedisError

from hustings.service import logs, metrics
from hustings.service.errors import ServiceError, internal, store_error, unauthenticated
from hustings.service.host import GameHost
from hustings.service.client_limits import ClientLimits, games_counted
from hustings.service.call_clock import CallClock
from hustings.service.grpc_arrivals import ArrivalInterceptor, Arrivals
from hustings.service.standard_services import HealthService, ReflectionService
from hustings.service.limits import DEFAULT_MAX_CALLS, MAX_REQUEST_BYTES, STEPS_PER_LISTED_GAME
from hustings.v1 import game_service_pb2, game_service_pb2_grpc

log = structlog.get_logger("hustings.grpc")

SERVICE_NAME = game_service_pb2.DESCRIPTOR.services_by_name["GameService"].full_name
MAX_MESSAGE_BYTES = MAX_REQUEST_BYTES  # the largest request answered; a larger one is REQUEST_TOO_LARGE
MAX_RESPONSE_BYTES = 4 << 20  # gRPC's default: a history page of 1000 steps is about half of it
# gRPC's own receive limit sits above it, so that a request a little too large reaches the parser
# and gets the reason (gRPC refuses past its limit before any handler sees the call, with a bare
# RESOURCE_EXHAUSTED, and without reading the body). Each call in flight may hold a body up to it
# in memory: twice the promise, no more.
RECEIVE_BACKSTOP_BYTES = 2 * MAX_MESSAGE_BYTES
RPC_DEADLINE_S = 15.0  # the server's own bound on any unary call
# Streams and unary calls are counted apart (service/limits.py); gRPC's own cap on all RPCs is
# only a backstop above both, with room for health checks and reflection.
RPC_BACKSTOP_HEADROOM = 256

# Descriptors kept back from gRPC's connections: Redis' pool, the listeners, logs, the embedded
# Redis' files; the REST face's connections take the other half of what is left.
DESCRIPTOR_RESERVE = 256
# Room per connection beyond its streams and calls: health checks and reflection.
STREAM_HEADROOM_PER_CONNECTION = 16


@dataclass(frozen=True)
class ConnectionPolicy:
    """How the gRPC face keeps its connections (HTTP/2 streams need no descriptor; connections do).

    ``idle_s``: a connection with no call that long gets GOAWAY (a client reconnects on its next
    call, transparently), so idle channels do not hold descriptors for ever. ``keepalive_s`` and
    ``keepalive_timeout_s``: the server pings each connection every ``keepalive_s`` and closes it,
    ending its streams, when a ping goes unanswered for ``keepalive_timeout_s`` (a peer that
    vanished without a FIN: a phone gone, a NAT entry dropped). ``client_ping_s``: the shortest
    interval of a client's own keepalive pings tolerated (gRPC's default, 5 minutes, would answer
    a client pinging every 30 s with GOAWAY for "too many pings"). ``max_connections``: incoming
    connections at once (past it a new connection is closed at once); None: half of the process's
    descriptors less ``DESCRIPTOR_RESERVE``.
    """

    idle_s: float = 120.0
    keepalive_s: float = 30.0
    keepalive_timeout_s: float = 10.0
    client_ping_s: float = 10.0
    max_connections: int | None = None

    def connection_cap(self) -> int:
        """The cap on incoming connections: as configured, or from the descriptor limit."""
        if self.max_connections is not None:
            return self.max_connections
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft == resource.RLIM_INFINITY:
            soft = 1 << 20
        return max(16, (soft - DESCRIPTOR_RESERVE) // 2)


def server_options(policy: ConnectionPolicy, max_rpcs: int, streams_per_connection: int) -> list[tuple[str, int]]:
    """The gRPC server's channel arguments: message limits, the queue of calls, and how
    connections are kept (``policy``, ``streams_per_connection`` HTTP/2 streams on each)."""
    return [
        ("grpc.max_receive_message_length", RECEIVE_BACKSTOP_BYTES),
        ("grpc.max_send_message_length", MAX_RESPONSE_BYTES),
        ("grpc.so_reuseport", 0),
        # Calls that arrive faster than the event loop takes them up wait in gRPC's queue;
        # past its default (1,000) gRPC cancels them, so a burst of new streams (every
        # spectator of a game reconnecting at once) would be CANCELLED. Queue as many as
        # our own limits admit; they answer the excess with a reason.
        ("grpc.server.max_pending_requests", max_rpcs),
        ("grpc.server.max_pending_requests_hard_limit", max_rpcs),
        # One connection may open no more streams than one client may use (its WatchGame
        # streams and its unary calls), not HTTP/2's unbounded default: each stream costs the
        # server memory before any handler of ours sees it. A stream past it is refused
        # (REFUSED_STREAM); a client within its caps never meets it.
        ("grpc.max_concurrent_streams", streams_per_connection),
        ("grpc.max_connection_idle_ms", int(policy.idle_s * 1000)),
        ("grpc.keepalive_time_ms", int(policy.keepalive_s * 1000)),
        ("grpc.keepalive_timeout_ms", int(policy.keepalive_timeout_s * 1000)),
        # The wait for any ping's answer (gRPC's default is a minute, and its keepalive timeout
        # does not always shorten it): a peer that answers no ping within the keepalive timeout
        # is gone.
        ("grpc.http2.ping_timeout_ms", int(policy.keepalive_timeout_s * 1000)),
        # gRPC sends at most 2 pings while no data is sent (its default), so keepalive would
        # stop pinging a quiet WatchGame stream after two rounds and never notice its peer gone.
        ("grpc.http2.max_pings_without_data", 0),
        # Pings from clients are allowed on a connection without calls too (until it is idle
        # long enough to be closed), and down to every client_ping_s.
        ("grpc.keepalive_permit_without_calls", 1),
        ("grpc.http2.min_ping_interval_without_data_ms", int(policy.client_ping_s * 1000)),
        ("grpc.max_allowed_incoming_connections", policy.connection_cap()),
    ]


R = TypeVar("R")


def bearer_token(context: grpc.aio.ServicerContext) -> str | None:
    """The seat token from ``authorization: Bearer <token>``, or None."""
    for key, value in context.invocation_metadata() or ():
        if key == "authorization":
            text = value.decode() if isinstance(value, bytes) else value
            scheme, _, token = text.partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
            return ""
    return None


class RefusedRequest:
    """Stands for a request body refused before it was parsed: the handler raises ``error()``."""

    def __init__(self, error: Callable[[], ServiceError]) -> None:
        self.error = error


MALFORMED = RefusedRequest(
    lambda: ServiceError(grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST", "the request body is not a valid message")
)
TOO_LARGE = RefusedRequest(
    lambda: ServiceError(
        grpc.StatusCode.RESOURCE_EXHAUSTED, "REQUEST_TOO_LARGE", f"the request exceeds {MAX_MESSAGE_BYTES} bytes"
    )
)


def _lenient(parse: Callable[[bytes], Any]) -> Callable[[bytes], Any]:
    """A request parser that yields MALFORMED instead of raising, so that a bad body gets
    INVALID_ARGUMENT with a reason rather than gRPC's bare INTERNAL, and TOO_LARGE for a body
    over MAX_MESSAGE_BYTES (RESOURCE_EXHAUSTED with its reason, as over REST).

    Fields the proto does not define are dropped from the request: protobuf keeps them, and a
    game's options, table settings and moves are stored as sent, so they would fill its snapshot
    (rewritten on every step), its log and every view of it (tens of kB a request, where REST
    refuses an unknown field). A retry that differs from its first attempt only in them is the
    same request."""

    def lenient(data: bytes) -> Any:
        if len(data) > MAX_MESSAGE_BYTES:
            return TOO_LARGE
        try:
            request = parse(data)
        except Exception:  # noqa: BLE001 - any failure to parse is the client's malformed input
            return MALFORMED
        request.DiscardUnknownFields()
        return request

    return lenient


def service_handler(servicer: "GameServicer") -> grpc.GenericRpcHandler:
    """GameService's method handlers, built from the service descriptor with lenient parsing."""
    descriptor = game_service_pb2.DESCRIPTOR.services_by_name["GameService"]
    handlers = {}
    for method in descriptor.methods:
        request_type = message_factory.GetMessageClass(method.input_type)
        response_type = message_factory.GetMessageClass(method.output_type)
        make = grpc.unary_stream_rpc_method_handler if method.server_streaming else grpc.unary_unary_rpc_method_handler
        handlers[method.name] = make(
            getattr(servicer, method.name),
            request_deserializer=_lenient(request_type.FromString),
            # WatchGame writes updates already serialised once for all the streams that share them.
            response_serializer=_as_written if method.name == "WatchGame" else response_type.SerializeToString,
        )
    return grpc.method_handlers_generic_handler(descriptor.full_name, handlers)


def _as_written(update: bytes) -> bytes:
    """WatchGame's response serialiser: its updates are already the response's bytes."""
    return update


def _unary(method: Callable[..., Awaitable[R]]) -> Callable[..., Awaitable[R]]:
    """Bind the request context for logs and turn ServiceError into a rich gRPC status."""

    name = method.__name__

    @functools.wraps(method)
    async def handler(self: "GameServicer", request: Any, context: grpc.aio.ServicerContext) -> R:
        logs.begin_call(rpc=name, game_id=getattr(request, "game_id", None) or None)
        started = time.perf_counter()
        try:
            if isinstance(request, RefusedRequest):
                raise request.error()
            with self.calls.hold(self.client_of(context)), self.clock.within(RPC_DEADLINE_S):
                response = await method(self, request, context)
        except ServiceError as error:
            # Without its traceback: it holds this frame, which holds the refusal, a cycle left
            # for the collector at every refused call.
            refusal = error.with_traceback(None)
        except RedisError as failure:
            refusal = store_error(failure)
        except TimeoutError:
            refusal = ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED, "SERVER_DEADLINE", "the call took too long; retry")
        except Exception:
            log.exception("rpc_failed")
            refusal = internal()  # never the exception's own text
        except BaseException:  # cancelled: counted as it always was
            metrics.rpc_done(name, "OK", time.perf_counter() - started)
            raise
        else:
            metrics.rpc_done(name, "OK", time.perf_counter() - started)
            return response
        # Counted before the refusal is sent, so a client that has its answer finds its call
        # counted (it was counted after ``abort`` had sent the status, and a scrape of the
        # metrics right after a refusal could miss it).
        metrics.rpc_done(name, refusal.code.name, time.perf_counter() - started)
        _refuse(context, refusal)
        return None  # type: ignore[return-value]  # grpc.aio sends the status set, and no message

    return handler


def _refuse(context: grpc.aio.ServicerContext, error: ServiceError) -> None:
    """Set the call's status to ``error``'s, for a handler that then returns no message. Not
    ``context.abort``: its AbortError, kept by the call's state, and its traceback through the
    call's frames made a cycle of some 40 objects (a dozen frames) at every refused call, each
    left for the collector, whose pauses every call in flight waits out."""
    status = error.to_status()
    context.set_code(status.code)
    context.set_details(status.details)
    context.set_trailing_metadata(status.trailing_metadata)


async def _abort(context: grpc.aio.ServicerContext, error: ServiceError) -> None:
    status = error.to_status()
    await context.abort(status.code, status.details, status.trailing_metadata)


def _auth_error(token: str | None) -> None:
    if token == "":
        raise unauthenticated("MALFORMED_AUTHORIZATION", "authorization must be 'Bearer <seat token>'")


class GameServicer(game_service_pb2_grpc.GameServiceServicer):
    """hustings.v1.GameService."""

    def __init__(self, host: GameHost, max_calls: int = DEFAULT_MAX_CALLS, limits: ClientLimits | None = None) -> None:
        self.host = host
        self.limits = limits if limits is not None else ClientLimits.configured(max_calls)
        self.calls = self.limits.calls
        self.client_of = self.limits.addresses.of_grpc  # who a call comes from, for the per-client limits
        self.clock = CallClock()  # every unary call's deadlines: its request's arrival, then its answer

    def _token(self, context: grpc.aio.ServicerContext) -> str | None:
        token = bearer_token(context)
        _auth_error(token)
        return token

    @_unary
    async def ListGameKinds(self, request: game_service_pb2.ListGameKindsRequest, context: grpc.aio.ServicerContext) -> game_service_pb2.ListGameKindsResponse:
        return self.host.list_kinds()

    @_unary
    async def CreateGame(self, request: game_service_pb2.CreateGameRequest, context: grpc.aio.ServicerContext) -> game_service_pb2.CreateGameResponse:
        async with self.limits.creations.spend(self.client_of(context), request.request_id, games_counted(request)):
            return await self.host.create_game(request)

    @_unary
    async def JoinGame(self, request: game_service_pb2.JoinGameRequest, context: grpc.aio.ServicerContext) -> game_service_pb2.JoinGameResponse:
        with self.limits.joining(self.client_of(context)):
            return await self.host.join_game(request)

    @_unary
    async def GetView(self, request: game_service_pb2.GetViewRequest, context: grpc.aio.ServicerContext) -> game_service_pb2.GetViewResponse:
        view = await self.host.get_view(request.game_id, self._token(context))
        return game_service_pb2.GetViewResponse(view=view)

    @_unary
    async def SubmitMove(self, request: game_service_pb2.SubmitMoveRequest, context: grpc.aio.ServicerContext) -> game_service_pb2.SubmitMoveResponse:
        return await self.host.submit_move(request, self._token(context))

    @_unary
    async def GetHistory(self, request: game_service_pb2.GetHistoryRequest, context: grpc.aio.ServicerContext) -> game_service_pb2.GetHistoryResponse:
        response = await self.host.history(request, self._token(context))
        self.limits.charge_steps(self.client_of(context), len(response.entries))
        return response

    @_unary
    async def GetGameKind(self, request: game_service_pb2.GetGameKindRequest, context: grpc.aio.ServicerContext) -> game_service_pb2.GetGameKindResponse:
        return self.host.get_kind(request.kind)

    @_unary
    async def ListGames(self, request: game_service_pb2.ListGamesRequest, context: grpc.aio.ServicerContext) -> game_service_pb2.ListGamesResponse:
        response = await self.host.list_games(request)
        self.limits.charge_steps(self.client_of(context), len(response.games) * STEPS_PER_LISTED_GAME)
        return response

    @_unary
    async def LeaveGame(self, request: game_service_pb2.LeaveGameRequest, context: grpc.aio.ServicerContext) -> game_service_pb2.LeaveGameResponse:
        with self.limits.leaving(self.client_of(context)):
            return await self.host.leave_game(request.game_id, self._token(context))

    @_unary
    async def ReturnToGame(self, request: game_service_pb2.ReturnToGameRequest, context: grpc.aio.ServicerContext) -> game_service_pb2.ReturnToGameResponse:
        return await self.host.return_to_game(request.game_id, self._token(context))

    @_unary
    async def TakeOverSeat(self, request: game_service_pb2.TakeOverSeatRequest, context: grpc.aio.ServicerContext) -> game_service_pb2.TakeOverSeatResponse:
        with self.limits.joining(self.client_of(context)):
            return await self.host.take_over_seat(request)

    @_unary
    async def AddBot(self, request: game_service_pb2.AddBotRequest, context: grpc.aio.ServicerContext) -> game_service_pb2.AddBotResponse:
        level = await self.host.added_bot_level(request)
        async with self.limits.creations.thinking_bot(self.client_of(context), level):
            return await self.host.add_bot(request, self._token(context))

    @_unary
    async def PlayAgain(self, request: game_service_pb2.PlayAgainRequest, context: grpc.aio.ServicerContext) -> game_service_pb2.PlayAgainResponse:
        token = self._token(context)
        key, games = await self.host.play_again_cost(request.game_id)
        async with self.limits.creations.spend(self.client_of(context), key, games):
            return await self.host.play_again(request.game_id, token)

    async def WatchGame(self, request: game_service_pb2.WatchGameRequest, context: grpc.aio.ServicerContext) -> None:
        """Write each update (a serialised WatchGameResponse, shared by the streams in step) as
        it comes; an error ends the stream with its status."""
        logs.begin_call()
        code = "OK"
        try:
            if isinstance(request, RefusedRequest):
                raise request.error()
            logs.begin_call(rpc="WatchGame", game_id=request.game_id or None)
            # The client is the connection (a gRPC channel): its streams share the per-client cap.
            # Its address (a trusted proxy's forwarded one) shares the per-address cap with the
            # address's other connections and event streams: many connections get no more.
            client = self.limits.addresses.connection_of(context)
            address = self.client_of(context)
            updates = self.host.watchers.watch_encoded(request.game_id, self._token(context), request.from_version, client, address)
            async with contextlib.aclosing(updates):
                async for update in updates:
                    # The write returns once the peer's window has taken the update: a large one
                    # counts as unread until then (service/unread.py).
                    with self.limits.unread.writing(address, len(update)):
                        await context.write(update)
        except ServiceError as error:
            code = error.code.name
            await _abort(context, error)
        except RedisError as failure:
            error = store_error(failure)
            code = error.code.name
            await _abort(context, error)
        except asyncio.CancelledError:
            code = "CANCELLED"  # the client went away (REST counts its streams the same way)
            raise
        except grpc.aio.BaseError:
            # A write found the call over (the client gone mid-write, the server stopped): gRPC
            # ends the call itself, as it did when it wrote the updates of a generator.
            code = "CANCELLED"
            raise
        except Exception:
            code = "INTERNAL"
            log.exception("rpc_failed")
            await _abort(context, internal())
        finally:
            metrics.rpc_done("WatchGame", code, None)


def public_descriptors() -> descriptor_pool.DescriptorPool:
    """The proto files that reflection may serve: the public API, health and reflection, with
    their imports. The process's default pool also holds the storage schema
    (``hustings.storage.v1``), which is not API, so reflection gets a pool of its own."""
    pool = descriptor_pool.DescriptorPool()
    added: set[str] = set()

    def add(file: Any) -> None:
        if file.name in added:
            return
        for dependency in file.dependencies:
            add(dependency)
        proto = descriptor_pb2.FileDescriptorProto()
        file.CopyToProto(proto)
        pool.Add(proto)
        added.add(file.name)

    for file in (game_service_pb2.DESCRIPTOR, health_pb2.DESCRIPTOR, reflection_pb2.DESCRIPTOR):
        add(file)
    return pool


def build_server(
    host: GameHost,
    address: str,
    max_calls: int = DEFAULT_MAX_CALLS,
    limits: ClientLimits | None = None,
    connections: ConnectionPolicy = ConnectionPolicy(),
) -> tuple[grpc.aio.Server, int, health.aio.HealthServicer]:
    """A gRPC server with GameService, health checking and reflection, bound to ``address``
    (``limits``, when given, shared with the replica's REST face; ``connections``, how its
    connections are kept)."""
    servicer = GameServicer(host, max_calls, limits)
    max_rpcs = host.max_watchers + servicer.calls.max_calls + RPC_BACKSTOP_HEADROOM
    streams = host.watchers.limits
    streams_per_connection = min(
        streams.max_per_client + servicer.calls.max_per_client + STREAM_HEADROOM_PER_CONNECTION, streams.max_per_connection
    )
    # Requests still arriving hold places among max_rpcs before any handler runs: each client
    # may have as many arriving as it may have calls, and each must arrive within seconds.
    arrivals = Arrivals(servicer.calls.max_calls, servicer.calls.max_per_client)
    server = grpc.aio.server(
        interceptors=[ArrivalInterceptor(arrivals, servicer.client_of, servicer.clock)],
        maximum_concurrent_rpcs=max_rpcs,
        options=server_options(connections, max_rpcs, streams_per_connection),
    )
    server.add_generic_rpc_handlers((service_handler(servicer),))
    health_servicer = HealthService(host.watchers.limits, servicer.client_of, servicer.limits.addresses.connection_of)
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(
        ReflectionService(
            (SERVICE_NAME, health_pb2.DESCRIPTOR.services_by_name["Health"].full_name, reflection.SERVICE_NAME),
            public_descriptors(),
            host.watchers.limits,
            servicer.client_of,
            servicer.limits.addresses.connection_of,
        ),
        server,
    )
    port = server.add_insecure_port(address)
    if port == 0:
        raise RuntimeError(f"could not bind {address}")
    return server, port, health_servicer
