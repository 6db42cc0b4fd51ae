"""Wahlspiel rules checked against the rulebook where an earlier reading narrowed it (issue 17)."""

from __future__ import annotations

import re
from dataclasses import replace

from hustings.engine import Event, Rng
from hustings.engine.wahlspiel import GAME, WahlspielOptions
from hustings.engine.wahlspiel import turns
from hustings.engine.wahlspiel.content import CONTENT
from hustings.engine.wahlspiel.model import BUYING_EVENTS, BUYING_VOTERS, NOMINATING, BuyEvents, BuyVoters, CardsDrawn, DieRolled
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
