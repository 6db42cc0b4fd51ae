"""PlayAgain between its reads and beside another first call: the finished game going after the
call's charge was worked out from it, and two first calls on two replicas whose clocks read
different seconds, the one that indexed the next game first losing the commit. Real Redis and
gRPC; the calls are held at a point of their own (the charge worked out, the commit about to go)
so that the interleaving is certain."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import pytest
from redis import Redis

from conftest import HeldClock, run
from hustings.client import ONE_ATTEMPT, Client, HustingsError, Joined
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service import table
from hustings.service.replica import Replica
from hustings.service.store import LOBBY_KEY, lobby_filter_key
from hustings.v1 import game_pb2
from service_helpers import remove_game, replica_and_client, stimmvieh_options

PLAYERS = 3
FINISH_TIMEOUT_S = 40.0
MAX_POLLS = 3000  # a game of Stimmvieh takes a few hundred of its player's decisions
POLL_S = 0.05
HELD_S = 10.0  # how long a held call waits for the test at most
CLOCK_AHEAD_MS = 2_000  # the second replica's clock, ahead of the first's by more than a second


class _ShiftedClock:
    """This machine's clock, moved on by ``shift_s`` (a replica's ``local_clock``, shifted after it
    measured its offset from Redis: its shared clock then reads that much later)."""

    def __init__(self) -> None:
        self.shift_s = 0.0

    def __call__(self) -> float:
        return time.time() + self.shift_s


async def _finished(client: Client) -> tuple[str, Joined]:
    """A finished Stimmvieh game of three, two bot seats, and its player, who plays random legal
    moves while the bots decide (at once: a table with a player at it is not paced)."""
    table = game_pb2.TableSettings()
    table.bot_seats.extend([1, 2])
    game_id = (await client.create_game("stimmvieh", PLAYERS, stimmvieh_options(PLAYERS), table=table)).game_id
    me = await client.join(game_id, "Ada", seat=0)
    rng = random.Random(5)
    deadline = time.monotonic() + FINISH_TIMEOUT_S
    for _ in range(MAX_POLLS):
        assert time.monotonic() < deadline, "the game did not end in time"
        view = await client.view(game_id, me.token)
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            return game_id, me
        if not view.legal_moves:
            await asyncio.sleep(POLL_S / 5)  # the bots decide
            continue
        try:
            await client.move(game_id, me.token, rng.choice(list(view.legal_moves)), expected_version=view.version)
        except HustingsError as error:
            if error.reason not in ("STALE_VERSION", "NOT_YOUR_TURN", "GAME_OVER"):
                raise  # a bot stepped in between: decide again on the new state
    raise AssertionError("the game did not end within the poll bound")


async def _next_id(replica: Replica, game_id: str) -> str:
    finished = await replica.host.store.load(game_id)
    assert finished is not None
    return replica.host.keys.next_game_id(game_id, finished.seed_nonce)


def test_a_call_whose_finished_game_went_after_its_charge_was_worked_out_is_answered(redis_server: EmbeddedRedis) -> None:
    """The finished game is removed (its retention ran out, or Redis needed room) just after a
    call worked out its charge from it. The call had its game: it is answered with the next
    game. Before, it read the finished game a second time and was refused GAME_NOT_FOUND."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (replica, client):
            game_id, me = await _finished(client)
            next_id = await _next_id(replica, game_id)
            charged, go_on = asyncio.Event(), asyncio.Event()
            cost = replica.host.play_again_cost

            async def held_cost(asked: str) -> Any:
                answer = await cost(asked)
                charged.set()
                await asyncio.wait_for(go_on.wait(), HELD_S)
                return answer

            replica.host.play_again_cost = held_cost  # type: ignore[method-assign]
            call = asyncio.create_task(client.with_retry(ONE_ATTEMPT).play_again(game_id, me.token))
            await asyncio.wait_for(charged.wait(), HELD_S)
            raw = Redis.from_url(redis_server.url)
            try:
                remove_game(raw, game_id)
            finally:
                raw.close()
            go_on.set()
            answer = await call
            assert answer.game_id == next_id and answer.view.status == game_pb2.GAME_STATUS_OPEN

    run(scenario(), 90)


