"""What an operator meets running hustings, held to what README.md and deploy/README.md promise:
settings refused in one line, the server secret given as a file or a variable, replicas that
find themselves holding different secrets, the data folder, a Redis Cluster that goes away
(calls, clocks, logs), and the metrics listener. Real `hustings serve` processes and in-process
replicas, real Redis, real gRPC, all on loopback."""

from __future__ import annotations

import asyncio
import contextlib
import json
import pathlib
import signal
import socket
import stat
import time

import grpc
import pytest
import redis as sync_redis
from grpc_health.v1 import health_pb2, health_pb2_grpc

from conftest import free_ports, redis_cluster, run, wait_for_port
from test_operator import _ended, _serve
from hustings.client import ONE_ATTEMPT, Client, HustingsError
from hustings.service import server_secret
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.grpc_api import SERVICE_NAME
from hustings.service.replica import SOLE_CLIENT, Replica, ReplicaConfig, StartupError
from hustings.v1 import game_pb2

NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
START_TIMEOUT_S = 30.0


def test_a_server_secret_that_cannot_be_used_stops_serve_with_one_line(redis_server: EmbeddedRedis, tmp_path: pathlib.Path) -> None:
    """deploy/README.md: "A setting that cannot work stops `serve` at start with one line on
    stderr, never a traceback". The server secret is such a setting: a --secret-file that is
    not there, or holds too little, and a HUSTINGS_SECRET too short to key anything."""
    short = tmp_path / "short-secret"
    short.write_text("too-short\n")
    short.chmod(0o600)
    weak = "weak-secret-Zq7"  # 15 characters: one short of the least taken
    common = ("--address", "127.0.0.1:0", "--redis-url", redis_server.url)
    cases = {
        "missing file": _serve(tmp_path, *common, "--secret-file", str(tmp_path / "no-such-secret")),
        "short file": _serve(tmp_path, *common, "--secret-file", str(short)),
        "short variable": _serve(tmp_path, *common, HUSTINGS_SECRET=weak),
    }
    results = {name: _ended(process) for name, process in cases.items()}
    for name, (stderr, status) in results.items():
        ours = [line for line in stderr.splitlines() if line.startswith("hustings")]
        assert "Traceback" not in stderr, f"{name}: a traceback\n{stderr}"
        assert status in (1, 2) and len(ours) == 1 and "secret" in ours[0], f"{name}: {status}\n{stderr}"
        assert weak not in stderr


def test_a_secret_passed_on_as_a_file_is_the_same_secret_and_its_hex_as_the_variable_is_refused(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """README Server secret: "`--secret-file` (64 hex digits are its 32 bytes, ...) or
    `HUSTINGS_SECRET` (always its text's UTF-8 bytes: to pass a file's or Redis's secret on, pass
    the file; its hex as the variable is another secret, which the running replicas refuse)". A
    deployment that started without a secret keeps one in Redis; the operator who gives a new
    replica that secret as a file starts it beside the running one, and as the variable's text is
    told at once, before it serves anything."""
    monkeypatch.delenv("HUSTINGS_SECRET", raising=False)

    async def scenario(url: str) -> None:
        first = await Replica(ReplicaConfig(redis_url=url, address="127.0.0.1:0", grace_s=0.5)).start()  # the secret kept in Redis
        raw = sync_redis.Redis.from_url(url)
        try:
            kept = raw.get(server_secret.REDIS_SECRET_KEY).decode()
            secret_file = tmp_path / "secret"
            secret_file.write_text(kept + "\n")
            secret_file.chmod(0o600)
            as_file = server_secret.resolve(str(secret_file), None)  # what `serve --secret-file` reads
            second = Replica(ReplicaConfig(redis_url=url, address="127.0.0.1:0", grace_s=0.5, secret=as_file))
            await asyncio.wait_for(second.start(), START_TIMEOUT_S)
            await second.stop()
            monkeypatch.setenv("HUSTINGS_SECRET", kept)
            as_variable = server_secret.resolve("", None)  # what `serve` with HUSTINGS_SECRET reads
            assert as_variable != as_file
            third = Replica(ReplicaConfig(redis_url=url, address="127.0.0.1:0", grace_s=0.5, secret=as_variable))
            with pytest.raises(server_secret.SecretMismatch):
                await asyncio.wait_for(third.start(), START_TIMEOUT_S)
        finally:
            raw.close()
            await first.stop()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url), 60)


