"""At its cap of HTTP connections (lowered to fit the process's descriptors) a replica makes room for an address that holds fewer: an idle
connection of the address that holds the most is closed, and the newcomer is served. Before,
five addresses each under their cap held every connection of a replica, idle, and every other
client's new connection was reset. Connections in use (an event stream) never give way, and
addresses that hold as many do not close each other's.

End to end over loopback against a real replica and Redis; the clients are raw sockets from
several loopback addresses (127.0.0.0/8 is all loopback), the caps small, every wait bounded."""

from __future__ import annotations

import dataclasses
import ipaddress
import json
import socket
import uuid
from typing import Callable, Iterator

import pytest
import structlog.testing

from rest_helpers import LiveRest, wait_for
from hustings.service.client_limits import client_of
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.grpc_api import DESCRIPTOR_RESERVE
from hustings.service.rest_connections import ConnectionGate, HttpSettings, connection_caps

SETTINGS = HttpSettings(max_connections=8, max_connections_per_address=6, keep_alive_s=30.0)
HEAVY, LIGHT, NEWCOMER = "127.0.0.12", "127.0.0.13", "127.0.0.14"
WAIT_S = 10.0  # the longest any step waits
QUIET_S = 0.5  # how long a connection that must stay open is watched
POLL_S = 0.02


@pytest.fixture()
def live(redis_server: EmbeddedRedis) -> Iterator[LiveRest]:
    server = LiveRest(redis_server.url)
    server.config = dataclasses.replace(server.config, http=SETTINGS)
    with server:
        yield server


def _gate(live: LiveRest) -> ConnectionGate:
    assert live.replica is not None
    gate = live.replica._parts["rest"].gate
    assert gate is not None
    return gate


def _connect(live: LiveRest, source: str) -> socket.socket:
    assert live.replica is not None
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((source, 0))
    sock.settimeout(WAIT_S)
    sock.connect(("127.0.0.1", live.replica.http_port))
    return sock


def _wait_for(condition: Callable[[], bool]) -> bool:
    return wait_for(condition, WAIT_S, POLL_S)


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    """Whether the server closed the connection (EOF or reset) within ``seconds``; what it sent
    before is read and dropped."""
    sock.settimeout(seconds)
    try:
        while sock.recv(65536):
            pass
        return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False
    finally:
        sock.settimeout(WAIT_S)


def _status_of_kinds(live: LiveRest, source: str) -> int | None:
    """The status of GET /v1/kinds on a new connection from ``source``, or None when the
    connection was closed without an answer."""
    try:
        with _connect(live, source) as sock:
            sock.sendall(b"GET /v1/kinds HTTP/1.1\r\nHost: x\r\n\r\n")
            data = b""
            while b"\r\n" not in data:
                chunk = sock.recv(65536)
                if not chunk:
                    return None
                data += chunk
            return int(data.split(b" ")[1])
    except (ConnectionResetError, BrokenPipeError):
        return None


def _hold(live: LiveRest, source: str, count: int, request: bytes = b"") -> list[socket.socket]:
    """``count`` connections from ``source``, each sent ``request`` (nothing: idle), counted by
    the replica's gate before this returns."""
    gate = _gate(live)
    before = gate.held.get(source)
    held = []
    for _ in range(count):
        sock = _connect(live, source)
        if request:
            sock.sendall(request)
        held.append(sock)
    assert _wait_for(lambda: gate.held.get(source) == before + count)
    return held


def test_the_heaviest_addresss_oldest_idle_connection_gives_way_and_the_newcomer_is_served(live: LiveRest) -> None:
    gate = _gate(live)
    heavy = _hold(live, HEAVY, 6)
    light = _hold(live, LIGHT, 2)
    try:
        assert gate.open == SETTINGS.max_connections
        assert _status_of_kinds(live, NEWCOMER) == 200
        assert _closed_within(heavy[0], WAIT_S)  # the oldest of the address holding the most
        assert not any(_closed_within(sock, QUIET_S) for sock in heavy[1:] + light)
        assert _wait_for(lambda: (gate.held.get(HEAVY), gate.held.get(LIGHT)) == (5, 2))
    finally:
        for sock in heavy + light:
            sock.close()
    assert _wait_for(lambda: gate.open == 0)


def test_addresses_holding_as_many_do_not_close_each_others(live: LiveRest) -> None:
    gate = _gate(live)
    first = _hold(live, HEAVY, 4)
    second = _hold(live, LIGHT, 4)
    try:
        # HEAVY asks for a fifth: LIGHT holds no more than it, so nothing gives way.
        assert _status_of_kinds(live, HEAVY) is None
        assert not any(_closed_within(sock, QUIET_S) for sock in first + second)
        assert (gate.held.get(HEAVY), gate.held.get(LIGHT)) == (4, 4)
    finally:
        for sock in first + second:
            sock.close()
    assert _wait_for(lambda: gate.open == 0)


