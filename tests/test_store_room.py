"""Room kept in Redis for the games in play: once Redis is at ``--new-games-until-percent`` of its
maxmemory, CreateGame is refused STORE_NEARLY_FULL while the games in play move on to their end;
creation opens again when Redis has room. A Redis without maxmemory, or one that does not let the
replica read its memory, refuses nothing."""

from __future__ import annotations

import asyncio
import pathlib
import random
import time

import grpc
import pytest
import redis
from prometheus_client import REGISTRY

from hustings.cli import _parser
from hustings.client import Client, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store_room import evicting_policies, memory_fill
from hustings.v1 import game_pb2
from conftest import run
from hustings.service.replica import UNBOUNDED_CREATES
from service_helpers import new_game, play_to_end, replica_and_client, run_with_admin, stimmvieh_options

MAX_CREATES = 20_000  # the bound of the crowd's loop; a few hundred fill the room set below
CROWD_SECONDS = 60.0
ROOM_CHECK_S = 0.02  # the replica reads Redis's memory this often here (1 s in service)


def refused_creations(reason: str) -> float:
    return REGISTRY.get_sample_value("hustings_refused_creations_total", {"reason": reason}) or 0.0


async def create_until_refused(client: Client) -> tuple[int, list[HustingsError]]:
    """Create games, sixteen at a time, until some are refused; returns (games made, the refusals)."""
    made = 0
    deadline = time.monotonic() + CROWD_SECONDS
    while made < MAX_CREATES and time.monotonic() < deadline:
        results = await asyncio.gather(
            *(client.create_game("stimmvieh", 4, stimmvieh_options(4)) for _ in range(16)), return_exceptions=True
        )
        refusals = [result for result in results if isinstance(result, HustingsError)]
        for result in results:
            if isinstance(result, BaseException) and not isinstance(result, HustingsError):
                raise result
        made += len(results) - len(refusals)
        if refusals:
            return made, refusals
    raise AssertionError(f"no CreateGame refused after {made} games")


def test_a_crowd_of_creations_leaves_room_for_the_games_in_play(tmp_path: pathlib.Path) -> None:
    """Without the room kept, the crowd's games fill Redis to its limit and the moves of the game
    in play fail STORE_FULL with them."""

    async def scenario(url: str, admin: "redis.Redis[bytes]") -> None:
        async with replica_and_client(url, store_room_check_s=ROOM_CHECK_S, new_games_until_percent=80.0, **UNBOUNDED_CREATES) as (replica, client):
            seats = await new_game(client)  # a game in play before the crowd comes
            used = int(admin.info("memory")["used_memory"])
            admin.config_set("maxmemory", used + 3_000_000)
            before = refused_creations("STORE_NEARLY_FULL")
            made, refusals = await create_until_refused(client)
            for refusal in refusals:
                assert refusal.code == grpc.StatusCode.RESOURCE_EXHAUSTED and refusal.reason == "STORE_NEARLY_FULL", refusal
                assert refusal.retry_after_s is None  # room comes back as games expire, not within a call
            assert made > 50, made  # the room was not refused from the start
            assert refused_creations("STORE_NEARLY_FULL") == before + len(refusals)
            fill = replica.host.room.fill
            # The reading that refused was 80 % or more; Redis's memory moves by a few percent of
            # this 3 MB margin from one reading to the next (the crowd's reply buffers going), so
            # the last one may sit just under it (78.6 % once, in a full run on a loaded machine).
            assert fill is not None and 0.75 <= fill < 1.0, fill
            # Every game in play moves on to its end in the room kept.
            end = await play_to_end([client], seats, random.Random(7))
            assert end.status == game_pb2.GAME_STATUS_FINISHED
            # Joins go on too: the crowd's games can still be played.
            listed = await client.games(kind="stimmvieh", status=game_pb2.GAME_STATUS_OPEN, page_size=1)
            joined = await client.join(listed.games[0].game_id, "Late player")
            assert joined.seat >= 0
            # More memory: creation opens again within a few readings.
            admin.config_set("maxmemory", 0)
            deadline = time.monotonic() + 10
            while replica.host.room.full and time.monotonic() < deadline:
                await asyncio.sleep(ROOM_CHECK_S)
            created = await client.create_game("stimmvieh", 4, stimmvieh_options(4))
            assert created.game_id

    run_with_admin(tmp_path, scenario, noeviction=True)


def test_a_retried_create_is_answered_while_new_games_are_refused(tmp_path: pathlib.Path) -> None:
    """A client that lost the answer to a CreateGame learns its game, store nearly full or not."""

    async def scenario(url: str, admin: "redis.Redis[bytes]") -> None:
        async with replica_and_client(url, store_room_check_s=ROOM_CHECK_S) as (replica, client):
            first = await client.create_game("stimmvieh", 4, stimmvieh_options(4), request_id="crowd-create-0000001")
            used = int(admin.info("memory")["used_memory"])
            admin.config_set("maxmemory", used)  # at 100 %: past the 90 % of the default
            deadline = time.monotonic() + 10
            while not replica.host.room.full and time.monotonic() < deadline:
                await asyncio.sleep(ROOM_CHECK_S)
            again = await client.create_game("stimmvieh", 4, stimmvieh_options(4), request_id="crowd-create-0000001")
            assert again.game_id == first.game_id
            with pytest.raises(HustingsError) as refused:
                await client.create_game("stimmvieh", 4, stimmvieh_options(4), request_id="crowd-create-0000002")
            assert refused.value.reason == "STORE_NEARLY_FULL"
            # Nothing was written for the refused one: its id makes a game once there is room.
            admin.config_set("maxmemory", 0)
            await replica.host.room.check_once()
            made = await client.create_game("stimmvieh", 4, stimmvieh_options(4), request_id="crowd-create-0000002")
            assert made.game_id != first.game_id

    run_with_admin(tmp_path, scenario)


