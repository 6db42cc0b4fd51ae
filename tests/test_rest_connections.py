"""The REST face's connections, end to end over loopback against a real replica and Redis: a slow
body counts among its client's bodies arriving (not its calls) and is refused at its deadline; idle connections and
headers sent a byte at a time are closed at the keep-alive timeout; past its connection cap an
address is closed at once while another is served; an event stream whose client does not read
ends at the write deadline; a malformed request gets a fixed JSON status; the Server header
names no versions; a transfer coding other than chunked is refused.

The clients that misbehave are raw sockets (no HTTP client would send what they send). The caps
and times are small so that each test takes seconds; every wait is bounded."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import pathlib
import resource
import socket
import time
from typing import Any, Callable, Iterator

import pytest

from conftest import REPO, serve_process
from rest_helpers import LiveRest, request_id, wait_for
from hustings.bots import run_bots
from hustings.service.embedded_redis import EmbeddedRedis, free_port, wait_for_port
from hustings.service.rest_connections import BodyArrivals, HttpSettings
from hustings.v1 import game_pb2, stimmvieh_pb2

SETTINGS = HttpSettings(
    max_connections=40,
    max_connections_per_address=6,
    keep_alive_s=1.0,
    body_deadline_s=1.0,
    event_write_deadline_s=1.0,
)
CALLS_PER_CLIENT = 2
HERE = "127.0.0.1"  # the address the tests call from
ELSEWHERE = "127.0.0.2"  # another client address, on loopback too
CAPPED = "127.0.0.3"  # an address that only the connection cap's tests use, so nothing else counts
WAIT_S = 10.0  # the longest any step waits
POLL_S = 0.05


@pytest.fixture(scope="module")
def live(redis_server: EmbeddedRedis) -> Iterator[LiveRest]:
    server = LiveRest(redis_server.url)
    server.config = dataclasses.replace(server.config, http=SETTINGS)
    with server:
        yield server


def _connect(live: LiveRest, source: str = HERE, receive_buffer: int = 0) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.bind((source, 0))
    sock.settimeout(WAIT_S)
    sock.connect(("127.0.0.1", live.replica.http_port if live.replica else 0))
    return sock


def _answer(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """(status, headers in lower case, body) of one answer with a Content-Length."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"closed before an answer: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        assert chunk, "closed within the body"
        body += chunk
    return int(lines[0].split(" ")[1]), headers, body


def _reason(body: bytes) -> str:
    (info,) = json.loads(body)["details"]
    reason: str = info["reason"]
    return reason


def _closed(sock: socket.socket) -> bool:
    """Whether the server closed the connection (EOF or a reset) within WAIT_S; what it sent
    before is read and dropped."""
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        try:
            if not sock.recv(65536):
                return True
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False
    return False


def _wait_for(condition: Callable[[], bool]) -> bool:
    return wait_for(condition, WAIT_S, POLL_S)


def _get(live: LiveRest, path: str, source: str = HERE) -> tuple[int, dict[str, str], bytes]:
    with _connect(live, source) as sock:
        sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        return _answer(sock)


SLOW_CREATE = b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"


def _calls_in_flight(live: LiveRest) -> int:
    assert live.replica is not None
    return live.replica.limits.calls.in_flight


def _arriving(live: LiveRest) -> BodyArrivals:
    assert live.replica is not None
    arrivals = live.replica._parts["rest"].arrivals
    assert arrivals is not None
    return arrivals


def test_a_slow_body_is_refused_at_its_deadline_and_frees_its_place(live: LiveRest) -> None:
    with _connect(live) as sock:
        sock.sendall(SLOW_CREATE)  # one byte of a body of 100, then nothing
        assert _wait_for(lambda: _arriving(live).held.total == 1)  # counted while its body is awaited
        assert _calls_in_flight(live) == 0  # and not as a call in flight
        status, headers, body = _answer(sock)
        assert (status, _reason(body)) == (408, "BODY_TIMEOUT")
        assert json.loads(body)["code"] == 4  # DEADLINE_EXCEEDED
        assert headers.get("connection") == "close"
        assert _closed(sock)
    assert _wait_for(lambda: _arriving(live).held.total == 0)


