"""What the README promises of the clients' retries and the bots' budgets that no other test held
them to: the default policy's figures (6 attempts of at most 10 s, full jitter from zero to 50 ms
doubled per retry, at most 2 s, all within 30 s), `with_retry(ONE_ATTEMPT)`, the bots' 20
attempts of 5 s within a minute, and the strong bot's budgets (0.2 s on the server; 400 playouts
and 1 s by default). The attempts are counted on a real gRPC server over loopback."""

from __future__ import annotations

import contextlib
import random
from typing import AsyncIterator

import grpc
import pytest

from conftest import run
from hustings.ai import server as server_bots
from hustings.ai.levels import StrongBot
from hustings.ai.search import Budget
from hustings.bots import BOT_CALL_BUDGET_S, BOT_RETRY, Replicas
from hustings.client import ONE_ATTEMPT, Client, HustingsError, RetryPolicy

DRAWS = 4000


def test_the_default_retry_policy_is_the_readme_s() -> None:
    """README Retries: "each pause drawn uniformly from zero to 50 ms doubled per retry, at most
    2 s), at most 6 attempts of at most 10 s each, and the whole call within the client's
    `timeout_s` (30 s)"."""
    policy = RetryPolicy()
    assert (policy.max_attempts, policy.attempt_timeout_s) == (6, 10.0)
    rng = random.Random(5)
    for retry, cap in ((0, 0.05), (1, 0.1), (2, 0.2), (5, 1.6), (6, 2.0), (12, 2.0)):
        pauses = [policy.backoff_s(retry, rng) for _ in range(DRAWS)]
        assert 0.0 <= min(pauses) < 0.02 * cap and 0.98 * cap < max(pauses) <= cap, retry
        assert abs(sum(pauses) / DRAWS - cap / 2) < 0.05 * cap  # uniform: the mean is half the cap

    async def default_timeout() -> float:
        async with Client("127.0.0.1:1") as client:  # a channel connects lazily: nothing listens there
            return client.timeout_s

    assert run(default_timeout()) == 30.0


class _AlwaysUnavailable(grpc.GenericRpcHandler):
    """Answers every ListGameKinds with UNAVAILABLE and counts the attempts."""

    def __init__(self) -> None:
        self.calls = 0

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        if handler_call_details.method == "/hustings.v1.GameService/ListGameKinds":  # type: ignore[attr-defined]
            return grpc.unary_unary_rpc_method_handler(self._refuse)
        return None

    async def _refuse(self, _request: bytes, context: grpc.aio.ServicerContext) -> bytes:
        self.calls += 1
        await context.abort(grpc.StatusCode.UNAVAILABLE, "down for the test")
        raise AssertionError("unreachable: abort raises")


@contextlib.asynccontextmanager
async def _down_server() -> AsyncIterator[tuple[str, _AlwaysUnavailable]]:
    handler = _AlwaysUnavailable()
    server = grpc.aio.server()
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        yield f"127.0.0.1:{port}", handler
    finally:
        await server.stop(0)


def test_six_attempts_by_default_and_one_with_one_attempt() -> None:
    """README Retries: UNAVAILABLE is retried, "at most 6 attempts"; `client.with_retry(
    ONE_ATTEMPT)` "turns it off". The pauses between six attempts add up to 1.55 s at most."""

    async def scenario() -> tuple[int, int]:
        async with _down_server() as (address, handler):
            async with Client(address) as client:
                with pytest.raises(HustingsError) as down:
                    await client.kinds()
                assert down.value.code == grpc.StatusCode.UNAVAILABLE
                by_default = handler.calls
                with pytest.raises(HustingsError):
                    await client.with_retry(ONE_ATTEMPT).kinds()
                return by_default, handler.calls - by_default

    assert run(scenario(), timeout_s=30) == (6, 1)


def test_the_bots_retry_policy_is_the_readme_s() -> None:
    """README Retries: bots send "up to 20 attempts of 5 s each within a minute"."""
    assert (BOT_RETRY.max_attempts, BOT_RETRY.attempt_timeout_s, BOT_CALL_BUDGET_S) == (20, 5.0, 60.0)

    async def pool_policy() -> tuple[RetryPolicy, float]:
        clients = [Client("127.0.0.1:1"), Client("127.0.0.1:2")]
        try:
            pool = Replicas(clients, random.Random(1))
            return pool.retry, pool.budget_s
        finally:
            for client in clients:
                await client.close()

    assert run(pool_policy()) == (BOT_RETRY, 60.0)


def test_the_strong_bots_budgets_are_the_readme_s() -> None:
    """README Bots: the strong bot's budget is "playouts and seconds per decision, whichever
    ends first (`--iterations`, `--seconds`; default 400 and 1 s)"; server-side, "`strong` with
    at most 0.2 s per decision", its search stopping at 0.15 s so that it is made public then."""
    from hustings.ai import arena

    assert (Budget().iterations, Budget().seconds) == (400, 1.0)
    import argparse

    parser = argparse.ArgumentParser()
    arena.add_parser(parser.add_subparsers(dest="command"), ["stimmvieh"])
    args = parser.parse_args(["arena"])
    assert (args.iterations, args.seconds) == (400, 1.0)
    strong = server_bots._BOTS["strong"]
    assert isinstance(strong, StrongBot) and strong.budget.seconds == pytest.approx(0.15)
    assert server_bots.SERVER_DECISION_S == 0.2
    assert server_bots.SERVER_DEFAULT_LEVEL == "random"


def test_the_typescript_client_retries_by_the_same_figures() -> None:
    """README Retries: the figures hold for "the TypeScript client" too, whose `DEFAULT_RETRY`
    the README names (`{ ...DEFAULT_RETRY, maxAttempts: 3 }`). Read from its source, which the
    TypeScript tests compile."""
    import re

    from conftest import REPO

    source = (REPO / "clients" / "typescript" / "src" / "rest.ts").read_text()
    match = re.search(r"export const DEFAULT_RETRY: RetryPolicy = \{(.*?)\};", source, re.S)
    assert match, "rest.ts exports no DEFAULT_RETRY"
    fields = {name: float(value.replace("_", "")) for name, value in re.findall(r"(\w+): ([\d_.]+)", match.group(1))}
    assert fields == {
        "maxAttempts": 6, "attemptTimeoutMs": 10_000, "budgetMs": 30_000,
        "firstBackoffMs": 50, "maxBackoffMs": 2_000, "multiplier": 2,
    }