def test_a_replica_that_finds_another_secret_in_use_leaves_the_balance(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """README Server secret: replicas with different secrets must not serve together (a join
    retried on the other would take a second seat), and the check value in Redis makes a replica
    with another secret refuse to start. But the value lapses 30 s after the last refresh, as it
    does when Redis is away longer than that (a restart that loads its append-only file later
    finds it expired): a replica with another secret that starts first then takes it, and the
    running replica's check, every 10 s, only logs `server_secret_mismatch` while its health
    stays SERVING, so both serve with different secrets for as long as nobody reads the log.
    A replica that finds another secret in use should leave the balance (NOT_SERVING)."""
    monkeypatch.setattr(server_secret, "CHECK_EVERY_S", 0.2)  # the guard's round, 10 s in service

    async def scenario(url: str) -> None:
        running = await Replica(ReplicaConfig(redis_url=url, address="127.0.0.1:0", grace_s=0.5, secret=b"a" * 32)).start()
        raw = sync_redis.Redis.from_url(url)
        try:
            raw.delete(server_secret.CHECK_KEY)  # the check value lapsed while Redis was away
            other = await Replica(ReplicaConfig(redis_url=url, address="127.0.0.1:0", grace_s=0.5, secret=b"b" * 32)).start()
            try:
                async with grpc.aio.insecure_channel(f"127.0.0.1:{running.port}") as channel:
                    health = health_pb2_grpc.HealthStub(channel)
                    status = None
                    for _round in range(30):  # bounded: 3 s, fifteen of the guard's rounds
                        await asyncio.sleep(0.1)
                        status = (await health.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME), timeout=5)).status
                        if status == NOT_SERVING:
                            break
                    assert status == NOT_SERVING, "a replica holding another secret than the one in use is still SERVING"
            finally:
                await other.stop()
        finally:
            raw.close()
            await running.stop()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url), 60)


def test_an_empty_data_dir_leaves_the_current_folder_alone(tmp_path: pathlib.Path) -> None:
    """Every other HUSTINGS_* variable set empty means "not set" or "off" (no Redis URL, no secret
    file, no REST face, no metrics). HUSTINGS_DATA_DIR set empty (a compose file's `${VAR}` that
    is unset, a unit file's `Environment=HUSTINGS_DATA_DIR=`) is taken as the current folder,
    which `serve` then makes "private" as it does its data folder (README: "the folder is 0700 and
    its files 0600"): the folder it was started in loses group and others' access, so do its
    files and folders, and the append-only file, the secret and Redis's log land beside them.
    Either refuse the empty value in one line or use the default folder; never the working one."""
    work = tmp_path / "work"
    (work / "docs").mkdir(parents=True)
    notes = work / "notes.txt"
    notes.write_text("the operator's own file\n")
    notes.chmod(0o644)
    (work / "docs").chmod(0o755)
    work.chmod(0o755)
    (grpc_port,) = free_ports(1)
    process = _serve(work, "--address", f"127.0.0.1:{grpc_port}", HUSTINGS_DATA_DIR="")
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while process.poll() is None and time.monotonic() < deadline:  # bounded: until it serves or ends
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", grpc_port)) == 0:
                    break
            time.sleep(0.1)
    finally:
        if process.poll() is None:
            process.terminate()
        _ended(process)
    modes = {path.name: stat.S_IMODE(path.stat().st_mode) for path in (work, notes, work / "docs")}
    assert modes == {"work": 0o755, "notes.txt": 0o644, "docs": 0o755}, modes
    written = sorted(path.name for path in work.iterdir())
    assert written in (["docs", "notes.txt"], [".hustings-data", "docs", "notes.txt"]), written