def test_connections_in_use_never_give_way(live: LiveRest) -> None:
    """HEAVY holds six event streams, LIGHT two idle connections: a newcomer takes one of
    LIGHT's (it holds more than one more than the newcomer), never one of HEAVY's streams, though
    HEAVY holds the most; once LIGHT's left one is in use too, the next newcomer is refused."""
    gate = _gate(live)
    game_id, _joined = live.new_game(players=3)
    watch = f"GET /v1/games/{game_id}:watch?fromVersion=0 HTTP/1.1\r\nHost: x\r\n\r\n".encode()
    assert live.replica is not None
    streams = live.replica.host.watchers.limits
    assert _wait_for(lambda: gate.open == 0)  # the calls that made the game are done
    heavy = _hold(live, HEAVY, 6, watch)
    light = _hold(live, LIGHT, 2)
    try:
        assert _wait_for(lambda: streams.open == 6)
        assert _status_of_kinds(live, NEWCOMER) == 200
        assert _closed_within(light[0], WAIT_S)  # LIGHT's oldest idle one made the room
        assert streams.open == 6 and gate.held.get(HEAVY) == 6
        light[1].sendall(watch)  # LIGHT's other connection carries a stream now
        assert _wait_for(lambda: streams.open == 7)
        with _connect(live, NEWCOMER) as held_open:  # the newcomer holds one: 7 + 1 = the cap
            assert _wait_for(lambda: gate.open == SETTINGS.max_connections)
            assert _status_of_kinds(live, "127.0.0.15") is None  # nothing idle to close but its own
            assert not _closed_within(held_open, QUIET_S) and streams.open == 7
    finally:
        for sock in heavy + light:
            sock.close()
    assert _wait_for(lambda: gate.open == 0)


class _Connection:
    """A stand-in for a GatedConnection: idle or not, and closed when it gives way."""

    def __init__(self, gate: ConnectionGate, idle: bool) -> None:
        self.gate, self.is_idle, self.address, self.closed = gate, idle, None, False

    def idle(self) -> bool:
        return self.is_idle

    def give_way(self) -> None:
        self.gate.release(self.address, self)  # type: ignore[arg-type]
        self.closed = True


def test_room_is_looked_for_past_the_heaviest_and_a_trusted_proxy_neither_gives_nor_takes_it() -> None:
    """At the cap, the address holding the most that has an idle connection gives way, even
    when the one holding the most has none idle (it held the rest off before); a trusted
    proxy's connections, counted only against the replica's cap, never give way, and a new one
    of its own takes no room either."""
    gate = ConnectionGate(max_connections=10, max_per_address=6, trusted_proxies=[ipaddress.ip_network("10.0.0.0/8")])
    admitted: list[_Connection] = []

    def connect(peer: str, idle: bool) -> _Connection | None:
        connection = _Connection(gate, idle)
        connection.address = gate.admit(peer, connection)  # type: ignore[arg-type]
        if connection.address is None:
            return None
        admitted.append(connection)
        return connection

    busy = [connect("192.0.2.1", idle=False) for _ in range(5)]  # the heaviest: nothing idle
    idle = [connect("192.0.2.2", idle=True) for _ in range(3)]
    proxied = [connect("10.0.0.1", idle=True) for _ in range(2)]
    assert gate.open == 10 and all(busy + idle + proxied)
    assert connect("192.0.2.9", idle=True) is not None  # room made past the heaviest
    assert [c.closed for c in idle] == [True, False, False] and not any(c.closed for c in busy + proxied)  # type: ignore[union-attr]
    assert connect("10.0.0.1", idle=True) is None  # the proxy takes no room
    assert connect("192.0.2.8", idle=True) is not None  # 192.0.2.2 (2) still holds more than one more
    assert connect("192.0.2.7", idle=True) is None  # the rest hold 5 busy, 1, 2 proxied, 1, 1
    assert not any(c.closed for c in proxied)  # type: ignore[union-attr]


def _create_head(body: bytes) -> bytes:
    return b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)


