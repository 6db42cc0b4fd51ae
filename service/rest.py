"""The REST/JSON face: the RPCs of ``hustings.v1.GameService`` as HTTP resources, in-process.

Routes come from the proto's ``google.api.http`` annotations (``rest_routes.http_rules``);
handlers are as thin as the gRPC ones: they build the request message, call the GameHost and
write canonical JSON. Errors are a ``google.rpc.Status`` in JSON (with its ``ErrorInfo`` reason)
under the HTTP status of the gRPC code; WatchGame is a Server-Sent-Events stream. The same server
serves the OpenAPI document at ``/openapi.json`` and the browser client at ``/play``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import time
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, AsyncContextManager, AsyncIterator, Awaitable, Callable

import grpc
import structlog
from aiohttp import web
from google.protobuf import json_format
from google.protobuf.message import Message
from redis.exceptions import RedisError

from hustings.service import logs, metrics
from hustings.service.errors import ServiceError, internal, invalid, store_error, unauthenticated
from hustings.service.catalogue import rest_answer
from hustings.service.client_limits import CallRate, ClientLimits, RetryLater, games_counted
from hustings.service.defaults import DEFAULT_GRACE_S
from hustings.service.grpc_api import RPC_DEADLINE_S
from hustings.service.host import GameHost
from hustings.service.limits import MAX_REQUEST_BYTES, STEPS_PER_CALL, STEPS_PER_LISTED_GAME, steps_for_rendered
from hustings.service.play_files import PlayFiles
from hustings.service.rest_connections import (
    API_SECURITY_HEADERS,
    CORS_HEADERS,
    BodyArrivals,
    ConnectionGate,
    GatedConnection,
    GatedSite,
    HttpSettings,
    SparseLog,
    bound_event_stream_buffers,
    status_phrase,
    connection_caps,
    connection_rate,
    connection_factory,
    drop,
)
from hustings.service.watch import SparseRefusals, from_version_ahead
from hustings.service.rest_routes import HTTP_STATUS, HttpRule, build_request, http_rules, to_json
from hustings.service.sse_events import RenderedEvents
from hustings.v1 import game_pb2, game_service_pb2

log = structlog.get_logger("hustings.rest")

SERVICE = game_service_pb2.DESCRIPTOR.services_by_name["GameService"]
MAX_BODY_BYTES = MAX_REQUEST_BYTES
# Chunks a chunked request body may come in. A body of the API is a few hundred bytes, sent in
# one chunk or a few; each chunk costs the event loop a call of aiohttp's (about 0.8 us), so a
# 60 kB body of one-byte chunks cost 45-49 ms against 0.4 ms sent with a Content-Length.
MAX_BODY_CHUNKS = 64
# Calls' worth charged to a client whose request's body was left unread and its connection
# closed (a body on a GET, one past MAX_BODY_CHUNKS, a chunked body answered before it came):
# what of it had arrived was parsed anyway (one-byte chunks cost 7 ms a connection on average),
# and the client opens another connection. Charged, such a client soon meets its call rate,
# and then its new connections are closed at once (``ClientLimits.flooding``).
UNREAD_BODY_CALLS = 8
# Refusals of bodies no client sends but to cost the replica: each parsed the chunks of a
# socket's read before it was refused (7 ms a request on average, 0.8 us a one-byte chunk), a
# cost no call rate catches, since such a client's connections come one after another. Its
# address then counts as flooding for a refill: its new connections are closed at once.
FLOODING_BODIES = frozenset({"BODY_NOT_ALLOWED", "TOO_MANY_CHUNKS"})
KEEPALIVE_S = 15.0
# Answers 200 while the replica serves games and 503 while it cannot reach Redis or is stopping.
READY_PATH = "/readyz"
# The share of a stop's grace that aiohttp waits for calls in flight once it has closed their
# connections, and again once it has cancelled them (``RestServer.stop``).
AIOHTTP_SHARE_OF_GRACE = 0.1
# READY_PATH is free of the call rate (see ``_metered_beside_rpcs``) but has a rate of its own
# per address, where the replica has a call rate: a balancer probes a replica every few seconds,
# and unbounded, one address pipelining it over 100 connections had 10,000 answers a second and
# made another client's GetView 60 times slower (1.0 -> 60 ms).
READY_PER_SECOND = 50.0
READY_BURST = 100
SSE_RETRY_MS = 2000
EVENT_STREAM_HEADERS = {
    "Content-Type": "text/event-stream; charset=utf-8",
    "Cache-Control": "no-cache",
    "X-Accel-Buffering": "no",  # a proxy in front (nginx) passes each event on at once
}
STATIC = resources.files("hustings.service") / "static"
OPENAPI_PATH = "/openapi.json"
# Set on a response (aiohttp responses are mappings) to the ServiceError it answers with, so that
# the metrics and the log see the gRPC code of a refused call or of a stream that ended in error.
OUTCOME = web.ResponseKey("hustings.outcome", ServiceError)
CANCELLED = ServiceError(grpc.StatusCode.CANCELLED, "CLIENT_GONE", "the client went away")
# An event stream whose client took no event for the write deadline: it is not reading, or gone.
NOT_READING = ServiceError(grpc.StatusCode.CANCELLED, "CLIENT_NOT_READING", "the client took no event in time")
_not_reading_log = SparseLog("event_streams_ended_unread", "event streams ended: their clients took no event in time")

PREFLIGHT_MAX_AGE_S = 600

# Security headers, set from constant dicts whole on each response (one path check per call). Every
# response (API_SECURITY_HEADERS, with their reasons in rest_connections): nosniff, no Referer,
# X-Frame-Options DENY and a policy that allows nothing; a response's policy does not bind a
# fetch() or EventSource caller, so API clients of any origin lose nothing.
#
# The page at /play and its files get a policy of their own. The page keeps every seat token it
# holds in the browser's storage, so a script injected into this origin could take them all, and a
# page of another site must not frame it to steer a player's clicks. It allows the page's own files
# and nothing else: scripts only from this origin (no inline script, no eval), calls only to this
# origin (the API and the event stream), no plugins, no <base>, forms posting only here, framed by
# nobody. Two allowances the page needs, each as narrow as it can be:
# - style-src-attr 'unsafe-inline': the game renderers colour a party's tokens and pieces with a
#   style attribute (``style: `background:${colour}``` set through setAttribute), which is refused
#   without it. It allows style attributes only, never a <style> element or a stylesheet from
#   elsewhere (style-src stays 'self'); and a style attribute can load nothing beyond img-src.
# - img-src data:: the page's icon is ``data:,`` (empty, so that the browser asks for no
#   /favicon.ico); refused, Chromium logs a violation on every load.
PAGE_POLICY = "; ".join((
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    # The page writes no HTML from strings (every node is built by dom.js's h()): an HTML or
    # script sink given a string (innerHTML, document.write, a script's text) throws instead.
    "require-trusted-types-for 'script'",
    "trusted-types 'none'",
))
API_HEADERS = {**CORS_HEADERS, **API_SECURITY_HEADERS}
PAGE_HEADERS = {**API_HEADERS, "Content-Security-Policy": PAGE_POLICY}
PAGE_PATH = "/play"


Unary = Callable[[GameHost, Any, "str | None"], Awaitable[Message]]


async def _list_kinds(host: GameHost, request: Any, token: str | None) -> Message:
    return host.list_kinds()


async def _create(host: GameHost, request: Any, token: str | None) -> Message:
    return await host.create_game(request)


async def _join(host: GameHost, request: Any, token: str | None) -> Message:
    return await host.join_game(request)


async def _view(host: GameHost, request: Any, token: str | None) -> Message:
    return game_service_pb2.GetViewResponse(view=await host.get_view(request.game_id, _seat_token(token)))


async def _move(host: GameHost, request: Any, token: str | None) -> Message:
    return await host.submit_move(request, _seat_token(token))


async def _history(host: GameHost, request: Any, token: str | None) -> Message:
    return await host.history(request, _seat_token(token))


async def _list_games(host: GameHost, request: Any, token: str | None) -> Message:
    return await host.list_games(request)


async def _get_kind(host: GameHost, request: Any, token: str | None) -> Message:
    return host.get_kind(request.kind)


# Every unary RPC of GameService; WatchGame (server streaming) is served by ``_watch``.
UNARY: dict[str, Unary] = {
    "ListGameKinds": _list_kinds,
    "CreateGame": _create,
    "JoinGame": _join,
    "GetView": _view,
    "SubmitMove": _move,
    "GetHistory": _history,
    "ListGames": _list_games,
    "GetGameKind": _get_kind,
    "LeaveGame": lambda host, request, token: host.leave_game(request.game_id, _seat_token(token)),
    "ReturnToGame": lambda host, request, token: host.return_to_game(request.game_id, _seat_token(token)),
    "TakeOverSeat": lambda host, request, token: host.take_over_seat(request),
    "AddBot": lambda host, request, token: host.add_bot(request, _seat_token(token)),
    "PlayAgain": lambda host, request, token: host.play_again(request.game_id, _seat_token(token)),
}
STREAMING = {"WatchGame"}


def _seat_token(token: str | None) -> str | None:
    if token == "":
        raise unauthenticated("MALFORMED_AUTHORIZATION", "authorization must be 'Bearer <seat token>'")
    return token


def bearer_token(request: web.Request) -> str | None:
    """The seat token from ``Authorization: Bearer <token>``; "" when malformed, None when absent."""
    header = request.headers.get("Authorization")
    if header is None:
        return None
    scheme, _, token = header.partition(" ")
    token = token.strip()
    if scheme.lower() == "bearer" and token and token.isascii() and token.isprintable():
        return token
    return ""


def status_json(code: grpc.StatusCode, reason: str, message: str, metadata: dict[str, str] | None = None) -> dict[str, Any]:
    """A google.rpc.Status with one ErrorInfo, in canonical JSON."""
    return json_format.MessageToDict(ServiceError(code, reason, message, metadata).status_proto())


def error_response(error: ServiceError) -> web.Response:
    """The HTTP response for a refused request; one that says when to retry has its RetryInfo
    in the details and ``Retry-After``."""
    response = web.json_response(json_format.MessageToDict(error.status_proto()), status=HTTP_STATUS.get(error.code, 500))
    if isinstance(error, RetryLater):
        response.headers["Retry-After"] = error.retry_after_header()
    response[OUTCOME] = error
    return response


def _http_error(code: grpc.StatusCode, http_status: int, reason: str, message: str) -> web.Response:
    return web.json_response(status_json(code, reason, message), status=http_status)


@dataclass
class RestServer:
    """A running REST/JSON face: its bound port and the means to stop it."""

    host: GameHost
    limits: ClientLimits = field(default_factory=ClientLimits)  # shared with the gRPC face
    settings: HttpSettings = field(default_factory=HttpSettings)
    gate: ConnectionGate | None = None  # the open connections, once serving
    arrivals: BodyArrivals | None = None  # the request bodies still arriving, once serving
    runner: web.AppRunner | None = None
    port: int = 0
    grace_s: float = DEFAULT_GRACE_S  # for the calls in flight at a stop
    _streams: set[asyncio.Task[Any]] = field(default_factory=set)
    _calls: int = 0  # RPCs in flight
    _no_calls: asyncio.Event | None = None  # set when the last ends, while the face stops
    events: RenderedEvents = field(default_factory=RenderedEvents)  # shared by the event streams in step
    refusals: SparseRefusals = field(default_factory=SparseRefusals)  # event streams refused at their start
    # Whether the replica can serve games (it reaches Redis): READY_PATH's answer, as gRPC health
    # gives it for GameService. The replica sets it; a face started alone is always ready.
    ready: Callable[[], bool] = lambda: True

    async def stop(self) -> None:
        """End the event streams and stop taking connections; then give the calls in flight
        (``grace_s``, most of it before aiohttp closes their connections) to finish, their
        bodies still arriving among them. aiohttp, once it stops, reads nothing more from a
        connection: a call whose body had begun to arrive went unanswered."""
        for task in list(self._streams):
            task.cancel()
        for task in list(self._streams):
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.runner is not None:
            for site in list(self.runner.sites):
                await site.stop()
            self._take_no_more_calls()
            await self._calls_ended(self.grace_s * (1 - 2 * AIOHTTP_SHARE_OF_GRACE))
            await self.runner.cleanup()
            self.runner = None
        log.info("rest_stopped")

    def _take_no_more_calls(self) -> None:
        """Close the connections that wait for a request, and have the others close once their
        call is answered: a connection kept alive took new calls for as long as the stop waited.
        One with a call in hand is never closed now (aiohttp would read no more of its body)."""
        server = self.runner.server if self.runner is not None else None
        for connection in list(server.connections if server is not None else ()):
            if isinstance(connection, GatedConnection) and connection.idle():
                connection.close()
            else:
                connection.keep_alive(False)

    async def _calls_ended(self, within_s: float) -> None:
        """Wait until no RPC is in flight, or ``within_s``."""
        if not self._calls:
            return
        self._no_calls = asyncio.Event()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(within_s):
                await self._no_calls.wait()

    def _call_ended(self) -> None:
        self._calls -= 1
        if not self._calls and self._no_calls is not None:
            self._no_calls.set()

    # --- handlers -----------------------------------------------------------------------------
    def _unary_handler(self, rule: HttpRule) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        call = UNARY[rule.name]

        async def handle(request: web.Request) -> web.StreamResponse:
            params = _path_params(rule, request)
            logs.begin_call(rpc=rule.name, face="rest", game_id=params.get("game_id"))
            self._calls += 1
            try:
                client = self.limits.addresses.of_http(request)
                # A body still arriving is counted among its client's bodies arriving, not its
                # calls in flight, and has a deadline of its own (``_arrived``).
                body = await self._arrived(request, client) if rule.body else b""
                with self.limits.calls.hold(client):  # the same per-client limits as gRPC
                    # A long body counts as more calls, by what decoding and checking it takes
                    # (about what writing as much JSON does: a 60 kB body of lists 3.5 ms), even
                    # when it is then refused: one address sent such bodies at its rate and
                    # took a whole core.
                    self.limits.charge_steps(client, steps_for_rendered(len(body)))
                    message = build_request(rule, params, _query(request), body)
                    async with asyncio.timeout(RPC_DEADLINE_S):  # the same server deadline as gRPC
                        async with self._charged(rule.name, client, message):
                            response = await call(self.host, message, bearer_token(request))
            except web.HTTPRequestEntityTooLarge:
                return _too_large()
            except _BodyRefused as refused:
                return refused.response
            except TimeoutError:
                return error_response(
                    ServiceError(grpc.StatusCode.DEADLINE_EXCEEDED, "SERVER_DEADLINE", "the call took too long; retry")
                )
            except ServiceError as error:
                return error_response(error)
            except RedisError as failure:
                return error_response(store_error(failure))
            finally:
                self._call_ended()
            if isinstance(response, game_service_pb2.GetGameKindResponse):
                return rest_answer(request, response)  # cacheable: ETag, If-None-Match, fixed bytes
            text = json.dumps(to_json(response))
            # A long answer counts as more calls, by what it took to make (a history page's steps,
            # a lobby page's games) and to write as JSON, which costs several times as much.
            steps = steps_for_rendered(len(text))
            if isinstance(response, game_service_pb2.GetHistoryResponse):
                steps += len(response.entries)
            elif isinstance(response, game_service_pb2.ListGamesResponse):
                steps += len(response.games) * STEPS_PER_LISTED_GAME
            self.limits.charge_steps(client, steps)
            return web.Response(text=text, content_type="application/json")

        return handle

    def _charged(self, name: str, client: str, message: Any) -> AsyncContextManager[Any]:
        """What the call ``name`` takes from its client's allowances while it runs, as over gRPC:
        CreateGame its games, AddBot its bot's, PlayAgain its table's, LeaveGame its calls, JoinGame
        and TakeOverSeat their seat at another client's listed table; other calls nothing."""
        if name in ("JoinGame", "TakeOverSeat"):
            return self._joining(client)
        if name == "CreateGame":
            return self.limits.creations.spend(client, message.request_id, games_counted(message))
        if name == "AddBot":
            return self._bot_charged(client, message)
        if name == "PlayAgain":
            return self._again_charged(client, message)
        if name == "LeaveGame":
            return self._leave_charged(client)
        return contextlib.nullcontext()

    @contextlib.asynccontextmanager
    async def _joining(self, client: str) -> AsyncIterator[None]:
        """A JoinGame of ``client`` (``ClientLimits.joining``)."""
        with self.limits.joining(client):
            yield

    @contextlib.asynccontextmanager
    async def _leave_charged(self, client: str) -> AsyncIterator[None]:
        """A LeaveGame charged as its commit goes out (``ClientLimits.leaving``)."""
        with self.limits.leaving(client):
            yield

    @contextlib.asynccontextmanager
    async def _bot_charged(self, client: str, message: Any) -> AsyncIterator[None]:
        """An AddBot charged for the bot it adds (its level, else the table's)."""
        async with self.limits.creations.thinking_bot(client, await self.host.added_bot_level(message)):
            yield

    @contextlib.asynccontextmanager
    async def _again_charged(self, client: str, message: Any) -> AsyncIterator[None]:
        """A PlayAgain charged as a CreateGame of the finished game's table (given back unless
        it makes the next game)."""
        key, games = await self.host.play_again_cost(message.game_id)
        async with self.limits.creations.spend(client, key, games):
            yield

    async def _arrived(self, request: web.Request, client: str) -> bytes:
        """The request's body. One that has not wholly arrived when its call begins counts,
        while it arrives, among its client's bodies arriving (``BodyArrivals``: as many as its
        calls in flight, the replica's as many as its calls, and at that cap the address
        holding the most gives way). Before, such bodies held calls in flight: five addresses
        sending a byte of a body on 420 connections each held every call of a replica, and every
        other client's calls, over gRPC too, were refused TOO_MANY_CALLS for as long as they
        sent them again."""
        if request.content.is_eof() or self.arrivals is None:
            return await self._body(request)  # in hand already: read without a wait
        connection = request.protocol
        self.arrivals.enter(client, connection)
        try:
            return await self._body(request)
        finally:
            self.arrivals.leave(client, connection)

    async def _body(self, request: web.Request) -> bytes:
        """The request's body, read within the body deadline; ``_BodyRefused`` when it is too
        large, late, broken, or its client hung up."""
        if request.content_length is not None and request.content_length > MAX_BODY_BYTES:
            raise web.HTTPRequestEntityTooLarge(MAX_BODY_BYTES, request.content_length)  # refused unread
        try:
            async with asyncio.timeout(self.settings.body_deadline_s):
                if request.content_length is not None:
                    return await request.read()
                return await _chunked_body(request)
        except TimeoutError:
            late = ServiceError(
                grpc.StatusCode.DEADLINE_EXCEEDED,
                "BODY_TIMEOUT",
                f"the request body did not arrive within {self.settings.body_deadline_s:g} s",
            )
            raise _BodyRefused(_closing(late, 408)) from None
        except ConnectionError:
            raise _BodyRefused(_closing(CANCELLED, 499)) from None  # nobody is left to answer
        except web.RequestPayloadError:  # a chunked body that breaks its own encoding
            raise _BodyRefused(_closing(invalid("MALFORMED_HTTP_REQUEST", "the request body is not well-formed"), 400)) from None

    def _watch_handler(self, rule: HttpRule) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def handle(request: web.Request) -> web.StreamResponse:
            params = _path_params(rule, request)
            logs.begin_call(rpc=rule.name, face="rest", game_id=params.get("game_id"))
            try:
                message = build_request(rule, params, _query(request), b"")
                last_event_id = request.headers.get("Last-Event-ID", "").strip()
                if last_event_id:
                    if not re.fullmatch(r"[0-9]{1,18}", last_event_id):
                        raise invalid("BAD_LAST_EVENT_ID", "Last-Event-ID must be a version number")
                    message.from_version = int(last_event_id)
                if message.from_version < 0:
                    raise invalid("BAD_FROM_VERSION", "from_version must be 0 or more")
                token = _seat_token(bearer_token(request))
                address = self.limits.addresses.of_http(request)  # as unary calls count it
                # Refuse with a plain HTTP error, before the stream starts, what the stream would
                # refuse: a client at its cap or over its rate first, with nothing read; then an
                # unknown game, a foreign token, a version ahead. The read is the stream's
                # opening call (the stream counts no other), so a refusal after it is paid for
                # as a refused unary call is, and its body is counted among the calls in flight.
                self.host.watchers.limits.check(_stream_client(address), token, address, message.game_id)
                with self.limits.calls.hold(address):
                    view = await self.host.get_view(message.game_id, token)
                if message.from_version > view.version:
                    raise from_version_ahead(view.version)
            except ServiceError as error:
                return error_response(error)
            except RedisError as failure:
                return error_response(store_error(failure))
            if view.status == game_pb2.GAME_STATUS_FINISHED and message.from_version >= view.version:
                # Nothing is left to send and nothing will follow. An EventSource reconnects
                # whenever a stream closes, even after `event: end`, with the last id it saw; 204
                # is the HTML standard's word for "stop reconnecting".
                return web.Response(status=204, headers={"Cache-Control": "no-cache"})
            if request.method == "HEAD":
                # The stream's headers, without its content: no stream is opened or held.
                return web.Response(headers=EVENT_STREAM_HEADERS)
            task = asyncio.current_task()
            assert task is not None
            self._streams.add(task)
            try:
                return await self._stream(request, message, token, address)
            finally:
                self._streams.discard(task)

        return handle

    async def _stream(
        self, request: web.Request, message: game_service_pb2.WatchGameRequest, token: str | None, address: str
    ) -> web.StreamResponse:
        response = web.StreamResponse(headers=EVENT_STREAM_HEADERS)
        await response.prepare(request)
        bound_event_stream_buffers(request.transport)
        if self.gate is not None and isinstance(request.protocol, GatedConnection):
            self.gate.streaming(request.protocol)  # it never gives way to make room
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue(maxsize=16)

        async def produce() -> None:
            try:
                updates = self.host.watchers.watch(
                    message.game_id, token, message.from_version, _stream_client(address), address, opening_counted=True
                )
                async for update in updates:
                    await queue.put(("update", update))
                await queue.put(("end", None))
            except ServiceError as error:
                await queue.put(("error", error))
            except RedisError as failure:
                await queue.put(("error", store_error(failure)))
            except Exception:
                log.exception("watch_failed")
                await queue.put(("error", ServiceError(grpc.StatusCode.INTERNAL, "INTERNAL", "internal error")))

        producer = asyncio.create_task(produce())
        write_deadline_s = self.settings.event_write_deadline_s

        def gone() -> None:
            # The client closed its connection: end the stream now, not at the next write
            # (a keep-alive comes every KEEPALIVE_S), so that its place under the stream caps is
            # given up at once and its seat no longer renewed as present. A full queue means the
            # loop below is writing, and that write fails.
            if not queue.full():
                queue.put_nowait(("gone", None))

        protocol = request.protocol
        if isinstance(protocol, GatedConnection):
            protocol.when_lost(gone)

        async def send(data: bytes) -> None:
            # A client that stops reading fills the socket's buffers and then blocks the write:
            # past the deadline the stream ends, and its connection with it.
            async with asyncio.timeout(write_deadline_s):
                await response.write(data)

        first = True
        try:
            await send(f"retry: {SSE_RETRY_MS}\n\n".encode())
            while True:
                try:
                    kind, item = await asyncio.wait_for(queue.get(), KEEPALIVE_S)
                except asyncio.TimeoutError:
                    await send(b": keepalive\n\n")
                    continue
                if kind == "gone":
                    response[OUTCOME] = CANCELLED
                    break
                if kind == "update":
                    event = await self.events.event_in_steps(item)
                    if first:
                        # Its steps were counted when the stream opened; writing them as JSON
                        # costs several times as much, and counts as a REST answer's JSON does.
                        self.limits.charge_steps(address, steps_for_rendered(len(event)))
                        first = False
                    try:
                        with self.limits.unread.writing(address, len(event)):  # a large one, until it is taken
                            await send(event)
                    except ServiceError as error:
                        kind, item = "error", error  # ends the stream with its reason, as a refusal
                    else:
                        continue
                if kind == "error":
                    response[OUTCOME] = item
                    # The error's own status, as every other refusal answers it: its ErrorInfo
                    # metadata and, for a refusal that says when to retry, its RetryInfo.
                    data = json.dumps(json_format.MessageToDict(item.status_proto()), separators=(",", ":"))
                    await send(f"event: error\ndata: {data}\n\n".encode())
                else:
                    await send(b"event: end\ndata: {}\n\n")
                break
        except TimeoutError:
            response[OUTCOME] = NOT_READING
            _not_reading_log.note()
            if request.transport is not None:
                drop(request.transport)  # what it holds unsent would block the stream's end too
        except (ConnectionResetError, asyncio.CancelledError):
            response[OUTCOME] = CANCELLED  # the client went away, or the server is stopping
        finally:
            if isinstance(protocol, GatedConnection):
                protocol.when_lost(None)
            producer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await producer
        return response


