"""Fair limits of one replica: open streams counted apart from unary calls.

Streams are long-lived and cheap to hold, unary calls are short; sharing one counter (as gRPC's
``maximum_concurrent_rpcs`` does) would let one client that holds many streams starve every
other client's calls. So each has its own count here:

- streams: at most ``max_streams`` (``max_watchers``) on the replica, at most
  ``max_per_address`` from one client address (gRPC and Server-Sent Events together), at most
  ``max_per_client`` from one client, at most ``max_per_seat`` with one seat token, and at most
  ``max_per_game`` of one game from one client address (each step of a game is written to every
  stream of it: one address held 1,000 streams of a game whose steps it made itself, a call
  each, and each such call cost the streams' replica 64 ms, 58 calls' worth);
- unary calls: at most ``max_calls`` in flight on the replica, at most ``max_per_client`` from
  one client, and no faster than that client's ``rate`` allows (a token bucket per client
  address, ``client_limits.CallRate``): the cap in flight bounds how much a client holds at once,
  not how much of the replica it takes, since calls answered quickly free their places at once.

A client address is what ``service/client_limits.py`` says (the peer's IP, an IPv6 peer's /64, or
the one a trusted proxy forwards): one machine may open many connections, so only a cap per
address keeps a few machines from holding every stream of a replica. For unary calls a client is
that address. For streams a client is also the connection a stream arrives on
(``grpc:<peer address and port>``: one gRPC channel multiplexes all its streams over one HTTP/2
connection), or for Server-Sent Events the client address (``rest:<address>``: every event stream
has an HTTP/1.1 connection of its own, so a connection would count one stream). Everything past a
cap is RESOURCE_EXHAUSTED with a reason, and no refusal names the address or the token.
"""

from __future__ import annotations

import contextlib
import hashlib
from typing import Any, Callable, Iterable, Iterator, Protocol

from hustings.service.defaults import CALL_ROOM_PER_CONNECTION, DEFAULT_MAX_STREAMS_PER_CONNECTION
from hustings.service.errors import exhausted
from hustings.service.sites import site_of