@pytest.mark.parametrize("loser_writes", ["before the winner", "after the winner answered"])
def test_two_first_calls_at_once_leave_the_next_game_listed_as_it_was_made(redis_server: EmbeddedRedis, loser_writes: str) -> None:
    """Two first calls, on replicas A and B whose clocks read two seconds apart: each finds no
    next game and makes one, indexing it (from its own clock's second) before its commit, and
    B's commit wins; A's is refused and A answers with B's game. A writes the lobby before B
    does (held before its commit), or after B has answered (held once it found no game).
    Once both have answered, the lobby lists the next game once, and its summary says what
    the game says: its creation time, its place in the lobby, how long it stays open. Before,
    a losing call that wrote after the winner left its own summary (each call dropped the
    game's entry before indexing it, for a namesake that expired), a second or more off the
    game's, until the first join wrote the summary again; and the game was missing from the
    lobby between that drop and the loser's index."""

    async def scenario() -> None:
        b_clock = HeldClock()
        async with replica_and_client(redis_server.url) as (a, client_a), replica_and_client(
            redis_server.url, local_clock=b_clock
        ) as (b, client_b):
            game_id, me = await _finished(client_a)
            next_id = await _next_id(a, game_id)
            b_clock.advance_to_ms(b, a.host._now_ms() + CLOCK_AHEAD_MS)
            a_held, b_answered = asyncio.Event(), asyncio.Event()
            store = a.host.store
            commit, load = store.commit, store.load

            async def held_commit(stored: Any, base_version: int, *args: Any, **kwargs: Any) -> Any:
                if stored.game_id == next_id and base_version == 0 and loser_writes == "before the winner":
                    a_held.set()  # A's summary is in the lobby: its index comes before its commit
                    await asyncio.wait_for(b_answered.wait(), HELD_S)
                return await commit(stored, base_version, *args, **kwargs)

            async def held_load(asked: str) -> Any:
                found = await load(asked)
                if asked == next_id and found is None and loser_writes == "after the winner answered" and not a_held.is_set():
                    a_held.set()  # A found no next game: it will make one
                    await asyncio.wait_for(b_answered.wait(), HELD_S)
                return found

            store.commit = held_commit  # type: ignore[method-assign]
            store.load = held_load  # type: ignore[method-assign]
            call_a = asyncio.create_task(client_a.with_retry(ONE_ATTEMPT).play_again(game_id, me.token))
            await asyncio.wait_for(a_held.wait(), HELD_S)
            answer_b = await client_b.with_retry(ONE_ATTEMPT).play_again(game_id, me.token)
            b_answered.set()
            answer_a = await call_a
            assert answer_a.game_id == answer_b.game_id == next_id
            assert answer_a.view.seed_commitment == answer_b.view.seed_commitment  # one game: B's

            made = await load(next_id)
            assert made is not None
            page = await client_a.games(kind="stimmvieh", status=game_pb2.GAME_STATUS_OPEN, page_size=100)
            listed = [g for g in page.games if g.game_id == next_id]
            assert len(listed) == 1
            (summary,) = listed
            assert (summary.created_at, summary.open_until) == (made.created_at, made.created_at + table.DEFAULT_OPEN_S)

    run(scenario(), 90)