def test_at_the_cap_of_bodies_arriving_the_address_holding_the_most_gives_way(live: LiveRest) -> None:
    assert live.replica is not None
    arrivals = live.replica._parts["rest"].arrivals
    assert arrivals is not None
    usual = arrivals.max_arriving, arrivals.max_per_client
    arrivals.max_arriving, arrivals.max_per_client = 4, 3  # for this test only
    body = json.dumps({"kind": "stimmvieh", "options": {"players": 3}, "requestId": uuid.uuid4().hex}).encode()
    slow = _create_head(body) + body[:1]  # a byte of the body, then nothing
    heavy = _hold(live, HEAVY, 3, slow)
    light = _hold(live, LIGHT, 1, slow)
    try:
        assert _wait_for(lambda: arrivals.held.total == 4)
        assert live.replica.limits.calls.in_flight == 0  # bodies arriving hold no calls
        with _connect(live, NEWCOMER) as newcomer:
            newcomer.sendall(slow)
            assert _closed_within(heavy[0], WAIT_S)  # the oldest of the address holding the most
            newcomer.sendall(body[1:])
            assert newcomer.recv(65536).startswith(b"HTTP/1.1 200 ")
        assert not any(_closed_within(sock, QUIET_S) for sock in heavy[1:] + light)
        assert (arrivals.held.get(HEAVY), arrivals.held.get(LIGHT)) == (2, 1)
        light += _hold(live, LIGHT, 1, slow)  # room for it: the cap is reached again
        assert _wait_for(lambda: arrivals.held.total == 4)
        # LIGHT asks for a third: the heaviest holds no more than one more than it, so it is refused.
        with _connect(live, LIGHT) as another:
            another.sendall(slow)
            answer = another.recv(65536)
        assert answer.startswith(b"HTTP/1.1 429 ") and b'"TOO_MANY_CALLS"' in answer
        assert not any(_closed_within(sock, QUIET_S) for sock in heavy[1:] + light)
    finally:
        arrivals.max_arriving, arrivals.max_per_client = usual
        for sock in heavy + light:
            sock.close()
    assert _wait_for(lambda: arrivals.held.total == 0)


def test_the_replicas_cap_is_lowered_and_logged_to_the_other_half_of_the_descriptors() -> None:
    """README: the replica's cap of HTTP connections "is lowered, and logged, to the other half
    of the descriptors (less 256, like gRPC's)"; a cap that fits is left alone, unlogged."""
    with structlog.testing.capture_logs() as logged:
        assert connection_caps(HttpSettings(), open_files=1280) == (512, 512)
        assert connection_caps(HttpSettings(max_connections=100, max_connections_per_address=50), open_files=1280) == (100, 50)
    assert DESCRIPTOR_RESERVE == 256
    assert [(line["event"], line["max_connections"], line["open_files_limit"]) for line in logged] == [
        ("http_connections_capped_by_open_files", 512, 1280)
    ]


def test_an_ipv6_sites_64s_count_together_when_room_is_made() -> None:
    """One /48 holding one idle connection on each of its /64s filled a replica's connections,
    and no /64 held more than a newcomer: every other client's connection was reset. At the cap
    the /64s of a site count together: the site holding the most gives way (its /64 holding the
    most first), and sites holding as many do not take turns."""
    gate = ConnectionGate(max_connections=6, max_per_address=6)

    def connect(peer: str) -> _Connection | None:
        connection = _Connection(gate, idle=True)
        connection.address = gate.admit(peer, connection)  # type: ignore[arg-type]
        return connection if connection.address is not None else None

    site = [connect(f"2001:db8:1:{n:x}::1") for n in range(6)]  # one on each of six /64s of one /48
    assert gate.open == 6 and all(site)
    assert connect("192.0.2.1") is not None  # a player: 6 against 0, one of the site's gives way
    assert sum(c.closed for c in site) == 1  # type: ignore[union-attr]
    assert connect("192.0.2.2") is not None and sum(c.closed for c in site) == 2  # type: ignore[union-attr]
    assert connect(f"2001:db8:1:{99:x}::1") is None  # a /64 of the site (4) against the site: no turn
    assert connect("192.0.2.1") is not None  # 1 against 4: one more of the site's
    assert sum(c.closed for c in site) == 3  # type: ignore[union-attr]


def test_at_the_cap_of_bodies_arriving_an_ipv6_sites_64s_count_together() -> None:
    """The same for bodies still arriving (``BodyArrivals``)."""
    from hustings.service.rest_connections import BodyArrivals

    arrivals = BodyArrivals(max_arriving=4, max_per_client=4)

    class Slow:
        gave = False

        def give_way(self) -> None:
            self.gave = True

    site = [Slow() for _ in range(4)]
    for n, body in enumerate(site):
        arrivals.enter(client_of(f"2001:db8:1:{n:x}::1"), body)
    arrivals.enter("192.0.2.1", Slow())  # 4 against 0: one of the site's gives way
    assert sum(body.gave for body in site) == 1 and arrivals.held.total == 4
