"""The Spin Doctors: the rulebook's printed examples and sentences, played through the engine with
the printed numbers (White fields, Red fields, the Vote and Turnout caps, the broadcast, the
Campaign Programme, the final scoring, Communication, the starting Favourite).

Every scene is a set-up game laid out as the example describes and then moved on by the engine's
own moves; where the rulebook leaves a number out, the test says which one it chose.
Seats follow the examples' clockwise order: ANTEK 0, ANIA 1, BARTEK 2.
"""

from __future__ import annotations

from typing import Any

import pytest

from spin_doctors_helpers import empty_table
from hustings.engine import IllegalMoveError, Rng
from hustings.engine.spin_doctors import GAME, flow, rules
from hustings.engine.spin_doctors.content import CONTENT
from hustings.engine.spin_doctors.model import (
    BLUE,
    BREAKING_NEWS,
    DEBATE,
    FINISHED,
    MAX_MARKER,
    MEDIA,
    RESOLUTION,
    SPEECH,
    Act,
    Broadcast,
    ChooseProgramme,
    Consent,
    HandBudget,
    Happening,
    OfferDeal,
    PlaceOnTopic,
    Played,
    Speech,
    SpinDoctorsOptions,
    State,
    Task,
    Term,
)
from hustings.engine.spin_doctors.scoring import scores

ANTEK, ANIA, BARTEK, DOROTA = 0, 1, 2, 3
YOUNG, FAMILIES, SENIORS, IRON = 0, 1, 2, 3
ECONOMY, INFRASTRUCTURE, SOCIAL_POLICY, CULTURE, FOREIGN_POLICY, HEALTH_CARE = range(6)
LODZ, WARSZAWA, POZNAN, RZESZOW, WROCLAW = 2, 3, 4, 7, 8
WESTERN = 4
AUTHORITY = 2


def _table(players: int = 3) -> State:
    """A set-up game with every Staff and Programme chosen and an empty board (no tokens)."""
    return empty_table(players, b"printed")


def _topic_card(topic: int, red: int | None = None, white: int | None = None, skip: int = 0) -> str:
    """A Topic card of ``topic`` (with that many Red and White fields, if given)."""
    cards = [
        c.id for c in CONTENT.topic_cards.values()
        if c.topic == topic and (red is None or c.red_fields == red) and (white is None or c.white_fields == white)
    ]
    return cards[skip]


def _lay_topics(state: State, topics: list[int]) -> None:
    """Lay a Topic card of each given topic on the ten Topic card fields, board order; the rest of
    the Topic cards form the deck."""
    used: dict[int, int] = {}
    for spot, topic in zip(state.spots, topics, strict=True):
        spot.topic_card = _topic_card(topic, skip=used.get(topic, 0))
        used[topic] = used.get(topic, 0) + 1
    on_board = {s.topic_card for s in state.spots}
    state.topic_deck = [c for c in sorted(CONTENT.topic_cards) if c not in on_board]


def _play(state: State, moves: list[tuple[int, Any]]) -> tuple[State, list[Happening]]:
    shown: list[Happening] = []
    for seat, move in moves:
        state, events = rules.apply(state, seat, move, Rng(b"moves"))
        shown += [e.payload for e in events]
    return state, shown


def _debate(state: State, locality: int, stack: list[int]) -> State:
    """The Debate reaching ``locality`` with ``stack`` (base first) on its Activity stack."""
    spot = state.spots[locality]
    spot.activity = list(stack)
    for seat in set(stack):
        state.seats[seat].supply -= stack.count(seat)
    state.phase, state.debate_next = DEBATE, locality
    flow.advance(state, Rng(b"debate"), [])
    return state


def _topic_moves(state: State, seat: int) -> list[PlaceOnTopic]:
    return [m for m in rules.legal_moves(state, seat) if isinstance(m, PlaceOnTopic)]


def _election(state: State) -> State:
    """Run the end of the last round: the last Programme cards are revealed, the Localities
    settled and the Election counted by the engine."""
    state.round, state.phase, state.tasks = CONTENT.election_round[state.players], SPEECH, []
    flow.advance(state, Rng(b"election"), [])
    if state.tasks and state.tasks[0].kind == "name_winner":  # a tie: the Favourite names the first
        state, _ = _play(state, [(state.favourite, _topic_free(rules.legal_moves(state, state.favourite))[0])])
    assert state.phase == FINISHED
    return state


# --- issue item 1: White fields ------------------------------------------------------------------