def test_slow_bodies_count_against_their_clients_bodies_arriving_not_its_calls(live: LiveRest) -> None:
    arrivals = _arriving(live)
    usual, arrivals.max_per_client = arrivals.max_per_client, CALLS_PER_CLIENT  # for this test only
    slow = [_connect(live) for _ in range(CALLS_PER_CLIENT)]
    try:
        for sock in slow:
            sock.sendall(SLOW_CREATE)
        assert _wait_for(lambda: arrivals.held.get(HERE) == CALLS_PER_CLIENT)
        with _connect(live) as one_more:
            one_more.sendall(SLOW_CREATE)
            status, _headers, body = _answer(one_more)
        assert (status, _reason(body)) == (429, "TOO_MANY_CALLS_FOR_CLIENT")
        assert _get(live, "/v1/kinds")[0] == 200  # the client's calls are not held up by its bodies
        assert _calls_in_flight(live) == 0
        for sock in slow:
            assert _answer(sock)[0] == 408
        assert _wait_for(lambda: arrivals.held.total == 0)
    finally:
        arrivals.max_per_client = usual
        for sock in slow:
            sock.close()


def test_an_idle_connection_is_closed_after_the_keep_alive_timeout(live: LiveRest) -> None:
    with _connect(live) as sock:
        sock.sendall(b"GET /v1/kinds HTTP/1.1\r\nHost: x\r\n\r\n")
        assert _answer(sock)[0] == 200
        started = time.monotonic()
        assert _closed(sock)  # nothing more sent: closed once it has idled for the timeout
        assert time.monotonic() - started >= SETTINGS.keep_alive_s * 0.9


def test_headers_sent_a_byte_at_a_time_are_cut_off_at_the_keep_alive_timeout(live: LiveRest) -> None:
    head = b"GET /v1/kinds HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200
    with _connect(live) as sock:
        sent = 0
        deadline = time.monotonic() + WAIT_S
        try:
            while sent < len(head) and time.monotonic() < deadline:
                sock.sendall(head[sent : sent + 1])
                sent += 1
                time.sleep(0.1)
        except (BrokenPipeError, ConnectionResetError):
            pass
        assert sent < len(head), "the replica waited for every byte"
        assert _closed(sock)


def _open_stream(live: LiveRest, game_id: str, source: str = HERE, receive_buffer: int = 0) -> socket.socket:
    sock = _connect(live, source, receive_buffer)
    sock.sendall(f"GET /v1/games/{game_id}:watch?fromVersion=0 HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    return sock


def _streams_open(live: LiveRest) -> int:
    assert live.replica is not None
    return live.replica.host.watchers.limits.open


def _tcp_state(sock: socket.socket) -> int:
    """The kernel's state of a TCP connection (Linux ``tcp_info.tcpi_state``): read without
    reading the connection's data."""
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]


TCP_ESTABLISHED = 1


def test_past_its_connection_cap_an_address_is_closed_at_once_and_another_is_served(live: LiveRest) -> None:
    game_id, _joined = live.new_game(players=3)
    # Event streams hold their connections (the keep-alive timeout is for idle ones).
    held = [_open_stream(live, game_id, CAPPED) for _ in range(SETTINGS.max_connections_per_address)]
    try:
        assert _wait_for(lambda: _streams_open(live) == len(held))
        try:
            extra = _connect(live, CAPPED)
        except ConnectionResetError:
            pass  # closed so soon that connect() itself saw the reset (a loaded machine)
        else:
            with extra:
                try:
                    extra.sendall(b"GET /v1/kinds HTTP/1.1\r\nHost: x\r\n\r\n")
                except (BrokenPipeError, ConnectionResetError):
                    pass
                assert _closed(extra)
        assert _get(live, "/v1/kinds", ELSEWHERE)[0] == 200
    finally:
        for sock in held:
            sock.close()
    assert _wait_for(lambda: _served(live, CAPPED))  # the address's connections were given back


