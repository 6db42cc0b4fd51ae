"""Replicas on one Redis must share the server secret: one started with another refuses to start.

With two secrets, a join retried on another replica would not be recognised as the same join
(its stored request key and its token differ) and would take a second seat.
"""

from __future__ import annotations

import asyncio
import pathlib
import subprocess
import sys

import pytest
import redis
import structlog.testing
from grpc_health.v1 import health_pb2

from hustings.service import server_secret
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import Replica, ReplicaConfig
from tests.conftest import free_port, run

SECRET_A = b"a" * 32
SECRET_B = b"b" * 32


def _config(url: str, secret: bytes | None) -> ReplicaConfig:
    return ReplicaConfig(redis_url=url, address="127.0.0.1:0", grace_s=0.5, secret=secret)


def test_a_replica_with_another_secret_refuses_to_start(own_redis: EmbeddedRedis) -> None:
    async def scenario() -> None:
        first = await Replica(_config(own_redis.url, SECRET_A)).start()
        try:
            with pytest.raises(server_secret.SecretMismatch, match="different server secret"):
                await Replica(_config(own_redis.url, SECRET_B)).start()
            # The Redis-kept secret is another secret as well.
            with pytest.raises(server_secret.SecretMismatch):
                await Replica(_config(own_redis.url, None)).start()
            same = await Replica(_config(own_redis.url, SECRET_A)).start()
            await same.stop()
        finally:
            await first.stop()

    run(scenario())


def test_a_replica_refused_for_want_of_the_secret_leaves_none_of_its_own_in_redis(own_redis: EmbeddedRedis) -> None:
    """A replica given no secret beside replicas that have one of their own (the embedded
    default's file, say) is refused, and draws no secret into Redis: a key nobody uses, there
    for good, that the next replica without one would take."""
    client = redis.Redis.from_url(own_redis.url)

    async def scenario() -> None:
        first = await Replica(_config(own_redis.url, SECRET_A)).start()
        try:
            for _ in range(2):
                with pytest.raises(server_secret.SecretMismatch, match="different server secret"):
                    await Replica(_config(own_redis.url, None)).start()
                assert client.exists(server_secret.REDIS_SECRET_KEY) == 0
        finally:
            await first.stop()
        client.delete(server_secret.CHECK_KEY)  # a Redis without the games of that secret
        alone = await Replica(_config(own_redis.url, None)).start()  # the first to keep it in Redis
        try:
            kept = client.get(server_secret.REDIS_SECRET_KEY)
            assert kept is not None and len(bytes.fromhex(kept.decode())) == server_secret.SECRET_BYTES
            second = await Replica(_config(own_redis.url, None)).start()  # takes the one kept
            await second.stop()
            assert client.get(server_secret.REDIS_SECRET_KEY) == kept
        finally:
            await alone.stop()

    run(scenario())