# The largest request answered, over gRPC and REST alike; a larger one is RESOURCE_EXHAUSTED
# REQUEST_TOO_LARGE. Every request of the API is a few hundred bytes. A call's body is held in
# memory while it arrives (over gRPC up to twice this: its backstop), so this bound times the
# calls a replica admits is what bodies in flight can hold.
MAX_REQUEST_BYTES = 64 << 10
DEFAULT_MAX_STREAMS = 10_000
DEFAULT_MAX_STREAMS_PER_CLIENT = 1_000
# A fifth of the replica's streams: four busy addresses (a NAT, a crawler, a load test) at their
# cap still leave 2,000 streams to everyone else, and an office or a classroom behind one address
# still holds its thousands.
DEFAULT_MAX_STREAMS_PER_ADDRESS = 2_000
DEFAULT_MAX_STREAMS_PER_SEAT = 32
# /64s of a full IPv6 site looked at for a stream to give way (``StreamLimits._giver``), the most first.
ROOM_LOOKS = 64
# The client key of a gRPC connection (``ClientAddresses.connection_of``) from a peer that is no trusted
# proxy: its streams are capped by the connection's room as well as by the per-client cap. A
# trusted proxy's connections carry many clients; it opens another connection at the cap.
DIRECT_CONNECTION = "grpc:"
# Streams of one game from one client address: every player of a table and the spectators of a
# household, an office or a classroom behind one address, while a step's writes to them (about
# 50 µs each) stay within a few calls' worth of the replica.
DEFAULT_MAX_STREAMS_PER_GAME = 64
DEFAULT_MAX_CALLS = 2_048
# A quarter of the replica's calls: no one address can take them all, and the suite's heaviest
# bursts from loopback (500 views at once) and the load test's clients (16-32) fit under it.
DEFAULT_MAX_CALLS_PER_CLIENT = 512
# Unary calls from one client address, sustained and at once (client_limits.CallRate). A person at
# a table makes about one call a second, a bot tens, a bot farm or a classroom behind one address
# a few hundred. A replica on 2 cores answers 2,000-3,000 cheap calls a second, but GetView of a
# game only about 900 with its callers on the same cores: at 300 a second one address takes from
# a tenth to a third of a replica, and an address that keeps its calls in flight no longer takes
# it all. The burst, two seconds' worth, lets a page of tables or a round of bots start at once.
DEFAULT_CALLS_PER_CLIENT_PER_SECOND = 300.0
DEFAULT_CALL_BURST = 600
# Log entries one call's worth of the rate pays for. Reading, filtering and sending a step costs
# about 9 µs on 2 cores (a page of 1,000 steps 9 ms, a WatchGame caught up over 2,527 steps 21
# ms), a GetView about 0.9 ms: so a GetHistory page or the catch-up of a WatchGame counts as one
# call more per 100 steps it hands out, and one address cannot take a replica with long pages
# and streams opened from version 0 at the rate of its cheap calls.
STEPS_PER_CALL = 100
# Log entries' worth that one game listed by ListGames counts as: reading and filling a game's
# summary takes about 6 µs (a gRPC page of 200 games 2.1 ms, of one game 0.9 ms), a step 9 µs.
STEPS_PER_LISTED_GAME = 1
# JSON the REST face writes for one call's worth of a replica's time: writing an answer as JSON
# takes about 1 ms per 8-9 kB, several times what the answer cost to make (a page of 200 games,
# 100 kB: 14 ms over REST, 2.1 ms over gRPC; the whole history of a finished 352-step Spin Doctors
# game, 237 kB: 28 ms, 4.6 ms over gRPC). Counted as one call each, such answers let one address
# keep a replica's loop busy (68 lobby pages a second took a whole core) below its rate.
RENDERED_BYTES_PER_CALL = 8 << 10
# Calls more that a LeaveGame applied counts as. Leaving and coming back are steps that no rule
# bounds, each kept with its game for the retention time (about 100 bytes of Redis): one address
# leaving and taking back its seats at its rate of calls wrote 283 steps a second, 2.5 GB a day,
# three times what its allowance of new games lets it keep (0.8 GB a day). Every such round has a
# leave in it (a seat is left, or times out twice, before it is returned to or taken over), so the
# leave pays: a round costs 34 calls for its two steps, and the same address wrote 16-18 steps a
# second (0.15 GB a day). Joins and returns stay one call each (a classroom joining its tables at
# once, a bot coming back after a dropped connection); a person leaves a table now and then.
LEAVE_CALLS = 32


def steps_for_rendered(size: int) -> int:
    """The log entries' worth (see STEPS_PER_CALL) of writing ``size`` bytes of JSON."""
    return max(0, size) * STEPS_PER_CALL // RENDERED_BYTES_PER_CALL


def seat_key(token: str) -> str:
    """The key that counts one seat token's streams (a hash: tokens are never kept in memory
    longer than a call, nor logged)."""
    return hashlib.sha256(b"streams:" + token.encode()).hexdigest()


class Held:
    """One stream counted by ``StreamLimits.hold``. While it follows its game (``follow``), it
    may be asked to give way to another client of its IPv6 site, or of the replica when the
    replica is full (``gave_way``; its ``wake`` is set so that it sees so at once); it then
    counts in its site and towards the replica's cap no more."""

    __slots__ = ("address", "site", "room", "seated", "counted", "wake", "gave_way", "to_replica", "room_from", "aside", "ended")

    def __init__(self, address: str, site: str | None, seated: bool = False) -> None:
        self.address = address
        self.room = site if site is not None else address  # what it counts under towards the replica's cap
        self.seated = seated  # a player's stream (with a seat token): asked to give way after spectators' streams
        self.site = site  # the IPv6 site it counts in, until it gives way (None: none)
        self.counted = True  # counted towards the replica's cap, until it gives way
        self.wake: Any = None  # the stream's asyncio.Event, while it follows its game
        self.gave_way = False
        self.to_replica = False  # set aside (and then gave way) at the replica's cap, not its site's
        self.room_from: Held | None = None  # the stream set aside to give way once this one follows
        self.aside = False  # set aside to give way to another, which has not followed its game yet
        self.ended = False


