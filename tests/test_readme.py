"""The README, run as a newcomer runs it: its first command from a fresh empty folder with no
options but free ports, its ``hustings bots``, its Python, Node.js and TypeScript examples and its
``buf curl`` and curl sessions verbatim (only the address swapped), each against a real server and
a real Redis, each reaching a first move."""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Iterator

import grpc
import pytest
import requests
from grpc_health.v1 import health_pb2, health_pb2_grpc

from conftest import REPO, free_ports, serve_process
from hustings.service.embedded_redis import EmbeddedRedis, free_port, wait_for_port

README = REPO / "README.md"
BIN = pathlib.Path(sys.executable).parent
README_ADDRESS = "127.0.0.1:50051"
README_HTTP_ADDRESS = "127.0.0.1:8080"
REST_SECTION = "REST/JSON, OpenAPI, TypeScript and the browser"
CURL_TIMED_OUT = 28  # curl's exit code when --max-time ends a transfer
START_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 30.0


def _console_script(name: str) -> str:
    """A command installed beside this Python (the venv's bin), else the one on PATH."""
    beside = BIN / name
    if beside.exists():
        return str(beside)
    found = shutil.which(name)
    assert found, f"`{name}` is not installed: python3 -m pip install -e '.[test]'"
    return found


def _section(title: str) -> str:
    """The README text under the ``## title`` heading, up to the next ``##`` heading."""
    text = README.read_text()
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"README has no section '## {title}'"
    return match.group(1)


def _blocks(section: str, language: str) -> list[str]:
    """The fenced code blocks of ``language`` in ``section``."""
    return re.findall(rf"^```{language}\n(.*?)^```", section, re.S | re.M)


def _commands(block: str) -> list[str]:
    """The commands of a shell block: comment lines and blank lines dropped."""
    return [line.strip() for line in block.splitlines() if line.strip() and not line.strip().startswith("#")]


# ---------------------------------------------------------------- the first command, literally


def test_the_readme_names_the_commands_this_file_runs() -> None:
    first, *_ = _blocks(_section("Two commands"), "sh")
    commands = _commands(first)
    serve = [c for c in commands if c.endswith("hustings serve")]
    assert serve == ["python3 -m pip install -e . && hustings serve"], commands
    assert any(c.startswith("python3 -m venv .venv") for c in commands), "the venv step (PEP 668) comes first"
    try_it = " ".join(_commands(_blocks(_section("Try it"), "sh")[0]))
    assert "hustings bots --kind stimmvieh" in try_it


@contextlib.contextmanager
def _readme_serve(folder: pathlib.Path) -> Iterator[tuple[subprocess.Popen[bytes], int, int, list[str]]]:
    """``hustings serve`` as the README starts it, in ``folder``, with only free ports given.

    Yields (process, gRPC port, HTTP port, its stderr lines once it has ended).
    """
    grpc_port, http_port = free_ports(2)
    command = [_console_script("hustings"), "serve", "--address", f"127.0.0.1:{grpc_port}", "--http-address", f"127.0.0.1:{http_port}"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("HUSTINGS_")}
    lines: list[str] = []
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=log)
        try:
            _wait_serving(process, grpc_port, http_port, log)
            yield process, grpc_port, http_port, lines
        finally:
            _interrupt(process)
            log.seek(0)
            lines.extend(log.read().decode(errors="replace").splitlines())


def _interrupt(process: subprocess.Popen[bytes]) -> None:
    """Stop a running ``hustings serve`` as Ctrl-C does (killed if it has not ended in time)."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def _wait_serving(process: subprocess.Popen[bytes], grpc_port: int, http_port: int, log: Any) -> None:
    """Wait (bounded) until both ports accept connections; fail with the server's own words."""
    deadline = time.monotonic() + START_TIMEOUT_S
    pending = {grpc_port, http_port}
    while pending and time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            pytest.fail(f"hustings serve exited with {process.returncode}: {log.read().decode(errors='replace')[-3000:]}")
        for port in list(pending):
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    pending.discard(port)
        time.sleep(0.05)
    assert not pending, f"nothing listens on {pending} after {START_TIMEOUT_S} s"


