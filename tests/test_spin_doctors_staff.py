"""The Spin Doctors' Staff is chosen whole, in one secret move: every Staff (924) is listed, the
five ready-made Staffs first; a Staff of the wrong shape is refused and changes nothing; and
what the rulebook's descriptions of the ready-made Staffs promise, the Staffers' Actions do.
What the table receives through the service is in test_spin_doctors_staff_service.py."""

from __future__ import annotations

from typing import Callable

import pytest

from hustings.engine import EngineError, Rng
from hustings.engine.spin_doctors import GAME
from hustings.engine.spin_doctors.content import CONTENT
from hustings.engine.spin_doctors.model import (
    CANDIDATE,
    RESOLUTION,
    STAFFERS,
    Act,
    ChooseProgramme,
    ChooseStaff,
    Played,
    SpinDoctorsOptions,
    State,
    Task,
)
from hustings.engine.spin_doctors.rules import STAFFS
from hustings.v1 import game_pb2


def test_every_staff_is_listed_once_the_ready_made_ones_first() -> None:
    state = GAME.setup(SpinDoctorsOptions(3), Rng(b"staffs"))
    listed = [m for m in GAME.legal_moves(state, 0) if isinstance(m, ChooseStaff)]
    assert listed == list(STAFFS) and len(set(listed)) == 924
    assert [m.staffers for m in listed[:5]] == [tuple(sorted(s)) for s in CONTENT.ready_made_staffs]
    for move in listed:
        assert len(set(move.staffers)) == 6 and set(move.staffers) <= set(STAFFERS)
        assert list(move.staffers) == sorted(move.staffers)


def test_a_staff_is_taken_whole_and_only_its_owner_sees_it() -> None:
    state = GAME.setup(SpinDoctorsOptions(3), Rng(b"whole"))
    staff = STAFFS[1]
    after, events = GAME.apply(state, 0, staff, Rng(b"whole", 1))
    assert after.seats[0].staff == [CANDIDATE, *staff.staffers]
    assert all(isinstance(m, ChooseProgramme) for m in GAME.legal_moves(after, 0) if m.__class__.__name__ != "HandBudget")
    assert [(e.public, e.payload.kind, e.payload.seat, e.payload.staffer) for e in events] == [(True, "STAFFER_CHOSEN", 0, -1)]
    for viewer in (1, 2, None):
        player = GAME.view(after, viewer).players[0]
        assert (player.staff, player.staff_count) == ((), 7)
    assert GAME.view(after, 0).players[0].staff == (CANDIDATE, *staff.staffers)


@pytest.mark.parametrize(
    ("staffers", "reason"),
    [
        ((3, 5, 6, 9, 10), "BAD_STAFF"),  # five
        ((3, 5, 6, 9, 10, 12, 1), "BAD_STAFF"),  # seven
        ((3, 3, 6, 9, 10, 12), "BAD_STAFF"),  # twice the same
        ((0, 5, 6, 9, 10, 12), "BAD_STAFF"),  # the Candidate is always in the Staff
        ((3, 5, 6, 9, 10, 13), "BAD_STAFF"),  # no Staffer 13
        ((12, 10, 9, 6, 5, 3), "BAD_STAFF"),  # the engine's value is ascending (the codec sorts)
    ],
)
def test_a_bad_staff_is_refused_and_changes_nothing(staffers: tuple[int, ...], reason: str) -> None:
    state = GAME.setup(SpinDoctorsOptions(3), Rng(b"bad"))
    before = GAME.dump_state(state)
    with pytest.raises(EngineError) as error:
        GAME.apply(state, 0, ChooseStaff(staffers), Rng(b"bad", 1))
    assert error.value.reason == reason
    assert GAME.dump_state(state) == before


def test_a_second_staff_is_refused() -> None:
    state, _ = GAME.apply(GAME.setup(SpinDoctorsOptions(3), Rng(b"twice")), 0, STAFFS[0], Rng(b"twice", 1))
    with pytest.raises(EngineError) as error:
        GAME.apply(state, 0, STAFFS[1], Rng(b"twice", 2))
    assert error.value.reason == "ILLEGAL_MOVE"