async def _chunked_body(request: web.Request) -> bytes:
    """A chunked body read to its end, refused (``_BodyRefused``, 400 ``TOO_MANY_CHUNKS``, the
    connection closed without reading the rest) past ``MAX_BODY_CHUNKS`` chunks, and 413 past
    ``MAX_BODY_BYTES`` bytes."""
    parts: list[bytes] = []
    size = chunks = 0
    while True:  # bounded: at most MAX_BODY_CHUNKS chunks and MAX_BODY_BYTES bytes are taken
        data, chunk_ends = await request.content.readchunk()
        if not data and not chunk_ends:
            return b"".join(parts)
        size += len(data)
        if size > MAX_BODY_BYTES:
            _close_unread(request)
            raise web.HTTPRequestEntityTooLarge(MAX_BODY_BYTES, size)
        parts.append(data)
        chunks += chunk_ends
        if chunks > MAX_BODY_CHUNKS:
            _close_unread(request)
            refused = invalid("TOO_MANY_CHUNKS", f"a chunked request body may come in at most {MAX_BODY_CHUNKS} chunks")
            raise _BodyRefused(_closing(refused, 400))


def _close_unread(request: web.Request) -> None:
    """Close the request's connection once it is answered, leaving the rest of its body unread
    (``GatedConnection.close_unread``)."""
    protocol = request.protocol
    if isinstance(protocol, GatedConnection):
        protocol.close_unread()


