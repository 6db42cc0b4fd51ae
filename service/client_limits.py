"""Limits per client: who a caller is, and how many games it may create.

No one client may exhaust a replica for the others. Three things a client could otherwise take
alone: the replica's places for unary calls (counted per client in ``limits.CallLimit``), the
replica's time (a client that keeps its calls in flight, each answered in a millisecond, has them
answered as fast as the replica can: ``CallRate``, a token bucket per client here, bounds its
rate) and the store's memory (every CreateGame keeps an open game for as long as it waits for
players, a day by default), which ``CreationLimit``, another token bucket per client, bounds in
rate. Both buckets refuse with a retry hint, so that the clients pace themselves.

A client is a remote IP address, not an address and port: one client may open many connections.
An IPv6 client is its /64 network, the block one host or home is given; else one machine would
be as many clients as it has addresses. gRPC names the peer ``ipv4:1.2.3.4:5678``,
``ipv6:%5B::1%5D:5678`` or ``unix:…``; REST has the socket's remote address. Behind a proxy every
caller shares the proxy's address, so a request from a trusted proxy (``--trusted-proxy CIDR``)
is counted by the last address in its ``x-forwarded-for`` (the one the proxy itself saw); from
anyone else that header is ignored, since a caller could write anything in it. All of it is per
replica.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import contextvars
import ipaddress
import math
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Callable, Iterable, Iterator

import grpc

from hustings.service import metrics
from hustings.service.errors import RetryLater
from hustings.service.limits import (
    DEFAULT_CALL_BURST,
    DEFAULT_CALLS_PER_CLIENT_PER_SECOND,
    DEFAULT_MAX_CALLS,
    DEFAULT_MAX_CALLS_PER_CLIENT,
    DIRECT_CONNECTION,
    LEAVE_CALLS,
    CallLimit,
    ClientRate,
    calls_for_steps,
)
from hustings.service.sites import site_of
from hustings.service.unread import UnreadBytes

# One game a second, sustained, from one address: far beyond a person at a table or a lobby of
# friends, and 86,400 open games a day at most from one address instead of as many as a loop can
# send. The burst of two minutes' worth lets a tournament round or a classroom behind one NAT
# open its tables at once.
DEFAULT_CREATES_PER_MINUTE = 60.0
DEFAULT_CREATE_BURST = 120
# A strong bot thinks up to 0.2 s a decision, and a replica's strong bots think one decision at a
# time, all tables together: 30 tables of strong bots from one client made another table's strong
# bots 32 times slower (10 steps in 61 s instead of 1.9 s). So a table whose bots are strong counts
# as this many games per seat (AddBot of a strong bot as many), and one address keeps a few such
# tables going at once (a burst of 120: three tables of four seats), not hundreds.
STRONG_BOT_GAMES = 10
# A random bot decides in about a millisecond and a greedy one in a few, but a table of them plays
# hundreds of decisions: a burst of 120 four-seat tables of bots alone cost the replica 40 s of CPU
# (Spin Doctors, random bots; a table of greedy ones costs 2.5 to 6.5 times as much). So each bot
# seat counts as this many games more (AddBot of one as many): a burst then makes 24 tables of four
# random bots, or 9 of greedy ones, not 120; the steady allowance 12 or 4.6 a minute.
RANDOM_BOT_GAMES = 1
GREEDY_BOT_GAMES = 3
# Levels whose bots think (strong and greedy): a table of them counts its every seat, since any
# player who leaves or times out is played by one.
THINKING_LEVELS = frozenset({"strong", "greedy"})


# How long a game counted as one may wait for its players (the default wait). The allowance bounds
# what one address keeps in the store (an open game nobody joins is 7-9.5 kB of Redis): at 60 a
# minute for a day, 0.8 GB; a table may wait up to 30 days, which let one address keep 2.6 million
# games (25 GB) instead. A game that waits longer counts as one game per day it may wait.
OPEN_SECONDS_PER_GAME = 24 * 3600


def games_counted(request: Any) -> int:
    """What a CreateGame counts as in its client's allowance: one game per day it may wait for
    players (one for the default day or less); for a table whose bots (its bot seats and its
    absent players) think, strong or greedy, ``bot_games`` more per seat, else (random bots)
    ``bot_games`` more per bot seat. A greedy table's absent players were once free: 100 tables
    of one player and three seats left to time out, one game each, made another client's greedy
    bots 1.3-4.6 times slower."""
    games = max(1, -(-request.table.open_seconds // OPEN_SECONDS_PER_GAME))
    level = request.table.bot_level
    seats = max(1, request.options.players) if level in THINKING_LEVELS else len(request.table.bot_seats)
    return games + bot_games(level) * seats


def bot_games(level: str) -> int:
    """What one bot of ``level`` counts as in its client's allowance (an AddBot; a bot seat at
    creation): ``STRONG_BOT_GAMES``, ``GREEDY_BOT_GAMES``, else (random, the default level)
    ``RANDOM_BOT_GAMES``."""
    if level == "strong":
        return STRONG_BOT_GAMES
    return GREEDY_BOT_GAMES if level == "greedy" else RANDOM_BOT_GAMES
# Buckets of this many addresses at most (about 250 bytes each): past it the least recently seen
# address is forgotten and starts again with a full bucket, no more than a fresh address gets.
DEFAULT_MAX_BUCKETS = 65_536
# Full buckets are looked for at most this often (and on every take when they refill faster):
# a look is cheap, but every call takes from a bucket.
PRUNE_EVERY_S = 1.0
# Peer names remembered with the address they resolve to (a connection's peer name keeps its
# port, so there are as many as connections); the table is emptied when it reaches this size.
MAX_KNOWN_PEERS = 8_192
FORWARDED_FOR = "x-forwarded-for"
# Trusted proxies one after another that an x-forwarded-for is read back through (a CDN, a load
# balancer, an ingress): past them the last address looked at counts.
MAX_FORWARDED_HOPS = 8
DEFAULT_CLIENTS_PER_IPV6_SITE = 16


def too_many_games_created(retry_after_s: float) -> RetryLater:
    """RESOURCE_EXHAUSTED ``TOO_MANY_GAMES_CREATED``: this client's creation bucket is empty."""
    return RetryLater(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "TOO_MANY_GAMES_CREATED",
        f"this client has created games faster than this replica allows; retry in {retry_after_s:.1f} s",
        retry_after_s,
    )


