"""The rate of unary calls per client address (README, Many replicas: Limits): past its burst a
client's call, on either face, is RESOURCE_EXHAUSTED ``CALL_RATE_EXCEEDED`` with a retry hint
(RetryInfo; over REST also Retry-After) and changes nothing, while another address is answered at
once; the bucket refills at the configured rate; the Python client waits for the hint and is
answered within its budget.

Real parts: a Redis server, in-process replicas with both faces on loopback, a second client
address through a relay from 127.0.0.2 (test_client_limits.two_clients). The rates are small so
that every refusal comes within a second. The games are made through a second replica of the same
store that has no rate, so that only the calls under test spend the limited replica's buckets.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import re
import time
from typing import AsyncIterator

import grpc
import pytest

from conftest import REPO, run
from hustings.client import Client, HustingsError
from hustings.service import metrics
from hustings.service.client_limits import CallRate, RetryLater
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.limits import LEAVE_CALLS, CallLimit
from hustings.service.replica import SOLE_CLIENT, Replica, ReplicaConfig
from hustings.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc
from service_helpers import new_game
from test_cancelled_commits_lost_or_made import CommitHolder
from test_client_limits import OTHER_ADDRESS, details, replica, two_clients

PER_SECOND = 1.0  # one call back a second: wide enough for a refusal to stand over a few calls on a busy machine
BURST = 5
A = "127.0.0.1"


@contextlib.asynccontextmanager
async def limited_and_free(redis_url: str, **config: object) -> AsyncIterator[tuple[Replica, Client]]:
    """A replica whose rate of calls is ``config`` (PER_SECOND and BURST unless it says), and a
    client of another replica of the same store with no rate, for setting up and checking."""
    rate = {"calls_per_client_per_second": PER_SECOND, "call_burst": BURST, **config}
    async with replica(redis_url, **rate) as limited, replica(redis_url, **SOLE_CLIENT) as free:
        async with Client(f"127.0.0.1:{free.port}") as helper:
            yield limited, helper


def rpcs(method: str, code: str) -> float:
    """``method`` calls the replicas of this process have answered with ``code`` so far."""
    return float(metrics.RPCS.labels(method, code)._value.get())  # type: ignore[attr-defined]


def test_past_the_burst_a_call_is_refused_with_a_hint_on_both_faces_and_changes_nothing(redis_server: EmbeddedRedis) -> None:
    """Burst 5, one a second: two views over REST and then views over gRPC (one bucket) are
    answered until a view over gRPC is CALL_RATE_EXCEEDED with RetryInfo of at most a second;
    then over REST 429 with Retry-After and RetryInfo (the token after), and a move is refused
    without being applied or holding its request id. Meanwhile another address is answered at
    once on both faces. Nothing stays counted in flight, the refusals spent nothing, and after
    the hint the same move is applied once."""

    async def scenario() -> None:
        async with limited_and_free(redis_server.url) as (limited, helper):
            seats = await new_game(helper, 3)
            game_id = seats[0].game_id
            before = await helper.view(game_id)
            seat = min(before.to_act)
            mine = await helper.view(game_id, seats[seat].token)
            move = game_service_pb2.SubmitMoveRequest(
                game_id=game_id, move=mine.legal_moves[0], expected_version=mine.version, request_id="rate-refused-move"
            )
            token = (("authorization", f"Bearer {seats[seat].token}"),)
            calls, rate = limited.limits.calls, limited.limits.calls.rate
            assert isinstance(rate, CallRate)
            view_url = f"http://127.0.0.1:{limited.http_port}/v1/games/{game_id}/view"
            async with two_clients(limited.port) as (stub_a, stub_b, http_a, http_b):
                view = game_service_pb2.GetViewRequest(game_id=game_id)
                started = time.monotonic()
                for _ in range(2):
                    async with http_a.get(view_url) as answered:
                        assert answered.status == 200
                assert rate.tokens(A) <= BURST - 2 + PER_SECOND * (time.monotonic() - started)  # REST spent them
                answered_grpc, refusal = 0, None
                for _ in range(BURST * 5):  # bounded: the rest of the burst (and what refills meanwhile)
                    try:
                        assert (await stub_a.GetView(view, timeout=10)).view.version == before.version
                    except grpc.aio.AioRpcError as error:
                        refusal = error
                        break
                    answered_grpc += 1
                assert refusal is not None and answered_grpc >= BURST - 2
                assert refusal.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                reason, delay = details(refusal)
                assert reason == "CALL_RATE_EXCEEDED"
                assert delay is not None and 0 < delay <= 1 / PER_SECOND
                left = rate.tokens(A)
                async with http_a.get(view_url) as over:
                    assert over.status == 429
                    body = await over.json()
                    retry_after = over.headers["Retry-After"]
                infos = {d["@type"].rsplit(".", 1)[1]: d for d in body["details"]}
                assert infos["ErrorInfo"]["reason"] == "CALL_RATE_EXCEEDED"
                # The second refusal in a row is hinted the token after the first one's.
                rest_delay = float(infos["RetryInfo"]["retryDelay"].rstrip("s"))
                assert delay < rest_delay <= 2 / PER_SECOND
                assert retry_after == str(math.ceil(rest_delay))  # whole seconds, rounded up
                assert A not in body["message"]  # no refusal names the address
                with pytest.raises(grpc.aio.AioRpcError) as move_refused:
                    await stub_a.SubmitMove(move, metadata=token, timeout=10)
                assert details(move_refused.value)[0] == "CALL_RATE_EXCEEDED"
                assert rate.tokens(A) >= left  # the refusals spent nothing
                assert (calls.in_flight, calls.by_client) == (0, {})  # nor stayed counted
                assert (await helper.view(game_id)).version == before.version  # the move was not applied
                # Another address has a bucket of its own, on both faces.
                assert (await stub_b.GetView(view, timeout=10)).view.game_id == game_id
                async with http_b.get(view_url) as other:
                    assert other.status == 200
                assert rate.tokens(OTHER_ADDRESS) < BURST  # spent from a bucket of its own
                # After the hint the refused move goes through, once: its request id was not held.
                await asyncio.sleep(1 / PER_SECOND + 0.05)
                applied = await stub_a.SubmitMove(move, metadata=token, timeout=10)
                assert applied.version == before.version + 1
                assert (await helper.view(game_id)).version == before.version + 1

    run(scenario(), timeout_s=60)


def test_the_bucket_refills_at_the_configured_rate(redis_server: EmbeddedRedis) -> None:
    """An address that spent its burst gets one call back a second: its level follows the time
    since the refusal, a call is answered after the hinted wait, and another a second later."""

    async def scenario() -> None:
        async with limited_and_free(redis_server.url) as (limited, _):
            rate = limited.limits.calls.rate
            assert isinstance(rate, CallRate)
            async with grpc.aio.insecure_channel(f"127.0.0.1:{limited.port}") as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                kinds = game_service_pb2.ListGameKindsRequest()
                answered, emptied, reason, delay = 0, 0.0, "", None
                for _ in range(BURST * 10):  # bounded: the burst (and what refills meanwhile), then a refusal
                    try:
                        await stub.ListGameKinds(kinds, timeout=10)
                    except grpc.aio.AioRpcError as error:
                        emptied, (reason, delay) = time.monotonic(), details(error)
                        break
                    answered += 1
                assert answered >= BURST and reason == "CALL_RATE_EXCEEDED" and delay is not None
                level = rate.tokens(A)
                assert level < 1
                await asyncio.sleep(0.5)
                refilled = rate.tokens(A) - level
                assert refilled == pytest.approx(PER_SECOND * (time.monotonic() - emptied), abs=0.25)
                await asyncio.sleep(max(0.0, delay - 0.5) + 0.05)
                await stub.ListGameKinds(kinds, timeout=10)  # the hinted wait was enough
                await asyncio.sleep(1 / PER_SECOND + 0.05)
                await stub.ListGameKinds(kinds, timeout=10)  # and one more a second later

    run(scenario(), timeout_s=60)


def test_the_python_client_waits_for_the_hint_and_is_answered_within_its_budget(redis_server: EmbeddedRedis) -> None:
    """Burst 2, four a second: twelve moves and views through the Python client are all answered
    (the replica refused some of them, the client waited for the hint), every move applied once;
    a client whose budget is shorter than the hint gets the refusal at once, with the hint."""

    async def scenario() -> None:
        async with limited_and_free(redis_server.url, calls_per_client_per_second=4.0, call_burst=2) as (limited, helper):
            seats = await new_game(helper, 3)
            game_id = seats[0].game_id
            start = (await helper.view(game_id)).version
            refused_before = rpcs("GetView", "RESOURCE_EXHAUSTED") + rpcs("SubmitMove", "RESOURCE_EXHAUSTED")
            async with Client(f"127.0.0.1:{limited.port}", timeout_s=20.0) as client:
                moves = 0
                for _ in range(4):  # three calls each: two views and a move
                    view = await client.view(game_id)
                    if view.status == game_pb2.GAME_STATUS_FINISHED:
                        break
                    seat = min(view.to_act)
                    mine = await client.view(game_id, seats[seat].token)
                    await client.move(game_id, seats[seat].token, mine.legal_moves[0], expected_version=mine.version)
                    moves += 1
            refused = rpcs("GetView", "RESOURCE_EXHAUSTED") + rpcs("SubmitMove", "RESOURCE_EXHAUSTED") - refused_before
            assert moves == 4 and refused >= 1
            assert (await helper.view(game_id)).version == start + moves  # each applied once
        # One call every two seconds and a budget of one: the second call, unless a busy machine
        # holds it for a second, is hinted more than the budget.
        async with limited_and_free(redis_server.url, calls_per_client_per_second=0.5, call_burst=1) as (slow, _):
            async with Client(f"127.0.0.1:{slow.port}", timeout_s=1.0) as hurried:
                await hurried.kinds()
                with pytest.raises(HustingsError) as caught:
                    await hurried.kinds()
            error = caught.value
            assert (error.code, error.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "CALL_RATE_EXCEEDED")
            assert error.retry_after_s is not None and 1.0 < error.retry_after_s <= 2.0

    run(scenario(), timeout_s=60)


def test_the_bucket_table_spends_only_admitted_calls_and_stays_bounded() -> None:
    """On a clock of its own: the burst, then refusals hinted one refill interval apart that
    change nothing; a call refused for the cap in flight spends no token, and one refused
    for the rate is not counted in flight; the table forgets full buckets and never holds more
    than its maximum."""
    now = [100.0]
    rate = CallRate(per_second=10.0, burst=3, max_buckets=50, clock=lambda: now[0])
    for _ in range(3):
        rate.take("192.0.2.1")
    with pytest.raises(RetryLater) as refused:
        rate.take("192.0.2.1")
    assert refused.value.reason == "CALL_RATE_EXCEEDED"
    assert refused.value.retry_after_s == pytest.approx(0.1)
    assert rate.tokens("192.0.2.1") == pytest.approx(0.0, abs=1e-9)
    # Refusals in a row are hinted the tokens after it, a refill interval apart, never more
    # than a whole refill (0.3 s) ahead: many waiting calls come back at the rate, not at once.
    hints = []
    for _ in range(4):
        with pytest.raises(RetryLater) as again:
            rate.take("192.0.2.1")
        hints.append(again.value.retry_after_s)
    assert hints == pytest.approx([0.2, 0.3, 0.3, 0.3])
    assert rate.tokens("192.0.2.1") == pytest.approx(0.0, abs=1e-9)  # still: the refusals spent nothing
    now[0] += 0.25
    assert rate.tokens("192.0.2.1") == pytest.approx(2.5)
    calls = CallLimit(max_calls=10, max_per_client=1, rate=rate)
    with calls.hold("192.0.2.9"):
        with pytest.raises(Exception) as capped:
            calls.hold("192.0.2.9").__enter__()
        assert getattr(capped.value, "reason", "") == "TOO_MANY_CALLS_FOR_CLIENT"
    assert rate.tokens("192.0.2.9") == pytest.approx(2.0)  # the capped call spent nothing
    empty = CallLimit(max_calls=10, max_per_client=5, rate=CallRate(per_second=1.0, burst=1, clock=lambda: now[0]))
    with empty.hold("192.0.2.7"):
        pass
    with pytest.raises(RetryLater):
        empty.hold("192.0.2.7").__enter__()
    assert (empty.in_flight, empty.by_client) == (0, {})
    for n in range(2_000):
        rate.take(f"10.0.{n >> 8}.{n & 255}")
        assert len(rate) <= 50
    now[0] += rate.refill_s + 1.0  # every bucket full again: all go at the next take
    rate.take("198.51.100.1")
    assert len(rate) == 1


def test_the_defaults_agree_between_serve_the_replica_and_the_readme() -> None:
    """`hustings serve`, ReplicaConfig and the limits agree on the README's figures (300 a
    second, two seconds' worth at once); a tool's own replica has no rate; a rate or burst below
    the smallest is a usage error."""
    from hustings.cli import _parser
    from hustings.service import limits

    serve = _parser().parse_args(["serve"])
    config = ReplicaConfig(redis_url="redis://127.0.0.1:1/0")
    assert serve.calls_per_client_per_second == config.calls_per_client_per_second == limits.DEFAULT_CALLS_PER_CLIENT_PER_SECOND == 300
    assert serve.call_burst == config.call_burst == limits.DEFAULT_CALL_BURST == 600
    default = CallRate()
    assert (default.per_second, default.burst, default.refill_s) == (300, 600, 2.0)
    readme = re.sub(r"\s+", " ", (REPO / "README.md").read_text())
    assert "`--call-burst` (600)" in readme and "`--calls-per-client-per-second` (300)" in readme
    assert "`CALL_RATE_EXCEEDED`" in readme
    sole = ReplicaConfig(redis_url="redis://127.0.0.1:1/0", **SOLE_CLIENT)
    assert sole.calls_per_client_per_second >= 1_000_000 and sole.call_burst >= 1_000_000
    for flags in (["--calls-per-client-per-second", "0"], ["--call-burst", "0"]):
        with pytest.raises(SystemExit):
            _parser().parse_args(["serve", *flags])
    with pytest.raises(ValueError):
        CallRate(per_second=0.0)


def test_a_leave_applied_counts_as_more_calls_on_both_faces(redis_server: EmbeddedRedis) -> None:
    """Burst 40, one a second: a LeaveGame that is applied takes 1 + LEAVE_CALLS calls from its
    address's bucket, over gRPC and over REST, so the calls after it are refused that much sooner;
    a leave refused (ALREADY_ABSENT) and a return take one call each, as any call does."""
    burst = 40
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert "A `LeaveGame` counts as 32 calls more (`LEAVE_CALLS`) once its commit goes out" in readme
    assert LEAVE_CALLS == 32

    async def scenario() -> None:
        async with limited_and_free(redis_server.url, call_burst=burst) as (limited, helper):
            rate = limited.limits.calls.rate
            assert isinstance(rate, CallRate) and 1 + LEAVE_CALLS < burst
            seats = await new_game(helper, 3)
            game_id = seats[0].game_id
            leave = game_service_pb2.LeaveGameRequest(game_id=game_id)
            token = (("authorization", f"Bearer {seats[0].token}"),)
            async with two_clients(limited.port) as (stub_a, _, _, http_b):
                started = time.monotonic()
                await stub_a.LeaveGame(leave, metadata=token, timeout=10)
                slack = PER_SECOND * (time.monotonic() - started) + 0.01  # what refilled meanwhile
                assert rate.tokens(A) <= burst - 1 - LEAVE_CALLS + slack
                level = rate.tokens(A)
                with pytest.raises(grpc.aio.AioRpcError) as again:
                    await stub_a.LeaveGame(leave, metadata=token, timeout=10)
                assert details(again.value)[0] == "ALREADY_ABSENT"
                await stub_a.ReturnToGame(game_service_pb2.ReturnToGameRequest(game_id=game_id), metadata=token, timeout=10)
                assert level - 2 - 0.01 <= rate.tokens(A) <= level - 2 + PER_SECOND * (time.monotonic() - started) + 0.01
                # The calls after the leave: a few until the bucket is empty, not the burst's forty.
                view = game_service_pb2.GetViewRequest(game_id=game_id)
                answered, reason = 0, ""
                for _ in range(burst):  # bounded: a refusal comes first unless the leave was free
                    try:
                        await stub_a.GetView(view, timeout=10)
                    except grpc.aio.AioRpcError as error:
                        reason = details(error)[0]
                        break
                    answered += 1
                assert reason == "CALL_RATE_EXCEEDED"
                assert answered <= burst - 2 - 1 - LEAVE_CALLS + PER_SECOND * (time.monotonic() - started) + 1
                # Over REST from another address: the same charge from its own bucket.
                url = f"http://127.0.0.1:{limited.http_port}/v1/games/{game_id}:leave"
                started = time.monotonic()
                headers = {"authorization": f"Bearer {seats[1].token}"}
                async with http_b.post(url, json={}, headers=headers) as left:
                    assert left.status == 200
                    assert (await left.json())["view"]["seats"][1]["absent"] is True
                slack = PER_SECOND * (time.monotonic() - started) + 0.01
                assert burst - 1 - LEAVE_CALLS - 1 <= rate.tokens(OTHER_ADDRESS) <= burst - 1 - LEAVE_CALLS + slack

    run(scenario(), timeout_s=60)


def test_a_leave_given_up_on_after_its_commit_went_out_is_charged_all_the_same(redis_server: EmbeddedRedis) -> None:
    """The leave's charge was taken after its answer: a client whose deadline ran out while the
    commit was on its way left its seat for one call. It is taken as the commit goes out."""
    burst = 40
    hold_s = 1.0

    async def scenario() -> None:
        proxy = CommitHolder(redis_server.port, hold_s)
        async with proxy.running(), replica(proxy.url, calls_per_client_per_second=PER_SECOND, call_burst=burst) as limited:
            async with replica(redis_server.url, **SOLE_CLIENT) as free, Client(f"127.0.0.1:{free.port}") as helper:
                game_id = (await helper.create_game("stimmvieh", 3)).game_id
                leaver = await helper.join(game_id, "Leaver")
                for name in ("Bo", "Cy"):
                    await helper.join(game_id, name)
                rate = limited.limits.calls.rate
                assert isinstance(rate, CallRate)
                async with grpc.aio.insecure_channel(f"127.0.0.1:{limited.port}") as channel:
                    stub = game_service_pb2_grpc.GameServiceStub(channel)
                    proxy.armed = True
                    started = time.monotonic()
                    with pytest.raises(grpc.aio.AioRpcError) as gave_up:
                        await stub.LeaveGame(
                            game_service_pb2.LeaveGameRequest(game_id=game_id),
                            metadata=(("authorization", f"Bearer {leaver.token}"),),
                            timeout=hold_s / 4,
                        )
                    assert gave_up.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
                    assert proxy.held == 1, "the leave's commit was not held: the case was not reached"
                    await asyncio.sleep(hold_s + 0.3)  # the commit goes on and lands; the call is gone
                    assert (await helper.view(game_id)).seats[leaver.seat].absent  # the leave landed
                    slack = PER_SECOND * (time.monotonic() - started) + 0.01
                    assert rate.tokens(A) <= burst - 1 - LEAVE_CALLS + slack, rate.tokens(A)

    run(scenario(), 60)
