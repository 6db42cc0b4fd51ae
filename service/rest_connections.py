"""The REST face's connections: how many may be open, how long one may idle or take over its
headers, and what a request the HTTP parser refuses is answered.

aiohttp serves each HTTP/1.1 connection with one protocol object (``RequestHandler``). Here a
subclass of it counts the connection against two caps when it opens, per client address and per
replica, and closes one past either at once (a reset: no answer, no log line per refusal, no
task started), unless at the replica's cap an idle connection of the address holding the most
gives way to it (``ConnectionGate._make_room``); before that, as it is accepted, a connection from an address that is flooding,
far past its call rate (``ClientLimits.flooding``; ``hustings.service.rest`` closes its open
connections at their next 429), or one past its address's rate of new connections
(``ConnectionRate``) is reset the same way. It answers a
malformed request with a fixed ``google.rpc.Status`` instead of aiohttp's plain text, which
quotes the offending line back (an ``Authorization`` header and its seat token among them).
``GatedSite`` listens with it in place of ``web.TCPSite``.

The rate and the flood are looked at as a connection is accepted (``GatedListener``), before
asyncio makes anything of it: a connection refused there costs the replica 11-30 µs, where one
reset once its protocol is made cost 75 µs and one let in that sends nothing 90-135 µs. An address
opening connections as fast as it can (and closing them at once, or after one request) would
otherwise keep the replica's one event loop busy with them alone, none of it counted as a call.

The address counted is the socket's peer: a connection is counted before any byte of it is
read, so a trusted proxy's ``x-forwarded-for`` is not known yet. Behind a proxy the peer is the
proxy; a peer within ``--trusted-proxy`` is therefore counted only against the replica's cap
(the proxy pools the connections of all its callers and is trusted to limit them itself), and
not against the rate of new connections.
"""

from __future__ import annotations

import asyncio
import ipaddress
import resource
import socket
import struct
import time
from dataclasses import dataclass
from http import HTTPStatus
from typing import Any, Callable, Iterable

import grpc
import structlog
from aiohttp import web
from aiohttp.web_protocol import RequestHandler
from google.protobuf import json_format

from hustings.service.client_limits import (
    DEFAULT_CLIENTS_PER_IPV6_SITE,
    DEFAULT_MAX_BUCKETS,
    MAX_KNOWN_PEERS,
    ClientBuckets,
    canonical_address,
    client_of,
)
from hustings.service.errors import RetryLater, ServiceError, exhausted
from hustings.service.grpc_api import DESCRIPTOR_RESERVE
from hustings.service.limits import Lines, SiteTally

log = structlog.get_logger("hustings.rest")

