"""The lobby at the size of a crowd: what one call or one repair pass costs when the lobby holds
many entries that no page lists (games expired, or never committed), and how soon they go. Each
test fills a Redis of its own directly (pipelines) or through a real replica, then counts Redis
commands (INFO commandstats) or entries, never time.
"""

from __future__ import annotations

import asyncio
import pathlib
import time
from typing import Any

import pytest
import redis.asyncio as aioredis

from conftest import run
from service_helpers import replica_and_client
from hustings.service import table
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.lobby import PAGE_SCAN_LIMIT, REPAIR_MAX_PER_PASS, LobbyRepair
from hustings.service.replica import SOLE_CLIENT
from hustings.service.store import (
    LOBBY_KEY,
    Store,
    game_key,
    index_call,
    log_key,
    presence_key,
    requests_key,
)
from hustings.v1 import game_pb2

REPAIR_LEASE = "hustings:{lobby}:lock:repair"


async def _command_calls(client: aioredis.Redis) -> dict[str, int]:
    """Calls per command since the last CONFIG RESETSTAT, without INFO's own."""
    stats = await client.info("commandstats")
    return {name.removeprefix("cmdstat_"): int(entry["calls"]) for name, entry in stats.items() if name != "cmdstat_info"}


async def _index_many(store: Store, summaries: list[game_pb2.GameSummary], games: bool) -> None:
    """Index ``summaries`` as the store's own index script does, in pipelines; with ``games``,
    also write each game's hash as its commit would (its version, status and listing's version),
    so that the lobby repair finds nothing behind."""
    await store.client.script_load(store._index.script)
    for start in range(0, len(summaries), 2_000):
        async with store.client.pipeline(transaction=False) as pipe:
            for summary in summaries[start : start + 2_000]:
                keys, args = index_call(summary)
                await store._index(keys=keys, args=args, client=pipe)
                if games:
                    pipe.hset(
                        game_key(summary.game_id),
                        mapping={"version": summary.version, "status": summary.status, "listed": summary.version},
                    )
            await pipe.execute()


def _page_round_trips(calls: dict[str, int], entries_read: int) -> int:
    """The round trips to Redis of a ListGames page that read ``entries_read`` lobby entries: per
    batch a read of lobby ids or positions (after the first batch of the whole lobby, a call of
    its script, whose own ZREVRANK and ZREVRANGE Redis counts too), one HMGET of summaries and
    one call of the fields script, whose own HMGET of each game's head Redis counts too (one per
    entry read)."""
    reads = calls.get("zrevrange", 0) + calls.get("zrevrangebylex", 0) - calls.get("zrevrank", 0)
    return reads + calls.get("evalsha", 0) + calls.get("hmget", 0) - entries_read


async def _kept_and_expired(client: Any, raw: aioredis.Redis) -> tuple[list[str], list[str]]:
    """``KEPT_OPEN`` open games that wait a day for their players, then ``SHORT_LIVED`` made to
    wait one second, which have expired when this returns: (the kept ids, the expired ids)."""
    kept = [(await client.create_game("stimmvieh", 3)).game_id for _ in range(KEPT_OPEN)]
    await asyncio.sleep(1.0)  # creation times are in seconds: the short-lived games are newer
    brief = game_pb2.TableSettings(open_seconds=1)
    short = [(await client.create_game("stimmvieh", 3, table=brief)).game_id for _ in range(SHORT_LIVED)]
    for _ in range(100):  # their keys expire a second after their creation (bounded wait)
        if not await raw.exists(*(game_key(g) for g in short)):
            return kept, short
        await asyncio.sleep(0.1)
    raise AssertionError("the short-lived games did not expire within 10 s")


def _ghost(i: int, created_at: int) -> game_pb2.GameSummary:
    """The lobby entry of an open Stimmvieh game that does not exist (expired, or never
    committed): no page lists it."""
    return game_pb2.GameSummary(
        game_id=f"gghost{i:018d}", kind="stimmvieh", version=1, created_at=created_at, status=game_pb2.GAME_STATUS_OPEN
    )