class _BodyRefused(Exception):
    """A request body that will not be read: the answer, which closes the connection."""

    def __init__(self, response: web.Response) -> None:
        super().__init__(response.status)
        self.response = response


def _closing(error: ServiceError, http_status: int) -> web.Response:
    """The answer to a request whose body was not read to its end: the connection then closes,
    since what is left of the body would be taken for the next request."""
    response = web.json_response(status_json(error.code, error.reason, error.message), status=http_status)
    response[OUTCOME] = error
    response.force_close()
    return response


def _too_large() -> web.Response:
    """413, which says more than RESOURCE_EXHAUSTED's usual 429: this body will never fit."""
    error = ServiceError(grpc.StatusCode.RESOURCE_EXHAUSTED, "REQUEST_TOO_LARGE", f"the body exceeds {MAX_BODY_BYTES} bytes")
    response = web.json_response(status_json(error.code, error.reason, error.message), status=413)
    response[OUTCOME] = error
    return response


def _counted(
    rule: HttpRule,
    handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
    refusals: SparseRefusals,
    address_of: Callable[[web.Request], str],
) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    """``handler`` counted in the same RPC metrics as the gRPC face, by method and gRPC code.

    Like gRPC's, a WatchGame stream is counted when it ends but not timed (its length is the
    client's choice). A stream refused before it starts is logged here, sparsely (``refusals``),
    with the client address its limits count (``address_of``);
    one that ends in error after it started is logged where streams are served
    (``service/watch.py``), for both faces."""

    async def handle(request: web.Request) -> web.StreamResponse:
        started = time.perf_counter()
        outcome: ServiceError | None = CANCELLED
        response: web.StreamResponse | None = None
        try:
            response = await handler(request)
            outcome = response.get(OUTCOME)
            return response
        except asyncio.CancelledError:
            raise
        except Exception:
            outcome = internal()  # the error middleware logs it and answers 500
            raise
        finally:
            code = outcome.code.name if outcome is not None else "OK"
            metrics.RPCS.labels(rule.name, code).inc()
            metrics.REST_RPCS.labels(rule.name, code).inc()
            if not rule.streaming:
                metrics.RPC_SECONDS.labels(rule.name).observe(time.perf_counter() - started)
            elif outcome is not None and response is not None and not response.prepared:
                address = address_of(request)
                refusals.note(outcome, client=_stream_client(address), address=address)  # any client causes these at will: logged sparsely

    return handle