# An idle connection is closed after this long. aiohttp's keep-alive timer also runs from the
# moment a connection opens, or its previous answer is sent, until the next request's headers are
# complete, so it is the deadline for headers as well: a client that sends them a byte at a time
# holds its connection this long at most. A bot or a browser at a table calls every few seconds
# while it plays and keeps its connection; one quiet for 30 s is most likely gone or parked, and
# opening it again costs a TCP handshake. (aiohttp's default is 3,630 s.)
KEEP_ALIVE_TIMEOUT_S = 30.0
# A request body must have arrived this long after its call began (meanwhile it counts among its
# client's requests arriving, ``BodyArrivals``); every body of the API is a few hundred bytes.
BODY_DEADLINE_S = 10.0
# An event of a Server-Sent-Events stream must be taken by the client's connection within this
# long, or the stream ends: a client that stops reading (or is gone) would otherwise keep its
# stream, its share of the stream caps and its seat shown present for as long as the game lasts.
EVENT_WRITE_DEADLINE_S = 30.0
# The buffers of an event stream's connection: the kernel's send buffer (which doubles what it is
# given) and the transport's high-water mark. Left to the kernel's tuning, a connection whose
# client reads nothing absorbs megabytes of events (3.9 MB measured on loopback) before a write
# waits at all, so the write deadline would never be reached and 10,000 such streams could pin
# gigabytes of kernel memory; this way at most about 100 KiB of unread events are held (tens of
# events of any game), and a client that reads keeps up with room to spare.
EVENT_SEND_BUFFER_BYTES = 16 << 10
# Data sent to a client and left unacknowledged this long closes the connection in the kernel
# (Linux TCP_USER_TIMEOUT): a peer that vanished without a FIN or a reset (a phone that lost its
# network, a dropped NAT entry) is noticed at the next write instead of after the kernel's
# retries (about 15 minutes). Every event stream writes at least its keep-alive comment every 15 s.
UNACKNOWLEDGED_S = 30.0
# Open HTTP connections on a replica: one per event stream (HTTP/1.1 has no multiplexing) and a
# few per caller for calls, so as many as the replica's streams (``--max-watchers``).
DEFAULT_MAX_CONNECTIONS = 10_000
# From one client address: its event streams (``--max-streams-per-address``, 2,000) and 500 more
# for calls beside them; a quarter of the replica's, so four addresses cannot take them all.
DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 2_500
# New connections from one client address: a burst of this many seconds of its rate
# (``HttpSettings.new_connections_per_second``), then the rate. A browser opens 6 connections to
# a host at once, and a page reload as many again.
CONNECTION_BURST_S = 2.0
# By default that rate is this many times the address's call rate (``--calls-per-client-per-second``),
# so a client that opens a connection for each call (curl, urllib, a script's requests.get) meets
# its call rate first, and is answered 429 with its Retry-After rather than reset with no hint:
# at the same rate, its bucket of connections ran out with its calls' and its next connection,
# which its call rate would have answered 429, was reset. A client that waits as hinted then
# opens connections at its call rate; one that does not is soon flooding, and reset anyway.
CONNECTIONS_PER_CALL = 2.0
# And never fewer than this many at once by default: a browser's page and its reloads, and
# probes, at a replica given a small rate of calls.
MIN_DEFAULT_CONNECTION_BURST = 64
# Connections the kernel completes and queues for the replica to accept while its event loop is
# busy (aiohttp's default is 128; the kernel caps it at net.core.somaxconn, 4,096 by default):
# past it a new connection's handshake is dropped and its client waits a second or more to try
# again, so one address opening connections in a burst would hold back everyone's next one.
LISTEN_BACKLOG = 1024
# Connections refused at most this many at a time as they are accepted, before the event loop
# serves anything else: the rest are accepted at its next turn.
REFUSALS_PER_ACCEPT = 256
# How far the replica looks for an idle connection to close when it is at its cap and another
# address asks for one (``ConnectionGate._make_room``): this many addresses and busy connections
# together, the addresses holding the most first.
ROOM_LOOKS = 64
# How long a connection keeps reading (and dropping) the rest of a body it answered without
# reading to its end (too large, too late, a refused call) before it closes: aiohttp lingers so
# that a client still sending gets to read the answer, and every body of the API is sent within
# milliseconds on any working link. (aiohttp's default is 10 s.)
LINGER_S = 2.0
# Refusals and malformed requests are logged at most once per this many seconds each, with how
# many there were since the last line: any client can cause them at will.
LOG_INTERVAL_S = 10.0
SERVER_NAME = "hustings"  # the Server header: no versions of Python or aiohttp
# The headers of every answer that is not the page at /play (hustings.service.rest adds CORS to
# them, and gives the page a policy of its own): no MIME sniffing, no Referer, and a policy under
# which an answer opened as a document (navigated to, framed) runs, loads and is framed by nothing.
# A fetch() or EventSource caller is not bound by the policy of what it fetches.
API_SECURITY_HEADERS = {
    "Server": SERVER_NAME,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'",
    "X-Frame-Options": "DENY",  # frame-ancestors for browsers that predate it
}

