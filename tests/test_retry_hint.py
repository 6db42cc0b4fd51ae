"""The clients honour the server's retry hint (README, Retries): a create refused
TOO_MANY_GAMES_CREATED with google.rpc.RetryInfo (over REST also Retry-After) is sent again, under
the same request id, once the hinted delay has passed, if the call's budget allows; else the
refusal is raised at once with the hint. A RESOURCE_EXHAUSTED without a hint is not retried.

Real parts: a Redis server of each test's own, an in-process replica with a creation burst of
one, a real gRPC proxy on loopback that records the requests it forwards (the request ids), and
for the TypeScript client Node.js over HTTP. Attempts are counted by the replica's own metrics.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import pathlib
from typing import AsyncIterator

import grpc
import pytest

from conftest import run
from service_helpers import stimmvieh_options
from test_client_retry import FaultyProxy, fresh_redis
from hustings.client import Client, HustingsError
from hustings.service import metrics
from hustings.service.limits import MAX_REQUEST_BYTES
from hustings.service.replica import Replica, ReplicaConfig


@contextlib.asynccontextmanager
async def creation_limited(redis_url: str, per_minute: float) -> AsyncIterator[Replica]:
    """A replica (gRPC and REST) on which one client creates one game at once, then
    ``per_minute`` games a minute."""
    replica = await Replica(
        ReplicaConfig(
            redis_url=redis_url, address="127.0.0.1:0", http_address="127.0.0.1:0", grace_s=1.0,
            create_burst=1, creates_per_client_per_minute=per_minute,
        )
    ).start()
    try:
        yield replica
    finally:
        await replica.stop()


def creates(code: str, counter: object = metrics.RPCS) -> float:
    """CreateGame calls the replicas of this process have answered with ``code`` so far."""
    return float(counter.labels("CreateGame", code)._value.get())  # type: ignore[attr-defined]


async def refusals_since(before: float) -> float:
    """CreateGame calls refused RESOURCE_EXHAUSTED over gRPC since ``before``, once there is at
    least one (bounded). The replica counts a refusal when its handler ends, just after the
    status went out, so a client in the same process may hold the refusal a moment earlier;
    a tenth of a second more lets any further attempt's refusal be counted too."""
    for _ in range(200):
        if creates("RESOURCE_EXHAUSTED") > before:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.1)
    return creates("RESOURCE_EXHAUSTED") - before


def test_a_create_past_the_burst_waits_for_the_hint_and_is_applied_once(tmp_path: pathlib.Path) -> None:
    """Two games a second: the second create is refused once with a hint of at most half a
    second, retried under the same request id after it, and answered; the store holds two games."""

    async def scenario() -> None:
        with fresh_redis(tmp_path) as redis_server:
            async with creation_limited(redis_server.url, per_minute=120) as replica:
                target = f"127.0.0.1:{replica.port}"
                async with FaultyProxy(target, {}).running() as proxy, Client(target) as direct:
                    refused, answered = creates("RESOURCE_EXHAUSTED"), creates("OK")
                    async with Client(f"127.0.0.1:{proxy.port}", timeout_s=10.0) as client:
                        first = await client.create_game("stimmvieh", 3, stimmvieh_options(3))
                        second = await client.create_game("stimmvieh", 3, stimmvieh_options(3))
                    assert (creates("RESOURCE_EXHAUSTED") - refused, creates("OK") - answered) == (1, 2)
                    requests = proxy.requests("CreateGame")
                    assert len(requests) == 3  # the second call: one refusal, then the answer
                    assert requests[1] == requests[2]  # one request id (and request) for both attempts
                    assert requests[0].request_id != requests[1].request_id  # type: ignore[attr-defined]
                    lobby = await direct.games(page_size=50)
                    assert sorted(g.game_id for g in lobby.games) == sorted([first.game_id, second.game_id])
                    assert first.game_id != second.game_id

    run(scenario(), 60.0)