def test_the_staffers_of_a_staff_may_come_in_any_order() -> None:
    message = game_pb2.Move()
    message.spin_doctors.choose_staff.staffers.extend([12, 3, 10, 5, 9, 6])
    assert GAME.move_from_proto(message) == ChooseStaff((3, 5, 6, 9, 10, 12))


# --- the ready-made Staffs' printed descriptions ------------------------------------------------
# Each description that names a combination or an effect, checked against the designed Actions.

ANTEK, ANIA, BARTEK = 0, 1, 2
CENTRAL, LODZ, WARSZAWA = 3, 2, 3
LOCAL_STRUCTURES, DIRTY_CAMPAIGN, CELEBRITY, PRESS_SPOKESPERSON, FAMILY, YOUTH_WING = 4, 5, 6, 8, 10, 12
NEUTRAL = "T07"  # Down with Dirty Politics: costs a Vote only to a player who has one there


def _coordinated(staffer: int, prepare: Callable[[State], None] = lambda s: None) -> State:
    """ANTEK's Local Structures has used Coordinate Actions on the Central Region (through the
    engine); his ``staffer``, later in Staffer order on the same field, is to be resolved next
    (on a table ``prepare`` changed first)."""
    state = GAME.setup(SpinDoctorsOptions(3), Rng(b"ready-made"))
    for player in state.seats:
        player.staff = [0, 2, 3, 4, 5, 6, 8]
        player.programme = ["economy_3plus", "health_care_0to2", "foreign_policy_0to2"]
        player.face_up = ["economy_3plus"]
    for spot in state.spots:
        spot.turnout_card, spot.turnout = NEUTRAL, [-1] * CONTENT.turnout_cards[NEUTRAL].fields
    for locality in (LODZ, WARSZAWA):
        state.spots[locality].topic_card = "economy_3"  # two Red fields, two White fields
    state.topic_deck = [c for c in state.topic_deck if c != "economy_3"]
    state.phase, state.round, state.field_now = RESOLUTION, 1, CENTRAL
    state.board = [Played(ANTEK, LOCAL_STRUCTURES, CENTRAL, True), Played(ANTEK, staffer, CENTRAL, True)]
    state.tasks = [Task("resolve", ANTEK, index=0)]
    prepare(state)
    state, _ = GAME.apply(state, ANTEK, Act("coordinate_actions"), Rng(b"coordinate"))
    assert [ANTEK, CENTRAL] in state.coordinated and state.tasks[0] == Task("resolve", ANTEK, index=1)
    assert state.seats[ANTEK].budget == 15 - 3
    return state


def _both(state: State) -> list[Act]:
    """The listed Actions carried out in both Localities of the Region at once."""
    return [m for m in GAME.legal_moves(state, ANTEK) if isinstance(m, Act) and m.locality == -1
            and CONTENT.actions[m.action].target in ("locality", "two_localities", "locality_seat")]


def test_staff_2_local_structures_with_the_press_spokesperson_changes_both_topic_cards() -> None:
    """Staff 3 4 5 8 10 12: "Combining Local Structures with the Press Spokesperson and the
    Candidate's Family will let you quickly take over and change Topic cards on the board."
    The Press Spokesperson's Change Topic, coordinated, changes both Topic cards of the Region."""
    state = _coordinated(PRESS_SPOKESPERSON)
    assert Act("change_topic") in _both(state)
    deck = list(state.topic_deck[:2])
    after, events = GAME.apply(state, ANTEK, Act("change_topic"), Rng(b"change"))
    assert [after.spots[LODZ].topic_card, after.spots[WARSZAWA].topic_card] == deck
    assert after.topic_discard == ["economy_3", "economy_3"]
    assert after.seats[ANTEK].budget == 12 - 2  # the Special cost, paid once
    assert [e.payload.locality for e in events if e.payload.kind == "TOPIC_CHANGED"] == [LODZ, WARSZAWA]


