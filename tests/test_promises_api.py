"""What the README's API sections and the proto comments promise of GameService that no other
test held it to: the lobby's order and page sizes, a client seed's form, display and party
names' bounds, SeatTaken.game_started, MUST_TAKE_CARD through the service, and the counts of
The Spin Doctors' catalogue. A real replica over gRPC on loopback, a real Redis."""

from __future__ import annotations

import asyncio
import pathlib
import random
from typing import Awaitable

import grpc
import pytest
import redis as sync_redis

from conftest import run, running_replica
from hustings.client import Client, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store import game_key
from hustings.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc
from service_helpers import new_game, play_politician, play_to_end, stimmvieh_options

LOBBY_GAMES = 51
SEED_HEX = "5eed" * 16  # 32 bytes


async def _refused(call: Awaitable[object]) -> HustingsError:
    with pytest.raises(HustingsError) as caught:
        await call
    return caught.value


def _version(url: str, game_id: str) -> int:
    raw = sync_redis.Redis.from_url(url)
    try:
        return int(raw.hget(game_key(game_id), "version") or 0)
    finally:
        raw.close()


def test_the_lobby_is_newest_first_fifty_by_default_and_at_most_200(tmp_path: pathlib.Path) -> None:
    """README: ListGames is "the lobby, newest first"; proto: page_size "default 50, at most
    200". A Redis of its own, so that the lobby holds only these games."""

    async def scenario(url: str) -> None:
        async with running_replica(url, open_tables_per_client=0) as replica:  # one address lists them all
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                older = [(await client.create_game("stimmvieh", 3)).game_id for _ in range(LOBBY_GAMES)]
                await asyncio.sleep(1.05)  # creation times are in whole seconds
                newest = (await client.create_game("stimmvieh", 3)).game_id
                request = game_service_pb2.ListGamesRequest()  # page_size unset: the default
                first = await client.stub.ListGames(request, timeout=20)
                assert len(first.games) == 50 and first.next_page_token
                assert first.games[0].game_id == newest
                created = [g.created_at for g in first.games]
                assert created == sorted(created, reverse=True)
                rest = await client.stub.ListGames(game_service_pb2.ListGamesRequest(page_token=first.next_page_token), timeout=20)
                assert {g.game_id for g in first.games} | {g.game_id for g in rest.games} == {newest, *older}
                assert not rest.next_page_token
                whole = await client.games(page_size=200)
                assert len(whole.games) == LOBBY_GAMES + 1
                refused = await _refused(client.games(page_size=201))
                assert (refused.code, refused.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_PAGE_SIZE")

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url))


