"""The Python client and the bots retry right: one request id per logical call, sent again on
every attempt after UNAVAILABLE or DEADLINE_EXCEEDED, so that create, join and move each happen
once however many answers are lost; the table calls without a request id (leave, return, add a
bot) take the refusal that says a lost attempt did the job as their answer.

Faults come from a real gRPC proxy on loopback in front of a real replica (over a real Redis of
its own): for chosen calls it forwards the call and then answers UNAVAILABLE (applied, the answer
lost), answers UNAVAILABLE without forwarding, or forwards and holds the answer past the
client's deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import pathlib
import random
from dataclasses import dataclass, field
from typing import AsyncIterator, Awaitable, Callable, Iterator, Sequence

import grpc
import pytest

from conftest import run, running_replica
from service_helpers import stimmvieh_options
from hustings.bots import BotStats, Replicas, play_game
from hustings.ai import example_bot
from hustings.client import HINT_JITTER, MIN_HINT_S, Client, HustingsError, RetryPolicy, hinted_pause_s
from hustings.service.embedded_redis import EmbeddedRedis, free_port
from hustings.v1 import game_pb2, game_service_pb2

FORWARD, LOSE, DROP, STALL = "forward", "lose", "drop", "stall"
STALL_S = 4.0  # longer than the attempt timeout below: the client sees DEADLINE_EXCEEDED
ATTEMPT_TIMEOUT_S = 2.0
PASSED_METADATA = frozenset({"authorization", "x-hustings-game"})
REQUEST_TYPES = {
    "CreateGame": game_service_pb2.CreateGameRequest,
    "JoinGame": game_service_pb2.JoinGameRequest,
    "SubmitMove": game_service_pb2.SubmitMoveRequest,
    "LeaveGame": game_service_pb2.LeaveGameRequest,
    "ReturnToGame": game_service_pb2.ReturnToGameRequest,
    "TakeOverSeat": game_service_pb2.TakeOverSeatRequest,
    "AddBot": game_service_pb2.AddBotRequest,
}
TEST_RETRY = RetryPolicy(max_attempts=6, attempt_timeout_s=ATTEMPT_TIMEOUT_S, first_backoff_s=0.02, max_backoff_s=0.2)


@dataclass
class FaultyProxy:
    """A loopback gRPC proxy that forwards raw bytes to ``target``, with faults per method.

    ``plan`` lists the action for each successive call of a method (by short name); calls past
    the list are forwarded, unless ``cycle`` repeats the list. ``calls`` records every call's
    method and request bytes, so that a test can read the request ids that were sent.
    """

    target: str
    plan: dict[str, Sequence[str]]
    cycle: bool = False
    calls: list[tuple[str, bytes]] = field(default_factory=list)
    port: int = 0

    def action(self, method: str) -> str:
        """What to do with the next call of ``method``."""
        plan = self.plan.get(method, ())
        count = sum(1 for name, _ in self.calls if name == method)
        if self.cycle and plan:
            return plan[count % len(plan)]
        return plan[count] if count < len(plan) else FORWARD

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator["FaultyProxy"]:
        """Serve on a free loopback port while the block runs."""
        channel = grpc.aio.insecure_channel(self.target)
        server = grpc.aio.server()
        server.add_generic_rpc_handlers((self.forwarder(channel),))
        self.port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            yield self
        finally:
            await server.stop(None)
            await channel.close()

    def forwarder(self, channel: grpc.aio.Channel) -> grpc.GenericRpcHandler:
        """The handler that forwards each call over ``channel`` (faults applied)."""
        return _Forwarder(self, channel)

    def requests(self, method: str) -> list[object]:
        """The decoded requests of ``method`` that reached the proxy, in order."""
        message = REQUEST_TYPES[method]
        return [message.FromString(raw) for name, raw in self.calls if name == method]


class _Forwarder(grpc.GenericRpcHandler):
    """Forwards every GameService method as raw bytes, applying the proxy's plan."""

    def __init__(self, proxy: FaultyProxy, channel: grpc.aio.Channel) -> None:
        self.proxy = proxy
        self.channel = channel

    def service(self, details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        path = details.method
        method = path.rsplit("/", 1)[-1]
        if method == "WatchGame":
            return grpc.unary_stream_rpc_method_handler(self._stream(path))
        return grpc.unary_unary_rpc_method_handler(self._unary(path, method))

    @staticmethod
    def _metadata(context: grpc.aio.ServicerContext) -> tuple[tuple[str, str], ...]:
        return tuple((m.key, m.value) for m in context.invocation_metadata() or () if m.key in PASSED_METADATA)

    def _unary(self, path: str, method: str) -> Callable[[bytes, grpc.aio.ServicerContext], Awaitable[bytes]]:
        async def handle(request: bytes, context: grpc.aio.ServicerContext) -> bytes:
            action = self.proxy.action(method)
            self.proxy.calls.append((method, request))
            if action == DROP:
                await context.abort(grpc.StatusCode.UNAVAILABLE, "injected: not forwarded")
            try:
                answer = await self.channel.unary_unary(path)(request, metadata=self._metadata(context), timeout=10.0)
            except grpc.aio.AioRpcError as error:
                await context.abort(error.code(), error.details() or "", tuple(error.trailing_metadata() or ()))
            if action == LOSE:
                await context.abort(grpc.StatusCode.UNAVAILABLE, "injected: applied, answer lost")
            if action == STALL:
                await asyncio.sleep(STALL_S)
            return answer  # type: ignore[no-any-return]

        return handle

    def _stream(self, path: str) -> Callable[[bytes, grpc.aio.ServicerContext], AsyncIterator[bytes]]:
        async def handle(request: bytes, context: grpc.aio.ServicerContext) -> AsyncIterator[bytes]:
            call = self.channel.unary_stream(path)(request, metadata=self._metadata(context))
            try:
                async for update in call:
                    yield update
            except grpc.aio.AioRpcError as error:
                await context.abort(error.code(), error.details() or "", tuple(error.trailing_metadata() or ()))
            finally:
                call.cancel()

        return handle


@contextlib.contextmanager
def fresh_redis(folder: pathlib.Path) -> Iterator[EmbeddedRedis]:
    """A Redis server of this test's own, so that its lobby holds only this test's games."""
    server = EmbeddedRedis(folder, port=free_port(), appendonly=False).start()
    try:
        yield server
    finally:
        server.stop()


def _one_request_id(requests: list[object]) -> str:
    ids = {r.request_id for r in requests}  # type: ignore[attr-defined]
    assert len(ids) == 1, f"every attempt must carry the same request id, got {len(ids)}"
    request_id = ids.pop()
    assert request_id
    return request_id


def test_create_join_and_move_retried_across_injected_unavailable_happen_once(tmp_path: pathlib.Path) -> None:
    plan = {"CreateGame": [LOSE, DROP, LOSE], "JoinGame": [LOSE, LOSE], "SubmitMove": [LOSE, STALL, DROP]}

    async def scenario() -> None:
        with fresh_redis(tmp_path) as redis_server:
            async with running_replica(redis_server.url) as replica:
                target = f"127.0.0.1:{replica.port}"
                async with FaultyProxy(target, plan).running() as proxy, Client(target) as direct:
                    async with Client(f"127.0.0.1:{proxy.port}", retry=TEST_RETRY) as client:
                        created = await client.create_game("stimmvieh", 3, stimmvieh_options(3))
                        me = await client.join(created.game_id, "Ada")
                        others = [await direct.join(created.game_id, name) for name in ("Bo", "Cy")]
                        before = await direct.view(created.game_id, me.token)
                        assert before.status == game_pb2.GAME_STATUS_ACTIVE and me.seat in before.to_act
                        answer = await client.move(
                            created.game_id, me.token, before.legal_moves[0], expected_version=before.version
                        )

                    # Every attempt reached the proxy, each logical call under one request id.
                    assert [len(proxy.requests(m)) for m in ("CreateGame", "JoinGame", "SubmitMove")] == [4, 3, 4]
                    for method in ("CreateGame", "JoinGame", "SubmitMove"):
                        _one_request_id(proxy.requests(method))

                    # One game: the lobby of this Redis lists exactly the game the client got.
                    lobby = await direct.games(page_size=50)
                    assert [g.game_id for g in lobby.games] == [created.game_id]

                    # One seat, and the token the client ended up with holds it.
                    mine = await direct.view(created.game_id, me.token)
                    assert mine.seat == me.seat
                    assert sorted([me.seat] + [o.seat for o in others]) == [0, 1, 2]

                    # One move: the version moved by exactly one, and the log holds one move of mine.
                    after = await direct.view(created.game_id)
                    assert answer.version == before.version + 1 == after.version
                    history = await direct.history(created.game_id, me.token)
                    assert [e.version for e in history if e.HasField("move")] == [answer.version]

    run(scenario(), 90.0)


def test_aborted_and_refusals_are_not_retried(tmp_path: pathlib.Path) -> None:
    async def scenario() -> None:
        with fresh_redis(tmp_path) as redis_server:
            async with running_replica(redis_server.url) as replica:
                target = f"127.0.0.1:{replica.port}"
                async with FaultyProxy(target, {}).running() as proxy, Client(target) as direct:
                    created = await direct.create_game("stimmvieh", 3, stimmvieh_options(3))
                    seats = [await direct.join(created.game_id, name) for name in ("Ada", "Bo", "Cy")]
                    view = await direct.view(created.game_id, seats[0].token)
                    async with Client(f"127.0.0.1:{proxy.port}", retry=TEST_RETRY) as client:
                        with pytest.raises(HustingsError) as stale:
                            await client.move(created.game_id, seats[0].token, view.legal_moves[0], expected_version=view.version - 1)
                        assert (stale.value.code, stale.value.reason) == (grpc.StatusCode.ABORTED, "STALE_VERSION")
                        with pytest.raises(HustingsError) as full:
                            await client.join(created.game_id, "Dee")
                        assert full.value.code == grpc.StatusCode.FAILED_PRECONDITION
                    assert len(proxy.requests("SubmitMove")) == 1 and len(proxy.requests("JoinGame")) == 1
                    assert (await direct.view(created.game_id)).version == view.version

    run(scenario(), 60.0)


def test_retries_are_bounded_by_attempts_and_by_the_budget(tmp_path: pathlib.Path) -> None:
    always_down = {"ListGameKinds": [DROP] * 100}

    async def scenario() -> None:
        with fresh_redis(tmp_path) as redis_server:
            async with running_replica(redis_server.url) as replica:
                async with FaultyProxy(f"127.0.0.1:{replica.port}", always_down).running() as proxy:
                    address = f"127.0.0.1:{proxy.port}"
                    few = RetryPolicy(max_attempts=4, first_backoff_s=0.01, max_backoff_s=0.02)
                    async with Client(address, retry=few) as client:
                        with pytest.raises(HustingsError) as down:
                            await client.kinds()
                    assert down.value.code == grpc.StatusCode.UNAVAILABLE
                    assert len([c for c in proxy.calls if c[0] == "ListGameKinds"]) == 4
                    # Long pauses and a short budget: the budget ends the call before the attempts run out.
                    slow = RetryPolicy(max_attempts=50, first_backoff_s=0.2, max_backoff_s=0.2, multiplier=1.0)
                    async with Client(address, retry=slow, timeout_s=0.5) as client:
                        with pytest.raises(HustingsError) as still_down:
                            await client.kinds()
                    assert still_down.value.code == grpc.StatusCode.UNAVAILABLE
                    assert 5 <= len([c for c in proxy.calls if c[0] == "ListGameKinds"]) < 4 + 50

    run(scenario(), 60.0)


def test_bots_fail_over_with_the_same_request_id_and_apply_each_move_once(tmp_path: pathlib.Path) -> None:
    # Every other create, join and move through the flaky replica is applied and its answer lost.
    flaky_plan = {m: [FORWARD, LOSE] for m in ("CreateGame", "JoinGame", "SubmitMove")}

    async def scenario() -> None:
        with fresh_redis(tmp_path) as redis_server:
            async with running_replica(redis_server.url) as replica:
                target = f"127.0.0.1:{replica.port}"
                async with FaultyProxy(target, flaky_plan, cycle=True).running() as flaky, FaultyProxy(target, {}).running() as steady:
                    clients = [Client(f"127.0.0.1:{flaky.port}"), Client(f"127.0.0.1:{steady.port}")]
                    stats = BotStats()
                    try:
                        pool = Replicas(clients, random.Random(7))
                        game_id = await play_game(pool, "stimmvieh", 3, random.Random(8), stats, stimmvieh_options(3))
                        history = await clients[1].history(game_id)
                    finally:
                        for client in clients:
                            await client.close()
        assert stats.games_finished == 1 and stats.errors == 0 and stats.rejected == 0, stats
        # Each bot move is in the log once: no lost answer made a bot move twice.
        assert len([e for e in history if e.HasField("move")]) == stats.moves > 0
        lost = [raw for name, raw in flaky.calls if name == "SubmitMove"][1::2]
        assert lost, "the flaky replica lost no answer: the test tested nothing"
        # A lost answer was retried under its own request id (on either replica) and never again later.
        sent = [
            game_service_pb2.SubmitMoveRequest.FromString(raw).request_id
            for proxy in (flaky, steady)
            for name, raw in proxy.calls
            if name == "SubmitMove"
        ]
        counts = {rid: sent.count(rid) for rid in sent}
        # A decision refused STALE_VERSION (another seat of a simultaneous decision came first) is
        # not applied, and its refusal passes the proxy: only such a one was sent once.
        once = [raw for raw in lost if counts[game_service_pb2.SubmitMoveRequest.FromString(raw).request_id] < 2]
        assert len(once) <= stats.stale, stats
        assert len(counts) == stats.moves + stats.stale

    run(scenario(), 120.0)


def _changes(history: list[game_pb2.HistoryEntry], change: int) -> list[int]:
    return [e.seat_changed.seat for h in history for e in h.events if e.HasField("seat_changed") and e.seat_changed.change == change]


def test_table_calls_retried_across_lost_answers_happen_once(tmp_path: pathlib.Path) -> None:
    plan = {
        "CreateGame": [LOSE],
        "AddBot": [LOSE],  # the bot fills the game; the retry is refused GAME_FULL
        "LeaveGame": [LOSE],  # the retry is refused ALREADY_ABSENT
        "ReturnToGame": [LOSE, DROP],  # the third attempt is refused NOT_ABSENT
        "TakeOverSeat": [LOSE],  # the retry is answered from its request id
    }
    Change = game_pb2.SeatChanged.Change

    async def scenario() -> None:
        with fresh_redis(tmp_path) as redis_server:
            async with running_replica(redis_server.url) as replica:
                target = f"127.0.0.1:{replica.port}"
                async with FaultyProxy(target, plan).running() as proxy, Client(target) as direct:
                    async with Client(f"127.0.0.1:{proxy.port}", retry=TEST_RETRY) as client:
                        table = game_pb2.TableSettings(decision_seconds=600, allow_takeover=True)
                        created = await client.create_game("stimmvieh", 3, stimmvieh_options(3), table=table)
                        game_id = created.game_id
                        ada, _bo = [await direct.join(game_id, name) for name in ("Ada", "Bo")]
                        bot = await client.add_bot(game_id)
                        left = await client.leave(game_id, ada.token)
                        back = await client.return_to_game(game_id, ada.token)
                        await direct.leave(game_id, ada.token)
                        dee = await client.take_over(game_id, 0, "Dee")

                    # The create: both attempts sent the same request, table included; one game.
                    creates = proxy.requests("CreateGame")
                    assert len(creates) == 2 and creates[0] == creates[1] and creates[0].table == table  # type: ignore[attr-defined]
                    assert [g.game_id for g in (await direct.games(page_size=50)).games] == [game_id]

                    # One bot, in the seat every attempt named; its game started.
                    assert [r.seat for r in proxy.requests("AddBot")] == [2, 2]  # type: ignore[attr-defined]
                    assert bot.seat == 2 and bot.view.seats[2].bot
                    view = await direct.view(game_id)
                    assert [s.bot for s in view.seats] == [False, False, True]

                    # Leave and return answered with the seat's view, each applied once.
                    assert len(proxy.requests("LeaveGame")) == 2 and left.view.seat == 0 and left.view.seats[0].absent
                    assert len(proxy.requests("ReturnToGame")) == 3 and back.view.seat == 0
                    assert not back.view.seats[0].absent

                    # The takeover: one request id, one token that works.
                    _one_request_id(proxy.requests("TakeOverSeat"))
                    assert len(proxy.requests("TakeOverSeat")) == 2
                    assert (await direct.view(game_id, dee.token)).seat == 0

                    history = await direct.history(game_id)
                    assert _changes(history, Change.CHANGE_BOT_ADDED) == [2]
                    assert _changes(history, Change.CHANGE_LEFT) == [0, 0]  # the client's, then the direct one
                    assert _changes(history, Change.CHANGE_RETURNED) == [0]
                    assert _changes(history, Change.CHANGE_TAKEN_OVER) == [0]

    run(scenario(), 90.0)


def test_a_hinted_pause_is_the_hint_plus_up_to_a_quarter_of_it_drawn_at_random() -> None:
    """README: a refusal with a retry hint is retried after the hint "plus up to a quarter of it
    more" (never less than 10 ms): the pauses fall in that range and spread over it."""
    rng = random.Random(11)
    for hint in (0.0, 0.04, 1.0, 30.0):
        floor = max(MIN_HINT_S, hint)
        draws = [hinted_pause_s(hint, rng) for _ in range(400)]
        assert all(floor <= d <= floor * (1 + HINT_JITTER) for d in draws), (hint, min(draws), max(draws))
        assert min(draws) < floor * 1.05 and max(draws) > floor * 1.2
    assert (HINT_JITTER, MIN_HINT_S) == (0.25, 0.01)


def test_the_example_bots_quiet_limit_is_the_readmes() -> None:
    """README: the examples reopen a stream that goes silent, "the Python one after 10 s"."""
    readme = " ".join((pathlib.Path(__file__).resolve().parent.parent / "README.md").read_text().split())
    assert f"the Python one after {example_bot.QUIET_S:g} s, the TypeScript one after 30 s without a byte" in readme
    assert example_bot.QUIET_S == 10.0