class StreamLimits:
    """The open streams of a replica, by client address, by client and by seat token, with
    their caps."""

    def __init__(
        self,
        max_streams: int = DEFAULT_MAX_STREAMS,
        max_per_client: int = DEFAULT_MAX_STREAMS_PER_CLIENT,
        max_per_seat: int = DEFAULT_MAX_STREAMS_PER_SEAT,
        max_per_address: int = DEFAULT_MAX_STREAMS_PER_ADDRESS,
        max_per_game: int = DEFAULT_MAX_STREAMS_PER_GAME,
        max_per_connection: int = DEFAULT_MAX_STREAMS_PER_CONNECTION,
    ) -> None:
        if min(max_streams, max_per_client, max_per_seat, max_per_address, max_per_game) < 1:
            raise ValueError("stream limits must be at least 1")
        if max_per_connection <= CALL_ROOM_PER_CONNECTION:
            raise ValueError(f"streams per connection must be more than {CALL_ROOM_PER_CONNECTION}")
        self.max_streams = max_streams
        self.max_per_client = max_per_client
        self.max_per_connection = max_per_connection  # HTTP/2 streams of a gRPC connection, calls included
        # The streams a gRPC connection from no trusted proxy may hold.
        self.max_per_direct_connection = min(max_per_client, max_per_connection - CALL_ROOM_PER_CONNECTION)
        self.max_per_seat = max_per_seat
        self.max_per_address = max_per_address
        self.max_per_game = max_per_game
        self.open = 0
        # The per-address rate of calls (the replica's faces share it), which a stream's catch-up
        # counts towards; None: catch-ups are free (a host without faces, in a tool or a test).
        self.rate: ClientRate | None = None
        # Whether the /64s of one IPv6 site (``site_of``: its /48, which one machine can be
        # routed) together hold no more streams than one address may: five /64s of a site held
        # every stream of a replica when each counted alone. False for ``--clients-per-ipv6-site
        # 0`` (no limits by site).
        self.sites = True
        self._by_address: dict[str, int] = {}
        # By IPv6 site (an IPv4 address, or an IPv6 one with sites off, alone), the streams counted
        # towards the replica's cap (those that gave way not): at the cap the site holding the
        # most gives way to one holding fewer. By address, five sites, one stream per /64 of each,
        # held every stream of a replica, and not one /64 held more than a newcomer.
        self._counted = Tally()
        self._by_site: dict[str, Tally] = {}  # by site: the streams of each of its /64s
        self._followers = Lines()  # by address: its streams that may give way, oldest first
        self._aside: dict[str, int] = {}  # by address and by site: streams set aside to give way, not yet gone
        self._by_client: dict[str, int] = {}
        self._by_seat: dict[str, int] = {}
        self._by_game: dict[str, int] = {}  # "<address> <game id>"

    def check(self, client: str, token: str | None, address: str | None = None, game_id: str = "") -> None:
        """Refuse now, before a stream starts, what ``hold`` and ``catch_up`` would refuse (a
        face that must answer before streaming, like Server-Sent Events, asks first); nothing is
        spent."""
        address = address if address is not None else client
        self._refuse_over_cap(address, client, seat_key(token) if token else None, game_id)
        if self.rate is not None:
            self.rate.take(address)  # refused with the rate's hint when the address has no call left
            self.rate.give_back(address)

    def catch_up(self, address: str, steps: int) -> None:
        """Count a stream's opening, whose first update hands out ``steps`` log entries, towards
        the rate of calls of its client ``address``: one call, as a unary call is (opening a
        stream costs a replica what a GetView does, and one address opened and closed 1,938 a
        second while they were free), and one more per STEPS_PER_CALL steps. Refused with the
        rate's retry hint when the address has no call left, and then nothing is spent;
        otherwise the rest of the cost is spent even past the address's allowance, so that its
        next calls wait."""
        if self.rate is not None:
            self.rate.take(address)
            self.rate.charge(address, calls_for_steps(steps))

    def _refuse_over_cap(self, address: str, client: str, seat: str | None, game_id: str = "") -> tuple[Held | None, bool]:
        """Refuse what a cap refuses; else the stream that would give way to this one in its
        full IPv6 site or its full replica (``_giver``), if one must. The widest cap first: its
        reason tells the caller the most (another replica, then another address's share, then
        this connection's). With the giver, whether it gives way at the replica's cap."""
        giver = None
        replica_full = self._counted.total >= self.max_streams
        if replica_full:
            # The site (or address) holding the most gives way, if it holds more than one more
            # than this one's: five addresses at their cap held every stream of a replica, and
            # every other client, a player's stream of its own game included, was refused.
            giver = self._giver(self._counted, self._room_of(address), self._members)
            if giver is None:
                raise exhausted(
                    "TOO_MANY_WATCHERS",
                    f"this replica serves its maximum of {self.max_streams} streams; try another",
                )
        if self._by_address.get(address, 0) >= self.max_per_address:
            raise exhausted(
                "TOO_MANY_STREAMS_FOR_ADDRESS",
                f"this client address holds its maximum of {self.max_per_address} streams on this replica; close one first",
            )
        site = site_of(address) if self.sites else None
        full = site is not None and self.held_in_site(site) >= self.max_per_address
        if full:  # a stream of the site's gives way: it frees a place of the replica's too
            giver = self._giver(self._by_site.get(site), address, lambda holder: (holder,))  # type: ignore[arg-type]
        if full and giver is None:
            raise exhausted(
                "TOO_MANY_STREAMS_FOR_ADDRESS",
                f"this client's IPv6 site (its /48) holds the maximum of one address, {self.max_per_address} streams,"
                " on this replica; close one first",
            )
        held = self._by_client.get(client, 0)
        if client.startswith(DIRECT_CONNECTION) and held >= self.max_per_direct_connection:
            raise exhausted(
                "TOO_MANY_STREAMS_FOR_CLIENT",
                f"this connection holds its maximum of {self.max_per_direct_connection} streams"
                f" (the rest of its {self.max_per_connection} are kept for calls); close one, or open another connection",
            )
        if held >= self.max_per_client:
            raise exhausted(
                "TOO_MANY_STREAMS_FOR_CLIENT",
                f"this client holds its maximum of {self.max_per_client} streams; close one first",
            )
        if seat is not None and self._by_seat.get(seat, 0) >= self.max_per_seat:
            raise exhausted(
                "TOO_MANY_STREAMS_FOR_SEAT",
                f"this seat token holds its maximum of {self.max_per_seat} streams; close one first",
            )
        if game_id and self._by_game.get(f"{address} {game_id}", 0) >= self.max_per_game:
            raise exhausted(
                "TOO_MANY_STREAMS_FOR_GAME",
                f"this client address holds its maximum of {self.max_per_game} streams of this game on this replica; close one first",
            )
        return giver, replica_full and not full

    def held_by(self, client: str) -> int:
        """How many streams ``client`` holds now."""
        return self._by_client.get(client, 0)

    def held_from(self, address: str) -> int:
        """How many streams the client address ``address`` holds now, over all its connections."""
        return self._by_address.get(address, 0)

    def held_in_site(self, site: str) -> int:
        """How many streams the /64s of the IPv6 site ``site`` hold now (those that gave way not)."""
        holders = self._by_site.get(site)
        return holders.total if holders is not None else 0

    def _room_of(self, address: str) -> str:
        """What ``address``'s streams count under towards the replica's cap: its IPv6 site, or itself."""
        return SiteTally.room_of(address) if self.sites else address

    def _members(self, room: str) -> Iterable[str]:
        """The addresses counted under ``room``: a site's /64s, the one holding the most first."""
        holders = self._by_site.get(room)
        return (room,) if holders is None else (address for address, _ in holders.heaviest_first())

    def _giver(self, holders: "Tally | None", key: str, members: Callable[[str], Iterable[str]]) -> Held | None:
        """The stream that would give way so that ``key`` (an address among the /64s of its full
        IPv6 site; its site, or itself, among the holders of the full replica) may hold one more
        among ``holders``: of the holder holding the most that has one (of its ``members``, the
        address holding the most first), the oldest spectator's stream that follows its game
        (else the oldest player's; none set aside for another already), if that holder holds
        more than one more than ``key``, its streams set aside not counted (newcomers arriving
        together took every stream of the heaviest when those still counted); else None (equals
        never take turns). ``ROOM_LOOKS`` holders at most."""
        if holders is None:
            return None
        mine = holders.get(key) + 1
        for looked, (holder, count) in enumerate(holders.heaviest_first(above=mine)):
            if count - self._aside.get(holder, 0) > mine:
                for address in members(holder):
                    waiting = [f for f in self._followers.of(address) if not f.aside]
                    giver = next((f for f in waiting if not f.seated), waiting[0] if waiting else None)
                    if giver is not None:
                        return giver
            if looked + 1 >= ROOM_LOOKS:
                break
        return None

    def _set_aside(self, giver: Held, to_replica: bool) -> None:
        giver.aside, giver.to_replica = True, to_replica  # no other newcomer takes it too
        for key in {giver.address, giver.room}:  # as its address, and as its site, counts it
            self._aside[key] = self._aside.get(key, 0) + 1

    def _not_aside(self, giver: Held) -> None:
        if giver.aside:
            giver.aside = False
            for key in {giver.address, giver.room}:
                count_down(self._aside, key)

    def follow(self, held: Held, wake: Any) -> None:
        """``held`` follows its game now, woken by ``wake``: it may be asked to give way. The
        stream set aside to make room for it (``hold``) gives way now: not before, so that a
        stream refused on its way (past its client's rate, a game that does not exist) ends
        nobody else's."""
        held.wake = wake
        self._followers.add(held.address, held)
        giver, held.room_from = held.room_from, None
        if giver is not None:
            self._not_aside(giver)
        if giver is not None and not giver.ended:
            self.unfollow(giver)
            giver.gave_way = True
            self._leave_site(giver)  # the site counts it no more: its cap holds while it ends
            self._uncount(giver)  # nor the replica
            giver.wake.set()

    def unfollow(self, held: Held) -> None:
        """``held`` follows its game no more."""
        self._followers.discard(held.address, held)

    def _uncount(self, held: Held) -> None:
        if held.counted:
            held.counted = False
            self._counted.down(held.room)

    def _leave_site(self, held: Held) -> None:
        site, held.site = held.site, None
        if site is None:
            return
        holders = self._by_site[site]
        holders.down(held.address)
        if not holders.total:
            del self._by_site[site]

    @contextlib.contextmanager
    def hold(self, client: str, token: str | None, address: str | None = None, game_id: str = "") -> Iterator[Held]:
        """Count one stream of ``client`` from ``address`` (with ``token``, if any; of
        ``game_id``, if any) while the block runs; refuse it with RESOURCE_EXHAUSTED when a cap
        is reached, and then count nothing. Without an address (a caller in the same process)
        the client stands for it. At the cap of its IPv6 site, the site's /64 holding the most,
        if it holds more than one more than this one, gives way: its oldest stream that follows
        its game is set aside, and ends (``gave_way``) once this one follows its game
        (``follow``); if this one ends first, it is given back. Before, one /64 holding its
        address's cap kept every other /64 of its /48 (a tunnel broker's or a mobile network's
        customers) from any stream. So too at the replica's cap: the IPv6 site (or address)
        holding the most streams gives way, if it holds more than one more than this one's."""
        address = address if address is not None else client
        seat = seat_key(token) if token else None
        giver, to_replica = self._refuse_over_cap(address, client, seat, game_id)
        site = site_of(address) if self.sites else None
        held = Held(address, site, seated=seat is not None)
        if giver is not None:
            held.room_from = giver
            self._set_aside(giver, to_replica)
        self.open += 1
        self._counted.up(held.room)
        self._by_address[address] = self._by_address.get(address, 0) + 1
        if site is not None:
            self._by_site.setdefault(site, Tally()).up(address)
        self._by_client[client] = self._by_client.get(client, 0) + 1
        if seat is not None:
            self._by_seat[seat] = self._by_seat.get(seat, 0) + 1
        watched = f"{address} {game_id}"
        if game_id:
            self._by_game[watched] = self._by_game.get(watched, 0) + 1
        try:
            yield held
        finally:
            held.ended = True
            self.unfollow(held)
            if held.room_from is not None:  # it never followed: the stream set aside follows on
                self._not_aside(held.room_from)
                held.room_from.to_replica = False
            self.open -= 1
            self._uncount(held)
            count_down(self._by_address, address)
            self._leave_site(held)
            count_down(self._by_client, client)
            if seat is not None:
                count_down(self._by_seat, seat)
            if game_id:
                count_down(self._by_game, watched)


