"""The whole lobby's page tokens when the game a token names shares its second with others or was
filed again, names whose look-alike letters read as Latin only once folded (server) or only
before they are composed (/play), a leave's charge to the bank, a stop's wait for kicks that
follow-ups start, and the made-note a retried create writes again."""

from __future__ import annotations

import asyncio
import json
import pathlib
import shutil
import subprocess
import uuid

import grpc
import pytest
import redis

from conftest import run
from service_helpers import lobby_pages_after, remove_game, replica_and_client
from hustings.client import Client, HustingsError
from hustings.service import seats, table
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.errors import ServiceError
from hustings.service.replica import SOLE_CLIENT, UNBOUNDED_CALL_RATE, Replica, ReplicaConfig
from hustings.service.store import LOBBY_KEY, create_made_key
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2

REPAIR_LEASE = "hustings:{lobby}:lock:repair"
DOM = pathlib.Path(__file__).resolve().parent.parent / "service" / "static" / "play" / "dom.js"


# --- the whole lobby's page tokens -----------------------------------------------------------


async def _five_games_in_one_second(replica, client: Client) -> list[str]:  # type: ignore[no-untyped-def]
    """Five games, filed in the lobby under one creation second (as games created within one
    second are), newest first in the lobby's order (ids descending among equal times)."""
    raw = replica.host.store.client
    await raw.set(REPAIR_LEASE, "test", px=60_000)  # the lobby repair stays off
    made = [(await client.create_game("stimmvieh", 3)).game_id for _ in range(5)]
    second = int(await raw.zscore(LOBBY_KEY, made[0]))
    await raw.zadd(LOBBY_KEY, {game_id: second for game_id in made})
    order = [g.game_id for g in (await client.games(page_size=5)).games]
    assert order == sorted(made, reverse=True)
    return order


def _alone(tmp_path: pathlib.Path, scenario) -> None:  # type: ignore[no-untyped-def]
    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url), 30)


def test_a_token_whose_game_left_goes_on_after_it_among_the_games_of_its_second(tmp_path: pathlib.Path) -> None:
    """The last game of the first page leaves the lobby; four others share its creation second,
    one newer than it in the lobby's order. The next pages go on after its place: the games after
    it, none of the first page again."""

    async def scenario(url: str) -> None:
        async with replica_and_client(url, **SOLE_CLIENT) as (replica, client):
            order = await _five_games_in_one_second(replica, client)
            first = await client.games(page_size=2)
            assert [g.game_id for g in first.games] == order[:2] and first.next_page_token
            await replica.host.store.client.zrem(LOBBY_KEY, order[1])  # as its expiry's unindexing does
            assert await lobby_pages_after(client, first.next_page_token, 2) == order[2:]

    _alone(tmp_path, scenario)


def test_a_token_whose_game_was_filed_again_under_another_time_keeps_its_place(tmp_path: pathlib.Path) -> None:
    """The game a token names is in the lobby again under a later time (it left and was filed
    again): the token is a place, its time and id, so the next pages go on from there and do not
    follow the game to its new place (which repeated the games before it)."""

    async def scenario(url: str) -> None:
        async with replica_and_client(url, **SOLE_CLIENT) as (replica, client):
            order = await _five_games_in_one_second(replica, client)
            first = await client.games(page_size=2)
            assert first.next_page_token
            raw = replica.host.store.client
            await raw.zadd(LOBBY_KEY, {order[1]: int(await raw.zscore(LOBBY_KEY, order[1])) + 100})
            assert await lobby_pages_after(client, first.next_page_token, 2) == order[2:]

    _alone(tmp_path, scenario)


# --- names -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "\u03d0\u03bf\u03c4 (random)",  # Greek beta symbol, omicron, tau: the symbol reads as beta once folded
        "\u0412\u1c82\u0442 (greedy)",  # Cyrillic Ve, narrow o, te: the narrow o reads as o once folded
    ],
)
def test_a_bot_name_in_letters_that_read_as_latin_only_once_folded_is_refused(name: str) -> None:
    """Each word is of one script, so only the look-alike reading can refuse it: letters that fold
    (NFKC, case) into look-alikes are read as Latin after folding too."""
    with pytest.raises(ServiceError) as refused:
        seats.display_name(name)
    assert refused.value.reason == "BAD_DISPLAY_NAME"