def test_white_fields_push_off_only_the_lowest_token_while_a_white_field_is_free() -> None:
    """Rulebook, "White field": "A token is always placed on the lowest field. If the lowest field
    is occupied, move the token on it to a higher field or push it off the card, and then place
    your own token on the lowest field. If all White fields are occupied, decide which token to
    push off the card: If you want to push off a token that lies lower down, remove it from the
    card and put your token in its place. If you want to push off a token that lies higher up,
    remove it from the card, move the token lying below it into its place, and place your own on
    the lower field."

    Four players resolve one Activity stack on a card with one Red and three White fields.
    """
    state = _table(players=4)
    state.spots[WROCLAW].topic_card = _topic_card(ECONOMY, red=1, white=3)
    state = _debate(state, WROCLAW, [DOROTA, BARTEK, ANIA, ANTEK])  # ANTEK's token on top
    assert rules.to_act(state) == {ANTEK}
    assert _topic_moves(state, ANTEK) == [PlaceOnTopic(True), PlaceOnTopic(False)]  # nothing to push yet
    state, _ = _play(state, [(ANTEK, PlaceOnTopic(False))])
    # One token, two White fields free: ANTEK's token moves up or is pushed off.
    assert _topic_moves(state, ANIA) == [PlaceOnTopic(True), PlaceOnTopic(False), PlaceOnTopic(False, 0)]
    state, _ = _play(state, [(ANIA, PlaceOnTopic(False))])
    assert state.spots[WROCLAW].white == [ANIA, ANTEK]
    # Two tokens, one White field free: only the lowest token (ANIA's) may be pushed off, not ANTEK's.
    assert _topic_moves(state, BARTEK) == [PlaceOnTopic(True), PlaceOnTopic(False), PlaceOnTopic(False, 0)]
    before = GAME.dump_state(state)
    with pytest.raises(IllegalMoveError):
        rules.apply(state, BARTEK, PlaceOnTopic(False, 1), Rng(b"moves"))
    assert GAME.dump_state(state) == before
    state, _ = _play(state, [(BARTEK, PlaceOnTopic(False))])
    assert state.spots[WROCLAW].white == [BARTEK, ANIA, ANTEK]
    # All three White fields occupied: now DOROTA chooses which token to push off (and the Red
    # field is still hers to take).
    assert _topic_moves(state, DOROTA) == [PlaceOnTopic(True)] + [PlaceOnTopic(False, i) for i in range(3)]
    votes = [p.votes[:] for p in state.seats]
    group = CONTENT.turnout_cards[state.spots[WROCLAW].turnout_card].group
    state, events = _play(state, [(DOROTA, PlaceOnTopic(False, 1))])  # ANIA's, in the middle
    assert state.spots[WROCLAW].white == [DOROTA, BARTEK, ANTEK]  # BARTEK's moved up into her place
    assert state.seats[ANIA].votes[group] == votes[ANIA][group] + 1
    assert [e.seat for e in events if e.kind == "PUSHED_OFF_WHITE"] == [ANIA]


