"""One replica of the service: a store, a notifier, the host and the gRPC server, started and
stopped together. Any number of replicas may share one Redis deployment."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import pathlib
import re
import secrets
import socket
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable

import redis.exceptions as redis_errors
import structlog
from grpc_health.v1 import health_pb2

from hustings.service import server_secret
from hustings.service.client_limits import (
    DEFAULT_CLIENTS_PER_IPV6_SITE,
    DEFAULT_CREATE_BURST,
    DEFAULT_CREATES_PER_MINUTE,
    ClientLimits,
)
from hustings.service.clock import SharedClock
from hustings.service.defaults import DEFAULT_ADDRESS, DEFAULT_DATA_DIR, DEFAULT_GRACE_S
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.grpc_api import SERVICE_NAME, ConnectionPolicy, build_server
from hustings.service.host import GameHost
from hustings.service.notifier import Notifier
from hustings.service.readiness import PING_EVERY_S, StoreReadiness
from hustings.service.room_maker import DEFAULT_MAKE_ROOM_FROM_PERCENT, FINISHED_AFTER_S, IDLE_AFTER_S, RoomMaker
from hustings.service.store_room import CHECK_EVERY_S as ROOM_CHECK_EVERY_S, DEFAULT_NEW_GAMES_UNTIL_PERCENT, StoreRoom
from hustings.service.limits import (
    DEFAULT_CALL_BURST,
    DEFAULT_CALLS_PER_CLIENT_PER_SECOND,
    DEFAULT_MAX_CALLS,
    DEFAULT_MAX_CALLS_PER_CLIENT,
    DEFAULT_MAX_STREAMS,
    DEFAULT_MAX_STREAMS_PER_ADDRESS,
    DEFAULT_MAX_STREAMS_PER_CLIENT,
    DEFAULT_MAX_STREAMS_PER_GAME,
    DEFAULT_MAX_STREAMS_PER_CONNECTION,
    DEFAULT_MAX_STREAMS_PER_SEAT,
)
from hustings.service.store import DEFAULT_MAX_CONNECTIONS, DEFAULT_POOL_TIMEOUT_S, Store
from hustings.service.open_tables import DEFAULT_OPEN_TABLES_PER_CLIENT, DEFAULT_SEATS_HELD_PER_CLIENT, OpenTables
from hustings.service.unattended import DEFAULT_UNATTENDED_DECISIONS_PER_SECOND

if TYPE_CHECKING:
    from hustings.service.rest_connections import HttpSettings

log = structlog.get_logger("hustings.replica")
# At stop, what the host still does in the background (a cancelled call's follow-up, a kick of
# due decisions) gets this long to end once the calls have, then is cancelled.
BACKGROUND_GRACE_S = 1.0

# Creation limits no tool reaches (a million games a minute, and at once), for a replica that only
# its own tool calls: ``ReplicaConfig(..., **UNBOUNDED_CREATES)``.
# Nor a bound on the listed tables one client keeps waiting (``open_tables_per_client``), nor on
# the seats it holds at others' (``seats_per_client``).
UNBOUNDED_CREATES: dict[str, Any] = {
    "creates_per_client_per_minute": 1_000_000.0, "create_burst": 1_000_000, "open_tables_per_client": 0, "seats_per_client": 0,
}
# A rate of unary calls no tool reaches (a million a second, and at once), for a replica that only
# its own tool or test calls from one address: ``ReplicaConfig(..., **UNBOUNDED_CALL_RATE)``.
UNBOUNDED_CALL_RATE: dict[str, Any] = {"calls_per_client_per_second": 1_000_000.0, "call_burst": 1_000_000}
# The per-address limits of a replica that only its own tool calls, all from one address
# (loopback): ``ReplicaConfig(..., **SOLE_CLIENT)``. They keep clients from crowding each other
# out, and here there is no other client: creation and the rate of calls unbounded, and one
# address may hold as many streams as the replica serves. The replica's own caps, and those per
# connection and per seat token, stay as they are.
SOLE_CLIENT: dict[str, Any] = {**UNBOUNDED_CREATES, **UNBOUNDED_CALL_RATE, "max_streams_per_address": DEFAULT_MAX_STREAMS}


def _at_once() -> asyncio.Event:
    """A ``hurry`` already set: ``Replica.stop`` without its drain (a replica that failed to start
    never served, so nobody needs time to stop sending to it)."""
    event = asyncio.Event()
    event.set()
    return event


class StartupError(RuntimeError):
    """The replica could not start: Redis is unreachable or its URL unreadable, or an address
    cannot be listened on. The message is one line for the operator, and never holds the Redis
    URL's password."""


