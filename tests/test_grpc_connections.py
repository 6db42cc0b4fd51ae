"""How the gRPC face keeps its connections: a request announcing more than the receive backstop is
refused at its length prefix, an idle connection is closed, a peer that stops answering pings
loses its streams (and its seat stops showing present once the presence window has passed), as
does a stream whose peer takes no data, a connection may open only so many streams, the replica
holds only so many connections, and requests that never finish arriving are capped and ended.

A real replica on loopback; the clients are raw HTTP/2 over a socket (frames as bytes, to send
what no gRPC client sends: half a message, more streams than allowed) or a real gRPC client
through a loopback relay that can stop passing bytes. Every wait is bounded."""

from __future__ import annotations

import asyncio
import contextlib
import struct
import time
from typing import Any, AsyncIterator, Iterator

import grpc
import pytest

from conftest import run
from hustings.client import HustingsError
from hustings.service import grpc_api, grpc_arrivals, presence, watch
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.grpc_api import ConnectionPolicy
from hustings.v1 import game_service_pb2, game_service_pb2_grpc
from service_helpers import new_game, replica_and_client

DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, WINDOW_UPDATE = 0, 1, 3, 4, 6, 7, 8
END_STREAM, END_HEADERS, ACK = 1, 4, 1
SETTINGS_MAX_CONCURRENT_STREAMS, SETTINGS_INITIAL_WINDOW_SIZE = 3, 4
REFUSED_STREAM = 7
RESOURCE_EXHAUSTED, DEADLINE_EXCEEDED = b"8", b"4"
WAIT_S = 10.0  # the bound on any one wait for the server


def rss_mib() -> float:
    """This process's resident memory (the replica runs in it), in MiB."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return -1.0


def _literal(name: str, value: str) -> bytes:
    """An HPACK header field, literal without indexing (no Huffman coding)."""
    key, text = name.encode(), value.encode()
    assert len(key) < 127 and len(text) < 127  # a one-byte length
    return b"\x00" + bytes([len(key)]) + key + bytes([len(text)]) + text


def call_headers(port: int, method: str) -> bytes:
    """The header block of a gRPC call to GameService/``method``."""
    fields = (
        (":method", "POST"),
        (":scheme", "http"),
        (":path", f"/hustings.v1.GameService/{method}"),
        (":authority", f"127.0.0.1:{port}"),
        ("content-type", "application/grpc"),
        ("te", "trailers"),
    )
    return b"".join(_literal(k, v) for k, v in fields)


class Frame:
    """One HTTP/2 frame as received."""

    def __init__(self, kind: int, flags: int, stream: int, payload: bytes) -> None:
        self.kind, self.flags, self.stream, self.payload = kind, flags, stream, payload

    def settings(self) -> dict[int, int]:
        """A SETTINGS frame's values by identifier."""
        return {k: v for k, v in (struct.unpack(">HI", self.payload[i : i + 6]) for i in range(0, len(self.payload), 6))}

    def grpc_status(self) -> bytes | None:
        """The grpc-status of a trailers frame, when sent literally (the first on a connection)."""
        at = self.payload.find(b"\x0bgrpc-status")
        if at < 0:
            return None
        start = at + len(b"\x0bgrpc-status") + 1
        return self.payload[start : start + self.payload[start - 1]]


