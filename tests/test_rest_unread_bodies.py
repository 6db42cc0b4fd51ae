"""Request bodies that cost the replica their chunks rather than their bytes, and long ones.

aiohttp parses a chunked body a chunk at a time, a call of the event loop each (about 0.8 us), and
read the rest of a body a route never reads (a GET's, a refused call's) for up to ``LINGER_S``
after answering: one connection sending 600 kB bodies of one-byte chunks to GET routes, /readyz
among them, took a whole core and made another client's GetView 120 times slower (1.4 -> 165 ms).
Now a body on a GET or HEAD is refused 400 ``BODY_NOT_ALLOWED``, a chunked body past
``MAX_BODY_CHUNKS`` chunks 400 ``TOO_MANY_CHUNKS``, each with its connection closed and nothing
more of it read, and the address counts as flooding for a refill of its call rate (its new
connections are closed at once); a chunked body answered before it all came is not read on
either. A long body counts as more calls, as a long answer does: decoding and checking 60 kB
took 3.5-4.3 ms, so one address sending such bodies at its rate took a whole core. And /readyz,
free of the call rate, has a rate of its own: 100 connections pipelining it had 10,000 answers a
second. Each test plays the client against a real replica (real Redis, real HTTP on loopback)
with a call rate.
"""

from __future__ import annotations

import dataclasses
import json
import socket
import time
from typing import Iterator

import pytest

from hustings.service.rest import MAX_BODY_CHUNKS, READY_BURST, READY_PER_SECOND, UNREAD_BODY_CALLS
from rest_helpers import LiveRest
from test_rest_connections import _answer, _closed, _reason

WAIT_S = 10.0  # the longest any read waits
PER_SECOND = 0.1  # the replica's call rate per address: the tests' calls never wait for a refill
BURST = 12
ATTACKER = "127.0.0.2"  # another loopback address, so that the tests' own calls are not its
ONE_BYTE_CHUNKS = 5_000


@pytest.fixture
def limited(redis_server: object) -> Iterator[LiveRest]:
    """A replica with its REST face and a call rate of ``BURST`` calls, then ``PER_SECOND``."""
    live = LiveRest(redis_server.url)  # type: ignore[attr-defined]
    live.config = dataclasses.replace(live.config, calls_per_client_per_second=PER_SECOND, call_burst=BURST)
    with live:
        yield live


