"""Listed tables waiting for players, by the client address that created them.

The lobby lists open tables newest first, and every client may create 120 games at once and 60
a minute (``client_limits.CreationLimit``): one address made 120 listed tables in 0.2 s, and at
its rate kept the first pages of everybody's lobby for as long as it liked, each table waiting a
day for players who never came. So a client holds at most ``per_client`` listed tables that are
still open at once on a replica; past it CreateGame of a listed table is RESOURCE_EXHAUSTED
``TOO_MANY_OPEN_TABLES`` (no retry hint: it waits for a table to start or expire, not for a
clock), while an unlisted table (``table.unlisted``), which no lobby shows, is made as before.

The /64s of one IPv6 site (``sites.site_of``: its /48) together keep no more tables waiting than
``SITE_SHARE`` addresses may: one /64 at its bound leaves the rest of its /48 (a tunnel broker's
or a mobile network's customers) room for three addresses' more, where a site's bound of one
address's let one /64 keep every other from making a listed table.

A replica remembers the listed tables each client made through it (its last ``per_client`` at
most, each for as long as it may wait, for at most ``max_clients`` clients, least recently
creating forgotten first), and only
when a client is at its bound does it ask the lobby which of them still wait: one read of at
most ``per_client`` summaries at a time for a client (calls that find one under way wait for
it), and none within RECHECK_S of finding it full (a client refused just now is refused again
without one). A table started, expired or gone leaves the count then. A create that passes holds
its place from that moment (``Claim``) until its table is made or the call fails, so that
creates in flight together cannot pass the bound: 100 sent at once against a bound of 3 had all
been made when only tables already made counted.
"""

from __future__ import annotations

import asyncio
import collections
import math
import time
from typing import Awaitable, Callable, Iterable

from hustings.service.sites import IPV6_SITE_PREFIX, SITE_SHARE, site_of

# A classroom or an office behind one address, a table each, still fits; one address fills at
# most a lobby page (50, the default page size) rather than all of them.
DEFAULT_OPEN_TABLES_PER_CLIENT = 50
# Seats one address holds at listed tables that other addresses made, in games not finished (the
# same bookkeeping, a seat for a table: ``GameHost.seats_held``). A person plays
# a few such games at once, a household at one table four; one address that took every free seat
# the lobby showed (a call a seat, 8 calls a second) kept every host's friends out. Its own
# tables (a classroom's, a bot farm's) do not count.
DEFAULT_SEATS_HELD_PER_CLIENT = 12
DEFAULT_MAX_CLIENTS = 65_536  # as the creation buckets: a few kB a client at its bound
RECHECK_S = 1.0  # a client at its bound has its tables looked up at most this often
FORGET_PER_NOTE = 2  # clients of the walk looked at for tables past their lifetime, per table noted
# Beyond a table's longest wait, for the clocks of the replica and of Redis, before it is forgotten.
LIFETIME_SLACK_S = 60
SITE_SUFFIX = f"/{IPV6_SITE_PREFIX}"  # how a site's key ends (``sites.site_of``); a client's ends in /64


StillOpen = Callable[[list[str]], Awaitable[Iterable[str]]]  # which of these game ids still wait


class Claim:
    """A place among a client's (and its site's) open tables, held by one CreateGame from its
    check until ``release``; ``made`` counts the table it made (a retry's: the same game). A
    claim of no ``tables`` (``UNBOUNDED``: an unlisted table, a replica without the bound)
    counts nothing."""

    def __init__(self, tables: "OpenTables | None", client: str, keys: list[str], lifetime_s: float = math.inf) -> None:
        self._tables = tables
        self._client = client
        self._keys = keys
        self._held = tables is not None
        self._lifetime_s = lifetime_s

    def made(self, game_id: str) -> None:
        """The claim's table ``game_id`` was made (or its commit went out): it counts, for its
        lifetime at most."""
        if self._tables is not None:
            self._tables.note(self._client, game_id, self._tables.clock() + self._lifetime_s)

    def release(self) -> None:
        """Give the place back (once): a table made counts by ``made`` from then on."""
        if self._held:
            self._held = False
            for key in self._keys:
                self._tables._unclaim(key)  # type: ignore[union-attr]

    def settle(self, game_id: str, made: bool) -> None:
        """At the end of the create: count ``game_id`` if it was ``made``, then ``release``."""
        if made:
            self.made(game_id)
        self.release()


UNBOUNDED = Claim(None, "", [])


