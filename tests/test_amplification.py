"""Calls that made a replica do far more than a call's worth of work (about a millisecond) for one
call of the client's allowance, each played against real replicas (real Redis, real gRPC on
loopback):

- A Spin Doctors move over gRPC could carry a list as long as the 64 KiB request limit allows
  (65,000 Staffers in a ``choose_staff``), where REST refuses a JSON list of more than 256 items
  and every decision of the game names a handful. The engine's codec walked every item in Python
  (its range check, then a sort) and the rules walked it again before anything looked at its
  length: such a call took the replica's event loop 13.9 ms, where a refused move of six Staffers
  took 1.1 ms (12.6x). A list longer than ``MAX_MOVE_LIST`` is now refused first,
  ``LIST_TOO_LONG``, in every game.
- A step of a game is written to every stream that watches it: one address could hold 2,000
  streams of a game whose steps it made itself (its own seat left and returned to, through any
  replica), and each such call then cost the streams' replica a write per stream (1,000 streams:
  64 ms a step). One address now holds at most ``--max-streams-per-game`` streams of one game.

The CPU figures are the replica's event loop thread's (``time.thread_time`` on that thread),
measured in the same test for the call at fault and for a normal call, and printed, not asserted.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
import uuid
from typing import Any, Callable

import grpc
import pytest

from conftest import run
from hustings.engine.errors import MAX_MOVE_LIST
from hustings.v1 import game_pb2, game_service_pb2 as gs, game_service_pb2_grpc as gsg
from rest_helpers import LiveRest

WAIT_S = 20.0
ROUNDS = 3  # the cheapest of these rounds is what a call costs: other work on the machine only adds
CALLS_PER_ROUND = 10
# Items of a repeated int32 field that fit a SubmitMove within the 64 KiB request limit (one byte each).
LONG_LIST = 65_000


def _loop_cpu_s(live: LiveRest) -> float:
    """The CPU time the replica's event loop thread has used so far."""

    async def now() -> float:
        return time.thread_time()

    return asyncio.run_coroutine_threadsafe(now(), live.loop).result(WAIT_S)


def _bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def _reason(error: grpc.RpcError) -> str:
    from google.rpc import error_details_pb2, status_pb2

    for key, value in error.trailing_metadata() or ():  # type: ignore[attr-defined]
        if key == "grpc-status-details-bin":
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return info.reason
    return ""


def _loop_ms_per_call(live: LiveRest, call: Callable[[], object]) -> float:
    """The replica loop's CPU per call, the cheapest of ``ROUNDS`` rounds, in ms."""
    best = float("inf")
    for _ in range(ROUNDS):
        before = _loop_cpu_s(live)
        for _ in range(CALLS_PER_ROUND):
            call()
        best = min(best, (_loop_cpu_s(live) - before) / CALLS_PER_ROUND)
    return best * 1000


def test_a_spin_doctors_move_holding_a_long_list_costs_about_a_call(live: LiveRest) -> None:
    assert live.replica is not None
    with grpc.insecure_channel(f"127.0.0.1:{live.replica.port}") as channel:
        stub = gsg.GameServiceStub(channel)
        options = game_pb2.GameOptions(players=3)
        options.spin_doctors.SetInParent()
        game_id = stub.CreateGame(gs.CreateGameRequest(kind="spin_doctors", options=options), timeout=WAIT_S).game_id
        seats = [stub.JoinGame(gs.JoinGameRequest(game_id=game_id, display_name=n), timeout=WAIT_S) for n in ("Ada", "Bo", "Cy")]
        ada = _bearer(seats[0].seat_token)
        legal = stub.GetView(gs.GetViewRequest(game_id=game_id), metadata=ada, timeout=WAIT_S).view.legal_moves
        assert legal and legal[0].spin_doctors.WhichOneof("kind") == "choose_staff"  # every seat chooses its Staff
        refusals: dict[str, set[tuple[grpc.StatusCode, str]]] = {"short": set(), "long": set()}

        def submit(move: game_pb2.Move, label: str) -> Callable[[], object]:
            def call() -> None:
                request = gs.SubmitMoveRequest(game_id=game_id, move=move, request_id=uuid.uuid4().hex)
                try:
                    stub.SubmitMove(request, metadata=ada, timeout=WAIT_S)
                except grpc.RpcError as refused:
                    refusals[label].add((refused.code(), _reason(refused)))  # type: ignore[attr-defined]
                else:
                    raise AssertionError(f"the {label} Staff was taken")

            return call

        short = game_pb2.Move()
        short.spin_doctors.choose_staff.staffers.extend([1, 2, 3, 4, 5, 5])  # six, one twice: refused
        long = game_pb2.Move()
        long.spin_doctors.choose_staff.staffers.extend([1] * LONG_LIST)
        assert gs.SubmitMoveRequest(game_id=game_id, move=long, request_id=uuid.uuid4().hex).ByteSize() < 64 << 10
        normal_ms = _loop_ms_per_call(live, submit(short, "short"))
        long_ms = _loop_ms_per_call(live, submit(long, "long"))
    ratio = long_ms / normal_ms
    print(f"\nreplica loop CPU a refused move: {normal_ms:.2f} ms with 6 Staffers, {long_ms:.2f} ms with {LONG_LIST}: {ratio:.1f}x")
    assert refusals["long"] == {(grpc.StatusCode.INVALID_ARGUMENT, "LIST_TOO_LONG")}, refusals
    assert refusals["short"] and ("LIST_TOO_LONG" not in {reason for _code, reason in refusals["short"]}), refusals