# CORS on every response (answers, errors, the event stream, static files, a request the parser
# refused): any origin may call the API, since seat tokens travel in a header and never in
# cookies. Browsers may read these response headers too, beyond the safelisted ones: Date among
# them, the server's time, by which a page of another origin counts a clock down as /play does. A
# request may carry Cache-Control (a page's fetch of an event stream often sends no-cache).
CORS_HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Headers": "Authorization, Content-Type, Last-Event-ID, If-None-Match, Cache-Control",
    "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
    "Access-Control-Expose-Headers": "ETag, Retry-After, Date",
}
# What aiohttp answers itself (``GatedConnection.handle_error``): a script of any origin that
# sent a request the parser refuses reads MALFORMED_HTTP_REQUEST, not a CORS failure.
_ERROR_HEADERS = {**CORS_HEADERS, **API_SECURITY_HEADERS}


@dataclass(frozen=True)
class HttpSettings:
    """The REST face's connection settings (the caps are ``serve`` flags, the times are not)."""

    max_connections: int = DEFAULT_MAX_CONNECTIONS
    max_connections_per_address: int = DEFAULT_MAX_CONNECTIONS_PER_ADDRESS
    # New connections per second from one client address (a burst of ``CONNECTION_BURST_S`` of
    # it), or None: ``CONNECTIONS_PER_CALL`` times the address's calls (its ``CallRate``,
    # unbounded without one).
    new_connections_per_second: float | None = None
    keep_alive_s: float = KEEP_ALIVE_TIMEOUT_S
    body_deadline_s: float = BODY_DEADLINE_S
    event_write_deadline_s: float = EVENT_WRITE_DEADLINE_S

    def __post_init__(self) -> None:
        if min(self.max_connections, self.max_connections_per_address) < 1:
            raise ValueError("connection caps must be at least 1")
        if self.new_connections_per_second is not None and not self.new_connections_per_second > 0:
            raise ValueError("the rate of new connections must be positive")
        if min(self.keep_alive_s, self.body_deadline_s, self.event_write_deadline_s) <= 0:
            raise ValueError("connection timeouts must be positive")


class SparseLog:
    """One kind of event any client can cause at will, logged at most once per ``interval_s``
    with how many happened since the previous line (the first at once)."""

    def __init__(self, event: str, text: str, interval_s: float = LOG_INTERVAL_S) -> None:
        self.event = event
        self.text = text
        self.interval_s = interval_s
        self.count = 0
        self._next_s = 0.0

    def note(self) -> None:
        """Count one; write a line if none was written within the interval."""
        self.count += 1
        now = time.monotonic()
        if now >= self._next_s:
            log.info(self.event, count=self.count, text=self.text)
            self.count = 0
            self._next_s = now + self.interval_s


def _never_refused(retry_after_s: float) -> RetryLater:
    raise AssertionError("a connection is refused by ConnectionRate.admits, which raises nothing")


class ConnectionRate(ClientBuckets):
    """A token bucket of new connections per client address: ``burst`` at once, refilled at
    ``per_second``; the table bounded as ``ClientBuckets`` bounds it (full buckets dropped, at
    most ``max_buckets`` addresses, the least recently seen forgotten first)."""

    def __init__(
        self,
        per_second: float,
        burst: int,
        max_buckets: int = DEFAULT_MAX_BUCKETS,
        clock: Callable[[], float] = time.monotonic,
        sites: int = DEFAULT_CLIENTS_PER_IPV6_SITE,
    ) -> None:
        super().__init__(per_second, burst, _never_refused, max_buckets, clock, sites)


def connection_rate(settings: "HttpSettings", calls: Any) -> ConnectionRate | None:
    """The rate of new connections per address under ``settings``, given the replica's rate of
    calls per address ``calls`` (a ``ClientBuckets``, or None: none); None when unbounded."""
    per_second = settings.new_connections_per_second
    sites = calls.sites if isinstance(calls, ClientBuckets) else DEFAULT_CLIENTS_PER_IPV6_SITE  # the calls' share of a site
    if per_second is not None:
        return ConnectionRate(per_second, max(1, round(per_second * CONNECTION_BURST_S)), sites=sites)
    if not isinstance(calls, ClientBuckets):
        return None
    # The calls' burst, doubled too: a replica given a small rate of calls and a burst of them
    # still lets a client make its burst of calls, a connection each, and its balancer's probes
    # (never refused for the calls' rate) beside them.
    burst = max(calls.burst, calls.per_second * CONNECTION_BURST_S) * CONNECTIONS_PER_CALL
    return ConnectionRate(calls.per_second * CONNECTIONS_PER_CALL, max(MIN_DEFAULT_CONNECTION_BURST, round(burst)), sites=sites)


