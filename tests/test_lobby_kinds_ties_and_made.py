"""The lobby's index against a real Redis of its own (one server, and a three-master Cluster):
a game just made replacing another attempt's entry in one step, the sweep of the filter sets
of a kind this build does not play, and a page token naming a gone game of a busy second."""

from __future__ import annotations

import time

import redis

from conftest import run
from hustings.engine import games
from hustings.service.lobby import _SWEPT_KEYS, LobbyRepair
from hustings.service.store import LOBBY_KEY, Store, lobby_filter_key, lobby_position
from hustings.v1 import game_pb2
from service_helpers import empty_store

OPEN = game_pb2.GAME_STATUS_OPEN
RETIRED = "retired_kind"  # a kind no build of this test plays
MAX_PASSES = 3 * len(_SWEPT_KEYS) + 12  # the sweep goes round its keys, and the sets it found, twice over at most
BUSY_SECOND = 1_700_000_000
TIES = 30_000  # games of one second (written straight to the lobby: a pipeline of ZADDs)
TIMED_CALLS = 10


def _summary(game_id: str, kind: str, created_at: int, version: int, **fields: object) -> game_pb2.GameSummary:
    return game_pb2.GameSummary(game_id=game_id, kind=kind, status=OPEN, version=version, created_at=created_at, **fields)  # type: ignore[arg-type]


async def _filed_under(store: Store, position: str) -> list[str]:
    """The filter sets that hold ``position``, found by the store's own search."""
    _process, cursor, keys = await store.lobby_filter_keys(0)
    for _ in range(100):
        if not cursor:
            break
        _process, cursor, more = await store.lobby_filter_keys(cursor)
        keys += more
    return sorted([k for k in set(keys) if await store.client.zscore(k, position) is not None])


def test_a_made_games_summary_replaces_another_seconds_entry_in_one_step(lobby_url: str) -> None:
    """The entry another attempt (or a namesake) wrote from another second, at a higher version,
    is replaced by the made game's summary: the lobby and every filter set hold the game once,
    at its own position. An entry of the made game's own second is left as it is."""

    async def scenario() -> None:
        store = await empty_store(lobby_url)
        try:
            now = int(time.time())
            namesake = _summary("gmade", "stimmvieh", now - 5, 3, seed_chosen_by_creator=True)
            assert await store.index(namesake)
            made = _summary("gmade", "stimmvieh", now, 1)
            assert not await store.index(made)  # a plain index keeps the higher version
            assert await store.index(made, made=True)
            assert await store.lobby_after("", 10) == [("gmade", now)]
            assert (await store.lobby_summaries(["gmade"]))["gmade"] == made
            assert await _filed_under(store, lobby_position(now - 5, "gmade")) == []
            here = sorted([lobby_filter_key("stimmvieh"), lobby_filter_key("", OPEN), lobby_filter_key("stimmvieh", OPEN)])
            assert await _filed_under(store, lobby_position(now, "gmade")) == here
            joined = _summary("gmade", "stimmvieh", now, 2, seed_chosen_by_creator=True)
            assert await store.index(joined)
            assert not await store.index(made, made=True)  # its own second: a later step's summary stays
            assert (await store.lobby_summaries(["gmade"]))["gmade"] == joined
        finally:
            await store.close()

    run(scenario(), 60)


def test_the_sweep_drops_a_retired_kinds_left_positions_and_keeps_its_listed_games(lobby_url: str) -> None:
    """A kind this build does not play (taken out of it; a replica of an earlier release may
    still play it, or be rolled back to) has filter sets in Redis: a position of a game that left
    the lobby with no summary to name its kind, left in that kind's sets alone, and the position
    of one of its games still listed. The repair's sweep finds the kind's sets in Redis (a SCAN
    on one server, the lobby's slot on a Cluster) and drops the first from them; the listed
    game stays filed under its kind until it leaves. Before, the sweep walked only the sets of
    the kinds this build plays, and the left position stayed for good."""

    async def scenario() -> None:
        store = await empty_store(lobby_url)
        try:
            now = int(time.time())
            gone, listed = _summary("ggone", RETIRED, now - 10, 1), _summary("glisted", RETIRED, now, 1)
            assert await store.index(gone) and await store.index(listed)
            await store.unindex("ggone", ())  # the lobby and the status sets only: no summary named its kind
            left = lobby_position(now - 10, "ggone")
            assert await _filed_under(store, left) == sorted([lobby_filter_key(RETIRED), lobby_filter_key(RETIRED, OPEN)])
            kept = await _filed_under(store, lobby_position(now, "glisted"))
            assert len(kept) == 3

            repair = LobbyRepair(store, ghost_grace_s=3600)  # the listed game's entry waits for no commit here
            assert RETIRED not in games()
            for _ in range(MAX_PASSES):
                await repair.repair_once()
                if not await _filed_under(store, left):
                    break
            assert await _filed_under(store, left) == [], "the sweep left a retired kind's position"
            assert await _filed_under(store, lobby_position(now, "glisted")) == kept
            assert [game_id for game_id, _ in await store.lobby_after("", 10)] == ["glisted"]
        finally:
            await store.close()

    run(scenario(), 60)


