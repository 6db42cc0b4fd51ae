"""Wahlspiel rules checked against the rulebook where an earlier reading narrowed it (issue 17)."""

from __future__ import annotations

from dataclasses import replace

from hustings.engine import Event, Rng
from hustings.engine.wahlspiel import GAME
from hustings.engine.wahlspiel import turns
from hustings.engine.wahlspiel.content import CONTENT
from hustings.engine.wahlspiel.model import BUYING_EVENTS, BUYING_VOTERS, BuyEvents, BuyVoters, CardsDrawn, DieRolled
from tests.test_wahlspiel_rules import payloads, rolling, table


def test_a_party_may_buy_as_many_voters_and_events_as_it_can_pay_for() -> None:
    """"The party may buy as many voters as it likes. A voter costs 1000 francs" and "The party may
    buy as many event cards as it likes. A card costs 2000 francs": every affordable count is
    offered, with no cap of the engine's own."""
    rich = table(3, step=BUYING_VOTERS, money={0: 23_500})
    assert GAME.legal_moves(rich, 0) == [BuyVoters(n) for n in range(24)]
    after, events = GAME.apply(rich, 0, BuyVoters(23), Rng(b"buy"))
    assert after.parties[0].money == 500
    assert len(after.parties[0].voters) == len(rich.parties[0].voters) + 23
    assert payloads(events, CardsDrawn, 1)[0].cost == 23_000
    events_field = table(3, step=BUYING_EVENTS, money={0: 15_000})
    assert GAME.legal_moves(events_field, 0) == [BuyEvents(n) for n in range(8)]
    after, _ = GAME.apply(events_field, 0, BuyEvents(7), Rng(b"buy"))
    assert after.parties[0].money == 1000 and len(after.parties[0].events) == len(events_field.parties[0].events) + 7


def test_only_deliverable_cards_are_offered_and_paid_for() -> None:
    """"A voter costs 1000 francs and must be taken blind from the stack": a party pays for the
    cards it takes, so when the stack (with the ballot box shuffled in) holds fewer cards than the
    party could pay for, only those are offered; with nothing to take there is nothing to buy."""
    short = table(3, step=BUYING_VOTERS, money={0: 9000}, voter_stack=("V001", "V002"), ballot_box=("V003",))
    assert GAME.legal_moves(short, 0) == [BuyVoters(n) for n in range(4)]
    after, events = GAME.apply(short, 0, BuyVoters(3), Rng(b"buy"))
    assert after.parties[0].money == 6000 and payloads(events, CardsDrawn, 1)[0].cost == 3000
    assert {"V001", "V002", "V003"} <= set(after.parties[0].voters)
    empty = table(3, step=BUYING_EVENTS, money={0: 9000}, event_stack=(), event_discards=())
    assert not turns.has_decision(empty, 0, BUYING_EVENTS)
    purchase = next(i for i, f in enumerate(CONTENT.board) if f.kind == "event_purchase" and 0 < i <= 6)
    empty = replace(empty, parties=(replace(empty.parties[0], position=0),) + empty.parties[1:])
    events_seen: list[Event] = []
    moved = turns.begin_turn(empty, 0, rolling(purchase), events_seen)
    # The field had nothing to sell: no purchase was offered, nothing was paid, the turn passed.
    assert payloads(events_seen, DieRolled)[0].position == purchase
    assert moved.parties[0].money == 9000
    assert not (moved.current == 0 and moved.step == BUYING_EVENTS)
    assert not [d for d in payloads(events_seen, CardsDrawn) if d.party == 0]