def _health(grpc_port: int) -> int:
    with grpc.insecure_channel(f"127.0.0.1:{grpc_port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        return stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=10).status  # type: ignore[no-any-return]


def _socket_inodes(pid: int) -> set[str]:
    inodes = set()
    for fd in pathlib.Path(f"/proc/{pid}/fd").iterdir():
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith("socket:["):
                inodes.add(target[len("socket:[") : -1])
    return inodes


def _tcp_inodes() -> set[str]:
    """Inodes of every TCP socket on this machine (IPv4 and IPv6), from /proc/net."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(FileNotFoundError):
            for row in pathlib.Path(table).read_text().splitlines()[1:]:
                inodes.add(row.split()[9])
    return inodes


def _unix_socket_paths() -> set[str]:
    rows = pathlib.Path("/proc/net/unix").read_text().splitlines()[1:]
    return {row.split()[7] for row in rows if len(row.split()) > 7}


def _assert_private(data: pathlib.Path) -> int:
    """The data folder and everything in it are its owner's alone, and the embedded Redis has
    no TCP socket at all; returns the Redis server's pid."""
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    entries = list(data.iterdir())
    assert any(p.name == "appendonly.aof" for p in entries), [p.name for p in entries]
    for path in entries:
        mode = stat.S_IMODE(path.lstat().st_mode)
        if path.is_socket():
            assert mode & 0o077 == 0, (path.name, oct(mode))
        else:
            assert mode == 0o600, (path.name, oct(mode))
    pid = int((data / "redis.pid").read_text())
    sockets = _socket_inodes(pid)
    assert sockets, "the Redis server holds no socket at all"
    assert not sockets & _tcp_inodes(), "the embedded Redis has a TCP socket"
    assert str(data / "redis.sock") in _unix_socket_paths()
    return pid


def test_the_first_command_serves_from_a_fresh_folder_and_keeps_its_games() -> None:
    # A folder of a short path, as a checkout usually has: pytest's own temporary folders are
    # within a few bytes of the longest path a unix socket may have (103), past which the
    # embedded Redis listens on loopback TCP instead (tests/test_cli.py checks that case).
    with tempfile.TemporaryDirectory(prefix="fresh-") as short:
        _serve_twice_from(pathlib.Path(short))


def _serve_twice_from(folder: pathlib.Path) -> None:
    data = folder / ".hustings-data"
    with _readme_serve(folder) as (process, grpc_port, http_port, _):
        assert _health(grpc_port) == health_pb2.HealthCheckResponse.SERVING
        base = f"http://127.0.0.1:{http_port}"
        kinds = requests.get(f"{base}/v1/kinds", timeout=10).json()["kinds"]
        assert {"stimmvieh", "wahlspiel", "spin_doctors"} <= {k["kind"] for k in kinds}
        play = requests.get(f"{base}/play", timeout=10)
        assert play.status_code == 200 and "text/html" in play.headers["Content-Type"]
        created = requests.post(f"{base}/v1/games", json={"kind": "stimmvieh", "options": {"players": 3}}, timeout=10).json()
        game_id = created["gameId"]
        joined = requests.post(f"{base}/v1/games/{game_id}:join", json={"displayName": "Ada"}, timeout=10).json()
        token = joined["seatToken"]
        before = requests.get(f"{base}/v1/games/{game_id}/view", headers={"Authorization": f"Bearer {token}"}, timeout=10).json()
        redis_pid = _assert_private(data)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=STOP_TIMEOUT_S) == 0
    with pytest.raises(ProcessLookupError):
        os.kill(redis_pid, 0)  # the embedded Redis went with it

    with _readme_serve(folder) as (_, grpc_port, http_port, _):
        base = f"http://127.0.0.1:{http_port}"
        after = requests.get(f"{base}/v1/games/{game_id}/view", headers={"Authorization": f"Bearer {token}"}, timeout=10).json()
        assert after["view"]["version"] == before["view"]["version"]
        assert after["view"]["seats"][0]["displayName"] == "Ada"
        assert _health(grpc_port) == health_pb2.HealthCheckResponse.SERVING
        _assert_private(data)