def _stream_client(address: str) -> str:
    """Who holds an event stream, for the per-client cap: its client address (each stream has
    an HTTP/1.1 connection of its own, so a port would count every stream apart), the one the
    unary calls and the per-address cap count (behind a trusted proxy, the forwarded one)."""
    return f"rest:{address}"


def _path_params(rule: HttpRule, request: web.Request) -> dict[str, str]:
    return {path: request.match_info[path.replace(".", "__")] for path in rule.path_fields}


def _query(request: web.Request) -> dict[str, list[str]]:
    query: dict[str, list[str]] = {}
    for key, value in request.query.items():
        query.setdefault(key, []).append(value)
    return query


@web.middleware
async def _json_errors(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
    """Router and framework errors as google.rpc.Status JSON too; a bug is a logged 500."""
    try:
        response = await handler(request)
    except web.HTTPNotFound:
        return _http_error(grpc.StatusCode.NOT_FOUND, 404, "NO_SUCH_ROUTE", "no route has this path")
    except web.HTTPMethodNotAllowed as refused:
        answer = _http_error(grpc.StatusCode.UNIMPLEMENTED, 405, "METHOD_NOT_ALLOWED", "this route does not take this HTTP method")
        answer.headers["Allow"] = ", ".join(sorted(refused.allowed_methods))  # as a 405 must say (RFC 9110)
        return answer
    except web.HTTPRequestEntityTooLarge:
        return _too_large()
    except web.HTTPException as error:
        if error.status >= 400:
            # The status line's standard phrase, never a text that aiohttp or a caller put in the exception.
            code = grpc.StatusCode.INVALID_ARGUMENT if error.status < 500 else grpc.StatusCode.INTERNAL
            if error.status == HTTP_STATUS[grpc.StatusCode.PERMISSION_DENIED]:  # a static folder, which lists nothing
                code = grpc.StatusCode.PERMISSION_DENIED
            return _http_error(code, error.status, "HTTP_ERROR", status_phrase(error.status))
        raise
    except (asyncio.CancelledError, ConnectionResetError):
        raise
    except Exception:
        log.exception("rest_internal_error", path=request.path[:100])
        return _http_error(grpc.StatusCode.INTERNAL, 500, "INTERNAL", "internal error")
    return response


def _unread_bodies_closed(
    limits: ClientLimits,
) -> Callable[[web.Request, Callable[[web.Request], Awaitable[web.StreamResponse]]], Awaitable[web.StreamResponse]]:
    """Close a connection whose chunked body was answered before it all came (a refusal of any
    kind, a route that takes none) rather than read the rest, and charge ``UNREAD_BODY_CALLS``
    to the client of a request whose connection closes with its body unread (and count it as
    flooding after ``FLOODING_BODIES``). Every chunk costs the event loop a call, and aiohttp
    read the rest of a body after answering, for up to ``LINGER_S``: one connection sending
    600 kB bodies of one-byte chunks to GET routes took a whole core."""

    @web.middleware
    async def closed(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
        response = None
        try:
            response = await handler(request)
            if "Transfer-Encoding" in request.headers and not request.content.is_eof():
                _close_unread(request)
                response.force_close()
            return response
        finally:
            protocol = request.protocol
            if isinstance(protocol, GatedConnection) and protocol.closing_unread:
                client = limits.addresses.of_http(request)
                limits.charge_steps(client, UNREAD_BODY_CALLS * STEPS_PER_CALL)
                outcome = response.get(OUTCOME) if response is not None else None
                if outcome is not None and outcome.reason in FLOODING_BODIES:
                    limits.flood(client)  # the gate closes its new connections (a trusted proxy's it never does)

    return closed


@web.middleware
async def _plain_bodies(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
    """Refuse a transfer coding other than plain ``chunked`` (``gzip, chunked`` among them): the
    body would be taken as chunked and its other coding ignored. Refuse a content coding other
    than ``identity`` (415): bodies are never unpacked (the connections do not decompress). Every
    body of the API is a few hundred bytes; unpacked as it came, on every route, a 1 MB gzip body
    cost 0.7 s of the event loop, and a broken one logged a traceback. Refuse a body on a GET or
    HEAD (400 ``BODY_NOT_ALLOWED``), the connection closed without reading it: no route of those
    methods reads one."""
    codings = request.headers.getall("Transfer-Encoding", ())
    if codings and [coding.strip().lower() for coding in codings] != ["chunked"]:
        refused = invalid("UNSUPPORTED_TRANSFER_ENCODING", "the only transfer coding accepted is chunked")
        return _closing(refused, 400)
    contents = request.headers.getall("Content-Encoding", ())
    if any(coding.strip().lower() not in ("", "identity") for value in contents for coding in value.split(",")):
        refused = invalid("UNSUPPORTED_CONTENT_ENCODING", "request bodies are not compressed: send them as they are")
        return _closing(refused, 415)
    if request.method in ("GET", "HEAD") and request.body_exists:
        _close_unread(request)
        return _closing(invalid("BODY_NOT_ALLOWED", f"a {request.method} request carries no body"), 400)
    return await handler(request)


@web.middleware
async def _preflight(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
    """A CORS preflight is answered here, for every path; its headers come from ``_cors``."""
    if request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
        return web.Response(status=204, headers={"Access-Control-Max-Age": str(PREFLIGHT_MAX_AGE_S)})
    return await handler(request)


def _metered_beside_rpcs(
    limits: ClientLimits, unmetered: set[Callable[[web.Request], Awaitable[web.StreamResponse]]]
) -> Callable[[web.Request, Callable[[web.Request], Awaitable[web.StreamResponse]]], Awaitable[web.StreamResponse]]:
    """Every request whose handler is not in ``unmetered`` counted as a call of its client,
    under the same caps and rate: the OpenAPI document (277 kB), /play and its files, a CORS
    preflight, a route that does not exist. Unmetered, one address pulled the document 2,000
    times a second, 565 MB/s, from a replica that answers it 300 RPCs a second. The RPCs count
    their own calls; READY_PATH is free, as gRPC health's Check is: a balancer's probe, often
    sent from an address many clients share, is never refused for their calls (a 429 would take
    a serving replica out of rotation), and it answers from memory at the cost of a refusal. It
    has a rate of its own instead (``READY_PER_SECOND``), many times any balancer's.

    A 429 ``CALL_RATE_EXCEEDED`` to a client that is flooding (``ClientLimits.flooding``: more
    calls refused than a burst, faster than its rate) closes its connection once answered, and
    the connection gate resets that address's new connections until it stops: otherwise each of
    its connections, every request pipelined ahead on it, is answered in turn with everyone
    else's (a refusal costs the replica about 220 µs, a 404 200 µs, a GetView 750 µs), and 100
    such connections from one address made another client's calls 60 times slower. A client
    that waits as it is told never floods, and keeps its connection; so does a trusted proxy,
    which pools the connections of all its callers.

    A GET or HEAD with a body (refused inside, ``_plain_bodies``) is counted on every route, the
    free ones and the RPCs that count their own calls among them: no probe sends one, and
    uncounted, one address sent them to /readyz without end."""

    @web.middleware
    async def metered(request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]) -> web.StreamResponse:
        client = None
        if request.match_info.handler in unmetered and not (request.method in ("GET", "HEAD") and request.body_exists):
            response = await handler(request)
        else:
            client = limits.addresses.of_http(request)
            try:
                with limits.calls.hold(client):
                    response = await handler(request)  # the error middleware inside answers its errors
            except ServiceError as refused:  # a cap or the rate: the request was not served
                response = error_response(refused)
        if response.status == 429:
            _close_if_flooding(limits, request, response, client or limits.addresses.of_http(request))
        return response

    return metered


def _close_if_flooding(limits: ClientLimits, request: web.Request, response: web.StreamResponse, client: str) -> None:
    """Close the connection of a 429 ``CALL_RATE_EXCEEDED`` once it is answered if its
    ``client`` is flooding and the connection is not a trusted proxy's (what it holds pipelined
    is dropped)."""
    outcome = response.get(OUTCOME)
    if outcome is None or outcome.reason != "CALL_RATE_EXCEEDED" or response.prepared:
        return
    if limits.flooding(client) and not limits.addresses.from_proxy(request):
        response.force_close()


async def _cors(request: web.Request, response: web.StreamResponse) -> None:
    """CORS and security headers on every response just before its headers are sent: unlike a
    middleware, this also reaches responses that a handler sends itself (the event stream) and
    static files. The page and its files get the page's policy, every other response the API's."""
    path = request.path
    page = path.startswith(PAGE_PATH) and (len(path) == len(PAGE_PATH) or path[len(PAGE_PATH)] == "/")
    response.headers.update(PAGE_HEADERS if page else API_HEADERS)


def build_app(server: RestServer) -> web.Application:
    """The aiohttp application: annotated RPC routes, the OpenAPI document and /play."""
    unmetered: set[Callable[[web.Request], Awaitable[web.StreamResponse]]] = set()
    middlewares = [
        _unread_bodies_closed(server.limits), _metered_beside_rpcs(server.limits, unmetered), _plain_bodies, _preflight, _json_errors,
    ]
    app = web.Application(middlewares=middlewares, client_max_size=MAX_BODY_BYTES)
    app.on_response_prepare.append(_cors)
    rules = http_rules(SERVICE)
    for rule in rules:
        if rule.name in UNARY:
            handler = server._unary_handler(rule)
        elif rule.name in STREAMING:
            handler = server._watch_handler(rule)
        else:
            raise RuntimeError(f"no REST handler for {rule.name}")
        counted = _counted(rule, handler, server.refusals, server.limits.addresses.of_http)
        unmetered.add(counted)
        app.router.add_route(rule.verb.upper(), rule.aiohttp_path, counted)
        if rule.verb == "get":
            # RFC 9110: HEAD wherever GET is, answered as GET without its content (aiohttp sends
            # a HEAD answer's headers only); the event stream answers its headers and holds nothing.
            app.router.add_route("HEAD", rule.aiohttp_path, counted)
    openapi = (STATIC / "openapi.json").read_bytes()

    async def openapi_document(request: web.Request) -> web.Response:
        return web.Response(body=openapi, content_type="application/json")

    play_files = PlayFiles(STATIC / "play")
    page = play_files.files["index.html"]

    async def play(request: web.Request) -> web.StreamResponse:
        return page.answer(request)  # with its ETag, as its files are

    async def root(request: web.Request) -> web.StreamResponse:
        raise web.HTTPFound("/play")

    async def play_folder(request: web.Request) -> web.StreamResponse:
        # /play/ is the static files' folder, which lists nothing: the client has one address.
        query = request.rel_url.raw_query_string
        raise web.HTTPFound(f"/play?{query}" if query else "/play")

    limits = server.limits
    probes = CallRate(READY_PER_SECOND, READY_BURST) if isinstance(limits.calls.rate, CallRate) else None

    async def readiness(request: web.Request) -> web.Response:
        # For balancers that check over HTTP (deploy/envoy.yaml): the same as gRPC health's
        # answer for GameService. No Redis call: the replica's own pings decide.
        if probes is not None:
            client = limits.addresses.of_http(request)
            try:
                probes.take(client)
            except ServiceError as refused:  # 429 CALL_RATE_EXCEEDED, with its hint
                if probes.flooding(client):
                    limits.flood(client)  # then ``_close_if_flooding`` closes it, and the gate its new ones
                return error_response(refused)
        serving = server.ready() and not server.host.closing
        return web.json_response({"status": "SERVING" if serving else "NOT_SERVING"}, status=200 if serving else 503)

    app.router.add_get(OPENAPI_PATH, openapi_document)
    app.router.add_get(READY_PATH, readiness)
    unmetered.add(readiness)
    app.router.add_get("/play", play)
    app.router.add_get("/play/", play_folder)  # before the files' route, which would refuse it
    app.router.add_get("/play/{path:.+}", play_files.handle)
    app.router.add_get("/", root)
    return app


def _split(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"HTTP address must be HOST:PORT, not {address!r}")
    return host.strip("[]"), int(port)


async def start_rest(
    host: GameHost,
    address: str,
    limits: ClientLimits | None = None,
    settings: HttpSettings | None = None,
    grace_s: float = DEFAULT_GRACE_S,
) -> RestServer:
    """Serve the REST/JSON face of ``host`` on ``address`` (port 0 picks a free one), under
    ``limits`` (the replica's, shared with its gRPC face) and the connection ``settings``; once
    it stops, calls in flight have ``grace_s`` to finish."""
    server = RestServer(host, limits if limits is not None else ClientLimits(), settings or HttpSettings())
    total, per_address = connection_caps(server.settings)
    rate = connection_rate(server.settings, server.limits.calls.rate)
    server.gate = ConnectionGate(total, per_address, server.limits.addresses.trusted_proxies, server.limits.flooding, rate)
    server.arrivals = BodyArrivals(server.limits.calls.max_calls, server.limits.calls.max_per_client)
    app = build_app(server)
    server.grace_s = grace_s
    # aiohttp waits its shutdown timeout for the calls in flight, then as long again for those it
    # has told to stop; the calls have had the rest of the grace already (``RestServer.stop``).
    runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=grace_s * AIOHTTP_SHARE_OF_GRACE)
    await runner.setup()
    bind_host, bind_port = _split(address)
    site = GatedSite(runner, bind_host, bind_port, connection_factory(runner, server.gate, server.settings), server.gate)
    await site.start()
    server.runner = runner
    server.port = int(runner.addresses[0][1])
    log.info("rest_started", port=server.port)
    return server
