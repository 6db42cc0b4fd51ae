"""PlayAgain: after a game is over its players start the next game at the same table in one call.

The next game's id is derived from the finished game's under the server secret, so every call, from
any seat on any replica and however many overlap, names one game and exactly one is made; the
first call is charged as a CreateGame of the table, later ones are not; a spectator, a wrong
token, a game in play or an unknown game is refused with nothing written. Real Redis, real gRPC
and REST."""

from __future__ import annotations

import asyncio
import json
import pathlib
import random
import shutil
import subprocess
import time
from typing import Any

import grpc
import pytest
from redis import Redis

from conftest import run
from rest_helpers import LiveRest
from service_helpers import replica_and_client, stimmvieh_options
from hustings.client import ONE_ATTEMPT, Client, HustingsError, Joined
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import Replica
from hustings.service.store import game_key
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2, game_service_pb2

PLAYERS = 3
MAX_POLLS = 3000  # a game of Stimmvieh with bots takes a few hundred of the players' decisions
GAME_TIMEOUT_S = 60.0
CALLS_PER_SEAT = 4  # concurrent PlayAgain calls per seat and replica
NODE_TIMEOUT_S = 60


def _table(bot_seats: list[int], **settings: Any) -> game_pb2.TableSettings:
    table = game_pb2.TableSettings(**settings)
    table.bot_seats.extend(bot_seats)
    return table


async def _finished(
    clients: list[Client], table: game_pb2.TableSettings, seed: str = "", added: tuple[int, ...] = ()
) -> tuple[str, list[Joined]]:
    """A Stimmvieh table of ``PLAYERS`` seats with ``table``'s bots and a bot added (AddBot) to
    each seat of ``added``, every other seat joined (through the clients in turn), played to its
    end with random legal moves while the bots play theirs."""
    created = await clients[0].create_game("stimmvieh", PLAYERS, stimmvieh_options(PLAYERS), seed=seed, table=table)
    game_id = created.game_id
    for seat in added:
        await clients[0].add_bot(game_id, seat=seat)
    humans = [s for s in range(PLAYERS) if s not in table.bot_seats and s not in added]
    joined = [await clients[i % len(clients)].join(game_id, f"Player {s}", seat=s) for i, s in enumerate(humans)]
    rng = random.Random(7)
    deadline = time.monotonic() + GAME_TIMEOUT_S
    for i in range(MAX_POLLS):
        assert time.monotonic() < deadline, "the game did not end in time"
        client = clients[i % len(clients)]
        view = await client.view(game_id)
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            return game_id, joined
        mine = [j for j in joined if j.seat in view.to_act]
        if not mine:
            await asyncio.sleep(0.01)  # the bots decide
            continue
        seat = mine[0]
        own = await client.view(game_id, seat.token)
        if not own.legal_moves or own.status != game_pb2.GAME_STATUS_ACTIVE:
            continue
        try:
            await client.move(game_id, seat.token, rng.choice(list(own.legal_moves)), expected_version=own.version)
        except HustingsError as error:
            if error.reason not in ("STALE_VERSION", "NOT_YOUR_TURN", "GAME_OVER"):
                raise  # a bot stepped in between: decide again on the new state
    raise AssertionError("the game did not end within the poll bound")


def _game_keys(redis_url: str) -> set[str]:
    """The ids of every game Redis holds."""
    redis = Redis.from_url(redis_url)
    try:
        return {key.decode().split("{", 1)[1].split("}", 1)[0] for key in redis.scan_iter(match="hustings:{*}:game", count=1000)}
    finally:
        redis.close()


def _next_of(replica: Replica, game_id: str) -> str:
    """The next game's id ``replica`` derives for ``game_id``: from its id and the nonce drawn at
    its creation (none for a game that does not exist)."""
    redis = Redis.from_url(replica.config.redis_url)
    try:
        snapshot = redis.hget(game_key(game_id), "snapshot")
    finally:
        redis.close()
    nonce = storage_pb2.StoredGame.FromString(snapshot).seed_nonce if snapshot else b""
    return replica.host.keys.next_game_id(game_id, nonce)


async def _lobby_ids(client: Client) -> list[str]:
    ids: list[str] = []
    token = ""
    for _ in range(200):
        page = await client.games(page_size=200, page_token=token)
        ids += [g.game_id for g in page.games]
        token = page.next_page_token
        if not token:
            return ids
    raise AssertionError("the lobby did not end within the page bound")


async def _refused(call: Any) -> HustingsError:
    with pytest.raises(HustingsError) as refused:
        await call
    return refused.value


