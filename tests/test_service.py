"""The service end to end: real Redis process, real gRPC server, the public Python client."""

from __future__ import annotations

import asyncio
import random

import grpc
import pytest
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from conftest import run, running_replica
from service_helpers import choose_top_candidates, new_game, play_politician, play_to_end, stimmvieh_options
from hustings.client import Client, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store import game_key, log_key
from hustings.v1 import game_pb2

SEED = "ab" * 32


def _snapshot(redis_server: EmbeddedRedis, game_id: str) -> tuple[bytes, bytes]:
    client = redis.Redis.from_url(redis_server.url)
    try:
        return client.hget(game_key(game_id), "snapshot"), client.hget(game_key(game_id), "version")  # type: ignore[return-value]
    finally:
        client.close()


async def _expect(code: grpc.StatusCode, reason: str, call: "asyncio.Future[object] | object") -> HustingsError:
    with pytest.raises(HustingsError) as caught:
        await call  # type: ignore[misc]
    assert caught.value.code == code, caught.value
    assert caught.value.reason == reason, caught.value
    return caught.value


def test_kinds_health_and_reflection(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            address = f"127.0.0.1:{replica.port}"
            async with Client(address) as client:
                kinds = {k.kind: k for k in await client.kinds()}
                assert kinds["stimmvieh"].min_players == 3 and kinds["stimmvieh"].max_players == 4
                assert {"moderator", "campaigns", "custom_vote_card"} <= {v.name for v in kinds["stimmvieh"].variants}
            async with grpc.aio.insecure_channel(address) as channel:
                health = await health_pb2_grpc.HealthStub(channel).Check(
                    health_pb2.HealthCheckRequest(service="hustings.v1.GameService")
                )
                assert health.status == health_pb2.HealthCheckResponse.SERVING
                stub = reflection_pb2_grpc.ServerReflectionStub(channel)
                replies = stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]))
                names = set()
                async for reply in replies:
                    names |= {s.name for s in reply.list_services_response.service}
                    break
                assert "hustings.v1.GameService" in names

    run(scenario())


def test_full_game_is_played_verified_and_revealed(redis_server: EmbeddedRedis) -> None:
    from hustings.verify import verify_log

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                seats = await new_game(client, 4)
                game_id = seats[0].game_id
                first = await client.view(game_id)
                assert first.status == game_pb2.GAME_STATUS_ACTIVE
                assert len(first.seed_commitment) == 64 and first.seed == ""
                final = await play_to_end([client], seats, random.Random(1))
                assert final.status == game_pb2.GAME_STATUS_FINISHED
                assert final.seed and len(final.outcome.placings) == 4
                assert sorted(p.rank for p in final.outcome.placings)[0] == 1
                history = await client.history(game_id)
                report = verify_log(final, history)
                assert report.ok, report
                assert report.steps == 4 + 36  # four secret choices, nine rounds of four turns
                # Once over, every step is public: moves and state digests included.
                assert all(e.state_digest for e in history)
                assert all(e.HasField("move") for e in history if e.HasField("seat") and not e.events[0].HasField("seat_taken"))
                with pytest.raises(HustingsError):
                    await client.move(game_id, seats[0].token, play_politician(1))

    run(scenario())


