"""The ``hustings`` command as a user runs it: real server processes, real Redis, real sockets."""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import random
import socket
import stat
import subprocess
import sys
import time

import pytest

from conftest import run, serve_process
from service_helpers import choose_top_candidates, new_game, play_to_end
from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis, EmbeddedRedisError
from hustings.v1 import game_pb2

CLI = [sys.executable, "-m", "hustings.cli"]


def _json_line(output: bytes) -> dict[str, object]:
    lines = [line for line in output.decode().splitlines() if line.startswith("{")]
    assert lines, output.decode()
    return json.loads(lines[-1])  # type: ignore[no-any-return]


@pytest.mark.parametrize("players", [3, 4])
def test_bots_finish_fifty_games_without_errors(players: int) -> None:
    done = subprocess.run(
        [*CLI, "bots", "--kind", "stimmvieh", "--games", "50", "--players", str(players), "--seed", "5"],
        capture_output=True,
        timeout=300,
    )
    summary = _json_line(done.stdout)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert summary["games_finished"] == 50
    assert summary["errors"] == 0
    assert summary["rejected"] == 0
    assert summary["moves"] == 50 * (players + 36)  # secret choices plus nine rounds of four parties
    assert float(summary["moves_per_s"]) > 0  # type: ignore[arg-type]


def test_two_server_processes_share_one_game(redis_server: EmbeddedRedis) -> None:
    with serve_process("--redis-url", redis_server.url) as (_, port_a), serve_process("--redis-url", redis_server.url) as (_, port_b):
        async def scenario() -> game_pb2.GameView:
            async with Client(f"127.0.0.1:{port_a}") as a, Client(f"127.0.0.1:{port_b}") as b:
                seats = await new_game(a, 4)
                return await play_to_end([a, b], seats, random.Random(3))

        final = run(scenario())
        assert final.status == game_pb2.GAME_STATUS_FINISHED  # type: ignore[attr-defined]


def test_embedded_serve_survives_a_restart_and_logs_no_secrets(tmp_path: pathlib.Path) -> None:
    data = tmp_path / "data"
    with serve_process("--data-dir", str(data)) as (process, port):
        async def first() -> tuple[str, list[str], int]:
            async with Client(f"127.0.0.1:{port}") as client:
                seats = await new_game(client, 4)
                await client.move(seats[0].game_id, seats[0].token, choose_top_candidates(2, 4, 6, 8))
                view = await client.view(seats[0].game_id)
                return seats[0].game_id, [s.token for s in seats], view.version

        game_id, tokens, version = run(first())  # type: ignore[misc]
    logs = process.log_text  # type: ignore[attr-defined]
    lines = [json.loads(line) for line in logs.splitlines() if line.startswith("{")]
    assert any(line.get("event") == "move_applied" and line.get("game_id") == game_id and line.get("version") for line in lines)
    for token in tokens:
        assert token not in logs
    assert "[2, 4, 6, 8]" not in logs and "2, 4, 6, 8" not in logs

    with serve_process("--data-dir", str(data)) as (_, port):
        async def second() -> game_pb2.GameView:
            async with Client(f"127.0.0.1:{port}") as client:
                return await client.view(game_id, tokens[0])

        view = run(second())
        assert view.version == version  # type: ignore[attr-defined]
        assert sorted(view.stimmvieh.parties[0].chosen_top_candidates) == [2, 4, 6, 8]  # type: ignore[attr-defined]


