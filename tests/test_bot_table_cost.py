"""What tables of bots cost the replica, and who pays: bot seats count in their creator's creation
allowance, and a table where bots decide for every seat is paced, while bots at a table with a
player present decide at once (README, Limits)."""

from __future__ import annotations

import asyncio
import time

import pytest
from prometheus_client import REGISTRY

from conftest import REPO, run, running_replica
from hustings.client import ONE_ATTEMPT, Client, HustingsError
from hustings.service import table
from hustings.service.client_limits import (
    DEFAULT_CREATE_BURST,
    GREEDY_BOT_GAMES,
    RANDOM_BOT_GAMES,
    STRONG_BOT_GAMES,
    bot_games,
    games_counted,
)
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2, game_service_pb2
from service_helpers import replica_and_client

FINISH_POLLS = 300  # 0.05 s apart


def refused_for_the_allowance() -> float:
    return REGISTRY.get_sample_value("hustings_refused_creations_total", {"reason": "TOO_MANY_GAMES_CREATED"}) or 0.0


def _create_request(players: int, bot_seats: list[int], level: str = "") -> game_service_pb2.CreateGameRequest:
    request = game_service_pb2.CreateGameRequest(kind="stimmvieh", options=game_pb2.GameOptions(players=players))
    request.table.bot_seats.extend(bot_seats)
    request.table.bot_level = level
    return request


def test_a_bot_seat_counts_as_one_game_more_a_greedy_one_as_three_and_a_strong_table_as_before() -> None:
    """The README's figures: a four-seat table of random bots alone counts as five games (24 of
    them in a burst of 120), of greedy ones as 13 (9 in a burst), of strong ones as 41; AddBot as
    one, three or ten."""
    assert (RANDOM_BOT_GAMES, GREEDY_BOT_GAMES, STRONG_BOT_GAMES, DEFAULT_CREATE_BURST) == (1, 3, 10, 120)
    for level in ("", "random"):
        assert games_counted(_create_request(4, [0, 1, 2, 3], level)) == 5
        assert games_counted(_create_request(4, [2], level)) == 2
        assert games_counted(_create_request(4, [], level)) == 1
        assert bot_games(level) == 1
    # Greedy and strong tables count every seat: a player who leaves or times out is a bot too.
    assert games_counted(_create_request(4, [0, 1, 2, 3], "greedy")) == 13 == games_counted(_create_request(4, [], "greedy"))
    assert DEFAULT_CREATE_BURST // games_counted(_create_request(4, [0, 1, 2, 3])) == 24
    assert DEFAULT_CREATE_BURST // games_counted(_create_request(4, [0, 1, 2, 3], "greedy")) == 9
    assert games_counted(_create_request(4, [0, 1, 2, 3], "strong")) == 41 == games_counted(_create_request(4, [], "strong"))
    assert (bot_games("greedy"), bot_games("strong")) == (3, 10)
    # README, Write your own bot: "a burst of 120 makes two five-seat tables of strong bots".
    assert DEFAULT_CREATE_BURST // games_counted(_create_request(5, [1, 2, 3, 4], "strong")) == 2


def test_bot_seats_and_added_bots_take_from_their_clients_creation_allowance(redis_server: EmbeddedRedis) -> None:
    """With the default burst (120 at once; refilled at one a minute here, so that a slow machine
    gets nothing back meanwhile): a plain table (1), then 29 tables of three
    random bots and a free seat (4 each) leave 3; a 30th table is TOO_MANY_GAMES_CREATED; two
    random AddBots pass (1 each), a greedy one (3) is refused, a third random one passes, a fourth
    is refused, and the refused change nothing but the count of refused creations. (The tables wait for a player: no bot plays.)
    Before, random bots were free: 120 tables of bots alone from one address cost 40 s of CPU."""

    async def scenario() -> None:
        three_bots = game_pb2.TableSettings(bot_seats=[0, 1, 2], bot_level="random")
        async with replica_and_client(redis_server.url, creates_per_client_per_minute=1.0) as (_replica, client):
            once = client.with_retry(ONE_ATTEMPT)
            before = refused_for_the_allowance()
            plain = (await once.create_game("stimmvieh", 4)).game_id
            for _ in range(29):
                await once.create_game("stimmvieh", 4, table=three_bots)
            with pytest.raises(HustingsError) as refused:
                await once.create_game("stimmvieh", 4, table=three_bots)
            assert refused.value.reason == "TOO_MANY_GAMES_CREATED" and refused.value.retry_after_s
            for seat in range(2):
                await once.add_bot(plain, seat, level="random")
            with pytest.raises(HustingsError) as refused_bot:
                await once.add_bot(plain, 2, level="greedy")
            assert refused_bot.value.reason == "TOO_MANY_GAMES_CREATED"
            await once.add_bot(plain, 2, level="random")
            with pytest.raises(HustingsError) as refused_last:
                await once.add_bot(plain, 3, level="random")
            assert refused_last.value.reason == "TOO_MANY_GAMES_CREATED"
            view = await client.view(plain)
            assert [s.bot for s in view.seats] == [True, True, True, False]
            assert view.status == game_pb2.GAME_STATUS_OPEN
            # The refused AddBots count among the refused creations, as the refused CreateGame does.
            assert refused_for_the_allowance() == before + 3

    run(scenario(), timeout_s=60)


