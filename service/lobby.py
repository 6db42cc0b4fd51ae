"""The lobby's convergence: summaries written beside the commits, and repaired from the games.

On Redis Cluster a game and the lobby live in different slots, so no script writes both. The
lobby is therefore only an index, kept right in three ways:
- A new game is indexed *before* its creating commit: a game is never missing from the lobby;
  an entry whose game never came to be is dropped by the repair after ``GHOST_GRACE_S``.
- After a join or the last move the summary is written, but the answer to the client never
  depends on that write: a failure is logged and left to the repair.
- ``LobbyRepair`` runs on every replica; one at a time (a short lease in Redis) it compares each
  unfinished game's indexed version with the version of the game's last step that changed its
  listing (the commit notes it, ``listing_changed``) and rewrites what is behind. Plain moves
  change no listing, so a game in play is not read again pass after pass. The index script
  keeps the newest summary, so writes may repeat or cross in any order. It also files a
  batch of the lobby per pass under its kind and status (entries written before the filter sets
  existed, or by a replica without them) and drops filter positions whose games have left.
ListGames also reads each listed game's current version and status, so those two are exact at
once, whatever the index says.

A filtered ListGames reads the filter set of its kind, its status or both (``service/store.py``),
which the same index script keeps, so a page reads the games that match and not the lobby
between them. Whatever it reads, one call reads at most ``PAGE_SCAN_LIMIT`` entries: a page may
then hold fewer games than asked, and its ``next_page_token`` goes on from where it stopped.
"""

from __future__ import annotations

import asyncio
import random
import re
import time
from typing import Awaitable, Callable

import structlog
from redis.exceptions import RedisError

from hustings.engine import games
from hustings.service import table
from hustings.service.background import BackgroundLoop
from hustings.service.defaults import DEFAULT_RETENTION_S
from hustings.service.errors import ServiceError, invalid
from hustings.service.store import (
    FILED_STATUSES,
    Store,
    filterable,
    game_id_of_position,
    kind_filter_keys,
    lobby_filter_key,
    lobby_position,
)
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2, game_service_pb2

log = structlog.get_logger("hustings.lobby")

REPAIR_INTERVAL_S = 5.0
GHOST_GRACE_S = 60.0  # how long an entry may wait for its game's creating commit
REPAIR_BATCH = 500
# Live entries one pass looks at (each pass goes on where the last stopped): a pass costs the
# replica holding the lease about 10 ms of CPU per 1,000 entries, so a lobby of 20,000 games in
# play is looked over in ten passes (about 40 s) rather than 0.2 s of CPU every pass. Only a
# listing write lost with its replica waits that long; ListGames reads versions and statuses live.
REPAIR_MAX_PER_PASS = 2_000
# Batches of the lobby one pass may prune while most of each batch has expired: one batch a pass
# (every 2.5-5 s) drops at most about 130 games a second, fewer than a busy deployment creates
# (entries expire as fast as games were created, a retention earlier), and the lobby would grow
# without end. A pass reads at least two: the oldest, and one of its walk over the rest.
PRUNE_BATCHES_PER_PASS = 8
# A pass that stopped at ``PRUNE_BATCHES_PER_PASS`` with most of its last batch expired gives the
# repair's lease back and is followed this much later by a pass of the prune alone (the whole
# repair once ``interval_s`` has gone by since the last), while that holds: passes every 2.5-5 s
# held by a lease of 4.5 s dropped at most about 890 games a second whatever the number of
# replicas, fewer than ten times a busy deployment creates.
PRUNE_AGAIN_S = 0.5
# Passes one replica runs in a row while the prune is behind, before it waits ``interval_s`` again
# (the lease may pass to another replica meanwhile).
PRUNE_AGAIN_MAX = 1000
# Entries per pass that the repair files under their kind and status (a lobby written before the
# filter sets existed is filed within N / REFILE_BATCH passes), and positions per pass it checks
# for games no longer in the lobby.
REFILE_BATCH = 1000
# Lobby entries one ListGames call reads at most (one page of the largest size), whatever the
# filter and however many entries it has to pass over (games expired but not yet dropped by the
# repair, or games whose status changed a moment ago): 64 calls at once each passing over that
# many take about 0.4 s of a replica's loop.
PAGE_SCAN_LIMIT = 200
# A page token: a lobby offset (the whole lobby; also from replicas without filter sets) or the
# lobby position of the last entry read (a filtered page).
_POSITION_TOKEN_RE = re.compile(r"^[0-9]{12}:[A-Za-z0-9_-]{1,64}$")
_MAX_OFFSET = 1 << 40  # a real offset counts lobby entries; a huge one would reach Redis as an error


