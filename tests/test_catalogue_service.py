"""GetGameKind over real gRPC and real HTTP: the catalogue of every kind, its content version
recorded by new games, and a REST answer that caches (ETag, If-None-Match, the same bytes)."""

from __future__ import annotations

import asyncio

import grpc
from google.protobuf import json_format
import pytest
import redis

from conftest import run, running_replica
from rest_helpers import LiveRest
from hustings.client import HustingsError
from hustings.engine import games
from hustings.engine.registry import get_catalogue
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store import game_key
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc

KINDS = sorted(games())


def test_get_game_kind_over_grpc(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}") as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                listed = await stub.ListGameKinds(game_service_pb2.ListGameKindsRequest())
                for kind in KINDS:
                    answer = await stub.GetGameKind(game_service_pb2.GetGameKindRequest(kind=kind))
                    assert answer.WhichOneof("catalogue") == kind
                    assert answer.content_version == get_catalogue(kind).content_version  # type: ignore[union-attr]
                    assert len(answer.content_version) == 16
                    # What the rules read: the file without its texts, so another digest.
                    assert answer.rules_version == get_catalogue(kind).rules_version != answer.content_version  # type: ignore[union-attr]
                    assert len(answer.rules_version) == 16
                    assert answer.kind in listed.kinds
                    # The catalogue as served is the one the game's codec builds, field for field.
                    expected = game_service_pb2.GetGameKindResponse()
                    get_catalogue(kind).fill(expected)  # type: ignore[union-attr]
                    assert getattr(answer, kind) == getattr(expected, kind)
                with pytest.raises(grpc.aio.AioRpcError) as caught:
                    await stub.GetGameKind(game_service_pb2.GetGameKindRequest(kind="chess"))
                error = HustingsError.from_rpc_error(caught.value)
                assert (error.code, error.reason) == (grpc.StatusCode.NOT_FOUND, "UNKNOWN_KIND")

    run(scenario())


def test_new_games_record_their_content_version(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}") as channel:
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                for kind, players in (("stimmvieh", 3), ("wahlspiel", 2), ("spin_doctors", 3)):
                    created = await stub.CreateGame(
                        game_service_pb2.CreateGameRequest(kind=kind, options=game_pb2.GameOptions(players=players))
                    )
                    client = redis.Redis.from_url(redis_server.url)
                    try:
                        stored = storage_pb2.StoredGame.FromString(client.hget(game_key(created.game_id), "snapshot"))  # type: ignore[arg-type]
                    finally:
                        client.close()
                    assert stored.content_version == get_catalogue(kind).content_version  # type: ignore[union-attr]
                    served = await stub.GetGameKind(game_service_pb2.GetGameKindRequest(kind=kind))
                    assert stored.rules_version == served.rules_version != ""

    run(scenario())


def test_rest_catalogue_is_cacheable(redis_server: EmbeddedRedis) -> None:
    with LiveRest(redis_server.url) as live:
        for kind in KINDS:
            version = get_catalogue(kind).content_version  # type: ignore[union-attr]
            first = live.call("GET", f"/v1/kinds/{kind}")
            assert first.status_code == 200, first.text
            assert first.headers["ETag"] == f'"{version}"'
            assert "no-cache" in first.headers["Cache-Control"]
            body = first.json()
            assert body["contentVersion"] == version and body["kind"]["kind"] == kind
            assert kind.replace("_d", "D") in body  # the catalogue, under its lowerCamelCase oneof name
            # The JSON is the canonical mapping of the very answer gRPC gives.
            parsed = json_format.Parse(first.text, game_service_pb2.GetGameKindResponse())
            expected = game_service_pb2.GetGameKindResponse()
            get_catalogue(kind).fill(expected)  # type: ignore[union-attr]
            assert getattr(parsed, kind) == getattr(expected, kind)
            second = live.call("GET", f"/v1/kinds/{kind}")
            assert second.content == first.content and second.headers["ETag"] == first.headers["ETag"]
            unchanged = live.call("GET", f"/v1/kinds/{kind}", headers={"If-None-Match": f'"{version}"'})
            assert unchanged.status_code == 304 and unchanged.content == b""
            assert unchanged.headers["ETag"] == first.headers["ETag"]
            listed = live.call("GET", f"/v1/kinds/{kind}", headers={"If-None-Match": f'"stale", W/"{version}"'})
            assert listed.status_code == 304
            stale = live.call("GET", f"/v1/kinds/{kind}", headers={"If-None-Match": '"0000000000000000"'})
            assert stale.status_code == 200 and stale.content == first.content
        unknown = live.call("GET", "/v1/kinds/chess")
        assert unknown.status_code == 404
        assert unknown.json()["details"][0]["reason"] == "UNKNOWN_KIND"
        assert "ETag" not in unknown.headers


@pytest.mark.usefixtures("quick_bots")  # the bots' game only sets the scene
def test_a_game_of_retired_content_is_refused_and_outcomes_carry_their_tie_breaks(redis_server: EmbeddedRedis) -> None:
    from hustings.client import Client

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                request = game_service_pb2.CreateGameRequest(kind="stimmvieh", options=game_pb2.GameOptions(players=3))
                request.table.bot_seats.extend([0, 1, 2])  # bots play it to the end at once
                created = await client.stub.CreateGame(request)
                view = await client.view(created.game_id)
                for _ in range(200):
                    if view.status == game_pb2.GAME_STATUS_FINISHED:
                        break
                    await asyncio.sleep(0.05)
                    view = await client.view(created.game_id)
                placings = [p for p in view.outcome.placings]
                assert placings and all(p.ranked_by for p in placings)
                # The same game as if recorded by another build's content.
                raw = redis.Redis.from_url(redis_server.url)
                try:
                    stored = storage_pb2.StoredGame.FromString(raw.hget(game_key(created.game_id), "snapshot"))  # type: ignore[arg-type]
                    stored.content_version = stored.rules_version = "0000000000000000"
                    raw.hset(game_key(created.game_id), "snapshot", stored.SerializeToString())
                finally:
                    raw.close()
                # A replica started now has nothing cached: it decodes the game anew.
                async with running_replica(redis_server.url) as other, Client(f"127.0.0.1:{other.port}") as fresh:
                    with pytest.raises(HustingsError) as refused:
                        await fresh.view(created.game_id)
                assert refused.value.code == grpc.StatusCode.FAILED_PRECONDITION
                assert refused.value.reason == "CONTENT_VERSION_RETIRED"

    run(scenario())