def test_bad_input_is_refused_and_changes_nothing(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                await _expect(grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND", client.view("gnosuchgame"))
                await _expect(grpc.StatusCode.INVALID_ARGUMENT, "BAD_GAME_ID", client.view("{bad}"))
                await _expect(grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_KIND", client.create_game("chess", 2))
                await _expect(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    "BAD_PLAYER_COUNT",
                    client.create_game("stimmvieh", 5, stimmvieh_options(5)),
                )
                seats = await new_game(client, 4)
                game_id = seats[0].game_id
                before = _snapshot(redis_server, game_id)

                await _expect(grpc.StatusCode.UNAUTHENTICATED, "INVALID_SEAT_TOKEN", client.view(game_id, "not-a-token"))
                await _expect(
                    grpc.StatusCode.UNAUTHENTICATED, "INVALID_SEAT_TOKEN", client.move(game_id, "forged", choose_top_candidates(1, 2, 3, 4))
                )
                await _expect(
                    grpc.StatusCode.UNAUTHENTICATED, "SEAT_TOKEN_REQUIRED", client.move(game_id, "", choose_top_candidates(1, 2, 3, 4))
                )
                await _expect(grpc.StatusCode.INVALID_ARGUMENT, "EMPTY_MOVE", client.move(game_id, seats[0].token, game_pb2.Move()))
                await _expect(
                    grpc.StatusCode.INVALID_ARGUMENT, "BAD_TOP_CANDIDATES", client.move(game_id, seats[0].token, choose_top_candidates(1, 1, 2, 3))
                )
                await _expect(grpc.StatusCode.FAILED_PRECONDITION, "GAME_FULL", client.join(game_id, "Late"))
                assert _snapshot(redis_server, game_id) == before

                # Everybody chooses; then the start player is known and the others are out of turn.
                for i, seat in enumerate(seats):
                    await client.move(game_id, seat.token, choose_top_candidates(6, 7, 8, 9) if i == 0 else choose_top_candidates(1, 2, 3, 4))
                view = await client.view(game_id, seats[0].token)
                assert view.to_act == [0]  # the highest total starts
                before = _snapshot(redis_server, game_id)
                await _expect(grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN", client.move(game_id, seats[1].token, play_politician(5)))
                mine = await client.view(game_id, seats[0].token)
                display = list(mine.stimmvieh.display)
                await _expect(grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_CARD", client.move(game_id, seats[0].token, play_politician(9, "V99")))
                stack_top = mine.stimmvieh.vote_stack_top.card_id  # visible, but may not be taken
                await _expect(
                    grpc.StatusCode.FAILED_PRECONDITION, "CARD_NOT_ON_DISPLAY", client.move(game_id, seats[0].token, play_politician(9, stack_top))
                )
                await _expect(
                    grpc.StatusCode.ABORTED, "STALE_VERSION",
                    client.move(game_id, seats[0].token, mine.legal_moves[0], expected_version=mine.version - 1),
                )
                assert _snapshot(redis_server, game_id) == before

                # A retried request id returns the first answer and applies nothing twice.
                legal = mine.legal_moves[0]
                first = await client.move(game_id, seats[0].token, legal, request_id="retry-me")
                after_first = _snapshot(redis_server, game_id)
                again = await client.move(game_id, seats[0].token, legal, request_id="retry-me")
                assert again == first
                assert _snapshot(redis_server, game_id) == after_first
                assert display  # the display was shown to the player

    run(scenario())


def test_hidden_choices_stay_hidden_until_revealed(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                seats = await new_game(client, 4)
                game_id = seats[0].game_id
                await client.move(game_id, seats[1].token, choose_top_candidates(2, 5, 7, 9))
                own = await client.view(game_id, seats[1].token)
                assert sorted(own.stimmvieh.parties[1].chosen_top_candidates) == [2, 5, 7, 9]
                for seat in (0, 2, 3, None):
                    token = seats[seat].token if seat is not None else None
                    other = await client.view(game_id, token)
                    party = other.stimmvieh.parties[1]
                    assert party.top_candidates_chosen and not party.chosen_top_candidates
                    assert not party.top_candidates and not party.backbenchers
                    for entry in await client.history(game_id, token):
                        assert not entry.HasField("move") or entry.seat != 1
                        for event in entry.events:
                            chosen = event.stimmvieh.top_candidates_chosen
                            assert not chosen.influences
                mine = await client.history(game_id, seats[1].token)
                assert any(list(e.stimmvieh.top_candidates_chosen.influences) == [2, 5, 7, 9] for entry in mine for e in entry.events)

    run(scenario())


def test_watch_sees_moves_made_through_another_replica_and_resumes(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with running_replica(redis_server.url) as a, running_replica(redis_server.url) as b:
            async with Client(f"127.0.0.1:{a.port}") as ca, Client(f"127.0.0.1:{b.port}") as cb:
                seats = await new_game(ca, 3)
                game_id = seats[0].game_id
                seen: list[int] = []

                async def watch() -> None:
                    async for update in ca.watch(game_id, seats[0].token):
                        seen.extend(e.version for e in update.entries)
                        if update.version >= 8:
                            return

                watcher = asyncio.create_task(watch())
                for i, seat in enumerate(seats):
                    await cb.move(game_id, seat.token, choose_top_candidates(1 + i, 5, 6, 7))
                view = await cb.view(game_id)
                for _ in range(2):
                    acting = min(view.to_act)
                    mine = await cb.view(game_id, seats[acting].token)
                    await cb.move(game_id, seats[acting].token, mine.legal_moves[0])
                    view = await cb.view(game_id)
                await asyncio.wait_for(watcher, 20)
                assert seen == list(range(1, 9))
                # Resume from the middle on the other replica: the rest, without gaps or repeats.
                resumed: list[int] = []
                async for update in cb.watch(game_id, seats[0].token, from_version=5):
                    resumed.extend(e.version for e in update.entries)
                    if update.version >= view.version:
                        break
                assert resumed == list(range(6, view.version + 1))

    run(scenario())


def test_tampered_log_fails_verification(redis_server: EmbeddedRedis) -> None:
    from hustings.storage.v1 import storage_pb2
    from hustings.verify import verify_log

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                seats = await new_game(client, 3, seed=SEED)
                final = await play_to_end([client], seats, random.Random(7))
                game_id = seats[0].game_id
                assert verify_log(final, await client.history(game_id)).ok
                # Rewrite one logged event (the card a refill put on display) in Redis itself.
                raw = redis.Redis.from_url(redis_server.url)
                entries = raw.xrange(log_key(game_id))
                raw.delete(log_key(game_id))
                tampered = False
                for stream_id, fields in entries:
                    entry = storage_pb2.LogEntry.FromString(fields[b"e"])
                    for stored in entry.events:
                        refill = stored.event.stimmvieh.display_refilled
                        if not tampered and stored.event.stimmvieh.HasField("display_refilled"):
                            refill.card.amount += 5
                            tampered = True
                    raw.xadd(log_key(game_id), {"e": entry.SerializeToString()}, id=stream_id)
                raw.close()
                assert tampered
                report = verify_log(final, await client.history(game_id))
                assert not report.ok and report.failed_at_version is not None
                # And a seed that does not match the commitment is caught.
                forged = game_pb2.GameView()
                forged.CopyFrom(final)
                forged.seed = "cd" * 32
                assert not verify_log(forged, await client.history(game_id)).ok

    run(scenario())


def test_client_seed_needs_permission(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with running_replica(redis_server.url, allow_client_seed=False) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                await _expect(
                    grpc.StatusCode.PERMISSION_DENIED, "CLIENT_SEED_NOT_ALLOWED",
                    client.create_game("stimmvieh", 4, stimmvieh_options(4), seed=SEED),
                )

    run(scenario())


def test_lobby_lists_games_by_kind_and_status(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                created = await client.create_game("stimmvieh", 3, stimmvieh_options(3))
                listed = await client.games(kind="stimmvieh", status=game_pb2.GAME_STATUS_OPEN, page_size=200)
                ids = [g.game_id for g in listed.games]
                assert created.game_id in ids
                assert all(g.status == game_pb2.GAME_STATUS_OPEN for g in listed.games)
                await _expect(grpc.StatusCode.INVALID_ARGUMENT, "BAD_PAGE_SIZE", client.games(page_size=1000))
                page = await client.games(page_size=1)
                assert len(page.games) == 1 and page.next_page_token

    run(scenario())


def test_retried_join_gets_the_same_seat_and_the_same_token(redis_server: EmbeddedRedis) -> None:
    from hustings.v1 import game_service_pb2

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                created = await client.create_game("stimmvieh", 3, stimmvieh_options(3))
                request = game_service_pb2.JoinGameRequest(game_id=created.game_id, display_name="Ada", request_id="join-ada-1-93be7c")
                first = await client.stub.JoinGame(request)
                second = await client.stub.JoinGame(request)
                assert (second.seat, second.seat_token) == (first.seat, first.seat_token)
                view = await client.view(created.game_id, first.seat_token)
                assert view.seat == first.seat and view.version == 2
                assert [s.taken for s in view.seats] == [True, False, False]

    run(scenario())


def test_a_retried_join_on_another_replica_keeps_the_token_working(redis_server: EmbeddedRedis) -> None:
    from hustings.v1 import game_service_pb2

    async def scenario() -> None:
        async with running_replica(redis_server.url) as one, running_replica(redis_server.url) as two:
            async with Client(f"127.0.0.1:{one.port}") as first, Client(f"127.0.0.1:{two.port}") as second:
                created = await first.create_game("stimmvieh", 3, stimmvieh_options(3))
                request = game_service_pb2.JoinGameRequest(game_id=created.game_id, display_name="Ada", request_id="join-ada-2-51d0aa")
                old = await first.stub.JoinGame(request)
                await first.join(created.game_id, "Bo")
                await first.join(created.game_id, "Cy")
                watch = first.watch(created.game_id, old.seat_token)
                await watch.__anext__()  # replica one now holds the game in memory
                again = await second.stub.JoinGame(request)  # the retry, answered by the other replica
                assert (again.seat, again.seat_token) == (old.seat, old.seat_token)
                applied = await first.move(created.game_id, old.seat_token, choose_top_candidates(1, 2, 3, 4))
                assert applied.version == 5
                update = await asyncio.wait_for(watch.__anext__(), 10)
                assert update.version == 5

    run(scenario())


def test_the_lobby_never_takes_an_older_summary_over_a_newer_one(redis_server: EmbeddedRedis) -> None:
    from hustings.service.store import Store
    from hustings.v1 import game_pb2 as pb

    async def scenario() -> None:
        store = Store.from_url(redis_server.url)
        try:
            newer = pb.GameSummary(game_id="globbyorder", kind="stimmvieh", status=pb.GAME_STATUS_ACTIVE, version=4, created_at=1)
            older = pb.GameSummary(game_id="globbyorder", kind="stimmvieh", status=pb.GAME_STATUS_OPEN, version=3, created_at=1)
            await store.index(newer)
            await store.index(older)  # the write of an earlier step arriving late
            listed = {s.game_id: s for s in await store.lobby(0, 10_000)}
            assert listed["globbyorder"].version == 4
            assert listed["globbyorder"].status == pb.GAME_STATUS_ACTIVE
        finally:
            await store.close()

    run(scenario())