def check_listen_address(face: str, address: str) -> None:
    """StartupError unless ``address`` ("" for a face that is off, not gRPC; or a gRPC ``unix:`` path) ends
    in a port from 0 to 65535: gRPC took port 65536 as some free port and served there, and the
    REST and metrics faces stopped with a traceback."""
    if address.startswith("unix:") or (not address and face != "gRPC"):
        return
    if not address:  # gRPC is the service: it cannot be off
        raise StartupError("cannot listen for gRPC on '': give HOST:PORT, the port from 0 to 65535 (gRPC cannot be turned off)")
    port = address.rpartition(":")[2]
    if not (re.fullmatch(r"[0-9]{1,5}", port) and int(port) <= 65535):  # ASCII digits: "²" is a digit to isdigit
        raise StartupError(f"cannot listen for {face} on {address!r}: give HOST:PORT, the port from 0 to 65535")


def check_grpc_bindable(address: str) -> None:
    """StartupError when ``address`` names one IP address that cannot be bound here now (in use,
    or not this machine's), asked before gRPC's own bind, whose failure also writes a line of
    gRPC's own to stderr. A host name, ``[::]`` (gRPC falls back to 0.0.0.0 where it cannot have
    both families) and port 0 are left to gRPC's bind, as is an address whose family the kernel
    has no sockets for."""
    host, _, port = address.rpartition(":")
    try:
        ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return
    if not port.isdigit() or int(port) == 0 or (ip.version == 6 and ip.is_unspecified):
        return
    try:
        probe = socket.socket(socket.AF_INET6 if ip.version == 6 else socket.AF_INET, socket.SOCK_STREAM)
    except OSError:
        return
    with probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gRPC: a port in TIME_WAIT is free
        try:
            probe.bind((str(ip), int(port)))
        except OSError:
            raise StartupError(f"cannot listen for gRPC on {address!r}: in use, or not an address of this machine") from None


def redis_location(url: str) -> str:
    """Where ``url`` points, without its user name or password: ``host:port`` (or the socket's
    path), for messages about it."""
    import urllib.parse

    try:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme == "unix":
            return parts.path or "(no path)"
        return f"{parts.hostname or '(no host)'}:{parts.port or 6379}"
    except ValueError:
        return "(unreadable URL)"


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0][:300]


@dataclass
class ReplicaConfig:
    """How a replica is started."""

    redis_url: str
    address: str = DEFAULT_ADDRESS
    allow_client_seed: bool = False
    grace_s: float = DEFAULT_GRACE_S  # calls in flight at a stop, on both faces
    drain_s: float = 0.0  # on stop, NOT_SERVING while still serving everything for this long
    http_address: str = ""  # REST/JSON face (and /play), off when empty
    http: "HttpSettings | None" = None  # its connection caps and timeouts; None: the defaults
    metrics_address: str = ""  # Prometheus /metrics, off when empty
    max_watchers: int = DEFAULT_MAX_STREAMS  # WatchGame streams on this replica
    max_streams_per_client: int = DEFAULT_MAX_STREAMS_PER_CLIENT  # per gRPC connection / SSE address
    max_streams_per_address: int = DEFAULT_MAX_STREAMS_PER_ADDRESS  # per client address, gRPC and SSE together
    max_streams_per_seat: int = DEFAULT_MAX_STREAMS_PER_SEAT  # per seat token
    max_streams_per_game: int = DEFAULT_MAX_STREAMS_PER_GAME  # of one game per client address
    max_streams_per_connection: int = DEFAULT_MAX_STREAMS_PER_CONNECTION  # HTTP/2 streams of a gRPC connection
    max_calls: int = DEFAULT_MAX_CALLS  # unary calls in flight on this replica
    max_calls_per_client: int = DEFAULT_MAX_CALLS_PER_CLIENT  # ... from one client address
    calls_per_client_per_second: float = DEFAULT_CALLS_PER_CLIENT_PER_SECOND  # unary calls, sustained, per client address
    call_burst: int = DEFAULT_CALL_BURST  # unary calls at once, per client address
    creates_per_client_per_minute: float = DEFAULT_CREATES_PER_MINUTE  # CreateGame, sustained, per client address
    create_burst: int = DEFAULT_CREATE_BURST  # CreateGame at once, per client address
    open_tables_per_client: int = DEFAULT_OPEN_TABLES_PER_CLIENT  # listed tables waiting at once, per client address; 0: none
    seats_per_client: int = DEFAULT_SEATS_HELD_PER_CLIENT  # seats at others' listed tables in unfinished games, per client address; 0: none
    clients_per_ipv6_site: int = DEFAULT_CLIENTS_PER_IPV6_SITE  # an IPv6 /48's rates and creations, in clients; 0: none
    unattended_decisions_per_second: float = DEFAULT_UNATTENDED_DECISIONS_PER_SECOND  # tables of bots alone, all together
    trusted_proxies: tuple[str, ...] = ()  # CIDRs whose x-forwarded-for names the client
    grpc_connections: ConnectionPolicy = ConnectionPolicy()  # idle, keepalive and cap of gRPC connections
    redis_max_connections: int = DEFAULT_MAX_CONNECTIONS  # the bounded pool of this replica
    redis_pool_timeout_s: float = DEFAULT_POOL_TIMEOUT_S  # how long a command waits for a connection
    benchmark_floor: bool = False  # serve the loadtest's floor call too
    secret: bytes | None = None  # the server secret shared by all replicas; kept in Redis when None
    replace_secret: bool = False  # take Redis's check value for this secret even where another's is kept
    retention_s: int = 30 * 24 * 3600  # how long finished games are kept
    local_clock: Callable[[], float] = time.time  # this machine's clock, corrected by Redis' (service/clock.py)
    store_ping_s: float = PING_EVERY_S  # how often Redis is pinged for the health service (service/readiness.py)
    # CreateGame is refused while Redis is at this share of its maxmemory or more (service/store_room.py).
    new_games_until_percent: float = DEFAULT_NEW_GAMES_UNTIL_PERCENT
    store_room_check_s: float = ROOM_CHECK_EVERY_S
    # Games played least recently are removed while Redis is at this share or more, 0 never (service/room_maker.py).
    make_room_from_percent: float = DEFAULT_MAKE_ROOM_FROM_PERCENT
    finished_kept_s: int = FINISHED_AFTER_S  # a finished game stays at least this long after its end
    idle_kept_s: int = IDLE_AFTER_S  # a game in play at least this long after its last step