class RawHttp2:
    """A bare HTTP/2 client connection: it answers SETTINGS, and PINGs while ``answer_pings``."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.answer_pings = True
        self.pings = 0
        self.data_frames = 0
        self._corked: list[bytes] | None = None  # frames held back by ``corked``

    @classmethod
    async def open(cls, port: int, source: str = "127.0.0.1") -> "RawHttp2":
        """Connect (from the loopback address ``source``) and send the connection preface with
        empty SETTINGS."""
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
        connection = cls(reader, writer)
        writer.write(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
        connection.send(SETTINGS, 0, 0)
        return connection

    def send(self, kind: int, flags: int, stream: int, payload: bytes = b"") -> None:
        """Queue one frame for sending (held back while ``corked``)."""
        frame = struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload
        if self._corked is not None:
            self._corked.append(frame)
        else:
            self.writer.write(frame)

    @contextlib.contextmanager
    def corked(self) -> Iterator[None]:
        """The frames sent in the block go out in one write: the server reads them together,
        before it can end any of the calls they start."""
        self._corked = []
        try:
            yield
        finally:
            frames, self._corked = self._corked, None
            self.writer.write(b"".join(frames))

    def start_call(self, port: int, stream: int, method: str, announced: int, body: bytes = b"") -> None:
        """Open a call on ``stream`` whose message announces ``announced`` bytes and sends ``body``."""
        self.send(HEADERS, END_HEADERS, stream, call_headers(port, method))
        self.send(DATA, 0, stream, b"\x00" + struct.pack(">I", announced) + body)

    async def next(self, timeout_s: float = WAIT_S) -> Frame | None:
        """The next frame from the server, or None when it closed the connection."""
        try:
            head = await asyncio.wait_for(self.reader.readexactly(9), timeout_s)
            payload = await asyncio.wait_for(self.reader.readexactly(int.from_bytes(head[:3], "big")), timeout_s)
        except (asyncio.IncompleteReadError, ConnectionError):
            return None
        frame = Frame(head[3], head[4], int.from_bytes(head[5:9], "big") & 0x7FFFFFFF, payload)
        if frame.kind == SETTINGS and not frame.flags & ACK:
            self.send(SETTINGS, ACK, 0)
        elif frame.kind == PING and not frame.flags & ACK:
            self.pings += 1
            if self.answer_pings:
                self.send(PING, ACK, 0, frame.payload)
        return frame

    async def frames(self, within_s: float) -> AsyncIterator[Frame]:
        """Frames until the server closes the connection or ``within_s`` passes (then TimeoutError)."""
        deadline = time.monotonic() + within_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"nothing conclusive from the server within {within_s} s")
            frame = await self.next(left)
            if frame is None:
                return
            yield frame

    def close(self) -> None:
        """Close the socket."""
        self.writer.close()


def test_a_request_announcing_more_than_the_backstop_is_refused_at_its_prefix(redis_server: EmbeddedRedis) -> None:
    """A message whose length prefix says one byte more than the backstop ends RESOURCE_EXHAUSTED
    at once: the server does not open its window to take the body (it never gets it)."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (replica, _):
            before = rss_mib()
            h2 = await RawHttp2.open(replica.port)
            started = time.monotonic()
            h2.start_call(replica.port, 1, "CreateGame", grpc_api.RECEIVE_BACKSTOP_BYTES + 1)
            status: bytes | None = None
            window_for_body = 0
            async for frame in h2.frames(WAIT_S):
                if frame.kind == WINDOW_UPDATE and frame.stream == 1:
                    window_for_body += struct.unpack(">I", frame.payload)[0] & 0x7FFFFFFF
                if frame.stream == 1 and frame.kind == HEADERS and frame.flags & END_STREAM:
                    status = frame.grpc_status()
                    break
                if frame.stream == 1 and frame.kind == RST_STREAM:
                    break
            took = time.monotonic() - started
            h2.close()
            print(f"refused after {took * 1000:.0f} ms; rss {before:.0f} -> {rss_mib():.0f} MiB")
            assert status == RESOURCE_EXHAUSTED
            assert window_for_body < grpc_api.RECEIVE_BACKSTOP_BYTES  # the body was never asked for
            assert grpc_api.RECEIVE_BACKSTOP_BYTES == 128 * 1024

    run(scenario(), timeout_s=60)


def test_an_idle_connection_is_closed_after_the_idle_time(redis_server: EmbeddedRedis) -> None:
    """A connection with no call for ``idle_s`` gets GOAWAY (a gRPC client reconnects on its next
    call); one that had a call is idle from when the call ended."""

    async def scenario() -> None:
        policy = ConnectionPolicy(idle_s=1.0)
        async with replica_and_client(redis_server.url, grpc_connections=policy) as (replica, _):
            h2 = await RawHttp2.open(replica.port)
            started = time.monotonic()
            goaway = None
            async for frame in h2.frames(policy.idle_s + WAIT_S):
                if frame.kind == GOAWAY:
                    goaway = time.monotonic() - started
                    break
            h2.close()
            assert goaway is not None and goaway >= policy.idle_s * 0.5
            # A gRPC channel sees it as a closed connection and reconnects for its next call.
            async with grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}") as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                await stub.ListGameKinds(game_service_pb2.ListGameKindsRequest(), timeout=WAIT_S)
                deadline = time.monotonic() + policy.idle_s + WAIT_S
                while channel.get_state() == grpc.ChannelConnectivity.READY and time.monotonic() < deadline:
                    await asyncio.sleep(0.1)
                assert channel.get_state() != grpc.ChannelConnectivity.READY
                kinds = await stub.ListGameKinds(game_service_pb2.ListGameKindsRequest(), timeout=WAIT_S)
                assert kinds.kinds

    run(scenario(), timeout_s=60)


