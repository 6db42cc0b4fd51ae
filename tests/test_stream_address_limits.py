"""Streams per client address (README, Many replicas: Limits): one machine holds at most
``--max-streams-per-address`` streams of a replica over all its gRPC connections and event
streams together, so that opening more connections gets it no more; behind a trusted proxy the
forwarded address is what counts. A refusal names neither the address nor a token and changes
nothing: the streams held go on getting their updates. A second client address is 127.0.0.2,
reached through a relay in this process."""

from __future__ import annotations

import asyncio
import contextlib
import json

import aiohttp
import grpc
import pytest

from conftest import REPO, run, serve_process
from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.errors import ServiceError
from hustings.service.limits import StreamLimits
from hustings.service.rest import KEEPALIVE_S
from hustings.v1 import game_service_pb2, game_service_pb2_grpc
from service_helpers import new_game
from test_client_limits import OTHER_ADDRESS, relay_from
from test_watchers import next_move, own_channel, reason_of, replica, wait_until

WAIT_S = 30.0  # bound on any one wait in these tests
LOOPBACK = "127.0.0.1"
# Small caps: three streams per connection, four per address, far fewer than the replica's.
CAPS = {"max_streams_per_client": 3, "max_streams_per_address": 4, "max_watchers": 100}
SEAT_TOKEN = "a-seat-token-that-must-never-be-shown"


class Stream:
    """One WatchGame stream from version 0 on a raw stub (no client-side retries), with the
    versions of the updates it got, or the error that refused or ended it."""

    def __init__(self, stub: game_service_pb2_grpc.GameServiceStub, game_id: str, metadata: tuple[tuple[str, str], ...] = ()) -> None:
        self.call = stub.WatchGame(game_service_pb2.WatchGameRequest(game_id=game_id, from_version=0), metadata=metadata)
        self.versions: list[int] = []
        self.error: grpc.aio.AioRpcError | None = None
        self.opened = asyncio.Event()  # the first update came, or the error
        self.task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        try:
            async for update in self.call:
                self.versions.append(update.version)
                self.opened.set()
        except grpc.aio.AioRpcError as error:
            self.error = error
            self.opened.set()

    async def close(self) -> None:
        """Cancel the stream and wait for its reader."""
        self.call.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


async def opened(stream: Stream) -> Stream:
    """``stream`` once its first update or its error came (bounded)."""
    await asyncio.wait_for(stream.opened.wait(), WAIT_S)
    return stream


async def refused(stream: Stream) -> str:
    """The reason ``stream`` was refused with; it must be RESOURCE_EXHAUSTED, and its message
    must name neither an address nor a token."""
    await opened(stream)
    assert stream.error is not None, f"admitted with updates {stream.versions}"
    assert stream.error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    message = stream.error.details() or ""
    assert "127.0.0" not in message and "203.0.113" not in message and SEAT_TOKEN not in message
    return reason_of(stream.error)


def test_a_refusal_past_the_address_cap_counts_nothing_and_names_no_address_or_token() -> None:
    """The counting itself: four streams of one address over two connections fill its share;
    a fifth on either connection, checked ahead or held, is refused with
    TOO_MANY_STREAMS_FOR_ADDRESS and every count stays as it was; another address is unaffected;
    every stream closed gives its place back."""
    limits = StreamLimits(max_streams=100, max_per_client=3, max_per_seat=32, max_per_address=4)
    address = "203.0.113.9"
    with contextlib.ExitStack() as held:
        for connection in ("grpc:a", "grpc:a", "grpc:a", "grpc:b"):
            held.enter_context(limits.hold(connection, SEAT_TOKEN, address))
        before = (limits.open, limits.held_from(address), limits.held_by("grpc:a"), limits.held_by("grpc:b"))
        assert before == (4, 4, 3, 1)
        for attempt in (lambda: limits.check("grpc:b", SEAT_TOKEN, address), lambda: limits.hold("grpc:b", None, address).__enter__()):
            with pytest.raises(ServiceError) as caught:
                attempt()
            assert caught.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert caught.value.reason == "TOO_MANY_STREAMS_FOR_ADDRESS"
            assert address not in caught.value.message and SEAT_TOKEN not in caught.value.message
            assert (limits.open, limits.held_from(address), limits.held_by("grpc:a"), limits.held_by("grpc:b")) == before
        with limits.hold("grpc:c", None, "203.0.113.10"):
            assert limits.held_from("203.0.113.10") == 1 and limits.open == 5
    assert (limits.open, limits.held_from(address), limits.held_by("grpc:a")) == (0, 0, 0)
    with pytest.raises(ValueError):
        StreamLimits(max_per_address=0)