class ConnectionGate:
    """The open HTTP connections of a replica, per client address and in all, with their caps,
    and the new connections of each address with their rate."""

    def __init__(
        self,
        max_connections: int,
        max_per_address: int,
        trusted_proxies: Iterable[Any] = (),
        flooding: Callable[[str], bool] = lambda address: False,
        rate: ConnectionRate | None = None,
    ) -> None:
        self.max_connections = max_connections
        self.max_per_address = max_per_address
        self.trusted_proxies = tuple(trusted_proxies)  # ipaddress networks: not capped per address
        # Whether an address is far past its call rate (``ClientLimits.flooding``): its new
        # connections are closed at once until it is not.
        self.flooding = flooding
        self.rate = rate  # new connections per address; None: unbounded
        # A peer's host as accept() gives it -> (the client it counts as, whether it is within a
        # trusted proxy); emptied when it reaches MAX_KNOWN_PEERS.
        self._peers: dict[str, tuple[str, bool]] = {}
        self.held = SiteTally()  # open connections by client address, and by IPv6 site
        # By client address, oldest first: the connections that may give way to make room (none
        # of a trusted proxy's, and none carrying an event stream).
        self._connections = Lines()
        self.refused = SparseLog("http_connections_refused", "HTTP connections closed at once: a connection cap was reached")
        self.made_room = SparseLog(
            "http_connections_made_room",
            "idle HTTP connections of the address holding the most closed: the replica was at its cap and another address asked for one",
        )
        self.refused_flooding = SparseLog(
            "http_connections_refused_flooding", "HTTP connections closed at once: their address is far past its call rate"
        )
        self.refused_rate = SparseLog(
            "http_connections_refused_rate", "HTTP connections closed at once: their address opens new connections faster than its rate"
        )

    def accepts(self, host: str) -> bool:
        """Whether a connection just accepted from ``host`` (the peer's address as accept()
        gives it) may go on: not while its address is flooding, nor past its rate of new
        connections (it takes one when it may); a trusted proxy always may."""
        known = self._peers.get(host)
        if known is None:
            if len(self._peers) >= MAX_KNOWN_PEERS:
                self._peers.clear()
            peer = canonical_address(host) or "local"
            known = self._peers[host] = (client_of(peer), self._trusted(peer))
        address, trusted = known
        if trusted:
            return True
        if self.flooding(address):
            self.refused_flooding.note()
            return False
        if self.rate is not None and not self.rate.admits(address):
            self.refused_rate.note()
            return False
        return True

    @property
    def open(self) -> int:
        """The connections open now."""
        return self.held.total

    def admit(self, peer: str, connection: "GatedConnection | None" = None) -> str | None:
        """Count one connection (``connection``, when given: it may be closed to make room for
        another) from the peer address ``peer``: the client address it counts as
        (``client_of``), or None past a cap (and then nothing is counted). At the replica's cap
        an idle connection of the address that holds the most is closed to make room, when that
        address holds more than one more than this one (``_make_room``). The flood and the rate
        of new connections were looked at as it was accepted (``accepts``)."""
        address = client_of(peer)
        held = self.held.get(address)
        trusted = self._trusted(peer)
        if held >= self.max_per_address and not trusted:
            self.refused.note()
            return None
        # A trusted proxy, counted only against the replica's cap, neither takes room nor gives it.
        if self.held.total >= self.max_connections and (trusted or not self._make_room(address)):
            self.refused.note()
            return None
        self.held.up(address)
        if connection is not None and not trusted:
            self._connections.add(address, connection)
        return address

    def _make_room(self, newcomer: str) -> bool:
        """Close an idle connection (one waiting for a request's headers, ``GatedConnection.idle``)
        of a room (an IPv6 site's /64s together, or an address alone: ``SiteTally``) that holds
        more than one more connection than ``newcomer``'s (so equals never take turns closing
        each other's), the room holding the most first, and in it its address holding the most;
        whether one was closed. Before, five addresses each under their cap held every
        connection of a replica, idle, and every other client's connection was reset, and then
        one /48 holding one on each of 10,000 /64s; now such connections give way to whoever
        holds fewer, and the addresses at the cap keep what they use (event streams, calls being
        answered). At most ``ROOM_LOOKS`` addresses and connections are looked at, each
        address's oldest first."""
        looks = ROOM_LOOKS
        chosen = None
        for _room, members in self.held.heaviest_rooms(above=self.held.room_count(newcomer) + 1):
            for address in members:
                looks -= 1
                for connection in self._connections.of(address):
                    if connection.idle():
                        chosen = connection
                        break
                    looks -= 1
                    if looks <= 0:
                        break
                if chosen is not None or looks <= 0:
                    break
            if chosen is not None or looks <= 0:
                break
        if chosen is None:
            return False
        chosen.give_way()
        self.made_room.note()
        return True

    def streaming(self, connection: "GatedConnection") -> None:
        """``connection`` carries an event stream now (for as long as it lasts): it never gives way."""
        if connection.address is not None:
            self._connections.discard(connection.address, connection)

    def release(self, address: str, connection: "GatedConnection | None" = None) -> None:
        """One connection from ``address`` (``connection``, if it was given to ``admit``) closed."""
        self.held.down(address)
        if connection is not None:
            self._connections.discard(address, connection)

    def _trusted(self, peer: str) -> bool:
        if not self.trusted_proxies:
            return False
        try:
            ip = ipaddress.ip_address(peer)
        except ValueError:
            return False
        return any(ip in network for network in self.trusted_proxies)


