"""Every Staffer Action from a set-up scene: its effect, its cost, and its refusal when it cannot be
paid or is not usable on that field. Plus the rulebook's "Example first round" replayed.

Seats follow the examples' clockwise order: ANTEK 0, ANIA 1, BARTEK 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import pytest

from hustings.engine import EngineError, Rng
from hustings.engine.errors import NotYourTurnError
from hustings.engine.spin_doctors import rules
from hustings.engine.spin_doctors.content import CONTENT
from hustings.engine.spin_doctors.model import (
    BLUE,
    RESOLUTION,
    Act,
    AnswerBlackmail,
    ArrangeNews,
    ChooseProgramme,
    Decline,
    HandBudget,
    PlaceOnTopic,
    PlaceSupport,
    Played,
    PlayStaffer,
    RevealProgramme,
    SpinDoctorsOptions,
    State,
    Task,
)

ANTEK, ANIA, BARTEK = 0, 1, 2
YOUNG, FAMILIES, SENIORS, IRON = 0, 1, 2, 3
MEDIA, CENTRAL, WESTERN = 1, 3, 4
LODZ, WARSZAWA, POZNAN = 2, 3, 4
COLUMN_DIRTY = "T07"  # Seniors, Down with Dirty Politics, a single column of four fields
COLUMN_PRICES = "T02"  # Families, Prices Go Up
COLUMN_EVERYTHING = "T12"  # Iron Electorate, Everything Matters


def _scene(staffer: int, field: int, budget: int = 15) -> State:
    """ANTEK's ``staffer`` face up on ``field``, about to be resolved; ANIA's Authority and
    BARTEK's Provocateur stand unresolved on the same field."""
    state = rules.setup(SpinDoctorsOptions(3), Rng(b"scene"))
    for player in state.seats:
        player.staff = [0, 1, 2, 3, 4, 5, 12]
        player.programme = ["economy_3plus", "health_care_0to2", "foreign_policy_0to2"]
        player.face_up = ["economy_3plus"]
    state.seats[ANTEK].staff = sorted({0, 1, 4, 5, 7, 12, staffer})[:7]
    for spot in state.spots:
        spot.turnout_card, spot.turnout = COLUMN_DIRTY, [-1] * 4
    state.seats[ANTEK].budget = budget
    state.phase, state.round, state.field_now = RESOLUTION, 1, field
    state.board = [Played(ANTEK, staffer, field, True), Played(ANIA, 2, field, True), Played(BARTEK, 3, field, True)]
    state.news[BLUE[0]] = next(c.id for c in CONTENT.news_cards.values() if not c.is_scandal and c.topic == 0)
    state.tasks = [Task("resolve", ANTEK, index=0)]
    return state


def _topic(state: State, locality: int, red: int, white: int) -> None:
    state.spots[locality].topic_card = next(
        c.id for c in CONTENT.topic_cards.values() if c.red_fields == red and c.white_fields == white
    )


def _tokens(state: State, seat: int, locality: int, turnout: int = 0, red: int = 0, white: int = 0) -> None:
    spot = state.spots[locality]
    for i in range(turnout):
        spot.turnout[spot.turnout.index(-1)] = seat
    spot.red += [seat] * red
    spot.white += [seat] * white
    state.seats[seat].supply -= turnout + red + white


@dataclass
class Case:
    """One Action: who uses it where, a prepared scene, the move, the follow-ups, the check."""

    staffer: int
    field: int
    act: Act
    cost: int
    check: Callable[[State], bool]
    prepare: Callable[[State], None] = lambda s: None
    then: tuple[tuple[int, Any], ...] = ()
    wrong_field: int | None = None


def _votes(seat: int, group: int) -> Callable[[State], int]:
    return lambda s: s.seats[seat].votes[group]