class OpenTables:
    """The listed tables each client created here that may still wait for players."""

    def __init__(
        self,
        per_client: int = DEFAULT_OPEN_TABLES_PER_CLIENT,
        max_clients: int = DEFAULT_MAX_CLIENTS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if per_client < 1 or max_clients < 1:
            raise ValueError("the open tables per client and the clients kept must be at least 1")
        self.per_client = per_client
        self.sites = True  # whether an IPv6 site's /64s count together too (False: ``--clients-per-ipv6-site 0``)
        self._max_clients = max_clients
        self.clock = clock
        # client -> its tables (game id -> when it surely waits no more, by ``clock``; oldest
        # first), least recently creating client first
        self._tables: collections.OrderedDict[str, dict[str, float]] = collections.OrderedDict()
        self._refused_at: dict[str, float] = {}  # client -> when it was last found at its bound
        self._walk: list[str] = []  # the clients still to look at for lapsed tables, next last
        self._pending: dict[str, int] = {}  # client -> creates past the check whose tables are not made yet
        self._lookups: dict[str, asyncio.Future[None]] = {}  # client -> its lookup under way

    def held(self, client: str) -> list[str]:
        """The tables of ``client`` that may still be open, oldest first."""
        return list(self._tables.get(client, ()))

    def _keys(self, client: str) -> list[str]:
        """What ``client``'s tables count towards: its own bound, and its IPv6 site's."""
        site = site_of(client) if self.sites else None
        return [client] if site is None else [client, site]

    def note(self, client: str, game_id: str, until: float = math.inf) -> None:
        """``client`` made the listed table ``game_id`` (a retry of one: counted once), which
        waits no later than ``until`` (by ``clock``)."""
        for key in self._keys(client):
            self._note(key, game_id, until)

    async def claim(self, client: str, still_open: StillOpen, lifetime_s: float = math.inf) -> Claim | None:
        """A place for one more listed table of ``client``, or None when it, or its IPv6 site,
        keeps ``per_client`` tables that still wait, made or being made: asks ``still_open``
        (which of these game ids are open tables now) only when a count says so, and not
        again within RECHECK_S of finding it full. ``lifetime_s``: how long the table may wait
        at most (it counts no longer, and is forgotten after)."""
        keys = self._keys(client)
        for key in keys:
            if await self._full(key, still_open):
                return None
        if any(self._count(key) >= self._bound(key) for key in keys):
            return None  # others took the last places while this one waited for a lookup
        for key in keys:  # no await since the counts above: the place is this call's
            self._pending[key] = self._pending.get(key, 0) + 1
        return Claim(self, client, keys, lifetime_s)

    def _bound(self, key: str) -> int:
        """How many tables ``key`` (a client, or an IPv6 site) may keep waiting."""
        return self.per_client * SITE_SHARE if key.endswith(SITE_SUFFIX) else self.per_client

    def _count(self, key: str) -> int:
        return len(self._tables.get(key, ())) + self._pending.get(key, 0)

    def _unclaim(self, key: str) -> None:
        left = self._pending[key] - 1
        if left:
            self._pending[key] = left
        else:
            del self._pending[key]

    def _note(self, client: str, game_id: str, until: float) -> None:
        tables = self._tables.setdefault(client, {})
        self._tables.move_to_end(client)
        tables[game_id] = until
        while len(tables) > self._bound(client):  # only the newest count: the older were let past
            del tables[next(iter(tables))]
        while len(self._tables) > self._max_clients:
            forgotten, _ = self._tables.popitem(last=False)
            self._refused_at.pop(forgotten, None)
        self._forget_lapsed(FORGET_PER_NOTE)

    def _forget_lapsed(self, clients: int) -> None:
        """Look at the next ``clients`` of a walk through every client (made anew when done):
        drop their tables whose lifetime is over, and the client when none is left. A crowd of
        one table each (65,000 addresses) left 26 MB of ids of games long gone for as long as
        the replica ran; at their bounds about 460 MB. The walk keeps the order (least recently
        creating first) and costs a note two clients' looks, and a copy of the clients' names
        once every half as many notes as there are clients."""
        now = self.clock()
        for _ in range(clients):
            if not self._walk:
                self._walk = list(self._tables)
                self._walk.reverse()  # taken from the end: the least recently creating first
                if not self._walk:
                    return
            client = self._walk.pop()
            tables = self._tables.get(client)
            if tables is None:
                continue
            for game_id in [game_id for game_id, until in tables.items() if until <= now]:
                del tables[game_id]
            if not tables:
                del self._tables[client]
                self._refused_at.pop(client, None)

    async def _full(self, key: str, still_open: StillOpen) -> bool:
        if self._count(key) < self._bound(key):
            return False
        refused_at = self._refused_at.get(key)
        if refused_at is not None and self.clock() - refused_at < RECHECK_S:
            return True
        lookup = self._lookups.get(key)
        if lookup is None:  # one lookup at a time for a client: the others wait for it
            lookup = self._lookups[key] = asyncio.ensure_future(self._look_up(key, still_open))
            lookup.add_done_callback(lambda done: self._looked_up(key, done))
        await asyncio.shield(lookup)
        if self._count(key) < self._bound(key):
            self._refused_at.pop(key, None)
            return False
        self._refused_at[key] = self.clock()
        if len(self._refused_at) > self._max_clients:
            self._refused_at.pop(next(iter(self._refused_at)))
        return True

    async def _look_up(self, key: str, still_open: StillOpen) -> None:
        """Drop those of ``key``'s tables that no longer wait."""
        held = self.held(key)
        waiting = set(await still_open(held))
        tables = self._tables.get(key)
        if tables is not None:
            for game_id in held:
                if game_id not in waiting:
                    tables.pop(game_id, None)
            if not tables:
                del self._tables[key]

    def _looked_up(self, key: str, done: "asyncio.Future[None]") -> None:
        if self._lookups.get(key) is done:
            del self._lookups[key]
        if not done.cancelled():
            done.exception()  # retrieved: each caller that waited has raised it already