class Relay:
    """A loopback relay to the replica that can stop passing bytes both ways, keeping both
    connections open (a peer gone without FIN or RST: a phone out of range, a NAT entry dropped)."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.frozen = False
        self.server: asyncio.Server | None = None
        self.tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> int:
        """Listen on a free loopback port; return it."""
        self.server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        return int(self.server.sockets[0].getsockname()[1])

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        for source, sink in ((reader, upstream_writer), (upstream_reader, writer)):
            task = asyncio.create_task(self._pipe(source, sink))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)

    async def _pipe(self, source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError):
            while data := await source.read(65536):
                if not self.frozen:  # frozen: read and drop, so that nobody's TCP pushes back
                    sink.write(data)
                    await sink.drain()
        sink.close()

    async def stop(self) -> None:
        """Stop listening and end every pipe."""
        if self.server is not None:
            self.server.close()
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


def test_a_peer_that_stops_answering_pings_loses_its_stream_and_then_its_presence(
    redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seat's WatchGame stream through a relay that goes silent: within keepalive time and
    timeout the server closes the connection and the stream ends; the seat shows present no
    longer once the presence window has passed after that."""
    window_s = 2.0
    monkeypatch.setattr(presence, "WINDOW_MS", int(window_s * 1000))
    monkeypatch.setattr(presence, "TOUCH_EVERY_S", 0.2)
    monkeypatch.setattr(presence, "REFRESH_S", 0.1)
    monkeypatch.setattr(watch, "SEEN_EVERY_S", 0.2)
    policy = ConnectionPolicy(keepalive_s=1.0, keepalive_timeout_s=1.0)

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, grpc_connections=policy) as (replica, client):
            seats = await new_game(client, players=3)
            game_id = seats[0].game_id
            relay = Relay(replica.port)
            port = await relay.start()
            limits = replica.host.watchers.limits
            try:
                async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                    call = game_service_pb2_grpc.GameServiceStub(channel).WatchGame(
                        game_service_pb2.WatchGameRequest(game_id=game_id),
                        metadata=(("authorization", f"Bearer {seats[0].token}"),),
                    )
                    await asyncio.wait_for(call.read(), WAIT_S)
                    assert limits.open == 1
                    # Held for longer than the window, answering pings: present throughout.
                    await asyncio.sleep(window_s + 2 * policy.keepalive_s)
                    assert limits.open == 1
                    assert (await client.view(game_id, seats[1].token)).seats[0].present
                    relay.frozen = True
                    frozen_at = time.monotonic()
                    bound = policy.keepalive_s + policy.keepalive_timeout_s + 2.0  # + scheduling slack
                    while limits.open and time.monotonic() - frozen_at < bound + WAIT_S:
                        await asyncio.sleep(0.1)
                    ended = time.monotonic() - frozen_at
                    print(f"stream ended {ended:.1f} s after the peer went silent")
                    assert limits.open == 0 and ended <= bound
                    deadline = time.monotonic() + window_s + WAIT_S
                    view = await client.view(game_id, seats[1].token)
                    while view.seats[0].present and time.monotonic() < deadline:
                        await asyncio.sleep(0.2)
                        view = await client.view(game_id, seats[1].token)
                    gone = time.monotonic() - frozen_at
                    print(f"seat 0 not present {gone:.1f} s after the peer went silent")
                    assert not view.seats[0].present
                    assert gone <= bound + window_s + 2.0
                    call.cancel()
            finally:
                await relay.stop()

    run(scenario(), timeout_s=90)


async def _advertised_streams(h2: "RawHttp2") -> int | None:
    """The MAX_CONCURRENT_STREAMS of the server's first SETTINGS on ``h2``."""
    async for frame in h2.frames(WAIT_S):
        if frame.kind == SETTINGS and not frame.flags & ACK:
            return frame.settings().get(SETTINGS_MAX_CONCURRENT_STREAMS)
    return None


