"""Determinization for The Spin Doctors: a full table that one seat cannot tell from the real one.

``sample_state`` redeals what the seat does not see: the other seats' Staffs (keeping the
Candidate and every Staffer face up on the board), their face-down Staffers on the board, their
face-down Programme cards, the face-down News on the Red fields that the seat has not seen, the
News cards another seat holds during Media Influence, and the order of the News and Topic decks.
Pools are sorted before they are shuffled, so the sample depends only on what the seat sees and
on ``rng``.
"""

from __future__ import annotations

from dataclasses import replace

from hustings.engine.base import Seat
from hustings.engine.rng import Rng
from hustings.engine.spin_doctors.content import CONTENT
from hustings.engine.spin_doctors.model import CANDIDATE, FINISHED, PROGRAMME_CARDS, STAFFERS, State


def shuffled(items: list[str] | list[int], rng: Rng) -> list:  # type: ignore[type-arg]
    """``items`` sorted, then shuffled: the result depends on which items, not on their order."""
    pool = sorted(items)
    rng.shuffle(pool)
    return pool


def sample_state(state: State, seat: Seat, rng: Rng) -> State:
    """A table consistent with everything ``seat`` sees of ``state``, its unseen cards redealt."""
    if state.phase == FINISHED:
        return state
    sample = state.clone()
    for other, player in enumerate(sample.seats):
        face_down = player.face_down
        if other != seat:
            _redeal_staff(sample, other, rng)
            if face_down:
                face_down = shuffled([c for c in PROGRAMME_CARDS if c not in player.face_up], rng)[: len(face_down)]
        # Which card a seat chose first shows in no view and matters to no rule: the face-up
        # cards go first, in the order they were turned, then the face-down ones.
        player.programme = list(player.face_up) + face_down
    redeal_news(sample, seat, rng)
    sample.topic_deck = shuffled(sample.topic_deck, rng)
    return sample


def _redeal_staff(sample: State, other: int, rng: Rng) -> None:
    """Another seat's Staff: the Candidate and its face-up Staffers stay, the rest is redealt,
    and its face-down Staffers on the board are drawn from the new Staff."""
    player = sample.seats[other]
    if not player.staff:
        return
    mine = [i for i, p in enumerate(sample.board) if p.seat == other]
    face_up = {sample.board[i].staffer for i in mine if sample.board[i].face_up}
    keep = face_up | ({CANDIDATE} & set(player.staff))
    free = shuffled([s for s in STAFFERS if s not in keep], rng)
    staff = sorted(keep | set(free[: len(player.staff) - len(keep)]))
    player.staff = staff
    hidden = shuffled([s for s in staff if s not in face_up], rng)
    for i in mine:
        if not sample.board[i].face_up:
            sample.board[i] = replace(sample.board[i], staffer=hidden.pop())


def redeal_news(sample: State, seat: Seat, rng: Rng) -> None:
    """Red-field News the seat has not seen, News held by another seat's task, and the deck."""
    slots = [i for i in range(CONTENT.red_news_fields) if sample.news[i] and seat not in sample.news_known[i]]
    held = [t for t in range(len(sample.tasks)) if sample.tasks[t].cards and sample.tasks[t].seat != seat
            and sample.tasks[t].kind == "arrange"]
    pool = [sample.news[i] for i in slots] + [c for t in held for c in sample.tasks[t].cards] + list(sample.news_deck)
    pool = shuffled(pool, rng)
    for i in slots:
        sample.news[i] = pool.pop()
    for t in held:
        task = sample.tasks[t]
        cards = [pool.pop() for _ in task.cards]
        sample.tasks[t] = replace(task, cards=cards)
    sample.news_deck = pool
