"""Wahlspiel parties name themselves and choose their colour as their players join, through the
service: the names reach every view, a taken colour is refused and changes nothing, other kinds
refuse a party name, and a finished game's log replays with the names.

"Each player now has their party together, which they may name freely, for example "Free
Christian People's Party" ... Each player also chooses a matching party colour, then one of the 6
game pieces" (the rulebook, setup).
"""

from __future__ import annotations

import asyncio

import grpc
import pytest

from conftest import run, running_replica
from hustings.client import Client, HustingsError, Joined
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2, game_service_pb2
from hustings.verify import verify_log


@pytest.fixture(autouse=True)
def _bots_alone_at_a_quick_pace(monkeypatch: pytest.MonkeyPatch) -> None:
    """The games here are finished by bots alone once their players leave: at the service's pace
    (one decision per ``BOT_ONLY_STEP_MS``) a Wahlspiel game takes 10-15 s, which is not what these
    tests are about; the in-process replicas play them at a millisecond's pace."""
    from hustings.service import table

    monkeypatch.setattr(table, "BOT_ONLY_STEP_MS", 1)


async def _three_seats_one_bot(client: Client) -> str:
    """A new three-seat Wahlspiel game whose third seat is a bot's; its id."""
    request = game_service_pb2.CreateGameRequest(kind="wahlspiel", options=game_pb2.GameOptions(players=3))
    request.table.bot_seats.extend([2])
    return (await client.stub.CreateGame(request)).game_id


async def _finished_by_bots(client: Client, game_id: str, humans: tuple[Joined, ...]) -> game_pb2.GameView:
    """The humans leave a started game; its view once their bots have finished it (bounded)."""
    for joined in humans:
        await client.leave(game_id, joined.token)
    for _ in range(1200):
        view = await client.view(game_id)
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            return view
        await asyncio.sleep(0.05)
    raise AssertionError("the bots did not finish the game")