class BodyArrivals:
    """Request bodies still arriving over HTTP (a call's body not wholly in hand when the call
    began), by client address, with their caps: at most ``max_per_client`` from one address and
    ``max_arriving`` on the replica (its calls' caps). At the replica's cap the address holding
    the most arriving, if it holds more than one more than the newcomer, gives way: its oldest
    such connection is closed (its call ends CANCELLED, 499) and the newcomer is let in. A body
    of the API is a few hundred bytes, sent at once; only a client that holds its bodies back
    keeps many arriving."""

    def __init__(self, max_arriving: int, max_per_client: int) -> None:
        if min(max_arriving, max_per_client) < 1:
            raise ValueError("arrival limits must be at least 1")
        self.max_arriving = max_arriving
        self.max_per_client = max_per_client
        self.held = SiteTally()
        self._connections = Lines()  # by client address, oldest first
        self.made_room = SparseLog(
            "http_bodies_made_room",
            "HTTP connections whose bodies arrived slowest closed: the replica had its maximum of bodies arriving",
        )

    def enter(self, client: str, connection: Any) -> None:
        """Count the body arriving on ``connection`` (a ``GatedConnection``) from ``client``
        until ``leave``; RESOURCE_EXHAUSTED (the reasons of the call caps) past a cap that no
        one gives way at, and then nothing is counted."""
        held = self.held.get(client)
        if held >= self.max_per_client:
            raise exhausted(
                "TOO_MANY_CALLS_FOR_CLIENT",
                f"this client has its maximum of {self.max_per_client} requests arriving on this replica; retry shortly",
            )
        if self.held.total >= self.max_arriving and not self._make_room(client):
            raise exhausted("TOO_MANY_CALLS", f"this replica has {self.max_arriving} requests arriving; retry shortly")
        self.held.up(client)
        self._connections.add(client, connection)

    def leave(self, client: str, connection: Any) -> None:
        """The body on ``connection`` has arrived, or never will (nothing if it gave way)."""
        if self._connections.discard(client, connection):
            self.held.down(client)

    def _make_room(self, newcomer: str) -> bool:
        """The oldest body arriving of the room (``SiteTally``) holding the most, from its
        address holding the most, gives way, if that room holds more than one more than
        ``newcomer``'s; whether one did."""
        heaviest = next(self.held.heaviest_rooms(above=self.held.room_count(newcomer) + 1), None)
        if heaviest is None:
            return False
        address = next(heaviest[1])
        oldest = next(iter(self._connections.of(address)))
        self.leave(address, oldest)
        oldest.give_way()  # its body's read ends with the connection
        self.made_room.note()
        return True