def test_a_finished_table_plays_again_with_the_same_options_and_table_and_its_bots(redis_server: EmbeddedRedis) -> None:
    """The player's PlayAgain answers a new open game of the same kind, options and table (its
    bots seated, nobody else), dealt from a seed the server drew (not the creator's chosen one);
    the finished game is left as it was; the player joins the seat it had and the game starts.
    A second call answers with the same game."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, allow_client_seed=True) as (replica, client):
            table = _table([1, 2], allow_takeover=True, open_seconds=3600, decision_seconds=120, bank_seconds=600)
            game_id, (me,) = await _finished([client], table, seed="ab" * 32)
            finished = await client.view(game_id, me.token)
            answer = await client.play_again(game_id, me.token)
            next_id = answer.game_id
            assert next_id == _next_of(replica, game_id) != game_id
            assert len(next_id) == 25 and next_id.startswith("g")
            view = answer.view
            assert (view.game_id, view.kind, view.status) == (next_id, "stimmvieh", game_pb2.GAME_STATUS_OPEN)
            assert view.options == finished.options and view.table == finished.table
            assert [(s.seat, s.taken, s.bot) for s in view.seats] == [(0, False, False), (1, True, True), (2, True, True)]
            assert not view.HasField("seat")  # the caller has no seat in it yet
            assert view.seed_commitment != finished.seed_commitment
            assert not view.seed_chosen_by_creator and finished.seed_chosen_by_creator
            stored = await replica.host.store.load(next_id)
            assert stored is not None and stored.seed != bytes.fromhex(finished.seed) and not stored.seed_from_client
            assert (await client.view(game_id, me.token)).version == finished.version  # nothing written there
            again = await client.play_again(game_id, me.token)
            assert again.game_id == next_id and again.view.version == view.version
            joined = await client.join(next_id, "Player 0", seat=me.seat)
            assert joined.view.status == game_pb2.GAME_STATUS_ACTIVE
            # Once that game is over too, its own next game is another one.
            assert _next_of(replica, next_id) not in (game_id, next_id)

    run(scenario())


def test_bots_added_through_add_bot_are_not_carried_over(redis_server: EmbeddedRedis) -> None:
    """README and proto: the next game seats the table's bot seats, not the bots a game got
    through AddBot; their seats are free for players."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):
            game_id, (me,) = await _finished([client], _table([2]), added=(1,))
            finished = await client.view(game_id)
            assert [(s.seat, s.bot) for s in finished.seats] == [(0, False), (1, True), (2, True)]
            view = (await client.play_again(game_id, me.token)).view
            assert [(s.seat, s.taken, s.bot) for s in view.seats] == [(0, False, False), (1, False, False), (2, True, True)]

    run(scenario())