def test_the_check_value_outlives_the_replicas_and_only_replace_secret_changes_it(own_redis: EmbeddedRedis) -> None:
    """The check value is kept for as long as Redis keeps the games: a fleet started again after
    any pause with another secret is refused (it lapsed 30 s after the last replica stopped, and
    such a fleet served on, answering every retry from before as a new request). Changing the
    secret is asked for: ``--replace-secret``."""
    client = redis.Redis.from_url(own_redis.url)

    async def start_and_stop(secret: bytes | None, replace: bool = False) -> None:
        config = ReplicaConfig(redis_url=own_redis.url, address="127.0.0.1:0", grace_s=0.5, secret=secret, replace_secret=replace)
        replica = await Replica(config).start()
        await replica.stop()

    client.set(server_secret.CHECK_KEY, server_secret.Keys(SECRET_A).check_value(), ex=30)  # as an earlier release left it
    run(start_and_stop(SECRET_A))
    assert client.ttl(server_secret.CHECK_KEY) == -1  # kept for good from now on
    stored = client.get(server_secret.CHECK_KEY)
    assert stored == server_secret.Keys(SECRET_A).check_value().encode()
    assert SECRET_A.hex().encode() not in stored and SECRET_A not in stored  # tells nothing of the secret
    for other in (SECRET_B, None):  # another secret, or none (one Redis would keep), after the pause
        with pytest.raises(server_secret.SecretMismatch, match="--replace-secret"):
            run(start_and_stop(other))
        assert client.get(server_secret.CHECK_KEY) == stored and client.exists(server_secret.REDIS_SECRET_KEY) == 0
    with structlog.testing.capture_logs() as logged:
        run(start_and_stop(SECRET_B, replace=True))
    assert client.get(server_secret.CHECK_KEY) == server_secret.Keys(SECRET_B).check_value().encode()
    assert [line["log_level"] for line in logged if line["event"] == "server_secret_replaced"] == ["warning"]
    run(start_and_stop(SECRET_B))  # the new one is now the one in use
    with pytest.raises(server_secret.SecretMismatch):
        run(start_and_stop(SECRET_A))
    run(start_and_stop(None, replace=True))  # to a secret kept in Redis, drawn now
    kept = client.get(server_secret.REDIS_SECRET_KEY)
    assert kept is not None
    assert client.get(server_secret.CHECK_KEY) == server_secret.Keys(bytes.fromhex(kept.decode())).check_value().encode()
    run(start_and_stop(None))


def test_serve_with_another_secret_says_so_and_exits(own_redis: EmbeddedRedis, tmp_path: pathlib.Path) -> None:
    secret_file = tmp_path / "secret"
    secret_file.write_text(SECRET_B.hex())

    async def hold_a() -> None:
        replica = await Replica(_config(own_redis.url, SECRET_A)).start()
        try:
            done = subprocess.run(
                [sys.executable, "-m", "hustings.cli", "serve", "--redis-url", own_redis.url, "--address",
                 f"127.0.0.1:{free_port()}", "--http-address", "", "--secret-file", str(secret_file)],
                capture_output=True, text=True, timeout=60,
            )
        finally:
            await replica.stop()
        assert done.returncode == 1
        assert "different server secret" in done.stderr
        assert "Traceback" not in done.stderr
        assert SECRET_B.hex() not in done.stderr

    run(hold_a())


def test_replicas_left_running_when_another_replaces_the_secret_leave_the_balance_saying_so_sparsely(
    own_redis: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--replace-secret` says to stop every replica first; one left running with the old secret
    turns NOT_SERVING at its next round, and says `server_secret_mismatch` once every 10 s, not
    every round (a second, for a secret kept in Redis)."""
    from hustings.service.grpc_api import SERVICE_NAME

    monkeypatch.setattr(server_secret, "CHECK_EVERY_S", 0.1)

    async def scenario() -> list[dict[str, object]]:
        left = await Replica(_config(own_redis.url, SECRET_A)).start()
        try:
            with structlog.testing.capture_logs() as logged:
                config = ReplicaConfig(redis_url=own_redis.url, address="127.0.0.1:0", grace_s=0.5, secret=SECRET_B, replace_secret=True)
                replacing = await Replica(config).start()
                try:
                    health = left._parts["health"]
                    for _ in range(40):  # bounded: 4 s, forty of the guard's rounds
                        await asyncio.sleep(0.1)
                        status = (await health.Check(health_pb2.HealthCheckRequest(service=SERVICE_NAME), None)).status
                        if status == health_pb2.HealthCheckResponse.NOT_SERVING:
                            break
                    assert status == health_pb2.HealthCheckResponse.NOT_SERVING, status
                    await asyncio.sleep(1.0)  # ten rounds more, all of them finding the other secret
                finally:
                    await replacing.stop()
        finally:
            await left.stop()
        return logged

    logged = run(scenario())
    assert [line["event"] for line in logged].count("server_secret_replaced") == 1
    mismatches = [line for line in logged if line["event"] == "server_secret_mismatch"]
    assert len(mismatches) == 1 and mismatches[0]["log_level"] == "error", mismatches