CASES: dict[str, Case] = {
    "rally_of_support": Case(0, WESTERN, Act("rally_of_support", locality=POZNAN), 0,
                             lambda s: s.spots[POZNAN].turnout[0] == ANTEK and s.spots[POZNAN].activity == [ANTEK], wrong_field=MEDIA),
    "election_spot": Case(0, MEDIA, Act("election_spot", group=YOUNG), 0,
                          lambda s: s.seats[ANTEK].votes[YOUNG] == 1 and sum(len(x.activity) for x in s.spots) > 0, wrong_field=WESTERN),
    "substitute": Case(0, CENTRAL, Act("substitute", staffer=12), 3,
                       lambda s: any(p.staffer == 12 and p.seat == ANTEK and p.field == CENTRAL for p in s.board)),
    "media_influence": Case(8, MEDIA, Act("media_influence"), 2,
                            lambda s: s.news_known[0] == [ANTEK] and len(s.news_discard) == 1,
                            then=((ANTEK, "first_arrangement"),), wrong_field=CENTRAL),
    "undermine_credibility": Case(2, CENTRAL, Act("undermine_credibility", seat=BARTEK, staffer=3), 2,
                                  lambda s: s.board[2].blocked),
    "coordinate_actions": Case(4, CENTRAL, Act("coordinate_actions"), 3, lambda s: [ANTEK, CENTRAL] in s.coordinated, wrong_field=MEDIA),
    "family_statement": Case(10, CENTRAL, Act("family_statement", locality=LODZ, second=WARSZAWA), 2,
                             lambda s: s.spots[LODZ].red == [ANTEK] and s.spots[WARSZAWA].white == [ANTEK], wrong_field=MEDIA),
    "change_topic": Case(2, CENTRAL, Act("change_topic", locality=LODZ), 2,
                         lambda s: s.spots[LODZ].topic_card != "economy_1" and s.topic_discard == ["economy_1"],
                         prepare=lambda s: setattr(s.spots[LODZ], "topic_card", "economy_1"), wrong_field=MEDIA),
    "change_news": Case(2, MEDIA, Act("change_news", card="N-economy-1"), 2,
                        lambda s: s.news_discard == ["N-economy-1"] and s.news[BLUE[0]] != "",
                        prepare=lambda s: s.news.__setitem__(BLUE[0], "N-economy-1"), wrong_field=CENTRAL),
    "protest": Case(3, CENTRAL, Act("protest", locality=LODZ, seat=ANIA), 1,
                    lambda s: s.spots[LODZ].white == [BARTEK] and s.seats[ANIA].supply == 30,
                    prepare=lambda s: (_tokens(s, ANIA, LODZ, white=1), _tokens(s, BARTEK, LODZ, white=1)) and None, wrong_field=MEDIA),
    "blackmail": Case(3, CENTRAL, Act("blackmail", seat=ANIA, staffer=2), 1,
                      lambda s: s.seats[ANIA].budget == 13 and s.seats[ANTEK].budget == 14 + 2, then=((ANIA, AnswerBlackmail(True)),)),
    "triggering_a_scandal": Case(7, MEDIA, Act("triggering_a_scandal", seat=ANIA), 3,
                                 lambda s: s.news[BLUE[0]] == "S-blue" or "S-blue" not in s.news_deck, wrong_field=CENTRAL,
                                 prepare=lambda s: s.news_deck.__setitem__(slice(None), [c for c in s.news_deck + [x for x in s.news[:3] if x] if True]) or s.news.__setitem__(slice(0, 3), ["", "", ""])),
    "report": Case(7, MEDIA, Act("report"), 1, lambda s: sum(len(x.activity) for x in s.spots) > 0, wrong_field=CENTRAL),
    "fundraising": Case(9, CENTRAL, Act("fundraising", locality=LODZ), 0,
                        lambda s: s.seats[ANTEK].budget == 15 + CONTENT.turnout_cards[COLUMN_DIRTY].funding, wrong_field=MEDIA),
    "mobilisation": Case(11, MEDIA, Act("mobilisation", group=YOUNG, step=1), 2, lambda s: s.turnout_markers[YOUNG] == 8,
                         prepare=lambda s: s.turnout_markers.__setitem__(YOUNG, 7), wrong_field=CENTRAL),
    "realignment": Case(11, MEDIA, Act("realignment", group=YOUNG, second=IRON), 3,
                        lambda s: s.seats[ANTEK].votes[YOUNG] == 0 and s.seats[ANTEK].votes[IRON] == 4,
                        prepare=lambda s: s.seats[ANTEK].votes.__setitem__(YOUNG, 4), wrong_field=CENTRAL),
    "endorsement": Case(6, MEDIA, Act("endorsement", group=FAMILIES), 2, lambda s: s.seats[ANTEK].votes[FAMILIES] == 2, wrong_field=CENTRAL),
    "meet_and_greet": Case(6, CENTRAL, Act("meet_and_greet", locality=WARSZAWA), 2,
                           lambda s: s.spots[WARSZAWA].activity == [ANTEK, ANTEK], wrong_field=MEDIA),
    "smear": Case(5, CENTRAL, Act("smear", locality=LODZ, seat=ANIA), 2,
                  lambda s: s.spots[LODZ].turnout[:2] == [BARTEK, ANTEK] and s.seats[ANIA].supply == 30,
                  prepare=lambda s: (_tokens(s, BARTEK, LODZ, turnout=1), _tokens(s, ANIA, LODZ, turnout=1)) and None, wrong_field=MEDIA),
    "take_over_topic": Case(5, CENTRAL, Act("take_over_topic", locality=LODZ, seat=ANIA), 2,
                            lambda s: s.spots[LODZ].red == [ANTEK] and s.spots[LODZ].white == [ANIA] and s.seats[ANIA].supply == 29,
                            prepare=lambda s: _tokens(s, ANIA, LODZ, red=1, white=1), wrong_field=MEDIA),
    "steal_votes": Case(5, MEDIA, Act("steal_votes", seat=ANIA, group=SENIORS), 2,
                        lambda s: s.seats[ANIA].votes[SENIORS] == 2 and s.seats[ANTEK].votes[SENIORS] == 1,
                        prepare=lambda s: s.seats[ANIA].votes.__setitem__(SENIORS, 3), wrong_field=CENTRAL),
    "vote_swap": Case(5, MEDIA, Act("vote_swap", seat=ANIA, group=SENIORS), 3,
                      lambda s: s.seats[ANIA].votes[SENIORS] == 0 and s.seats[ANTEK].votes[SENIORS] == 6,
                      prepare=lambda s: s.seats[ANIA].votes.__setitem__(SENIORS, 6), wrong_field=CENTRAL),
    "local_campaign": Case(4, CENTRAL, Act("local_campaign", locality=WARSZAWA), 1,
                           lambda s: s.spots[WARSZAWA].turnout[0] == ANTEK and not s.spots[WARSZAWA].activity, wrong_field=MEDIA),
    "take_the_lead": Case(1, CENTRAL, Act("take_the_lead", staffer=7), 2,
                          lambda s: s.board[3].field == CENTRAL, prepare=lambda s: s.board.append(Played(ANTEK, 7, 6, True))),
    "protection": Case(2, CENTRAL, Act("protection"), 3, lambda s: [ANTEK, CENTRAL] in s.protected),
    "imitation": Case(12, CENTRAL, Act("imitation", seat=BARTEK, staffer=3), 2,
                      lambda s: s.spots[LODZ].white == [] and s.seats[ANTEK].budget == 13,
                      prepare=lambda s: _tokens(s, ANIA, LODZ, white=1),
                      then=((ANTEK, Act("protest", locality=LODZ, seat=ANIA)),)),
}


