"""Wahlspiel's coalition offer on a clocked table: drafting an offer and putting it is one decision
(engine/wahlspiel/CONTENT.md, Coalition). A drafted item, of an offer or of a decliner's
counter-offer, keeps the deadline set when the decision began and charges or credits no bank;
putting the offer pays for all its time with one increment; a decision that times out mid-draft
is finished by the seat's bot and counts one timeout. Played through a real replica on a real
Redis, with the replica's clock held still and moved on by the test.
"""

from __future__ import annotations

from typing import Any

from conftest import HeldClock, run
from service_helpers import replica_and_client
from test_side_moves import _timed_out
from hustings.client import Client, Joined
from hustings.engine import get_game
from hustings.engine.wahlspiel.model import AnswerTrade, ChoosePartner, OfferTrade, Pass, ProposeOffer
from hustings.engine.wahlspiel.rules import VOTER_ASKED
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2

GAME = get_game("wahlspiel")
assert GAME is not None
SEED = "00" * 32  # its table reaches a coalition field after a dozen steps of ``_to_a_coalition``
MAX_STEPS = 200  # the bound on the steps that lead there
DECISION_S = 60
BANK_S = 600
INCREMENT_S = 10


def _moves(view: game_pb2.GameView) -> list[Any]:
    return [GAME.move_from_proto(m) for m in view.legal_moves]


def _proto(move: Any) -> game_pb2.Move:
    out = game_pb2.Move()
    GAME.move_to_proto(move, out)
    return out


async def _to_a_coalition(client: Client, game_id: str, seats: list[Joined]) -> tuple[int, int]:
    """Play (choosing a partner where offered, else passing, else the first legal move) until a
    side drafts an offer; returns the drafting side and its partner."""
    for _step in range(MAX_STEPS):
        public = await client.view(game_id)
        seat = min(public.to_act)
        moves = _moves(await client.view(game_id, seats[seat].token))
        if any(isinstance(m, OfferTrade) for m in moves):
            return seat, public.wahlspiel.coalition.partner
        chosen = next((m for m in moves if isinstance(m, ChoosePartner)), None)
        chosen = chosen or next((m for m in moves if isinstance(m, Pass)), moves[0])
        await client.move(game_id, seats[seat].token, _proto(chosen))
    raise AssertionError("no coalition within the step bound")


async def _draft_one(client: Client, game_id: str, seat: Joined) -> None:
    moves = _moves(await client.view(game_id, seat.token))
    await client.move(game_id, seat.token, _proto(next(m for m in moves if isinstance(m, OfferTrade))))


def _items(offer: game_pb2.WahlspielOffer) -> int:
    """How many items an offer was drafted from (a card, or 1000 francs, each)."""
    cards = offer.give_voter_count + offer.give_event_count + offer.ask_voter_count + offer.ask_event_count
    return cards + (offer.give_money + offer.ask_money) // 1000


async def _clocked_game(client: Client, settings: game_pb2.TableSettings) -> tuple[str, list[Joined]]:
    game_id = (await client.create_game("wahlspiel", 2, seed=SEED, table=settings)).game_id
    return game_id, [await client.join(game_id, name) for name in ("Ursula", "Beat")]


async def _coalition_on_a_chess_clock(client: Client) -> tuple[str, list[Joined], int, int]:
    """A game with a decision limit and a chess clock, played to its first coalition: its id,
    seats, the drafting side and its partner."""
    settings = game_pb2.TableSettings(decision_seconds=DECISION_S, bank_seconds=BANK_S, increment_seconds=INCREMENT_S)
    game_id, seats = await _clocked_game(client, settings)
    proposer, partner = await _to_a_coalition(client, game_id, seats)
    return game_id, seats, proposer, partner


def test_drafting_keeps_the_deadline_and_putting_the_offer_pays_its_time_once(redis_server: EmbeddedRedis) -> None:
    clock = HeldClock()

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, local_clock=clock, allow_client_seed=True) as (replica, client):
            game_id, seats, proposer, partner = await _coalition_on_a_chess_clock(client)
            start = await client.view(game_id)
            deadline, bank = start.seats[proposer].deadline_unix_ms, start.seats[proposer].bank_ms
            begun = deadline - DECISION_S * 1000  # the bank (over 60 s) does not set the deadline
            assert bank > DECISION_S * 1000 and begun == replica.host._now_ms()

            # Three items, 15 s apart: the decision's deadline and the bank stay as they were.
            for item in range(1, 4):
                clock.advance_to_ms(replica, begun + item * 15_000)
                await _draft_one(client, game_id, seats[proposer])
                view = await client.view(game_id)
                assert list(view.to_act) == [proposer]
                assert (view.seats[proposer].deadline_unix_ms, view.seats[proposer].bank_ms) == (deadline, bank), item
            assert _items(view.wahlspiel.coalition.draft) == 3

            # Put at 50 s: the bank pays the whole 50 s once and gets one increment; the partner's
            # answer begins now.
            clock.advance_to_ms(replica, begun + 50_000)
            put_at = replica.host._now_ms()
            await client.move(game_id, seats[proposer].token, _proto(ProposeOffer()))
            after = await client.view(game_id)
            assert list(after.to_act) == [partner]
            assert after.seats[proposer].bank_ms == bank - (put_at - begun) + INCREMENT_S * 1000
            assert after.seats[proposer].deadline_unix_ms == 0
            assert after.seats[partner].deadline_unix_ms == put_at + DECISION_S * 1000

            # The partner declines at once and drafts a counter-offer on the one clock begun by
            # declining.
            await client.move(game_id, seats[partner].token, _proto(AnswerTrade(False)))
            countering = (await client.view(game_id)).seats[partner].deadline_unix_ms
            assert countering == put_at + DECISION_S * 1000
            for item in range(1, 3):
                clock.advance_to_ms(replica, put_at + item * 20_000)
                await _draft_one(client, game_id, seats[partner])
                assert (await client.view(game_id)).seats[partner].deadline_unix_ms == countering, item

    run(scenario(), timeout_s=60)