def test_staff_2_coordinated_change_topic_is_not_offered_over_another_players_red_fields() -> None:
    """The holders of a full set of Red fields must consent to a change; the one-Locality form
    still asks them, the form for both Localities is not offered."""
    state = _coordinated(PRESS_SPOKESPERSON)
    state.spots[LODZ].red = [ANIA, ANIA]
    state.seats[ANIA].supply -= 2
    listed = GAME.legal_moves(state, ANTEK)
    assert Act("change_topic") not in listed
    assert Act("change_topic", locality=LODZ) in listed and Act("change_topic", locality=WARSZAWA) in listed
    # Red fields held by the acting player himself block nothing.
    state.spots[LODZ].red = [ANTEK, ANTEK]
    assert Act("change_topic") in GAME.legal_moves(state, ANTEK)


def test_staff_2_and_3_the_candidates_family_takes_over_both_topic_cards() -> None:
    """Staff 3 4 5 8 10 12 (as above) and Staff 4 5 6 10 11 12: "The Dirty Campaign and the
    Candidate's Family make it easier to take over Topic cards". Coordinated, the Family
    Statement puts a token on a Red field of the Topic card in both Localities (and its White
    token in one of them, chosen)."""
    state = _coordinated(FAMILY)
    both = [m for m in _both(state) if m.action == "family_statement"]
    assert both == [Act("family_statement", second=LODZ), Act("family_statement", second=WARSZAWA)]  # the White field's
    after, _ = GAME.apply(state, ANTEK, Act("family_statement", second=WARSZAWA), Rng(b"family"))
    assert (after.spots[LODZ].red, after.spots[LODZ].white) == ([ANTEK], [])
    assert (after.spots[WARSZAWA].red, after.spots[WARSZAWA].white) == ([ANTEK], [ANTEK])
    assert after.seats[ANTEK].supply == CONTENT.support_tokens - 3
    assert after.seats[ANTEK].budget == 12 - 2


def _red_fields_held(state: State) -> None:
    """ANIA and BARTEK hold the Red fields of both Central Topic cards."""
    for locality in (LODZ, WARSZAWA):
        state.spots[locality].red = [ANIA, BARTEK]
    state.seats[ANIA].supply -= 2
    state.seats[BARTEK].supply -= 2


def _tokens_of_ania(state: State) -> None:
    """ANIA has a token on the Turnout card and on a White field in both Central Localities."""
    for locality in (LODZ, WARSZAWA):
        state.spots[locality].turnout[0] = ANIA
        state.spots[locality].white = [ANIA]
    state.seats[ANIA].supply -= 4


def test_staff_3_the_dirty_campaign_takes_over_a_topic_card() -> None:
    """Staff 4 5 6 10 11 12: "The Dirty Campaign and the Candidate's Family make it easier to take
    over Topic cards". Take Over the Topic puts the Dirty Campaign's token on the Red field another
    player held (so a change of the card now needs this player's consent, not theirs), in both
    Localities under Coordinate Actions."""
    state = _coordinated(DIRTY_CAMPAIGN, _red_fields_held)
    assert Act("take_over_topic", seat=ANIA) in _both(state)
    after, _ = GAME.apply(state, ANTEK, Act("take_over_topic", seat=ANIA), Rng(b"take over"))
    assert after.spots[LODZ].red == [ANTEK, BARTEK] and after.spots[WARSZAWA].red == [ANTEK, BARTEK]
    assert after.seats[ANIA].supply == CONTENT.support_tokens and after.seats[ANIA].votes == [0, 0, 0, 0]
    assert after.seats[ANTEK].budget == 12 - 2


@pytest.mark.parametrize("staffer", [DIRTY_CAMPAIGN, CELEBRITY, FAMILY, YOUTH_WING])
def test_staff_3_staffers_of_higher_order_than_local_structures_combine_with_it(staffer: int) -> None:
    """Staff 4 5 6 10 11 12: "A large number of cards with an Order of Action higher than Local
    Structures allows many potential combinations." Every one of them that acts in a Region
    (the Socio-technician acts only in the Media) has an Action for both Localities."""
    assert staffer > LOCAL_STRUCTURES
    assert _both(_coordinated(staffer, _tokens_of_ania))  # ANIA's tokens to name (Smear, Take Over the Topic)