def test_verify_command_checks_a_finished_game(redis_server: EmbeddedRedis) -> None:
    with serve_process("--redis-url", redis_server.url) as (_, port):
        address = f"127.0.0.1:{port}"

        async def finished_game() -> tuple[str, str]:
            async with Client(address) as client:
                seats = await new_game(client, 3)
                recorded = seats[0].view.seed_commitment  # what a player keeps from the start
                await play_to_end([client], seats, random.Random(11))
                return seats[0].game_id, recorded

        game_id, recorded = run(finished_game())  # type: ignore[misc]
        done = subprocess.run(
            [*CLI, "verify", str(game_id), "--server", address, "--commitment", recorded], capture_output=True, timeout=60
        )
        report = _json_line(done.stdout)
        assert done.returncode == 0 and report["verified"] is True, report
        assert report["commitment_from"] == "caller"
        assert int(report["draws"]) > 41  # type: ignore[arg-type]
        # A commitment other than the one published at the start is caught.
        done = subprocess.run(
            [*CLI, "verify", str(game_id), "--server", address, "--commitment", "0" * 64], capture_output=True, timeout=60
        )
        assert done.returncode == 1 and "commitment" in str(_json_line(done.stdout)["message"])

        async def open_game() -> str:
            async with Client(address) as client:
                return (await new_game(client, 3))[0].game_id

        unfinished = run(open_game())
        done = subprocess.run([*CLI, "verify", str(unfinished), "--server", address], capture_output=True, timeout=60)
        assert done.returncode == 1 and _json_line(done.stdout)["verified"] is False
        # README: a game the server refuses to show is that refusal in one line on stderr, status 2.
        for game, reason in (("g" + "0" * 24, "GAME_NOT_FOUND"), ("g" * 300, "BAD_GAME_ID")):
            done = subprocess.run([*CLI, "verify", game, "--server", address], capture_output=True, text=True, timeout=60)
            assert done.returncode == 2 and done.stdout == "", (done.stdout, done.stderr)
            assert len(done.stderr.strip().splitlines()) == 1 and reason in done.stderr, done.stderr


def test_play_starts_its_own_server_and_quits_cleanly() -> None:
    # Whole games typed through a pseudo-terminal are in tests/test_terminal.py; this is the
    # command's wiring: its own embedded server, a first prompt, and q.
    done = subprocess.run([*CLI, "play", "--players", "3"], input=b"q\n", capture_output=True, timeout=120)
    out = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert "your move" in out and "choose_top_candidates" in out
    assert "Traceback" not in done.stderr.decode()
    # Its game goes with its own server: it says so where it gives the commitment, and where to
    # play a game that `hustings verify` can check; it does not claim that bots play it out.
    assert "ends with it" in out and "hustings play --server 127.0.0.1:50051" in out
    assert "Left game" not in out


def test_play_quit_on_a_server_leaves_its_seats_to_the_tables_bots_and_showed_the_commitment(redis_server: EmbeddedRedis) -> None:
    """`hustings play --server`, quit at its first prompt: it leaves every seat it held (yours
    and its own bots'), so the table's bots play the game out instead of its turn being owed
    for good; and it printed the seed commitment at the start, the one `hustings verify
    --commitment` wants (views of the game show the same)."""
    with serve_process("--redis-url", redis_server.url) as (_process, port):
        done = subprocess.run([*CLI, "play", "--players", "3", "--server", f"127.0.0.1:{port}"], input=b"q\n", capture_output=True, timeout=120)
        out = done.stdout.decode()
        assert done.returncode == 0, done.stderr.decode()[-2000:]
        game_id = out.split(" game ", 1)[1].split(".", 1)[0]
        commitment = out.split("Its seed commitment: ", 1)[1].split()[0]
        assert f"Left game {game_id} before its end" in out and "ends with it" not in out

        async def finished() -> game_pb2.GameView:
            async with Client(f"127.0.0.1:{port}") as client:
                view = await client.view(game_id)
                assert all(seat.absent for seat in view.seats) or view.status == game_pb2.GAME_STATUS_FINISHED
                for _ in range(600):  # a table of bots alone: a decision per 100 ms
                    if view.status == game_pb2.GAME_STATUS_FINISHED:
                        return view
                    await asyncio.sleep(0.1)
                    view = await client.view(game_id)
                raise AssertionError(f"the bots did not play {game_id} out: version {view.version}")

        view = run(finished(), 90)
        assert view.seed_commitment == commitment and len(commitment) == 64