def test_every_action_has_a_case() -> None:
    assert set(CASES) == set(CONTENT.actions)


def _run(state: State, case: Case) -> State:
    state, _ = rules.apply(state, ANTEK, case.act, Rng(b"act"))
    for seat, move in case.then:
        if move == "first_arrangement":
            move = rules.legal_moves(state, seat)[0]
        state, _ = rules.apply(state, seat, move, Rng(b"act"))
    return state


@pytest.mark.parametrize("action", sorted(CASES))
def test_action_effect_and_cost(action: str) -> None:
    case = CASES[action]
    state = _scene(case.staffer, case.field)
    case.prepare(state)
    assert case.act in rules.legal_moves(state, ANTEK)
    after = _run(state, case)
    assert case.check(after), action
    paid = 15 - after.seats[ANTEK].budget
    if action not in ("fundraising", "blackmail"):
        assert paid == case.cost
    assert not after.board[0].resolved or after.board[0].staffer == case.staffer


@pytest.mark.parametrize("action", sorted(CASES))
def test_action_refused_when_unaffordable_or_on_the_wrong_field(action: str) -> None:
    case = CASES[action]
    if case.cost:
        state = _scene(case.staffer, case.field, budget=case.cost - 1)
    else:  # a free Action costs 1 in a Locality with Prices Go Up
        state = _scene(case.staffer, case.field, budget=0)
        for spot in state.spots:
            spot.turnout_card = COLUMN_PRICES
    case.prepare(state)
    if case.cost or case.act.locality >= 0:  # Election Spot is free everywhere
        assert case.act not in rules.legal_moves(state, ANTEK)
        with pytest.raises(EngineError):
            rules.apply(state, ANTEK, case.act, Rng(b"act"))
    if case.wrong_field is not None:
        state = _scene(case.staffer, case.wrong_field)
        case.prepare(state)
        assert all(not (isinstance(m, Act) and m.action == action) for m in rules.legal_moves(state, ANTEK))


