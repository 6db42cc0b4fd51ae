"""The Spin Doctors: worked examples of the rulebook with the printed numbers, plus the content
checks (the White and Red field examples, the caps, the broadcast, the Programme and the final
scoring are played through the engine in test_spin_doctors_printed.py).
Seats follow the examples' clockwise order: ANTEK 0, ANIA 1, BARTEK 2."""

from __future__ import annotations

from typing import Any

import pytest

from spin_doctors_helpers import empty_table
from hustings.engine import IllegalMoveError, Rng
from hustings.engine.spin_doctors import GAME, actions, flow, rules
from hustings.engine.spin_doctors.board import (
    locality_votes,
    next_favourite,
    place_on_turnout,
    turnout_paths,
)
from hustings.engine.spin_doctors.content import CONTENT, TurnoutCard
from hustings.engine.spin_doctors.model import (
    BREAKING_NEWS,
    DEBATE,
    RESOLUTION,
    Act,
    Consent,
    Happening,
    Played,
    SpinDoctorsOptions,
    State,
    Task,
)
from hustings.engine.spin_doctors.scoring import settle_localities

ANTEK, ANIA, BARTEK = 0, 1, 2
YOUNG, FAMILIES, SENIORS, IRON = 0, 1, 2, 3
WROCLAW, SZCZECIN, TROJMIASTO, LODZ, WARSZAWA, POZNAN, BYDGOSZCZ = 8, 0, 1, 2, 3, 4, 5


def _table(players: int = 3, seed: bytes = b"table") -> State:
    """A set-up game with every Staff chosen, ready for a scene to be laid out on it."""
    return empty_table(players, seed)


def _card_with(group: int, trait: str | None = None) -> str:
    """The roomiest Turnout card of a Voter Group (and trait)."""
    cards = [c for c in CONTENT.turnout_cards.values() if c.group == group and (trait is None or c.trait == trait)]
    return max(cards, key=lambda c: c.fields).id


def _topic_with(red: int, white: int, topic: int | None = None) -> str:
    return next(
        c.id for c in CONTENT.topic_cards.values()
        if c.red_fields == red and c.white_fields == white and (topic is None or c.topic == topic)
    )


def _play(state: State, moves: list[tuple[int, Any]]) -> tuple[State, list[Happening]]:
    shown: list[Happening] = []
    for seat, move in moves:
        state, events = rules.apply(state, seat, move, Rng(b"moves"))
        shown += [e.payload for e in events]
    return state, shown


# --- setup and content ----------------------------------------------------------------------------


def test_content_loads_and_every_action_has_an_effect() -> None:
    assert set(CONTENT.actions) == set(actions.EFFECTS)
    assert [s.order for s in CONTENT.staffers] == list(range(13))
    assert CONTENT.staffers[1].name == "Chief of Staff" and CONTENT.staffers[12].name == "Youth Wing"
    assert len(CONTENT.news_cards) == 41 and len(CONTENT.topic_cards) == 36 and len(CONTENT.turnout_cards) == 20


@pytest.mark.parametrize("seed", [b"a", b"b", b"c", b"d"])
def test_turnout_marker_setup_sums_to_31(seed: bytes) -> None:
    state = rules.setup(SpinDoctorsOptions(4), Rng(seed))
    assert sum(state.turnout_markers) == 31
    for group in range(4):
        expected = sum(
            CONTENT.localities[i].votes[0] for i, spot in enumerate(state.spots)
            if CONTENT.turnout_cards[spot.turnout_card].group == group
        )
        assert state.turnout_markers[group] == expected
    assert len(state.topic_deck) == 26 and all(state.news[:3]) and not any(state.news[3:])
    assert all(p.budget == 15 and p.supply == 30 for p in state.seats)


def test_scoring_example_locality_values_are_the_printed_ones() -> None:
    votes = {loc.id: loc.votes for loc in CONTENT.localities}
    assert votes["warszawa"] == (5, 3, 1)
    assert votes["poznan"][1:] == (2, 1) and votes["szczecin"][:2] == (2, 1) and votes["lodz"][0] == 3


# --- the board's mechanics --------------------------------------------------------------------------