class ClientRate(Protocol):
    """How fast each client may call (``client_limits.CallRate``: a token bucket per client)."""

    def take(self, client: str) -> None:
        """Spend one of ``client``'s calls, or raise RESOURCE_EXHAUSTED with a retry hint (and
        then spend nothing)."""

    def charge(self, client: str, tokens: int) -> None:
        """Spend ``tokens`` more of ``client``'s calls without refusing (what a call let in
        turned out to cost); its next calls wait for the bucket to refill."""

    def give_back(self, client: str) -> None:
        """Return one call taken for something that did not happen."""


def calls_for_steps(steps: int) -> int:
    """The calls beyond its own that a call handing out ``steps`` log entries counts as."""
    return max(0, steps) // STEPS_PER_CALL


class CallLimit:
    """Unary calls in flight on a replica and from each client, with their own caps, and each
    client's rate when ``rate`` is given (streams do not count)."""

    def __init__(
        self,
        max_calls: int = DEFAULT_MAX_CALLS,
        max_per_client: int = DEFAULT_MAX_CALLS_PER_CLIENT,
        rate: ClientRate | None = None,
    ) -> None:
        if min(max_calls, max_per_client) < 1:
            raise ValueError("call limits must be at least 1")
        self.max_calls = max_calls
        self.max_per_client = max_per_client
        self.rate = rate
        self.in_flight = 0
        self.by_client: dict[str, int] = {}  # only clients with calls in flight

    def hold(self, client: str) -> "_Call":
        """Count one call of ``client`` while the block (``with limit.hold(client):``) runs;
        RESOURCE_EXHAUSTED past either cap or past the client's rate, and then nothing is
        counted or spent. A plain class, not a generator-based context manager: every call
        (every move) enters it."""
        return _Call(self, client)