@pytest.mark.parametrize("example", [1, 2])
def test_white_field_examples_1_and_2(example: int) -> None:
    """Rulebook, White field Example 1: "ANTEK decides to place his token on a White field, moving
    BARTEK's token to the higher field. ANIA ... decides on the White field and moves ANTEK's token
    to the higher field. As a result of this action BARTEK's token is pushed off the card".
    Example 2: "ANTEK decides to place his token on a White field and, instead of moving BARTEK's
    token to the higher field, pushes it off the Topic card. As a result BARTEK receives 1 Vote in
    the Family group ... ANIA ... decides on the White field and moves ANTEK's token to the higher
    field." Both: "In the Family group ANIA has 1 Vote, BARTEK 3 Votes and ANTEK 5 Votes." Example
    1: "BARTEK cannot move it onto the card, because only the first Support token is moved onto the
    Topic card. This token of BARTEK goes to his Favourite pool."
    """
    state = _table()
    spot = state.spots[WROCLAW]
    spot.turnout_card = next(c.id for c in CONTENT.turnout_cards.values() if c.group == FAMILIES)
    spot.topic_card = _topic_card(ECONOMY, red=1, white=2)
    for seat, votes in ((ANIA, 1), (BARTEK, 3), (ANTEK, 5)):
        state.seats[seat].votes[FAMILIES] = votes
    state = _debate(state, WROCLAW, [BARTEK, ANIA, ANTEK, BARTEK])  # BARTEK's first token on top
    state, _ = _play(state, [(BARTEK, PlaceOnTopic(False))])
    # One White field free: BARTEK's token, the lowest, moves up or is pushed off.
    assert _topic_moves(state, ANTEK) == [PlaceOnTopic(True), PlaceOnTopic(False), PlaceOnTopic(False, 0)]
    if example == 1:
        state, _ = _play(state, [(ANTEK, PlaceOnTopic(False))])
        # Both White fields occupied: ANIA chooses, and pushes off the higher token, BARTEK's.
        assert _topic_moves(state, ANIA) == [PlaceOnTopic(True), PlaceOnTopic(False, 0), PlaceOnTopic(False, 1)]
        state, events = _play(state, [(ANIA, PlaceOnTopic(False, 1))])
        # "One Support token of BARTEK's remains on the Activity stack ... This token of BARTEK
        # goes to his Favourite pool."
        assert next(e for e in events if e.kind == "FAVOURITE").pools == (0, 0, 1)
    else:
        state, _ = _play(state, [(ANTEK, PlaceOnTopic(False, 0))])
        assert state.seats[BARTEK].votes[FAMILIES] == 4
        assert _topic_moves(state, ANIA) == [PlaceOnTopic(True), PlaceOnTopic(False), PlaceOnTopic(False, 0)]
        state, _ = _play(state, [(ANIA, PlaceOnTopic(False))])
    assert state.spots[WROCLAW].white == [ANIA, ANTEK]
    assert [p.votes[FAMILIES] for p in state.seats] == [5, 1, 4]


# --- issue item 4: the printed examples with the printed numbers -------------------------------------


def test_red_field_example_through_the_debate() -> None:
    """Rulebook, Red field Example: "BARTEK, as the first, moves his token onto a Red field. ANIA
    also moves her token onto a Red field, pushing BARTEK's token. All Red fields are now
    occupied. From this moment on, any player who wants to change this Topic card will need the
    consent of BARTEK and ANIA. ANTEK cannot place his token on a Red field (there are no free
    places left), so he places his token on a White field."
    """
    state = _table()
    state.spots[POZNAN].topic_card = _topic_card(ECONOMY, red=2, white=2)
    state = _debate(state, POZNAN, [ANTEK, ANIA, BARTEK])  # BARTEK's token on top
    assert PlaceOnTopic(True) in _topic_moves(state, BARTEK)
    state, _ = _play(state, [(BARTEK, PlaceOnTopic(True))])
    assert PlaceOnTopic(True) in _topic_moves(state, ANIA)
    state, events = _play(state, [(ANIA, PlaceOnTopic(True))])
    # ANTEK had a single option, a White field, so the engine placed his token at once.
    spot = state.spots[POZNAN]
    assert spot.red == [ANIA, BARTEK] and spot.white == [ANTEK]
    assert [(e.seat, e.amount) for e in events if e.kind == "TOPIC_TOKEN"] == [(ANIA, 1), (ANTEK, 0)]
    # ANTEK's Authority then tries Change Topic there: BARTEK and ANIA are both asked.
    state.phase, state.field_now = RESOLUTION, WESTERN
    state.board = [Played(ANTEK, AUTHORITY, WESTERN, face_up=True)]
    state.tasks = [Task("resolve", ANTEK, index=0)]
    state, _ = _play(state, [(ANTEK, Act("change_topic", locality=POZNAN))])
    assert rules.to_act(state) == {ANIA}
    state, _ = _play(state, [(ANIA, Consent(True))])
    assert rules.to_act(state) == {BARTEK}
    card = state.spots[POZNAN].topic_card
    state, _ = _play(state, [(BARTEK, Consent(False))])
    assert state.spots[POZNAN].topic_card == card and state.spots[POZNAN].red == [ANIA, BARTEK]


def test_vote_marker_cap_example_at_the_election() -> None:
    """Rulebook, Vote and Turnout markers: "At the Election BARTEK will receive 2 Votes from this
    Vote track, because that is what his Vote marker shows, while ANTEK will receive 3, because
    his Vote marker shows a higher value than the Turnout marker ... The Turnout marker is on
    field 3, and that is exactly how many Votes ANTEK will receive." "A Vote marker may be on a
    value higher than the Turnout marker."

    The rulebook does not print ANTEK's marker, only that it is higher than 3: 5 here.
    """
    state = _table()
    state.turnout_markers[FAMILIES] = 3
    state.seats[BARTEK].votes[FAMILIES] = 2
    state.seats[ANTEK].votes[FAMILIES] = 5
    state = _election(state)
    counted = {s.seat: s for s in scores(state)}
    assert counted[BARTEK].counted[FAMILIES] == 2
    assert counted[ANTEK].counted[FAMILIES] == 3
    assert counted[ANTEK].raw == 5  # the raw Votes (a tie-break) still see the whole marker