def test_an_added_bot_of_the_tables_level_is_charged_as_that_level(redis_server: EmbeddedRedis) -> None:
    """AddBot without a level adds a bot of the table's level, and is charged for that bot (over
    gRPC and REST alike): at a strong table it counts as ten games, not as a random bot's one.
    A strong four-seat table counts 41; 70 plain tables leave 9 of the burst of 120, too few for
    a strong bot and enough for a random one. A game that does not exist is NOT_FOUND, uncharged."""
    import json
    import urllib.error
    import urllib.request

    async def scenario() -> None:
        strong = game_pb2.TableSettings(bot_level="strong")
        async with replica_and_client(
            redis_server.url, creates_per_client_per_minute=1.0, http_address="127.0.0.1:0"
        ) as (replica, client):
            once = client.with_retry(ONE_ATTEMPT)
            table = (await once.create_game("stimmvieh", 4, table=strong)).game_id
            for _ in range(70):
                await once.create_game("stimmvieh", 4)
            with pytest.raises(HustingsError) as refused:
                await once.add_bot(table, 0)
            assert refused.value.reason == "TOO_MANY_GAMES_CREATED"
            url = f"http://127.0.0.1:{replica.http_port}/v1/games/{table}:addBot"
            body = json.dumps({"seat": 0}).encode()

            def post(address: str) -> tuple[int, str]:
                request = urllib.request.Request(address, data=body, headers={"Content-Type": "application/json"})
                try:
                    with urllib.request.urlopen(request, timeout=10) as answer:
                        return answer.status, ""
                except urllib.error.HTTPError as error:
                    return error.code, json.loads(error.read())["details"][0]["reason"]

            assert await asyncio.to_thread(post, url) == (429, "TOO_MANY_GAMES_CREATED")
            missing = f"http://127.0.0.1:{replica.http_port}/v1/games/gnosuchgame0000000000000:addBot"
            assert (await asyncio.to_thread(post, missing))[0] == 404
            with pytest.raises(HustingsError) as gone:
                await once.add_bot("gnosuchgame0000000000000", 0)
            assert gone.value.reason != "TOO_MANY_GAMES_CREATED"
            await once.add_bot(table, 0, level="random")  # one game: there are still 9
            view = await client.view(table)
            assert [(s.bot, s.display_name) for s in view.seats][:2] == [(True, "Bot (random)"), (False, "")]

    run(scenario(), timeout_s=60)


def _stored(*seats: storage_pb2.StoredSeat) -> storage_pb2.StoredGame:
    stored = storage_pb2.StoredGame(status=game_pb2.GAME_STATUS_ACTIVE)
    stored.table.decision_seconds = 30
    stored.seats.extend(seats)
    return stored


def test_bots_decide_at_once_beside_a_player_and_a_pace_apart_at_a_table_of_bots_alone() -> None:
    """The deadlines as data: a bot seat, or a player who is absent, owes a decision due at
    once while any player is at the table, and one ``BOT_ONLY_STEP_MS`` after the step when bots
    decide for every seat; a player's own clock is untouched either way."""
    now = 1_000_000
    player = storage_pb2.StoredSeat(seat=0, token_sha256="x")
    mixed = _stored(player, storage_pb2.StoredSeat(seat=1, bot=True), storage_pb2.StoredSeat(seat=2, token_sha256="y", absent=True))
    assert table.settle(mixed, {0, 1, 2}, None, now) == now
    assert [s.deadline_ms for s in mixed.seats] == [now + 30_000, now, now]
    assert not table.all_bots(mixed)

    alone = _stored(
        storage_pb2.StoredSeat(seat=0, token_sha256="x", absent=True), storage_pb2.StoredSeat(seat=1, bot=True), storage_pb2.StoredSeat(seat=2, bot=True)
    )
    assert table.all_bots(alone)
    assert table.settle(alone, {0, 1, 2}, None, now) == now + table.BOT_ONLY_STEP_MS
    assert [s.deadline_ms for s in alone.seats] == [now + table.BOT_ONLY_STEP_MS] * 3
    # The next step (a decision of seat 1) pushes the others' decisions one pace on again.
    later = now + 7
    table.settle(alone, {0, 2}, 1, later)
    assert [s.deadline_ms for s in alone.seats] == [later + table.BOT_ONLY_STEP_MS, 0, later + table.BOT_ONLY_STEP_MS]
    # A player coming back: the bots beside it decide at once again.
    alone.seats[0].absent = False
    table.settle(alone, {0, 2}, None, later)
    assert alone.seats[2].deadline_ms == alone.seats[2].turn_started_ms == now