def test_a_redis_that_refuses_info_to_the_replica_refuses_no_game(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A managed Redis whose user may not run INFO: no reading, so nothing is refused, and the
    replica says so once and stops asking."""

    async def scenario(url: str) -> None:
        async with replica_and_client(url, store_room_check_s=ROOM_CHECK_S, new_games_until_percent=1.0) as (replica, client):
            await asyncio.sleep(ROOM_CHECK_S * 5)
            room = replica.host.room
            assert room.fill is None and not room.full
            assert room.unreadable and room._task is not None and room._task.done()  # it stopped asking
            created = await client.create_game("stimmvieh", 4, stimmvieh_options(4))
            assert created.game_id

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        admin = redis.Redis.from_url(server.url)
        try:
            admin.execute_command("ACL", "SETUSER", "player", "on", ">room-test-password", "~*", "&*", "+@all", "-info")
            # Over 1 % used: a replica that read it would refuse new games.
            admin.config_set("maxmemory", int(admin.info("memory")["used_memory"]) + 50_000_000)
            run(scenario(f"redis://player:room-test-password@127.0.0.1:{server.port}/0"))
            assert capsys.readouterr().out.count("store_memory_unreadable") == 1
        finally:
            admin.config_set("maxmemory", 0)
            admin.close()


def test_memory_fill_reads_one_server_and_the_fullest_node_of_a_cluster() -> None:
    assert memory_fill({"used_memory": 900, "maxmemory": 1000}) == 0.9
    assert memory_fill({"used_memory": 900, "maxmemory": 0}) is None  # no limit: nothing to keep room below
    cluster = {
        "10.0.0.1:6379": {"used_memory": 100, "maxmemory": 1000},
        "10.0.0.2:6379": {"used_memory": 950, "maxmemory": 1000},
        "10.0.0.3:6379": {"used_memory": 5000, "maxmemory": 0},
    }
    assert memory_fill(cluster) == 0.95


def test_a_redis_that_may_evict_games_is_warned_of_once_per_change(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    """deploy/README.md: Redis must not evict (``maxmemory-policy noeviction``); a replica that
    finds a limit with an evicting policy warns at start and again when the policy changes."""

    async def scenario(url: str, admin: redis.Redis) -> None:
        async with replica_and_client(url, store_room_check_s=ROOM_CHECK_S) as (_replica, _client):
            await asyncio.sleep(ROOM_CHECK_S * 5)
            assert capsys.readouterr().out.count("store_may_evict_games") == 1  # at start, once
            admin.config_set("maxmemory-policy", "noeviction")
            await asyncio.sleep(ROOM_CHECK_S * 5)
            assert "store_may_evict_games" not in capsys.readouterr().out
            admin.config_set("maxmemory-policy", "volatile-ttl")
            await asyncio.sleep(ROOM_CHECK_S * 5)
            said = [line for line in capsys.readouterr().out.splitlines() if "store_may_evict_games" in line]
            assert len(said) == 1 and "volatile-ttl" in said[0], said

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        admin = redis.Redis.from_url(server.url)
        try:
            admin.config_set("maxmemory", 1 << 30)
            admin.config_set("maxmemory-policy", "allkeys-lru")
            run(scenario(server.url, admin))
        finally:
            admin.close()


def test_evicting_policies_are_those_of_nodes_with_a_limit() -> None:
    assert evicting_policies({"used_memory": 1, "maxmemory": 1000, "maxmemory_policy": "noeviction"}) == []
    assert evicting_policies({"used_memory": 1, "maxmemory": 0, "maxmemory_policy": "allkeys-lru"}) == []  # no limit: nothing evicted
    cluster = {
        "10.0.0.1:6379": {"used_memory": 1, "maxmemory": 1000, "maxmemory_policy": "volatile-lru"},
        "10.0.0.2:6379": {"used_memory": 1, "maxmemory": 1000, "maxmemory_policy": "noeviction"},
        "10.0.0.3:6379": {"used_memory": 1, "maxmemory": 1000, "maxmemory_policy": "allkeys-lfu"},
    }
    assert evicting_policies(cluster) == ["allkeys-lfu", "volatile-lru"]


@pytest.mark.parametrize("value", ["0", "100.5", "-3", "ninety"])
def test_serve_refuses_a_share_out_of_range(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        _parser().parse_args(["serve", "--new-games-until-percent", value])
    assert exited.value.code == 2
    assert "--new-games-until-percent" in capsys.readouterr().err


def test_serve_takes_a_share_up_to_100() -> None:
    assert _parser().parse_args(["serve", "--new-games-until-percent", "100"]).new_games_until_percent == 100.0
    assert _parser().parse_args(["serve"]).new_games_until_percent == 90.0
