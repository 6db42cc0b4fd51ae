"""The ``hustings`` command as a user types it, with values it cannot use and signals in the
middle: a one-line message naming the flag and status 2, no Python traceback, a prompt
exit on Ctrl-C, SIGTERM or SIGHUP, no process of its own left running (an embedded Redis, loadtest's
replicas), and memory that does not grow with the games asked for."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import threading
import sys
import time
from typing import Iterator

import pytest

CLI = [sys.executable, "-m", "hustings.cli"]
STOP_WITHIN_S = 10  # how long Ctrl-C may take to stop the arena


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@contextlib.contextmanager
def _ctrl_c_passed_on() -> Iterator[None]:
    """Children started meanwhile take Ctrl-C as from a terminal. A process that ignores SIGINT
    (a shell's background job, a CI runner, and the test run under it) passes that on across
    exec, and Python then raises no KeyboardInterrupt at all: the arena's Ctrl-C test failed so
    in every fresh-clone run started in the background, never from a terminal."""
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def _command(*argv: str) -> Iterator[subprocess.Popen[bytes]]:
    """``hustings argv`` in a process group of its own, which is killed whole afterwards (with
    any child the command left behind, which is remembered before the command exits)."""
    with _ctrl_c_passed_on():
        process = subprocess.Popen([*CLI, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate(timeout=10)


def _one_line_refusal(done: subprocess.CompletedProcess[str], flag: str) -> None:
    assert "Traceback" not in done.stderr, done.stderr[-1500:]
    assert done.returncode == 2, (done.returncode, done.stdout[-500:])  # README: "with status 2"
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and flag in lines[0], lines[-5:]


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["--games", "0"], "--games"),
        (["--bots", "nope,random,random,random"], "--bots"),
        (["--kind", "stimmvieh", "--players", "3"], "--bots"),  # the default --bots names four
    ],
)
def test_arena_refuses_flags_it_cannot_use_in_one_line(argv: list[str], flag: str) -> None:
    done = subprocess.run([*CLI, "arena", "--iterations", "2", *argv], capture_output=True, text=True, timeout=60)
    _one_line_refusal(done, flag)


def test_arena_stops_at_the_first_ctrl_c() -> None:
    with _command("arena", "--kind", "stimmvieh", "--bots", "random,random,random,random", "--games", "100000", "--progress") as process:
        assert process.stdout is not None
        first = process.stdout.readline()  # a game done: the arena is playing
        assert first, process.stderr.read().decode()[-1500:] if process.stderr else ""
        # Its progress lines read on, as a terminal reads them: a full pipe would hold its exit
        # (the last flush of its output) however promptly it stopped playing.
        drain = threading.Thread(target=process.stdout.read, daemon=True)
        drain.start()
        process.send_signal(signal.SIGINT)
        try:
            # It stops within a fraction of a second; the bound leaves a loaded machine room (it
            # ignored the first Ctrl-C for good before).
            status = process.wait(timeout=STOP_WITHIN_S)
        except subprocess.TimeoutExpired:
            status = None
        assert status == 130, f"still playing {STOP_WITHIN_S} s after Ctrl-C" if status is None else status


@pytest.mark.parametrize("concurrency", ["0", "-1"])
def test_bots_refuses_a_concurrency_below_one(concurrency: str) -> None:
    # No server is reached: a nonsense count is refused before anything starts.
    with _command("bots", "--games", "1", "--server", "127.0.0.1:1", "--concurrency", concurrency) as process:
        try:
            out, err = process.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            pytest.fail(f"bots --concurrency {concurrency} still running after 5 s")
        _one_line_refusal(subprocess.CompletedProcess(process.args, process.returncode, out.decode(), err.decode()), "--concurrency")


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["--replicas", "0", "--seconds", "0.1"], "--replicas"),  # IndexError: choice from no replica
        (["--replicas", "1", "--clients", "0", "--seconds", "0.1"], "--clients"),  # ZeroDivisionError
        (["--replicas", "1", "--base-port", "70000", "--seconds", "0"], "--base-port"),  # OverflowError from bind
    ],
)
def test_loadtest_refuses_counts_and_ports_it_cannot_use_in_one_line(argv: list[str], flag: str) -> None:
    done = subprocess.run([*CLI, "loadtest", "--watchers", "0", *argv], capture_output=True, text=True, timeout=60)
    _one_line_refusal(done, flag)


@pytest.mark.parametrize(
    ("argv", "flag"),
    [
        (["bots", "--games", "0", "--server", "127.0.0.1:1"], "--games"),
        (["loadtest", "--watchers", "0", "--seconds", "-1"], "--seconds"),
        (["loadtest", "--watchers", "0", "--seconds", "nan"], "--seconds"),
        (["loadtest", "--watchers", "0", "--replicas", "3", "--base-port", "65533", "--seconds", "0"], "--base-port"),
        (["clockbench", "--clients", "0"], "--clients"),
        (["clockbench", "--seconds", "nan"], "--seconds"),
        (["clockbench", "--due-games", "0"], "--due-games"),
        (["arena", "--iterations", "0"], "--iterations"),
        (["arena", "--seconds", "0"], "--seconds"),
        (["arena", "--kind", "stimmvieh", "--players", "9", "--bots", "random"], "--players"),
        # A player count the kind is not played by: bots played its games and counted an error
        # each, play refused with the server's reason, which named no flag.
        (["bots", "--players", "9", "--server", "127.0.0.1:1"], "--players"),
        (["play", "--kind", "wahlspiel", "--players", "1", "--server", "127.0.0.1:1"], "--players"),
        (["loadtest", "--kind", "spin_doctors", "--players", "6", "--watchers", "0", "--seconds", "0"], "--players"),
        # Refused before its embedded Redis starts (it started, and then serve exited 1 naming no flag).
        (["serve", "--address", "127.0.0.1:99999"], "--address"),
        (["serve", "--http-address", "nonsense"], "--http-address"),
    ],
)
def test_counts_and_lengths_that_make_no_run_are_refused_in_one_line(argv: list[str], flag: str) -> None:
    # Refused before anything starts: --games 0 played nothing and said so with status 0, a
    # negative or NaN --seconds skipped the phases, a replica past port 65,535 failed in bind.
    done = subprocess.run([*CLI, *argv], capture_output=True, text=True, timeout=60)
    _one_line_refusal(done, flag)


def _descendants(pid: int) -> list[int]:
    """The processes below ``pid``, children first."""
    found, queue = [], [pid]
    while queue and len(found) < 100:
        children = _children(queue.pop(0))
        found += children
        queue += children
    return found


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline") as cmdline:
            return cmdline.read().replace("\0", " ")
    except OSError:
        return ""


def _started(process: subprocess.Popen[bytes], wanted: tuple[str, ...]) -> list[int]:
    """Once a descendant of ``process`` runs each of ``wanted`` (words of its command line), and
    a moment more: all of its descendants."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and process.poll() is None:
        below = _descendants(process.pid)
        if all(any(word in _cmdline(pid) for pid in below) for word in wanted):
            time.sleep(0.5)  # at work
            return _descendants(process.pid)
        time.sleep(0.1)
    pytest.fail(f"{wanted} did not start: {process.stderr.read().decode()[-1500:] if process.stderr and process.poll() is not None else ''}")


def _all_gone(pids: list[int], seconds: float = 10.0) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(_alive(pid) for pid in pids):
        time.sleep(0.1)
    return [pid for pid in pids if _alive(pid)]


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=["sigterm", "ctrl_c", "sighup"])
@pytest.mark.parametrize(
    ("argv", "wanted"),
    [
        (["loadtest", "--replicas", "1", "--clients", "2", "--seconds", "60", "--watchers", "0"], ("redis-server", "--benchmark-floor")),
        (["clockbench", "--clients", "2", "--seconds", "60", "--due-games", "10"], ("redis-server",)),
        (["bots", "--games", "100000", "--concurrency", "2"], ("redis-server",)),
    ],
    ids=["loadtest", "clockbench", "bots"],
)
def test_a_signal_ends_the_command_through_its_cleanup(argv: list[str], wanted: tuple[str, ...], stop: signal.Signals) -> None:
    # loadtest's replicas and Redis, clockbench's and bots' Redis: stopped on SIGTERM (status
    # 128 + 15) and on Ctrl-C (SIGINT, status 130) alike, as the README says.
    with _command(*argv) as process:
        below = _started(process, wanted)
        process.send_signal(stop)
        status = process.wait(timeout=30)
        left = _all_gone(below)
        assert not left, f"{[_cmdline(pid)[:80] for pid in left]} outlived `hustings {argv[0]}` after {stop.name}"
        assert status == {signal.SIGTERM: 143, signal.SIGINT: 130, signal.SIGHUP: 129}[stop], (
            status, process.stderr.read().decode()[-1500:] if process.stderr else ""
        )


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGHUP], ids=["sigterm", "sighup"])
@pytest.mark.parametrize(
    "command",
    # The bot's game is one of greedy server-side bots: long enough to be under way when signalled.
    [[*CLI, "play", "--players", "3"], [sys.executable, "-m", "hustings.ai.example_bot", "--kind", "spin_doctors", "--bot-level", "greedy"]],
    ids=["play", "example_bot"],
)
def test_a_closed_terminal_or_sigterm_stops_play_and_the_example_bot_with_their_embedded_redis(
    command: list[str], stop: signal.Signals
) -> None:
    """`hustings play` and the example bot without --server start an embedded server; a closed
    terminal (SIGHUP) or SIGTERM left its Redis running and its folder behind. Now they stop
    it as on Ctrl-C, with status 128 + the signal's number."""
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        below = _started(process, ("redis-server",))
        assert process.poll() is None, "it ended before the signal"
        process.send_signal(stop)
        status = process.wait(timeout=30)
        left = _all_gone(below)
        assert not left, f"{[_cmdline(pid)[:80] for pid in left]} outlived `{' '.join(command[1:4])}` after {stop.name}"
        assert status == 128 + stop, (status, process.stderr.read().decode()[-1500:] if process.stderr else "")
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate(timeout=10)