def test_voter_traits() -> None:
    # Down with Dirty Politics: a red Action in the Locality costs a Vote in its group.
    state = _scene(10, CENTRAL)
    state.seats[ANTEK].votes[SENIORS] = 2
    after, _ = rules.apply(state, ANTEK, Act("family_statement", locality=LODZ, second=WARSZAWA), Rng(b"t"))
    assert after.seats[ANTEK].votes[SENIORS] == 0  # once for each named Locality with the trait
    # Everything Matters: one more token on the Activity stack.
    state = _scene(4, CENTRAL)
    state.spots[WARSZAWA].turnout_card = COLUMN_EVERYTHING
    after, _ = rules.apply(state, ANTEK, Act("local_campaign", locality=WARSZAWA), Rng(b"t"))
    assert after.spots[WARSZAWA].activity == [ANTEK]
    # Prices Go Up: one more Budget point.
    state = _scene(4, CENTRAL)
    state.spots[WARSZAWA].turnout_card = COLUMN_PRICES
    after, _ = rules.apply(state, ANTEK, Act("local_campaign", locality=WARSZAWA), Rng(b"t"))
    assert after.seats[ANTEK].budget == 13


def test_blackmail_refused_blocks_the_staffer() -> None:
    state = _scene(3, CENTRAL)
    state, _ = rules.apply(state, ANTEK, Act("blackmail", seat=ANIA, staffer=2), Rng(b"b"))
    state, events = rules.apply(state, ANIA, AnswerBlackmail(False), Rng(b"b"))
    forgone = [e.payload for e in events if e.payload.kind == "STAFFER_FORGOES"]
    assert [(h.seat, h.staffer) for h in forgone] == [(ANIA, 2)]
    assert state.seats[ANIA].budget == 15


# --- the rulebook's "Example first round" -------------------------------------------------------