@pytest.mark.parametrize(
    ("status", "size", "listed_first"),
    [(0, 1, 0), (game_pb2.GAME_STATUS_OPEN, 1, 0), (0, 50, 49)],
    ids=["whole-lobby-page-of-1", "open-games-page-of-1", "play-page-of-50-after-49-games"],
)
def test_a_page_over_entries_it_does_not_list_reads_them_in_a_few_batches(
    tmp_path: pathlib.Path, status: int, size: int, listed_first: int
) -> None:
    """A ListGames page reads at most ``PAGE_SCAN_LIMIT`` entries, but in batches of what the page
    still lacks (``lobby._whole_lobby_page``, ``lobby._filtered_page``): over entries it does not
    list (games expired and not yet dropped by the repair, ghosts of creations that never
    committed) a page of 1 reads them one at a time, three round trips each (ids or positions,
    summaries, heads), and so does a page that lacks one game: the /play lobby's page of 50
    that found 49 games reads the rest of its 200 one by one. A page of 200 reads the same
    entries in 3 round trips. The call counts as one call of its client's rate (it lists at most a
    game), so one address within its 300 calls a second can send a replica's Redis 180,000
    commands a second, and at 71 ms of the replica's CPU a call (measured, client and replica in
    one process; a page of 200: 1.9 ms) 14 such calls a second take a whole core. Any page should
    read its at most 200 entries in a few batches."""

    async def scenario(url: str) -> None:
        async with replica_and_client(url, **SOLE_CLIENT) as (replica, client):
            store = replica.host.store
            raw = store.client
            await raw.set(REPAIR_LEASE, "test", px=60_000)  # the repair's reads are not the page's
            now = int(time.time())
            listed = [
                game_pb2.GameSummary(
                    game_id=f"glisted{i:017d}", kind="stimmvieh", version=1,
                    created_at=now + 600 + i, status=game_pb2.GAME_STATUS_OPEN,
                )
                for i in range(listed_first)
            ]
            await _index_many(store, listed, games=True)  # the newest: games that exist
            # One more than a call may read: the page stops at its limit with more to follow.
            await _index_many(store, [_ghost(i, now + 60 + i) for i in range(PAGE_SCAN_LIMIT + 1)], games=False)
            await client.games(status=status, page_size=PAGE_SCAN_LIMIT)  # Redis has learnt the page's script
            await raw.script_load(store._lobby_after.script)  # and the whole lobby's, after a first batch
            await raw.config_resetstat()
            page = await client.games(status=status, page_size=size)
            round_trips = _page_round_trips(await _command_calls(raw), PAGE_SCAN_LIMIT)
            assert sorted(g.game_id for g in page.games) == sorted(s.game_id for s in listed)
            assert page.next_page_token  # more may follow: it read as many entries as a call may
            print(f"page of {size} over {listed_first} listed and {PAGE_SCAN_LIMIT - listed_first} unlisted "
                  f"entries: {round_trips} round trips to Redis")
            assert round_trips <= 6, round_trips

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url), 60)


FILLER = 3 * REPAIR_MAX_PER_PASS  # games in play, older than the open games: a lobby of the size of a crowd
KEPT_OPEN = 5  # open games waiting a day for their players
SHORT_LIVED = PAGE_SCAN_LIMIT + 50  # open games made to wait one second: two addresses' bursts of 120 and a little


def test_open_games_expired_at_the_newest_end_leave_the_lobby_whatever_its_size(tmp_path: pathlib.Path) -> None:
    """An open game expires ``open_seconds`` after its last join, and a creator may ask for one
    second. Its lobby entry stays until the repair finds its game gone: the prune looks at the
    lobby's oldest end and one batch of a walk, the repair of the live set at 2,000 live games a
    pass from where the last pass stopped, oldest first. Games that expire at the newest end, the
    very entries every first page reads, are then reached after (live games) / 2,000 passes: at
    100,000 games in play, 50 passes, about three minutes. Meanwhile a page reads at most 200
    entries, so more than 200 such entries (two addresses' bursts of 120, each within its
    allowance) make the first page of the lobby, and of its open games, list nothing: the page
    /play shows (pageSize=50, no token followed) shows no game at all, and a client at 1 game a
    second keeps about 190 such entries there at that size of lobby. Two passes here, over a
    lobby of 6,000 games in play (three passes' worth), should have dropped them."""

    async def scenario(url: str) -> None:
        async with replica_and_client(url, **SOLE_CLIENT) as (replica, client):
            store = replica.host.store
            raw = store.client
            await raw.set(REPAIR_LEASE, "test", px=60_000)  # only the test's repair passes run
            long_ago = int(time.time()) - 3600 - FILLER
            filler = [
                game_pb2.GameSummary(
                    game_id=f"gplaying{i:016d}", kind="stimmvieh", version=7,
                    created_at=long_ago + i, status=game_pb2.GAME_STATUS_ACTIVE,
                )
                for i in range(FILLER)
            ]
            await _index_many(store, filler, games=True)
            kept, short = await _kept_and_expired(client, raw)
            repair = LobbyRepair(store, clock=lambda: time.time() + 120)  # past the ghost grace
            for _pass in range(2):
                await repair.repair_once()
            left = sum(s is not None for s in await raw.zmscore(LOBBY_KEY, short))
            whole = await client.games(page_size=50)
            open_games = await client.games(status=game_pb2.GAME_STATUS_OPEN, page_size=50)
            print(f"expired entries left after two passes: {left} of {SHORT_LIVED}; first page lists "
                  f"{len(whole.games)} games, first page of open games {len(open_games.games)}")
            assert sorted(g.game_id for g in open_games.games) == sorted(kept)
            assert len(whole.games) == 50
            assert left == 0

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url), 60)


