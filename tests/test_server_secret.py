"""Replicas on one Redis must share the server secret: one started with another refuses to start.

With two secrets, a join retried on another replica would not be recognised as the same join
(its stored request key and its token differ) and would take a second seat.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import time

import pytest
import redis

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
        client.delete(server_secret.CHECK_KEY)  # as if CHECK_TTL_S had passed
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


def test_the_check_value_lapses_after_the_last_replica_stops(own_redis: EmbeddedRedis) -> None:
    client = redis.Redis.from_url(own_redis.url)

    async def start_and_stop(secret: bytes) -> None:
        replica = await Replica(_config(own_redis.url, secret)).start()
        await replica.stop()

    run(start_and_stop(SECRET_A))
    ttl = client.ttl(server_secret.CHECK_KEY)
    assert 0 < ttl <= server_secret.CHECK_TTL_S
    stored = client.get(server_secret.CHECK_KEY)
    assert stored == server_secret.Keys(SECRET_A).check_value().encode()
    assert SECRET_A.hex().encode() not in stored and SECRET_A not in stored  # tells nothing of the secret
    client.pexpire(server_secret.CHECK_KEY, 1)  # as if CHECK_TTL_S had passed
    time.sleep(0.05)
    run(start_and_stop(SECRET_B))  # a new secret may now be taken
    assert client.get(server_secret.CHECK_KEY) == server_secret.Keys(SECRET_B).check_value().encode()


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