def test_turnout_card_push_example() -> None:
    # Two lowest fields; the left one leads up a line of three fields to the top.
    card = TurnoutCard("X", "prices_go_up", 0, 1, 5, ((0, 2), (1, 2), (2, 3), (3, 4)))
    tokens = [BARTEK, -1, ANTEK, BARTEK, ANIA]
    paths = turnout_paths(card, tokens)
    assert (1,) in paths and (0, 2, 3, 4, -1) in paths
    pushed = place_on_turnout(tokens, (0, 2, 3, 4, -1), ANTEK)
    assert pushed == ANIA
    assert tokens == [ANTEK, -1, BARTEK, ANTEK, BARTEK]


def _change_topic_scene() -> State:
    state = _table()
    spot = state.spots[POZNAN]
    spot.topic_card = _topic_with(2, 2)
    spot.red = [ANIA, BARTEK]
    spot.white = [ANTEK]
    state.seats[ANTEK].supply -= 1
    state.seats[ANIA].supply -= 1
    state.seats[BARTEK].supply -= 1
    state.phase, state.field_now = RESOLUTION, 4
    state.board = [Played(ANTEK, 2, 4, face_up=True)]  # ANTEK's Authority on the Western Region
    state.tasks = [Task("resolve", ANTEK, index=0)]
    return state


def test_changing_a_blocked_topic_card_needs_every_holder_s_consent() -> None:
    state = _change_topic_scene()
    old = state.spots[POZNAN].topic_card
    state, _ = _play(state, [(ANTEK, Act("change_topic", locality=POZNAN))])
    assert rules.to_act(state) == {ANIA} and state.seats[ANTEK].budget == 13
    state, events = _play(state, [(ANIA, Consent(True)), (BARTEK, Consent(True))])
    spot = state.spots[POZNAN]
    assert spot.topic_card != old and spot.red == [] and spot.white == []
    assert all(p.supply == 30 for p in state.seats)
    assert any(e.kind == "TOPIC_CHANGED" for e in events)


def test_a_refused_topic_change_changes_nothing_and_costs_nothing() -> None:
    state = _change_topic_scene()
    old = state.spots[POZNAN].topic_card
    state, _ = _play(state, [(ANTEK, Act("change_topic", locality=POZNAN)), (ANIA, Consent(False))])
    assert state.spots[POZNAN].topic_card == old and state.spots[POZNAN].red == [ANIA, BARTEK]
    assert state.seats[ANTEK].budget == 15


def test_favourite_pool_tie_example() -> None:
    assert next_favourite([3, 3, 3], ANTEK) == ANIA
    assert next_favourite([3, 2, 3], ANTEK) == BARTEK
    assert next_favourite([0, 0, 0], BARTEK) == ANTEK  # the example round: nobody had tokens
    assert next_favourite([1, 4, 2], ANTEK) == ANIA


def _breaking_news(state: State, card: str) -> None:
    state.news[BREAKING_NEWS] = card
    state.phase, state.debate_next = DEBATE, len(state.spots)


def test_turnout_change_example() -> None:
    state = _table()
    state.turnout_markers[FAMILIES] = 5
    family_minus_3 = next(c.id for c in CONTENT.news_cards.values() if c.group == FAMILIES and c.turnout_change == -3)
    _breaking_news(state, family_minus_3)
    flow.advance(state, Rng(b"x"), [])
    assert state.turnout_markers[FAMILIES] == 2


def test_favourite_speech_example_normal() -> None:
    state = _table()
    state.favourite = ANTEK  # keeps it: ANTEK's pool wins
    state.seats[ANTEK].pool = 1
    state.seats[ANTEK].supply -= 1
    state.seats[ANTEK].votes[FAMILIES] = 11
    state.seats[BARTEK].votes[FAMILIES] = 7
    _breaking_news(state, next(c.id for c in CONTENT.news_cards.values() if c.group == FAMILIES))
    flow.advance(state, Rng(b"x"), [])
    assert state.seats[ANTEK].votes[FAMILIES] == 12
    assert rules.to_act(state) == {ANTEK}
    from hustings.engine.spin_doctors.model import Speech

    state, _ = _play(state, [(ANTEK, Speech(BARTEK, FAMILIES, 2))])
    assert state.seats[BARTEK].votes[FAMILIES] == 5 and state.seats[ANTEK].votes[FAMILIES] == 12


