"""Games in play survive an edit of what only players read, as an operator's rolling upgrade
makes one: replicas built from a copy of the package whose content file has a label and a party
name edited play on the games a replica of the installed build created, while a copy with one
vote amount edited refuses them (FAILED_PRECONDITION CONTENT_VERSION_RETIRED). Real Redis, real
server processes on the copies, real gRPC.

Also the rule of ``check_content_version`` itself, over the versions a game may have recorded.
"""

from __future__ import annotations

import pathlib
import random

import grpc
import pytest
import redis

from conftest import run, serve_process
from content_copies import MARK, content_data, package_copy
from service_helpers import new_game, play_to_end, replica_and_client
from hustings.client import Client, HustingsError, Joined
from hustings.engine import games
from hustings.engine.base import ContentVersionError
from hustings.engine.registry import check_content_version, get_catalogue
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store import game_key
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2, game_service_pb2

OTHER = "0123456789abcdef"
MOVES_BEFORE_UPGRADE = 12


# --- the rule -------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", sorted(games()))
def test_a_game_plays_on_while_its_rules_version_is_this_builds(kind: str) -> None:
    catalogue = get_catalogue(kind)
    assert catalogue is not None and catalogue.rules_version and catalogue.rules_version != catalogue.content_version
    full, rules = catalogue.content_version, catalogue.rules_version
    check_content_version(kind, full, rules)  # created by this build
    check_content_version(kind, OTHER, rules)  # created before a label was edited
    check_content_version(kind, "", rules)
    check_content_version(kind, full, OTHER)  # the very same file, whatever was declared presentation then
    check_content_version(kind, full)  # stored before rules versions were recorded
    check_content_version(kind, rules)
    check_content_version(kind, "")  # stored before versions were recorded
    with pytest.raises(ContentVersionError) as caught:
        check_content_version(kind, OTHER, OTHER)  # an edit to what the rules read
    assert (caught.value.recorded, caught.value.current, caught.value.reason) == (OTHER, rules, "CONTENT_VERSION_RETIRED")
    with pytest.raises(ContentVersionError) as caught:
        check_content_version(kind, OTHER)  # stored before rules versions, by other content
    assert (caught.value.recorded, caught.value.current) == (OTHER, full)


# --- the rolling upgrade ----------------------------------------------------------------------------
async def _random_moves(client: Client, seats: list[Joined], rng: random.Random, count: int) -> None:
    game_id = seats[0].game_id
    for _ in range(count):
        view = await client.view(game_id)
        seat = min(view.to_act)
        mine = await client.view(game_id, seats[seat].token)
        await client.move(game_id, seats[seat].token, rng.choice(list(mine.legal_moves)), expected_version=mine.version)


async def _kind(client: Client) -> game_service_pb2.GetGameKindResponse:
    request = game_service_pb2.GetGameKindRequest(kind="stimmvieh")
    answer: game_service_pb2.GetGameKindResponse = await client.stub.GetGameKind(request)
    return answer


def _stored(redis_url: str, game_id: str) -> storage_pb2.StoredGame:
    raw = redis.Redis.from_url(redis_url)
    try:
        return storage_pb2.StoredGame.FromString(raw.hget(game_key(game_id), "snapshot"))  # type: ignore[arg-type]
    finally:
        raw.close()


@pytest.mark.slow
def test_a_label_edit_keeps_games_in_play_and_an_amount_edit_retires_them(
    redis_server: EmbeddedRedis, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url, rng = redis_server.url, random.Random(11)
    labelled = content_data("stimmvieh")
    labelled["vote_cards"][0]["label"] += MARK
    labelled["parties"][0]["name"] += MARK
    amounts = content_data("stimmvieh")
    amounts["vote_cards"][0]["amount"] += 1
    labels_root = package_copy(tmp_path / "labels", {"stimmvieh": labelled})
    amounts_root = package_copy(tmp_path / "amounts", {"stimmvieh": amounts})
    catalogue = get_catalogue("stimmvieh")
    assert catalogue is not None

    async def on_the_installed_build() -> tuple[list[Joined], list[Joined]]:
        async with replica_and_client(url) as (_, client):
            first, second = await new_game(client, 4), await new_game(client, 4)
            await _random_moves(client, first, rng, MOVES_BEFORE_UPGRADE)
            await _random_moves(client, second, rng, MOVES_BEFORE_UPGRADE)
            return first, second

    first, second = run(on_the_installed_build())  # type: ignore[misc]
    stored = _stored(url, first[0].game_id)
    assert (stored.content_version, stored.rules_version) == (catalogue.content_version, catalogue.rules_version)

    # The upgrade: the installed build's replica is gone, one built with an edited label and
    # party name serves the same Redis and plays the first game to its end.
    monkeypatch.setenv("PYTHONPATH", str(labels_root))
    with serve_process("--redis-url", url) as (_, port):
        async def on_the_labelled_build() -> game_pb2.GameView:
            async with Client(f"127.0.0.1:{port}") as client:
                kind = await _kind(client)
                assert kind.content_version != catalogue.content_version  # clients see the new labels
                assert kind.stimmvieh.vote_cards[0].label.endswith(MARK) and kind.stimmvieh.parties[0].name.endswith(MARK)
                view = await client.view(first[0].game_id)
                assert view.status == game_pb2.GAME_STATUS_ACTIVE and view.version > MOVES_BEFORE_UPGRADE
                return await play_to_end([client], first, rng)

        final = run(on_the_labelled_build())
    assert final.status == game_pb2.GAME_STATUS_FINISHED  # type: ignore[attr-defined]
    party_zero = next(p for p in final.outcome.placings if p.seat == 0)  # type: ignore[attr-defined]
    assert party_zero.name.endswith(MARK)  # played on under the new name

    # A build with one vote amount changed refuses both games: the second, in play, and the
    # first, finished under the edited label.
    monkeypatch.setenv("PYTHONPATH", str(amounts_root))
    with serve_process("--redis-url", url) as (_, port):
        async def on_the_amount_build() -> list[HustingsError]:
            refusals = []
            async with Client(f"127.0.0.1:{port}") as client:
                assert (await _kind(client)).stimmvieh.vote_cards[0].amount == labelled["vote_cards"][0]["amount"] + 1
                for seats in (second, first):
                    with pytest.raises(HustingsError) as refused:
                        await client.view(seats[0].game_id)
                    refusals.append(refused.value)
            return refusals

        refusals = run(on_the_amount_build())
    retired = (grpc.StatusCode.FAILED_PRECONDITION, "CONTENT_VERSION_RETIRED")
    assert [(r.code, r.reason) for r in refusals] == [retired] * 2  # type: ignore[attr-defined]

    # The installed build plays the second game on: nothing was lost by the refusal.
    async def back_on_the_installed_build() -> game_pb2.GameView:
        async with replica_and_client(url) as (_, client):
            return await play_to_end([client], second, rng)

    assert run(back_on_the_installed_build()).status == game_pb2.GAME_STATUS_FINISHED  # type: ignore[attr-defined]