def test_a_decision_timing_out_mid_draft_is_finished_by_the_bot_as_drafted_and_counts_once(redis_server: EmbeddedRedis) -> None:
    """The bot standing in for a player whose time ran out makes the decision owed and drafts
    nothing of the player's into the offer: it puts the offer as the player left it or ends the
    coalition, in one step. A greedy stand-in drafted item after item of the player's cards and
    money first."""
    clock = HeldClock()

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, local_clock=clock, allow_client_seed=True) as (replica, client):
            # Two timeouts in a row would make the seat absent.
            settings = game_pb2.TableSettings(decision_seconds=DECISION_S, absent_after_timeouts=2, bot_level="greedy")
            game_id, seats = await _clocked_game(client, settings)
            proposer, partner = await _to_a_coalition(client, game_id, seats)
            deadline = (await client.view(game_id)).seats[proposer].deadline_unix_ms
            clock.advance_to_ms(replica, deadline - 30_000)
            await _draft_one(client, game_id, seats[proposer])
            before = await client.view(game_id)

            clock.advance_to_ms(replica, deadline + 3)
            await replica.host.deadline_runner.run_once()
            assert await _timed_out(client, game_id, expected=[proposer]) == [proposer]
            after = await client.view(game_id, seats[partner].token)
            # One step, the decision (the greedy bot ends the coalition here; had it put the
            # offer, the offer would hold the one item the player drafted): nothing drafted.
            assert after.version == before.version + 1
            assert _items(after.wahlspiel.coalition.pending) <= 1
            assert (after.seats[proposer].timeouts, after.seats[proposer].absent) == (1, False)

    run(scenario(), timeout_s=60)


def test_handing_over_the_cards_of_an_accepted_offer_is_one_decision(redis_server: EmbeddedRedis) -> None:
    """The accepting side hands the asked cards over one per move: every card but the last
    keeps the deadline set when the handing began and the bank as it was; the last pays for all
    of its time with one increment (a side holding three cards could otherwise take three times
    the decision time, and gain three increments)."""
    clock = HeldClock()

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, local_clock=clock, allow_client_seed=True) as (replica, client):
            game_id, seats, proposer, partner = await _coalition_on_a_chess_clock(client)
            asked = 0
            for _ in range(3):  # ask for as many of the partner's voter cards as it holds, up to 3
                if VOTER_ASKED not in _moves(await client.view(game_id, seats[proposer].token)):
                    break
                await client.move(game_id, seats[proposer].token, _proto(VOTER_ASKED))
                asked += 1
            assert asked >= 2, "the partner holds at least two voter cards (four are dealt to every party)"
            await client.move(game_id, seats[proposer].token, _proto(ProposeOffer()))
            await client.move(game_id, seats[partner].token, _proto(AnswerTrade(True)))
            start = await client.view(game_id)
            assert list(start.to_act) == [partner]
            deadline, bank = start.seats[partner].deadline_unix_ms, start.seats[partner].bank_ms
            begun = deadline - DECISION_S * 1000
            for handed in range(1, asked + 1):
                clock.advance_to_ms(replica, begun + handed * 15_000)
                card = next(m for m in _moves(await client.view(game_id, seats[partner].token)) if isinstance(m, AnswerTrade) and m.card)
                assert GAME.is_side_move(card, None) is False  # only the state tells the last card
                await client.move(game_id, seats[partner].token, _proto(card))
                view = await client.view(game_id)
                if handed < asked:
                    assert list(view.to_act) == [partner]
                    assert (view.seats[partner].deadline_unix_ms, view.seats[partner].bank_ms) == (deadline, bank), handed
            handed_at = begun + asked * 15_000
            assert view.seats[partner].bank_ms == bank - (handed_at - begun) + INCREMENT_S * 1000

    run(scenario(), timeout_s=60)
