"""Helpers for tests that play through the real API."""

from __future__ import annotations

import asyncio
import contextlib
import pathlib
import random
import subprocess
import sys
import time
from typing import Any, AsyncIterator, Awaitable, Callable, Iterator, Sequence

import grpc

import redis
from conftest import run

from hustings.client import Client, Joined
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.errors import ServiceError
from hustings.service.host import fill_state_view
from hustings.service.replica import UNBOUNDED_CALL_RATE, Replica, ReplicaConfig
from hustings.service.store import Store
from hustings.v1 import game_pb2, game_service_pb2, stimmvieh_pb2

MAX_MOVES = 2000


def sent_view(game: Any, state: Any, options: Any, seat: int | None, status: int | None = None, version: int = 1) -> game_pb2.GameView:
    """The GameView the service sends ``seat`` (None: a spectator) of a game in ``state``: the
    game-level fields as the host writes them, and what it takes from the state through the
    host's own ``fill_state_view`` (who is to act, the seat's legal moves, the game's part).
    ``status``: in play, or finished when the rules say so, unless given."""
    if status is None:
        status = game_pb2.GAME_STATUS_FINISHED if game.is_over(state) else game_pb2.GAME_STATUS_ACTIVE
    view = game_pb2.GameView(game_id="g" * 22, kind=game.info.kind, version=version, status=status)
    game.options_to_proto(options, view.options)
    if seat is not None:
        view.seat = seat
    fill_state_view(game, state, status, seat, view)
    return view


@contextlib.asynccontextmanager
async def replica_and_client(redis_url: str, **config: object) -> AsyncIterator[tuple[Replica, Client]]:
    """An in-process replica on a free loopback port (``config``: more ReplicaConfig fields) and a
    client of it, both closed afterwards. The test is its one client, calling as fast as it can
    from one address: no rate of calls per address, and no bound on the listed tables it keeps
    waiting, unless ``config`` sets them."""
    config = {**UNBOUNDED_CALL_RATE, "open_tables_per_client": 0, **config}
    replica = await Replica(ReplicaConfig(redis_url=redis_url, address="127.0.0.1:0", grace_s=1.0, **config)).start()  # type: ignore[arg-type]
    client = Client(f"127.0.0.1:{replica.port}")
    try:
        yield replica, client
    finally:
        await client.close()
        await replica.stop()


async def seat_changes(replica: Replica, game_id: str, token: str, steps: int) -> int:
    """The seat of ``token`` left and taken back through ``replica``'s host (the calls' own work,
    without gRPC's on both sides: half the time a step) until the game's log holds ``steps``
    steps or more, or the service refuses (``TOO_MANY_SEAT_CHANGES`` past its bound): the game's
    version then."""
    version = (await replica.host.get_view(game_id, token)).version
    for _ in range(steps):  # a bound: each round adds two steps
        if version >= steps:
            break
        try:
            await replica.host.leave_game(game_id, token)
        except ServiceError as refused:
            if refused.reason != "TOO_MANY_SEAT_CHANGES":
                raise
            break
        version = (await replica.host.return_to_game(game_id, token)).view.version
    return version


def stimmvieh_options(players: int = 4, **options: object) -> game_pb2.GameOptions:
    """GameOptions for a Stimmvieh game."""
    result = game_pb2.GameOptions(players=players)
    result.stimmvieh.CopyFrom(stimmvieh_pb2.StimmviehOptions(**options))  # type: ignore[arg-type]
    return result


def choose_top_candidates(*influences: int) -> game_pb2.Move:
    """A ChooseTopCandidates move."""
    move = game_pb2.Move()
    move.stimmvieh.choose_top_candidates.influences.extend(influences)
    return move


def play_politician(influence: int, card_id: str = "") -> game_pb2.Move:
    """A PlayPolitician move."""
    move = game_pb2.Move()
    move.stimmvieh.play_politician.influence = influence
    move.stimmvieh.play_politician.take_card_id = card_id
    return move


async def new_game(client: Client, players: int = 4, seed: str = "", **options: object) -> list[Joined]:
    """Create a Stimmvieh game and fill every seat."""
    created = await client.create_game("stimmvieh", players, stimmvieh_options(players, **options), seed=seed)
    return [await client.join(created.game_id, f"Player {i}") for i in range(players)]