def peer_address(transport: asyncio.BaseTransport) -> str:
    """The remote IP address of a connection in its one spelling; a peer with none (a unix
    socket) is ``"local"``, one address for the caps."""
    peer = transport.get_extra_info("peername")
    if isinstance(peer, tuple) and peer:
        address = canonical_address(str(peer[0]))
        if address is not None:
            return address
    return "local"


def status_body(code: grpc.StatusCode, reason: str, message: str) -> dict[str, Any]:
    """A google.rpc.Status with one ErrorInfo, in canonical JSON."""
    return json_format.MessageToDict(ServiceError(code, reason, message).status_proto())


MALFORMED = status_body(grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_HTTP_REQUEST", "the request is not well-formed HTTP/1.1")
_malformed_log = SparseLog("malformed_http_requests", "malformed HTTP request answered 400 MALFORMED_HTTP_REQUEST")


class GatedConnection(RequestHandler):
    """aiohttp's protocol for one HTTP connection, counted against the caps of ``gate`` while it
    is open, and answering errors that aiohttp handles itself (a request its parser refuses, a
    handler's uncaught error) with a fixed JSON status."""

    __slots__ = ("_gate", "_address", "_made", "_on_lost", "closing_unread")

    def __init__(self, manager: Any, gate: ConnectionGate, **settings: Any) -> None:
        super().__init__(manager, **settings)
        self._gate = gate
        self._address: str | None = None  # the client address it is counted as, while it is
        self._made = False  # whether aiohttp was told of it (a connection refused at once is not)
        self._on_lost: Callable[[], None] | None = None
        self.closing_unread = False  # closed once answered, a request's body left unread

    def when_lost(self, callback: Callable[[], None] | None) -> None:
        """Call ``callback`` when the connection is lost (at once if it is already), or no
        longer call the one given before (None). An event stream learns so that its client has
        gone without waiting for its next write to fail."""
        if callback is not None and self.transport is None:
            callback()
            return
        self._on_lost = callback

    def close_unread(self) -> None:
        """Close the connection once the answer in hand is written, reading nothing more of it
        (what is left of the request's body is dropped). aiohttp otherwise lingers up to ``LINGER_S`` reading it, so
        that a client still sending gets its answer; but every chunk of a chunked body costs the
        event loop a call (about 0.8 us), and one connection sending bodies of one-byte chunks to
        routes that never read them kept a core busy."""
        self._lingering_time = 0.0
        self.closing_unread = True
        self.close()
        if self.transport is not None:
            # Nothing more is parsed meanwhile: what else arrives is dropped with the connection.
            self.transport.pause_reading()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        """Admit the connection, or close it at once (a reset, no answer) past a cap."""
        address = self._gate.admit(peer_address(transport), self)
        if address is None:
            drop(transport)  # aiohttp never learns of it: no task, no timer, no log line
            return
        self._address = address
        sock = transport.get_extra_info("socket")
        if sock is not None and hasattr(socket, "TCP_USER_TIMEOUT"):
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT, int(UNACKNOWLEDGED_S * 1000))
            except OSError:
                pass  # not a TCP socket
        self._made = True
        super().connection_made(transport)

    @property
    def address(self) -> str | None:
        """The client address the connection counts as, while it is counted."""
        return self._address

    def idle(self) -> bool:
        """Whether the connection waits for a request (its next one, or the headers of its
        first), with none in hand: what aiohttp's keep-alive timer would close."""
        waiter = self._waiter
        return waiter is not None and not waiter.done() and not self._force_close

    def give_way(self) -> None:
        """Close the connection to make room for another (``ConnectionGate._make_room``): its
        place is given back now, not when the transport is done closing."""
        if self._address is not None:
            self._gate.release(self._address, self)
            self._address = None
        self.force_close()

    def connection_lost(self, exc: BaseException | None) -> None:
        """Release the connection's place (a refused one has none, and nothing to stop)."""
        if not self._made:
            return
        if self._address is not None:
            self._gate.release(self._address, self)
            self._address = None
        on_lost, self._on_lost = self._on_lost, None
        super().connection_lost(exc)
        if on_lost is not None:
            on_lost()

    def handle_error(
        self, request: Any, status: int = 500, exc: BaseException | None = None, message: str | None = None
    ) -> web.StreamResponse:
        """The answer to a request aiohttp could not hand to the application (400: its parser
        refused it) or whose handler failed: a fixed status, never the parser's text."""
        if request.writer.output_size > 0:
            raise ConnectionError("the answer had begun: the connection is broken")  # as aiohttp does
        if status == 400:
            _malformed_log.note()
            body = MALFORMED
        else:
            if not isinstance(exc, ConnectionError):  # a client hanging up is no error
                log.error("rest_request_failed", status=status, exc_info=exc)
            code = grpc.StatusCode.INTERNAL if status >= 500 else grpc.StatusCode.INVALID_ARGUMENT
            body = status_body(code, "INTERNAL" if status >= 500 else "HTTP_ERROR", status_phrase(status))
        response = web.json_response(body, status=status, headers=_ERROR_HEADERS)
        response.force_close()
        return response


