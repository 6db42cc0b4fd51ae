"""What the README promises of the `hustings` command that no other test held it to: the figures
it gives as `hustings serve`'s defaults, `hustings bots --server` naming its games in
`sample_game_ids` on a line with the keys the README shows, `--allow-client-seed`, and the
server secret taken from `HUSTINGS_SECRET`. Real `hustings serve` processes, real Redis."""

from __future__ import annotations

import asyncio
import json
import pathlib
import re
import subprocess
import sys

import grpc
import pytest
import redis as sync_redis

from conftest import REPO, free_port, run, serve_process, wait_for_port
from hustings.client import Client, HustingsError
from hustings.service import call_clock, grpc_api, limits, server_secret, store
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import Replica, ReplicaConfig
from hustings.v1 import game_pb2

README = REPO / "README.md"
SEED_HEX = "c0ffee00" * 8
SECRET = "a-server-secret-of-the-deployment-42"
SERVE_ENV = (
    "HUSTINGS_ADDRESS", "HUSTINGS_HTTP_ADDRESS", "HUSTINGS_METRICS_ADDRESS", "HUSTINGS_REDIS_URL",
    "HUSTINGS_DATA_DIR", "HUSTINGS_RETENTION_DAYS", "HUSTINGS_DRAIN_SECONDS", "HUSTINGS_SECRET_FILE", "HUSTINGS_SECRET",
)
BOTS_TIMEOUT_S = 120


def test_serve_defaults_are_the_readme_s(monkeypatch: pytest.MonkeyPatch) -> None:
    """README: gRPC on 127.0.0.1:50051, REST on 127.0.0.1:8080, data in ./.hustings-data,
    `--retention-days` (default 30), `--max-watchers` (10,000), `--max-streams-per-client`
    (1,000), `--max-streams-per-seat` (32), `--max-streams-per-game` (64), `--redis-max-connections` (64), more than 2,048
    unary calls refused, a command waits up to 10 s for a connection, every unary call has a
    server deadline of 15 s, and gRPC calls' deadlines are swept every 0.25 s."""
    from hustings.cli import _parser

    for name in SERVE_ENV:
        monkeypatch.delenv(name, raising=False)
    args = _parser().parse_args(["serve"])
    assert (args.address, args.http_address, str(args.data_dir)) == ("127.0.0.1:50051", "127.0.0.1:8080", ".hustings-data")
    assert args.retention_days == 30
    assert (args.max_watchers, args.max_streams_per_client, args.max_streams_per_seat) == (10_000, 1_000, 32)
    assert args.max_streams_per_game == 64
    assert args.redis_max_connections == 64
    assert args.allow_client_seed is False
    config = ReplicaConfig(redis_url="redis://127.0.0.1:1/0")
    assert (config.max_watchers, config.max_streams_per_client, config.max_streams_per_seat) == (10_000, 1_000, 32)
    assert config.max_streams_per_game == 64
    assert config.max_calls == limits.DEFAULT_MAX_CALLS == 2_048
    assert config.redis_max_connections == 64 and config.redis_pool_timeout_s == store.DEFAULT_POOL_TIMEOUT_S == 10.0
    assert config.retention_s == 30 * 24 * 3600
    assert grpc_api.RPC_DEADLINE_S == 15.0
    assert call_clock.TICK_S == 0.25  # "up to 0.25 s after they fall due"


def _readme_bots_keys() -> set[str]:
    """The keys of the JSON line the README shows for `hustings bots`."""
    text = README.read_text()
    match = re.search(r"`hustings bots` without `--server`.*?```json\n(.*?)\n```", text, re.S)
    assert match, "README shows no line of `hustings bots`"
    return set(json.loads(match.group(1).replace('["..."]', "[]")))


async def _final_view(port: int, game_id: str) -> game_pb2.GameView:
    async with Client(f"127.0.0.1:{port}") as client:
        return await client.view(game_id)


async def _seeded_create(port: int) -> str:
    """The reason a seeded CreateGame is refused, or "" when it is accepted."""
    async with Client(f"127.0.0.1:{port}") as client:
        try:
            await client.create_game("stimmvieh", 3, seed=SEED_HEX)
        except HustingsError as refused:
            assert refused.code == grpc.StatusCode.PERMISSION_DENIED
            return refused.reason
    return ""