def _served(live: LiveRest, source: str) -> bool:
    try:
        return _get(live, "/v1/kinds", source)[0] == 200
    except (AssertionError, ConnectionResetError):
        return False


def _read_all(sock: socket.socket) -> bytes:
    """What the connection delivers until it closes (or WAIT_S passes)."""
    received = b""
    deadline = time.monotonic() + WAIT_S
    try:
        while b"event: end" not in received and time.monotonic() < deadline:
            chunk = sock.recv(65536)
            if not chunk:
                break
            received += chunk
    except ConnectionResetError:
        pass
    return received


def test_an_event_stream_whose_client_does_not_read_ends_after_the_write_deadline(live: LiveRest) -> None:
    assert live.replica is not None
    # A finished Stimmvieh game of nine campaigns: its stream from version 0 is one event of
    # some 220 KB, more than the buffers of a connection whose client reads nothing take.
    options = game_pb2.GameOptions(players=4, stimmvieh=stimmvieh_pb2.StimmviehOptions(campaigns=9))
    bots = run_bots(f"127.0.0.1:{live.replica.port}", "stimmvieh", 1, 4, seed=5, options=options)
    summary = asyncio.run(asyncio.wait_for(bots, 60))
    (game_id,) = summary["sample_game_ids"]  # type: ignore[misc]
    with _open_stream(live, game_id, receive_buffer=4096) as sock:
        # Not a byte read: the event's write stalls, and past its deadline the replica ends the
        # stream and drops the connection (seen in the kernel's state, without reading).
        assert _wait_for(lambda: _tcp_state(sock) != TCP_ESTABLISHED)
        assert b"event: end" not in _read_all(sock)  # cut off, not played to its end
    # The same stream read as it comes is whole.
    with _open_stream(live, game_id) as reader:
        assert b"event: end" in _read_all(reader)


SECRET = b"Qm7-secret-seat-token-3x"


@pytest.mark.parametrize(
    "raw",
    [
        b"GET /v1/kinds HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + SECRET + b"\x01\r\n\r\n",
        b"GET /v1/kinds HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + SECRET + b"\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        b"GET /v1/kinds?" + SECRET + b" HTTP/1.1\nHost: x\n\n",
    ],
    ids=["bad header byte", "two lengths", "bare line feeds"],
)
def test_a_malformed_request_gets_a_fixed_json_status_that_echoes_nothing(live: LiveRest, raw: bytes) -> None:
    with _connect(live) as sock:
        sock.sendall(raw)
        status, headers, body = _answer(sock)
    assert status == 400
    assert headers["content-type"].startswith("application/json")
    assert json.loads(body)["code"] == 3 and _reason(body) == "MALFORMED_HTTP_REQUEST"
    assert SECRET not in body and b"Bearer" not in body
    assert headers["server"] == "hustings"


def test_the_server_header_names_no_versions(live: LiveRest) -> None:
    for path in ("/v1/kinds", "/v1/nowhere", "/play"):
        status, headers, _body = _get(live, path)
        assert status in (200, 404), path
        assert headers["server"] == "hustings", path


def _chunked_create(coding: str, body: dict[str, Any]) -> bytes:
    data = json.dumps(body).encode()
    return (
        f"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: {coding}\r\n\r\n".encode()
        + f"{len(data):x}\r\n".encode() + data + b"\r\n0\r\n\r\n"
    )