def test_markers_stop_at_0_and_20() -> None:
    """Rulebook, Vote marker: "A marker can never move below 0 or above 20. If any effect would
    move a Vote marker below 0, it stops on field 0. If any effect would move it above 20, it
    stops on field 20." Turnout marker: "like the Vote marker, it cannot reach a value higher than
    20 or lower than 0."

    The Favourite's speech gains 1 Vote and removes 2; the Turnout change moves by 3.
    """
    def speech_on(change: int, turnout: int, antek: int, bartek: int) -> State:
        state = _table()
        state.favourite = ANTEK  # keeps the marker: the only token in a Favourite pool
        state.seats[ANTEK].pool, state.seats[ANTEK].supply = 1, state.seats[ANTEK].supply - 1
        state.turnout_markers[FAMILIES] = turnout
        state.seats[ANTEK].votes[FAMILIES], state.seats[BARTEK].votes[FAMILIES] = antek, bartek
        card = next(c for c in CONTENT.news_cards.values() if c.group == FAMILIES and c.turnout_change == change)
        state.news[BREAKING_NEWS] = card.id
        state.phase, state.debate_next = DEBATE, len(state.spots)
        flow.advance(state, Rng(b"speech"), [])
        state, _ = _play(state, [(ANTEK, Speech(BARTEK, FAMILIES, 2))])
        return state

    high = speech_on(+3, 19, MAX_MARKER, 7)
    assert high.turnout_markers[FAMILIES] == 20 and high.seats[ANTEK].votes[FAMILIES] == 20
    low = speech_on(-3, 2, 4, 1)
    assert low.turnout_markers[FAMILIES] == 0 and low.seats[BARTEK].votes[FAMILIES] == 0
    assert low.seats[ANTEK].votes[FAMILIES] == 5


def test_broadcast_example_lodz_poznan_rzeszow() -> None:
    """Rulebook, Media broadcast: "Point to 1 News card lying on a Blue field. This card is
    broadcast. Place 1 of your Support tokens on the Activity stack in each Locality in which the
    Topic card corresponding to the broadcast News card appears." Example: "BARTEK triggered a
    broadcast and indicated the Foreign Policy card as the broadcast card. As a result, BARTEK
    placed 1 of his Support tokens on the Activity stack in Łódź, Poznań and Rzeszów (these
    Localities feature the Foreign Policy Topic card)."

    BARTEK's Candidate uses Election Spot on the Media field; the Blue fields hold a Foreign
    Policy and an Economy News card, so he chooses. No Locality has Everything Matters here.
    """
    state = _table()
    plain = next(c.id for c in CONTENT.turnout_cards.values() if c.trait != "everything_matters")
    for spot in state.spots:
        spot.turnout_card = plain
        spot.turnout = [-1] * CONTENT.turnout_cards[plain].fields
    topics = [ECONOMY, INFRASTRUCTURE, FOREIGN_POLICY, SOCIAL_POLICY, FOREIGN_POLICY, CULTURE, HEALTH_CARE,
              FOREIGN_POLICY, ECONOMY, INFRASTRUCTURE]
    _lay_topics(state, topics)
    foreign, economy = "N-foreign_policy-1", "N-economy-1"
    state.news[BLUE[0]], state.news[BLUE[1]] = economy, foreign
    state.phase, state.round, state.field_now = RESOLUTION, 1, MEDIA
    state.board = [Played(BARTEK, 0, MEDIA, face_up=True)]
    state.tasks = [Task("resolve", BARTEK, index=0)]
    supply = state.seats[BARTEK].supply
    state, _ = _play(state, [(BARTEK, Act("election_spot", group=SENIORS))])
    assert _topic_free(rules.legal_moves(state, BARTEK)) == [Broadcast(economy), Broadcast(foreign)]
    state, events = _play(state, [(BARTEK, Broadcast(foreign))])
    stacks = {CONTENT.localities[i].name: s.activity for i, s in enumerate(state.spots) if s.activity}
    assert stacks == {"Łódź": [BARTEK], "Poznań": [BARTEK], "Rzeszów": [BARTEK]}
    assert state.seats[BARTEK].supply == supply - 3
    assert [e.locality for e in events if e.kind == "ACTIVITY_TOKENS"] == [LODZ, POZNAN, RZESZOW]