def test_a_next_game_made_again_is_listed_as_it_is_not_as_its_expired_namesake(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PlayAgain derives the next game's id from the finished game's, and makes it again under
    that id once it has expired (README, Play again). The lobby's index script keeps the summary
    of the highest version it has seen of an id (``lua/index.lua``), so while the expired game's
    entry is still in the lobby (the repair drops it when its walk of the live set reaches it:
    live games / 2,000 passes, see above) the new game's summaries, from version 1 up, are refused
    until one passes the expired game's version. Meanwhile ListGames shows the new game with the
    expired game's seats (a seat free in the new game listed as taken, under the expired game's
    player's name) and creation time, and the repair leaves it so: the game's last listing step
    (version 1) is not ahead of the indexed version (2). Here the expired game's seat 0 was Ada's;
    the new game has nobody in it."""
    monkeypatch.setattr(table, "BOT_ONLY_STEP_MS", 1)  # the finished table's bots at a quick pace

    async def scenario(url: str) -> None:
        async with replica_and_client(url, **SOLE_CLIENT) as (replica, client):
            store = replica.host.store
            raw = store.client
            bots = game_pb2.TableSettings(bot_seats=[2])
            first = (await client.create_game("stimmvieh", 3, table=bots)).game_id
            players = [await client.join(first, f"Player {s}", seat=s) for s in (0, 1)]
            for player in players:
                await client.leave(first, player.token)  # the bots finish the game
            for _ in range(600):
                if (await client.view(first)).status == game_pb2.GAME_STATUS_FINISHED:
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError("the bots did not finish the game in 30 s")
            await raw.set(REPAIR_LEASE, "test", px=60_000)  # the window before the repair reaches the entry
            next_id = (await client.play_again(first, players[0].token)).game_id
            await client.join(next_id, "Ada", seat=0)  # version 2: the lobby lists Ada in seat 0
            for key in (game_key(next_id), log_key(next_id), requests_key(next_id), presence_key(next_id)):
                await raw.delete(key)  # it expires (nobody else came)
            await asyncio.sleep(1.0)  # the game made again is of a later second
            again = await client.play_again(first, players[1].token)
            assert again.game_id == next_id and again.view.version == 1  # made again, nobody seated
            made_at = (await store.load(next_id)).created_at  # type: ignore[union-attr]
            await LobbyRepair(store, clock=lambda: time.time() + 120).repair_once()
            page = await client.games(kind="stimmvieh", status=game_pb2.GAME_STATUS_OPEN, page_size=50)
            (listed,) = [g for g in page.games if g.game_id == next_id]
            print(f"the game made again is listed with seat 0 {listed.seats[0].display_name!r}, "
                  f"taken {listed.seats[0].taken}, created at {listed.created_at} (it was made at {made_at})")
            assert [(s.taken, s.display_name) for s in listed.seats] == [
                (s.taken, s.display_name) for s in again.view.seats
            ]
            assert listed.created_at == made_at

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url), 60)


def test_open_games_that_expire_within_the_ghost_grace_leave_the_lobby_at_the_next_pass(tmp_path: pathlib.Path) -> None:
    """The repair drops an entry whose game does not exist only once it is ``GHOST_GRACE_S``
    (60 s) past its creation (``LobbyRepair._drop_gone``): the grace is for an entry indexed
    before its creating commit, but a game that expired is dropped no sooner. A creator may make
    a table wait one second for its players, so its entry outlives its game by a minute whatever
    the lobby's size; at one game a second (an address's allowance) each address keeps about 60
    such entries at the newest end, where every first page reads, and four addresses more than
    the 200 a page reads: the lobby's first page, and /play's, then lists nothing for as long
    as they go on. Here 250 such games (two addresses' bursts), all expired, and a lobby small
    enough for one pass to look at all of it: a pass two seconds after they were made should
    drop them."""

    async def scenario(url: str) -> None:
        async with replica_and_client(url, **SOLE_CLIENT) as (replica, client):
            store = replica.host.store
            raw = store.client
            await raw.set(REPAIR_LEASE, "test", px=60_000)  # only the test's repair passes run
            kept, short = await _kept_and_expired(client, raw)
            await LobbyRepair(store).repair_once()
            left = sum(s is not None for s in await raw.zmscore(LOBBY_KEY, short))
            page = await client.games(page_size=50)
            print(f"expired entries left after a pass: {left} of {SHORT_LIVED}; the first page lists {len(page.games)} games")
            assert sorted(g.game_id for g in page.games) == sorted(kept)
            assert left == 0

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url), 60)


def test_an_open_games_summary_says_until_when_it_waits_for_its_players(redis_server: EmbeddedRedis) -> None:
    """GameSummary.open_until: an open game's creation time and its table's open_seconds (a day
    by default); 0 once the game has started."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):
            brief = (await client.create_game("stimmvieh", 3, table=game_pb2.TableSettings(open_seconds=600))).game_id
            usual = (await client.create_game("stimmvieh", 3)).game_id
            started = (await client.create_game("stimmvieh", 3)).game_id
            for seat in range(3):
                await client.join(started, f"P{seat}")
            listed = {g.game_id: g for g in (await client.games(kind="stimmvieh", page_size=50)).games}
            assert listed[brief].open_until == listed[brief].created_at + 600
            assert listed[usual].open_until == listed[usual].created_at + table.DEFAULT_OPEN_S
            assert listed[started].status == game_pb2.GAME_STATUS_ACTIVE and listed[started].open_until == 0

    run(scenario(), 60)