@pytest.mark.parametrize("kind", ["stimmvieh", "wahlspiel", "spin_doctors"])
def test_a_move_list_is_refused_past_its_bound_and_read_within_it(live: LiveRest, kind: str) -> None:
    """Every game's lists in moves: MAX_MOVE_LIST items are read as any move (refused here for
    what they say), one more is LIST_TOO_LONG before anything walks them."""
    assert live.replica is not None
    with grpc.insecure_channel(f"127.0.0.1:{live.replica.port}") as channel:
        stub = gsg.GameServiceStub(channel)
        options = game_pb2.GameOptions(players=3)
        getattr(options, kind).SetInParent()
        game_id = stub.CreateGame(gs.CreateGameRequest(kind=kind, options=options), timeout=WAIT_S).game_id
        seats = [stub.JoinGame(gs.JoinGameRequest(game_id=game_id, display_name=n), timeout=WAIT_S) for n in ("Ada", "Bo", "Cy")]

        def reason(items: int) -> str:
            move = game_pb2.Move()
            if kind == "stimmvieh":
                move.stimmvieh.choose_top_candidates.influences.extend([1] * items)
            elif kind == "wahlspiel":
                move.wahlspiel.play_event.card_id = "x"
                move.wahlspiel.play_event.politician_ids.extend(["p"] * items)
            else:
                move.spin_doctors.place_support.path.extend([1] * items)
            with pytest.raises(grpc.RpcError) as refused:
                stub.SubmitMove(gs.SubmitMoveRequest(game_id=game_id, move=move, request_id=uuid.uuid4().hex),
                                metadata=_bearer(seats[0].seat_token), timeout=WAIT_S)
            return _reason(refused.value)

        assert reason(MAX_MOVE_LIST + 1) == "LIST_TOO_LONG"
        assert reason(MAX_MOVE_LIST) not in ("LIST_TOO_LONG", "")


CAP = 4  # streams of one game from one address, for the test (the default is 64)


def test_one_address_holds_a_bounded_number_of_streams_of_one_game(redis_server: Any) -> None:
    """Past ``max_streams_per_game`` streams of one game from one address, the next is refused
    TOO_MANY_STREAMS_FOR_GAME, over gRPC and as an event stream; the same address still watches
    another game, and another address the same game; a stream closed gives its place back."""
    capped = LiveRest(redis_server.url)
    capped.config = dataclasses.replace(capped.config, max_streams_per_game=CAP)
    with capped:
        assert capped.replica is not None
        game_id, _joined = capped.new_game(3)
        other_id, _ = capped.new_game(3)

        async def scenario() -> None:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{capped.replica.port}") as channel:
                stub = gsg.GameServiceStub(channel)
                calls = [stub.WatchGame(gs.WatchGameRequest(game_id=game_id)) for _ in range(CAP)]
                for call in calls:
                    await asyncio.wait_for(call.read(), WAIT_S)  # each open, its first update read
                refused = stub.WatchGame(gs.WatchGameRequest(game_id=game_id))
                with pytest.raises(grpc.aio.AioRpcError) as error:
                    await asyncio.wait_for(refused.read(), WAIT_S)
                assert error.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert _reason(error.value) == "TOO_MANY_STREAMS_FOR_GAME"
                sse = await asyncio.to_thread(capped.call, "GET", f"/v1/games/{game_id}:watch")
                assert sse.status_code == 429 and sse.json()["details"][0]["reason"] == "TOO_MANY_STREAMS_FOR_GAME"
                another = stub.WatchGame(gs.WatchGameRequest(game_id=other_id))
                await asyncio.wait_for(another.read(), WAIT_S)
                calls[0].cancel()
                again = stub.WatchGame(gs.WatchGameRequest(game_id=game_id))
                for _ in range(100):  # the cancelled stream's place comes back once its handler ends (bounded)
                    try:
                        await asyncio.wait_for(again.read(), WAIT_S)
                        break
                    except grpc.aio.AioRpcError as late:
                        assert _reason(late) == "TOO_MANY_STREAMS_FOR_GAME"
                        await asyncio.sleep(0.05)
                        again = stub.WatchGame(gs.WatchGameRequest(game_id=game_id))
                else:
                    raise AssertionError("a closed stream's place never came back")
                for call in (*calls, another, again):
                    call.cancel()

        run(scenario(), timeout_s=60)
        # Every place given back, once the cancelled streams' handlers have ended (bounded).
        for _ in range(100):
            if not capped.replica.host.watchers.limits._by_game:
                break
            time.sleep(0.05)
        assert capped.replica.host.watchers.limits._by_game == {}