class _Call:
    """One unary call counted by a CallLimit while its block runs."""

    __slots__ = ("limit", "client")

    def __init__(self, limit: CallLimit, client: str) -> None:
        self.limit = limit
        self.client = client

    def __enter__(self) -> None:
        limit = self.limit
        if limit.in_flight >= limit.max_calls:
            raise exhausted("TOO_MANY_CALLS", f"this replica has {limit.max_calls} calls in flight; retry shortly")
        by_client = limit.by_client
        held = by_client.get(self.client, 0)
        if held >= limit.max_per_client:
            raise exhausted(
                "TOO_MANY_CALLS_FOR_CLIENT",
                f"this client has its maximum of {limit.max_per_client} calls in flight on this replica; retry shortly",
            )
        if limit.rate is not None:
            # Last: a call refused for a cap above spends none of the client's rate.
            limit.rate.take(self.client)
        by_client[self.client] = held + 1
        limit.in_flight += 1

    def __exit__(self, *exc: object) -> None:
        limit = self.limit
        limit.in_flight -= 1
        count_down(limit.by_client, self.client)


def count_down(counts: dict[str, int], key: str, by: int = 1) -> None:
    """``by`` fewer of ``key`` in ``counts``; a key that reaches 0 is dropped."""
    left = counts[key] - by
    if left:
        counts[key] = left
    else:
        del counts[key]  # only keys with open streams or calls stay, so the maps stay small


