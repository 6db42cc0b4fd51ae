"""The Spin Doctors' Staff is chosen whole, in one secret move: every Staff (924) is listed, the
five ready-made Staffs first; a Staff of the wrong shape is refused and changes nothing.
What the table receives through the service is in test_spin_doctors_staff_service.py."""

from __future__ import annotations

import pytest

from hustings.engine import EngineError, Rng
from hustings.engine.spin_doctors import GAME
from hustings.engine.spin_doctors.content import CONTENT
from hustings.engine.spin_doctors.model import CANDIDATE, STAFFERS, ChooseProgramme, ChooseStaff, SpinDoctorsOptions
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