def call_rate_exceeded(retry_after_s: float) -> RetryLater:
    """RESOURCE_EXHAUSTED ``CALL_RATE_EXCEEDED``: this client's bucket of calls is empty."""
    return RetryLater(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        "CALL_RATE_EXCEEDED",
        f"this client calls faster than this replica allows; retry in {math.ceil(retry_after_s * 1000)} ms",
        retry_after_s,
    )


def canonical_address(text: str) -> str | None:
    """An IP address in its one spelling (an IPv4 address mapped into IPv6 as IPv4), or None."""
    try:
        address = ipaddress.ip_address(text.strip().strip("[]").split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)


# IPv4 addresses translated into IPv6 (RFC 6052's well-known prefix): a replica reached over
# IPv6 only, through a translator, sees every IPv4 client in this one /64, each with its own
# address in the last 32 bits.
NAT64_PREFIX = ipaddress.IPv6Network("64:ff9b::/96")


def client_of(address: str) -> str:
    """The client an address counts as: an IPv4 address itself, an IPv6 address its /64 network
    (``2001:db8:1:2::/64``), an IPv4 address translated into ``NAT64_PREFIX`` that IPv4 address;
    anything else (a unix socket's peer name) as it is."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip in NAT64_PREFIX:
            return str(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return address


def grpc_peer_address(peer: str) -> str:
    """The remote address in gRPC's peer name (``ipv4:1.2.3.4:5678`` -> ``1.2.3.4``,
    ``ipv6:%5B::1%5D:5678`` -> ``::1``); a peer with no IP address (a unix socket) is its name."""
    scheme, _, rest = peer.partition(":")
    if scheme in ("ipv4", "ipv6"):
        host = urllib.parse.unquote(rest).rpartition(":")[0]
        address = canonical_address(host)
        if address is not None:
            return address
    return peer


def forwarded_address(values: Iterable[str]) -> str | None:
    """The last address of the last ``x-forwarded-for`` value: the one the nearest proxy saw
    (entries before it are whatever the caller wrote). None when it is not an address."""
    last = None
    for value in values:
        last = value
    if last is None:
        return None
    return forwarded_entry_address(last.rpartition(",")[2])


def forwarded_entry_address(entry: str) -> str | None:
    """The address of one ``x-forwarded-for`` entry (``203.0.113.5``, ``203.0.113.5:443``,
    ``2001:db8::2``, ``[2001:db8::2]:443``), or None when it is not one."""
    entry = entry.strip()
    address = canonical_address(entry)
    if address is None and entry.count(":") == 1:  # an IPv4 address with a port
        address = canonical_address(entry.partition(":")[0])
    if address is None and entry.startswith("[") and "]:" in entry:  # an IPv6 address with a port
        address = canonical_address(entry[1 : entry.index("]")])
    return address


@dataclass(frozen=True)
class _Proxy:
    """A peer within a trusted proxy's range: its requests are counted by the address it forwards."""

    address: str