def test_loadtest_prints_its_figures() -> None:
    done = subprocess.run(
        [*CLI, "loadtest", "--replicas", "2", "--clients", "4", "--seconds", "2", "--watchers", "0"], capture_output=True, timeout=180
    )
    summary = _json_line(done.stdout)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert summary["errors"] == 0 and summary["replicas"] == 2
    assert int(summary["moves"]) > 0 and float(summary["floor_calls_per_s"]) > 0  # type: ignore[arg-type]
    assert float(summary["submit_p50_ms"]) <= float(summary["submit_p99_ms"])  # type: ignore[arg-type]
    ratio = float(summary["moves_per_s"]) / float(summary["floor_calls_per_s"])  # type: ignore[arg-type]
    assert summary["throughput_ratio"] == pytest.approx(ratio, abs=0.002)


def test_version_help_and_one_line_argument_errors() -> None:
    from importlib import metadata

    from hustings.engine import games

    done = subprocess.run([*CLI, "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == f"hustings {metadata.version('hustings')}"
    import argparse

    from hustings.cli import _parser

    parser = _parser()
    (commands,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    assert {"serve", "bots", "play", "loadtest", "verify"} <= set(commands.choices)
    for name, command in commands.choices.items():
        for action in command._actions:
            assert action.help, f"hustings {name} {action.dest} has no help text"
            if action.dest == "kind":
                assert list(action.choices) == sorted(games()), name
        if name == "serve":
            (level,) = [a for a in command._actions if a.dest == "log_level"]
            assert set(level.choices) == {"debug", "info", "warning", "error", "critical"}
    for argv, wrong in ((["serve", "--log-level", "nonsense"], "nonsense"), (["bots", "--kind", "foo"], "foo")):
        done = subprocess.run([*CLI, *argv], capture_output=True, text=True, timeout=60)
        assert done.returncode == 2, done.stderr
        (line,) = [line for line in done.stderr.splitlines() if line.strip()]
        assert "invalid choice" in line and repr(wrong) in line and "Traceback" not in done.stderr


def test_log_level_names_are_checked() -> None:
    from hustings.service import logs

    # Refused before anything is configured, so the rest of the session's logging is untouched.
    with pytest.raises(ValueError, match="unknown log level 'nonsense'; choose one of debug, info"):
        logs.configure("nonsense")


def test_a_private_redis_left_running_is_adopted_over_its_socket(tmp_path: pathlib.Path) -> None:
    import redis as sync_redis

    first = EmbeddedRedis(tmp_path / "data", private=True).start()
    try:
        assert first.url.startswith("unix://") and first.port == 0
        client = sync_redis.Redis.from_url(first.url)
        client.set("kept", "yes")
        client.close()
        # A successor (as after a killed serve, whose lock on the folder the kernel let go of)
        # finds it through the folder and adopts it.
        first.abandon()
        second = EmbeddedRedis(tmp_path / "data", private=True).start()
        assert second.pid == first.pid and second.url == first.url
        client = sync_redis.Redis.from_url(second.url)
        assert client.get("kept") == b"yes"
        client.close()
    finally:
        first.stop()


def test_a_private_redis_in_a_long_folder_takes_a_password(tmp_path: pathlib.Path) -> None:
    import redis as sync_redis

    folder = tmp_path / ("x" * 110)  # too long for a unix socket path
    server = EmbeddedRedis(folder, private=True).start()
    try:
        assert server.port and server.url.startswith("redis://:") and server.url.endswith(f"@127.0.0.1:{server.port}/0")
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as bare:
            bare.sendall(b"PING\r\n")  # without the password
            assert bare.recv(200).startswith(b"-NOAUTH")
        client = sync_redis.Redis.from_url(server.url)
        assert client.ping()
        client.close()
        password = server.url.split("@")[0].removeprefix("redis://:")
        assert password not in pathlib.Path(f"/proc/{server.pid}/cmdline").read_bytes().decode(errors="replace")
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in folder.iterdir() if p.is_file())
        server.abandon()
        adopted = EmbeddedRedis(folder, private=True).start()
        assert adopted.pid == server.pid and adopted.url == server.url
    finally:
        server.stop()


def test_a_data_folder_left_open_by_an_older_run_is_closed(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir(mode=0o755)
    os.chmod(folder, 0o755)
    aof = folder / "appendonly.aof"
    aof.write_text("")
    os.chmod(aof, 0o644)
    server = EmbeddedRedis(folder, private=True).start()
    try:
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert stat.S_IMODE(aof.stat().st_mode) == 0o600
        for path in folder.iterdir():
            assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0, path.name
    finally:
        server.stop()


def test_a_killed_serve_leaves_its_redis_to_the_next_one(tmp_path: pathlib.Path) -> None:
    data = tmp_path / "data"
    with serve_process("--data-dir", str(data)) as (process, port):
        async def create() -> str:
            async with Client(f"127.0.0.1:{port}") as client:
                return (await new_game(client, 3))[0].game_id

        game_id = run(create())
        redis_pid = int((data / "redis.pid").read_text())
        process.kill()  # as a crash would: its Redis child is left running on the folder
        process.wait(timeout=10)
    os.kill(redis_pid, 0)
    with serve_process("--data-dir", str(data)) as (_, port):
        async def view() -> game_pb2.GameView:
            async with Client(f"127.0.0.1:{port}") as client:
                return await client.view(str(game_id))

        assert run(view()).game_id == game_id  # type: ignore[attr-defined]
        assert int((data / "redis.pid").read_text()) == redis_pid  # adopted over its socket, not replaced
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and _alive(redis_pid):
        time.sleep(0.05)
    assert not _alive(redis_pid), "the adopted Redis outlived the server that adopted it"


def test_a_folder_in_use_by_a_living_owner_is_refused_and_its_redis_left_alone(tmp_path: pathlib.Path) -> None:
    """A second owner of a folder whose first lives is refused in one line naming the first's
    pid, and the server goes on; once the first lets go (as a killed process does), the next
    adopts it; once it stops, the folder is free again."""
    import redis as sync_redis

    folder = tmp_path / "data"
    first = EmbeddedRedis(folder, private=True).start()
    try:
        with pytest.raises(EmbeddedRedisError, match=rf"in use by another process \(pid {os.getpid()}\)"):
            EmbeddedRedis(folder, private=True).start()
        client = sync_redis.Redis.from_url(first.url)
        assert client.ping()
        client.close()
        assert stat.S_IMODE((folder / "owner.lock").stat().st_mode) == 0o600
        first.abandon()
        second = EmbeddedRedis(folder, private=True).start()
        assert second.pid == first.pid
        second.stop()
    finally:
        first.stop()
    third = EmbeddedRedis(folder, private=True).start()
    third.stop()


def test_a_second_serve_in_the_same_folder_is_refused_and_the_first_serves_on(tmp_path: pathlib.Path) -> None:
    """Two `hustings serve` from one folder: the second adopted the first's Redis and, when it
    stopped, stopped that Redis too, leaving the first answering STORE_UNAVAILABLE until it was
    restarted. Now the second exits 1 in one line naming the folder's owner, and the first goes
    on serving from the same Redis."""
    with serve_process(cwd=tmp_path) as (process, port):
        redis_pid = int((tmp_path / ".hustings-data" / "redis.pid").read_text())
        second = subprocess.run(
            [sys.executable, "-m", "hustings.cli", "serve", "--address", "127.0.0.1:0", "--http-address", ""],
            cwd=tmp_path, capture_output=True, text=True, timeout=60,
        )
        assert second.returncode == 1, second.stderr
        assert f"in use by another process (pid {process.pid})" in second.stderr
        assert "Traceback" not in second.stderr
        assert _alive(redis_pid)

        async def create() -> str:
            async with Client(f"127.0.0.1:{port}") as client:
                return (await new_game(client, 3))[0].game_id

        assert run(create())


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (exited, not yet reaped by its new parent) counts as gone.
    try:
        status = pathlib.Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status