async def play_to_end(clients: list[Client], seats: list[Joined], rng: random.Random) -> game_pb2.GameView:
    """Play random legal moves until the game ends; move i goes through clients[i % len]."""
    game_id = seats[0].game_id
    view = await clients[0].view(game_id)
    for i in range(MAX_MOVES):
        client = clients[i % len(clients)]
        view = await client.view(game_id)
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            return view
        seat = min(view.to_act)
        mine = await client.view(game_id, seats[seat].token)
        await client.move(game_id, seats[seat].token, rng.choice(list(mine.legal_moves)), expected_version=mine.version)
    raise AssertionError("game did not end within the move bound")


async def game_exists(client: Client, game_id: str) -> bool:
    """Whether ``game_id`` is there (False when its view is NOT_FOUND)."""
    import grpc

    from hustings.client import HustingsError

    try:
        await client.view(game_id)
    except HustingsError as error:
        assert error.code == grpc.StatusCode.NOT_FOUND, error
        return False
    return True


def remove_game(raw: Any, game_id: str) -> None:
    """A game's keys deleted, as its expiry or the room maker deletes them (``raw``: a
    synchronous Redis client)."""
    from hustings.service.store import game_key, log_key, presence_key, requests_key

    raw.delete(*(key(game_id) for key in (game_key, log_key, requests_key, presence_key)))


async def lobby_pages_after(client: Client, token: str, size: int, pages: int = 50) -> list[str]:
    """The games of every lobby page after ``token``, following the tokens (at most ``pages``)."""
    seen: list[str] = []
    for _ in range(pages):
        page = await client.games(page_size=size, page_token=token)
        seen += [g.game_id for g in page.games]
        if not page.next_page_token:
            return seen
        token = page.next_page_token
    raise AssertionError("the pages did not end")