# The filter sets the repair's sweep walks: every filed position is in one of its status's sets
# and in its kind's set (which holds the positions of the kind's sets by status too). Beside
# them, the filter sets of kinds this build does not play that the sweep finds in Redis
# (``LobbyRepair._find_filter_sets``).
_SWEPT_KEYS = [lobby_filter_key("", s) for s in FILED_STATUSES] + [lobby_filter_key(kind) for kind in games()]


def summary_of(stored: storage_pb2.StoredGame) -> game_pb2.GameSummary:
    """The lobby summary of a stored game (public facts only: no token, no seed)."""
    summary = game_pb2.GameSummary(
        game_id=stored.game_id,
        kind=stored.kind,
        status=stored.status,
        version=stored.version,
        created_at=stored.created_at,
        seed_chosen_by_creator=stored.seed_from_client,
    )
    if stored.status == game_pb2.GAME_STATUS_OPEN:  # its keys expire then (``GameHost._expiry``)
        summary.open_until = table.open_until(stored)  # a seat change begins the wait again
    for s in stored.seats:
        table.seat_to_proto(s, summary.seats.add(), present=False)
    return summary


def in_lobby(stored: storage_pb2.StoredGame) -> bool:
    """Whether ListGames lists the game: every game but an unlisted table's
    (``TableSettings.unlisted``), which is never written to the lobby or its filter sets, so no
    page, filter or repair pass can show it."""
    return not stored.table.unlisted


def listing_changed(before: storage_pb2.StoredGame, after: storage_pb2.StoredGame) -> bool:
    """Whether a step changes what the lobby lists of a game beyond its version and status
    (which ListGames reads from the game itself): a seat taken, freed, left absent or given a
    bot, or the game's end (the summary then shows the seats as they finished). The seats'
    clocks, timeout counts and ``bot_played`` in a summary are as of its last such step."""
    if after.status != before.status:
        return True
    for a, b in zip(after.seats, before.seats):
        if a.absent != b.absent or a.bot != b.bot or a.display_name != b.display_name or a.token_sha256 != b.token_sha256:
            return True
    return len(after.seats) != len(before.seats)


def _bad_token() -> ServiceError:
    return invalid("BAD_PAGE_TOKEN", "page_token must come from a previous response")


def _parse_token(token: str) -> int | str:
    """A page token as a lobby offset or a lobby position."""
    if not token:
        return 0
    if _POSITION_TOKEN_RE.fullmatch(token):
        return token
    try:
        offset = int(token)
    except ValueError:
        raise _bad_token() from None
    if not 0 <= offset < _MAX_OFFSET:
        raise _bad_token()
    return offset


async def _listed(
    store: Store, game_ids: list[str], unlisted: dict[str, str] | None = None
) -> list[tuple[str, game_pb2.GameSummary | None]]:
    """Each game's indexed summary with its version and status from the game itself (exact,
    whatever the index says); None for a game that does not exist (not yet, or no longer) or
    is an unlisted table's (``Store.lobby_heads``). The unlisted tables' ids, with the kind
    their entries name, go into ``unlisted`` when it is given."""
    # Two reads of keys apart (the lobby's, the games'): at once, not one after the other.
    marked: set[str] = set()
    summaries, heads = await asyncio.gather(store.lobby_summaries(game_ids), store.lobby_heads(game_ids, marked))
    listed: list[tuple[str, game_pb2.GameSummary | None]] = []
    for game_id in game_ids:
        summary, head = summaries.get(game_id), heads.get(game_id)
        if summary is not None and head is not None:
            summary.version, summary.status = head[0], head[1] or summary.status
        listed.append((game_id, summary if head is not None else None))
        if game_id in marked and unlisted is not None:
            unlisted[game_id] = summary.kind if summary is not None else ""
    return listed