def test_an_unreachable_redis_cluster_stops_serve_with_one_line(tmp_path: pathlib.Path) -> None:
    """deploy/README.md: exit status "1 for a Redis that does not answer", in one line, never a
    traceback, and never the URL's password; `--redis-url redis+cluster://host:port` is one of
    the URLs it takes. A single server that does not answer is refused so
    (tests/test_operator.py); a Cluster whose node does not answer raises redis-py's
    RedisClusterUnreachableError, which the start does not catch."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))  # bound, not listening: connections to it are refused
        port = closed.getsockname()[1]
        stderr, status = _ended(_serve(tmp_path, "--address", "127.0.0.1:0", "--redis-url", f"redis+cluster://:hunter2@127.0.0.1:{port}"))
    ours = [line for line in stderr.splitlines() if line.startswith("hustings")]
    assert "Traceback" not in stderr and "hunter2" not in stderr, stderr
    assert status == 1 and len(ours) == 1 and f"cannot reach Redis at 127.0.0.1:{port}" in ours[0], f"{status}\n{stderr}"


async def _stopped(replica: Replica) -> BaseException | None:
    """Stop ``replica``; when its stop fails, stop by hand what it left running (its gRPC
    server, loops, subscription and connections), so that nothing outlives the test, and
    return the failure."""
    try:
        await replica.stop()
        return None
    except Exception as error:  # noqa: BLE001 - returned to the caller, who asserts on it
        parts = dict(replica._parts)
        replica._parts = {}
        for name in ("guard", "clock", "readiness", "room"):
            with contextlib.suppress(Exception):
                await parts[name].stop()  # type: ignore[attr-defined]
        for loop in (parts["host"].lobby_repair, parts["host"].deadline_runner):  # type: ignore[attr-defined]
            with contextlib.suppress(Exception):
                await loop.stop()
        with contextlib.suppress(Exception):
            await parts["notifier"].stop()  # type: ignore[attr-defined]
        await parts["server"].stop(0)  # type: ignore[attr-defined]
        with contextlib.suppress(Exception):
            await parts["store"].close()  # type: ignore[attr-defined]
        return error


def test_calls_while_the_redis_cluster_is_unreachable_are_store_unavailable(tmp_path: pathlib.Path) -> None:
    """README Many replicas, Health: while Redis is away "calls that need Redis are UNAVAILABLE
    `STORE_UNAVAILABLE` with a retry hint of a second" (the clients retry them, and so ride out
    a failover), "logged as `store_error` once a second". On a Redis Cluster that does not answer
    at all (every node restarting, a partition between the replicas and the Cluster) redis-py
    raises RedisClusterUnreachableError, which is no RedisError: every call is answered INTERNAL,
    which no client retries, and logged `rpc_failed` with a whole traceback, one per call. (With
    one node of three down the calls are STORE_UNAVAILABLE, as promised.)"""

    async def scenario(nodes: list[EmbeddedRedis]) -> None:
        url = f"redis+cluster://127.0.0.1:{nodes[0].port}"
        replica = await Replica(ReplicaConfig(redis_url=url, address="127.0.0.1:0", grace_s=0.5, secret=b"c" * 32, **SOLE_CLIENT)).start()
        try:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                once = client.with_retry(ONE_ATTEMPT)
                game_id = (await once.create_game("stimmvieh", 3)).game_id
                for node in nodes:
                    node.stop()  # the whole Cluster is away
                for call in (lambda: once.view(game_id), lambda: once.create_game("stimmvieh", 3)):
                    with pytest.raises(HustingsError) as refused:
                        await asyncio.wait_for(call(), 30)
                    assert (refused.value.code, refused.value.reason) == (grpc.StatusCode.UNAVAILABLE, "STORE_UNAVAILABLE")
        finally:
            await _stopped(replica)  # its failure to stop is another test's (table clocks)

    with redis_cluster(tmp_path) as nodes:
        run(scenario(nodes), 90)


def _cluster_ok(nodes: list[EmbeddedRedis], timeout_s: float = 30.0) -> None:
    """Wait (bounded) until every node of a Cluster says its state is ok."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if all(sync_redis.Redis(port=node.port).cluster("info")["cluster_state"] == "ok" for node in nodes):
                return
        except sync_redis.RedisError:
            pass  # a node still loading
        time.sleep(0.1)
    raise TimeoutError("the Cluster did not come back")