class RedisProxy:
    """A loopback TCP proxy to the Redis on ``target_port`` that forwards everything; a subclass
    holds or drops what it looks for (``request``: before a request goes on; ``reply``: whether
    a reply goes on, False closing the connection instead)."""

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.port = 0
        self._tasks: set[asyncio.Task[None]] = set()

    @contextlib.asynccontextmanager
    async def running(self) -> "AsyncIterator[Any]":
        server = await asyncio.start_server(self._accepted, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        try:
            yield self
        finally:
            server.close()
            for task in self._tasks:
                task.cancel()
            await asyncio.gather(*self._tasks, return_exceptions=True)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    async def request(self, data: bytes, connection: dict[str, Any]) -> None:
        """Before ``data`` goes on to Redis (``connection``: this connection's own notes)."""

    def reply(self, data: bytes, connection: dict[str, Any]) -> bool:
        """Whether ``data`` goes on to the client; False ends the connection."""
        return True

    def silent(self, connection: dict[str, Any]) -> bool:
        """Whether ``connection`` is silent: what comes either way is dropped, the connection
        kept open (a NAT that forgot it, a peer half gone)."""
        return False

    def _accepted(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.ensure_future(self._serve(reader, writer))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", self.target)
        connection: dict[str, Any] = {}

        async def requests() -> None:
            while data := await reader.read(65536):
                await self.request(data, connection)
                if self.silent(connection):
                    continue
                upstream_writer.write(data)
                await upstream_writer.drain()

        async def replies() -> None:
            while data := await upstream_reader.read(65536):
                if self.silent(connection):
                    continue
                if not self.reply(data, connection):
                    return
                writer.write(data)
                await writer.drain()

        forward = asyncio.ensure_future(requests())
        try:
            await replies()
        except (ConnectionError, OSError):
            pass
        finally:
            forward.cancel()
            await asyncio.gather(forward, return_exceptions=True)
            writer.close()
            upstream_writer.close()


class CommitReplyCutter(RedisProxy):
    """A proxy (``RedisProxy``) that does not forward the reply to the first request carrying
    ``marker`` (a commit, whose snapshot holds it): the connection is closed instead. The command
    ran in Redis; its answer is lost on the way."""

    def __init__(self, target_port: int, marker: bytes) -> None:
        super().__init__(target_port)
        self.marker = marker
        self.cut = 0

    async def request(self, data: bytes, connection: dict[str, Any]) -> None:
        if not self.cut and self.marker in data:
            self.cut += 1  # once only: the resend goes through
            connection["cut"] = True

    def reply(self, data: bytes, connection: dict[str, Any]) -> bool:
        return not connection.get("cut")  # the marked command's reply (and the connection) is lost


def run_with_admin(
    tmp_path: pathlib.Path, scenario: "Callable[[str, redis.Redis[bytes]], Awaitable[None]]", noeviction: bool = False
) -> None:
    """Run ``scenario(url, admin)`` on a Redis of the test's own, ``admin`` a plain client of it
    that may change its settings (``maxmemory``) as an operator would; ``noeviction``: it refuses
    writes past its ``maxmemory``, as deploy/redis.conf has it."""
    extra = ["--maxmemory-policy", "noeviction"] if noeviction else []
    with EmbeddedRedis(tmp_path / "redis", appendonly=False, extra_args=extra) as server:
        admin = redis.Redis.from_url(server.url)
        try:
            run(scenario(server.url, admin))
        finally:
            admin.close()


def random_play(kind: str, players: int, seed: bytes, chooser: bytes, steps: int) -> Iterator[tuple[Any, list[tuple[int, game_pb2.Move]]]]:
    """Random play of ``kind`` in the engine alone, dealt from ``seed``: each seat to act and each
    move drawn from ``chooser``'s stream. Yields, before each step, the state and the (seat, move)
    steps played so far (the same list, growing), ``steps`` times at most or until the game is over."""
    from hustings.engine import Rng, get_game

    game = get_game(kind)
    assert game is not None
    rng, choices = Rng(seed), Rng(chooser)
    state = game.setup(game.options_from_proto(game_pb2.GameOptions(players=players)), rng)
    played: list[tuple[int, game_pb2.Move]] = []
    for _ in range(steps):
        if game.is_over(state):
            return
        yield state, played
        mover = choices.choice(sorted(game.to_act(state)))
        move = choices.choice(game.legal_moves(state, mover))
        message = game_pb2.Move()
        game.move_to_proto(move, message)
        played.append((mover, message))
        state, _ = game.apply(state, mover, move, rng)


def held_runner(
    index: Any, calls: list[str], hold: asyncio.Event, swallowed: list[str] | None = None, **settings: Any
) -> Any:
    """A deadline runner on ``index`` polling every 10 ms, on this machine's clock, whose applying
    of a game notes it in ``calls`` and then holds until ``hold`` is set, as a strong bot still
    thinking would; with ``swallowed`` it swallows its first cancellation (noting the game there),
    as a Redis call caught mid-way may, and holds on. ``settings``: more of the runner's own."""
    from hustings.service import deadlines

    async def apply_due(game_id: str) -> tuple[int, int]:
        calls.append(game_id)
        try:
            await hold.wait()
        except asyncio.CancelledError:
            if swallowed is None:
                raise
            swallowed.append(game_id)
            await hold.wait()
        return 0, 0

    async def version_of(game_id: str) -> int:
        return 0

    return deadlines.DeadlineRunner(index, apply_due, version_of, poll_s=0.01, now_ms=deadlines.now_ms, **settings)


Hook = Callable[[], Awaitable[None]]


class RefusingProxy(grpc.GenericRpcHandler):
    """A loopback gRPC proxy in front of a replica that passes every call through, except the
    first SubmitMoves, which it refuses with ``refusals`` (in order) without passing them on,
    and the first ReturnToGames, refused with ``return_refusals``; ``before_return`` and
    ``after_return`` are awaited around each ReturnToGame it passes on."""

    def __init__(
        self,
        target: str,
        refusals: list[ServiceError],
        return_refusals: Sequence[ServiceError] = (),
        before_return: Hook | None = None,
        after_return: Hook | None = None,
    ) -> None:
        self.target = target
        self.refusals = list(refusals)
        self.return_refusals = list(return_refusals)
        self.before_return, self.after_return = before_return, after_return
        self.moves: list[game_service_pb2.SubmitMoveRequest] = []
        self.returns = 0
        self.watches = 0
        self.port = 0

    def service(self, details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler:
        method = details.method
        if method.endswith("/WatchGame"):
            async def stream(request: bytes, context: grpc.aio.ServicerContext) -> Any:
                async for update in self._stream(method, request, context):
                    yield update

            return grpc.unary_stream_rpc_method_handler(stream)

        async def unary(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
            return await self._unary(method, request, context)

        return grpc.unary_unary_rpc_method_handler(unary)

    async def _unary(self, method: str, request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        if method.endswith("/SubmitMove"):
            self.moves.append(game_service_pb2.SubmitMoveRequest.FromString(request))
            if self.refusals:
                status = self.refusals.pop(0).to_status()
                await context.abort(status.code, status.details, status.trailing_metadata)
        returning = method.endswith("/ReturnToGame")
        if returning:
            self.returns += 1
            if self.return_refusals:
                status = self.return_refusals.pop(0).to_status()
                await context.abort(status.code, status.details, status.trailing_metadata)
            if self.before_return is not None:
                await self.before_return()
        call = self.channel.unary_unary(method)
        try:
            answer: bytes = await call(request, metadata=context.invocation_metadata(), timeout=10)
        except grpc.aio.AioRpcError as error:
            await context.abort(error.code(), error.details() or "", tuple(error.trailing_metadata() or ()))
            raise
        if returning and self.after_return is not None:
            await self.after_return()
        return answer

    async def _stream(self, method: str, request: bytes, context: grpc.aio.ServicerContext) -> Any:
        self.watches += 1
        try:
            async for update in self.channel.unary_stream(method)(request, metadata=context.invocation_metadata()):
                yield update
        except grpc.aio.AioRpcError as error:
            await context.abort(error.code(), error.details() or "", tuple(error.trailing_metadata() or ()))

    async def __aenter__(self) -> "RefusingProxy":
        self.channel = grpc.aio.insecure_channel(self.target)
        self.server = grpc.aio.server()
        self.server.add_generic_rpc_handlers([self])
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        await self.server.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.server.stop(0)
        await self.channel.close()


async def away_from_a_running_game(client: Client) -> tuple[Joined, Joined]:
    """A running Stimmvieh game of four in which Ada (seat 0) has left, so her seat's bot decides
    for her, and Bea (seat 1), present, owes the next decision; seats 2 and 3 are the server's
    bots. Their seats."""
    table = game_pb2.TableSettings(bot_seats=[2, 3], bot_level="random")
    game_id = (await client.create_game("stimmvieh", 4, table=table)).game_id
    ada = await client.join(game_id, "Ada")
    bea = await client.join(game_id, "Bea")
    await client.leave(game_id, ada.token)
    view = await client.view(game_id, ada.token)
    assert view.status == game_pb2.GAME_STATUS_ACTIVE and view.seats[0].absent
    return ada, bea


async def latencies_beside_a_flood(
    measure: Callable[[float], Awaitable[list[float]]],
    flood: Sequence[str],
    flood_s: float,
    wait_s: float,
    met: Callable[[], bool] | None = None,
    met_within_s: float = 0.0,
) -> tuple[list[float], list[float], bytes]:
    """Another client's call times, ``measure`` (calls one after another for the seconds it is
    given): quiet for 1.5 s (after 0.3 s of warming up), then while the child process ``flood``
    (``sys.executable`` and its arguments) runs for ``flood_s``; and what that process printed
    (it is waited for ``wait_s`` at most, then killed). ``met``: whether the replica has met the
    flood with its limit (polled for ``met_within_s`` at most, the calls timed from then on, or
    from then anyway): what the flood is allowed before its limit (a burst of calls served)
    takes longer on a loaded machine, and is not what the limit promises."""
    await measure(0.3)  # warm: the game is cached, the connection open
    quiet = await measure(1.5)
    process = await asyncio.create_subprocess_exec(sys.executable, *flood, stdout=subprocess.PIPE)
    try:
        started = time.monotonic()
        await asyncio.sleep(0.3)  # the flood under way
        if met is not None:
            while not met() and time.monotonic() - started < met_within_s:
                await asyncio.sleep(0.01)
        flooded = await measure(max(0.5, flood_s - 0.3 - (time.monotonic() - started)))
        out, _ = await asyncio.wait_for(process.communicate(), wait_s)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    return quiet, flooded, out


LOCK_POLLS = 200  # 2 ms apart: the bound on the wait for a call to queue for a game's lock


async def move_behind_the_games_lock(replica: Replica, client: Client, game_id: str, token: str, move: game_pb2.Move) -> "asyncio.Future[Any]":
    """A move sent while another step holds the game's lock on ``replica``, once it is at the
    replica waiting for that lock (not answered yet)."""
    moving = asyncio.ensure_future(client.move(game_id, token, move))
    for _ in range(LOCK_POLLS):
        await asyncio.sleep(0.002)
        held = replica.host._locks.get(game_id)
        if held is not None and held[1] >= 2:
            break
    assert not moving.done()
    return moving


async def empty_store(url: str) -> Store:
    """A store of ``url``; on a Cluster (a module's, shared by its tests) every node emptied first,
    so that the last test's keys go."""
    store = Store.from_url(url)
    if store.lane is None:
        await store.client.flushall(target_nodes=store.client.ALL_NODES)  # type: ignore[call-arg]
    return store