def test_parties_take_their_names_and_colours_at_joining(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                game_id = await _three_seats_one_bot(client)
                ada = await client.join(game_id, "Ada", party_name="Party of the Lakes", party_colour="blue")
                with pytest.raises(HustingsError) as taken:
                    await client.join(game_id, "Bo", party_name="Mountain List", party_colour="blue")
                assert (taken.value.code, taken.value.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "COLOUR_TAKEN")
                assert [s.taken for s in (await client.view(game_id)).seats] == [True, False, True]  # nothing changed
                bo = await client.join(game_id, "Bo", party_name="Mountain List", party_colour="green")
                view = await client.view(game_id, bo.token)
                parties = {p.party: p for p in view.wahlspiel.parties}
                assert (parties[ada.seat].name, parties[ada.seat].colour) == ("Party of the Lakes", "blue")
                assert (parties[bo.seat].name, parties[bo.seat].colour) == ("Mountain List", "green")
                other = await client.create_game("stimmvieh", 3)
                with pytest.raises(HustingsError) as unsupported:
                    await client.join(other.game_id, "Cy", party_name="Anything")
                assert unsupported.value.reason == "PARTY_NAME_UNSUPPORTED"
                # The humans leave; their bots finish the game; the log replays with the names.
                view = await _finished_by_bots(client, game_id, (ada, bo))
                assert verify_log(view, await client.history(game_id)).ok

    run(scenario(), timeout_s=180)


def test_a_party_named_by_a_seat_left_before_the_start_replays_freed(redis_server: EmbeddedRedis) -> None:
    """Leaving an open game frees the seat and its party's name and colour; `hustings verify`
    replays that too, and a seat left after the start (absent, its bot playing) keeps its party."""

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                game_id = await _three_seats_one_bot(client)
                leaver = await client.join(game_id, "Leaver", seat=0, party_name="Leavers United", party_colour="black")
                await client.leave(game_id, leaver.token)
                ada = await client.join(game_id, "Ada", seat=0)
                bo = await client.join(game_id, "Bo", seat=1, party_name="Mountain List", party_colour="black")
                view = await _finished_by_bots(client, game_id, (ada, bo))  # started: these seats become absent
                parties = {p.party: p for p in view.wahlspiel.parties}
                assert parties[1].name == "Mountain List" and parties[0].name != "Leavers United"
                result = verify_log(view, await client.history(game_id))
                assert result.ok, result

    run(scenario(), timeout_s=180)


def test_a_party_name_that_reads_as_another_partys_is_refused(redis_server: EmbeddedRedis) -> None:
    """A party's name is on the board, in every coalition and every result: a second party may
    not read as the first (blanks and case aside, letters of another script standing in for
    Latin ones), nor as another seat's default, which its party shows until it chooses (and
    again once its seat is freed). A word mixing scripts is refused outright. Each refusal
    changes nothing; a name of its own, and the party's own default, are taken."""
    cyrillic_e = "\u0435"

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                game_id = await _three_seats_one_bot(client)
                await client.join(game_id, "Ada", seat=0, party_name="Grüne Liste")
                before = await client.view(game_id)
                refusals = {
                    "  grüne   LISTE ": (grpc.StatusCode.FAILED_PRECONDITION, "PARTY_NAME_TAKEN"),
                    f"Grün{cyrillic_e} Liste": (grpc.StatusCode.INVALID_ARGUMENT, "BAD_PARTY_NAME"),
                    f"Gr\u00fcn{cyrillic_e}".replace("G", "\u0413").replace("r", "\u0433") + " Liste": (
                        grpc.StatusCode.INVALID_ARGUMENT,
                        "BAD_PARTY_NAME",
                    ),
                    # Seat 2's default (its bot's party) and seat 0's, which Ada's party would show
                    # again were her seat freed.
                    "farmers', workers' and employers' party (bau)": (grpc.StatusCode.FAILED_PRECONDITION, "PARTY_NAME_TAKEN"),
                    "Free Christian People's Party": (grpc.StatusCode.FAILED_PRECONDITION, "PARTY_NAME_TAKEN"),
                }
                seen = {}
                for party, _expected in refusals.items():
                    with pytest.raises(HustingsError) as refused:
                        await client.join(game_id, "Bo", seat=1, party_name=party)
                    seen[party] = (refused.value.code, refused.value.reason)
                    assert "Grüne" not in refused.value.message
                assert seen == refusals
                assert (await client.view(game_id)).version == before.version  # nothing changed
                bo = await client.join(game_id, "Bo", seat=1, party_name="Party of the Open Centre")  # its own default
                parties = {p.party: p.name for p in (await client.view(game_id, bo.token)).wahlspiel.parties}
                assert parties == {0: "Grüne Liste", 1: "Party of the Open Centre", 2: "Farmers', Workers' and Employers' Party (BAU)"}

    run(scenario(), timeout_s=60)


@pytest.mark.parametrize("party_name, party_colour", [("Grüne Liste", ""), ("", "blue"), ("Grüne Liste", "blue")])
def test_a_join_retried_after_it_named_its_party_gets_its_seat(
    redis_server: EmbeddedRedis, party_name: str, party_colour: str
) -> None:
    """JoinGame's promise: every attempt with one request_id returns the same seat and token. A
    retry of a join that landed (its answer lost) without a seat asked for came to the next free
    seat and found its own party's name or colour taken there: refused COLOUR_TAKEN, or
    PARTY_NAME_TAKEN, where the first answer was due, and the client never learnt its token."""

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                game_id = await _three_seats_one_bot(client)
                request_id = "retried-party-join-" + party_colour + str(len(party_name))
                first = await client.join(game_id, "Ada", request_id=request_id, party_name=party_name, party_colour=party_colour)
                version = (await client.view(game_id)).version
                again = await client.join(game_id, "Ada", request_id=request_id, party_name=party_name, party_colour=party_colour)
                assert (again.seat, again.token) == (first.seat, first.token)
                assert (await client.view(game_id)).version == version  # the retry wrote nothing
                with pytest.raises(HustingsError) as taken:  # another player's join is still refused
                    await client.join(game_id, "Bo", party_name=party_name, party_colour=party_colour)
                assert taken.value.reason in {"PARTY_NAME_TAKEN", "COLOUR_TAKEN"}

    run(scenario(), timeout_s=60)