def _first_round_table() -> State:
    state = rules.setup(SpinDoctorsOptions(3), Rng(b"example first round"))
    state.favourite = BARTEK
    plain = [c for c in sorted(CONTENT.topic_cards) if not c.startswith("infrastructure")]
    cards = [plain.pop(0) for _ in range(10)]
    cards[LODZ] = "economy_3"  # two Red fields (Family Statement's token and the Debate's fill them)
    cards[WARSZAWA], cards[POZNAN] = "infrastructure_1", "infrastructure_3"  # 1 and 2 Red fields
    for spot, card in zip(state.spots, cards):
        spot.topic_card = card
    state.topic_deck = [c for c in sorted(CONTENT.topic_cards) if c not in cards]
    for locality, turnout in ((LODZ, "T01"), (WARSZAWA, "T07"), (POZNAN, "T04")):  # Down with Dirty Politics
        state.spots[locality].turnout_card = turnout
        state.spots[locality].turnout = [-1] * CONTENT.turnout_cards[turnout].fields
    state.turnout_markers = rules.turnout_marker_start([s.turnout_card for s in state.spots])
    news = [c for c in sorted(CONTENT.news_cards) if not c.startswith("N-infrastructure") and not c.startswith("S-")]
    state.news[:3] = [news[0], news[1], "N-infrastructure-1"]
    state.news_deck = news[2:]
    return state


def _bartek_pays_ania(state: State, rng: Rng) -> State:
    """The printed deal: while ANIA is to resolve her Authority, BARTEK hands her 5 Budget points
    for blocking ANTEK's Provocateur. BARTEK owes no decision; the turn stays with ANIA."""
    assert rules.to_act(state) == {ANIA} and state.tasks[0].kind == "resolve"
    assert state.board[state.tasks[0].index].staffer == 2  # her Authority
    assert HandBudget(ANIA, 5) in rules.legal_moves(state, BARTEK)
    state, events = rules.apply(state, BARTEK, HandBudget(ANIA, 5), rng)
    assert [(e.payload.kind, e.payload.seat, e.payload.other, e.payload.amount) for e in events] == [
        ("BUDGET_HANDED", BARTEK, ANIA, 5)
    ]
    assert [p.budget for p in state.seats] == [15, 18, 7]
    assert rules.to_act(state) == {ANIA} and state.tasks[0].kind == "resolve"
    return state