def test_streams_past_the_connections_cap_are_refused(redis_server: EmbeddedRedis) -> None:
    """A connection may hold its client's streams and calls and a little more (health,
    reflection); HEADERS past MAX_CONCURRENT_STREAMS get RST_STREAM REFUSED_STREAM."""

    async def scenario() -> None:
        async with replica_and_client(
            redis_server.url, max_streams_per_client=3, max_calls_per_client=2
        ) as (replica, _):
            cap = 3 + 2 + grpc_api.STREAM_HEADROOM_PER_CONNECTION
            h2 = await RawHttp2.open(replica.port)
            assert await _advertised_streams(h2) == cap
            extra = 4
            # Calls that announce a message and never send it: each holds its stream open.
            streams = [1 + 2 * i for i in range(cap + extra)]
            with h2.corked():  # in one read: no call ends (freeing its place) before the last comes
                for stream in streams:
                    h2.start_call(replica.port, stream, "ListGameKinds", 10)
            refused: set[int] = set()
            with contextlib.suppress(TimeoutError):
                async for frame in h2.frames(WAIT_S):
                    if frame.kind == RST_STREAM and struct.unpack(">I", frame.payload)[0] == REFUSED_STREAM:
                        refused.add(frame.stream)
                    if len(refused) >= extra:
                        break
            h2.close()
            assert refused == set(streams[cap:])

    run(scenario(), timeout_s=60)


def test_connections_past_the_replicas_cap_are_closed(redis_server: EmbeddedRedis) -> None:
    """``max_connections`` connections are served; one more is closed at once (descriptors
    stay for Redis, the REST face and the connections already held)."""

    async def scenario() -> None:
        policy = ConnectionPolicy(max_connections=3)
        async with replica_and_client(redis_server.url, grpc_connections=policy) as (replica, client):
            held = [await RawHttp2.open(replica.port) for _ in range(3)]
            for h2 in held:
                first = await h2.next()
                assert first is not None and first.kind == SETTINGS
            one_more = await RawHttp2.open(replica.port)
            closed = False
            with contextlib.suppress(TimeoutError):
                async for _ in one_more.frames(WAIT_S):
                    pass
                closed = True
            one_more.close()
            assert closed
            held[0].close()
            # A place is free again once gRPC's own threads have seen that connection end, which
            # takes a moment (a new connection opened at once is still closed): until then, bounded.
            deadline = time.monotonic() + WAIT_S
            while True:
                again = await RawHttp2.open(replica.port)
                first = await again.next()
                if (first is not None and first.kind == SETTINGS) or time.monotonic() > deadline:
                    break
                again.close()
                await asyncio.sleep(0.05)
            assert first is not None and first.kind == SETTINGS
            for h2 in (*held[1:], again):
                h2.close()

    run(scenario(), timeout_s=60)


def test_a_stream_renews_its_seats_presence_only_while_it_delivers(
    redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A seat's stream whose peer answers pings but takes no data (its flow-control window is
    0: a client that stopped reading) is held, yet its seat stops showing present once the
    window has passed; when the peer opens its window the updates go out and it is present again."""
    window_s = 2.0
    monkeypatch.setattr(presence, "WINDOW_MS", int(window_s * 1000))
    monkeypatch.setattr(presence, "TOUCH_EVERY_S", 0.2)
    monkeypatch.setattr(presence, "REFRESH_S", 0.1)
    monkeypatch.setattr(watch, "SEEN_EVERY_S", 0.2)

    async def present(client: object, game_id: str, token: str) -> bool:
        return bool((await client.view(game_id, token)).seats[0].present)  # type: ignore[attr-defined]

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (replica, client):
            seats = await new_game(client, players=3)
            game_id = seats[0].game_id
            h2 = await RawHttp2.open(replica.port)
            h2.send(SETTINGS, 0, 0, struct.pack(">HI", SETTINGS_INITIAL_WINDOW_SIZE, 0))
            request = game_service_pb2.WatchGameRequest(game_id=game_id).SerializeToString()
            headers = call_headers(replica.port, "WatchGame") + _literal("authorization", f"Bearer {seats[0].token}")
            h2.send(HEADERS, END_HEADERS, 1, headers)
            h2.send(DATA, END_STREAM, 1, b"\x00" + struct.pack(">I", len(request)) + request)
            reading = asyncio.create_task(_drain(h2, within_s=4 * window_s + WAIT_S))
            try:
                deadline = time.monotonic() + WAIT_S
                while replica.host.watchers.limits.open == 0 and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                assert replica.host.watchers.limits.open == 1
                await asyncio.sleep(window_s + 1.0)
                assert replica.host.watchers.limits.open == 1  # held all along (pings answered)
                assert not await present(client, game_id, seats[1].token)
                h2.send(WINDOW_UPDATE, 0, 0, struct.pack(">I", 1 << 24))
                h2.send(SETTINGS, 0, 0, struct.pack(">HI", SETTINGS_INITIAL_WINDOW_SIZE, 1 << 20))
                deadline = time.monotonic() + WAIT_S
                while not await present(client, game_id, seats[1].token) and time.monotonic() < deadline:
                    await asyncio.sleep(0.1)
                assert await present(client, game_id, seats[1].token)
                assert h2.data_frames > 0
            finally:
                reading.cancel()
                await asyncio.gather(reading, return_exceptions=True)
                h2.close()

    run(scenario(), timeout_s=60)


async def _drain(h2: RawHttp2, within_s: float) -> None:
    """Read the server's frames (answering pings), counting DATA, until closed or ``within_s``."""
    with contextlib.suppress(TimeoutError):
        async for frame in h2.frames(within_s):
            if frame.kind == DATA:
                h2.data_frames += 1


