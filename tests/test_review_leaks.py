"""What one client can learn of, or do to, another's seat through the API: each test plays the
attacker against a real replica (real Redis, real gRPC) and checks that the secret stays hidden
or the interference is refused."""

from __future__ import annotations

import asyncio
import time

import pytest

from conftest import run
from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import UNBOUNDED_CREATES
from hustings.v1 import game_pb2
from service_helpers import random_play, replica_and_client

SEED = "5e" * 32  # a fixed deal, so that the same hands are dealt in every run


def _hand(view: game_pb2.GameView, party: int) -> set[str]:
    """The Wahlspiel cards (voters and events) of ``party`` that ``view`` shows."""
    shown = view.wahlspiel.parties[party]
    return {card.card_id for card in shown.voters} | {card.card_id for card in shown.events}


def test_a_seat_left_in_an_open_game_shows_its_next_holder_no_known_hand(redis_server: EmbeddedRedis) -> None:
    """Wahlspiel deals every party's voter and event cards when the game is created. A client
    that takes each seat of an open game in turn and leaves it again (leaving an open game frees
    the seat) must not learn the hands the real players then sit down with."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, allow_client_seed=True) as (_replica, client):
            game_id = (await client.create_game("wahlspiel", 3, seed=SEED)).game_id
            peeked: dict[int, set[str]] = {}
            for seat in range(3):
                peeker = await client.join(game_id, "Peeker", seat=seat)
                seen = _hand(peeker.view, seat) | _hand(await client.view(game_id, peeker.token), seat)
                peeked[seat] = seen
                await client.leave(game_id, peeker.token)
            players = [await client.join(game_id, f"Player {seat}", seat=seat) for seat in range(3)]
            for seat, player in enumerate(players):
                view = await client.view(game_id, player.token)
                assert view.status == game_pb2.GAME_STATUS_ACTIVE
                hand = _hand(view, seat)
                assert len(hand) == 6, "four core voters and two events are dealt to every party"
                known = peeked[seat] & hand
                assert not known, f"a client that sat in seat {seat} of the open game and left knows {sorted(known)} of its hand"

    run(scenario())


@pytest.mark.parametrize("back", ["return", "take_over"])
def test_leaving_and_coming_back_buys_no_decision_time(own_redis: EmbeddedRedis, back: str) -> None:
    """A player who owes a decision must not restart its clock by leaving and coming back, by
    ReturnToGame or by taking its seat over again where the table allows it. With two replicas
    the seat can be back on one while the other's bot still thinks about the absent seat's
    decision (a strong bot thinks up to 0.2 s): the player keeps its decision, and its deadline
    must stay where it was, or a table could be held up for as long as it liked (a take-over
    began a new decision, and one player left and took its seat over a second before each
    deadline, the table waiting 4.2 clock lengths and more)."""

    async def scenario() -> None:
        async with replica_and_client(own_redis.url) as (_near, near), replica_and_client(own_redis.url) as (_far, far):
            held = 0
            for _ in range(3):  # games, until a seat came back before the bot's choice
                held += await _leave_and_come_back(near, far, back)
                if held:
                    break
            assert held, "the seat never came back before the bot's choice: the case was not reached"

    run(scenario())


async def _leave_and_come_back(near: Client, far: Client, back: str) -> int:
    """A new game whose only human seat leaves (on ``near``) and comes ``back`` (on ``far``:
    ReturnToGame, or TakeOverSeat with a new token each time) while it owes its top candidates;
    how many times it came back still owing them. Each time, its deadline must be the one it
    had before it left."""
    table = game_pb2.TableSettings(decision_seconds=30, bot_level="strong", bot_seats=[1, 2], allow_takeover=True)
    game_id = (await near.create_game("stimmvieh", 3, table=table)).game_id
    token = (await near.join(game_id, "Staller")).token
    first = await near.view(game_id, token)
    for _ in range(100):  # until the bot seats have chosen (their bot thinks on the same replica)
        if list(first.to_act) == [0]:
            break
        await asyncio.sleep(0.1)
        first = await near.view(game_id, token)
    deadline = first.seats[0].deadline_unix_ms
    assert list(first.to_act) == [0] and deadline, "only the staller's top candidates are owed, on a 30 s clock"
    held = 0
    for _ in range(3):
        await asyncio.sleep(0.05)  # a clock restarted now would end later than the first one
        await near.leave(game_id, token)
        if back == "return":
            await far.return_to_game(game_id, token)
        else:
            token = (await far.take_over(game_id, 0, "Staller")).token
        view = await near.view(game_id, token)
        if view.stimmvieh.parties[0].top_candidates_chosen:
            return held  # the bot chose before the seat came back: the decision is made
        held += 1
        assert view.seats[0].deadline_unix_ms == deadline, (
            f"leaving and coming back ({back}) moved the deadline {view.seats[0].deadline_unix_ms - deadline} ms later"
        )
    return held


def test_a_seat_freed_in_an_open_game_keeps_nothing_its_leaver_chose(redis_server: EmbeddedRedis) -> None:
    """In Wahlspiel a joining player may name its party and take a colour. Leaving an open game
    frees the seat; the next player to sit there must find the party as a new seat is, not under
    the name the leaver gave it, and the leaver's colour must be free for anybody again."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):
            game_id = (await client.create_game("wahlspiel", 3)).game_id
            default = (await client.view(game_id)).wahlspiel.parties[0]
            leaver = await client.join(game_id, "Leaver", seat=0, party_name="Leavers United", party_colour="black")
            await client.leave(game_id, leaver.token)
            newcomer = await client.join(game_id, "Newcomer", seat=0)
            party = newcomer.view.wahlspiel.parties[0]
            assert (party.name, party.colour) == (default.name, default.colour), (
                f"the freed seat's party is still {party.name!r} in {party.colour} as its leaver named it"
            )
            other = await client.join(game_id, "Other", seat=1, party_colour="black")
            assert other.view.wahlspiel.parties[1].colour == "black"

    run(scenario())


