"""What one seat (or a spectator) may see of a Spin Doctors table: the one place secrets are
stripped, and the secret twin used by the leak test.

Hidden from others: a seat's Staff (only Staffers once shown face up are public memory), its
face-down Programme cards, its face-down Staffers on the board (their field is public), the
face-down News on the Red fields (seen only by whoever arranged them), deck orders, and the
cards a seat holds during Media Influence. Everything else lies open on the table, pending
conditional offers and each seat's side moves left included.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, TypeVar

from hustings.engine.base import Seat
from hustings.engine.rng import Rng
from hustings.engine.spin_doctors.content import CONTENT
from hustings.engine.spin_doctors.model import (
    CANDIDATE,
    CHOOSING,
    FINISHED,
    PROGRAMME_CARDS,
    STAFFERS,
    Offer,
    Played,
    Spot,
    State,
    Task,
    made_at_once,
)
from hustings.engine.spin_doctors.rules import to_act

T = TypeVar("T")


@made_at_once
@dataclass(frozen=True)
class PlayerView:
    """A seat as the viewer sees it; ``staff`` and ``programme_face_down`` only for its owner."""

    seat: int
    colour: str
    budget: int
    supply: int
    pool: int
    votes: tuple[int, ...]
    staff: tuple[int, ...]
    staff_count: int
    hand_count: int
    shown: tuple[int, ...]
    programme_face_up: tuple[str, ...]
    programme_face_down: tuple[str, ...]
    programme_count: int
    done_choosing: bool
    side_moves_left: int
    """Side moves the seat may still make before the next decision of the game, 0 once it is
    over. Shown for every seat: each side move is a public event, so the count hides nothing."""
    handed_over: bool = False
    """The seat, owing a decision, has handed over Budget points since it began to owe it (once
    per decision): each hand-over is a public event."""
    poll_changes_made: int = 0
    """The seat's steps of its changes after the Poll: 0 until it makes the first (the Staffer),
    1 after it, 2 after the second (the Programme card) and for the rest of the game. That a
    step is made is public (its event shows the seat, not the change)."""


@made_at_once
@dataclass(frozen=True)
class LocalityView:
    """A Locality: its Turnout card with tokens (-1 empty field), Topic card, Activity stack."""

    locality: int
    turnout_card: str
    turnout: tuple[int, ...]
    topic_card: str
    red: tuple[int, ...]
    white: tuple[int, ...]
    activity: tuple[int, ...]


@made_at_once
@dataclass(frozen=True)
class StafferView:
    """A Staffer on the board; ``staffer`` is -1 while face down for the viewer."""

    seat: int
    staffer: int
    field: int
    face_up: bool
    resolved: bool
    blocked: bool


@made_at_once
@dataclass(frozen=True)
class PendingView:
    """The decision owed now (the head of the task queue); ``cards`` only for its seat."""

    kind: str
    seat: int
    locality: int
    staffer: int
    other: int
    amount: int
    cards: tuple[str, ...]
    board_index: int = -1
    """The Staffer on the board the step is about (its index in ``board``), -1 for none."""


@made_at_once
@dataclass(frozen=True)
class TableView:
    """The whole table as the viewer sees it. ``news`` holds a card id per News field, "" for an
    empty field or a face-down card the viewer has not seen (``news_face_down`` marks those);
    ``offers`` the pending conditional offers, the same for every viewer; ``news_seen_by`` for
    each Red field the seat that has seen its face-down card (-1: nobody), ``queued`` the steps
    the rules have queued behind ``pending`` (an Action's follow-ups, the rest of an order), both
    public: the table saw who arranged the News and which Actions were taken."""

    round: int
    phase: str
    favourite: int
    field_now: int
    players: tuple[PlayerView, ...]
    localities: tuple[LocalityView, ...]
    turnout_markers: tuple[int, ...]
    news: tuple[str, ...]
    news_face_down: tuple[bool, ...]
    news_deck_count: int
    news_discard: tuple[str, ...]
    topic_deck_count: int
    topic_discard: tuple[str, ...]
    board: tuple[StafferView, ...]
    pending: PendingView | None
    coordinated: tuple[tuple[int, int], ...]
    protected: tuple[tuple[int, int], ...]
    winner: int
    scandals_aside: tuple[str, ...]
    offers: tuple[Offer, ...] = ()
    news_seen_by: tuple[int, ...] = ()
    queued: tuple[PendingView, ...] = ()


_INTERNED: dict[tuple[object, ...], object] = {}
_INTERNED_MAX = 1 << 14


def _interned(key: tuple[object, ...], make: Callable[[], T]) -> T:
    """One shared object per distinct ``key``: the parts of a view repeat between seats and
    between steps, so they are built once, and the codec can reuse their encoding too."""
    found = _INTERNED.get(key)
    if found is None:
        if len(_INTERNED) >= _INTERNED_MAX:
            _INTERNED.clear()
        found = _INTERNED[key] = make()
    return found  # type: ignore[return-value]


def _player(state: State, index: int, seat: Seat | None, on_board: int) -> PlayerView:
    player = state.seats[index]
    own = seat == index or state.phase == FINISHED
    staff = tuple(player.staff) if own else ()
    face_down = tuple(c for c in player.programme if c not in player.face_up) if own else ()
    # No side move is left to anybody once the game is over (the last decision reset the count).
    side_moves_left = 0 if state.phase == FINISHED else state.side_moves_left(index)
    key = (
        PlayerView, index, player.budget, player.supply, player.pool, tuple(player.votes), staff, len(player.staff),
        len(player.staff) - on_board, tuple(player.shown), tuple(player.face_up), face_down, len(player.programme),
        side_moves_left, player.gave, player.poll_step,
    )
    return _interned(key, lambda: PlayerView(
        seat=index,
        colour=CONTENT.colours[index],
        budget=player.budget,
        supply=player.supply,
        pool=player.pool,
        votes=key[5],  # type: ignore[arg-type]
        staff=staff,
        staff_count=len(player.staff),
        hand_count=len(player.staff) - on_board,
        shown=key[9],  # type: ignore[arg-type]
        programme_face_up=key[10],  # type: ignore[arg-type]
        programme_face_down=face_down,
        programme_count=len(player.programme),
        done_choosing=len(player.programme) == CONTENT.programme_size,
        side_moves_left=side_moves_left,
        handed_over=player.gave,
        poll_changes_made=player.poll_step,
    ))


def _locality(index: int, spot: Spot) -> LocalityView:
    key = (LocalityView, index, spot.turnout_card, tuple(spot.turnout), spot.topic_card, tuple(spot.red), tuple(spot.white),
           tuple(spot.activity))
    return _interned(key, lambda: LocalityView(*key[1:]))  # type: ignore[arg-type]


def _localities(spots: list[Spot]) -> tuple[LocalityView, ...]:
    """Every Locality's view, the whole table's found at once: the same for every viewer, and
    most steps change none of them."""
    keys = tuple([(s.turnout_card, tuple(s.turnout), s.topic_card, tuple(s.red), tuple(s.white), tuple(s.activity)) for s in spots])
    return _interned((LocalityView, keys), lambda: tuple(_locality(i, s) for i, s in enumerate(spots)))


def _staffer(played: Played, seat: Seat | None) -> StafferView:
    staffer = played.staffer if played.face_up or played.seat == seat else -1
    key = (StafferView, played.seat, staffer, played.field, played.face_up, played.resolved, played.blocked)
    return _interned(key, lambda: StafferView(*key[1:]))  # type: ignore[arg-type]


def view(state: State, seat: Seat | None) -> TableView:
    """The table as ``seat`` (None: a spectator) may see it."""
    reds = CONTENT.red_news_fields
    on_board = [p.seat for p in state.board]
    face_down = tuple(i < reds and bool(card) for i, card in enumerate(state.news))
    news = tuple(
        card if not face_down[i] or (seat is not None and seat in state.news_known[i]) else ""
        for i, card in enumerate(state.news)
    )
    steps = tuple(_step(state, task, seat) for task in state.tasks) if state.phase != FINISHED else ()
    return TableView(
        round=state.round,
        phase=state.phase,
        favourite=state.favourite,
        field_now=state.field_now,
        players=tuple(_player(state, i, seat, on_board.count(i)) for i in range(state.players)),
        localities=_localities(state.spots),
        turnout_markers=tuple(state.turnout_markers),
        news=news,
        news_face_down=face_down,
        news_deck_count=len(state.news_deck),
        news_discard=tuple(state.news_discard),
        topic_deck_count=len(state.topic_deck),
        topic_discard=tuple(state.topic_discard),
        board=tuple(_staffer(p, seat) for p in state.board),
        pending=steps[0] if steps else None,
        coordinated=tuple((s, f) for s, f in state.coordinated),
        protected=tuple((s, f) for s, f in state.protected),
        winner=state.winner,
        scandals_aside=tuple(state.scandals_aside),
        offers=tuple(state.offers),  # public: deals at the table are made in the open
        news_seen_by=tuple(known[0] if known else -1 for known in state.news_known),
        queued=steps[1:],
    )


def _step(state: State, task: Task, seat: Seat | None) -> PendingView:
    """A queued step as ``seat`` sees it: the cards it holds only for its own seat."""
    staffer = state.board[task.index].staffer if 0 <= task.index < len(state.board) else -1
    if task.kind == "imitate":
        staffer = task.other
    key = (PendingView, task.kind, task.seat, task.locality, staffer, task.other, task.amount,
           tuple(task.cards) if seat == task.seat else (), task.index)
    return _interned(key, lambda: PendingView(*key[1:]))  # type: ignore[arg-type]


def secret_twin(state: State, seat: Seat, rng: Rng) -> State:
    """A state differing from ``state`` only in what ``seat`` alone knows and what nobody knows:
    its face-down Staffers, its Staff in hand and face-down Programme cards (kept while it owes a
    decision, so its legal moves stay the same), and deck order with the Red-field News nobody
    else has seen. Every other seat's view of the twin must equal its view of ``state``."""
    twin = state.clone()
    if state.phase == FINISHED:
        return twin
    player = twin.seats[seat]
    acting = seat in to_act(state)
    outside = [s for s in STAFFERS if s not in player.staff]
    rng.shuffle(outside)
    for index, played in enumerate(twin.board):
        if played.seat == seat and not played.face_up and outside:
            new = outside.pop()
            player.staff = sorted([s for s in player.staff if s != played.staffer] + [new])
            twin.board[index] = replace(played, staffer=new)
    if not acting and (state.phase != CHOOSING or player.staff_complete):
        on_board = {p.staffer for p in twin.board if p.seat == seat} | {CANDIDATE}
        free = [s for s in STAFFERS if s not in on_board]
        rng.shuffle(free)
        keep = [s for s in player.staff if s in on_board]
        player.staff = sorted(keep + free[: len(player.staff) - len(keep)])
        pool = [c for c in PROGRAMME_CARDS if c not in player.face_up]
        rng.shuffle(pool)
        hidden = iter(pool)
        player.programme = [c if c in player.face_up else next(hidden) for c in player.programme]
    slots = [i for i in range(CONTENT.red_news_fields) if twin.news[i] and set(twin.news_known[i]) <= {seat}]
    mixed = [twin.news[i] for i in slots] + twin.news_deck
    rng.shuffle(mixed)
    for i in slots:
        twin.news[i] = mixed.pop()
    twin.news_deck = mixed
    rng.shuffle(twin.topic_deck)
    return twin