def test_a_client_seed_must_be_32_bytes_of_hex(redis_server: EmbeddedRedis) -> None:
    """proto CreateGameRequest.seed: "A seed (hex, 32 bytes) chosen by the client"; anything
    else is INVALID_ARGUMENT BAD_SEED and creates nothing. The seed is then the game's: its
    commitment is the SHA-256 of the game's nonce (revealed with the seed at the end) followed
    by those bytes."""
    import hashlib

    async def scenario() -> None:
        async with running_replica(redis_server.url, allow_client_seed=True) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                for n, seed in enumerate(("zz" * 32, "00" * 31, "00" * 33, "0" * 63)):
                    rid = f"bad-seed-{n}-{SEED_HEX[:8]}"
                    refused = await _refused(client.create_game("stimmvieh", 3, seed=seed, request_id=rid))
                    assert (refused.code, refused.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_SEED"), seed
                    assert seed not in refused.message
                    # Nothing was created under that request id: another request may use it.
                    other = await client.create_game("stimmvieh", 4, request_id=rid)
                    assert len(other.view.seats) == 4
                seats = await new_game(client, 3, seed=SEED_HEX)
                final = await play_to_end([client], seats, random.Random(3))
                assert final.seed == SEED_HEX and len(bytes.fromhex(final.seed_nonce)) == 32
                assert seats[0].view.seed_commitment == hashlib.sha256(bytes.fromhex(final.seed_nonce + SEED_HEX)).hexdigest()

    run(scenario())


def test_display_names_are_1_to_40_characters(redis_server: EmbeddedRedis) -> None:
    """proto JoinGameRequest.display_name and TakeOverSeatRequest.display_name: "1 to 40
    characters"; outside that INVALID_ARGUMENT BAD_DISPLAY_NAME, and the game is unchanged."""

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                table = game_pb2.TableSettings(allow_takeover=True)
                game_id = (await client.create_game("stimmvieh", 3, table=table)).game_id
                for name in ("", "n" * 41):
                    refused = await _refused(client.join(game_id, name))
                    assert (refused.code, refused.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_DISPLAY_NAME")
                assert _version(redis_server.url, game_id) == 1
                longest = await client.join(game_id, "n" * 40)
                assert longest.view.seats[longest.seat].display_name == "n" * 40
                others = [await client.join(game_id, name) for name in ("Bo", "Cy")]
                await client.leave(game_id, others[0].token)
                refused = await _refused(client.take_over(game_id, others[0].seat, "t" * 41))
                assert refused.reason == "BAD_DISPLAY_NAME"
                taken = await client.take_over(game_id, others[0].seat, "t" * 40)
                assert taken.view.seats[taken.seat].display_name == "t" * 40

    run(scenario())


def test_a_party_name_over_60_characters_or_an_unknown_colour_is_refused(redis_server: EmbeddedRedis) -> None:
    """proto JoinGameRequest.party_name: "up to 60 printable characters"; party_colour: "red,
    blue, green, yellow, black or white". A refused join takes no seat."""

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                game_id = (await client.create_game("wahlspiel", 3)).game_id
                too_long = await _refused(client.join(game_id, "Ada", party_name="p" * 61))
                assert (too_long.code, too_long.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_PARTY_NAME")
                purple = await _refused(client.join(game_id, "Ada", party_colour="purple"))
                assert (purple.code, purple.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_COLOUR")
                assert _version(redis_server.url, game_id) == 1
                colours = ("red", "blue", "green")
                joined = [
                    await client.join(game_id, f"P{i}", party_name="q" * 60 if i == 0 else "", party_colour=colour)
                    for i, colour in enumerate(colours)
                ]
                view = await client.view(game_id, joined[0].token)
                assert view.status == game_pb2.GAME_STATUS_ACTIVE
                parties = {p.party: p for p in view.wahlspiel.parties}  # the party number is its seat
                assert parties[joined[0].seat].name == "q" * 60
                assert [parties[j.seat].colour for j in joined] == list(colours)

    run(scenario())


def test_the_last_join_says_the_game_started(redis_server: EmbeddedRedis) -> None:
    """proto SeatTaken.game_started: "True when this join filled the last seat and the game
    began"; the view turns ACTIVE with it (README: "the game starts when every seat is taken")."""

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                seats = await new_game(client, 3)
                history = await client.history(seats[0].game_id)
                taken = [e.seat_taken for h in history for e in h.events if e.HasField("seat_taken")]
                assert [(t.seat, t.game_started) for t in taken] == [(0, False), (1, False), (2, True)]
                assert [s.view.status for s in seats] == [game_pb2.GAME_STATUS_OPEN] * 2 + [game_pb2.GAME_STATUS_ACTIVE]

    run(scenario())


def test_every_join_of_a_finished_game_is_game_over(redis_server: EmbeddedRedis) -> None:
    """proto JoinGameRequest.request_id: "once the game is over every JoinGame is
    FAILED_PRECONDITION GAME_OVER" - with a new request id, without one, or naming a seat."""
    import random

    from service_helpers import play_to_end

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                seats = await new_game(client, 3)
                game_id = seats[0].game_id
                await play_to_end([client], seats, random.Random(4))
                version = _version(redis_server.url, game_id)
                for request in (
                    game_service_pb2.JoinGameRequest(game_id=game_id, display_name="Late", request_id="late-join-after-the-end-1"),
                    game_service_pb2.JoinGameRequest(game_id=game_id, display_name="Late"),
                    game_service_pb2.JoinGameRequest(game_id=game_id, display_name="Late", seat=1),
                ):
                    with pytest.raises(grpc.aio.AioRpcError) as over:
                        await client.stub.JoinGame(request, timeout=20)
                    refused = HustingsError.from_rpc_error(over.value)
                    assert (refused.code, refused.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER")
                assert _version(redis_server.url, game_id) == version

    run(scenario())


def test_must_take_card_is_failed_precondition_through_the_service(redis_server: EmbeddedRedis) -> None:
    """README API: reasons such as `MUST_TAKE_CARD` come as FAILED_PRECONDITION (an illegal
    move); the refused move changes nothing."""

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                seats = await new_game(client, 4, seed=SEED_HEX)  # a fixed deal: the same case every run
                game_id = seats[0].game_id
                for seat in seats:
                    mine = await client.view(game_id, seat.token)
                    await client.move(game_id, seat.token, mine.legal_moves[0])
                view = await client.view(game_id)
                (acting,) = view.to_act
                mine = await client.view(game_id, seats[acting].token)
                takes = [m.stimmvieh.play_politician for m in mine.legal_moves if m.stimmvieh.play_politician.take_card_id]
                bare = {m.stimmvieh.play_politician.influence for m in mine.legal_moves if not m.stimmvieh.play_politician.take_card_id}
                forced = [p.influence for p in takes if p.influence not in bare]
                assert forced, "some politician of the acting seat can take a card, so it must"
                refused = await _refused(client.move(game_id, seats[acting].token, play_politician(forced[0])))
                assert (refused.code, refused.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "MUST_TAKE_CARD")
                assert (await client.view(game_id)).version == view.version

    run(scenario())


def test_the_spin_doctors_catalogue_holds_41_news_and_12_programme_cards(redis_server: EmbeddedRedis) -> None:
    """README catalogue table: "36 Topic, 41 News and 12 Programme cards"; the proto: 41 News
    cards are "36 topic news and 5 Scandals". Over GetGameKind, as a client reads them."""

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}") as channel:  # type: ignore[attr-defined]
                stub = game_service_pb2_grpc.GameServiceStub(channel)
                answer = await stub.GetGameKind(game_service_pb2.GetGameKindRequest(kind="spin_doctors"), timeout=20)
        catalogue = answer.spin_doctors
        assert (len(catalogue.topic_cards), len(catalogue.news_cards), len(catalogue.programme_cards)) == (36, 41, 12)
        scandals = [card for card in catalogue.news_cards if card.card_id.startswith("S-")]
        assert len(scandals) == 5

    run(scenario())


def test_stimmvieh_options_reach_the_service(redis_server: EmbeddedRedis) -> None:
    """proto StimmviehOptions.campaigns: "1 to 9; 0 means 1" - through CreateGame, not only the
    engine: 10 is INVALID_ARGUMENT BAD_CAMPAIGNS, 9 is taken."""

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                refused = await _refused(client.create_game("stimmvieh", 3, stimmvieh_options(3, campaigns=10)))
                assert (refused.code, refused.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_CAMPAIGNS")
                nine = await client.create_game("stimmvieh", 3, stimmvieh_options(3, campaigns=9))
                assert nine.view.options.stimmvieh.campaigns == 9

    run(scenario())