async def _finished(client: Client, game_id: str) -> game_pb2.GameView:
    for _ in range(FINISH_POLLS):
        view = await client.view(game_id)
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            return view
        await asyncio.sleep(0.05)
    raise AssertionError("the bots did not finish their game")


def test_a_table_of_bots_alone_makes_one_decision_a_pace_at_most_and_its_replica_stops_cleanly(
    redis_server: EmbeddedRedis,
) -> None:
    """A three-seat Stimmvieh game of random bots takes about 30 decisions, which they used to
    make in a few tens of milliseconds: now at least a pace lies between two of them. At a table
    with a player present the bots' decisions are due at once (the player's, under a 30 s clock,
    30 s later). When the replica stops, no wake-up of a paced table is left behind."""

    async def scenario() -> None:
        alone = game_pb2.TableSettings(bot_seats=[0, 1, 2], bot_level="random")
        beside = game_pb2.TableSettings(bot_seats=[1, 2], bot_level="random", decision_seconds=30)
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                started = time.monotonic()
                game_id = (await client.create_game("stimmvieh", 3, table=alone)).game_id
                view = await _finished(client, game_id)
                took_ms = (time.monotonic() - started) * 1000
                decisions = view.version - 1  # the creation is version 1
                assert decisions > 10
                assert took_ms >= decisions * table.BOT_ONLY_STEP_MS, (decisions, took_ms)

                mixed = (await client.create_game("stimmvieh", 3, table=beside)).game_id
                player = await client.join(mixed, "Ada")  # the game starts: all three choose
                clock, bot, other_bot = player.view.seats
                assert clock.deadline_unix_ms - bot.deadline_unix_ms == 30_000 == clock.deadline_unix_ms - other_bot.deadline_unix_ms
                # Pace a table again and stop while its next decision waits.
                await client.create_game("stimmvieh", 3, table=alone)
                await asyncio.sleep(0.5)
        left = [t.get_name() for t in asyncio.all_tasks() if t.get_name().startswith("hustings-deadlines")]
        assert not left, left

    run(scenario(), timeout_s=60)


def test_the_readme_and_the_proto_state_the_pace_and_what_bots_count_as() -> None:
    """The figures the README's Tables and Limits sections and the proto comments give are the
    ones the service uses."""
    words = {1: "one", 3: "three", 10: "ten"}

    def text(path: str) -> str:
        return " ".join((REPO / path).read_text().replace("//", " ").split())

    readme, game, service = text("README.md"), text("proto/hustings/v1/game.proto"), text("proto/hustings/v1/game_service.proto")
    pace = f"one decision every {table.BOT_ONLY_STEP_MS} ms at most"
    assert readme.count(pace) == 2 and pace in game
    assert (
        f"A random bot seat counts as {words[RANDOM_BOT_GAMES]} game more, and an `AddBot` of a random or a greedy bot as "
        f"{words[RANDOM_BOT_GAMES]} or {words[GREEDY_BOT_GAMES]}" in readme
    )
    assert (
        f"one whose bots are greedy as one game and {words[GREEDY_BOT_GAMES]} more per seat" in readme
        and f"counts as one game and {words[STRONG_BOT_GAMES]} more per seat" in readme
    )
    burst = DEFAULT_CREATE_BURST
    assert f"the burst now makes {burst // (1 + 4 * RANDOM_BOT_GAMES)} such tables, or {burst // (1 + 4 * GREEDY_BOT_GAMES)} of greedy bots" in readme
    assert (
        f"Each counts as {words[RANDOM_BOT_GAMES]} game more in the creator's allowance of games created (a table of greedy "
        f"bots: {words[GREEDY_BOT_GAMES]} more per seat, bot or not; of strong bots: {words[STRONG_BOT_GAMES]} more per seat)" in game
    )
    assert (
        f"The bot counts as {words[RANDOM_BOT_GAMES]} game in the caller's allowance of games created (a greedy bot as "
        f"{words[GREEDY_BOT_GAMES]}, a strong one as {words[STRONG_BOT_GAMES]})" in service
    )