def test_the_default_cap_is_the_readme_s_and_a_cap_below_one_is_refused() -> None:
    """`hustings serve`, ReplicaConfig and the limits agree on the README's default (a fifth of
    the replica's streams), a tool's own replica lets its one address hold every stream, and
    `--max-streams-per-address 0` is a usage error."""
    from hustings.cli import _parser
    from hustings.service import limits
    from hustings.service.replica import SOLE_CLIENT, ReplicaConfig

    readme = (REPO / "README.md").read_text()
    assert "`--max-streams-per-address` (2,000)" in readme
    assert _parser().parse_args(["serve"]).max_streams_per_address == 2_000
    assert ReplicaConfig(redis_url="redis://127.0.0.1:1/0").max_streams_per_address == limits.DEFAULT_MAX_STREAMS_PER_ADDRESS == 2_000
    assert limits.DEFAULT_MAX_STREAMS_PER_ADDRESS * 5 == limits.DEFAULT_MAX_STREAMS
    assert ReplicaConfig(redis_url="redis://127.0.0.1:1/0", **SOLE_CLIENT).max_streams_per_address == limits.DEFAULT_MAX_STREAMS
    with pytest.raises(SystemExit):
        _parser().parse_args(["serve", "--max-streams-per-address", "0"])


def test_two_connections_of_one_address_share_its_cap_and_a_refusal_changes_nothing(redis_server: EmbeddedRedis) -> None:
    """Three streams per connection, four per address: connection A holds three, connection B
    one; B's second stream is refused TOO_MANY_STREAMS_FOR_ADDRESS (as is A's fourth), while
    another address still streams. The four held streams all get the next step; one closed,
    B's next stream is admitted."""

    async def scenario() -> None:
        async with replica(redis_server.url, **CAPS) as one:
            address = f"{LOOPBACK}:{one.port}"
            limits = one.host.watchers.limits
            async with Client(address) as setup, own_channel(address) as first, own_channel(address) as second:
                seats = await new_game(setup, 4)
                game_id = seats[0].game_id
                a = game_service_pb2_grpc.GameServiceStub(first)
                b = game_service_pb2_grpc.GameServiceStub(second)
                held = [await opened(Stream(a, game_id)) for _ in range(3)]
                held.append(await opened(Stream(b, game_id)))
                assert [s.error for s in held if s.error] == []
                assert limits.held_from(LOOPBACK) == 4 and limits.open == 4
                assert await refused(Stream(b, game_id, (("authorization", f"Bearer {seats[1].token}"),))) == "TOO_MANY_STREAMS_FOR_ADDRESS"
                assert await refused(Stream(a, game_id)) == "TOO_MANY_STREAMS_FOR_ADDRESS"
                assert limits.held_from(LOOPBACK) == 4 and limits.open == 4
                async with relay_from(OTHER_ADDRESS, one.port) as relay_port:
                    async with own_channel(f"{LOOPBACK}:{relay_port}") as elsewhere:
                        theirs = await opened(Stream(game_service_pb2_grpc.GameServiceStub(elsewhere), game_id))
                        assert theirs.error is None and limits.held_from(OTHER_ADDRESS) == 1
                        await theirs.close()
                # Nothing was changed by the refusals: every held stream gets the next step.
                version = await next_move(setup, seats)
                await wait_until(lambda: all(s.versions[-1:] == [version] for s in held), WAIT_S)
                assert [s.error for s in held if s.error] == []
                await held.pop(0).close()
                await wait_until(lambda: limits.held_from(LOOPBACK) == 3, WAIT_S)
                again = await opened(Stream(b, game_id))
                assert again.error is None and again.versions == [version]
                held.append(again)
                for stream in held:
                    await stream.close()
            await wait_until(lambda: limits.open == 0 and limits.held_from(LOOPBACK) == 0, WAIT_S)

    run(scenario())