def _ids(count: int) -> list[str]:
    return [f"g{i * 7919 % 1_000_003:07d}x" for i in range(count)]


def test_a_token_of_a_gone_game_goes_on_after_its_place_in_its_second(own_redis_url: str) -> None:
    """The entries after a gone game's position, in a second of many games, are those the
    sorted set's order puts after it: for ids before, between and after the second's own."""

    async def scenario() -> None:
        store = Store.from_url(own_redis_url)
        try:
            ties = _ids(37)
            await store.client.zadd(LOBBY_KEY, {**{g: BUSY_SECOND for g in ties}, "gnewer": BUSY_SECOND + 1, "golder": BUSY_SECOND - 1})
            descending = sorted(ties, reverse=True)  # newest first: ties by id, descending
            for gone in ["g", "g0", "g0000000y", ties[5] + "a", ties[20][:-1], "gz", "h"]:
                expected = ([g for g in descending if g < gone] + ["golder"])[:5]
                after = await store.lobby_after(lobby_position(BUSY_SECOND, gone), 5)
                assert [game_id for game_id, _ in after] == expected, gone
        finally:
            await store.close()

    run(scenario(), 60)


def test_a_token_of_a_gone_game_in_a_busy_second_costs_redis_no_walk_of_the_second(own_redis_url: str) -> None:
    """A page token may name any id of any second: one naming a game that is not in the lobby,
    in a second of 30,000 games, is answered by Redis in well under a millisecond (the fastest
    of ten calls, as SLOWLOG times them). Before, the script read every game of the second,
    about 4 ms of Redis (6 ms at 50,000), all other clients waiting, for one page call."""

    async def scenario() -> None:
        store = Store.from_url(own_redis_url)
        raw = redis.Redis.from_url(own_redis_url)
        try:
            ties = _ids(TIES)
            with raw.pipeline(transaction=False) as pipe:
                for start in range(0, TIES, 5000):
                    pipe.zadd(LOBBY_KEY, {g: BUSY_SECOND for g in ties[start : start + 5000]})
                pipe.execute()
            gone = lobby_position(BUSY_SECOND, ties[TIES // 2] + "a")  # past half of the second's ids
            await store.lobby_after(gone, 50)  # the script loaded
            raw.config_set("slowlog-log-slower-than", 0)
            raw.config_set("slowlog-max-len", 1000)
            raw.slowlog_reset()
            for _ in range(TIMED_CALLS):
                assert len(await store.lobby_after(gone, 50)) == 50
            timed = [e["duration"] for e in raw.slowlog_get(1000) if str(e["command"]).upper().startswith(("EVALSHA", "B'EVALSHA"))]
            assert len(timed) == TIMED_CALLS
            assert min(timed) < 1000, f"{min(timed)} microseconds of Redis for a page call"
        finally:
            raw.config_set("slowlog-log-slower-than", 10000)
            raw.close()
            await store.close()

    run(scenario(), 60)


def test_a_stale_position_dropped_leaves_a_namesakes_entry_listed(lobby_url: str) -> None:
    """A position read before the game was made again under its id (the sweep, or a page, drops
    what it found while a PlayAgain's next game of that id, made again after it expired, is
    listed meanwhile) takes only that position out of the filter sets: the namesake's entry,
    summary and filings stay. Before, the whole entry went, unlisting the namesake until its next
    listing change."""

    async def scenario() -> None:
        store = await empty_store(lobby_url)
        try:
            now = int(time.time())
            assert await store.index(_summary("gagain", "stimmvieh", now - 60, 1))
            stale = lobby_position(now - 60, "gagain")
            namesake = _summary("gagain", "stimmvieh", now, 1)
            assert await store.index(namesake, made=True)
            await store.client.zadd(lobby_filter_key("stimmvieh"), {stale: 0})  # left behind, as the sweep finds it
            await store.unindex_many([("gagain", ("stimmvieh",))], {"gagain": stale})
            assert await store.lobby_after("", 10) == [("gagain", now)]
            assert (await store.lobby_summaries(["gagain"]))["gagain"] == namesake
            assert await _filed_under(store, stale) == []
            filed = sorted([lobby_filter_key("stimmvieh"), lobby_filter_key("", OPEN), lobby_filter_key("stimmvieh", OPEN)])
            assert await _filed_under(store, lobby_position(now, "gagain")) == filed
            # Its own position drops the entry whole, as before.
            await store.unindex_many([("gagain", ("stimmvieh",))], {"gagain": lobby_position(now, "gagain")})
            assert await store.lobby_after("", 10) == []
            assert await _filed_under(store, lobby_position(now, "gagain")) == []
        finally:
            await store.close()

    run(scenario(), 60)