def test_the_second_replica_command_serves_the_first_command_s_games() -> None:
    """Many replicas: the README's command for a second replica beside the first command, run
    verbatim by a shell in the same fresh folder (only its two ports swapped for free ones),
    serves the games the first made, and its moves are the first's."""
    (block,) = [b for b in _blocks(_section("Many replicas"), "sh") if "127.0.0.1:50052" in b]
    command = " ".join(line.rstrip("\\").strip() for line in _commands(block))
    assert command.startswith("hustings serve ") and "--secret-file .hustings-data/secret" in command, command
    with tempfile.TemporaryDirectory(prefix="fresh-") as short, _readme_serve(pathlib.Path(short)) as (_, _, http_port, _):
        grpc_port2, http_port2 = free_ports(2)
        typed = command.replace("127.0.0.1:50052", f"127.0.0.1:{grpc_port2}").replace("127.0.0.1:8081", f"127.0.0.1:{http_port2}")
        env = {k: v for k, v in os.environ.items() if not k.startswith("HUSTINGS_")}
        env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
        with tempfile.TemporaryFile() as log:
            second = subprocess.Popen(["sh", "-c", f"exec {typed}"], cwd=short, env=env, stdout=subprocess.DEVNULL, stderr=log)
            try:
                _wait_serving(second, grpc_port2, http_port2, log)
                first_base, second_base = f"http://127.0.0.1:{http_port}", f"http://127.0.0.1:{http_port2}"
                created = requests.post(
                    f"{first_base}/v1/games", json={"kind": "stimmvieh", "options": {"players": 3}}, timeout=10
                ).json()
                game_id = created["gameId"]
                joined = requests.post(f"{second_base}/v1/games/{game_id}:join", json={"displayName": "Ada"}, timeout=10)
                assert joined.status_code == 200, joined.text
                token = joined.json()["seatToken"]
                seen = requests.get(f"{first_base}/v1/games/{game_id}/view", headers={"Authorization": f"Bearer {token}"}, timeout=10)
                assert seen.status_code == 200 and seen.json()["view"]["seats"][0]["displayName"] == "Ada", seen.text
            finally:
                _interrupt(second)
            assert second.returncode == 0


def test_a_redis_that_cannot_start_is_one_line_in_its_own_words(tmp_path: pathlib.Path) -> None:
    data = tmp_path / ".hustings-data"
    data.mkdir()
    (data / "appendonly.aof").write_text("this is not an append-only file\n")
    command = [_console_script("hustings"), "serve", "--address", f"127.0.0.1:{free_port()}", "--http-address", ""]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=START_TIMEOUT_S)
    assert done.returncode != 0
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("hustings: redis-server could not start")
    assert "append only file" in lines[0]


