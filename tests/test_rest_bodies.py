"""Request bodies of the REST face that cost the replica more than their bytes: a body with a
``Content-Encoding``, and a JSON body that holds a long list.

aiohttp inflated a gzip or deflate request body as it arrived, on every route, before and after
the handler (a body the handler did not read to its end is read and dropped for up to
``LINGER_S`` after the answer), and the 64 KiB limit counted only what a handler read: a body of
1 MB that inflates to 1 GiB took 0.65-0.69 s of the event loop, and a body whose coding was
broken made aiohttp write a traceback for every request. Such bodies are now refused, 415
``UNSUPPORTED_CONTENT_ENCODING``, unread, and never inflated. A JSON body within the limit could
hold a list of 21,000 numbers where every list of the API holds a handful: parsed whole, and again
at each level of the message to name the field at fault, it cost about 90 ms of the event loop
as one call; a list longer than ``MAX_JSON_LIST`` is now refused before it is parsed, 400
``JSON_LIST_TOO_LONG``. Each test plays the client against a real replica (real Redis, real HTTP
on loopback); what the event loop spent is printed, not asserted.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
import zlib
from typing import Iterator

import pytest

from hustings.service.rest_connections import LINGER_S
from hustings.service.rest_routes import MAX_JSON_LIST
from rest_helpers import LiveRest
from test_rest_connections import _answer as raw_answer

WAIT_S = 10.0  # the longest any read waits
INFLATED_MIB = 1024  # what the compressed body inflates to: 1 GiB, sent as about 1 MB
COMPRESSED_CREATE = (
    b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b"Transfer-Encoding: chunked\r\nContent-Encoding: "
)


def _gzip_bomb(mebibytes: int) -> bytes:
    """A gzip stream of ``{`` and ``mebibytes`` MiB of zeros (no trailer: a reader inflates it as
    far as it goes). Each MiB is flushed whole, so its compressed form (1 kB) is the same every
    time and the stream is built by repeating it, not by compressing a GiB."""
    gzip = zlib.compressobj(9, zlib.DEFLATED, 31)
    head = gzip.compress(b"{") + gzip.flush(zlib.Z_FULL_FLUSH)
    block = b"\0" * (1 << 20)
    piece = gzip.compress(block) + gzip.flush(zlib.Z_FULL_FLUSH)
    return head + piece * mebibytes


def _loop_cpu_s(live: LiveRest) -> float:
    """The CPU time the replica's event loop thread has used so far."""

    async def now() -> float:
        return time.thread_time()

    return asyncio.run_coroutine_threadsafe(now(), live.loop).result(WAIT_S)


def _connect(live: LiveRest) -> socket.socket:
    assert live.replica is not None
    sock = socket.create_connection(("127.0.0.1", live.replica.http_port), timeout=WAIT_S)
    sock.settimeout(WAIT_S)
    return sock


def _answer(sock: socket.socket) -> tuple[int, str]:
    """(status, ErrorInfo reason) of an error answer with a Content-Length."""
    status, _headers, body = raw_answer(sock)
    (info,) = json.loads(body)["details"]
    return status, str(info["reason"])


def _refused_create_cost(live: LiveRest, coding: bytes, body: bytes, linger: bool = True) -> tuple[int, str, float]:
    """Send a CreateGame whose chunked body is ``body`` under ``coding``; read its answer and keep
    the connection open while the replica may read the rest of it. (status, reason, the event
    loop's CPU seconds for all of it)."""
    before = _loop_cpu_s(live)
    with _connect(live) as sock:
        try:
            sock.sendall(COMPRESSED_CREATE + coding + b"\r\n\r\n" + b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n")
        except OSError:
            pass  # the replica answered and closed before taking the whole body
        status, reason = _answer(sock)
        if linger:
            time.sleep(LINGER_S + 0.5)
    return status, reason, _loop_cpu_s(live) - before


def test_a_compressed_body_is_refused_unread(live: LiveRest) -> None:
    """A body of 1 MB that would inflate to 1 GiB, under each content coding: refused 415 for its
    coding, where the same bytes sent as they are get 413 for their size."""
    bomb = _gzip_bomb(INFLATED_MIB)
    plain_status, plain_reason, plain_cpu_s = _refused_create_cost(live, b"identity", bomb)
    assert (plain_status, plain_reason) == (413, "REQUEST_TOO_LARGE")
    for coding in (b"gzip", b"deflate", b"identity, gzip", b"br"):
        status, reason, cpu_s = _refused_create_cost(live, coding, bomb, linger=coding == b"gzip")
        assert (status, reason) == (415, "UNSUPPORTED_CONTENT_ENCODING"), coding
        print(f"\n{coding.decode()}: the event loop spent {cpu_s * 1000:.1f} ms (uncompressed: {plain_cpu_s * 1000:.1f} ms)")


def test_a_body_marked_identity_is_taken_as_it_is(live: LiveRest) -> None:
    created = live.call("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}}, headers={"Content-Encoding": "identity"})
    assert created.status_code == 200, created.text
    assert created.json()["gameId"]


class _Records(logging.Handler):
    """The records written by aiohttp's loggers while a test runs."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture()
def aiohttp_records() -> Iterator[_Records]:
    handler = _Records()
    logger = logging.getLogger("aiohttp")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


def test_a_body_whose_coding_is_broken_is_refused_without_a_traceback(live: LiveRest, aiohttp_records: _Records) -> None:
    broken = b"\x1f\x8b not gzip at all"
    for coding in (b"gzip", b"deflate", b"gzip"):
        with _connect(live) as sock:
            sock.sendall(
                b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Encoding: " + coding
                + b"\r\nContent-Length: %d\r\n\r\n" % len(broken) + broken
            )
            status, reason = _answer(sock)
            assert (status, reason) == (415, "UNSUPPORTED_CONTENT_ENCODING")
            time.sleep(0.2)  # the connection reads what is left of the body, after the answer
    tracebacks = [r.getMessage() for r in aiohttp_records.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not tracebacks, f"{len(tracebacks)} error lines with tracebacks for 3 requests any client may send: {tracebacks}"


LIST_ITEMS = 21_000  # 42 kB as JSON, within the 64 KiB limit


def _move_body(influences: list[object]) -> str:
    return json.dumps({"move": {"stimmvieh": {"chooseTopCandidates": {"influences": influences}}}, "requestId": "r1"}, separators=(",", ":"))


def test_a_list_longer_than_any_request_needs_is_refused_before_it_is_parsed(live: LiveRest) -> None:
    body = _move_body([1] * LIST_ITEMS + ["x"])
    assert len(body) < 64 << 10
    before = _loop_cpu_s(live)
    refused = live.call("POST", "/v1/games/gnosuchgame/moves", body, token="t")
    spent_s = _loop_cpu_s(live) - before
    assert refused.status_code == 400, refused.text
    assert refused.json()["details"][0]["reason"] == "JSON_LIST_TOO_LONG"
    print(f"\na list of {LIST_ITEMS} items: the event loop spent {spent_s * 1000:.1f} ms")
    # At the bound the body's shape passes, and the call goes on to its own refusal (no such game).
    at_bound = live.call("POST", "/v1/games/gnosuchgame/moves", _move_body([1] * MAX_JSON_LIST), token="t")
    assert at_bound.json()["details"][0]["reason"] != "JSON_LIST_TOO_LONG", at_bound.text
    nested = json.dumps({"kind": "stimmvieh", "options": {"players": 3}, "table": {"x": [[0] * (MAX_JSON_LIST + 1)]}})
    assert live.call("POST", "/v1/games", nested).json()["details"][0]["reason"] == "JSON_LIST_TOO_LONG"
