"""What an operator relies on when running replicas: settings refused in one line at start, one
definition of the defaults, calls that survive a Redis restart, and a health service that tells
a balancer when this replica cannot reach Redis."""

from __future__ import annotations

import json
import os
import pathlib
import socket
import subprocess
import sys

import pytest

from hustings.service.embedded_redis import EmbeddedRedis

REPO = pathlib.Path(__file__).resolve().parent.parent


def _serve(folder: pathlib.Path, *args: str, **environment: str) -> subprocess.Popen[str]:
    """``hustings serve`` in a process of its own (serve sets the process's logging) started in
    ``folder``, with no HUSTINGS_* setting but ``environment``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HUSTINGS_")} | environment
    return subprocess.Popen(
        [sys.executable, "-m", "hustings.cli", "serve", "--http-address", "", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=folder,
    )


def _ended(process: subprocess.Popen[str], timeout_s: float = 60.0) -> tuple[str, int | None]:
    """The process's stderr and exit status; one still serving after ``timeout_s`` is stopped
    (status None)."""
    try:
        return process.communicate(timeout=timeout_s)[1], process.returncode
    except subprocess.TimeoutExpired:
        process.kill()
        return process.communicate(timeout=10)[1], None


def _json_line(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def test_a_setting_that_cannot_work_stops_serve_with_one_line(redis_server: EmbeddedRedis, tmp_path: pathlib.Path) -> None:
    """README: a bad setting is refused at start with one line and exit status 1 (2 for a value
    the command line cannot read), without a traceback and without the Redis password."""
    with socket.socket() as taken, socket.socket() as closed:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        closed.bind(("127.0.0.1", 0))  # bound, not listening: connections to it are refused
        busy, refusing = taken.getsockname()[1], closed.getsockname()[1]
        cases = {
            "unreachable": (_serve(tmp_path, "--address", "127.0.0.1:0", "--redis-url", f"redis://:hunter2@127.0.0.1:{refusing}/0"),
                            1, f"hustings: cannot reach Redis at 127.0.0.1:{refusing}: "),
            "url": (_serve(tmp_path, "--address", "127.0.0.1:0", "--redis-url", "redis//:hunter2@127.0.0.1/0"),
                    1, "hustings: cannot use the Redis URL"),
            # Every scheme it takes named, the Cluster's among them.
            "scheme": (_serve(tmp_path, "--address", "127.0.0.1:0", "--redis-url", "foo://:hunter2@127.0.0.1/0"),
                       1, "the Redis URL must begin with redis://, rediss://, unix://, redis+cluster:// or rediss+cluster://"),
            "grpc": (_serve(tmp_path, "--address", f"127.0.0.1:{busy}", "--redis-url", redis_server.url),
                     1, f"hustings: cannot listen for gRPC on '127.0.0.1:{busy}'"),
            # TEST-NET-1: no address of this machine (nothing is sent to it; a bind fails here).
            "foreign": (_serve(tmp_path, "--address", "192.0.2.1:50051", "--redis-url", redis_server.url),
                        1, "hustings: cannot listen for gRPC on '192.0.2.1:50051': in use, or not an address of this machine"),
            # A face that cannot listen stops the replica at once, its drain not waited out
            # (it served gRPC, healthy, for the whole drain: past this test's 30 s).
            "metrics": (_serve(tmp_path, "--address", "127.0.0.1:0", "--metrics-address", f"127.0.0.1:{busy}", "--redis-url", redis_server.url,
                               "--drain-seconds", "600"),
                        1, f"hustings: cannot listen for metrics on '127.0.0.1:{busy}'"),
            "rest": (_serve(tmp_path, "--address", "127.0.0.1:0", "--http-address", f"127.0.0.1:{busy}", "--redis-url", redis_server.url,
                            "--drain-seconds", "600"),
                     1, f"hustings: cannot listen for REST/JSON on '127.0.0.1:{busy}'"),
            "retention": (_serve(tmp_path, HUSTINGS_RETENTION_DAYS="thirty"), 2, "argument --retention-days: not a number: 'thirty'"),
            "negative": (_serve(tmp_path, "--retention-days", "-1"), 2, "argument --retention-days: a number above 0"),
            "huge": (_serve(tmp_path, "--retention-days", "1e20"), 2, "argument --retention-days: at most 36,500 (a century)"),
            "watchers": (_serve(tmp_path, "--max-watchers", "0"), 2, "argument --max-watchers: at least 1"),
            # gRPC is the service: '' cannot turn it off (it wrote gRPC's own line, then status 1).
            "no grpc": (_serve(tmp_path, "--address", ""), 2, "argument --address: cannot listen for gRPC on ''"),
        }
        results = {name: _ended(process, 30.0) for name, (process, _, _) in cases.items()}
    for name, (_, status, line) in cases.items():
        stderr, returncode = results[name]
        ours = [text for text in stderr.splitlines() if text.startswith("hustings")]
        assert returncode == status and len(ours) == 1 and line in ours[0], f"{name}: {returncode}\n{stderr}"
        # Beside it only the service's own JSON log lines (gRPC's bind failure once wrote its own).
        assert all(text in ours or _json_line(text) for text in stderr.splitlines() if text.strip()), f"{name}:\n{stderr}"
        assert "Traceback" not in stderr and "hunter2" not in stderr, f"{name}:\n{stderr}"
        assert '"serving"' not in stderr, f"{name}: said it was serving:\n{stderr}"  # never before it serves


def test_the_default_data_folder_and_address_are_defined_once() -> None:
    """The command's defaults are the library's: one definition, in service/defaults.py."""
    from hustings import cli
    from hustings.service import defaults, replica

    assert cli.DEFAULT_DATA_DIR is replica.DEFAULT_DATA_DIR is defaults.DEFAULT_DATA_DIR
    assert cli.DEFAULT_ADDRESS == replica.ReplicaConfig(redis_url="").address == defaults.DEFAULT_ADDRESS
    sources = [*(REPO / "service").glob("*.py"), *(REPO / "clients" / "python" / "hustings").rglob("*.py")]
    defining = sorted(str(path.relative_to(REPO)) for path in sources if '".hustings-data"' in path.read_text())
    assert defining == ["service/defaults.py"]


def test_a_redis_restart_takes_the_replica_out_of_service_and_back_without_failed_calls(tmp_path: pathlib.Path) -> None:
    """README Many replicas: while this replica cannot reach Redis its health for GameService
    (what balancers and readiness probes ask) is NOT_SERVING and its own ("", what liveness
    asks) stays SERVING, and its failed calls are logged a line a second, not a line each;
    Redis back, it is SERVING again by itself, each change logged once; and the connections
    left from before the restart fail no call afterwards (each is redialled). The REST face's
    /readyz answers the same (200 or 503), and 503 once the replica begins to stop."""
    import asyncio
    import secrets

    import aiohttp
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc
    from structlog.testing import capture_logs

    from hustings.service.embedded_redis import free_port
    from hustings.service.grpc_api import SERVICE_NAME
    from hustings.service.replica import SOLE_CLIENT, Replica, ReplicaConfig
    from hustings.client import HustingsError
    from hustings.service.rest import READY_PATH
    from hustings.v1 import game_service_pb2, game_service_pb2_grpc

    from conftest import run

    server = EmbeddedRedis(tmp_path / "redis", port=free_port(), appendonly=False).start()

    async def scenario() -> list[dict[str, object]]:
        config = ReplicaConfig(redis_url=server.url, address="127.0.0.1:0", http_address="127.0.0.1:0", grace_s=1.0, store_ping_s=0.1,
                               secret=secrets.token_bytes(32), **SOLE_CLIENT)
        with capture_logs() as logs:
            replica = await Replica(config).start()
            try:
                async with grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}") as channel:
                    health = health_pb2_grpc.HealthStub(channel)
                    games = game_service_pb2_grpc.GameServiceStub(channel)

                    async def status(service: str) -> int:
                        return (await health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)).status

                    async def ready_over_http() -> tuple[int, object]:
                        # What Envoy's REST cluster checks (deploy/envoy.yaml): the same answer.
                        async with aiohttp.ClientSession() as http:
                            async with http.get(f"http://127.0.0.1:{replica.http_port}{READY_PATH}", timeout=aiohttp.ClientTimeout(total=5)) as answer:
                                return answer.status, (await answer.json())["status"]

                    async def until(wanted: int) -> None:
                        for _attempt in range(100):  # bounded: 10 s
                            if await status(SERVICE_NAME) == wanted:
                                expected = (200, "SERVING") if wanted == health_pb2.HealthCheckResponse.SERVING else (503, "NOT_SERVING")
                                assert await ready_over_http() == expected
                                return
                            await asyncio.sleep(0.1)
                        raise AssertionError(f"GameService never became {wanted}")

                    async def calls(count: int) -> list[object]:
                        return await asyncio.gather(
                            *(games.ListGames(game_service_pb2.ListGamesRequest(), timeout=10) for _ in range(count)),
                            return_exceptions=True,
                        )

                    assert not [r for r in await calls(24) if isinstance(r, Exception)]  # many pooled connections
                    await until(health_pb2.HealthCheckResponse.SERVING)
                    server.stop()
                    await until(health_pb2.HealthCheckResponse.NOT_SERVING)
                    assert await status("") == health_pb2.HealthCheckResponse.SERVING
                    logged_before = len(logs)
                    refused = await calls(48)
                    assert all(isinstance(r, grpc.aio.AioRpcError) and r.code() == grpc.StatusCode.UNAVAILABLE for r in refused)
                    # Each refusal says when to try again: a second, over gRPC and over HTTP.
                    hinted = HustingsError.from_rpc_error(refused[0])  # type: ignore[arg-type]
                    assert (hinted.reason, hinted.retry_after_s) == ("STORE_UNAVAILABLE", 1.0)
                    async with aiohttp.ClientSession() as http:
                        async with http.get(f"http://127.0.0.1:{replica.http_port}/v1/games", timeout=aiohttp.ClientTimeout(total=5)) as answer:
                            body = await answer.json()
                            assert (answer.status, answer.headers.get("Retry-After")) == (503, "1"), (answer.status, body)
                    assert [d.get("retryDelay") for d in body["details"]] == [None, "1s"], body
                    # The background loops fail their rounds meanwhile: a line for each cause.
                    loops = [e for e in logs if e["event"].endswith("_failed") and e["event"] != "rpc_failed"]
                    assert all("alike_not_logged" in e for e in loops), loops
                    assert len(loops) == len({(e["event"], e["cause"]) for e in loops}), loops
                    lines = [e for e in logs[logged_before:] if e["event"] == "store_error"]
                    assert 1 <= len(lines) <= 4, lines  # one a second, not one per failed call
                    server.start()  # the same port
                    await until(health_pb2.HealthCheckResponse.SERVING)
                    failed = [r for r in await calls(24) + await calls(24) if isinstance(r, Exception)]
                    assert not failed, failed[:3]
                    replica.host.begin_shutdown()  # as stop() begins: a stopping replica is not ready
                    assert await ready_over_http() == (503, "NOT_SERVING")
            finally:
                await replica.stop()
        return logs

    try:
        logs = run(scenario(), 60)
    finally:
        server.stop()
    changes = [entry["event"] for entry in logs if entry["event"] in ("store_unreachable", "store_reachable_again")]
    assert changes == ["store_unreachable", "store_reachable_again"], changes


def test_a_client_call_rides_out_a_redis_outage_longer_than_its_backoff(tmp_path: pathlib.Path) -> None:
    """README Retries: STORE_UNAVAILABLE carries a retry hint, and the client retries a hinted
    refusal within its call's budget rather than within its few backoff attempts (six, at most
    1.55 s of pauses in all). So a call made while Redis is away for 3 s is answered once Redis
    is back, instead of failing after its backoff ran out; and the move made in it is applied
    once."""
    import asyncio
    import secrets

    from hustings.client import Client
    from hustings.service.embedded_redis import free_port
    from hustings.service.replica import SOLE_CLIENT, Replica, ReplicaConfig

    from conftest import run

    outage_s = 3.0

    async def scenario(server: EmbeddedRedis) -> None:
        config = ReplicaConfig(redis_url=server.url, address="127.0.0.1:0", grace_s=1.0, store_ping_s=0.1,
                               secret=secrets.token_bytes(32), **SOLE_CLIENT)
        replica = await Replica(config).start()
        try:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                created = await client.create_game("stimmvieh", players=3)
                seats = [await client.join(created.game_id, name) for name in ("Ada", "Bo", "Cy")]
                view = await client.view(created.game_id, seats[0].token)
                mover = next(seat for seat in seats if seat.seat in view.to_act)
                mine = await client.view(created.game_id, mover.token)
                server.stop()
                move = asyncio.ensure_future(client.move(created.game_id, mover.token, mine.legal_moves[0], mine.version))
                await asyncio.sleep(outage_s)
                assert not move.done(), move  # still retrying, paced by the hint
                server.start()  # the same port and data
                answer = await asyncio.wait_for(move, 30)
                assert answer.version == mine.version + 1
                assert (await client.view(created.game_id)).version == mine.version + 1  # applied once
        finally:
            await replica.stop()

    with EmbeddedRedis(tmp_path / "redis", port=free_port(), appendonly=True) as server:
        run(scenario(server), 60)


def test_a_background_loop_whose_rounds_fail_logs_once_in_ten_seconds_per_cause() -> None:
    """While Redis is away every round of every background loop fails alike (the deadline
    runner's four times a second): a line for the first, then one every
    ``FAILURE_LOG_EVERY_S`` for each cause, counting the rounds left out."""
    import asyncio

    from redis.exceptions import ConnectionError as RedisConnectionError, TimeoutError as RedisTimeoutError
    from structlog.testing import capture_logs

    from hustings.service import background
    from hustings.service.background import BackgroundLoop

    import structlog

    rounds = 60
    now = [0.0]

    class Failing(BackgroundLoop):
        async def _run(self) -> None:
            for number in range(rounds):  # bounded
                now[0] += 0.25  # a poll every quarter second
                self.failed(structlog.get_logger("test"), "round_failed",
                            RedisTimeoutError("slow") if number % 10 == 9 else RedisConnectionError("refused"))
                await asyncio.sleep(0)

    async def scenario() -> None:
        loop = Failing()
        loop._failures._clock = lambda: now[0]  # the rounds' own time, not the test's
        loop.start()
        for _ in range(1000):  # bounded
            if loop._task is not None and loop._task.done():
                break
            await asyncio.sleep(0.001)
        await loop.stop()

    with capture_logs() as logs:
        asyncio.run(scenario())
    lines = [(e["cause"], e["alike_not_logged"]) for e in logs if e["event"] == "round_failed"]
    assert background.FAILURE_LOG_EVERY_S == 10.0
    # 15 s of rounds: connection errors at 0.25 s (the first), 10.25 s; timeouts at 2.5 s, 12.5 s.
    assert lines == [("ConnectionError", 0), ("TimeoutError", 0), ("ConnectionError", 35), ("TimeoutError", 3)], lines


def test_a_background_loop_begins_again_after_an_error_it_did_not_expect(monkeypatch: pytest.MonkeyPatch) -> None:
    """An error that a loop's rounds do not catch is logged (``background_loop_failed``, its
    class) and the loop begins again: before, it ended the loop for the replica's life (the
    deadline runner after a Redis Cluster was out of reach), and ``stop`` raised it."""
    import asyncio

    from structlog.testing import capture_logs

    from hustings.service import background
    from hustings.service.background import BackgroundLoop

    monkeypatch.setattr(background, "RESTART_S", 0.01)
    runs = []

    class Flaky(BackgroundLoop):
        async def _run(self) -> None:
            runs.append(len(runs))
            if len(runs) <= 2:
                raise RuntimeError("not caught by the round")
            while not self._stopping:  # the third run keeps going until the stop
                await asyncio.sleep(0.01)

    async def scenario() -> None:
        loop = Flaky()
        loop.start()
        for _ in range(500):  # bounded
            if len(runs) >= 3:
                break
            await asyncio.sleep(0.01)
        assert loop._task is not None and not loop._task.done()
        await loop.stop()  # raises nothing

    with capture_logs() as logs:
        asyncio.run(scenario())
    assert runs == [0, 1, 2]
    failed = [e for e in logs if e["event"] == "background_loop_failed"]
    assert [(e["loop"], e["cause"]) for e in failed] == [("hustings-background", "RuntimeError")] * 2


def test_a_variable_set_empty_is_as_if_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    """`serve --help`: "a variable set empty is as if unset" (a compose file's or a Secret's
    empty value): an empty number refused to start, an empty HUSTINGS_HTTP_ADDRESS turned the
    REST face off unasked."""
    from hustings.cli import SERVE_ENVIRONMENT, _parser

    names = [name.strip(" ,") for name in SERVE_ENVIRONMENT.split(":", 1)[1].split(" are ")[0].replace(" and ", ", ").split(",")]
    assert len(names) == 8 and all(name.startswith("HUSTINGS_") for name in names), names
    assert "a variable set empty is as if unset" in SERVE_ENVIRONMENT
    for name in names:
        monkeypatch.delenv(name, raising=False)
    unset = vars(_parser().parse_args(["serve"]))
    for name in names:
        monkeypatch.setenv(name, "")
    assert vars(_parser().parse_args(["serve"])) == unset


@pytest.mark.parametrize(
    ("address", "local"),
    [("127.0.0.1:50051", True), ("[::1]:50051", True), ("localhost:50051", True), ("unix:/tmp/h.sock", True),
     ("0.0.0.0:50051", False), ("[::]:50051", False), ("10.1.2.3:50051", False), ("hustings:50051", False)],
)
def test_an_embedded_redis_beside_a_network_address_is_warned_of(address: str, local: bool) -> None:
    """`serve` warns (`embedded_redis_serving_the_network`) when it keeps games in an embedded
    Redis while taking calls from other machines: a pod whose Redis URL came out empty served,
    healthy, a store no other replica saw."""
    import structlog.testing

    from hustings import cli

    with structlog.testing.capture_logs() as logged:
        cli._warn_if_serving_the_network(structlog.get_logger("hustings"), address, "")  # REST off
        cli._warn_if_serving_the_network(structlog.get_logger("hustings"), "127.0.0.1:50051", address)  # gRPC on loopback, REST here
    assert [line["event"] for line in logged] == ([] if local else ["embedded_redis_serving_the_network"] * 2)
    assert all(line["log_level"] == "warning" and "--redis-url" in line["hint"] for line in logged)