async def _status_of(h2: RawHttp2, stream: int, within_s: float) -> bytes | None:
    """The grpc-status that ends ``stream`` (the first call on ``h2``), or None when the stream
    or the connection ends without one."""
    async for frame in h2.frames(within_s):
        if frame.stream == stream and frame.kind == HEADERS and frame.flags & END_STREAM:
            return frame.grpc_status()
        if frame.stream == stream and frame.kind == RST_STREAM:
            return None
    return None


def test_requests_that_never_finish_arriving_are_capped_and_ended(
    redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Calls that announce a message and never finish it hold one of gRPC's places each before
    any handler runs: a client gets as many as its calls in flight (past that RESOURCE_EXHAUSTED
    at once) and each ends DEADLINE_EXCEEDED after the receipt time; then calls are answered."""
    receipt_s = 1.0
    monkeypatch.setattr(grpc_arrivals, "RECEIPT_S", receipt_s)
    per_client = 3
    # The calls the replica has let in to arrive: the test sends the next one only after the
    # previous one took its place, since calls on separate connections may be taken up in any order.
    admitted: list[str] = []
    enter = grpc_arrivals.Arrivals.enter

    def noting_enter(arrivals: grpc_arrivals.Arrivals, client: str, task: asyncio.Task[Any]) -> None:
        enter(arrivals, client, task)
        admitted.append(client)

    monkeypatch.setattr(grpc_arrivals.Arrivals, "enter", noting_enter)

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, max_calls_per_client=per_client) as (replica, client):
            connections = [await RawHttp2.open(replica.port) for _ in range(per_client + 2)]
            started, before = time.monotonic(), len(admitted)
            for number, h2 in enumerate(connections):
                h2.start_call(replica.port, 1, "CreateGame", 100, b"x" * 10)
                if number < per_client:  # in this order: the first ones take the client's places
                    async with asyncio.timeout(WAIT_S):
                        while len(admitted) - before <= number:
                            await asyncio.sleep(0.01)
            statuses = await asyncio.gather(*(_status_of(h2, 1, receipt_s + WAIT_S) for h2 in connections))
            took = time.monotonic() - started
            for h2 in connections:
                h2.close()
            print(f"statuses {statuses} within {took:.1f} s")
            assert statuses == [DEADLINE_EXCEEDED] * per_client + [RESOURCE_EXHAUSTED] * 2
            assert took <= receipt_s + 3.0
            assert (await client.create_game("stimmvieh", 3)).game_id  # places free again

    run(scenario(), timeout_s=60)


def test_at_the_cap_of_requests_arriving_the_client_holding_the_most_gives_way(
    redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At the replica's cap of requests arriving, a call from a client holding fewer is let in
    and the oldest of the client holding the most is refused RESOURCE_EXHAUSTED; clients holding
    as many do not refuse each other's. Before, five addresses each under their cap held every
    place, and every other client's calls were refused."""
    heavy, light, newcomer = "127.0.0.22", "127.0.0.23", "127.0.0.24"
    places: list[grpc_arrivals.Arrivals] = []
    enter = grpc_arrivals.Arrivals.enter

    def noting_enter(arrivals: grpc_arrivals.Arrivals, client: str, task: asyncio.Task[Any]) -> None:
        enter(arrivals, client, task)
        places.append(arrivals)

    monkeypatch.setattr(grpc_arrivals.Arrivals, "enter", noting_enter)

    async def arriving(count: int) -> None:
        async with asyncio.timeout(WAIT_S):
            while not places or places[0].arriving != count:
                await asyncio.sleep(0.01)

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, max_calls=4, max_calls_per_client=3) as (replica, client):
            held = []
            for number, source in enumerate((heavy, heavy, heavy, light)):
                h2 = await RawHttp2.open(replica.port, source)
                h2.start_call(replica.port, 1, "CreateGame", 100, b"x" * 10)  # announced, never finished
                held.append(h2)
                await arriving(number + 1)  # in this order: the oldest is the first
            fresh = await RawHttp2.open(replica.port, newcomer)
            fresh.start_call(replica.port, 1, "CreateGame", 100, b"x" * 10)
            assert await _status_of(held[0], 1, WAIT_S) == RESOURCE_EXHAUSTED  # the heaviest's oldest
            await arriving(4)  # the newcomer's in its place
            assert (places[0].held_by(heavy), places[0].held_by(light), places[0].held_by(newcomer)) == (2, 1, 1)
            # LIGHT asks again: the heaviest holds no more than one more than it, so it is refused.
            again = await RawHttp2.open(replica.port, light)
            again.start_call(replica.port, 1, "CreateGame", 100, b"x" * 10)
            assert await _status_of(again, 1, WAIT_S) == RESOURCE_EXHAUSTED
            assert places[0].arriving == 4
            for h2 in (*held, fresh, again):
                h2.close()
            await arriving(0)
            assert (await client.create_game("stimmvieh", 3)).game_id  # places free again

    run(scenario(), timeout_s=60)


