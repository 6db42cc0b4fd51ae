"""Wahlspiel through the real service: listed with its options, bad options refused, and no seat's
view or history showing another seat's hand."""

from __future__ import annotations

import random

import pytest

from conftest import run, running_replica
from hustings.client import Client, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2

PLAYERS = 3
MOVES_BEFORE_CHECK = (15, 40)  # early enough that no stack has been reshuffled from the table


def test_wahlspiel_is_listed_with_its_options(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica, Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
            kinds = {k.kind: k for k in await client.kinds()}
            wahlspiel = kinds["wahlspiel"]
            assert (wahlspiel.title, wahlspiel.min_players, wahlspiel.max_players) == ("Wahlspiel", 2, 6)
            assert {v.name for v in wahlspiel.variants} == {"gnomes", "single_national_candidate"}
            options = game_pb2.GameOptions(players=4)
            options.wahlspiel.single_national_candidate = True
            with pytest.raises(HustingsError) as error:
                await client.create_game("wahlspiel", 4, options)
            assert error.value.reason == "BAD_VARIANT"

    run(scenario())


def _trade_cards(history: list[game_pb2.HistoryEntry], view: game_pb2.GameView) -> set[str]:
    """Cards a seat legitimately saw as one side of a coalition: put in an offer to it, added to a
    draft or handed over by the other side (in its history's moves and events, and in its view)."""
    seen = set()
    for entry in history:
        move = entry.move.wahlspiel
        seen |= {move.offer_trade.give_card_id, move.answer_trade.card_id}
        for event in entry.events:
            own = event.wahlspiel
            if own.HasField("trade_offered"):
                seen |= {c.card_id for c in own.trade_offered.offer.give_cards}
            if own.HasField("trade_answered"):
                seen |= {c.card_id for c in [*own.trade_answered.given_cards, *own.trade_answered.received_cards]}
    coalition = view.wahlspiel.coalition
    seen |= {c.card_id for c in [*coalition.draft.give_cards, *coalition.pending.give_cards, *coalition.handed_cards]}
    return seen - {""}


def test_no_seat_sees_another_seats_hand(redis_server: EmbeddedRedis) -> None:
    rng = random.Random(8)

    async def scenario() -> None:
        async with running_replica(redis_server.url) as replica, Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
            # A fixed seed and fixed choices: the same game every run.
            created = await client.create_game("wahlspiel", PLAYERS, seed="5a" * 32)
            seats = [await client.join(created.game_id, f"P{i}") for i in range(PLAYERS)]
            game_id = created.game_id
            for number in range(max(MOVES_BEFORE_CHECK) + 1):
                if number in MOVES_BEFORE_CHECK:
                    views = [await client.view(game_id, s.token) for s in seats]
                    hands = [{c.card_id for c in v.wahlspiel.parties[i].voters} | {c.card_id for c in v.wahlspiel.parties[i].events} for i, v in enumerate(views)]
                    # Hands can run empty in play; the check bites while several parties hold cards.
                    assert sum(1 for hand in hands if hand) >= 2, "at least two parties hold cards"
                    for a in range(PLAYERS):
                        history = await client.history(game_id, seats[a].token)
                        shown = views[a].SerializeToString() + b"".join(e.SerializeToString() for e in history)
                        traded = _trade_cards(history, views[a])
                        for b in range(PLAYERS):
                            if b != a:
                                assert views[a].wahlspiel.parties[b].voter_count == len(views[b].wahlspiel.parties[b].voters)
                                leaked = {c for c in hands[b] - traded if c.encode() in shown}
                                assert not leaked, f"seat {a} sees cards {leaked} of seat {b}"
                view = await client.view(game_id)
                if view.status == game_pb2.GAME_STATUS_FINISHED:
                    break
                seat = min(view.to_act)
                mine = await client.view(game_id, seats[seat].token)
                await client.move(game_id, seats[seat].token, rng.choice(list(mine.legal_moves)))

    run(scenario())
