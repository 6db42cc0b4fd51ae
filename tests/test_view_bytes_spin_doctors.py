"""Every Spin Doctors view keeps its bytes: over random games of every player count (the Scandal
variant too), each seat's and a spectator's GameView written by the game equals, byte for byte,
the one the reference below writes, and the game's TableView equals the reference's.

The reference is the view as it was built before its parts were kept per Staffer on the board,
per Offer and per head of the message (``view`` of engine/spin_doctors/views.py at ec4f264, with
its interning taken out), written entry by entry with nothing kept. It is deliberately a
separate copy: it must not follow later changes of the game's own builder."""

from __future__ import annotations

import random

import pytest

from hustings.engine import Rng
from hustings.engine.spin_doctors import GAME
from hustings.engine.spin_doctors.content import CONTENT
from hustings.engine.spin_doctors.model import FINISHED, Offer, Played, SpinDoctorsOptions, State, Task, Term
from hustings.engine.spin_doctors.views import LocalityView, PendingView, PlayerView, StafferView, TableView
from hustings.v1 import game_pb2
from spin_doctors_helpers import plain_view_message
from view_bytes_helpers import check_every_viewer

MAX_STEPS = 3000
"""Far above a random game's length (about 370 steps), so that every loop ends."""


# --- the reference (views.view at ec4f264, without its interning) -------------------------------
def _reference_player(state: State, index: int, seat: int | None, on_board: int) -> PlayerView:
    player = state.seats[index]
    own = seat == index or state.phase == FINISHED
    staff = tuple(player.staff) if own else ()
    face_down = tuple(c for c in player.programme if c not in player.face_up) if own else ()
    side_moves_left = 0 if state.phase == FINISHED else state.side_moves_left(index)
    return PlayerView(
        seat=index, colour=CONTENT.colours[index], budget=player.budget, supply=player.supply, pool=player.pool,
        votes=tuple(player.votes), staff=staff, staff_count=len(player.staff), hand_count=len(player.staff) - on_board,
        shown=tuple(player.shown), programme_face_up=tuple(player.face_up), programme_face_down=face_down,
        programme_count=len(player.programme), done_choosing=len(player.programme) == CONTENT.programme_size,
        side_moves_left=side_moves_left, handed_over=player.gave, poll_changes_made=player.poll_step,
    )


def _reference_step(state: State, task: Task, seat: int | None) -> PendingView:
    staffer = state.board[task.index].staffer if 0 <= task.index < len(state.board) else -1
    if task.kind == "imitate":
        staffer = task.other
    return PendingView(task.kind, task.seat, task.locality, staffer, task.other, task.amount,
                       tuple(task.cards) if seat == task.seat else (), task.index)


def reference_view(state: State, seat: int | None) -> TableView:
    """The reference: the table as ``seat`` (None: a spectator) may see it."""
    reds = CONTENT.red_news_fields
    on_board = [p.seat for p in state.board]
    face_down = tuple(i < reds and bool(card) for i, card in enumerate(state.news))
    news = tuple(
        card if not face_down[i] or (seat is not None and seat in state.news_known[i]) else ""
        for i, card in enumerate(state.news)
    )
    steps = tuple(_reference_step(state, task, seat) for task in state.tasks) if state.phase != FINISHED else ()
    return TableView(
        round=state.round,
        phase=state.phase,
        favourite=state.favourite,
        field_now=state.field_now,
        players=tuple(_reference_player(state, i, seat, on_board.count(i)) for i in range(state.players)),
        localities=tuple(
            LocalityView(i, s.turnout_card, tuple(s.turnout), s.topic_card, tuple(s.red), tuple(s.white), tuple(s.activity))
            for i, s in enumerate(state.spots)
        ),
        turnout_markers=tuple(state.turnout_markers),
        news=news,
        news_face_down=face_down,
        news_deck_count=len(state.news_deck),
        news_discard=tuple(state.news_discard),
        topic_deck_count=len(state.topic_deck),
        topic_discard=tuple(state.topic_discard),
        board=tuple(
            StafferView(p.seat, p.staffer if p.face_up or p.seat == seat else -1, p.field, p.face_up, p.resolved, p.blocked)
            for p in state.board
        ),
        pending=steps[0] if steps else None,
        coordinated=tuple((s, f) for s, f in state.coordinated),
        protected=tuple((s, f) for s, f in state.protected),
        winner=state.winner,
        scandals_aside=tuple(state.scandals_aside),
        offers=tuple(state.offers),
        news_seen_by=tuple(known[0] if known else -1 for known in state.news_known),
        queued=steps[1:],
    )