def _connect(live: LiveRest, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", live.replica.http_port), timeout=WAIT_S, source_address=(source, 0))  # type: ignore[union-attr]
    return sock


def _chunked(body: bytes, chunks: int) -> bytes:
    """``body`` as a chunked transfer coding of ``chunks`` chunks (the last one takes the rest)."""
    size = max(1, len(body) // chunks)
    parts = [body[i * size : (i + 1) * size] for i in range(chunks - 1)] + [body[(chunks - 1) * size :]]
    assert all(parts) and b"".join(parts) == body
    return b"".join(b"%x\r\n%s\r\n" % (len(part), part) for part in parts) + b"0\r\n\r\n"


def _ready(live: LiveRest, source: str) -> int | None:
    """The status of a GET /readyz from ``source``, or None when the connection is closed
    without an answer."""
    try:
        with _connect(live, source) as sock:
            sock.sendall(b"GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
            return _answer(sock)[0]
    except (AssertionError, ConnectionError):
        return None


def test_a_body_on_a_get_is_refused_unread_and_its_address_counts_as_flooding(limited: LiveRest) -> None:
    """GET /readyz (free of the call rate) with a body of one-byte chunks: 400 BODY_NOT_ALLOWED,
    the connection closed; the address's next connections are closed unanswered, another
    address's are served. A Content-Length body on a GET is refused alike."""
    ones = b"1\r\nx\r\n" * ONE_BYTE_CHUNKS
    with _connect(limited, ATTACKER) as sock:
        sock.sendall(b"GET /readyz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + ones)
        status, headers, body = _answer(sock)
        assert (status, _reason(body), headers.get("connection")) == (400, "BODY_NOT_ALLOWED", "close")
        assert _closed(sock)
    assert _ready(limited, ATTACKER) is None, "the flooding address's new connection was served"
    assert _ready(limited, "127.0.0.1") == 200

    with _connect(limited, "127.0.0.3") as sock:
        sock.sendall(b"GET /v1/kinds HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
        status, headers, body = _answer(sock)
        assert (status, _reason(body), headers.get("connection")) == (400, "BODY_NOT_ALLOWED", "close")


def test_a_chunked_body_may_come_in_at_most_64_chunks(limited: LiveRest) -> None:
    """The same CreateGame body in ``MAX_BODY_CHUNKS`` chunks makes a game; in one chunk more it is
    refused 400 TOO_MANY_CHUNKS with the connection closed, no game is made, and the sender's
    address counts as flooding."""
    assert MAX_BODY_CHUNKS == 64  # the figure the README gives
    game = json.dumps({"kind": "stimmvieh", "options": {"players": 3}}).encode()
    body = game + b" " * (4 * MAX_BODY_CHUNKS)
    head = b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    with _connect(limited) as sock:
        sock.sendall(head + _chunked(body, MAX_BODY_CHUNKS))
        status, _headers, made = _answer(sock)
        assert status == 200, made
        assert json.loads(made)["gameId"]
    listed = len(limited.ok("GET", "/v1/games", params={"kind": "stimmvieh"})["games"])
    with _connect(limited, ATTACKER) as sock:  # its address then counts as flooding
        sock.sendall(head + _chunked(body, MAX_BODY_CHUNKS + 1))
        status, headers, refused = _answer(sock)
        assert (status, _reason(refused), headers.get("connection")) == (400, "TOO_MANY_CHUNKS", "close")
        assert _closed(sock)
    assert len(limited.ok("GET", "/v1/games", params={"kind": "stimmvieh"})["games"]) == listed
    assert _ready(limited, ATTACKER) is None


def test_a_long_body_counts_as_more_calls(limited: LiveRest) -> None:
    """A 60 kB body (a request padded with blanks, refused for its game id after it is decoded)
    counts as one call per 8 KiB more: of a burst of ``BURST`` calls, the calls after it that are
    let in are those the body left, not ``BURST`` - 1."""
    padded = b"{}" + b" " * 60_000
    with _connect(limited, "127.0.0.4") as sock:
        sock.sendall(
            b"POST /v1/games/not*a*game:leave HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n%s" % (len(padded), padded)
        )
        status, _headers, body = _answer(sock)
        assert status == 400, body
        let_in = _let_in(sock)
    # 60,002 bytes are 7 calls' worth more (8 KiB each): 12 - 1 - 7 = 4 left.
    assert let_in == BURST - 1 - 60_002 * 100 // 8192 // 100, let_in


def _let_in(sock: socket.socket) -> int:
    """How many GET /v1/kinds of up to ``BURST`` on ``sock`` are answered before the first 429."""
    let_in = 0
    for _call in range(BURST):  # bounded: the burst
        sock.sendall(b"GET /v1/kinds HTTP/1.1\r\nHost: x\r\n\r\n")
        status, _headers, body = _answer(sock)
        if status == 429:
            break
        assert status == 200, body
        let_in += 1
    return let_in


def test_a_refused_chunked_body_is_not_read_after_its_answer(limited: LiveRest) -> None:
    """A chunked POST refused before its body is read (a route that does not exist) is answered
    and its connection closed at once, not read on for ``LINGER_S``: the answer comes, then the
    close, while the client is still sending. It counts as ``UNREAD_BODY_CALLS`` (8) calls more;
    the address is not flooding for it (a client may send a chunked body and be refused)."""
    assert UNREAD_BODY_CALLS == 8  # the figure the README gives
    with _connect(limited, "127.0.0.5") as sock:
        sock.sendall(b"POST /v1/nowhere HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n" + b"1\r\nx\r\n" * 100)
        status, headers, _body = _answer(sock)
        assert (status, headers.get("connection")) == (404, "close")
        began = time.monotonic()
        assert _closed(sock)
        assert time.monotonic() - began < 1.0, "the connection lingered"
    with _connect(limited, "127.0.0.5") as sock:
        assert _let_in(sock) == BURST - 1 - UNREAD_BODY_CALLS


def test_readyz_has_a_rate_of_its_own_and_a_flood_of_it_is_cut_off(limited: LiveRest) -> None:
    """/readyz is free of the call rate but not unbounded: pipelined from one address, the first
    ``READY_BURST`` are answered 200, then 429 CALL_RATE_EXCEEDED; past a refill's worth of
    refusals the address is flooding, its connection closed and its new ones closed at once,
    while another address's probe is answered. (Unbounded, 100 connections pipelining it had
    10,000 answers a second.)"""
    assert (READY_PER_SECOND, READY_BURST) == (50.0, 100)  # the figures the README gives
    probes = READY_BURST * 3  # past the burst, and a refill's worth of refusals more
    began = time.monotonic()
    with _connect(limited, "127.0.0.6") as sock:
        sock.sendall(b"GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n" * probes)
        statuses = [(status, json.loads(body)["details"][0]["reason"] if status == 429 else "") for status, body in _pipelined_answers(sock, probes)]
    refilled = int((time.monotonic() - began) * READY_PER_SECOND) + 1  # tokens come back meanwhile
    assert statuses[:READY_BURST] == [(200, "")] * READY_BURST
    assert set(statuses[READY_BURST:]) <= {(200, ""), (429, "CALL_RATE_EXCEEDED")}, set(statuses[READY_BURST:])
    assert READY_BURST < len(statuses) and statuses.count((200, "")) <= READY_BURST + refilled, statuses.count((200, ""))
    assert len(statuses) < probes, "the flooding address kept its connection"
    assert _ready(limited, "127.0.0.6") is None
    assert _ready(limited, "127.0.0.7") == 200


def _pipelined_answers(sock: socket.socket, most: int) -> list[tuple[int, bytes]]:
    """(status, body) of each answer with a Content-Length that comes on ``sock``, up to ``most``,
    until the server closes it."""
    data, answers = b"", []
    while len(answers) < most:  # bounded: ``most`` answers, or the close
        head_end = data.find(b"\r\n\r\n")
        if head_end < 0:
            try:
                more = sock.recv(65536)
            except ConnectionError:
                more = b""
            if not more:
                break
            data += more
            continue
        lines = data[:head_end].decode("latin-1").split("\r\n")
        length = next(int(line.split(":", 1)[1]) for line in lines if line.lower().startswith("content-length:"))
        end = head_end + 4 + length
        while len(data) < end:  # bounded by the answer's length
            more = sock.recv(65536)
            assert more, "closed within an answer"
            data += more
        answers.append((int(lines[0].split(" ")[1]), data[head_end + 4 : end]))
        data = data[end:]
    return answers