async def _event_stream(session: aiohttp.ClientSession, url: str) -> tuple[aiohttp.ClientResponse, dict[str, object]]:
    """Open an event stream; the response and its first event's data (or the JSON error)."""
    response = await session.get(url, timeout=aiohttp.ClientTimeout(total=None, sock_read=WAIT_S))
    if response.status != 200:
        return response, await response.json()
    async with asyncio.timeout(WAIT_S):
        async for line in response.content:
            if line.startswith(b"data:"):
                return response, json.loads(line[5:])
    raise AssertionError("the event stream ended before its first event")


def test_event_streams_count_towards_the_same_address_cap(redis_server: EmbeddedRedis) -> None:
    """Over REST a Server-Sent-Events stream is one of its address's streams: with three gRPC
    streams and one event stream held, a fifth stream is refused on either face
    (TOO_MANY_STREAMS_FOR_ADDRESS; a plain 429 before any event over REST); the event stream
    closed, its place is given up at once and a gRPC stream is admitted."""

    async def scenario() -> None:
        async with replica(redis_server.url, http_address=f"{LOOPBACK}:0", **CAPS) as one:
            address = f"{LOOPBACK}:{one.port}"
            limits = one.host.watchers.limits
            url = f"http://{LOOPBACK}:{one.http_port}/v1/games/{{}}:watch?fromVersion=0"
            async with Client(address) as setup, own_channel(address) as first, own_channel(address) as second, aiohttp.ClientSession() as http:
                seats = await new_game(setup, 4)
                game_id = seats[0].game_id
                a = game_service_pb2_grpc.GameServiceStub(first)
                b = game_service_pb2_grpc.GameServiceStub(second)
                held = [await opened(Stream(a, game_id)) for _ in range(2)] + [await opened(Stream(b, game_id))]
                assert [s.error for s in held if s.error] == []
                events, first_event = await _event_stream(http, url.format(game_id))
                assert events.status == 200 and first_event["version"] == str(held[0].versions[0])
                assert limits.held_from(LOOPBACK) == 4
                over, error = await _event_stream(http, url.format(game_id))
                assert over.status == 429 and error["details"][0]["reason"] == "TOO_MANY_STREAMS_FOR_ADDRESS"  # type: ignore[index]
                assert "127.0.0" not in str(error["message"])
                assert await refused(Stream(b, game_id)) == "TOO_MANY_STREAMS_FOR_ADDRESS"
                assert limits.held_from(LOOPBACK) == 4
                events.close()
                # Its place is given up when the connection closes, not at the stream's next
                # keep-alive write (KEEPALIVE_S = 15 s later).
                await wait_until(lambda: limits.held_from(LOOPBACK) == 3, KEEPALIVE_S / 3)
                again = await opened(Stream(b, game_id))
                assert again.error is None
                for stream in [*held, again]:
                    await stream.close()

    run(scenario())


def test_behind_a_trusted_proxy_each_forwarded_address_has_its_own_share(redis_server: EmbeddedRedis) -> None:
    """`hustings serve --trusted-proxy 127.0.0.0/8 --max-streams-per-address 2`: streams on one
    connection from the proxy count by the address each names in x-forwarded-for, so a third
    stream for one forwarded address is refused while another forwarded address, and the proxy's
    own streams, are admitted."""
    with serve_process(
        "--redis-url", redis_server.url, "--trusted-proxy", "127.0.0.0/8", "--max-streams-per-address", "2"
    ) as (_process, port):
        address = f"{LOOPBACK}:{port}"

        async def scenario() -> None:
            async with Client(address) as setup, own_channel(address) as proxy:
                seats = await new_game(setup, 4)
                game_id = seats[0].game_id
                stub = game_service_pb2_grpc.GameServiceStub(proxy)

                def forwarded(client: str) -> tuple[tuple[str, str], ...]:
                    return (("x-forwarded-for", client),)

                held = [await opened(Stream(stub, game_id, forwarded("203.0.113.1"))) for _ in range(2)]
                assert [s.error for s in held if s.error] == []
                assert await refused(Stream(stub, game_id, forwarded("198.51.100.7, 203.0.113.1"))) == "TOO_MANY_STREAMS_FOR_ADDRESS"
                held.append(await opened(Stream(stub, game_id, forwarded("203.0.113.2"))))
                held.append(await opened(Stream(stub, game_id)))  # the proxy's own
                assert [s.error for s in held if s.error] == []
                for stream in held:
                    await stream.close()

        run(scenario())