async def lobby_page(
    store: Store, request: game_service_pb2.ListGamesRequest, size: int
) -> game_service_pb2.ListGamesResponse:
    """One ListGames page of at most ``size`` games, newest first, reading at most
    ``PAGE_SCAN_LIMIT`` lobby entries. A page's token is a lobby position (``_page`` says which):
    games created or dropped meanwhile neither repeat nor skip a game on the next page."""
    start = _parse_token(request.page_token)
    whole = not request.kind and not request.status
    if not whole and not filterable(request.kind, request.status):
        return game_service_pb2.ListGamesResponse()  # no game is of such a kind or status
    if isinstance(start, int):
        # A lobby offset, from a replica of an earlier release: go on after that entry.
        passed = await store.lobby_entry(start - 1) if start else None
        if start and passed is None:
            return game_service_pb2.ListGamesResponse()  # it was past the end
        start = lobby_position(passed[1], passed[0]) if passed else ""
    if whole:
        return await _whole_lobby_page(store, start, size)
    return await _filtered_page(store, request, start, size)


async def _whole_lobby_page(store: Store, after: str, size: int) -> game_service_pb2.ListGamesResponse:
    """A page of the whole lobby from just after the lobby position ``after`` ("" from the
    newest), its token as ``_page`` gives it."""

    async def read(after: str, count: int) -> list[tuple[str, str]]:
        return [(lobby_position(created, game_id), game_id) for game_id, created in await store.lobby_after(after, count)]

    return await _page(store, read, lambda summary: True, after, size)


async def _filtered_page(
    store: Store, request: game_service_pb2.ListGamesRequest, after: str, size: int
) -> game_service_pb2.ListGamesResponse:
    """A page of the filter set of the request's kind and status, from just after the lobby
    position ``after`` ("" from the newest), its token as ``_page`` gives it."""
    key = lobby_filter_key(request.kind, request.status)

    async def read(after: str, count: int) -> list[tuple[str, str]]:
        return [(position, game_id_of_position(position)) for position in await store.filed_newest_first(key, after, count)]

    def matches(summary: game_pb2.GameSummary) -> bool:
        # A game filed under the status it had a moment ago is passed over: its new one is
        # written after its commit.
        return (not request.kind or summary.kind == request.kind) and (not request.status or summary.status == request.status)

    return await _page(store, read, matches, after, size)