@dataclass
class Replica:
    """A running replica."""

    config: ReplicaConfig
    port: int = 0
    http_port: int = 0
    metrics_port: int = 0
    draining: bool = False  # stopping, still serving: NOT_SERVING on health and /readyz
    _parts: dict[str, object] = field(default_factory=dict)

    async def start(self) -> "Replica":
        """Connect to Redis, start listening for updates and serve gRPC."""
        for face, address in (("gRPC", self.config.address), ("REST/JSON", self.config.http_address), ("metrics", self.config.metrics_address)):
            check_listen_address(face, address)
        check_grpc_bindable(self.config.address)
        where = redis_location(self.config.redis_url)
        try:
            store = Store.from_url(
                self.config.redis_url, self.config.redis_max_connections, self.config.redis_pool_timeout_s
            )
        except ValueError as error:
            raise StartupError(f"cannot use the Redis URL for {where}: {_first_line(error)}") from None
        notifier = Notifier(store.client)
        try:
            try:
                await store.client.ping()
            except (redis_errors.ConnectionError, redis_errors.TimeoutError, redis_errors.ResponseError) as error:
                raise StartupError(f"cannot reach Redis at {where}: {_first_line(error)}") from None
            await store.check_server()
            await notifier.start()
            secret = self.config.secret or await server_secret.from_redis(store.client, self.config.replace_secret)
            keys = server_secret.Keys(secret)  # one for the guard and the host: a Redis-kept secret may be adopted anew
            guard = server_secret.SecretGuard(store.client, keys, None if self.config.secret else secret, self.config.replace_secret)
            await guard.check()
            clock = SharedClock(store.client, self.config.local_clock)
            await clock.calibrate()
            host = GameHost(
                store,
                notifier,
                allow_client_seed=self.config.allow_client_seed,
                max_watchers=self.config.max_watchers,
                max_streams_per_client=self.config.max_streams_per_client,
                max_streams_per_seat=self.config.max_streams_per_seat,
                max_streams_per_game=self.config.max_streams_per_game,
                max_streams_per_connection=self.config.max_streams_per_connection,
                max_streams_per_address=self.config.max_streams_per_address,
                keys=keys,
                retention_s=self.config.retention_s,
                clock=clock.time,
                unattended_decisions_per_second=self.config.unattended_decisions_per_second,
            )
            host.room = room = StoreRoom(store.client, self.config.new_games_until_percent, self.config.store_room_check_s)
            await room.check_once()  # a replica started on a nearly full store refuses new games from its first call
            room_maker = RoomMaker(
                host.kept,
                room,
                host._now_ms,  # the replicas' shared clock
                retention_s=self.config.retention_s,
                from_percent=self.config.make_room_from_percent,
                finished_after_s=self.config.finished_kept_s,
                idle_after_s=self.config.idle_kept_s,
                every_s=self.config.store_room_check_s,
            )
            limits = ClientLimits.configured(
                self.config.max_calls,
                self.config.max_calls_per_client,
                self.config.creates_per_client_per_minute,
                self.config.create_burst,
                self.config.trusted_proxies,
                self.config.calls_per_client_per_second,
                self.config.call_burst,
                self.config.clients_per_ipv6_site,
            )
            host.watchers.limits.rate = limits.calls.rate  # a stream's long catch-up counts as calls do
            if self.config.open_tables_per_client:
                host.open_tables = OpenTables(self.config.open_tables_per_client)
                host.open_tables.sites = self.config.clients_per_ipv6_site > 0
            if self.config.seats_per_client:
                host.seats_held = OpenTables(self.config.seats_per_client)
                host.seats_held.sites = self.config.clients_per_ipv6_site > 0
            # An IPv6 site's streams and unread bytes are limited as a site's, unless sites are off.
            host.watchers.limits.sites = limits.unread.sites = self.config.clients_per_ipv6_site > 0
            try:
                server, port, health = build_server(
                    host, self.config.address, self.config.max_calls, limits, self.config.grpc_connections
                )
            except RuntimeError:  # gRPC's "Failed to bind to address ..."
                raise StartupError(
                    f"cannot listen for gRPC on {self.config.address!r}: in use, or not an address of this machine"
                ) from None
            if self.config.benchmark_floor:
                from hustings.service.floor import floor_handler

                server.add_generic_rpc_handlers((floor_handler(store),))
            await server.start()
        except BaseException:
            await notifier.stop()
            await store.close()
            raise
        self.port = port
        self._parts = {"store": store, "notifier": notifier, "host": host, "server": server, "health": health, "limits": limits}
        self._parts["guard"] = guard
        self._parts["clock"] = clock
        self._parts["readiness"] = readiness = StoreReadiness(
            store.client, health, SERVICE_NAME, self.config.store_ping_s, also=lambda: guard.agrees
        )
        self._parts["room"] = room
        self._parts["room_maker"] = room_maker
        guard.start()
        clock.start()
        readiness.start()
        room.start()
        room_maker.start()
        host.lobby_repair.start()
        host.deadline_runner.start()
        if self.config.http_address:
            from hustings.service.rest import start_rest

            try:
                rest = await start_rest(host, self.config.http_address, limits, self.config.http, self.config.grace_s)
            except BaseException as error:
                await self.stop(_at_once())  # do not leave the gRPC face running without its REST face
                if isinstance(error, (OSError, ValueError)):
                    raise StartupError(f"cannot listen for REST/JSON on {self.config.http_address!r}: {_first_line(error)}") from None
                raise
            rest.ready = lambda: readiness.serving and not self.draining
            self.http_port = rest.port
            self._parts["rest"] = rest
        if self.config.metrics_address:
            from hustings.service.metrics import serve_metrics

            try:
                metrics_server = serve_metrics(self.config.metrics_address)
            except (OSError, ValueError) as error:
                await self.stop(_at_once())
                raise StartupError(f"cannot listen for metrics on {self.config.metrics_address!r}: {_first_line(error)}") from None
            self.metrics_port = metrics_server.server_port
            self._parts["metrics"] = metrics_server
        # GameService SERVING once every face listens (what balancers and readiness probes ask):
        # a replica that cannot open one stops at once, never having said it serves games (it
        # served gRPC, healthy, through its whole drain before).
        await health.set("", health_pb2.HealthCheckResponse.SERVING)
        serving = health_pb2.HealthCheckResponse.SERVING if readiness.serving else health_pb2.HealthCheckResponse.NOT_SERVING
        await health.set(SERVICE_NAME, serving)  # as the readiness loop has it (Redis may have gone meanwhile)
        log.info("replica_started", port=port, http_port=self.http_port or None, metrics_port=self.metrics_port or None)
        return self

    @property
    def host(self) -> GameHost:
        """The game host (for in-process use by tools and tests)."""
        return self._parts["host"]  # type: ignore[return-value]

    @property
    def limits(self) -> ClientLimits:
        """The per-client limits both faces share (for tests and tools)."""
        return self._parts["limits"]  # type: ignore[return-value]

    async def stop(self, hurry: asyncio.Event | None = None) -> None:
        """Report NOT_SERVING; go on serving every call and stream for ``config.drain_s``
        (or until ``hurry`` is set), so that balancers that poll the health stop sending here
        first; then end the streams, let in-flight calls finish within ``config.grace_s``, and
        close."""
        if not self._parts:
            return
        health = self._parts["health"]
        await health.enter_graceful_shutdown()  # type: ignore[attr-defined]
        await self._drain(hurry)
        self.host.begin_shutdown()
        await self.host.lobby_repair.stop()
        await self.host.deadline_runner.stop()
        await self._parts["guard"].stop()  # type: ignore[attr-defined]
        await self._parts["clock"].stop()  # type: ignore[attr-defined]
        await self._parts["readiness"].stop()  # type: ignore[attr-defined]
        await self._parts["room"].stop()  # type: ignore[attr-defined]
        await self._parts["room_maker"].stop()  # type: ignore[attr-defined]
        notifier: Notifier = self._parts["notifier"]  # type: ignore[assignment]
        server = self._parts["server"]
        await notifier.stop()
        rest = self._parts.get("rest")
        # Both faces at once, each giving its calls in flight config.grace_s (aiohttp cancels a
        # REST call still running then; gRPC ends its call CANCELLED).
        stops = [server.stop(self.config.grace_s)]  # type: ignore[attr-defined]
        if rest is not None:
            stops.append(rest.stop())  # type: ignore[attr-defined]
        await asyncio.gather(*stops)
        await self.host.finish_background(BACKGROUND_GRACE_S)
        store: Store = self._parts["store"]  # type: ignore[assignment]
        await store.close()
        metrics_server = self._parts.get("metrics")
        if metrics_server is not None:
            metrics_server.shutdown()  # type: ignore[attr-defined]
            metrics_server.server_close()  # type: ignore[attr-defined]
        self._parts = {}
        log.info("replica_stopped")

    async def _drain(self, hurry: asyncio.Event | None) -> None:
        """Wait out the drain: health and /readyz say NOT_SERVING, everything else is served."""
        if self.config.drain_s <= 0 or (hurry is not None and hurry.is_set()):
            return
        self.draining = True
        log.info("replica_draining", seconds=self.config.drain_s)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for((hurry or asyncio.Event()).wait(), self.config.drain_s)

    async def wait(self) -> None:
        """Serve until the server stops."""
        await self._parts["server"].wait_for_termination()  # type: ignore[attr-defined]