def test_a_transfer_coding_other_than_chunked_is_refused_and_changes_nothing(live: LiveRest) -> None:
    rid = request_id()
    with _connect(live) as sock:
        sock.sendall(_chunked_create("gzip, chunked", {"kind": "stimmvieh", "options": {"players": 3}, "requestId": rid}))
        status, _headers, body = _answer(sock)
    assert (status, _reason(body)) == (400, "UNSUPPORTED_TRANSFER_ENCODING")
    # Had the refused body been applied, this request id would name a 3-seat game, and a
    # 4-seat request under it would be REQUEST_ID_REUSED.
    four = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 4}, "requestId": rid})
    assert len(four["view"]["seats"]) == 4
    with _connect(live) as sock:  # plain chunked is read as ever
        sock.sendall(_chunked_create("chunked", {"kind": "stimmvieh", "options": {"players": 3}}))
        assert _answer(sock)[0] == 200
    # A list that does not end in chunked leaves no way to find the body's end: the HTTP parser
    # refuses it before any route (README: "else 400 MALFORMED_HTTP_REQUEST").
    for coding in ("gzip", "chunked, gzip"):
        rid = request_id()
        with _connect(live) as sock:
            sock.sendall(_chunked_create(coding, {"kind": "stimmvieh", "options": {"players": 3}, "requestId": rid}))
            status, _headers, body = _answer(sock)
        assert (status, _reason(body)) == (400, "MALFORMED_HTTP_REQUEST"), coding
        assert len(live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 4}, "requestId": rid})["view"]["seats"]) == 4


def test_serve_flags_settings_and_readme_agree_on_the_connection_caps() -> None:
    """README Limits: `--max-http-connections` (10,000) and `--max-http-connections-per-address`
    (2,500), as `hustings serve` and HttpSettings have them; 0 is a usage error."""
    from hustings.cli import _parser

    readme = (REPO / "README.md").read_text()
    assert "`--max-http-connections` (10,000)" in readme
    assert "`--max-http-connections-per-address` (2,500)" in readme
    args = _parser().parse_args(["serve"])
    defaults = HttpSettings()
    assert (args.max_http_connections, args.max_http_connections_per_address) == (10_000, 2_500)
    assert (defaults.max_connections, defaults.max_connections_per_address) == (10_000, 2_500)
    for flag in ("--max-http-connections", "--max-http-connections-per-address"):
        with pytest.raises(SystemExit):
            _parser().parse_args(["serve", flag, "0"])


def _proc_open_files(pid: int) -> tuple[int, int]:
    """(soft, hard) open-files limits of process ``pid``, from /proc."""
    for line in pathlib.Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max open files"):
            soft, hard = line.split()[3:5]
            return int(soft), int(hard)
    raise AssertionError("no open-files line")


def test_serve_raises_its_open_files_limit_and_applies_the_per_address_cap(redis_server: EmbeddedRedis) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    lowered = min(soft, 1024)
    http_port = free_port()
    args = ("--redis-url", redis_server.url, "--http-address", f"127.0.0.1:{http_port}", "--max-http-connections-per-address", "2")
    resource.setrlimit(resource.RLIMIT_NOFILE, (lowered, hard))  # the child inherits it
    try:
        server = serve_process(*args)
        process, _grpc_port = server.__enter__()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    try:
        wait_for_port(http_port)
        assert _proc_open_files(process.pid) == (hard, hard)
        address = ("127.0.0.1", http_port)
        held = [socket.create_connection(address, timeout=WAIT_S, source_address=(CAPPED, 0)) for _ in range(2)]
        try:
            for sock in held:  # each is answered, and stays open (keep-alive)
                sock.sendall(b"GET /v1/kinds HTTP/1.1\r\nHost: x\r\n\r\n")
                assert _answer(sock)[0] == 200
            with socket.create_connection(address, timeout=WAIT_S, source_address=(CAPPED, 0)) as extra:
                assert _closed(extra)
            with socket.create_connection(address, timeout=WAIT_S, source_address=(ELSEWHERE, 0)) as other:
                other.sendall(b"GET /v1/kinds HTTP/1.1\r\nHost: x\r\n\r\n")
                assert _answer(other)[0] == 200
        finally:
            for sock in held:
                sock.close()
    finally:
        server.__exit__(None, None, None)
    serving = [json.loads(line) for line in process.log_text.splitlines() if '"serving"' in line]  # type: ignore[attr-defined]
    assert serving and serving[0]["open_files_limit"] == hard