async def _page(
    store: Store,
    read: Callable[[str, int], Awaitable[list[tuple[str, str]]]],
    matches: Callable[[game_pb2.GameSummary], bool],
    after: str,
    size: int,
    again: bool = True,
) -> game_service_pb2.ListGamesResponse:
    """A page of at most ``size`` listed games that ``matches`` takes, from the (lobby position,
    game id) entries ``read`` gives from just after a position on, reading at most
    ``PAGE_SCAN_LIMIT`` of them. Only a page that found a game after its last one, or stopped at
    the limit, carries a token: a full page followed only by entries that list nothing (games
    expired but not yet dropped by the repair) reads on over them, within the limit, rather than
    send the client for an empty page. A full page's token is its last game's position; one that
    stopped at the limit, the last entry it read that is no unlisted table's (whose id is its
    key), and the unlisted tables' entries it met are dropped.
    """
    response = game_service_pb2.ListGamesResponse()
    scanned = 0
    # A full page's token is its last game's position, not that of an entry it passed over after
    # it and does not show (an unlisted table's, written by an earlier release): the next page
    # reads those again rather than a token naming a game no page shows.
    last_shown = after
    # Of a page that stops at the limit, the last entry read that is no unlisted table's: the
    # entries of such tables that the page met are dropped from the lobby (their games are
    # marked unlisted for good) and never go out in a token, since a table's id is its key.
    last_named = start = after
    unlisted: dict[str, str] = {}
    # The page, and one entry more: a page followed by a game it does not hold (the usual case)
    # knows it at once, without a batch more.
    count = min(size + 1, PAGE_SCAN_LIMIT)

    # The positions of the unlisted tables' entries met, which leave every filter set that holds
    # them: the lobby sorted set may no longer hold such an entry when a filter set does.
    unlisted_at: dict[str, str] = {}

    async def answer(token: str = "") -> game_service_pb2.ListGamesResponse:
        response.next_page_token = token
        if unlisted:
            # An entry whose summary is gone no longer says its kind: every kind's filter sets
            # (else its kind's keep its position for good; the repair's sweep walks only the
            # status sets).
            gone = [(game_id, (kind,) if kind else tuple(games())) for game_id, kind in unlisted.items()]
            await store.unindex_many(gone, unlisted_at)
        return response

    while True:
        # One entry more than the batch lists, so that a batch that reaches the end says so.
        found = await read(after, count + 1)
        batch, more = found[:count], len(found) > count
        listed = await _listed(store, [game_id for _, game_id in batch], unlisted)
        for (position, game_id), (_, summary) in zip(batch, listed):
            if summary is not None and matches(summary):
                if len(response.games) == size:
                    return await answer(last_shown)  # a game follows the page
                response.games.append(summary)
                last_shown = position
            after = position
            if game_id not in unlisted:
                last_named = position
            else:
                unlisted_at[game_id] = position
            scanned += 1
        if not more:
            return await answer()  # the end: no token
        if scanned >= PAGE_SCAN_LIMIT:
            # The limit: what follows is not known.
            if last_named == start and not response.games and again:
                # Nothing but unlisted tables' entries (or none of them named): a token would not
                # move on, and "" would read as the end. They are dropped; the page reads again.
                await answer()
                return await _page(store, read, matches, start, size, again=False)
            return await answer(last_shown if len(response.games) == size else last_named)
        count = _rest_of_the_scan(scanned)


def _rest_of_the_scan(scanned: int) -> int:
    """Entries a page reads next once its first batch (what the page lacked) was not enough: all
    it may still read, at once. Read a page's lack at a time, entries that list nothing (games
    expired, or not yet committed) cost a round trip each: a page of 1 over 200 of them took 600
    round trips to Redis and 71 ms of the replica, as one call."""
    return PAGE_SCAN_LIMIT - scanned


async def index_quietly(store: Store, stored: storage_pb2.StoredGame) -> None:
    """Write a game's summary after its commit; a failure is logged and left to the repair."""
    if not in_lobby(stored):
        return
    try:
        await store.index(summary_of(stored))
    except RedisError as error:
        log.warning("lobby_write_deferred", game_id=stored.game_id, version=stored.version, cause=type(error).__name__)