def _topic_free(moves: list[Any]) -> list[Any]:
    """The owed decision among a seat's legal moves (its Budget hand-overs left out)."""
    return [m for m in moves if not isinstance(m, HandBudget)]


@pytest.mark.parametrize(
    ("economy_cards", "infrastructure_cards", "bonuses"),
    [
        (3, 2, (6, 3)),  # both promises kept
        (4, 0, (6, 3)),  # "at least 3", "no more than 2"
        (2, 3, (-3, -3)),  # both broken
    ],
)
def test_programme_examples_1_and_2(economy_cards: int, infrastructure_cards: int, bonuses: tuple[int, int]) -> None:
    """Rulebook, Campaign Programme: "Example 1: Adam will fulfil the Economy card with the
    condition 3+ if, at the moment of the Election, at least 3 Economy Topic cards are on the
    Topic card fields on the board. Example 2: Adam will fulfil the Infrastructure card with the
    condition 0-2 if, at the moment of the Election, no more than 2 Infrastructure Topic cards are
    on the Topic card fields on the board." "When settling Campaign Programme cards, only the
    number of Topic cards on the board counts. Tokens held on Topic cards and News cards in the
    Media area have no bearing here."

    Adam is seat 0. Rewards are the designed +6 (3+) and +3 (0-2), the penalty −3 (CONTENT.md).
    """
    state = _table()
    others = [SOCIAL_POLICY, CULTURE, FOREIGN_POLICY, HEALTH_CARE] * 3
    topics = [ECONOMY] * economy_cards + [INFRASTRUCTURE] * infrastructure_cards
    _lay_topics(state, topics + others[: 10 - len(topics)])
    adam = state.seats[ANTEK]
    adam.programme, adam.face_up = ["economy_3plus", "infrastructure_0to2", "health_care_3plus"], ["economy_3plus"]
    # What has no bearing: Economy cards off the board, tokens on Infrastructure cards, the News.
    off_board = next(c for c in state.topic_deck if CONTENT.topic_cards[c].topic == ECONOMY)
    state.topic_deck.remove(off_board)
    state.topic_discard = [off_board]
    for spot in state.spots:
        if CONTENT.topic_cards[spot.topic_card].topic == INFRASTRUCTURE:
            spot.red = [ANIA]
            state.seats[ANIA].supply -= 1
    state.news[BLUE[0]] = "N-economy-1"
    state = _election(state)
    adam_score = scores(state)[ANTEK]
    assert adam_score.bonuses[:2] == bonuses
    assert sorted(state.seats[ANTEK].face_up) == sorted(adam.programme)  # the last card revealed


def test_final_scoring_example_from_an_election() -> None:
    """Rulebook, Example of final scoring (Votes counted per group, then "Bonus Votes from the
    Campaign Programme" and "Total"): ANTEK 7/7/5/8, bonus 3, total 30; BARTEK 4/12/5/8, bonus
    −3, total 26; ANIA 10/10/2/7, bonus 12. "The Campaign Programme results in the example ...
    were: ANTEK -3, +3, +3; BARTEK -3, -3, +3; ANIA +6, +3, +3." "The player who gained the most
    Votes Cast wins the Election."

    The rulebook prints the counted Votes only, not the Vote or Turnout markers behind them, so
    the Vote markers stand on the printed numbers and the Turnout markers cap nobody (20). The
    Programme results come from the Topic cards on the board, as the engine counts them; ANIA's
    total (41) is not legible in the printed table and follows from her row.
    """
    state = _table()
    # One Economy, Social Policy, Culture and Health Care card, three Infrastructure and three
    # Foreign Policy cards on the board.
    _lay_topics(state, [ECONOMY, INFRASTRUCTURE, INFRASTRUCTURE, INFRASTRUCTURE, SOCIAL_POLICY, CULTURE,
                        FOREIGN_POLICY, FOREIGN_POLICY, FOREIGN_POLICY, HEALTH_CARE])
    state.turnout_markers = [MAX_MARKER] * 4
    printed = {
        ANTEK: ([7, 7, 5, 8], ["economy_3plus", "culture_and_education_0to2", "social_policy_0to2"]),
        BARTEK: ([4, 12, 5, 8], ["social_policy_3plus", "infrastructure_0to2", "health_care_0to2"]),
        ANIA: ([10, 10, 2, 7], ["foreign_policy_3plus", "economy_0to2", "culture_and_education_0to2"]),
    }
    for seat, (votes, programme) in printed.items():
        player = state.seats[seat]
        player.votes, player.programme, player.face_up = list(votes), list(programme), programme[:2]
    state = _election(state)
    by_seat = {s.seat: s for s in scores(state)}
    assert by_seat[ANTEK].counted == (7, 7, 5, 8) and by_seat[ANTEK].bonuses == (-3, 3, 3)
    assert by_seat[BARTEK].counted == (4, 12, 5, 8) and by_seat[BARTEK].bonuses == (-3, -3, 3)
    assert by_seat[ANIA].counted == (10, 10, 2, 7) and by_seat[ANIA].bonuses == (6, 3, 3)
    assert [sum(by_seat[s].bonuses) for s in (ANTEK, BARTEK, ANIA)] == [3, -3, 12]
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert [(p.seat, p.rank, p.score) for p in outcome.placings] == [(ANIA, 1, 41), (ANTEK, 2, 30), (BARTEK, 3, 26)]