def _silent_port() -> tuple[socket.socket, int]:
    """A listening port that accepts connections and never answers."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(64)
    return listener, listener.getsockname()[1]


def _rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024
    except (OSError, StopIteration):
        return 0.0


@pytest.mark.slow
def test_bots_memory_does_not_grow_with_the_games_asked_for() -> None:
    # 200,000 games asked of a server that never answers: a handful are in play at once
    # (--concurrency 8), so the memory is that of a handful, not of 200,000 waiting games.
    listener, port = _silent_port()
    with listener, _command("bots", "--games", "200000", "--server", f"127.0.0.1:{port}") as process:
        peak = 0.0
        deadline = time.monotonic() + 4
        while time.monotonic() < deadline and process.poll() is None:
            peak = max(peak, _rss_mb(process.pid))
            time.sleep(0.1)
        assert peak > 0, "bots exited at once"
        assert peak < 150, f"bots --games 200000 took {peak:.0f} MB before playing a game (10 games: about 70 MB)"


def test_bots_against_no_server_say_where_nothing_answered() -> None:
    """`hustings bots --server` where nothing listens: its summary counts UNAVAILABLE, and one
    line on stderr names the address (it said nothing but the summary's error count)."""
    listener, port = _silent_port()
    listener.close()  # nothing listens there now
    done = subprocess.run([*CLI, "bots", "--games", "1", "--server", f"127.0.0.1:{port}"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and json.loads(done.stdout)["error_reasons"] == {"UNAVAILABLE": 1}, done.stdout
    assert done.stderr.strip() == f"hustings bots: no server answered at 127.0.0.1:{port} (UNAVAILABLE); is `hustings serve` running there?"