def status_phrase(status: int) -> str:
    """The standard phrase of an HTTP status, never a text that aiohttp or a caller put in an
    exception."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "HTTP error"


class GatedListener(socket.socket):
    """A listening TCP socket whose ``accept``, which asyncio calls when connections wait, resets
    at once the ones its gate refuses (``ConnectionGate.accepts``), before asyncio makes a task,
    a transport or a protocol of them, and hands on the first it lets in."""

    __slots__ = ("_gate", "_kind")

    def __init__(self, gate: ConnectionGate, family: int, kind: int, proto: int) -> None:
        super().__init__(family, kind, proto)
        self._gate = gate
        self._kind = (family, kind, proto)

    def accept(self) -> tuple[socket.socket, Any]:
        """The next connection the gate lets in (BlockingIOError when none waits, or once
        ``REFUSALS_PER_ACCEPT`` were refused: asyncio accepts the rest at the loop's next turn)."""
        for _ in range(REFUSALS_PER_ACCEPT):
            fd, peer = self._accept()  # type: ignore[attr-defined]
            conn = socket.socket(*self._kind, fileno=fd)
            if self._gate.accepts(peer[0]):
                return conn, peer
            _reset_on_close(conn)
            conn.close()
        raise BlockingIOError("connections refused: the rest at the loop's next turn")


class _Listening:
    """The asyncio servers of a site's listening sockets, as aiohttp uses a site's one server."""

    def __init__(self, servers: list[asyncio.AbstractServer]) -> None:
        self._servers = servers

    @property
    def sockets(self) -> tuple[Any, ...]:
        return tuple(sock for server in self._servers for sock in server.sockets)  # type: ignore[attr-defined]

    def close(self) -> None:
        for server in self._servers:
            server.close()

    async def wait_closed(self) -> None:
        for server in self._servers:
            await server.wait_closed()

    def is_serving(self) -> bool:
        return any(server.is_serving() for server in self._servers)


class GatedSite(web.BaseSite):
    """A TCP listener of an ``AppRunner`` whose connections are ``GatedConnection``s, accepted
    through ``GatedListener``s of ``gate``."""

    __slots__ = ("_host", "_port", "_make", "_gate")

    def __init__(self, runner: web.AppRunner, host: str, port: int, make: Callable[[], RequestHandler], gate: ConnectionGate) -> None:
        super().__init__(runner, backlog=LISTEN_BACKLOG)
        self._host = host
        self._port = port
        self._make = make
        self._gate = gate

    @property
    def name(self) -> str:
        """The site's URL, as aiohttp's sites name themselves."""
        return f"http://{self._host}:{self._port}"

    async def start(self) -> None:
        """Listen on every address the host names, as ``loop.create_server`` does."""
        await super().start()
        loop = asyncio.get_running_loop()
        infos = await loop.getaddrinfo(self._host or None, self._port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        listeners: list[GatedListener] = []
        servers: list[asyncio.AbstractServer] = []
        try:
            for family, kind, proto, _, address in dict.fromkeys(infos):
                try:
                    listener = GatedListener(self._gate, family, kind, proto)
                except OSError:
                    continue  # a family this kernel lacks (IPv6 built out): as create_server skips it
                listeners.append(listener)
                listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6:
                    listener.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                try:
                    listener.bind(address)
                except OSError as error:
                    raise OSError(error.errno, f"error while attempting to bind on address {address!r}: {error.strerror}") from None
            if not listeners:
                raise OSError(f"no socket could be made to listen on {self._host}:{self._port}")
            for listener in listeners:
                servers.append(await loop.create_server(self._make, sock=listener, backlog=self._backlog))
        except BaseException:
            for server in servers:
                server.close()
            for listener in listeners:
                listener.close()
            raise
        self._server = servers[0] if len(servers) == 1 else _Listening(servers)  # type: ignore[assignment]


def drop(transport: asyncio.BaseTransport) -> None:
    """Close a connection with a reset: what it holds unsent is discarded at once (a plain close
    would queue its FIN behind that data, which a client that reads nothing never receives, and
    the kernel would hold both), and the replica keeps no TIME_WAIT entry for it."""
    sock = transport.get_extra_info("socket")
    if sock is not None:
        _reset_on_close(sock)
    transport.abort()


_RESET = struct.pack("ii", 1, 0)  # SO_LINGER on, 0 s: a close resets the connection


def _reset_on_close(sock: Any) -> None:
    """Make ``sock``'s close a reset (``drop``, and a connection refused as it is accepted)."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, _RESET)
    except OSError:
        pass  # not a socket that lingers


def bound_event_stream_buffers(transport: asyncio.BaseTransport | None) -> None:
    """Give an event stream's connection small send buffers (``EVENT_SEND_BUFFER_BYTES``), so
    that a client that stops reading makes a write wait soon, and its deadline end the stream."""
    if transport is None:
        return
    sock = transport.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, EVENT_SEND_BUFFER_BYTES)
        except OSError:
            pass  # not a socket with a send buffer
    if isinstance(transport, asyncio.WriteTransport):
        transport.set_write_buffer_limits(high=EVENT_SEND_BUFFER_BYTES)


def connection_factory(runner: web.AppRunner, gate: ConnectionGate, settings: HttpSettings) -> Callable[[], RequestHandler]:
    """What makes the protocol of each new connection of ``runner``'s application."""
    manager = runner.server
    assert manager is not None, "set the runner up first"
    loop = asyncio.get_running_loop()

    def make() -> RequestHandler:
        # auto_decompress off: a compressed body is refused (rest._plain_bodies), never unpacked.
        return GatedConnection(
            manager, gate, loop=loop, keepalive_timeout=settings.keep_alive_s, lingering_time=LINGER_S, access_log=None, auto_decompress=False
        )

    return make


def open_files_limit() -> int:
    """The process's soft limit of open files."""
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def raise_open_files_limit() -> int:
    """Raise the soft limit of open files to the hard one (a replica holds a descriptor per
    connection, and the usual soft limit, 1,024, is far below its caps); the limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            return soft
        return hard
    return soft


def connection_caps(settings: HttpSettings, open_files: int | None = None) -> tuple[int, int]:
    """The caps (replica, per address) a replica applies: ``settings``' caps, the replica's
    lowered (and logged) to half the open files the process may hold less ``DESCRIPTOR_RESERVE``,
    the share the gRPC face leaves it; so that the two faces' connections together never take
    the descriptors Redis' pool, the listeners and the logs need."""
    limit = open_files_limit() if open_files is None else open_files
    if limit == resource.RLIM_INFINITY:
        limit = 1 << 20
    total = min(settings.max_connections, max(16, (limit - DESCRIPTOR_RESERVE) // 2))
    if total < settings.max_connections:
        log.info("http_connections_capped_by_open_files", max_connections=total, open_files_limit=limit)
    return total, min(settings.max_connections_per_address, total)