@pytest.mark.slow
def test_table_clocks_run_again_once_the_redis_cluster_is_back(tmp_path: pathlib.Path) -> None:
    """README Health: "a replica recovers by itself when Redis returns", and the background loops
    (deadlines, lobby repair, ...) "log a failed round once in 10 s for each cause". The deadline
    runner's loop survives only RedisError; on a Cluster that does not answer at all redis-py
    raises RedisClusterUnreachableError, which ends the loop's task at its first poll (four a
    second), silently: health is SERVING again once the Cluster answers, yet this replica never
    again times out a seat nor lets a bot seat decide. Every replica meets the same outage, so
    every table's clocks and bots stop until the replicas are restarted; and the stop itself
    then fails, re-raising the dead loop's error before the gRPC server is stopped."""

    async def scenario(nodes: list[EmbeddedRedis]) -> None:
        url = f"redis+cluster://127.0.0.1:{nodes[0].port}"
        replica = await Replica(ReplicaConfig(redis_url=url, address="127.0.0.1:0", grace_s=0.5, secret=b"d" * 32, **SOLE_CLIENT)).start()
        timeouts = 0
        try:
            for node in nodes:
                node.stop()  # the whole Cluster is away ...
            for _poll in range(50):  # bounded: 5 s; the replica notices at its second failed ping
                await asyncio.sleep(0.1)
                if not replica._parts["readiness"].reachable:  # type: ignore[attr-defined]
                    break
            await asyncio.sleep(1.0)  # four more of the deadline runner's polls
            for node in nodes:
                node.start()  # ... for a few seconds, and comes back (its data gone: no persistence here)
            await asyncio.to_thread(_cluster_ok, nodes)
            async with Client(f"127.0.0.1:{replica.port}") as client:
                game_id = (await client.create_game("stimmvieh", 3, table=game_pb2.TableSettings(decision_seconds=1))).game_id
                for seat in range(3):
                    await client.join(game_id, f"Player {seat}")  # nobody moves: the clock decides
                for _poll in range(40):  # bounded: 8 s, the clock's second and the runner's polls many times over
                    await asyncio.sleep(0.2)
                    timeouts = sum(seat.timeouts for seat in (await client.view(game_id)).seats)
                    if timeouts:
                        break
        finally:
            stop_error = await _stopped(replica)
        assert timeouts > 0, "no seat timed out: the replica's deadline runner did not survive the Cluster's outage"
        assert stop_error is None, f"the replica did not stop cleanly: {stop_error!r}"

    with redis_cluster(tmp_path) as nodes:
        run(scenario(nodes), 90)


@pytest.mark.slow
def test_every_line_serve_writes_while_its_redis_cluster_is_away_is_a_json_line(tmp_path: pathlib.Path) -> None:
    """README: "Logs go to stderr: JSON lines" (when stderr is not a terminal). `logs.configure`
    sets up structlog only; the standard logging that redis-py, aiohttp, asyncio and gRPC write
    to is left unconfigured, so whatever they log at WARNING or above goes out through Python's
    last-resort handler as plain text, its traceback as many more lines. While a Redis Cluster
    is away redis-py logs every failed topology refresh so: a log shipper that parses JSON lines
    gets dozens of unreadable lines a second, each with the Cluster's addresses in free text."""
    with redis_cluster(tmp_path / "cluster") as nodes:
        (port,) = free_ports(1)
        environment = {"HUSTINGS_SECRET": "a-server-secret-of-the-logs-test"}
        process = _serve(tmp_path, "--address", f"127.0.0.1:{port}", "--redis-url", f"redis+cluster://127.0.0.1:{nodes[0].port}", **environment)
        try:
            wait_for_port(port)

            async def calls() -> None:
                async with Client(f"127.0.0.1:{port}") as client:
                    once = client.with_retry(ONE_ATTEMPT)
                    game_id = (await once.create_game("stimmvieh", 3)).game_id
                    for node in nodes:
                        node.stop()  # the whole Cluster is away
                    for _call in range(3):
                        with pytest.raises(HustingsError):
                            await asyncio.wait_for(once.view(game_id), 30)

            run(calls(), 60)
            time.sleep(1.0)  # a background round or two (lobby repair, deadlines, readiness)
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            stderr, _status = _ended(process)
    lines = [line for line in stderr.splitlines() if line.strip()]
    unreadable = []
    for line in lines:
        try:
            json.loads(line)
        except ValueError:
            unreadable.append(line)
    assert lines and not unreadable, f"{len(unreadable)} of {len(lines)} lines are not JSON, e.g.\n" + "\n".join(unreadable[:5])


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback on this machine")
def test_the_metrics_address_takes_an_ipv6_address_as_the_other_listeners_do(tmp_path: pathlib.Path) -> None:
    """An IPv6 listen address is written `[::1]:PORT` (`[::]:PORT` for every interface), and the
    gRPC and REST/JSON listeners take it so. The metrics listener splits the address at its last
    colon and hands "[::1]" on as a host name, so a replica configured alike on all three stops
    at start ("cannot listen for metrics on '[::1]:…': Name or service not known"); an IPv6-only
    cluster's pods cannot be given `--metrics-address [::]:9464`."""

    async def scenario(url: str) -> None:
        config = ReplicaConfig(
            redis_url=url, address="[::1]:0", http_address="[::1]:0", metrics_address="[::1]:0",
            grace_s=0.5, secret=b"m" * 32,
        )
        replica = Replica(config)
        try:
            await asyncio.wait_for(replica.start(), START_TIMEOUT_S)
        except StartupError as refused:
            raise AssertionError(str(refused)) from None
        try:
            assert replica.port and replica.http_port and replica.metrics_port
        finally:
            await replica.stop()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:  # a secret of its own: not the session's Redis
        run(scenario(server.url), 60)