def test_a_next_game_made_again_after_it_went_is_listed_as_made_not_as_its_namesake(redis_server: EmbeddedRedis) -> None:
    """The next game is made, a player sits down in it, and it goes (removed here as its expiry
    or the room maker removes it) while its lobby entry waits for the repair. A later PlayAgain
    makes it again under the same id: the lobby lists the new game (nobody seated, its own
    creation time), not its namesake's summary, whose higher version the index would keep."""

    async def scenario() -> None:
        clock = _ShiftedClock()
        async with replica_and_client(redis_server.url, local_clock=clock) as (replica, client):
            game_id, me = await _finished(client)
            first = await client.play_again(game_id, me.token)
            await client.join(first.game_id, "Ada", seat=0)
            raw = Redis.from_url(redis_server.url)
            try:
                remove_game(raw, first.game_id)
            finally:
                raw.close()
            clock.shift_s = CLOCK_AHEAD_MS / 1000  # made again in another second than its namesake
            again = await client.play_again(game_id, me.token)
            assert again.game_id == first.game_id and again.view.version == 1
            made = await replica.host.store.load(again.game_id)
            assert made is not None
            listed = (await replica.host.store.lobby_summaries([again.game_id]))[again.game_id]
            assert (listed.version, listed.created_at) == (1, made.created_at)
            assert not listed.seats[0].taken

    run(scenario(), 90)


def test_the_next_game_stays_listed_while_the_winner_lists_it_as_made(redis_server: EmbeddedRedis) -> None:
    """Two first calls, on replicas A and B whose clocks read two seconds apart: A indexes the
    next game from its clock and is held before its commit; B's index finds A's entry (the
    same version) and leaves it, B's commit wins, and B lists the game as it was made. After
    every command B sends Redis, the lobby and the filter set of the game's kind and status
    list the next game. Before, B dropped A's entry and indexed its own in two calls: a page
    read between them did not show the game."""

    async def scenario() -> None:
        b_clock = HeldClock()
        async with replica_and_client(redis_server.url) as (a, client_a), replica_and_client(
            redis_server.url, local_clock=b_clock
        ) as (b, client_b):
            game_id, me = await _finished(client_a)
            next_id = await _next_id(a, game_id)
            b_clock.advance_to_ms(b, a.host._now_ms() + CLOCK_AHEAD_MS)
            a_held, b_answered = asyncio.Event(), asyncio.Event()
            commit = a.host.store.commit

            async def held_commit(stored: Any, base_version: int, *args: Any, **kwargs: Any) -> Any:
                if stored.game_id == next_id and base_version == 0:
                    a_held.set()  # A's summary is in the lobby: its index comes before its commit
                    await asyncio.wait_for(b_answered.wait(), HELD_S)
                return await commit(stored, base_version, *args, **kwargs)

            a.host.store.commit = held_commit  # type: ignore[method-assign]
            raw = Redis.from_url(redis_server.url)
            missing: list[str] = []
            b_client = b.host.store.client
            send = b_client.execute_command

            async def watched(*command: Any, **kwargs: Any) -> Any:
                answer = await send(*command, **kwargs)
                filed = raw.zrange(lobby_filter_key("stimmvieh", game_pb2.GAME_STATUS_OPEN), 0, -1)
                if raw.zscore(LOBBY_KEY, next_id) is None or not any(p.decode().endswith(":" + next_id) for p in filed):
                    missing.append(str(command[0]))
                return answer

            try:
                call_a = asyncio.create_task(client_a.with_retry(ONE_ATTEMPT).play_again(game_id, me.token))
                await asyncio.wait_for(a_held.wait(), HELD_S)
                a_entry = (await a.host.store.lobby_summaries([next_id]))[next_id]
                b_client.execute_command = watched  # type: ignore[method-assign]
                try:
                    answer_b = await client_b.with_retry(ONE_ATTEMPT).play_again(game_id, me.token)
                finally:
                    b_client.execute_command = send  # type: ignore[method-assign]
                b_answered.set()
                assert (await call_a).game_id == answer_b.game_id == next_id
            finally:
                raw.close()
            made = await b.host.store.load(next_id)
            assert made is not None and made.created_at != a_entry.created_at  # B's game, B's second
            assert missing == [], f"the next game was out of the lobby after {missing}"
            listed = (await b.host.store.lobby_summaries([next_id]))[next_id]
            assert listed.created_at == made.created_at

    run(scenario(), 90)