def test_example_first_round() -> None:
    """The rulebook's example round with its numbers. Its narration lists the planning field by
    field (BARTEK, ANIA, BARTEK, ANTEK, ...), which the printed turn rule (clockwise from the
    Favourite: BARTEK, ANTEK, ANIA) does not allow; the Staffers are played here in turn order,
    and the printed order is refused at its second Staffer (CONTENT.md, "The example first round")."""
    state = _first_round_table()
    rng = Rng(b"example")
    opening: list[tuple[int, Any]] = [
        (BARTEK, rules.STAFFS[1]), (ANTEK, rules.STAFFS[0]), (ANIA, rules.STAFFS[4]),  # ready-made Staffs 2, 1 and 5
        (BARTEK, ChooseProgramme("social_policy_3plus")), (BARTEK, ChooseProgramme("economy_0to2")), (BARTEK, ChooseProgramme("health_care_0to2")),
        (ANTEK, ChooseProgramme("culture_and_education_0to2")), (ANTEK, ChooseProgramme("economy_3plus")), (ANTEK, ChooseProgramme("foreign_policy_0to2")),
        (ANIA, ChooseProgramme("social_policy_3plus")), (ANIA, ChooseProgramme("infrastructure_3plus")), (ANIA, ChooseProgramme("economy_0to2")),
        (BARTEK, RevealProgramme("social_policy_3plus")), (ANTEK, RevealProgramme("culture_and_education_0to2")),
        (ANIA, RevealProgramme("social_policy_3plus")),
    ]
    planning: list[tuple[int, Any]] = [
        (BARTEK, PlayStaffer(0, CENTRAL)), (ANTEK, PlayStaffer(0, WESTERN)), (ANIA, PlayStaffer(0, MEDIA)),
        (BARTEK, PlayStaffer(4, CENTRAL)), (ANTEK, PlayStaffer(12, WESTERN)), (ANIA, PlayStaffer(8, MEDIA)),
        (BARTEK, PlayStaffer(10, CENTRAL)), (ANTEK, PlayStaffer(3, CENTRAL)), (ANIA, PlayStaffer(2, CENTRAL)),
    ]
    for seat, move in opening:
        state, _ = rules.apply(state, seat, move, rng)
    # As narrated: BARTEK's Candidate, then ANIA's while ANTEK's turn is owed.
    aside = Rng(b"narrated")  # the example's own draws stay as they were
    narrated, _ = rules.apply(state, BARTEK, planning[0][1], aside)
    assert rules.to_act(narrated) == {ANTEK}
    with pytest.raises(NotYourTurnError):
        rules.apply(narrated, ANIA, PlayStaffer(0, MEDIA), aside)
    for seat, move in planning:
        assert move in rules.legal_moves(state, seat), move
        state, _ = rules.apply(state, seat, move, rng)
    assert state.news[BLUE[0]] == "N-infrastructure-1" and state.phase == RESOLUTION
    resolution: list[tuple[int, Any]] = [
        (ANIA, Act("election_spot", group=SENIORS)),  # free; the broadcast on Infrastructure follows
        (ANIA, Act("media_influence")),
        (ANIA, "arrange"),
        (BARTEK, Act("substitute", staffer=12)),
        (ANIA, "deal"),  # before resolving her Authority, ANIA is paid by BARTEK, who owes nothing
        (ANIA, Act("undermine_credibility", seat=ANTEK, staffer=3)),
        (BARTEK, Act("coordinate_actions")),
        (BARTEK, Act("family_statement", locality=LODZ, second=WARSZAWA)),
        (BARTEK, Act("rally_of_support")),  # both Localities, thanks to Coordinate Actions
        (BARTEK, PlaceSupport((0,))),
        (ANTEK, Act("rally_of_support", locality=POZNAN)),
        (ANTEK, PlaceSupport((0,))),
        (ANTEK, Decline()),  # ANTEK's Youth Wing: the example does not use it
    ]
    for seat, move in resolution:
        assert rules.to_act(state) == {seat}, move
        if move == "deal":
            assert [p.budget for p in state.seats] == [15, 13, 12]  # ANIA paid 2, BARTEK 3
            state = _bartek_pays_ania(state, rng)
            continue
        if move == "arrange":
            move = ArrangeNews(tuple(state.tasks[0].cards[:3]))
        state, _ = rules.apply(state, seat, move, rng)
    assert [p.budget for p in state.seats] == [15, 16, 2]
    assert state.phase == "DEBATE"
    assert state.spots[WARSZAWA].activity == [ANIA, BARTEK] and state.spots[POZNAN].activity == [ANIA, ANTEK]
    debate: list[tuple[int, Any]] = [
        (BARTEK, PlaceOnTopic(True)),  # Łódź: blocks the Topic card
        (BARTEK, PlaceOnTopic(False, 0)),  # Warszawa: pushes his own White token off, +1 Seniors
        (ANIA, PlaceOnTopic(True)),
        (ANTEK, PlaceOnTopic(True)),  # Poznań
        (ANIA, PlaceOnTopic(True)),  # ...pushing ANTEK's token up: both Red fields held
    ]
    for seat, move in debate:
        assert rules.to_act(state) == {seat}, move
        state, _ = rules.apply(state, seat, move, rng)
    assert state.favourite == ANTEK  # nobody had Favourite pool tokens: first after BARTEK
    assert state.round == 2 and state.phase == "PLANNING" and rules.to_act(state) == {ANTEK}
    assert state.spots[LODZ].red == [BARTEK, BARTEK]
    assert state.spots[WARSZAWA].red == [ANIA] and state.spots[WARSZAWA].white == [BARTEK]
    assert state.spots[POZNAN].red == [ANIA, ANTEK]
    assert [p.votes for p in state.seats] == [[0, 0, 0, 0], [0, 0, 1, 0], [0, 0, 1, 0]]
    assert state.spots[LODZ].turnout.count(BARTEK) == 1 and state.spots[WARSZAWA].turnout.count(BARTEK) == 1
    assert state.spots[POZNAN].turnout.count(ANTEK) == 1
    assert state.turnout_markers == rules.turnout_marker_start([s.turnout_card for s in state.spots])  # no Breaking News yet
    assert sum(state.turnout_markers) == 31
