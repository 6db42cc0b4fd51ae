"""The oldest Redis hustings runs on (6.2: ZADD LT/GT) is checked at start: an older server is
refused in one line, on one server and on every node of a Cluster."""

from __future__ import annotations

import pathlib

import pytest

from conftest import redis_cluster, run
from hustings.service import store as store_module
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store import MIN_REDIS_VERSION, RedisTooOld, Store, redis_version


def test_versions_compare_as_numbers_and_the_readme_names_the_oldest() -> None:
    from conftest import REPO

    readme = " ".join((REPO / "README.md").read_text().split())
    assert f"It needs Redis {'.'.join(map(str, MIN_REDIS_VERSION))} or newer, on every node" in readme
    assert redis_version("6.2.14") >= MIN_REDIS_VERSION > redis_version("6.0.16")
    assert redis_version("7.0.0") > redis_version("6.10.1") > redis_version("6.2.0")
    assert redis_version("255.255.255") > redis_version("6.2")


def test_the_servers_the_tests_run_pass_and_a_higher_bar_refuses_them(
    redis_server: EmbeddedRedis, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def check(url: str) -> None:
        store = Store.from_url(url)
        try:
            await store.check_server()  # the bundled Redis is new enough
            monkeypatch.setattr(store_module, "MIN_REDIS_VERSION", (99, 0))
            with pytest.raises(RedisTooOld) as refused:
                await store.check_server()
            assert "needs Redis 99.0 or newer" in str(refused.value)
            monkeypatch.setattr(store_module, "MIN_REDIS_VERSION", MIN_REDIS_VERSION)
        finally:
            await store.close()

    run(check(redis_server.url))
    with redis_cluster(tmp_path) as nodes:
        run(check(f"redis+cluster://127.0.0.1:{nodes[0].port}"), 60)


def test_serve_refuses_an_old_redis_in_one_line(redis_server: EmbeddedRedis) -> None:
    """`hustings serve` against a Redis below the bar exits 1 with one line naming both versions
    (in a process of its own, whose bar is raised before the command runs: serve sets the
    process's logging and collector, which a test must not leave behind)."""
    import subprocess
    import sys

    program = (
        "import sys; import hustings.service.store as store; store.MIN_REDIS_VERSION = (99, 0); "
        "from hustings.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", program, "serve", "--redis-url", redis_server.url, "--address", "127.0.0.1:0", "--http-address", ""],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done.stderr
    refusals = [line for line in done.stderr.splitlines() if line.startswith("hustings: ")]
    assert len(refusals) == 1 and "needs Redis 99.0 or newer; the server at the Redis URL is 6.2" in refusals[0], done.stderr


def test_a_user_not_allowed_info_is_let_through(redis_server: EmbeddedRedis) -> None:
    """An ACL (or a managed service) may forbid INFO: the check then lets the server through
    rather than refusing to start on a Redis it cannot read the version of."""
    import redis

    raw = redis.Redis.from_url(redis_server.url)
    raw.acl_setuser("noinfo", enabled=True, passwords=["+noinfo-password"], keys=["*"], channels=["*"],
                    commands=["+@all", "-info"])
    host, port = redis_server.url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)

    async def check() -> None:
        store = Store.from_url(f"redis://noinfo:noinfo-password@{host}:{port}/0")
        try:
            with pytest.raises(redis.exceptions.NoPermissionError):
                await store.client.info("server")  # the ACL holds
            await store.check_server()
        finally:
            await store.close()

    try:
        run(check())
    finally:
        raw.acl_deluser("noinfo")
        raw.close()