def test_the_page_reads_look_alikes_before_composing_marks_on_them() -> None:
    """"Hoë" and "Ноё" written in Cyrillic letters with a combining diaeresis read alike: the page
    takes the look-alikes for Latin before NFKC composes the mark onto them (after, the Cyrillic
    e with diaeresis is a letter of its own, in no table), so both seats carry their numbers."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is needed to check the /play modules")
    script = "const { seatLabels } = await import(process.argv[1]);\nconsole.log(JSON.stringify(seatLabels(JSON.parse(process.argv[2]))));\n"
    names = [{"seat": 0, "displayName": "Ho\u00eb"}, {"seat": 1, "displayName": "\u041d\u043e\u0435\u0308"}]
    done = subprocess.run(
        [node, "--input-type=module", "-e", script, DOM.as_uri(), json.dumps(names)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    labels = json.loads(done.stdout.strip().splitlines()[-1])
    assert labels == {"0": "Ho\u00eb (seat 0)", "1": "\u041d\u043e\u0435\u0308 (seat 1)"}, labels


# --- a leave's charge to the bank ------------------------------------------------------------


def _deciding(bank_seconds: int, decision_seconds: int) -> tuple[storage_pb2.StoredGame, storage_pb2.StoredSeat]:
    stored = storage_pb2.StoredGame(table=game_pb2.TableSettings(bank_seconds=bank_seconds, decision_seconds=decision_seconds))
    seat = stored.seats.add(seat=0, display_name="Ada", bank_ms=bank_seconds * 1000, turn_started_ms=1_000)
    return stored, seat


def test_a_leave_charges_the_bank_once_per_time_used_and_keeps_the_decisions_deadline() -> None:
    """3 s into a decision on a 20 s bank the seat leaves: the bank pays 3 s, the decision keeps
    its start and its deadline. Back, it leaves again 2 s later: only those 2 s are charged (the
    3 s paid are not charged twice), and the deadline still stands where it was."""
    stored, seat = _deciding(20, 0)
    deadline = table._deadline(stored.table, seat)
    seat.deadline_ms = deadline
    table.charge_bank(stored, seat, 4_000)
    assert (seat.bank_ms, seat.turn_started_ms, table._deadline(stored.table, seat)) == (17_000, 1_000, deadline)
    table.charge_bank(stored, seat, 6_000)
    assert (seat.bank_ms, table._deadline(stored.table, seat)) == (15_000, deadline) and deadline == 21_000


def test_a_leave_at_a_table_that_also_times_each_decision_charges_the_bank_too() -> None:
    """With ``decision_seconds`` too the leave pays the bank (the per-decision limit bounds each
    decision, not the game) and the decision keeps its start, which that limit counts from."""
    stored, seat = _deciding(20, 10)
    seat.deadline_ms = deadline = table._deadline(stored.table, seat)
    table.charge_bank(stored, seat, 4_000)
    assert (seat.bank_ms, seat.turn_started_ms, table._deadline(stored.table, seat)) == (17_000, 1_000, deadline)


# --- a stop's wait for kicks that follow-ups start -------------------------------------------


def test_a_kick_started_by_a_follow_up_during_the_stop_is_waited_for_when_it_ends_within_the_grace(
    redis_server: EmbeddedRedis,
) -> None:
    """A follow-up that ends within the grace starts a short kick: the stop waits for it to end
    rather than cancelling it at once."""
    async def scenario() -> None:
        config = ReplicaConfig(redis_url=redis_server.url, address="127.0.0.1:0", grace_s=0.5, **UNBOUNDED_CALL_RATE)  # type: ignore[arg-type]
        replica = await Replica(config).start()
        host = replica.host
        started: list[asyncio.Task[None]] = []
        ended: list[bool] = []

        def keep(task: asyncio.Task[None]) -> None:
            host._kicks.add(task)
            task.add_done_callback(host._kicks.discard)

        async def kick() -> None:
            await asyncio.sleep(0.05)
            ended.append(True)

        async def follow_up() -> None:
            await asyncio.sleep(0.05)
            started.append(asyncio.create_task(kick()))
            keep(started[-1])

        try:
            keep(asyncio.create_task(follow_up()))
            await host.finish_background(5.0)
            assert started and ended and not started[0].cancelled(), "the kick a follow-up started was cancelled, not waited for"
        finally:
            await replica.stop()

    run(scenario(), timeout_s=30)


# --- the made-note a retried create writes again ---------------------------------------------


def test_a_retry_of_a_made_create_notes_it_again_so_that_its_game_gone_is_refused(redis_server: EmbeddedRedis) -> None:
    """The attempt that made a game ended before it wrote the made-note; a retry, answered with
    the game, writes it. Once the game is gone another retry is refused CREATED_GAME_GONE instead
    of making a second game under its id."""
    raw = redis.Redis.from_url(redis_server.url)

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (replica, client):
            request_id = uuid.uuid4().hex
            key = replica.host.keys.request_key("create", request_id)
            made = await client.create_game("stimmvieh", 3, request_id=request_id)
            raw.delete(create_made_key(key))
            assert (await client.create_game("stimmvieh", 3, request_id=request_id)).game_id == made.game_id
            remove_game(raw, made.game_id)
            with pytest.raises(HustingsError) as refused:
                await client.create_game("stimmvieh", 3, request_id=request_id)
            assert (refused.value.code, refused.value.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "CREATED_GAME_GONE")

    try:
        run(scenario(), timeout_s=30)
    finally:
        raw.close()
