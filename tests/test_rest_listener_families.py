"""The REST face's listening sockets, one per address its host names (GatedSite, as asyncio's
create_server): an IPv6 one is IPv6-only (IPV6_V6ONLY), so that `--http-address [::]:PORT` is
answered on ::1 and not on 127.0.0.1, and leaves the IPv4 port to others; and a family the kernel
refuses sockets of is skipped. `hustings serve` runs as a child process on loopback; a kernel
without IPv6 sockets is made for the child alone by a seccomp filter that answers socket(AF_INET6)
with EAFNOSUPPORT, as such a kernel does, and a host name with both families by a hosts file of
its own (a private mount namespace: `unshare`)."""

from __future__ import annotations

import contextlib
import http.client
import json
import pathlib
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from typing import Iterator

import pytest

from conftest import free_ports, stop_process
from hustings.service.embedded_redis import EmbeddedRedis

# Run in the child before hustings: socket(AF_INET6, ...) fails EAFNOSUPPORT from then on (x86-64
# and arm64 system call numbers; another machine is let through unfiltered, and the test skips).
REFUSE_IPV6_SOCKETS = """
import ctypes, errno, os, platform, socket, struct
SOCKET_CALL = {"x86_64": (0xC000003E, 41), "aarch64": (0xC00000B7, 198)}[platform.machine()]
def op(code, k, jt=0, jf=0):
    return struct.pack("HBBI", code, jt, jf, k)
LOAD, JUMP_IF_EQUAL, RETURN = 0x20, 0x15, 0x06
ALLOW, FAIL = 0x7FFF0000, 0x00050000 | errno.EAFNOSUPPORT
program = b"".join([
    op(LOAD, 4), op(JUMP_IF_EQUAL, SOCKET_CALL[0], 1, 0), op(RETURN, ALLOW),  # the architecture
    op(LOAD, 0), op(JUMP_IF_EQUAL, SOCKET_CALL[1], 0, 3),  # the system call
    op(LOAD, 16), op(JUMP_IF_EQUAL, socket.AF_INET6, 0, 1), op(RETURN, FAIL),  # its first argument
    op(RETURN, ALLOW),
])
class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
code = ctypes.create_string_buffer(program)
fprog = SockFprog(len(program) // 8, ctypes.addressof(code))
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
if libc.prctl(38, 1, None, 0, 0) or libc.prctl(22, 2, ctypes.byref(fprog), 0, 0):  # NO_NEW_PRIVS; SECCOMP FILTER
    raise SystemExit(f"no seccomp filter: {os.strerror(ctypes.get_errno())}")
try:
    socket.socket(socket.AF_INET6, socket.SOCK_STREAM).close()
    raise SystemExit("no seccomp filter: an IPv6 socket was made")
except OSError as error:
    assert error.errno == errno.EAFNOSUPPORT, error
"""
RUN_HUSTINGS = "import sys; from hustings.cli import main; sys.exit(main(sys.argv[1:]))"
UNSHARED_HOSTS = 'mount --bind "$0" /etc/hosts && exec "$@"'  # run by sh in a mount namespace of its own
START_S = 30.0


def _port_free_on_both_families() -> int:
    """A TCP port free on 127.0.0.1 and on ::1 right now."""
    for port in free_ports(20):
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
            try:
                probe.bind(("::1", port))
            except OSError:
                continue
            return port
    raise AssertionError("no port of 20 was free on ::1 too")


def _answers(host: str, port: int) -> dict[str, object]:
    """GET /v1/kinds from the REST face at host:port."""
    connection = http.client.HTTPConnection(host, port, timeout=10)
    try:
        connection.request("GET", "/v1/kinds")
        answer = connection.getresponse()
        assert answer.status == 200, (answer.status, answer.read()[:300])
        return json.loads(answer.read())  # type: ignore[no-any-return]
    finally:
        connection.close()


def _refused(host: str, port: int) -> bool:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.settimeout(5)
        return sock.connect_ex((host, port)) != 0


