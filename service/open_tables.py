"""Listed tables waiting for players, by the client address that created them.

The lobby lists open tables newest first, and every client may create 120 games at once and 60
a minute (``client_limits.CreationLimit``): one address made 120 listed tables in 0.2 s, and at
its rate kept the first pages of everybody's lobby for as long as it liked, each table waiting a
day for players who never came. So a client holds at most ``per_client`` listed tables that are
still open at once on a replica; past it CreateGame of a listed table is RESOURCE_EXHAUSTED
``TOO_MANY_OPEN_TABLES`` (no retry hint: it waits for a table to start or expire, not for a
clock), while an unlisted table (``table.unlisted``), which no lobby shows, is made as before.

The /64s of one IPv6 site (``sites.site_of``: its /48) together keep no more tables waiting than
one address may, as they hold no more streams (``sites``).

A replica remembers the listed tables each client made through it (its last ``per_client`` at
most, for at most ``max_clients`` clients, least recently creating forgotten first), and only
when a client is at its bound does it ask the lobby which of them still wait: one read of at
most ``per_client`` summaries, and at most one a second per client (a client refused just now is
refused again without one). A table started, expired or gone leaves the count then.
"""

from __future__ import annotations

import collections
import time
from typing import Awaitable, Callable, Iterable

from hustings.service.sites import site_of

# A classroom or an office behind one address, a table each, still fits; one address fills at
# most a lobby page (50, the default page size) rather than all of them.
DEFAULT_OPEN_TABLES_PER_CLIENT = 50
DEFAULT_MAX_CLIENTS = 65_536  # as the creation buckets: about 100 bytes a client and its tables
RECHECK_S = 1.0  # a client at its bound has its tables looked up at most this often


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
        self._clock = clock
        # client -> its tables (game ids, oldest first), least recently creating client first
        self._tables: collections.OrderedDict[str, dict[str, None]] = collections.OrderedDict()
        self._refused_at: dict[str, float] = {}  # client -> when it was last found at its bound

    def held(self, client: str) -> list[str]:
        """The tables of ``client`` that may still be open, oldest first."""
        return list(self._tables.get(client, ()))

    def _keys(self, client: str) -> list[str]:
        """What ``client``'s tables count towards: its own bound, and its IPv6 site's."""
        site = site_of(client) if self.sites else None
        return [client] if site is None else [client, site]

    def note(self, client: str, game_id: str) -> None:
        """``client`` made the listed table ``game_id`` (a retry of one: counted once)."""
        for key in self._keys(client):
            self._note(key, game_id)

    async def full(self, client: str, still_open: Callable[[list[str]], Awaitable[Iterable[str]]]) -> bool:
        """Whether ``client``, or its IPv6 site, keeps ``per_client`` tables that still wait:
        asks ``still_open`` (which of these game ids are open tables now) only when a count says
        so, and not again within RECHECK_S of finding it full."""
        for key in self._keys(client):
            if await self._full(key, still_open):
                return True
        return False

    def _note(self, client: str, game_id: str) -> None:
        tables = self._tables.setdefault(client, {})
        self._tables.move_to_end(client)
        tables[game_id] = None
        while len(tables) > self.per_client:  # only the newest count: the older were let past
            del tables[next(iter(tables))]
        while len(self._tables) > self._max_clients:
            forgotten, _ = self._tables.popitem(last=False)
            self._refused_at.pop(forgotten, None)

    async def _full(self, client: str, still_open: Callable[[list[str]], Awaitable[Iterable[str]]]) -> bool:
        held = self.held(client)
        if len(held) < self.per_client:
            return False
        now = self._clock()
        refused_at = self._refused_at.get(client)
        if refused_at is not None and now - refused_at < RECHECK_S:
            return True
        waiting = set(await still_open(held))
        tables = self._tables.get(client)
        if tables is not None:
            for game_id in held:
                if game_id not in waiting:
                    tables.pop(game_id, None)
            if not tables:
                del self._tables[client]
        if len(self.held(client)) < self.per_client:
            self._refused_at.pop(client, None)
            return False
        self._refused_at[client] = now
        if len(self._refused_at) > self._max_clients:
            self._refused_at.pop(next(iter(self._refused_at)))
        return True