def test_overlapping_calls_from_two_seats_on_two_replicas_make_exactly_one_game(redis_server: EmbeddedRedis) -> None:
    """Two players (and a bot) finish a table; then each of them calls PlayAgain several times at
    once through each of two replicas on one Redis: every call answers with the same game, and
    Redis and the lobby hold exactly one game more than before."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_a, client_a), replica_and_client(redis_server.url) as (_b, client_b):
            game_id, seats = await _finished([client_a, client_b], _table([2]))
            before = _game_keys(redis_server.url)
            calls = [
                client.play_again(game_id, seat.token)
                for _ in range(CALLS_PER_SEAT)
                for client in (client_a, client_b)
                for seat in seats
            ]
            answers = await asyncio.gather(*calls)
            ids = {answer.game_id for answer in answers}
            assert len(ids) == 1, ids
            (next_id,) = ids
            assert _game_keys(redis_server.url) - before == {next_id}
            # One game in every answer: the same deal (a creator that lost the race answers with
            # the winner's game, not with the one it would have made).
            assert {answer.view.version for answer in answers} == {1}
            assert len({answer.view.seed_commitment for answer in answers}) == 1
            lobby = await _lobby_ids(client_b)
            assert lobby.count(next_id) == 1
            # Both players sit down, one through each replica, and the game starts.
            await client_a.join(next_id, "Player 0", seat=0)
            started = await client_b.join(next_id, "Player 1", seat=1)
            assert started.view.status == game_pb2.GAME_STATUS_ACTIVE

    run(scenario())


def test_a_spectator_a_wrong_token_a_game_in_play_and_an_unknown_game_are_refused_with_nothing_written(
    redis_server: EmbeddedRedis,
) -> None:
    """No token is UNAUTHENTICATED SEAT_TOKEN_REQUIRED, a token of no seat of the game
    UNAUTHENTICATED INVALID_SEAT_TOKEN, a game in play (or still open) FAILED_PRECONDITION
    GAME_NOT_FINISHED, an unknown game NOT_FOUND GAME_NOT_FOUND; none of them makes the next game
    or writes anything to the game asked about."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (replica, client):
            once = client.with_retry(ONE_ATTEMPT)
            game_id, (me,) = await _finished([client], _table([1, 2]))
            finished = await client.view(game_id)
            in_play = await client.create_game("stimmvieh", PLAYERS, stimmvieh_options(PLAYERS))
            players = [await client.join(in_play.game_id, f"P{s}") for s in range(PLAYERS)]
            other = await client.create_game("stimmvieh", PLAYERS, stimmvieh_options(PLAYERS))
            waiting = await client.join(other.game_id, "Early")
            before = _game_keys(redis_server.url)
            in_play_version = (await client.view(in_play.game_id)).version

            spectator = await _refused(once._call("PlayAgain", game_service_pb2.PlayAgainRequest(game_id=game_id)))
            assert (spectator.code, spectator.reason) == (grpc.StatusCode.UNAUTHENTICATED, "SEAT_TOKEN_REQUIRED")
            wrong = await _refused(once.play_again(game_id, players[0].token))
            assert (wrong.code, wrong.reason) == (grpc.StatusCode.UNAUTHENTICATED, "INVALID_SEAT_TOKEN")
            playing = await _refused(once.play_again(in_play.game_id, players[1].token))
            assert (playing.code, playing.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_NOT_FINISHED")
            still_open = await _refused(once.play_again(other.game_id, waiting.token))
            assert (still_open.code, still_open.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_NOT_FINISHED")
            unknown = await _refused(once.play_again("gnosuchgame", me.token))
            assert (unknown.code, unknown.reason) == (grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND")

            assert _game_keys(redis_server.url) == before
            for asked in (game_id, in_play.game_id, other.game_id, "gnosuchgame"):
                assert await replica.host.store.load(_next_of(replica, asked)) is None, asked
            assert (await client.view(game_id)).version == finished.version
            assert (await client.view(in_play.game_id)).version == in_play_version

    run(scenario())


def test_the_call_that_makes_the_next_game_is_charged_as_its_table_and_the_others_are_not(redis_server: EmbeddedRedis) -> None:
    """With a creation allowance of 9 games that does not refill meanwhile: the table with two
    random bots counts as 3, so is the first PlayAgain of it; three more PlayAgains take nothing
    (the allowance still has them: each takes and gives back), so three plain games can still be
    created and a fourth is refused TOO_MANY_GAMES_CREATED. With the allowance used up, PlayAgain
    is still answered with the game that exists."""

    async def scenario() -> None:
        config = {"create_burst": 9, "creates_per_client_per_minute": 0.001}
        async with replica_and_client(redis_server.url, **config) as (_replica, client):
            once = client.with_retry(ONE_ATTEMPT)
            game_id, (me,) = await _finished([client], _table([1, 2]))  # 3 of 9
            first = await once.play_again(game_id, me.token)  # 3 more
            for _ in range(3):
                assert (await once.play_again(game_id, me.token)).game_id == first.game_id
            for _ in range(3):
                await once.create_game("stimmvieh", PLAYERS, stimmvieh_options(PLAYERS))
            refused = await _refused(once.create_game("stimmvieh", PLAYERS, stimmvieh_options(PLAYERS)))
            assert (refused.code, refused.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_GAMES_CREATED")
            assert (await once.play_again(game_id, me.token)).game_id == first.game_id

    run(scenario())


def test_the_first_call_is_refused_when_the_allowance_cannot_pay_for_the_table(redis_server: EmbeddedRedis) -> None:
    """An allowance of 4: the table (3) leaves 1, too little for its next game (3): PlayAgain is
    RESOURCE_EXHAUSTED TOO_MANY_GAMES_CREATED and makes nothing."""

    async def scenario() -> None:
        config = {"create_burst": 4, "creates_per_client_per_minute": 0.001}
        async with replica_and_client(redis_server.url, **config) as (replica, client):
            once = client.with_retry(ONE_ATTEMPT)
            game_id, (me,) = await _finished([client], _table([1, 2]))
            refused = await _refused(once.play_again(game_id, me.token))
            assert (refused.code, refused.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TOO_MANY_GAMES_CREATED")
            assert refused.retry_after_s is not None
            assert await replica.host.store.load(_next_of(replica, game_id)) is None

    run(scenario())


def test_the_first_call_is_refused_while_the_store_is_nearly_full_and_later_ones_are_answered(tmp_path: pathlib.Path) -> None:
    """Redis at 2/3 of its maxmemory, past the replica's 50 %: the PlayAgain that would make a
    game is RESOURCE_EXHAUSTED STORE_NEARLY_FULL and makes nothing; one whose next game was made
    before is answered with it. A Redis of its own: its maxmemory is changed."""

    async def scenario(url: str, admin: "Redis[bytes]") -> None:
        async with replica_and_client(url, store_room_check_s=0.02, new_games_until_percent=50.0) as (replica, client):
            once = client.with_retry(ONE_ATTEMPT)
            first, (me,) = await _finished([client], _table([1, 2]))
            second, (other,) = await _finished([client], _table([1, 2]))
            made = await once.play_again(second, other.token)
            admin.config_set("maxmemory", int(admin.info("memory")["used_memory"]) * 3 // 2)
            try:
                for _ in range(500):
                    if replica.host.room.refusal() is not None:
                        break
                    await asyncio.sleep(0.01)
                refused = await _refused(once.play_again(first, me.token))
                assert (refused.code, refused.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "STORE_NEARLY_FULL")
                assert await replica.host.store.load(_next_of(replica, first)) is None
                assert (await once.play_again(second, other.token)).game_id == made.game_id
            finally:
                admin.config_set("maxmemory", 0)

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        admin = Redis.from_url(server.url)
        try:
            run(scenario(server.url, admin))
        finally:
            admin.close()


def test_an_unlisted_tables_next_game_is_unlisted(redis_server: EmbeddedRedis) -> None:
    """The next game of an unlisted table is unlisted too: ListGames never shows it."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):
            game_id, (me,) = await _finished([client], _table([1, 2], unlisted=True))
            answer = await client.play_again(game_id, me.token)
            assert answer.view.table.unlisted
            assert answer.game_id not in await _lobby_ids(client)
            assert (await client.view(answer.game_id)).status == game_pb2.GAME_STATUS_OPEN  # played by its id

    run(scenario())


def test_rest_play_again_with_the_authorization_header(redis_server: EmbeddedRedis) -> None:
    """``POST /v1/games/{game_id}:playAgain`` with ``Authorization: Bearer <seat token>`` answers
    the next game (the same one as over gRPC); without the header it is 401
    SEAT_TOKEN_REQUIRED, on an unknown game 404."""
    with LiveRest(redis_server.url) as live:
        replica: Replica = live.replica  # type: ignore[assignment]
        game_id, me = _finished_over_grpc(live, _table([1, 2]))
        token = me.token
        answer = live.ok("POST", f"/v1/games/{game_id}:playAgain", {}, token=token)
        next_id = answer["gameId"]
        assert next_id == _next_of(replica, game_id)
        assert answer["view"]["gameId"] == next_id and answer["view"]["status"] == "GAME_STATUS_OPEN"
        assert live.ok("POST", f"/v1/games/{game_id}:playAgain", {}, token=token)["gameId"] == next_id
        spectator = live.call("POST", f"/v1/games/{game_id}:playAgain", {})
        assert spectator.status_code == 401 and spectator.json()["details"][0]["reason"] == "SEAT_TOKEN_REQUIRED"
        unknown = live.call("POST", "/v1/games/gnosuchgame:playAgain", {}, token=token)
        assert unknown.status_code == 404 and unknown.json()["details"][0]["reason"] == "GAME_NOT_FOUND"
        joined = live.ok("POST", f"/v1/games/{next_id}:join", {"displayName": "Player 0", "seat": 0})
        assert joined["view"]["status"] == "GAME_STATUS_ACTIVE"


def _finished_over_grpc(live: LiveRest, table: game_pb2.TableSettings) -> tuple[str, Joined]:
    """A finished game on ``live``'s replica (played over its gRPC face) and its one player."""
    replica: Replica = live.replica  # type: ignore[assignment]

    async def finish() -> tuple[str, Joined]:
        async with Client(f"127.0.0.1:{replica.port}") as client:
            game_id, (me,) = await _finished([client], table)
            return game_id, me

    return asyncio.run_coroutine_threadsafe(finish(), live.loop).result(GAME_TIMEOUT_S * 2)


def test_the_typescript_client_plays_again_and_takes_its_seat(typescript_dist: pathlib.Path, redis_server: EmbeddedRedis) -> None:
    """``HustingsRest.playAgain`` (clients/typescript/src/play_again_example.ts): the next game,
    the same one on a second call; the player takes the seat it had and the game starts."""
    node = shutil.which("node")
    assert node is not None, "the TypeScript client needs Node.js 20+ on PATH"
    with LiveRest(redis_server.url) as live:
        game_id, me = _finished_over_grpc(live, _table([0, 2]))
        assert me.seat == 1
        args = [node, str(typescript_dist / "play_again_example.js"), live.base_url, game_id, me.token, str(me.seat)]
        result = subprocess.run(args, capture_output=True, text=True, timeout=NODE_TIMEOUT_S)
        assert result.returncode == 0, result.stderr[-3000:]
        line = json.loads(result.stdout.strip().splitlines()[-1])
        assert line["gameId"] == line["again"] == _next_of(live.replica, game_id)  # type: ignore[arg-type]
        assert line["openedAs"] == "OPEN" and line["seat"] == 1 and line["status"] == "ACTIVE"
