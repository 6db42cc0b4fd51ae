"""``hustings loadtest``: its flags (the embedded Redis's append-only file, fixed ports) and the
figures of its watcher phase, in tiny runs (the figures themselves are measured, not asserted)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import pytest

from hustings.loadtest import port_is_free
from hustings.service.embedded_redis import free_port

CLI = [sys.executable, "-m", "hustings.cli", "loadtest"]
RUN_TIMEOUT_S = 180
# A tiny move phase; no watcher phase unless a test asks for one.
TINY = ["--replicas", "2", "--clients", "2", "--seconds", "1", "--watchers", "0"]


def _summary(done: subprocess.CompletedProcess[bytes]) -> dict[str, object]:
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    lines = [line for line in done.stdout.decode().splitlines() if line.startswith("{")]
    assert len(lines) == 1, done.stdout.decode()  # everything in one JSON line
    return json.loads(lines[0])  # type: ignore[no-any-return]


def _free_run(length: int) -> int:
    """A port P with P .. P + length - 1 all free now (bounded search)."""
    for _ in range(50):
        base = free_port()
        if base + length < 65536 and all(port_is_free(base + i) for i in range(length)):
            return base
    raise AssertionError("no run of free ports found")


def test_help_says_the_embedded_redis_runs_without_an_append_only_file() -> None:
    done = subprocess.run([*CLI, "--help"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0
    text = " ".join(done.stdout.split())
    assert "without an append-only file unless --aof" in text
    assert "--aof {no,everysec,always}" in text and "--base-port" in text and "--watch-moves-per-s" in text


def test_default_run_has_no_append_only_file() -> None:
    summary = _summary(subprocess.run([*CLI, *TINY], capture_output=True, timeout=RUN_TIMEOUT_S))
    assert summary["redis_aof"] == "no"  # as the server itself reports it
    assert summary["errors"] == 0 and int(summary["moves"]) > 0  # type: ignore[call-overload]


def test_aof_everysec_on_fixed_ports() -> None:
    base = _free_run(3)
    done = subprocess.run([*CLI, *TINY, "--aof", "everysec", "--base-port", str(base)], capture_output=True, timeout=RUN_TIMEOUT_S)
    summary = _summary(done)
    assert summary["redis_aof"] == "everysec"  # CONFIG GET on the running server, as `serve` runs it
    assert summary["redis_port"] == base
    assert summary["replica_addresses"] == [f"127.0.0.1:{base + 1}", f"127.0.0.1:{base + 2}"]
    assert summary["errors"] == 0 and int(summary["moves"]) > 0 and float(summary["floor_calls_per_s"]) > 0  # type: ignore[call-overload, arg-type]


@pytest.mark.parametrize(("taken", "what"), [(0, "Redis"), (1, "replica 1")])
def test_a_base_port_in_use_is_refused_in_one_line(taken: int, what: str) -> None:
    base = _free_run(3)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as other_service:
        other_service.bind(("127.0.0.1", base + taken))
        other_service.listen()
        done = subprocess.run([*CLI, *TINY, "--base-port", str(base)], capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip() == f"hustings: port {base + taken} for {what} is in use: choose another --base-port"
    # Nothing of ours is left listening on the ports it did take.
    assert all(port_is_free(base + i) for i in range(3))


def test_watcher_phase_at_a_steady_rate_reports_every_delivery() -> None:
    streams, games, rate, seconds = 60, 6, 30, 1
    done = subprocess.run(
        [*CLI, "--replicas", "1", "--seconds", "0", "--watchers", str(streams), "--watch-games", str(games),
         "--watch-moves-per-s", str(rate), "--watch-seconds", str(seconds), "--watch-processes", "2"],
        capture_output=True,
        timeout=RUN_TIMEOUT_S,
    )
    summary = _summary(done)
    assert summary["watch_streams"] == streams and summary["watch_streams_held"] == streams
    assert summary["watch_updates_missed"] == 0 and summary["errors"] == 0
    # Every held stream saw every move of its game: streams x moves per game.
    assert summary["watch_updates_delivered"] == streams * (rate * seconds // games)
    assert float(summary["watch_delivery_max_ms"]) >= float(summary["watch_delivery_p99_ms"]) >= float(summary["watch_delivery_p50_ms"]) > 0  # type: ignore[arg-type]
    assert float(summary["watch_moves_per_s"]) > 0  # type: ignore[arg-type]
    assert summary["watch_replica_rss_kib_per_stream"] is not None
    # The commit observer saw every announcement, and a commit comes after its move was sent, so
    # from the commit the delay is no longer than from the send, step by step.
    assert summary["watch_commits_unobserved"] == 0
    assert float(summary["watch_send_to_commit_p99_ms"]) > 0  # type: ignore[arg-type]
    assert float(summary["watch_delivery_max_ms"]) >= float(summary["watch_commit_to_delivery_max_ms"])  # type: ignore[arg-type]
    assert float(summary["watch_delivery_p99_ms"]) >= float(summary["watch_commit_to_delivery_p99_ms"])  # type: ignore[arg-type]
    assert float(summary["watch_commit_to_delivery_max_ms"]) >= float(summary["watch_commit_to_delivery_p50_ms"])  # type: ignore[arg-type]
    assert summary["moves"] == 0  # --seconds 0 skipped the floor and move phases


def test_bad_watcher_plan_is_refused_in_one_line() -> None:
    done = subprocess.run([*CLI, "--watch-processes", "0"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "processes >= 1" in done.stderr and "Traceback" not in done.stderr