class ClientAddresses:
    """Who a caller is, for the per-client limits: its remote address, or for a peer within
    ``trusted_proxies`` (CIDRs) the address that peer forwards in ``x-forwarded-for``; each
    counted as ``client_of`` says."""

    def __init__(self, trusted_proxies: Iterable[str] = ()) -> None:
        self.trusted_proxies = tuple(ipaddress.ip_network(cidr.strip(), strict=False) for cidr in trusted_proxies)
        self._known: dict[str, "str | _Proxy"] = {}  # peer name -> address, or a trusted proxy

    def _learn(self, name: str, address: str) -> "str | _Proxy":
        if len(self._known) >= MAX_KNOWN_PEERS:
            self._known.clear()  # connections come and go: start over rather than keep them all
        known: str | _Proxy = client_of(address)
        if self.trusted_proxies and self._trusted(address):
            known = _Proxy(client_of(address))
        self._known[name] = known
        return known

    def _trusted(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False  # a unix socket's peer: no address to trust
        return any(ip in network for network in self.trusted_proxies)

    def _grpc_peer(self, peer: str) -> "str | _Proxy":
        """What a gRPC connection's peer (``context.peer()``) is known as: one dict look-up once
        its connection is known."""
        known = self._known.get(peer)
        return known if known is not None else self._learn(peer, grpc_peer_address(peer))

    def _http_peer(self, remote: str) -> "str | _Proxy":
        """What an HTTP connection's peer (``request.remote``) is known as."""
        known = self._known.get(remote)
        return known if known is not None else self._learn(remote, canonical_address(remote) or remote)

    def of_grpc(self, context: grpc.aio.ServicerContext) -> str:
        """The client of a gRPC call (every unary call asks)."""
        known = self._grpc_peer(context.peer())
        if type(known) is str:
            return known
        values = (v.decode() if isinstance(v, bytes) else v for k, v in context.invocation_metadata() or () if k == FORWARDED_FOR)
        return self._forwarded_client(values, known)  # type: ignore[arg-type]

    def connection_of(self, context: grpc.aio.ServicerContext) -> str:
        """The client key of a gRPC call's connection, for the caps on streams: ``grpc:`` and
        its peer for a connection from no trusted proxy, whose streams the connection's room
        caps (``StreamLimits.max_per_direct_connection``), else ``grpc-proxy:`` and its peer."""
        peer = context.peer()
        return f"{'grpc-proxy:' if isinstance(self._grpc_peer(peer), _Proxy) else DIRECT_CONNECTION}{peer}"

    def from_proxy(self, request: Any) -> bool:
        """Whether an HTTP request (an aiohttp ``web.Request``) came over a trusted proxy's
        connection."""
        return isinstance(self._http_peer(request.remote or ""), _Proxy)

    def of_http(self, request: Any) -> str:
        """The client of an HTTP request (an aiohttp ``web.Request``)."""
        known = self._http_peer(request.remote or "")
        if type(known) is str:
            return known
        return self._forwarded_client(request.headers.getall(FORWARDED_FOR, ()), known)  # type: ignore[arg-type]

    def _forwarded_client(self, values: Iterable[str], proxy: _Proxy) -> str:
        """The client of a request from the trusted ``proxy``: the last address of its
        ``x-forwarded-for`` that is not itself within a trusted range. Proxies one after another
        (a CDN's in front of a load balancer's) each append the address they saw, so the walk
        passes over those of trusted proxies, at most ``MAX_FORWARDED_HOPS``; an entry that is
        not an address counts as the trusted proxy that passed it on (the nearest: ``proxy``)."""
        entries: list[str] = []
        for value in values:
            entries.extend(value.split(","))
        client = proxy.address
        for entry in reversed(entries[-MAX_FORWARDED_HOPS:]):
            entry = entry.strip()
            known = self._known.get(entry)
            if known is None:
                address = forwarded_entry_address(entry)
                if address is None:
                    break
                known = self._learn(entry, address)
            if type(known) is str:
                return known
            client = known.address  # type: ignore[union-attr]  # a trusted proxy's: look before it
        return client


class ClientBuckets:
    """A token bucket per client: ``burst`` at once, refilled at ``per_second``; past it
    ``refuse(seconds to wait)`` is raised (until the next token, unless a kind of bucket hints
    otherwise) and the bucket is left as it was.

    A bucket is one number, the time at which it is full again (in the past for a full one):
    a take moves it one refill interval later, and is refused when that would be more than a
    whole refill ahead. Buckets live in a dict in the order they were last touched; a full one is
    the same as no bucket, so it is dropped (looked for at most every ``PRUNE_EVERY_S``); and
    past ``max_buckets`` the least recently touched go first. So the table holds at most the
    clients that took within the last ``burst / per_second`` seconds (and ``PRUNE_EVERY_S``),
    and never more than ``max_buckets``.

    With ``sites`` (a number of clients), the clients of one IPv6 site (``site_of``: the /64s of
    one /48) also spend from a bucket of the site's, ``sites`` times a client's rate and burst,
    kept in the same table: a take is let in only when both have the tokens."""

    def __init__(
        self,
        per_second: float,
        burst: int,
        refuse: Callable[[float], RetryLater],
        max_buckets: int = DEFAULT_MAX_BUCKETS,
        clock: Callable[[], float] = time.monotonic,
        sites: int = 0,
    ) -> None:
        if not per_second > 0 or burst < 1 or max_buckets < 1:
            raise ValueError("the rate, burst and table size must be positive")
        if sites < 0:
            raise ValueError("a site's share is a number of clients, or 0 for none")
        self.per_second = per_second
        self.burst = float(burst)
        self.max_buckets = max_buckets
        self.refill_s = burst / per_second  # from empty to full
        self._interval = 1.0 / per_second  # what one token takes to come back
        self.sites = sites  # an IPv6 site's clients together: this many clients' worth; 0: no such bucket
        self._site_interval = self._interval / sites if sites else 0.0  # what one of a site's tokens takes
        # How far ahead a bucket's full time may be: a whole refill, and a hair more so that
        # the sum of ``burst`` intervals, rounded, still lets the whole burst in.
        self._ahead_s = self.refill_s * (1 + 1e-9)
        self._refuse = refuse
        self._clock = clock
        self._prune_every_s = min(PRUNE_EVERY_S, self.refill_s)
        self._prune_at = -math.inf
        # client -> when its bucket is full again, least recently touched first; an OrderedDict
        # because it drops its first entry in constant time (a dict's first entry is found past
        # every hole left before it).
        self._buckets: collections.OrderedDict[str, float] = collections.OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def tokens(self, client: str) -> float:
        """What ``client`` may take now."""
        now = self._clock()
        full_at = self._buckets.get(client)
        tokens = self.burst if full_at is None else max(0.0, self.burst - max(0.0, full_at - now) * self.per_second)
        site = self._site(client)
        site_full_at = self._buckets.get(site) if site is not None else None
        if site_full_at is not None:  # what the site has left, in the client's tokens
            tokens = min(tokens, max(0.0, self.burst * self.sites - max(0.0, site_full_at - now) * self.per_second * self.sites))
        return tokens

    def take(self, client: str, tokens: int = 1) -> None:
        """Spend ``tokens`` of ``client``'s tokens (one for a call), or raise ``refuse`` with the
        wait until it has them (then its bucket is as it was). Every unary call comes here:
        kept to a few dict operations."""
        now = self._clock()
        refused = self._spend(client, tokens, now)
        if refused is not None:
            full_at, site = refused
            raise self._refuse(self._hint_s(client, full_at - self.refill_s, now, site))

    def admits(self, client: str, tokens: int = 1) -> bool:
        """Spend ``tokens`` of ``client``'s tokens if it has them: ``take`` without the refusal
        it raises (for refusals that answer nothing, as cheap as can be)."""
        return self._spend(client, tokens, self._clock()) is None

    def _spend(self, client: str, tokens: int, now: float) -> tuple[float, str | None] | None:
        """Spend ``tokens`` of ``client``'s tokens: None; or, when it or its site has not that
        many (both buckets left as they were), when the bucket that has not would be full again
        had they been spent, and that site (None: the client's own bucket refused)."""
        if now >= self._prune_at:
            self._prune(now)
        buckets = self._buckets
        full_at = buckets.get(client, now)
        if full_at < now:
            full_at = now
        full_at += self._interval * tokens
        if full_at - now > self._ahead_s:
            return full_at, None
        if self.sites and (site := site_of(client)) is not None:
            site_full_at = buckets.get(site, now)
            if site_full_at < now:
                site_full_at = now
            site_full_at += self._site_interval * tokens
            if site_full_at - now > self._ahead_s:  # as far ahead as a client's: the same refill
                return site_full_at, site
            buckets[site] = site_full_at
            buckets.move_to_end(site)
        buckets[client] = full_at
        buckets.move_to_end(client)  # the most recently touched
        while len(buckets) > self.max_buckets:
            buckets.popitem(last=False)
        return None

    def _hint_s(self, client: str, next_token_at: float, now: float, site: str | None = None) -> float:
        """The wait to hint to a take refused by ``client``'s bucket, or by its ``site``'s: until
        the next token of the bucket that refused (``next_token_at``)."""
        return next_token_at - now

    def charge(self, client: str, tokens: int) -> None:
        """Spend ``tokens`` more of ``client``'s, never refusing: what a call that was let in
        turned out to cost beyond its one (a long page). The bucket may go up to a whole burst
        below empty, so that the cost is paid even from an empty bucket (else a client that
        kept it empty would pay one token a call): the client's next calls wait until it is
        paid, for at most two refills."""
        if tokens <= 0:
            return
        now = self._clock()
        buckets = self._buckets
        for key, interval in self._keys(client):
            full_at = max(buckets.get(key, now), now) + tokens * interval
            buckets[key] = min(full_at, now + 2 * self.refill_s)
            buckets.move_to_end(key)
        while len(buckets) > self.max_buckets:
            buckets.popitem(last=False)

    def give_back(self, client: str, tokens: int = 1) -> None:
        """Return ``tokens`` taken for something that did not happen (a refused or replayed
        call changes nothing)."""
        now = self._clock()
        buckets = self._buckets
        for key, interval in self._keys(client):
            full_at = buckets.get(key)
            if full_at is None:
                continue  # full already, or forgotten: as full as it can be
            full_at -= interval * tokens
            if full_at <= now:
                del buckets[key]  # full again
            else:
                buckets[key] = full_at
                buckets.move_to_end(key)

    def _site(self, client: str) -> str | None:
        """The IPv6 site whose bucket ``client``'s takes also spend from (``site_of``), if any."""
        return site_of(client) if self.sites else None

    def _keys(self, client: str) -> list[tuple[str, float]]:
        """The buckets a take of ``client``'s spends from, with what one token takes to come back
        in each: its own, and its IPv6 site's."""
        site = self._site(client)
        keys = [(client, self._interval)]
        if site is not None:
            keys.append((site, self._site_interval))
        return keys

    def _prune(self, now: float) -> None:
        self._prune_at = now + self._prune_every_s
        _forget_until(self._buckets, now)  # full buckets; one still filling stops the look till the next


class CallRate(ClientBuckets):
    """A token bucket of unary calls per client: ``burst`` at once, then ``per_second``; past it
    RESOURCE_EXHAUSTED ``CALL_RATE_EXCEEDED`` with a retry hint. The cap on calls in flight
    (``limits.CallLimit``) bounds what a client holds at once; only a rate bounds its share of
    the replica's time.

    A client over its rate often has many calls in flight at once (a bot farm behind one
    address): were they all hinted the next token, they would all come back together, one would
    be let in and the rest refused again, round after round. So the refusals of one client are
    hinted consecutive tokens, one refill interval apart (never more than a whole refill ahead):
    its retries come back at the rate it is allowed. The hint is all a refusal books; the bucket
    is left as it was, and a call that comes first still takes the token.

    A client whose refusals fill the whole refill with hints (more refused calls than a burst,
    faster than its rate: it does not wait as it is told) is ``flooding`` for a refill after the
    last of them; the REST face closes its connections then (``hustings.service.rest``)."""

    def __init__(
        self,
        per_second: float = DEFAULT_CALLS_PER_CLIENT_PER_SECOND,
        burst: int = DEFAULT_CALL_BURST,
        max_buckets: int = DEFAULT_MAX_BUCKETS,
        clock: Callable[[], float] = time.monotonic,
        sites: int = DEFAULT_CLIENTS_PER_IPV6_SITE,
    ) -> None:
        super().__init__(per_second, burst, call_rate_exceeded, max_buckets, clock, sites)
        # client -> the token last hinted to one of its refused calls, least recently booked
        # first; dropped once that time has passed, bounded like the buckets.
        self._hinted: collections.OrderedDict[str, float] = collections.OrderedDict()
        # client -> until when it counts as flooding, least recently refused first; bounded alike.
        self._flooding: collections.OrderedDict[str, float] = collections.OrderedDict()

    def flooding(self, client: str) -> bool:
        """Whether ``client``, or its IPv6 site, was refused, within the last refill, a call
        hinted a whole refill ahead: it has had more calls refused than a burst, faster than its
        rate (a site: more than its burst, over all its clients)."""
        flooding = self._flooding
        if not flooding:
            return False
        now = self._clock()
        until = flooding.get(client)
        if until is not None and until > now:
            return True
        site = self._site(client)
        until = flooding.get(site) if site is not None else None
        return until is not None and until > now

    def flood(self, client: str) -> None:
        """Count ``client`` as flooding for a refill from now, as if it had had a burst of calls
        refused: for a request no client sends but to cost the replica (``rest._unread_bodies_closed``)."""
        now = self._clock()
        flooding = self._flooding
        flooding[client] = now + self.refill_s
        flooding.move_to_end(client)
        if len(flooding) > self.max_buckets:
            flooding.popitem(last=False)

    def _prune(self, now: float) -> None:
        super()._prune(now)
        _forget_until(self._hinted, now)  # hints whose token has come
        _forget_until(self._flooding, now)

    def _hint_s(self, client: str, next_token_at: float, now: float, site: str | None = None) -> float:
        slot = self._book(client, self._interval, next_token_at, now)
        if site is not None:
            # The calls the site's bucket refused are hinted its consecutive tokens too: many
            # /64s of one site come back at the site's rate, and past a whole refill of them it
            # is flooding. A call its client's own bucket refused books nothing of the site's:
            # one /64 far past its own rate is flooding alone, never its neighbours.
            site_slot = self._book(site, self._site_interval, next_token_at, now)
            if site_slot > slot:
                slot = site_slot
        return slot - now

    def _book(self, key: str, interval: float, next_token_at: float, now: float) -> float:
        """The hint slot of ``key``'s next refused call: a token after its last one's, and no
        sooner than ``next_token_at``; past a whole refill ahead ``key`` is flooding."""
        hinted = self._hinted
        slot = hinted.get(key, -math.inf) + interval
        if slot < next_token_at:
            slot = next_token_at
        if slot > now + self.refill_s:
            slot = now + self.refill_s  # more waiters than a burst: they share the last slot
            flooding = self._flooding
            flooding[key] = now + self.refill_s
            flooding.move_to_end(key)
            if len(flooding) > self.max_buckets:
                flooding.popitem(last=False)
        hinted[key] = slot
        hinted.move_to_end(key)
        if len(hinted) > self.max_buckets:
            hinted.popitem(last=False)
        return slot


def _forget_until(times: "collections.OrderedDict[str, float]", now: float) -> None:
    """Drop the entries from the front of ``times`` (least recently touched first) that are not
    after ``now``, up to the first that is."""
    while times:
        key = next(iter(times))
        if times[key] > now:
            break
        del times[key]


class CreationLimit(ClientBuckets):
    """A token bucket per client for CreateGame: ``burst`` games at once, then ``per_minute``;
    past it RESOURCE_EXHAUSTED ``TOO_MANY_GAMES_CREATED`` with a retry hint."""

    def __init__(
        self,
        per_minute: float = DEFAULT_CREATES_PER_MINUTE,
        burst: int = DEFAULT_CREATE_BURST,
        max_buckets: int = DEFAULT_MAX_BUCKETS,
        clock: Callable[[], float] = time.monotonic,
        sites: int = DEFAULT_CLIENTS_PER_IPV6_SITE,
    ) -> None:
        if not per_minute > 0:
            raise ValueError("the creation rate, burst and table size must be positive")
        super().__init__(per_minute / 60.0, burst, too_many_games_created, max_buckets, clock, sites)
        # (client, request id) -> set when the attempt of it running here ends; at most one
        # entry per CreateGame in flight on this replica, which the call caps bound.
        self._creating: dict[tuple[str, str], asyncio.Event] = {}

    def claim(self, client: str, games: int = 1) -> "CreationCharge":
        """``games`` of ``client``'s games (one, or what a table of strong bots counts as) if it
        has them; else a charge that holds the refusal, for the host to raise unless the call
        turns out to retry a create that happened."""
        games = min(games, int(self.burst))  # never more than a full allowance: it would never come
        try:
            self.take(client, games)
        except RetryLater as refusal:
            return CreationCharge(self, client, refusal)
        return CreationCharge(self, client, None, games)

    @contextlib.asynccontextmanager
    async def thinking_bot(self, client: str, level: str) -> AsyncIterator[None]:
        """Charge an AddBot of ``level`` run in the block: ``bot_games(level)`` games (refused
        TOO_MANY_GAMES_CREATED with the wait when the client has not that many), given back when
        the call fails before its commit goes out (``current_creation`` there: the host marks it
        ``sent``)."""
        games = min(bot_games(level), int(self.burst))
        if games:
            try:
                self.take(client, games)
            except RetryLater as refusal:
                metrics.refused_creation(refusal.reason)
                raise
        charge = CreationCharge(self if games else None, client, None, games)
        current = _CURRENT_CREATION.set(charge)  # the host marks it ``sent`` as its commit goes out
        try:
            yield
        except BaseException:
            charge.failed()  # given back unless the bot's commit went out
            raise
        finally:
            _CURRENT_CREATION.reset(current)

    @contextlib.asynccontextmanager
    async def spend(self, client: str, request_id: str = "", games: int = 1) -> AsyncIterator["CreationCharge"]:
        """``client``'s charge for a CreateGame run in the block (``current_creation`` there),
        its game given back when the block fails.

        Attempts of one request id from one client are one logical create, so on this replica
        they run one after another: an attempt that overlaps another waits for it to end before
        it claims. Otherwise an attempt that found the allowance emptied by the first could only
        look for the first's game before it is written, and be refused while its game is being
        made. Each attempt after the first then finds that game and is answered with it, taking
        nothing. The wait is bounded by the call's own deadline."""
        key = (client, request_id)
        if request_id:
            while (ahead := self._creating.get(key)) is not None:
                await ahead.wait()
            self._creating[key] = done = asyncio.Event()
        try:
            charge = self.claim(client, games)
            current = _CURRENT_CREATION.set(charge)
            try:
                yield charge
            except BaseException:
                charge.failed()  # a create that failed before its commit went out costs nothing
                raise
            finally:
                _CURRENT_CREATION.reset(current)
        finally:
            if request_id:
                del self._creating[key]
                done.set()


class CreationCharge:
    """One CreateGame's claim on its client's bucket, settled by the host: only the host learns
    whether the call creates a game or retries, under the same request id, one that was created
    (the README's safe retry), and a retry must cost nothing, or a client that lost an answer at
    the end of its allowance could never learn its game.

    The common case costs no extra round trip: a game is taken at once when the bucket has one
    (no await between looking and taking, so calls in flight together cannot overdraw it) and
    given back by ``replayed`` when the create turns out to be a retry. From an empty bucket
    nothing is taken; ``refusal`` is set, and the host, before writing anything, answers a retry
    of a create that happened (a read) and raises ``refusal`` for anything else."""

    __slots__ = ("_limit", "_client", "_taken", "_games", "_sent", "refusal")

    def __init__(self, limit: CreationLimit | None, client: str, refusal: RetryLater | None, games: int = 1) -> None:
        self._limit = limit
        self._client = client
        self._taken = limit is not None and refusal is None
        self._games = games
        self._sent = False
        self.refusal = refusal

    @property
    def client(self) -> str:
        """The client address charged; empty for a create outside any limit."""
        return self._client

    @property
    def committed(self) -> bool:
        """Whether the creating commit went out (``sent``): its game may be made."""
        return self._sent

    def sent(self, going: bool = True) -> None:
        """The creating commit (or an AddBot's) is going to Redis: from here the game may be made
        whatever becomes of the call (cancelled, past its deadline, its reply lost), so a failure
        keeps the charge. Else a client that gave up on each call at that moment would create for
        free. ``going`` False: that commit was refused by its version, and made nothing. (A call
        outside any limit shares ``UNLIMITED_CREATION``, which has nothing to keep.)"""
        if self._limit is not None:
            self._sent = going

    def failed(self) -> None:
        """The call failed: its games are given back unless its commit went out (``sent``)."""
        if not self._sent:
            self.replayed()

    def replayed(self) -> None:
        """The call answers a create that happened already: give its games back, if it took any."""
        if self._taken and self._limit is not None:
            self._taken = False
            self._limit.give_back(self._client, self._games)


# A CreateGame outside any face's limit (a tool's or a test's own call to the host) is free.
UNLIMITED_CREATION = CreationCharge(None, "", None)
# The charge of the CreateGame this task runs: set by ``CreationLimit.spend`` around the call, so
# that the host settles it without every face handing it down.
_CURRENT_CREATION: contextvars.ContextVar[CreationCharge] = contextvars.ContextVar(
    "hustings_creation_charge", default=UNLIMITED_CREATION
)


def current_creation() -> CreationCharge:
    """The charge of the CreateGame being run (``UNLIMITED_CREATION`` outside ``spend``)."""
    return _CURRENT_CREATION.get()


class _LeaveCharge:
    """A LeaveGame's charge, paid once, when its commit first goes out."""

    __slots__ = ("_rate", "_client", "_paid")

    def __init__(self, rate: ClientRate, client: str) -> None:
        self._rate = rate
        self._client = client
        self._paid = False

    def pay(self) -> None:
        if not self._paid:
            self._paid = True
            self._rate.charge(self._client, LEAVE_CALLS)


# The charge of the LeaveGame this task runs (``ClientLimits.leaving``); none outside a face's call.
_CURRENT_LEAVE: contextvars.ContextVar[_LeaveCharge | None] = contextvars.ContextVar("hustings_leave_charge", default=None)


def leave_committing() -> None:
    """The LeaveGame being run sends its commit: its client pays for it (once)."""
    charge = _CURRENT_LEAVE.get()
    if charge is not None:
        charge.pay()


# The client address of the JoinGame this task runs (``ClientLimits.joining``); "" outside a face's call.
_CURRENT_JOINER: contextvars.ContextVar[str] = contextvars.ContextVar("hustings_joiner", default="")


def current_joiner() -> str:
    """The client address of the JoinGame being run ("" for a caller in the same process)."""
    return _CURRENT_JOINER.get()


def _calls_at_default_rate() -> CallLimit:
    return CallLimit(rate=CallRate())


@dataclass
class ClientLimits:
    """A replica's per-client limits, shared by its gRPC and REST faces: calls in flight and
    their rate (``calls.rate``), game creation and who a client is."""

    calls: CallLimit = field(default_factory=_calls_at_default_rate)
    creations: CreationLimit = field(default_factory=CreationLimit)
    addresses: ClientAddresses = field(default_factory=ClientAddresses)
    unread: UnreadBytes = field(default_factory=UnreadBytes)  # large stream updates not yet read

    def flooding(self, client: str) -> bool:
        """Whether ``client`` is far past its call rate (``CallRate.flooding``)."""
        rate = self.calls.rate
        return isinstance(rate, CallRate) and rate.flooding(client)

    def flood(self, client: str) -> None:
        """Count ``client`` as flooding (``CallRate.flood``), where there is a call rate."""
        rate = self.calls.rate
        if isinstance(rate, CallRate):
            rate.flood(client)

    def charge_steps(self, client: str, steps: int) -> None:
        """Count a call that handed out ``steps`` log entries (a GetHistory page) as one call
        more per ``STEPS_PER_CALL`` of them towards ``client``'s rate (never refused: the page
        is answered; the client's next calls wait)."""
        if self.calls.rate is not None:
            self.calls.rate.charge(client, calls_for_steps(steps))

    @contextlib.contextmanager
    def leaving(self, client: str) -> Iterator[None]:
        """Run a LeaveGame whose commit, once it goes out (``leave_committing``), counts as
        ``LEAVE_CALLS`` calls more towards ``client``'s rate (never refused: the client's next
        calls wait). Charged as the commit goes out, not after the answer: a call given up on
        (its deadline short) once its commit had gone left its seat for one call."""
        rate = self.calls.rate
        if rate is None:
            yield
            return
        charge = _CURRENT_LEAVE.set(_LeaveCharge(rate, client))
        try:
            yield
        finally:
            _CURRENT_LEAVE.reset(charge)

    @contextlib.contextmanager
    def joining(self, client: str) -> Iterator[None]:
        """Run a JoinGame of ``client`` (``current_joiner``): its seat at a listed table another
        client made counts towards its bound (``GameHost.seats_held``)."""
        joiner = _CURRENT_JOINER.set(client)
        try:
            yield
        finally:
            _CURRENT_JOINER.reset(joiner)

    @classmethod
    def configured(
        cls,
        max_calls: int = DEFAULT_MAX_CALLS,
        max_calls_per_client: int = DEFAULT_MAX_CALLS_PER_CLIENT,
        creates_per_minute: float = DEFAULT_CREATES_PER_MINUTE,
        create_burst: int = DEFAULT_CREATE_BURST,
        trusted_proxies: Iterable[str] = (),
        calls_per_client_per_second: float = DEFAULT_CALLS_PER_CLIENT_PER_SECOND,
        call_burst: int = DEFAULT_CALL_BURST,
        clients_per_ipv6_site: int = DEFAULT_CLIENTS_PER_IPV6_SITE,
    ) -> "ClientLimits":
        """The limits as a replica's flags give them."""
        sites = clients_per_ipv6_site
        return cls(
            CallLimit(max_calls, max_calls_per_client, CallRate(calls_per_client_per_second, call_burst, sites=sites)),
            CreationLimit(creates_per_minute, create_burst, sites=sites),
            ClientAddresses(trusted_proxies),
        )