class LobbyRepair(BackgroundLoop):
    """Brings the lobby in line with the games, one replica at a time, every ``interval_s``, and
    every ``PRUNE_AGAIN_S`` while expired entries pile up faster than a pass drops them."""

    task_name = "hustings-lobby-repair"

    def __init__(
        self,
        store: Store,
        *,
        interval_s: float = REPAIR_INTERVAL_S,
        ghost_grace_s: float = GHOST_GRACE_S,
        clock: Callable[[], float] = time.time,
        retention_s: int = DEFAULT_RETENTION_S,
    ) -> None:
        self.store = store
        self.retention_s = retention_s  # given to the keys of games in play or finished that have no expiry
        self.interval_s = interval_s
        self.ghost_grace_s = ghost_grace_s
        self._clock = clock
        super().__init__()
        # Where the next pass starts, in the live set and in the whole lobby: passes are capped,
        # so each goes on where the last one stopped (else a big lobby's newest entries are never
        # looked at), and starts over once it has reached the end.
        self._live_from = 0
        self._prune_from = 0
        self._refile_from = 0
        # The sweep walks one filter set at a time, from a lobby position on: the keys of
        # ``_SWEPT_KEYS``, then those of the kinds filed in Redis that this build does not play
        # (``Store.filed_kinds``, read as each round begins: ``_retired``).
        self._sweep_slot = 0
        self._sweep_from = ""
        self._sweep_keys = list(_SWEPT_KEYS)
        self._retired: tuple[str, ...] = ()
        self._walked = False  # the search of the keyspace for sets of unnamed kinds has gone round
        # Set by a pass whose prune stopped at its bound with most of its last batch expired.
        self.behind = False
        self._last_whole = -float("inf")  # when this replica last ran a whole pass (monotonic)

    async def _run(self) -> None:
        while not self._stopping:
            # Jitter keeps replicas from asking for the lease at the same instant.
            await asyncio.sleep(self.interval_s * random.uniform(0.5, 1.0))
            try:
                for again in range(PRUNE_AGAIN_MAX):
                    if not await self.leased_pass(following=again > 0) or self._stopping:
                        break
                    await asyncio.sleep(PRUNE_AGAIN_S)
            except RedisError as error:
                self.failed(log, "lobby_repair_failed", error)

    async def leased_pass(self, following: bool = False) -> bool:
        """A pass under the repair's lease, if no replica holds it: the whole repair, or the
        prune alone when it is ``following`` this replica's pass that was behind and this replica
        ran the whole within ``interval_s``. Returns whether the prune is behind (``behind``):
        the lease is then given back, so that the next pass, on whichever replica, need not wait
        it out; else it is kept until it runs out, so that passes come at most once a lease
        whatever the number of replicas. A pass on the loop's own time is always the whole: one
        replica's lease runs out (4.5 s) before its interval has gone by (5 s), and its passes
        that took the lease as it ran out were the prune alone, a sixth of them at rest."""
        token = await self.store.take_lease("repair", int(self.interval_s * 1000 * 0.9))
        if not token:
            return False
        self.behind = False
        if not following or time.monotonic() - self._last_whole >= self.interval_s:
            self._last_whole = time.monotonic()
            await self.repair_once()
        else:
            await self.prune_once()
        if self.behind:
            await self.store.release_lease("repair", token)
        return self.behind

    async def prune_once(self) -> int:
        """The prune of a pass from the lobby's oldest end alone (``_prune_expired``), which sets
        ``behind``; how many entries it dropped."""
        self.behind = False
        return await self._prune_expired()

    async def repair_once(self) -> int:
        """One pass over the unfinished games of the lobby; returns how many entries it fixed.
        ``behind`` then says whether its prune stopped at its bound with entries still expiring
        faster than it drops them."""
        self.behind = False
        fixed = 0
        offset = self._live_from
        scanned = 0
        while scanned < REPAIR_MAX_PER_PASS:
            batch = await self.store.live_games(offset, REPAIR_BATCH)
            if not batch:
                if offset and not scanned:  # the last pass stopped at the very end: start over now
                    offset = 0
                    continue
                offset = 0  # the end: the next pass starts over
                break
            offset += len(batch)
            scanned += len(batch)
            heads = await self.store.listing_heads([game_id for game_id, _ in batch])
            # Entries whose games do not exist (never committed, or expired: a burst of open games
            # nobody joined leaves a day later together) are dropped together, in the prune's two
            # round trips for the batch rather than three for each.
            ghosts = await self._drop_ghosts([game_id for game_id, _ in batch if game_id not in heads])
            offset -= ghosts  # entries that left the live set: the ones after them moved up
            fixed += ghosts
            for game_id, indexed in batch:
                head = heads.get(game_id)
                if head is None:
                    continue
                version, status, listed = head
                # Behind: a listing step whose summary was never written (its replica stopped, or
                # the write failed), or an end the live set still shows. A game whose steps were
                # committed by an earlier release, which noted no listing steps, by its version.
                if (version if listed is None else listed) > indexed or status == game_pb2.GAME_STATUS_FINISHED:
                    stored = await self.store.load(game_id)
                    if stored is not None and in_lobby(stored) and await self.store.index(summary_of(stored)):
                        fixed += 1
                        if stored.status == game_pb2.GAME_STATUS_FINISHED:
                            offset -= 1
        self._live_from = offset
        fixed += await self._prune_newest()
        fixed += await self._prune_expired()
        fixed += await self._refile()
        fixed += await self._sweep()
        if fixed:
            log.info("lobby_repaired", entries=fixed)
        return fixed

    async def _prune_newest(self) -> int:
        """Drop the expired entries of the lobby's newest batch, which every first page reads:
        open games made to wait briefly for their players expire there, and the walks from the
        oldest end reach them only after (live games) / ``REPAIR_MAX_PER_PASS`` passes (at
        100,000 games in play, about three minutes, with a page of nothing but them)."""
        ids = await self.store.lobby_ids(0, REPAIR_BATCH)
        heads = await self.store.lobby_heads(ids)
        dropped = await self._drop_gone([game_id for game_id in ids if game_id not in heads])
        if dropped:
            log.info("lobby_expired_dropped", entries=dropped, end="newest")
        return dropped

    async def _prune_expired(self) -> int:
        """Drop entries whose games have expired: first from the lobby's oldest entry on, where
        games expire in a steady state (a retention after they were made and finished), then one
        batch of a walk over the rest of the lobby, which goes on where the last pass's stopped
        (games that expire out of that order: one left waiting for players or idle). Either goes
        on with further batches while most of a batch has expired, up to
        ``PRUNE_BATCHES_PER_PASS`` batches in all; one that stops there with most of its last
        batch expired sets ``behind``."""
        total, covered, used, more = await self._prune_from_offset(0, max(1, PRUNE_BATCHES_PER_PASS - 1))
        if covered is not None:  # the oldest batches did not reach the end: the walk goes on past them
            # Entries dropped before the walk's place moved it up; what was just looked at is
            # not looked at again.
            walk_from = max(self._prune_from - total, covered)
            dropped, walked_to, _used, walk_more = await self._prune_from_offset(
                walk_from, max(1, PRUNE_BATCHES_PER_PASS - used)
            )
            self._prune_from = walked_to or 0
            total += dropped
            more = more or walk_more
        else:
            self._prune_from = 0  # the whole lobby was just looked at
        self.behind = self.behind or more
        if total:
            log.info("lobby_expired_dropped", entries=total)
        return total

    async def _prune_from_offset(self, offset: int, batches: int) -> tuple[int, int | None, int, bool]:
        """Drop the expired entries of a batch of the lobby, oldest first, from the ``offset``-th
        entry, and of further batches (up to ``batches``) while most of a batch had expired.
        Returns how many were dropped, the offset after the batches looked at (None at the end),
        how many batches were read, and whether it stopped at ``batches`` with most of the last
        expired (more are due)."""
        dropped_in_all = used = 0
        for used in range(1, batches + 1):
            ids = await self.store.oldest_lobby_ids(REPAIR_BATCH, offset)
            heads = await self.store.lobby_heads(ids)
            dropped = await self._drop_gone([game_id for game_id in ids if game_id not in heads])
            dropped_in_all += dropped
            if len(ids) < REPAIR_BATCH:
                return dropped_in_all, None, used, False  # a short batch was the end
            offset += len(ids) - dropped  # a dropped entry's followers moved up by one
            if dropped * 2 <= len(ids):
                return dropped_in_all, offset, used, False  # the expired entries are not piling up here
        return dropped_in_all, offset, used, True

    async def _drop_gone(self, game_ids: list[str]) -> int:
        """Drop the entries of games that no longer exist (expired, or never committed and past
        their grace) in two round trips for the batch; how many were dropped."""
        summaries = await self.store.lobby_summaries(game_ids)
        now = self._clock()
        gone: list[tuple[str, tuple[str, ...]]] = []
        for game_id in game_ids:
            summary = summaries.get(game_id)
            # Its own kind's filter sets, or (with no summary left to say which) every kind's.
            # An entry may wait the grace for its creating commit; an open game's no longer than
            # it waits for its players: one made to wait a second is gone after it, not a minute.
            if summary is None:
                gone.append((game_id, tuple(games()) + self._retired))
            elif now - summary.created_at >= self.ghost_grace_s or 0 < summary.open_until <= now:
                gone.append((game_id, (summary.kind,)))
        await self.store.unindex_many(gone)
        return len(gone)

    async def _refile(self) -> int:
        """File one batch of the lobby under its kind and status as its summaries say: entries
        indexed before the filter sets existed (or by a replica that does not keep them) are
        filed within one walk over the lobby. The walk goes from the newest on, as the lobby's
        pages do, so a lobby written before the sets has its first pages filed first.

        The batch's games whose keys have no expiry (stored by 0.1.0, which set none) are given
        the one a step of this release gives their status: an open game a day to find its
        players, one in play or finished the retention time. A step gives them theirs, but a
        game finished then takes no more, nor does one its players left."""
        ids = await self.store.lobby_ids(self._refile_from, REFILE_BATCH)
        summaries = await self.store.lobby_summaries(ids)
        listed = [summaries[i] for i in ids if i in summaries]
        changed = await self.store.refile(listed)
        # Only a game no step of this release has written lacks the hash's 'listed' field (a
        # creation writes it): the others are not looked at again, which on a Cluster would
        # take a script call each.
        heads = await self.store.listing_heads([s.game_id for s in listed])
        expiries = [
            (s.game_id, table.DEFAULT_OPEN_S if s.status == game_pb2.GAME_STATUS_OPEN else self.retention_s)
            for s in listed
            if s.game_id in heads and heads[s.game_id][2] is None
        ]
        given = await self.store.give_expiry(expiries) if expiries else 0
        if given:
            log.info("games_given_expiry", games=given)
        self._refile_from = self._refile_from + len(ids) if len(ids) == REFILE_BATCH else 0
        return changed

    async def _sweep(self) -> int:
        """Drop from the filter sets one batch of positions whose games have left the lobby
        (dropped by a replica that does not keep the filter sets, or by a page of an earlier
        release that met an unlisted table's entry with no summary left and kept it in its
        kind's sets), one status's set, then one kind's, at a time, then the sets of the kinds
        filed in Redis that this build does not play (a kind taken out of the build, whose games'
        entries left with no summary to name it: their positions would stay in its sets for
        good). Only positions whose games are no longer in the lobby are dropped: a kind's listed
        games, played or not by this build, keep theirs until they leave, so a replica of a
        release that plays the kind, rolled back to or still running, finds them filed."""
        if not self._walked:
            self._walked = await self.store.filter_walk_step()
        if self._sweep_slot == 0 and not self._sweep_from:
            await self._find_filter_sets()
        key = self._sweep_keys[self._sweep_slot]
        positions = await self.store.filed_oldest_first(key, self._sweep_from, REFILE_BATCH)
        ids = [game_id_of_position(p) for p in positions]
        # Every kind whose sets may hold the position: this build's, and the others filed.
        kinds = tuple(games()) + self._retired
        dropped = 0
        for position, game_id, kept in zip(positions, ids, await self.store.in_lobby(ids)):
            if not kept:
                await self.store.unindex(game_id, kinds, position)
                dropped += 1
        if len(positions) == REFILE_BATCH:
            self._sweep_from = positions[-1]
            return dropped
        self._sweep_from, self._sweep_slot = "", (self._sweep_slot + 1) % len(self._sweep_keys)
        return dropped

    async def _find_filter_sets(self) -> None:
        """The filter sets of kinds this build does not play, for the sweep's round that begins:
        those of the kinds filed (``Store.filed_kinds``: the index script and the refile name
        each kind they file), after a step of the search of the keyspace for sets that releases
        before that set was kept filed (``Store.filter_walk_step``, a step a pass until it has gone
        round once) adds. That search alone took 40,000 passes (about 42 hours) at 40 million
        keys before it found a retired kind's sets; the set of kinds names them at once."""
        kinds, walked = await self.store.filed_kinds()
        self._walked = self._walked or walked
        known = set(games())
        self._retired = tuple(sorted(kinds - known))
        self._sweep_keys = _SWEPT_KEYS + [key for kind in self._retired for key in kind_filter_keys(kind)]

    async def _drop_ghosts(self, game_ids: list[str]) -> int:
        """Drop live entries whose games do not exist (``_drop_gone``); how many were dropped."""
        dropped = await self._drop_gone(game_ids) if game_ids else 0
        if dropped:
            log.info("lobby_ghosts_dropped", entries=dropped)
        return dropped