def reference_bytes(view: TableView) -> bytes:
    """The reference view's GameView, every entry added one by one, nothing kept."""
    message = game_pb2.GameView()
    message.spin_doctors.CopyFrom(plain_view_message(view))
    return message.SerializeToString(deterministic=True)


# --- the checks ---------------------------------------------------------------------------------
def _check(state: State) -> int:
    return check_every_viewer(GAME, state, state.players, reference_view, reference_bytes)


def _play(options: SpinDoctorsOptions, number: int, every: int) -> int:
    rng = Rng(f"view-bytes-{number}".encode())
    choices = random.Random(number)
    state = GAME.setup(options, rng)
    checked = _check(state)
    for step in range(MAX_STEPS):
        if GAME.is_over(state):
            break
        seat = choices.choice(sorted(GAME.to_act(state)))
        state, _ = GAME.apply(state, seat, choices.choice(GAME.legal_moves(state, seat)), rng)
        if step % every == 0 or GAME.is_over(state):
            checked += _check(state)
    assert GAME.is_over(state)
    return checked


@pytest.mark.parametrize(
    "options, number",
    [(SpinDoctorsOptions(3), 1), (SpinDoctorsOptions(4, True), 2), (SpinDoctorsOptions(5), 3), (SpinDoctorsOptions(3, True), 4),
     (SpinDoctorsOptions(4), 5)],
    ids=["3", "4-aside", "5", "3-aside", "4"],
)
def test_every_view_of_random_games_is_the_reference_to_the_byte(options: SpinDoctorsOptions, number: int) -> None:
    assert _play(options, number, every=2) > 400


def test_views_follow_a_table_changed_in_place_after_being_viewed() -> None:
    """Parts kept between views are kept by value (or by immutable Staffers, tasks and offers):
    a seat, a Locality, the News or the board changed in place after a view shows the change."""
    rng = Rng(b"changed-in-place")
    choices = random.Random(7)
    state = GAME.setup(SpinDoctorsOptions(4), rng)
    while not state.board or not state.tasks:
        seat = choices.choice(sorted(GAME.to_act(state)))
        state, _ = GAME.apply(state, seat, choices.choice(GAME.legal_moves(state, seat)), rng)
    _check(state)
    state.seats[1].budget += 7
    state.seats[2].votes[0] = 5
    state.seats[0].staff.append(13)
    state.spots[4].activity.append(2)
    state.spots[0].turnout[0] = 1
    state.news_known[0] = [3]
    state.news[0] = state.news[0] or state.news_deck[0]
    state.turnout_markers[2] += 1
    state.coordinated.append([1, 2])
    _check(state)
    state.board[0] = Played(state.board[0].seat, state.board[0].staffer, state.board[0].field, face_up=not state.board[0].face_up)
    state.board.append(Played(2, 5, 3))
    state.tasks.insert(0, Task("arrange_news", 2, cards=["a", "b"]))
    state.offers.append(Offer(1, 2, 3, Term("REDUCE_VOTES", 0)))
    _check(state)
    state.offers.append(Offer(1, 2, 3, Term("REDUCE_VOTES", 0)))  # an equal offer, another object
    state.phase = FINISHED
    _check(state)


def test_a_view_made_by_hand_with_lists_keeps_its_bytes() -> None:
    """A TableView whose plain lists are lists, not tuples (as one made by hand may be), is
    written as the reference writes it, and twice alike."""
    rng = Rng(b"lists-by-hand")
    choices = random.Random(3)
    state = GAME.setup(SpinDoctorsOptions(3), rng)
    for _ in range(40):
        seat = choices.choice(sorted(GAME.to_act(state)))
        state, _ = GAME.apply(state, seat, choices.choice(GAME.legal_moves(state, seat)), rng)
    view = GAME.view(state, 1)
    plain = ("turnout_markers", "news", "news_face_down", "news_discard", "topic_discard", "scandals_aside", "news_seen_by")
    listed = TableView(**{f: (list(getattr(view, f)) if f in plain else getattr(view, f)) for f in TableView.__dataclass_fields__})
    for _ in range(2):
        message = game_pb2.GameView()
        GAME.view_to_proto(listed, message)
        assert message.SerializeToString(deterministic=True) == reference_bytes(reference_view(state, 1))