class Tally:
    """Counts by key (only keys counted above 0 are kept) that also know, at once, a key
    counted the most: a replica at a cap makes room for a newcomer by taking from the one that
    holds the most (``heaviest``), and looking for it must not cost a scan of every client
    under a crowd of them."""

    __slots__ = ("counts", "total", "_by_count", "_top")

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.total = 0
        self._by_count: dict[int, dict[str, None]] = {}  # count -> the keys counted so (in order)
        self._top = 0

    def get(self, key: str) -> int:
        """How many ``key`` is counted (0 for a key not counted)."""
        return self.counts.get(key, 0)

    def up(self, key: str) -> None:
        """One more of ``key``."""
        held = self.counts.get(key, 0)
        self._move(key, held, held + 1)
        self.counts[key] = held + 1
        self.total += 1
        if held + 1 > self._top:
            self._top = held + 1

    def down(self, key: str) -> None:
        """One fewer of ``key``; a key that reaches 0 is dropped."""
        held = self.counts[key]
        self._move(key, held, held - 1)
        self.total -= 1
        if held == 1:
            del self.counts[key]
        else:
            self.counts[key] = held - 1
        while self._top and self._top not in self._by_count:
            self._top -= 1

    def heaviest_first(self, above: int = 0) -> Iterator[tuple[str, int]]:
        """The keys counted more than ``above``, and their counts, the most first (in the order
        they reached their count); stop iterating before changing the tally."""
        for count in range(self._top, above, -1):
            for key in self._by_count.get(count, ()):
                yield key, count

    def heaviest(self) -> tuple[str, int] | None:
        """A key counted the most (the first to reach that count), and its count; None when
        nothing is counted."""
        keys = self._by_count.get(self._top)
        if not keys:
            return None
        return next(iter(keys)), self._top

    def _move(self, key: str, before: int, after: int) -> None:
        if before:
            keys = self._by_count[before]
            del keys[key]
            if not keys:
                del self._by_count[before]
        if after:
            self._by_count.setdefault(after, {})[key] = None


