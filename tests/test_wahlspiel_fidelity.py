"""Wahlspiel rules checked against the rulebook where an earlier reading narrowed it (issue 17)."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from hustings.engine import EngineError, Event, IllegalMoveError, Rng
from hustings.engine.base import sampler
from hustings.engine.wahlspiel import GAME, WahlspielOptions
from hustings.engine.wahlspiel import turns
from hustings.engine.wahlspiel.content import CONTENT
from hustings.engine.wahlspiel.model import (
    BUYING_EVENTS,
    BUYING_VOTERS,
    CHOOSING_PARTNER,
    HANDING_OVER,
    MAX_PROPOSALS,
    NOMINATING,
    OFFERING,
    AnswerTrade,
    BuyEvents,
    BuyVoters,
    CardsDrawn,
    ChoosePartner,
    CoalitionChanged,
    DieRolled,
    OfferTrade,
    ProposeOffer,
    TradeAnswered,
)
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


_SEX_WORDS = {"man": "m", "men": "m", "woman": "f", "women": "f"}


def _printed_property(text: str) -> tuple[str, int, int]:
    """The sex and age bounds a card's text names: the first of man/men/woman/women, "over N"
    (older than N), "N and over", "under N" (younger than N)."""
    words = re.findall(r"[a-z]+", text.lower())
    sex = next((_SEX_WORDS[w] for w in words if w in _SEX_WORDS), "")
    over = re.search(r"\bover (\d+)", text)
    and_over = re.search(r"(\d+) and over", text)
    under = re.search(r"\bunder (\d+)", text)
    age_min = int(over.group(1)) + 1 if over else int(and_over.group(1)) if and_over else 0
    age_max = int(under.group(1)) - 1 if under else 0
    return sex, age_min, age_max


def test_every_card_requires_exactly_the_sex_and_age_its_text_names() -> None:
    """"The voter ... judges purely on human grounds, by the sex, age, name, occupation or the
    picture of the candidates" and "The player who plays the card may decide which candidate (a
    woman) the card refers to": a card that says men or women requires that sex, and "over 50"
    means older than 50, in the data as in the text."""
    cards = [(v.card_id, v.text, v.condition) for v in CONTENT.voters.values()]
    cards += [(e.card_id, e.text, e.condition) for e in CONTENT.events.values()]
    wrong = [
        card_id for card_id, text, condition in cards
        if _printed_property(text) != (condition.sex, condition.age_min, condition.age_max)
    ]
    assert wrong == []
    for card_id in ("V106", "V107", "V125", "E18"):  # the bearded men: a man is required
        condition = CONTENT.voters[card_id].condition if card_id in CONTENT.voters else CONTENT.events[card_id].condition
        assert condition.sex == "m" and condition.traits == ("beard",)
    woman = next(p for p in CONTENT.politicians.values() if p.sex == "f")
    over_50 = CONTENT.voters["V119"].condition
    assert not over_50.matches(replace(woman, age=50)) and over_50.matches(replace(woman, age=51))
    assert not CONTENT.voters["V106"].condition.matches(replace(woman, traits=frozenset({"beard"}) | woman.traits))


def test_two_players_contest_the_cantonal_election() -> None:
    """"The election of 5 cantonal councillors" and "Elected are the candidates who have collected
    the most votes after the election round": with two players the designed rule (four cantonal
    candidates each, as "admit three candidates each" is printed for three players) leaves 8
    candidates for the 5 seats, so the election is not decided before it starts."""
    state = GAME.setup(WahlspielOptions(2), Rng(b"two"))
    rng = Rng(b"two-play")
    for _ in range(20):
        if state.step != NOMINATING:
            break
        [seat] = GAME.to_act(state)
        state, _ = GAME.apply(state, seat, GAME.legal_moves(state, seat)[0], rng)
    assert [len(turns.nominees(state, p)) for p in (0, 1)] == [4, 4]
    assert len(state.candidates) == 8 > CONTENT.elections[0].seats == 5
    assert turns.candidates_required(replace(state, options=WahlspielOptions(3))) == 3
    assert turns.candidates_required(replace(state, options=WahlspielOptions(4))) == 2
    assert turns.candidates_required(replace(state, round=2)) == 2


def test_coalition_partners_exchange_any_bundle_with_counter_offers_in_bounded_rounds() -> None:
    """"The party may choose a coalition partner among the other players: one other player with
    whom it may immediately exchange any number of event cards and voter cards. Purchase and
    exchange deals are also permitted." An offer is any bundle of cards and francs each way,
    drafted one item per decision; the other side accepts, or declines and may counter-offer;
    at most MAX_PROPOSALS offers are put in one visit."""
    hands = {0: (("V001", "V002"), ("E01",)), 2: (("V003", "V004"), ("E02", "E03"))}
    state = table(3, step=CHOOSING_PARTNER, hands=hands, money={0: 4000, 2: 5000})
    rng = Rng(b"bundle")
    state, _ = GAME.apply(state, 0, ChoosePartner(2), rng)
    # Two voters, an event and 2000 francs for two events and 1000 francs: one offer.
    items = [OfferTrade(give_card="V001"), OfferTrade(give_card="V002"), OfferTrade(give_card="E01"),
             OfferTrade(give_money=1000), OfferTrade(give_money=1000), OfferTrade(ask_kind="event"),
             OfferTrade(ask_kind="event"), OfferTrade(ask_money=1000)]
    for item in items:
        assert item in GAME.legal_moves(state, 0)
        state, _ = GAME.apply(state, 0, item, rng)
    legal = GAME.legal_moves(state, 0)
    assert OfferTrade(ask_kind="event") not in legal  # the partner holds only two events
    assert ProposeOffer() in legal
    seen = GAME.view(state, 1).coalition
    assert seen is not None and seen.draft.give_cards == () and (seen.draft.give_voters, seen.draft.give_events) == (2, 1)
    assert GAME.view(state, 2).coalition.draft.give_cards == ("V001", "V002", "E01")
    put, events = GAME.apply(state, 0, ProposeOffer(), rng)
    assert GAME.to_act(put) == frozenset({2})
    # The partner declines and counter-offers: one voter for 3000 francs.
    countered, events = GAME.apply(put, 2, AnswerTrade(False), rng)
    assert countered.step == OFFERING and GAME.to_act(countered) == frozenset({2})
    assert countered.parties == put.parties
    for item in (OfferTrade(give_card="V003"), *[OfferTrade(ask_money=1000)] * 3, ProposeOffer()):
        countered, _ = GAME.apply(countered, 2, item, rng)
    assert GAME.to_act(countered) == frozenset({0})
    after, events = GAME.apply(countered, 0, AnswerTrade(True), rng)
    assert "V003" in after.parties[0].voters and after.parties[0].money == 1000 and after.parties[2].money == 8000
    answered = payloads(events, TradeAnswered, 1)[0]
    assert answered.accepted and answered.given_count == 1 and answered.given_cards == ()
    assert payloads(events, TradeAnswered, 0)[0].given_cards == ("V003",)
    # The first offer again, now accepted: the asked events are handed over one at a time.
    state = put
    state, _ = GAME.apply(state, 2, AnswerTrade(True), rng)
    assert state.step == HANDING_OVER and GAME.legal_moves(state, 2) == [AnswerTrade(True, "E02"), AnswerTrade(True, "E03")]
    state, _ = GAME.apply(state, 2, AnswerTrade(True, "E03"), rng)
    assert GAME.legal_moves(state, 2) == [AnswerTrade(True, "E02")]
    state, _ = GAME.apply(state, 2, AnswerTrade(True, "E02"), rng)
    assert state.parties[0].voters == () and state.parties[0].events == ("E02", "E03")
    assert state.parties[2].voters == ("V001", "V002", "V003", "V004") and state.parties[2].events == ("E01",)
    assert (state.parties[0].money, state.parties[2].money) == (3000, 6000)
    assert state.step == OFFERING and GAME.to_act(state) == frozenset({0})  # the party on the field goes on
    # Bounded: once MAX_PROPOSALS offers have been put, the visit ends.
    assert state.coalition is not None and state.coalition.offers == 1
    proposals = 1
    for _ in range(MAX_PROPOSALS):
        proposer = min(GAME.to_act(state))
        state, _ = GAME.apply(state, proposer, OfferTrade(ask_money=1000), rng)
        state, _ = GAME.apply(state, proposer, ProposeOffer(), rng)
        proposals += 1
        state, events = GAME.apply(state, min(GAME.to_act(state)), AnswerTrade(False), rng)
        if payloads(events, CoalitionChanged):
            break
    assert proposals == MAX_PROPOSALS == 6  # wahlspiel.proto: "Offers and counter-offers put so far in this visit (at most 6)."
    ended = payloads(events, CoalitionChanged)[0]
    assert ended.ended and (ended.party, ended.partner) == (0, 2)


def test_parties_name_themselves_and_choose_their_colour() -> None:
    """"Each player now has their party together, which they may name freely, for example "Free
    Christian People's Party" ... Each player also chooses a matching party colour, then one of
    the 6 game pieces": a party's chosen name and colour (one of the pieces') are what every seat
    sees and what the outcome names; colours never clash."""
    state = GAME.setup(WahlspielOptions(3), Rng(b"found"))
    assert [p.name for p in GAME.view(state, None).parties] == list(CONTENT.party_names[:3])
    state = GAME.name_party(state, 1, "Party of the Lake Shore", "red")
    state = GAME.name_party(state, 2, "", "white")  # keeps its default name
    for viewer in (0, 1, 2, None):
        parties = GAME.view(state, viewer).parties
        assert [p.name for p in parties] == [CONTENT.party_names[0], "Party of the Lake Shore", CONTENT.party_names[2]]
        colours = [p.colour for p in parties]
        assert colours[1:] == ["red", "white"] and len(set(colours)) == 3 and colours[0] != "red"
    with pytest.raises(IllegalMoveError) as taken:
        GAME.name_party(state, 0, "Red Alliance", "red")
    assert taken.value.reason == "COLOUR_TAKEN"
    for name, colour, reason in (("x" * 61, "", "BAD_PARTY_NAME"), ("Tab\tParty", "", "BAD_PARTY_NAME"), ("Ok", "purple", "BAD_COLOUR")):
        with pytest.raises(EngineError) as refused:
            GAME.name_party(state, 0, name, colour)
        assert refused.value.reason == reason
    assert GAME.load_state(GAME.dump_state(state)) == state
    finished = replace(state, step="FINISHED", federal="", round=3)
    outcome = GAME.outcome(finished)
    assert outcome is not None and {p.name for p in outcome.placings} >= {"Party of the Lake Shore"}


def test_a_sample_keeps_what_each_seat_saw_of_a_bundle_offer() -> None:
    """"It is advisable not to show these cards openly": a bundle offer's cards and the cards
    handed over for it are seen by the two coalition sides only, so a determinization for any
    seat shows it exactly its own view, the others seeing only kinds and counts."""
    hands = {0: (("V001", "V002"), ("E01",)), 2: (("V003",), ("E02", "E03"))}
    state = table(3, step=CHOOSING_PARTNER, hands=hands, money={0: 4000, 2: 5000})
    rng = Rng(b"sample")
    state, _ = GAME.apply(state, 0, ChoosePartner(2), rng)
    for item in (OfferTrade(give_card="V002"), OfferTrade(give_card="E01"), OfferTrade(ask_kind="event"),
                 OfferTrade(ask_kind="event"), ProposeOffer(), AnswerTrade(True), AnswerTrade(True, "E03")):
        seat = min(GAME.to_act(state))
        state, _ = GAME.apply(state, seat, item, rng)
    assert state.step == HANDING_OVER and state.coalition is not None and state.coalition.handed == ("E03",)
    sample = sampler(GAME)
    for seat in (0, 1, 2):
        for n in range(6):
            drawn = sample(state, seat, Rng(b"draw", n))
            assert GAME.view(drawn, seat) == GAME.view(state, seat)
            assert drawn.coalition is not None and drawn.coalition.pending is not None
            pending, handed = drawn.coalition.pending.give_cards, drawn.coalition.handed
            assert set(pending) <= set(drawn.parties[0].voters + drawn.parties[0].events)
            assert set(handed) <= set(drawn.parties[2].events) and len(set(pending)) == 2
            if seat in (0, 2):
                assert (pending, handed) == (("V002", "E01"), ("E03",))