def test_communication_buying_a_push_off_a_white_field() -> None:
    """Rulebook, Communication, a subject of an exchange: "Pushing a player's Support token off a
    White field on a Topic card, to give them a Vote." "Any agreements that can be carried out
    immediately are binding". With a White field still free, only the token on the lowest field
    can be pushed off, so only its owner can buy the push (the speech example with its 5 Budget
    points is played in test_spin_doctors_deals.py).
    """
    state = _table()
    spot = state.spots[WARSZAWA]
    spot.topic_card = _topic_card(ECONOMY, red=1, white=3)
    group = CONTENT.turnout_cards[spot.turnout_card].group
    state = _debate(state, WARSZAWA, [ANIA, ANTEK, BARTEK])  # BARTEK's token on top
    state, _ = _play(state, [(BARTEK, PlaceOnTopic(False)), (ANTEK, PlaceOnTopic(False))])
    assert state.spots[WARSZAWA].white == [ANTEK, BARTEK] and rules.to_act(state) == {ANIA}
    push_antek, push_bartek = Term("PUSH_OFF", seat=ANTEK), Term("PUSH_OFF", seat=BARTEK)
    assert OfferDeal(ANIA, 1, push_antek) in rules.legal_moves(state, ANTEK)
    assert not any(isinstance(m, OfferDeal) and m.term == push_bartek for m in rules.legal_moves(state, BARTEK))
    state, _ = _play(state, [(ANTEK, OfferDeal(ANIA, 1, push_antek)), (ANIA, PlaceOnTopic(False, 0))])
    assert state.spots[WARSZAWA].white == [ANIA, BARTEK]
    assert state.seats[ANTEK].votes[group] == 1
    assert [p.budget for p in state.seats] == [14, 16, 15]


# --- issue item 5: the starting Favourite ---------------------------------------------------------


def test_the_starting_favourite_is_drawn_from_the_seed_and_opens_the_reveal() -> None:
    """Rulebook, Before we begin: "Going clockwise, starting from the player holding the Favourite
    marker, each player turns face up (front side up) one card from their Campaign Programme."
    Example first round: "(BARTEK received the Favourite marker)". The Setup does not say who
    receives it: hustings draws it from the game's seed (designed, CONTENT.md), for every seat
    alike, and shows it to everybody.
    """
    drawn = [rules.setup(SpinDoctorsOptions(3), Rng(bytes([n]))).favourite for n in range(30)]
    assert set(drawn) == {0, 1, 2}
    assert drawn == [rules.setup(SpinDoctorsOptions(3), Rng(bytes([n]))).favourite for n in range(30)]
    for n in range(3):
        state = rules.setup(SpinDoctorsOptions(3), Rng(bytes([n])))
        for seat in range(3):
            state, _ = _play(state, [(seat, rules.STAFFS[0])] + [
                (seat, ChooseProgramme(c)) for c in ("economy_3plus", "infrastructure_0to2", "health_care_3plus")
            ])
        assert rules.to_act(state) == {state.favourite} == {drawn[n]}
        assert all(GAME.view(state, seat).favourite == drawn[n] for seat in (0, 1, 2, None))