def test_bots_on_a_server_name_their_games_in_sample_game_ids(redis_server: EmbeddedRedis) -> None:
    """README Try it: `hustings bots --games 1 --server 127.0.0.1:50051` - "one game on your
    server: its id is in sample_game_ids", on a line with the keys the README shows. The same
    server, started without `--allow-client-seed`, refuses a client's seed; without a secret of
    its own it warns that it keeps one in Redis."""
    with serve_process("--redis-url", redis_server.url) as (process, port):
        done = subprocess.run(
            [sys.executable, "-m", "hustings.cli", "bots", "--games", "1", "--players", "3", "--server", f"127.0.0.1:{port}"],
            capture_output=True, text=True, timeout=BOTS_TIMEOUT_S,
        )
        assert done.returncode == 0, done.stderr[-2000:]
        line = json.loads([text for text in done.stdout.splitlines() if text.startswith("{")][-1])
        assert set(line) == _readme_bots_keys()
        assert line["games_finished"] == 1 and line["errors"] == 0
        (game_id,) = line["sample_game_ids"]
        view = run(_final_view(port, game_id))
        assert view.status == game_pb2.GAME_STATUS_FINISHED and len(view.seats) == 3  # type: ignore[attr-defined]
        assert run(_seeded_create(port)) == "CLIENT_SEED_NOT_ALLOWED"
    assert "server_secret_in_redis" in process.log_text  # type: ignore[attr-defined]


def test_hustings_secret_is_read_from_the_environment(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """README Server secret: `--secret-file` "(or `HUSTINGS_SECRET`)"; the running replicas
    keep "a keyed check value of it in Redis (`hustings:server-secret-check`, never the
    secret)", and a replica with another secret refuses to start. With `--allow-client-seed`
    a client's seed is taken."""
    for name in SERVE_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HUSTINGS_SECRET", SECRET)
    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as redis_server:
        raw = sync_redis.Redis.from_url(redis_server.url)
        try:
            with serve_process("--redis-url", redis_server.url, "--allow-client-seed") as (process, port):
                assert run(_seeded_create(port)) == ""
                assert server_secret.CHECK_KEY == "hustings:server-secret-check"
                kept = raw.get("hustings:server-secret-check")
                assert raw.ttl("hustings:server-secret-check") == -1  # kept while Redis keeps the games
                assert kept == server_secret.Keys(SECRET.encode()).check_value().encode()
                assert raw.get(server_secret.REDIS_SECRET_KEY) is None  # no secret of Redis' own
                every_value = b"".join(raw.dump(key) or b"" for key in raw.scan_iter(count=1000))
                assert SECRET.encode() not in every_value

                async def another_secret() -> None:
                    replica = Replica(ReplicaConfig(redis_url=redis_server.url, address="127.0.0.1:0", secret=b"another-secret-of-16-bytes-or-more"))
                    with pytest.raises(server_secret.SecretMismatch, match="different server secret"):
                        await asyncio.wait_for(replica.start(), 30)

                run(another_secret())
        finally:
            raw.close()
    assert "server_secret_in_redis" not in process.log_text  # type: ignore[attr-defined]
    assert SECRET not in process.log_text  # type: ignore[attr-defined]


def test_the_embedded_server_keeps_its_secret_in_its_data_folder(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """README Server secret: "the embedded default keeps one in its data folder (mode 0600)",
    so a restart holds the same secret: the second start finds the first one's check value in
    Redis (kept for good) and serves, and a retried join answers the same token."""
    import stat

    for name in SERVE_ENV:
        monkeypatch.delenv(name, raising=False)
    data = tmp_path / "data"

    async def join(port: int, game_id: str) -> str:
        async with Client(f"127.0.0.1:{port}") as client:
            if not game_id:
                game_id = (await client.create_game("stimmvieh", 3)).game_id
            joined = await client.join(game_id, "Ada", request_id="join-across-restarts-Qm4")
            return f"{game_id} {joined.token}"

    with serve_process("--data-dir", str(data)) as (first, port):
        game_id, token = str(run(join(port, ""))).split()
    secret = data / "secret"
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600 and len(secret.read_text().strip()) >= 32
    with serve_process("--data-dir", str(data)) as (second, port):
        assert str(run(join(port, game_id))) == f"{game_id} {token}"
    for process in (first, second):
        assert "server_secret_in_redis" not in process.log_text  # type: ignore[attr-defined]


def _listening_ports(pid: int) -> set[int]:
    """The TCP ports process ``pid`` listens on (its sockets' inodes found in /proc/net/tcp*)."""
    inodes = set()
    for fd in pathlib.Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = fd.readlink().name
        except OSError:
            continue  # closed meanwhile
        if target.startswith("socket:["):
            inodes.add(target[len("socket:[") : -1])
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in pathlib.Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def test_an_empty_http_address_turns_the_rest_face_off(redis_server: EmbeddedRedis) -> None:
    """README REST: "`--http-address ''` turns it off": the process listens on its gRPC port only,
    whereas with an address it listens on that one too."""
    with serve_process("--redis-url", redis_server.url) as (process, port):
        assert _listening_ports(process.pid) == {port}
    http_port = free_port()
    with serve_process("--redis-url", redis_server.url, "--http-address", f"127.0.0.1:{http_port}") as (process, port):
        wait_for_port(http_port)
        assert _listening_ports(process.pid) == {port, http_port}