FLOOD_TABLES = 6  # tables of strong bots one client sets going; each decision thinks up to 0.2 s


async def _decisions(client: Client, game_ids: list[str]) -> int:
    """How many steps the games have taken so far (their versions, summed)."""
    return sum([(await client.view(game_id)).version for game_id in game_ids])


def test_tables_of_strong_bots_do_not_hold_up_other_tables_bots(own_redis: EmbeddedRedis) -> None:
    """One client may create tables of strong bots only (each decision a search of up to 0.2 s).
    Another table's random bots, which decide in microseconds, must not wait behind all of those
    searches: while they are due, the flood's tables may make a decision or two, not one each."""

    async def scenario() -> None:
        # Unbounded creation: a table of strong bots counts as many games (README, Limits).
        async with replica_and_client(own_redis.url, **UNBOUNDED_CREATES) as (_replica, client):
            strong = game_pb2.TableSettings(bot_seats=[0, 1, 2, 3], bot_level="strong")
            flood = [(await client.create_game("stimmvieh", 4, table=strong)).game_id for _ in range(FLOOD_TABLES)]
            victim_table = game_pb2.TableSettings(bot_seats=[1, 2], bot_level="random")
            game_id = (await client.create_game("stimmvieh", 3, table=victim_table)).game_id
            before = await _decisions(client, flood)
            victim = await client.join(game_id, "Victim")  # the game starts: its two bots are due now
            for _ in range(400):  # 20 s at most
                if list((await client.view(game_id, victim.token)).to_act) == [0]:
                    break
                await asyncio.sleep(0.05)
            else:
                raise AssertionError("the victim's bots never chose")
            between = await _decisions(client, flood) - before
            assert between < FLOOD_TABLES // 2, (
                f"the victim's random bots waited while the flood's strong bots made {between} decisions"
            )

    run(scenario())


BALLOT_SEED = bytes(32)  # a Wahlspiel deal whose random play soon opens a ballot on a matter of opinion


def _to_first_ballot() -> tuple[list[tuple[int, game_pb2.Move]], list[game_pb2.Move], int, int]:
    """Random play (engine only, the deal of ``BALLOT_SEED``) up to the first ballot with two
    judges owing verdicts: the moves up to it, judge A's verdicts 'yes' and 'no' on one candidate,
    A and judge B."""
    from hustings.engine import get_game
    from hustings.engine.wahlspiel.model import BALLOT, Judge

    game = get_game("wahlspiel")
    assert game is not None
    for state, played in random_play("wahlspiel", 3, BALLOT_SEED, b"ballot chooser", 2000):
        acting = sorted(game.to_act(state))
        if state.step == BALLOT and len(acting) >= 2:
            judge, other = acting[0], acting[1]
            politician = game.legal_moves(state, judge)[0].politician
            verdicts = []
            for verdict in (True, False):
                message = game_pb2.Move()
                game.move_to_proto(Judge(politician, verdict), message)
                verdicts.append(message)
            return played, verdicts, judge, other
    raise AssertionError("random play opened no ballot with two judges")