def test_bots_with_one_flag_play_a_game_from_a_fresh_folder(tmp_path: pathlib.Path) -> None:
    done = subprocess.run([_console_script("hustings"), "bots", "--games", "1"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads([line for line in done.stdout.splitlines() if line.startswith("{")][-1])
    assert summary["games_finished"] == 1 and summary["errors"] == 0 and summary["moves"] > 0
    assert list(tmp_path.iterdir()) == []  # its Redis lived in a temporary folder of its own


def _serve_until_listening(redis_url: str, stderr: int) -> None:
    """Start ``hustings serve`` on an external Redis with ``stderr`` as its standard error, and
    stop it once it has listened."""
    port = free_port()
    command = [_console_script("hustings"), "serve", "--redis-url", redis_url, "--address", f"127.0.0.1:{port}", "--http-address", ""]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        wait_for_port(port)
    finally:
        _interrupt(process)


def test_logs_are_json_lines_and_readable_lines_on_a_terminal(redis_server: EmbeddedRedis, tmp_path: pathlib.Path) -> None:
    """README: "Logs go to stderr: JSON lines, or readable lines when stderr is a terminal"."""
    import pty

    assert "JSON lines, or readable lines when stderr is a terminal" in " ".join(_section("Two commands").split())
    with (tmp_path / "log").open("w+b") as log:
        _serve_until_listening(redis_server.url, log.fileno())
        log.seek(0)
        lines = log.read().decode().splitlines()
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    assert any(record["event"] == "serving" for record in records), lines

    leader, follower = pty.openpty()
    written: list[bytes] = []

    def drain() -> None:  # read as the server writes, so that a full terminal never blocks it
        with contextlib.suppress(OSError):  # EIO once the terminal has no writer left
            for _ in range(100_000):  # bounded: a few kB of log lines in reads of any size
                chunk = os.read(leader, 65536)
                if not chunk:
                    break
                written.append(chunk)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        _serve_until_listening(redis_server.url, follower)
    finally:
        os.close(follower)
        reader.join(timeout=10)
        os.close(leader)
    shown = [line for line in b"".join(written).decode(errors="replace").splitlines() if line.strip()]
    serving = [line for line in shown if " serving " in line]
    assert serving and not serving[0].lstrip().startswith("{"), shown  # a line for people, not JSON
    assert "address=127.0.0.1:" in serving[0]


def test_every_file_the_readme_names_is_in_the_repository() -> None:
    """Links and `folder/file` paths of the README lead to files of a fresh clone, none outside it
    (a clone has nothing beside itself); `<game>` and `*` stand for any name."""
    text = README.read_text()
    tops = {path.name for path in REPO.iterdir() if path.is_dir() and not path.name.startswith(".")}
    links = [target for target in re.findall(r"\]\(([^)\s]+)\)", text) if not target.startswith(("#", "http"))]
    paths = [p for p in re.findall(r"`([^`\s]+)`", text) if p.startswith("../") or p.split("/")[0] in tops and "/" in p]
    assert len(links) >= 3 and len(paths) >= 20, (links, paths)
    for named in links + paths:
        pattern = named.rstrip("/").replace("<game>", "*")
        found = [path.resolve() for path in REPO.glob(pattern)] if "*" in pattern else [(REPO / pattern).resolve()]
        assert found and all(path.is_relative_to(REPO.resolve()) and path.exists() for path in found), named


def test_compose_publishes_grpc_and_rest_as_the_readme_says() -> None:
    """README Deployment: through compose, `localhost:8080` is Envoy carrying gRPC to the
    replicas' gRPC port, and `localhost:8081` Envoy carrying REST/JSON and /play to their HTTP
    port; nothing else is published."""
    import yaml

    said = " ".join(README.read_text().split())
    assert "The compose file's Envoy carries gRPC on `localhost:8080` and the REST/JSON face and `/play` on `localhost:8081`" in said
    compose = yaml.safe_load((REPO / "deploy" / "compose.yaml").read_text())
    envoy = yaml.safe_load((REPO / "deploy" / "envoy.yaml").read_text())["static_resources"]
    published = {name: service.get("ports", []) for name, service in compose["services"].items()}
    assert published.pop("envoy") == ["8080:8080", "8081:8081"] and not any(published.values()), published
    environment = compose["x-replica"]["environment"]
    grpc_port = int(environment["HUSTINGS_ADDRESS"].rsplit(":", 1)[1])
    dockerfile = (REPO / "deploy" / "Dockerfile").read_text()
    http_port = int(re.search(r"HUSTINGS_HTTP_ADDRESS=[0-9.]+:(\d+)", dockerfile).group(1))  # the image's
    assert "HUSTINGS_HTTP_ADDRESS" not in environment  # compose keeps the image's HTTP address
    clusters = {cluster["name"]: cluster for cluster in envoy["clusters"]}
    for listener, port, wanted_port in zip(envoy["listeners"], (8080, 8081), (grpc_port, http_port)):
        assert listener["address"]["socket_address"]["port_value"] == port
        routes = listener["filter_chains"][0]["filters"][0]["typed_config"]["route_config"]["virtual_hosts"][0]["routes"]
        cluster = clusters[routes[0]["route"]["cluster"]]
        endpoints = [e["endpoint"]["address"]["socket_address"] for e in cluster["load_assignment"]["endpoints"][0]["lb_endpoints"]]
        assert len(endpoints) == 3 and {address["port_value"] for address in endpoints} == {wanted_port}, listener["name"]
    assert len(envoy["listeners"]) == 2


# ---------------------------------------------------------------- every command and flag it names

# Options the README names that belong to the other tools of its sessions (buf curl, curl).
OTHER_TOOLS_FLAGS = frozenset({"--protocol", "--http2-prior-knowledge", "--list-methods", "--max-time", "--against"})


def _readme_commands() -> set[str]:
    """The ``hustings COMMAND`` names the README uses."""
    return set(re.findall(r"\bhustings ([a-z][a-z_]*)\b", README.read_text()))


def _help_text(*command: str) -> str:
    """What ``command --help`` prints; it must exit 0 (argparse formats every help line then)."""
    done = subprocess.run([*command, "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, (command, done.stderr[-3000:])
    return done.stdout


@pytest.fixture(scope="module")
def helps() -> dict[str, str]:
    """``hustings --help`` (under ""), ``hustings COMMAND --help`` for every command the README
    uses, and the example bot's ``--help``."""
    hustings = _console_script("hustings")
    texts = {"": _help_text(hustings)}
    for command in sorted(_readme_commands()):
        texts[command] = _help_text(hustings, command)
    texts["example_bot"] = _help_text(sys.executable, "-m", "hustings.ai.example_bot")
    return texts


def test_hustings_help_lists_every_command_the_readme_uses(helps: dict[str, str]) -> None:
    """README: "`hustings --help` and `hustings COMMAND --help` list every option"."""
    commands = _readme_commands()
    assert {"serve", "bots", "play", "verify", "arena", "loadtest", "clockbench"} <= commands
    for command in commands:
        assert re.search(rf"^\s+{command}\s", helps[""], re.M), (command, helps[""])


def test_every_flag_the_readme_names_is_an_option(helps: dict[str, str]) -> None:
    named = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", README.read_text()))
    options = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", " ".join(helps.values())))
    assert named - OTHER_TOOLS_FLAGS, "the README names no option at all"
    assert not named - options - OTHER_TOOLS_FLAGS, sorted(named - options - OTHER_TOOLS_FLAGS)


# ---------------------------------------------------------------- the examples, verbatim


@pytest.fixture()
def served(redis_server: EmbeddedRedis) -> Iterator[str]:
    """A ``hustings serve`` process; yields its gRPC address."""
    with serve_process("--redis-url", redis_server.url) as (_, port):
        yield f"127.0.0.1:{port}"


@pytest.fixture()
def served_http(redis_server: EmbeddedRedis) -> Iterator[str]:
    """A ``hustings serve`` process with its REST/JSON face on; yields that face's host:port."""
    http_port = free_port()
    with serve_process("--redis-url", redis_server.url, "--http-address", f"127.0.0.1:{http_port}"):
        wait_for_port(http_port)
        yield f"127.0.0.1:{http_port}"


def _at(block: str, address: str, default: str = README_ADDRESS) -> str:
    """``block`` aimed at ``address`` instead of the README's ``default`` one (nothing else changes)."""
    assert default in block
    return block.replace(default, address)


def _with_venv_on_path() -> dict[str, str]:
    """This environment with the venv's bin first on PATH, as after ``. .venv/bin/activate``."""
    return {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def _sample_outputs_hold(block: str, printed: list[str]) -> None:
    """Every whole-line ``# …`` comment of a shell block is a line the block printed; a comment
    with an ellipsis (…) stands for a line that starts with the text before it."""
    samples = [line.strip()[2:] for line in block.splitlines() if line.strip().startswith("# ")]
    assert samples, "the block shows no sample output"
    for sample in samples:
        if "…" in sample:
            head = sample.split("…", 1)[0]
            assert any(line.startswith(head) for line in printed), (sample, printed)
        else:
            assert sample in printed, (sample, printed)


def _typescript_steps_in_a_fresh_copy(steps: str, served_http: str, tmp_path: pathlib.Path) -> list[str]:
    """Run a README block of TypeScript commands, as written, in a fresh clone's part of the tree
    (the proto and the client, without what a build leaves); the lines it printed, its sample
    outputs checked."""
    clone = tmp_path / "clone"
    shutil.copytree(REPO / "proto", clone / "proto")
    build_outputs = shutil.ignore_patterns("node_modules", "dist", "gen")
    shutil.copytree(REPO / "clients" / "typescript", clone / "clients" / "typescript", ignore=build_outputs)
    # npm's own settings through its environment, so that the commands stay as written.
    quiet = {"npm_config_audit": "false", "npm_config_fund": "false", "npm_config_update_notifier": "false"}
    done = subprocess.run(
        ["sh", "-eu", "-c", _at(steps, served_http, README_HTTP_ADDRESS)],
        cwd=clone, capture_output=True, text=True, timeout=600, env={**_with_venv_on_path(), **quiet},
    )
    assert done.returncode == 0, (done.stdout[-3000:], done.stderr[-3000:])
    printed = done.stdout.splitlines()
    _sample_outputs_hold(steps, printed)
    return printed


def test_the_python_example_reaches_a_move(served: str) -> None:
    example = _blocks(_section("Call it from Python"), "python")[0]
    done = subprocess.run([sys.executable, "-c", _at(example, served)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert re.fullmatch(r"Ada sees version \d+, seats to act: \[0, 1, 2\], \d+ legal moves", lines[0]), lines
    seen = int(lines[0].split()[3].rstrip(","))
    moved = re.fullmatch(r"moved: the game is at version (\d+)", lines[1])
    assert moved and int(moved.group(1)) == seen + 1, lines


def test_the_python_example_plays_a_seat_to_the_end(served: str) -> None:
    """README Call it from Python: the second example plays its seat against server-side bots
    until the stream ends, and prints the lines the README shows."""
    section = _section("Call it from Python")
    _, example = _blocks(section, "python")
    done = subprocess.run([sys.executable, "-c", _at(example, served)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    first, *placings = done.stdout.splitlines()
    shown = re.search(r"It prints `(GAME_STATUS_FINISHED at version \d+)` and a line per party, `(.*?)`", " ".join(section.split()))
    assert shown and first == shown.group(1), (first, section)
    # The detail: votes and donations, doubled or not (the score is what they came to).
    line = re.compile(r"(\d)\. (.+?)( \(me\))?: (\d+) \((\d+)k votes, (\d+)k€( doubled)?\)")
    assert line.fullmatch(shown.group(2)), shown.group(2)
    parsed = [line.fullmatch(placing) for placing in placings]
    assert len(parsed) == 4 and all(parsed), placings  # three seats and Angelus
    assert [bool(m.group(3)) for m in parsed].count(True) == 1, placings  # the seat it played
    assert "Angelus" in [m.group(2) for m in parsed]
    for m in [line.fullmatch(shown.group(2)), *parsed]:
        assert m is not None
        donations, doubled = int(m.group(6)), m.group(7)
        assert int(m.group(4)) == (2 * donations if doubled else donations), m.group(0)
    ranks, scores = [int(m.group(1)) for m in parsed], [int(m.group(4)) for m in parsed]
    assert ranks == sorted(ranks) and ranks[0] == 1 and scores == sorted(scores, reverse=True), placings


def test_the_buf_curl_session_reaches_a_move(served: str) -> None:
    section = _section("Call it with buf curl or grpcurl")
    session = _blocks(section, "sh")[0]
    assert "pip install buf-bin" in section and "@bufbuild/buf" in section
    env = _with_venv_on_path()
    assert shutil.which("buf", path=env["PATH"]), "the buf CLI is missing: python3 -m pip install -e '.[test]' (buf-bin)"
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", _at(session, served)], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "hustings.v1.GameService/SubmitMove" in out  # --list-methods
    assert '"topCandidatesChosen"' in out and '"version": "5"' in out  # the move was applied
    assert '"status": "SERVING"' in out
    answer = json.loads(out[out.rindex("\n{\n") :])  # the last call's answer, as buf curl prints it
    _answer_is_as_shown(answer, section)


def _answer_is_as_shown(answer: dict[str, Any], section: str) -> None:
    """The answer the README shows after "The last call answers" (its ``…`` standing for any
    value) has the answer's version and the same events, each with the same fields, in order."""
    shown = re.search(r"The last call answers `(\{.*?\})`", section, re.S)
    assert shown, "the section shows no answer"
    sample = json.loads(re.sub(r"\s+", " ", shown.group(1)).replace("…", "null"))
    assert answer["version"] == sample["version"]
    assert len(answer["events"]) == len(sample["events"]), (answer["events"], sample["events"])
    for event, shown_event in zip(answer["events"], sample["events"]):
        assert set(event) == set(shown_event), (event, shown_event)
        assert {k: v for k, v in event.items() if k != "stimmvieh"} == {k: v for k, v in shown_event.items() if k != "stimmvieh"}
        assert set(event["stimmvieh"]) == set(shown_event["stimmvieh"]), (event, shown_event)


def test_the_curl_session_reaches_a_move(served_http: str) -> None:
    session = _blocks(_section(REST_SECTION), "sh")[0]
    assert "--max-time" in session, "the watch in the session must end by itself"
    done = subprocess.run(
        ["sh", "-eu", "-c", _at(session, served_http, README_HTTP_ADDRESS)],
        capture_output=True, text=True, timeout=60, env=_with_venv_on_path(),
    )
    # -e: every command before the watch succeeded; the watch itself is ended by --max-time.
    assert done.returncode == CURL_TIMED_OUT, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    printed = done.stdout.splitlines()
    assert printed[0] == "[0, 1, 2]", printed[:3]
    shown = re.fullmatch(r"version (\d+), Ada plays (\{.*\})", printed[1])
    assert shown, printed[1]
    assert "chooseTopCandidates" in json.loads(shown.group(2))["stimmvieh"]
    new_version = str(int(shown.group(1)) + 1)
    assert printed[2] == new_version  # the move's answer: the game moved on by one step
    _sample_outputs_hold(session, printed)

    # Bo's stream: the update of that version, Ada's choice in it without its candidates.
    data = [line.removeprefix("data: ") for line in printed if line.startswith("data: ")]
    assert len(data) == 1 and f"id: {new_version}" in printed, printed[3:]
    update = json.loads(data[0])
    assert update["version"] == new_version and update["view"]["seat"] == 1
    chosen = [
        event["stimmvieh"]["topCandidatesChosen"]
        for entry in update["entries"] for event in entry["events"]
        if "topCandidatesChosen" in event.get("stimmvieh", {})
    ]
    assert chosen == [{"party": 0, "influences": []}]
    # The server itself, asked as a spectator, is at that version with Bo and Cy still to choose.
    game_id = update["view"]["gameId"]
    view = requests.get(f"http://{served_http}/v1/games/{game_id}/view", timeout=10).json()["view"]
    assert view["version"] == new_version and view["toAct"] == [1, 2]


@pytest.mark.slow
def test_the_typescript_example_builds_from_a_fresh_copy_and_reaches_a_move(served_http: str, tmp_path: pathlib.Path) -> None:
    (steps,) = [block for block in _blocks(_section(REST_SECTION), "sh") if "npm ci" in block]
    assert _commands(steps)[0].startswith("cd clients/typescript && npm ci && npm run build")
    printed = _typescript_steps_in_a_fresh_copy(steps, served_http, tmp_path)
    line = json.loads(printed[-1])
    assert line["seats"] == [0, 1, 2] and line["refused"] == "STALE_VERSION"
    assert int(line["version"]) == int(line["movedFrom"]) + 1 and line["events"] >= 1
    (sample,) = [s.strip()[2:] for s in steps.splitlines() if s.strip().startswith("# {")]
    assert json.loads(sample.replace('"g…"', json.dumps(line["gameId"]))) == line  # the README's line is true
    view = requests.get(f"http://{served_http}/v1/games/{line['gameId']}/view", timeout=10).json()["view"]
    assert view["version"] == line["version"]


def test_the_catalogue_s_etag_session_gets_a_304(served_http: str) -> None:
    """README The catalogue: the ETag is the quoted content version, and a request naming it
    gets 304 Not Modified; the commands as printed, against a real server."""
    (block,) = _blocks(_subsection("The catalogue"), "sh")
    done = subprocess.run(
        ["sh", "-eu", "-c", _at(block, served_http, "localhost:8080")], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, (done.stdout[-2000:], done.stderr[-2000:])
    printed = done.stdout.splitlines()
    _sample_outputs_hold(block, printed)
    assert "HTTP/1.1 304 Not Modified" in printed, printed
    kind = requests.get(f"http://{served_http}/v1/kinds/wahlspiel", timeout=10).json()
    assert f'"{kind["contentVersion"]}"' in printed, printed  # the ETag it sent is the content version


def test_ci_runs_the_readme_second_command() -> None:
    first, *_ = _blocks(_section("Two commands"), "sh")
    (second,) = [c for c in _commands(first) if c.endswith("python3 -m pytest")]
    ci = (REPO / ".ci" / "run").read_text().splitlines()
    assert second in ci
    assert "set -euo pipefail" in ci  # a failing step fails the run
    assert "tests/install-system-deps.sh" in second  # the suite's Debian packages, stated


@pytest.mark.slow  # installs and builds the TypeScript example: 15 s, 40 s on a busy machine
def test_the_node_example_reaches_a_move(served: str, tmp_path: pathlib.Path) -> None:
    section = _section("For Node.js and browser developers")
    (install,) = _commands(_blocks(section, "sh")[0])
    (example,) = _blocks(section, "js")
    node, npm = shutil.which("node"), shutil.which("npm")
    assert node and npm, "Node.js 20+ with npm is missing: sh tests/install-system-deps.sh"
    assert install.startswith("npm install ")
    npm_args = [npm, *install.split()[1:], "--no-audit", "--no-fund", "--loglevel=error"]
    installed = subprocess.run(npm_args, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stderr[-3000:]
    (tmp_path / "proto").symlink_to(REPO / "proto")  # "a folder holding hustings' proto/"
    (tmp_path / "example.js").write_text(_at(example, served))
    done = subprocess.run([node, "example.js"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-3000:]
    first, second, third = done.stdout.splitlines()
    assert first == "GAME_STATUS_ACTIVE 4 [ 0, 1, 2 ]"
    assert second == "moved: the game is at version 5"
    assert third == "refused: ALREADY_CHOSEN"


# ---------------------------------------------------------------- the bot kit

BOT_SECTION = "Write your own bot"


def _subsection(title: str) -> str:
    """The README text under the ``### title`` heading, up to the next ``##`` or ``###`` heading."""
    match = re.search(rf"^### {re.escape(title)}\n(.*?)(?=^##+ |\Z)", README.read_text(), re.S | re.M)
    assert match, f"README has no section '### {title}'"
    return match.group(1)


def _open_game_with_bots(address: str) -> str:
    """A Stimmvieh game on ``address`` with server-side bots in seats 1 to 3 and seat 0 free."""
    import asyncio

    from hustings.client import Client
    from hustings.v1 import game_pb2

    async def create() -> str:
        async with Client(address) as client:
            table = game_pb2.TableSettings(bot_seats=[1, 2, 3], bot_level="random")
            return (await client.create_game("stimmvieh", 4, table=table)).game_id

    return asyncio.run(create())


def test_the_python_example_bot_plays_as_the_readme_says(served: str, tmp_path: pathlib.Path) -> None:
    python_block = _blocks(_subsection(BOT_SECTION), "sh")[0]
    create, join = _commands(python_block)
    env = _with_venv_on_path()
    # On an embedded server of its own, from an empty folder that it leaves empty.
    done = subprocess.run(["sh", "-eu", "-c", create], cwd=tmp_path, capture_output=True, text=True, timeout=180, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    printed = done.stdout.splitlines()
    _sample_outputs_hold(python_block, printed)
    line = json.loads(printed[-1])
    assert line["finished"] is True and line["seat"] == 0 and line["rank"] in (1, 2, 3, 4)
    assert list(tmp_path.iterdir()) == []
    # Joining an open game on a server: only the address and GAME_ID are swapped for real ones.
    game_id = _open_game_with_bots(served)
    done = subprocess.run(
        ["sh", "-eu", "-c", _at(join, served).replace("GAME_ID", game_id)], capture_output=True, text=True, timeout=180, env=env
    )
    assert done.returncode == 0, done.stderr[-3000:]
    line = json.loads(done.stdout.splitlines()[-1])
    assert line["game_id"] == game_id and line["finished"] is True and line["seat"] == 0


def test_the_readme_engine_bot_plays_the_arena_games() -> None:
    import ast

    (example,) = _blocks(_subsection(BOT_SECTION), "python")
    done = subprocess.run([sys.executable, "-c", example], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    summaries = ast.literal_eval(done.stdout.strip().splitlines()[-1])
    assert [s["bot"] for s in summaries] == ["first", "random", "random", "random"]
    assert all(s["decisions"] > 0 for s in summaries)
    assert abs(sum(s["win_share"] for s in summaries) - 1.0) < 1e-3  # every game has its winners


@pytest.mark.slow
def test_the_typescript_example_bot_builds_from_a_fresh_copy_and_plays_a_game(served_http: str, tmp_path: pathlib.Path) -> None:
    steps = _blocks(_subsection(BOT_SECTION), "sh")[1]
    assert _commands(steps)[0].startswith("cd clients/typescript && npm ci && npm run build")
    printed = _typescript_steps_in_a_fresh_copy(steps, served_http, tmp_path)
    line = json.loads(printed[-1])
    assert line["finished"] is True and line["seat"] == 0 and line["watchedFrom"] == ["0"] and line["decided"]
    history = requests.get(f"http://{served_http}/v1/games/{line['gameId']}/history", timeout=10).json()["entries"]
    assert [e["version"] for e in history if e.get("seat") == 0 and "move" in e] == line["decided"]


def test_license_and_changelog_are_there() -> None:
    from importlib import metadata

    assert (REPO / "LICENSE").read_text().lstrip().startswith("Apache License\n")
    assert metadata.metadata("hustings")["License-Expression"] == "Apache-2.0"
    changelog = (REPO / "CHANGELOG.md").read_text()
    version = metadata.version("hustings")
    assert "## [Unreleased]" in changelog
    if ".dev" in version:  # the next release's development version: its changes are Unreleased
        assert f"## [{version.split('.dev')[0]}]" not in changelog, version
    else:
        assert f"## [{version}]" in changelog
