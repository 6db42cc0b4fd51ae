"""Fair limits of one replica: open streams counted apart from unary calls.

Streams are long-lived and cheap to hold, unary calls are short; sharing one counter (as gRPC's
``maximum_concurrent_rpcs`` does) would let one client that holds many streams starve every
other client's calls. So each has its own count here:

- streams: at most ``max_streams`` (``max_watchers``) on the replica, at most
  ``max_per_client`` from one client, and at most ``max_per_seat`` with one seat token;
- unary calls: at most ``max_calls`` in flight on the replica.

A client is the connection a stream arrives on (``grpc:<peer address and port>``: one gRPC
channel multiplexes all its streams over one HTTP/2 connection), or for Server-Sent Events the
remote address (``rest:<ip>``: every event stream has an HTTP/1.1 connection of its own, so a
connection would count one stream). Everything past a cap is RESOURCE_EXHAUSTED with a reason.
"""

from __future__ import annotations

import contextlib
import hashlib
from typing import Iterator

from hustings.service.errors import exhausted

DEFAULT_MAX_STREAMS = 10_000
DEFAULT_MAX_STREAMS_PER_CLIENT = 1_000
DEFAULT_MAX_STREAMS_PER_SEAT = 32
DEFAULT_MAX_CALLS = 2_048


def seat_key(token: str) -> str:
    """The key that counts one seat token's streams (a hash: tokens are never kept in memory
    longer than a call, nor logged)."""
    return hashlib.sha256(b"streams:" + token.encode()).hexdigest()


class StreamLimits:
    """The open streams of a replica, by client and by seat token, with their caps."""

    def __init__(
        self,
        max_streams: int = DEFAULT_MAX_STREAMS,
        max_per_client: int = DEFAULT_MAX_STREAMS_PER_CLIENT,
        max_per_seat: int = DEFAULT_MAX_STREAMS_PER_SEAT,
    ) -> None:
        if min(max_streams, max_per_client, max_per_seat) < 1:
            raise ValueError("stream limits must be at least 1")
        self.max_streams = max_streams
        self.max_per_client = max_per_client
        self.max_per_seat = max_per_seat
        self.open = 0
        self._by_client: dict[str, int] = {}
        self._by_seat: dict[str, int] = {}

    def check(self, client: str, token: str | None) -> None:
        """Refuse now, before a stream starts, what ``hold`` would refuse (a face that must
        answer before streaming, like Server-Sent Events, asks first)."""
        self._refuse_over_cap(client, seat_key(token) if token else None)

    def _refuse_over_cap(self, client: str, seat: str | None) -> None:
        if self.open >= self.max_streams:
            raise exhausted(
                "TOO_MANY_WATCHERS",
                f"this replica serves its maximum of {self.max_streams} streams; try another",
            )
        if self._by_client.get(client, 0) >= self.max_per_client:
            raise exhausted(
                "TOO_MANY_STREAMS_FOR_CLIENT",
                f"this client holds its maximum of {self.max_per_client} streams; close one first",
            )
        if seat is not None and self._by_seat.get(seat, 0) >= self.max_per_seat:
            raise exhausted(
                "TOO_MANY_STREAMS_FOR_SEAT",
                f"this seat token holds its maximum of {self.max_per_seat} streams; close one first",
            )

    def held_by(self, client: str) -> int:
        """How many streams ``client`` holds now."""
        return self._by_client.get(client, 0)

    @contextlib.contextmanager
    def hold(self, client: str, token: str | None) -> Iterator[None]:
        """Count one stream of ``client`` (with ``token``, if any) while the block runs; refuse
        it with RESOURCE_EXHAUSTED when a cap is reached."""
        seat = seat_key(token) if token else None
        self._refuse_over_cap(client, seat)
        self.open += 1
        self._by_client[client] = self._by_client.get(client, 0) + 1
        if seat is not None:
            self._by_seat[seat] = self._by_seat.get(seat, 0) + 1
        try:
            yield
        finally:
            self.open -= 1
            _release(self._by_client, client)
            if seat is not None:
                _release(self._by_seat, seat)


class CallLimit:
    """Unary calls in flight on a replica, with their own cap (streams do not count)."""

    def __init__(self, max_calls: int = DEFAULT_MAX_CALLS) -> None:
        self.max_calls = max_calls
        self.in_flight = 0

    def hold(self) -> "CallLimit":
        """Count one call while the block (``with limit.hold():``) runs; RESOURCE_EXHAUSTED past
        the cap. The limit is its own context manager: every call enters it, and a plain class
        costs a fraction of a generator-based one."""
        return self

    def __enter__(self) -> None:
        if self.in_flight >= self.max_calls:
            raise exhausted("TOO_MANY_CALLS", f"this replica has {self.max_calls} calls in flight; retry shortly")
        self.in_flight += 1

    def __exit__(self, *exc: object) -> None:
        self.in_flight -= 1


def _release(counts: dict[str, int], key: str) -> None:
    left = counts[key] - 1
    if left:
        counts[key] = left
    else:
        del counts[key]  # only keys with open streams stay, so the maps stay small