def test_a_verdict_on_a_matter_of_opinion_is_hidden_from_the_judges_still_to_give_theirs(redis_server: EmbeddedRedis) -> None:
    """A ballot on a matter of opinion is one of the simultaneous secret choices (DESIGN.md,
    "A game"): while judge B still owes its verdict, what B receives (its view, its history) must
    be the same whether judge A said yes or no, or B could follow A's lead."""

    async def received(client: Client, played: list[tuple[int, game_pb2.Move]], verdict: game_pb2.Move, judge: int, other: int) -> tuple[bytes, bytes]:
        game_id = (await client.create_game("wahlspiel", 3, seed=BALLOT_SEED.hex())).game_id
        seats = [await client.join(game_id, f"Player {seat}", seat=seat) for seat in range(3)]
        for seat, move in played:
            await client.move(game_id, seats[seat].token, move)
        await client.move(game_id, seats[judge].token, verdict)
        view = await client.view(game_id, seats[other].token)
        assert other in view.to_act, "judge B still owes its verdict"
        page = await client.history_page(game_id, seats[other].token, after_version=view.version - 1)
        view.ClearField("seats")  # clocks and presence: not the game's content
        view.ClearField("game_id")  # each branch plays a game of its own
        view.ClearField("seed_commitment")  # and commits to its seed with a nonce of its own
        return view.SerializeToString(deterministic=True), page.SerializeToString(deterministic=True)

    async def scenario() -> None:
        played, (yes, no), judge, other = _to_first_ballot()
        async with replica_and_client(redis_server.url, allow_client_seed=True) as (_replica, client):
            after_yes = await received(client, played, yes, judge, other)
            after_no = await received(client, played, no, judge, other)
        assert after_yes[0] == after_no[0], f"seat {other}'s view tells judge {judge}'s yes from its no"
        assert after_yes[1] == after_no[1], f"seat {other}'s history tells judge {judge}'s yes from its no"

    run(scenario())


def test_a_newcomer_taking_over_a_decision_begun_while_the_seat_was_absent_gets_its_whole_time(own_redis: EmbeddedRedis) -> None:
    """A take-over keeps the clock of a decision its player left in the middle of (above); one
    that began while the seat was absent, its bot's decision still to come (here the replica's
    budget for tables nobody is at puts it off), begins again: the newcomer never had it, and
    keeping its start gave the newcomer a deadline already past and a timeout on its record."""
    decision_s = 1

    async def scenario() -> None:
        async with replica_and_client(own_redis.url, unattended_decisions_per_second=0.5) as (_replica, client):
            for _ in range(3):  # games, until the take-over came before the budget's turn
                if await _take_over_a_decision_begun_absent(client, decision_s):
                    return
            raise AssertionError("the bot decided before every take-over: the case was not reached")

    run(scenario(), 60)


async def _take_over_a_decision_begun_absent(client: Client, decision_s: int) -> bool:
    """A table whose seats all leave; once a decision that began while they were away has run
    past its clock undecided, a newcomer takes that seat over. False when the seat's bot decided
    first (the budget's turn came between the look and the take-over); else the newcomer must
    owe the decision, with its whole time and no timeout."""
    table = game_pb2.TableSettings(decision_seconds=decision_s, bot_level="random", allow_takeover=True)
    game_id = (await client.create_game("stimmvieh", 3, table=table)).game_id
    seats = [await client.join(game_id, name) for name in ("Ann", "Ben", "Col")]
    for seat in seats:
        await client.leave(game_id, seat.token)
    left_at_ms = time.time() * 1000
    for _ in range(200):  # bounded: 0.1 s apart, 20 s at most
        view = await client.view(game_id)
        begun = [s for s in view.seats if s.seat in view.to_act and s.deadline_unix_ms > left_at_ms + 500]
        # Past its clock, still undecided: the budget gives the table a turn every 2 s.
        if begun and time.time() * 1000 > begun[0].deadline_unix_ms + 1000 * decision_s + 200:
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError("no decision began while every seat was absent")
    seat, version = begun[0].seat, view.version
    taken_at_ms = time.time() * 1000
    newcomer = await client.take_over(game_id, seat, "Newcomer")
    if newcomer.view.version > version + 1:
        return False  # a step came between the look and the take-over: the bot's decision
    mine = await client.view(game_id, newcomer.token)
    # Kept, its clock had run out: the seat timed out at once, its bot deciding for the newcomer,
    # who found the decision gone and a timeout counted.
    assert seat in mine.to_act and mine.seats[seat].timeouts == 0, (list(mine.to_act), mine.seats[seat].timeouts)
    assert mine.seats[seat].deadline_unix_ms >= taken_at_ms + 1000 * decision_s - 100, mine.seats[seat].deadline_unix_ms - taken_at_ms
    return True