def test_favourite_speech_example_scandal() -> None:
    from hustings.engine.spin_doctors.model import Speech

    state = _table()
    state.favourite = ANTEK
    state.seats[ANTEK].pool = 1
    state.seats[ANTEK].supply -= 1
    state.seats[BARTEK].votes[IRON] = 7
    before = list(state.seats[ANTEK].votes), list(state.turnout_markers)
    _breaking_news(state, next(c.id for c in CONTENT.news_cards.values() if c.scandal == BARTEK))
    flow.advance(state, Rng(b"x"), [])
    assert (state.seats[ANTEK].votes, state.turnout_markers) == before  # no Vote, no Turnout change
    legal = rules.legal_moves(state, ANTEK)
    assert Speech(BARTEK, IRON, 2) in legal and Speech(ANIA, IRON, 1) not in legal
    state, _ = _play(state, [(ANTEK, Speech(BARTEK, IRON, 2))])
    assert state.seats[BARTEK].votes[IRON] == 5 and state.seats[ANTEK].votes == before[0]


def test_scandal_of_an_absent_colour_skips_the_speech() -> None:
    state = _table()
    _breaking_news(state, next(c.id for c in CONTENT.news_cards.values() if c.scandal == 4))
    flow.advance(state, Rng(b"x"), [])
    assert state.phase != "SPEECH" or not state.tasks


def test_locality_scoring_example() -> None:
    # Warszawa: everybody tied on the Turnout card; the Topic card orders ANIA, ANTEK, BARTEK.
    assert locality_votes((5, 3, 1), [2, 2, 2], [1, 3, 0]) == [3, 5, 1]
    # Poznań: ANTEK and BARTEK tied on both cards take the lower position's 2; ANIA is next.
    assert locality_votes((3, 2, 1), [2, 1, 2], [0, 0, 0]) == [2, 1, 2]
    # Szczecin: ANTEK ahead of BARTEK; Trójmiasto: no tokens, no Votes.
    assert locality_votes((2, 1, 1), [2, 0, 1], [0, 0, 0]) == [2, 0, 1]
    assert locality_votes((3, 2, 1), [0, 0, 0], [5, 0, 0]) == [0, 0, 0]


def test_locality_scoring_example_on_the_board() -> None:
    state = _table()
    scene = {
        SZCZECIN: (SENIORS, [ANTEK, ANTEK, BARTEK], [], []),
        LODZ: (FAMILIES, [ANIA], [], []),
        WARSZAWA: (YOUNG, [ANIA, ANTEK, BARTEK, ANIA, ANTEK, BARTEK], [ANIA, ANIA], [ANTEK]),
        POZNAN: (IRON, [ANTEK, ANTEK, BARTEK, BARTEK, ANIA], [], []),
    }
    for locality, (group, tokens, red, white) in scene.items():
        spot = state.spots[locality]
        spot.turnout_card = _card_with(group)
        spot.turnout = (tokens + [-1] * 9)[: CONTENT.turnout_cards[spot.turnout_card].fields]
        spot.red, spot.white = red, white
        assert sorted(t for t in spot.turnout if t >= 0) == sorted(tokens)
    events: list[Any] = []
    settle_localities(state, events)
    assert state.seats[ANTEK].votes == [3, 0, 2, 2]
    assert state.seats[BARTEK].votes == [1, 0, 1, 2]
    assert state.seats[ANIA].votes == [5, 3, 0, 1]


def test_election_tie_breaks_then_the_favourite_names_the_winner() -> None:
    from hustings.engine.spin_doctors.model import NameWinner
    from hustings.engine.spin_doctors.scoring import tied_for_first

    state = _table()
    state.round, state.phase = CONTENT.election_round[3], "SPEECH"
    flow.advance(state, Rng(b"x"), [])
    assert tied_for_first(state) == [0, 1, 2]  # identical Programmes and nothing on the board
    assert rules.to_act(state) == {state.favourite}
    state, _ = _play(state, [(state.favourite, NameWinner(ANIA))])
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.placings[0].seat == ANIA and outcome.placings[0].rank == 1


def test_rejected_moves_leave_the_state_untouched() -> None:
    state = rules.setup(SpinDoctorsOptions(3), Rng(b"r"))
    before = GAME.dump_state(state)
    with pytest.raises(IllegalMoveError):
        rules.apply(state, 0, Act("rally_of_support"), Rng(b"r"))
    assert GAME.dump_state(state) == before
