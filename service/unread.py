"""Bytes of large stream updates that a replica holds until their readers take them.

A WatchGame stream's first update carries every step after its ``from_version``: from version 0
of a long game, hundreds of kilobytes (a Spin Doctors table that makes every side move it may:
2,400 steps, 420 kB). While the reader does not take it, the replica holds it, and more besides
(gRPC's own copy, and until a large update kept only its bytes, the message it was encoded from:
about 2 MB a stream, measured then; 2.5-4.3 times the update's bytes now). A client
that opened such streams and never read them held that memory for as long as it liked: 500 of
them, a quarter of one address's streams, took a replica from 86 MB to over 1 GB.

So an update of ``COUNTED_BYTES`` or more counts, from the moment it is handed to its connection
until the write returns (the reader took it, or the stream ended), towards the replica's and its
client address's bytes unread; one that would take either past its cap is not written, and its
stream ends RESOURCE_EXHAUSTED with a reason. Smaller updates, most live steps among them, are not
counted: a stream holds at most one update at a time, so the cap on streams bounds them. Only
updates of 64 KiB or more were counted once: an address that opened its 2,000 streams each from
a version that made its catch-up just under that (50-60 kB of a finished Spin Doctors game) and
never read them took a replica from 77 MB to 629 MB, 35 times its cap on unread bytes.
"""

from __future__ import annotations

import contextlib
from typing import ContextManager, Iterator

from hustings.service.errors import exhausted
from hustings.service.limits import count_down
from hustings.service.sites import SITE_SHARE, site_of

# Updates this large or larger are counted: a catch-up of a few dozen steps, a view that lists
# many moves. A live step's update is a few kilobytes; uncounted, an address's 2,000 streams
# (its cap) hold at most 2,000 updates under this size, 16 MB (and gRPC's copies of them).
COUNTED_BYTES = 8 << 10
# What one client address's streams may hold unread: forty catch-ups of the longest games seen,
# a classroom behind one address opening such a game together, while 2,000 streams that never
# read (the address's cap) would hold gigabytes.
DEFAULT_MAX_UNREAD_BYTES_PER_ADDRESS = 16 << 20
# What all the streams of a replica may hold unread.
DEFAULT_MAX_UNREAD_BYTES = 256 << 20
_NOT_COUNTED = contextlib.nullcontext()  # the block for an update too small to count: holds nothing


class UnreadBytes:
    """The bytes of large updates written and not yet taken, by client address, with caps."""

    def __init__(
        self, max_bytes: int = DEFAULT_MAX_UNREAD_BYTES, max_per_address: int = DEFAULT_MAX_UNREAD_BYTES_PER_ADDRESS
    ) -> None:
        if min(max_bytes, max_per_address) < COUNTED_BYTES:
            raise ValueError(f"caps on unread bytes must be at least {COUNTED_BYTES}")
        self.max_bytes = max_bytes
        self.max_per_address = max_per_address
        self.held = 0
        # Whether the /64s of one IPv6 site (``site_of``) together hold no more than SITE_SHARE
        # addresses may: sixteen of them filled the replica's cap, and then any other client's
        # large update ended its stream; at one address's, one /64 whose streams read nothing
        # ended those of every other /64 of its /48. False for ``--clients-per-ipv6-site 0``.
        self.sites = True
        self._by_address: dict[str, int] = {}  # only addresses holding bytes
        self._by_site: dict[str, int] = {}  # only sites holding bytes

    def held_by(self, address: str) -> int:
        """The counted bytes that ``address``'s streams hold unread now."""
        return self._by_address.get(address, 0)

    def writing(self, address: str, size: int) -> ContextManager[None]:
        """Count an update of ``size`` bytes to a stream of ``address`` while the block writes
        it; RESOURCE_EXHAUSTED when it would take the replica or the address past its cap (then
        nothing is counted and it is not to be written). Every write of every stream comes
        here: an update too small to count costs a shared empty block, not a generator."""
        return _NOT_COUNTED if size < COUNTED_BYTES else self._counted(address, size)

    @contextlib.contextmanager
    def _counted(self, address: str, size: int) -> Iterator[None]:
        if self.held + size > self.max_bytes:
            raise exhausted(
                "TOO_MANY_UNREAD_BYTES",
                "this replica holds its maximum of stream updates not yet read; try another, or later",
            )
        held = self._by_address.get(address, 0)
        if held + size > self.max_per_address:
            raise exhausted(
                "TOO_MANY_UNREAD_BYTES_FOR_ADDRESS",
                "this client address's streams hold their maximum of updates not yet read; read them, or close some",
            )
        site = site_of(address) if self.sites else None
        if site is not None and self._by_site.get(site, 0) + size > self.max_per_address * SITE_SHARE:
            raise exhausted(
                "TOO_MANY_UNREAD_BYTES_FOR_ADDRESS",
                f"this client's IPv6 site (its /48) holds the maximum of {SITE_SHARE} addresses in updates not yet read;"
                " read them, or close some",
            )
        self.held += size
        self._by_address[address] = held + size
        if site is not None:
            self._by_site[site] = self._by_site.get(site, 0) + size
        try:
            yield
        finally:
            self.held -= size
            count_down(self._by_address, address, size)
            if site is not None:
                count_down(self._by_site, site, size)