def test_a_hint_longer_than_the_budget_is_raised_at_once_with_the_hint(tmp_path: pathlib.Path) -> None:
    """Six games a minute: past the burst the hint is about 10 s, longer than a 3 s budget, so
    the refusal is raised after one attempt, carrying its reason and the hint; nothing is created."""

    async def scenario() -> None:
        with fresh_redis(tmp_path) as redis_server:
            async with creation_limited(redis_server.url, per_minute=6) as replica:
                async with Client(f"127.0.0.1:{replica.port}", timeout_s=3.0) as client:
                    await client.create_game("stimmvieh", 3, stimmvieh_options(3))
                    refused = creates("RESOURCE_EXHAUSTED")
                    with pytest.raises(HustingsError) as caught:
                        await client.create_game("stimmvieh", 3, stimmvieh_options(3))
                    assert await refusals_since(refused) == 1
                    error = caught.value
                    assert (error.code, error.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_GAMES_CREATED")
                    assert error.retry_after_s is not None and 5.0 < error.retry_after_s <= 10.0
                    assert len((await client.games(page_size=50)).games) == 1

    run(scenario(), 60.0)


def test_a_resource_exhausted_without_a_hint_is_not_retried(tmp_path: pathlib.Path) -> None:
    """REQUEST_TOO_LARGE is RESOURCE_EXHAUSTED without RetryInfo: one attempt, no hint, even
    under a policy and budget that would allow many."""

    async def scenario() -> None:
        with fresh_redis(tmp_path) as redis_server:
            async with creation_limited(redis_server.url, per_minute=120) as replica:
                async with Client(f"127.0.0.1:{replica.port}", timeout_s=10.0) as client:
                    refused = creates("RESOURCE_EXHAUSTED")
                    with pytest.raises(HustingsError) as caught:
                        await client.create_game("stimmvieh", 3, request_id="r" * (MAX_REQUEST_BYTES + 1))
                    assert await refusals_since(refused) == 1
                    error = caught.value
                    assert (error.code, error.reason, error.retry_after_s) == (
                        grpc.StatusCode.RESOURCE_EXHAUSTED, "REQUEST_TOO_LARGE", None,
                    )
                    assert (await client.games(page_size=50)).games == []

    run(scenario(), 60.0)


# Three creates through the TypeScript client: the first within the burst, the second refused
# once and retried after the hint, the third under a budget shorter than the hint.
TS_SCRIPT = """
import { DEFAULT_RETRY, HustingsRest } from "%(rest)s";
const base = process.argv[2];
const client = new HustingsRest(base);
const first = await client.createGame("stimmvieh", { players: 3 });
const second = await client.createGame("stimmvieh", { players: 3 });
const hurried = new HustingsRest(base, fetch, { ...DEFAULT_RETRY, budgetMs: 200 });
let refused = null;
try {
  await hurried.createGame("stimmvieh", { players: 3 });
} catch (error) {
  refused = { httpStatus: error.httpStatus, reason: error.reason, retryAfterMs: error.retryAfterMs };
}
console.log(JSON.stringify({ games: [first.gameId, second.gameId], refused }));
"""


def test_the_typescript_client_waits_for_the_hint_over_rest(typescript_dist: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """The same over REST: the second create is refused 429 once and answered after the hint;
    with a budget of 200 ms the third is thrown after one attempt with the hint (half a second)."""
    script = tmp_path / "hint.mjs"
    script.write_text(TS_SCRIPT % {"rest": (typescript_dist / "rest.js").as_uri()})

    async def scenario() -> None:
        with fresh_redis(tmp_path / "redis") as redis_server:
            async with creation_limited(redis_server.url, per_minute=120) as replica:
                refused, answered = creates("RESOURCE_EXHAUSTED", metrics.REST_RPCS), creates("OK", metrics.REST_RPCS)
                node = await asyncio.create_subprocess_exec(
                    "node", str(script), f"http://127.0.0.1:{replica.http_port}",
                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                )
                out, err = await asyncio.wait_for(node.communicate(), 30.0)
                assert node.returncode == 0, err.decode()[-2000:]
                line = json.loads(out.decode().strip().splitlines()[-1])
                assert (creates("RESOURCE_EXHAUSTED", metrics.REST_RPCS) - refused, creates("OK", metrics.REST_RPCS) - answered) == (2, 2)
                assert line["refused"]["httpStatus"] == 429 and line["refused"]["reason"] == "TOO_MANY_GAMES_CREATED"
                assert 200 < line["refused"]["retryAfterMs"] <= 500
                async with Client(f"127.0.0.1:{replica.port}") as client:
                    lobby = await client.games(page_size=50)
                assert sorted(g.game_id for g in lobby.games) == sorted(line["games"]) and len(set(line["games"])) == 2

    run(scenario(), 60.0)