@contextlib.contextmanager
def _serving(
    redis_url: str, http_address: str, *, refuse_ipv6: bool = False, hosts: pathlib.Path | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """`hustings serve` with its REST face on ``http_address`` (gRPC on 127.0.0.1), its IPv6
    sockets refused by the kernel if ``refuse_ipv6``, and ``hosts`` for /etc/hosts if given.
    Its stderr is in ``process.log_text`` once it ended."""
    (grpc_port,) = free_ports(1)
    command = [sys.executable, "-c", (REFUSE_IPV6_SOCKETS if refuse_ipv6 else "") + RUN_HUSTINGS]
    command += ["serve", "--redis-url", redis_url, "--address", f"127.0.0.1:{grpc_port}", "--http-address", http_address]
    if hosts is not None:
        command = ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", UNSHARED_HOSTS, str(hosts), *command]
    with tempfile.TemporaryFile() as log_file:
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log_file)
        process.log_file = log_file  # type: ignore[attr-defined]
        try:
            yield process
        finally:
            stop_process(process)
            log_file.seek(0)
            process.log_text = log_file.read().decode(errors="replace")  # type: ignore[attr-defined]


def _wait_until_answered(process: subprocess.Popen[bytes], host: str, port: int) -> None:
    """Bounded: START_S for the replica to start and its REST face to answer at host:port."""
    deadline = time.monotonic() + START_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            process.log_file.seek(0)  # type: ignore[attr-defined]
            said = process.log_file.read().decode(errors="replace")[-2000:]  # type: ignore[attr-defined]
            raise AssertionError(f"hustings serve ended with {process.returncode}:\n{said}")
        if not _refused(host, port):
            return
        time.sleep(0.05)
    raise AssertionError(f"the REST face did not answer at {host}:{port} in {START_S} s")


def _skip_unless_seccomp_works() -> None:
    checked = subprocess.run([sys.executable, "-c", REFUSE_IPV6_SOCKETS], capture_output=True, text=True, timeout=30)
    if checked.returncode != 0:
        pytest.skip(f"this kernel takes no seccomp filter from a process: {checked.stderr.strip()[-300:]}")


def test_an_ipv6_any_address_is_answered_on_ipv6_loopback_only(redis_server: EmbeddedRedis) -> None:
    port = _port_free_on_both_families()
    # 127.0.0.1:port is held by another socket all along: an IPv6 listener that took IPv4 too
    # (IPV6_V6ONLY off, Linux's default) could not bind, and nothing else answers there.
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as ipv4_holder:
        ipv4_holder.bind(("127.0.0.1", port))
        with _serving(redis_server.url, f"[::]:{port}") as process:
            _wait_until_answered(process, "::1", port)
            assert "kinds" in _answers("::1", port)
            assert _refused("127.0.0.1", port)


def test_a_family_the_kernel_refuses_sockets_of_is_skipped(redis_server: EmbeddedRedis, tmp_path: pathlib.Path) -> None:
    _skip_unless_seccomp_works()
    if shutil.which("unshare") is None:
        pytest.skip("no unshare(1) to give hustings a hosts file of its own")
    probe = subprocess.run(["unshare", "--user", "--map-root-user", "--mount", "true"], capture_output=True, text=True, timeout=30)
    if probe.returncode != 0:
        pytest.skip(f"no mount namespace of its own for a process here: {probe.stderr.strip()[-300:]}")
    hosts = tmp_path / "hosts"
    hosts.write_text("::1 localhost\n127.0.0.1 localhost\n", encoding="utf-8")  # IPv6 first
    port = _port_free_on_both_families()

    with _serving(redis_server.url, f"localhost:{port}", hosts=hosts) as process:  # both families
        _wait_until_answered(process, "127.0.0.1", port)
        assert "kinds" in _answers("127.0.0.1", port) and "kinds" in _answers("::1", port)
    with _serving(redis_server.url, f"localhost:{port}", refuse_ipv6=True, hosts=hosts) as process:
        _wait_until_answered(process, "127.0.0.1", port)
        assert "kinds" in _answers("127.0.0.1", port)
        assert _refused("::1", port)


def test_a_host_whose_only_family_the_kernel_refuses_is_a_startup_error(redis_server: EmbeddedRedis) -> None:
    _skip_unless_seccomp_works()
    port = _port_free_on_both_families()
    with _serving(redis_server.url, f"[::]:{port}", refuse_ipv6=True) as process:
        try:
            process.wait(timeout=START_S)
        except subprocess.TimeoutExpired:
            pytest.fail(f"hustings serve went on without a socket to listen on (still running after {START_S} s)")
    assert process.returncode == 1
    assert f"cannot listen for REST/JSON on '[::]:{port}': no socket could be made to listen on ::" in process.log_text  # type: ignore[attr-defined]
    assert "Traceback" not in process.log_text  # type: ignore[attr-defined]