async def _open_watches(channel: grpc.aio.Channel, game_id: str, count: int) -> tuple[list[grpc.aio.Call], str | None]:
    """``count`` WatchGame streams of ``game_id`` on ``channel``, each past its first update; the
    reason of the first refused, if one is."""
    stub = game_service_pb2_grpc.GameServiceStub(channel)
    calls: list[grpc.aio.Call] = []
    for _ in range(count):
        call = stub.WatchGame(game_service_pb2.WatchGameRequest(game_id=game_id), timeout=WAIT_S)
        try:
            await asyncio.wait_for(call.read(), WAIT_S)
        except grpc.aio.AioRpcError as refused:
            return calls, HustingsError.from_rpc_error(refused).reason
        calls.append(call)
    return calls, None


@pytest.mark.parametrize("proxied", [False, True], ids=["direct", "behind_a_trusted_proxy"])
def test_a_connections_streams_leave_room_for_its_calls(redis_server: EmbeddedRedis, proxied: bool) -> None:
    """README gRPC connections: a connection carries at most `--max-streams-per-connection`
    HTTP/2 streams (advertised as MAX_CONCURRENT_STREAMS), and of them a connection from a
    client, not a trusted proxy, holds at most that less 32 as streams
    (`TOO_MANY_STREAMS_FOR_CLIENT`), so that its calls always find a stream (past the HTTP/2 cap
    they would be refused). A trusted proxy's connection carries many clients and is held to the
    per-client cap alone (the proxy opens another connection at the HTTP/2 cap)."""
    per_connection = 40  # 8 streams for a client's own connection
    extra = {"trusted_proxies": ("127.0.0.0/8",)} if proxied else {}

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, max_streams_per_connection=per_connection, **extra) as (replica, client):
            game_id = (await new_game(client))[0].game_id
            h2 = await RawHttp2.open(replica.port)
            advertised = await _advertised_streams(h2)
            h2.close()
            assert advertised == per_connection
            async with grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}") as channel:
                wanted = 12 if proxied else 9
                calls, refused = await _open_watches(channel, game_id, wanted)
                try:
                    if proxied:
                        assert refused is None and len(calls) == wanted
                    else:
                        assert len(calls) == per_connection - 32 and refused == "TOO_MANY_STREAMS_FOR_CLIENT", refused
                    # Calls on the same connection are still answered, at once.
                    stub = game_service_pb2_grpc.GameServiceStub(channel)
                    views = await asyncio.wait_for(
                        asyncio.gather(*(stub.GetView(game_service_pb2.GetViewRequest(game_id=game_id)) for _ in range(20))),
                        WAIT_S,
                    )
                    assert {v.view.game_id for v in views} == {game_id}
                finally:
                    for call in calls:
                        call.cancel()

    run(scenario(), timeout_s=60)