async def serve_forever(
    config: ReplicaConfig,
    stop_event: asyncio.Event,
    hurry: asyncio.Event | None = None,
    started: Callable[["Replica"], None] | None = None,
) -> None:
    """Run a replica until ``stop_event`` is set; then stop it, cutting its drain short when
    ``hurry`` is set (a second signal). ``started`` is told the replica once it serves."""
    replica = await Replica(config).start()
    if started is not None:
        started(replica)
    try:
        await stop_event.wait()
    finally:
        await replica.stop(hurry)


def start_embedded_redis(data_dir: pathlib.Path = DEFAULT_DATA_DIR) -> EmbeddedRedis:
    """The embedded default: a real Redis with its data (append-only file) in ``data_dir``.

    Private: the folder is 0700 and its files 0600, and the server listens on a unix socket in
    that folder, never on an open TCP port (see :class:`EmbeddedRedis`). A relative folder is
    taken from the current directory.
    """
    return EmbeddedRedis(data_dir=data_dir, private=True).start()


@contextlib.asynccontextmanager
async def server_at(address: str = "", log_level: str = "warning") -> AsyncIterator[str]:
    """Yield ``address``, or, when it is empty, the address of a replica of our own on a free
    port over a private embedded Redis in a temporary folder (a unix socket, no TCP port open
    to anyone), stopped afterwards. For tools and examples that may run without a server."""
    if address:
        yield address
        return
    import tempfile

    from hustings.service import logs

    logs.configure(log_level)
    with tempfile.TemporaryDirectory(prefix="hustings-") as folder:
        redis = EmbeddedRedis(pathlib.Path(folder), appendonly=False, private=True).start()
        try:
            # A secret of its own: the Redis is private and temporary, so nothing needs to share it.
            # Its one client is the tool itself (bots create games as fast as they finish them):
            # a per-client creation rate or stream share would protect no one else here.
            config = ReplicaConfig(
                redis_url=redis.url,
                address="127.0.0.1:0",
                secret=secrets.token_bytes(32),
                **SOLE_CLIENT,
            )
            replica = await Replica(config).start()
            try:
                yield f"127.0.0.1:{replica.port}"
            finally:
                await replica.stop()
        finally:
            redis.stop()