def test_staff_5_the_celebrity_and_the_press_spokesperson_combine_with_local_structures() -> None:
    """Staff 2 4 5 6 8 9: "combining the same figures [the Celebrity and the Press Spokesperson]
    with Local Structures creates interesting combinations in the regions."""
    state = _coordinated(CELEBRITY)
    assert Act("meet_and_greet") in _both(state)
    _, events = GAME.apply(state, ANTEK, Act("meet_and_greet"), Rng(b"meet"))
    stacked = [(e.payload.seat, e.payload.locality, e.payload.amount) for e in events if e.payload.kind == "ACTIVITY_TOKENS"]
    assert stacked == [(ANTEK, LODZ, 2), (ANTEK, WARSZAWA, 2)]
    assert Act("change_topic") in _both(_coordinated(PRESS_SPOKESPERSON))


def test_without_coordinate_actions_no_action_takes_both_localities() -> None:
    """The forms for both Localities exist only under Coordinate Actions."""
    for staffer in (DIRTY_CAMPAIGN, CELEBRITY, PRESS_SPOKESPERSON, FAMILY, YOUTH_WING):
        state = _coordinated(staffer, _tokens_of_ania)
        state.coordinated = []
        assert _both(state) == [], staffer


def _actions(staffer: int) -> list[str]:
    entry = CONTENT.staffers[staffer]
    return [*entry.basic, *entry.special]


@pytest.mark.parametrize(
    ("printed", "holds"),
    [
        # Staff 2
        ("a Dirty Campaign with the option of swapping other players' Votes for your own",
         lambda: "vote_swap" in _actions(DIRTY_CAMPAIGN) and CONTENT.actions["vote_swap"].target == "seat_group"),
        ("the Provocateur with the full range of underhand moves",
         lambda: len(_actions(3)) >= 2 and all(CONTENT.actions[a].red for a in _actions(3))),
        ("the Youth Wing, which can if needed copy the Basic Actions of other Staffers",
         lambda: "imitation" in _actions(YOUTH_WING) and CONTENT.actions["imitation"].target == "staffer_copy"),
        # Staff 3
        ("the Socio-technician, together with the Celebrity, lets you manipulate the scoring on the Vote tracks",
         lambda: {"mobilisation", "realignment"} <= set(_actions(11)) and "endorsement" in _actions(CELEBRITY)),
        # Staff 4
        ("Thanks to the Chief of Staff you will be able to act before the other players",
         lambda: "take_the_lead" in _actions(1)),
        ("The Provocateur with Blackmail and the Journalist with Triggering a Scandal give you great options for blocking",
         lambda: "blackmail" in _actions(3) and "triggering_a_scandal" in _actions(7)),
        ("the Treasurer, who will fill your budget", lambda: _actions(9) == ["fundraising"]),
        ("the Youth Wing, which will always find a place for itself",
         lambda: any(CONTENT.actions[a].field == "both" for a in _actions(YOUTH_WING))),
        # Staff 5
        ("thanks to the Celebrity and the Press Spokesperson, will handle the media very well",
         lambda: any(CONTENT.actions[a].field == "media" for a in _actions(CELEBRITY))
         and all(CONTENT.actions[a].field != "region" for a in CONTENT.staffers[PRESS_SPOKESPERSON].basic)),
        ("the Authority, for swapping Topic and News cards and protecting your Staffers",
         lambda: {"change_topic", "change_news", "protection"} <= set(_actions(2))),
        ("the Dirty Campaign, which lets you steal other players' Votes and Support tokens",
         lambda: {"steal_votes", "smear"} <= set(_actions(DIRTY_CAMPAIGN))),
    ],
)
def test_ready_made_staff_descriptions_name_actions_the_staffers_have(printed: str, holds: Callable[[], bool]) -> None:
    """The rest of the printed descriptions name an ability of one Staffer; each ability is an
    Action of that Staffer (its effect is tested in test_spin_doctors_actions.py)."""
    assert holds(), printed