class SiteTally(Tally):
    """A ``Tally`` of client addresses that also counts, at once, the room each counts under:
    its IPv6 site (``site_of``), or the address alone. At a replica's cap the room holding the
    most gives way, and within it its address holding the most (``heaviest_rooms``): compared
    address by address, one /48 holding one of each on many /64s held every place, and no /64
    held more than a newcomer."""

    __slots__ = ("rooms", "_members")

    def __init__(self) -> None:
        super().__init__()
        self.rooms = Tally()
        self._members: dict[str, Tally] = {}  # a site's /64s, while it counts any

    @staticmethod
    def room_of(key: str) -> str:
        """The room ``key`` counts under: its IPv6 site, or itself."""
        site = site_of(key)
        return site if site is not None else key

    def up(self, key: str) -> None:
        super().up(key)
        room = self.room_of(key)
        self.rooms.up(room)
        if room != key:
            self._members.setdefault(room, Tally()).up(key)

    def down(self, key: str) -> None:
        super().down(key)
        room = self.room_of(key)
        self.rooms.down(room)
        if room != key:
            members = self._members[room]
            members.down(key)
            if not members.total:
                del self._members[room]

    def room_count(self, key: str) -> int:
        """How many the room of ``key`` counts."""
        return self.rooms.get(self.room_of(key))

    def heaviest_rooms(self, above: int = 0) -> Iterator[tuple[str, Iterator[str]]]:
        """The rooms counted more than ``above``, the most first, each with its addresses, the
        one counted the most first; stop iterating before changing the tally."""
        for room, _count in self.rooms.heaviest_first(above=above):
            members = self._members.get(room)
            yield room, (iter((room,)) if members is None else (key for key, _ in members.heaviest_first()))


class Lines:
    """Items by key, each key's oldest first; only keys holding items are kept. What may give
    way at a cap, by who holds it: a client's idle connections, its bodies arriving, its
    streams."""

    __slots__ = ("_by_key",)

    def __init__(self) -> None:
        self._by_key: dict[str, dict[Any, None]] = {}

    def add(self, key: str, item: Any) -> None:
        """``item`` of ``key``, after those it has."""
        self._by_key.setdefault(key, {})[item] = None

    def discard(self, key: str, item: Any) -> bool:
        """``item`` of ``key`` no more; whether it was one."""
        mine = self._by_key.get(key)
        if mine is None or item not in mine:
            return False
        del mine[item]
        if not mine:
            del self._by_key[key]
        return True

    def of(self, key: str) -> Iterable[Any]:
        """The items of ``key``, oldest first (do not change them while iterating)."""
        return self._by_key.get(key, ())
