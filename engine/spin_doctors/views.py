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
from operator import attrgetter
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
    Player,
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


def _player(player: Player, index: int, own: bool, on_board: int, side_moves_left: int) -> PlayerView:
    """``player`` as a viewer sees it: ``own`` (its seat, or anybody once the game is over) shows
    its Staff and face-down Programme. Kept by value: its key holds every fact the view shows,
    and the seat's last view is compared first with copies of the facts it was made from (the
    views of a step, and most steps, show most seats as they were)."""
    if not own:
        facts = _PLAYER_FACTS(player)
        last = _LAST_PLAYERS.get(index)
        if last is not None and last[0] == facts and last[1] == on_board and last[2] == side_moves_left:
            return last[3]
    staff = player.staff
    programme = player.programme
    if own:
        key: tuple[object, ...] = (
            PlayerView, index, True, player.budget, player.supply, player.pool, tuple(player.votes), tuple(staff),
            on_board, tuple(player.shown), tuple(player.face_up), tuple(programme), side_moves_left, player.gave,
            player.poll_step,
        )
    else:
        key = (
            PlayerView, index, False, player.budget, player.supply, player.pool, tuple(player.votes), len(staff),
            on_board, tuple(player.shown), tuple(player.face_up), len(programme), side_moves_left, player.gave,
            player.poll_step,
        )
    found = _INTERNED.get(key)
    if found is None:
        face_up = key[10]
        found = _intern(key, PlayerView(
            seat=index,
            colour=CONTENT.colours[index],
            budget=player.budget,
            supply=player.supply,
            pool=player.pool,
            votes=key[6],  # type: ignore[arg-type]
            staff=key[7] if own else (),  # type: ignore[arg-type]
            staff_count=len(staff),
            hand_count=len(staff) - on_board,
            shown=key[9],  # type: ignore[arg-type]
            programme_face_up=face_up,  # type: ignore[arg-type]
            programme_face_down=tuple([c for c in programme if c not in face_up]) if own else (),  # type: ignore[operator]
            programme_count=len(programme),
            done_choosing=len(programme) == CONTENT.programme_size,
            side_moves_left=side_moves_left,
            handed_over=player.gave,
            poll_changes_made=player.poll_step,
        ))
    if not own:
        if len(_LAST_PLAYERS) >= _INTERNED_MAX:
            _LAST_PLAYERS.clear()
        _LAST_PLAYERS[index] = (
            (facts[0], facts[1], facts[2], list(facts[3]), list(staff), list(facts[5]), list(facts[6]), list(programme), facts[8], facts[9]),
            on_board, side_moves_left, found,  # type: ignore[arg-type]
        )
    return found  # type: ignore[return-value]


_PLAYER_FACTS = attrgetter("budget", "supply", "pool", "votes", "staff", "shown", "face_up", "programme", "gave", "poll_step")
_LAST_PLAYERS: dict[int, tuple[tuple[object, ...], int, int, PlayerView]] = {}
"""Each seat's last view as the others see it, with copies of the facts it was made from
(compared by value: a seat may be changed in place)."""


def _intern(key: tuple[object, ...], value: T) -> T:
    """``value``, kept as the one shared object for ``key`` (found missing by the caller)."""
    if len(_INTERNED) >= _INTERNED_MAX:
        _INTERNED.clear()
    _INTERNED[key] = value
    return value


def _locality(index: int, spot: Spot) -> LocalityView:
    key = (LocalityView, index, spot.turnout_card, tuple(spot.turnout), spot.topic_card, tuple(spot.red), tuple(spot.white),
           tuple(spot.activity))
    return _interned(key, lambda: LocalityView(*key[1:]))  # type: ignore[arg-type]


_SPOT_FACTS = attrgetter("turnout_card", "turnout", "topic_card", "red", "white", "activity")
_LAST_LOCALITIES: tuple[list[tuple[object, ...]], tuple[LocalityView, ...]] = ([], ())
"""The facts of the Localities last viewed (copies of them) with their views: the views of one
step, for every seat, and most steps show the same Localities."""


def _localities(spots: list[Spot]) -> tuple[LocalityView, ...]:
    """Every Locality's view, the whole table's found at once: the same for every viewer, and
    most steps change none of them. Compared with the last ones by value, never by identity: a
    Locality may be changed in place (a scene laid out by hand)."""
    global _LAST_LOCALITIES
    facts = list(map(_SPOT_FACTS, spots))
    last = _LAST_LOCALITIES
    if facts == last[0]:
        return last[1]
    keys = tuple([(s.turnout_card, tuple(s.turnout), s.topic_card, tuple(s.red), tuple(s.white), tuple(s.activity)) for s in spots])
    found = _INTERNED.get((LocalityView, keys))
    if found is None:
        found = _intern((LocalityView, keys), tuple([_locality(i, s) for i, s in enumerate(spots)]))
    _LAST_LOCALITIES = ([(k[0], list(k[1]), k[2], list(k[3]), list(k[4]), list(k[5])) for k in keys], found)  # type: ignore[assignment]
    return found  # type: ignore[return-value]


_BOARD: dict[int, tuple[Played, StafferView, StafferView]] = {}
"""Each Staffer on the board (by identity: ``Played`` is immutable, and a change replaces it) with
its view as the other seats see it and as its own seat sees it. An entry holds its Staffer, so an
id is never reused while its entry lives."""


def _board_entry(played: Played) -> tuple[Played, StafferView, StafferView]:
    hidden = played.staffer if played.face_up else -1
    entry = (played, _staffer_view(played, hidden), _staffer_view(played, played.staffer))
    if len(_BOARD) >= _INTERNED_MAX:
        _BOARD.clear()
    _BOARD[id(played)] = entry
    return entry


def _staffer_view(played: Played, staffer: int) -> StafferView:
    key = (StafferView, played.seat, staffer, played.field, played.face_up, played.resolved, played.blocked)
    found = _INTERNED.get(key)
    if found is None:
        found = _intern(key, StafferView(*key[1:]))  # type: ignore[arg-type]
    return found  # type: ignore[return-value]


def view(state: State, seat: Seat | None) -> TableView:
    """The table as ``seat`` (None: a spectator) may see it."""
    finished = state.phase == FINISHED
    board = state.board
    on_board = [p.seat for p in board]
    # No side move is left to anybody once the game is over (the last decision reset the count).
    seats = state.seats
    players = tuple([
        _player(seats[i], i, finished or seat == i, on_board.count(i), 0 if finished else state.side_moves_left(i))
        for i in range(state.players)
    ])
    staffers = []
    for played in board:
        entry = _BOARD.get(id(played))
        if entry is None or entry[0] is not played:
            entry = _board_entry(played)
        staffers.append(entry[2] if played.seat == seat else entry[1])
    news = state.news
    news_known = state.news_known
    reds = CONTENT.red_news_fields
    face_down = tuple([i < reds and bool(card) for i, card in enumerate(news)])
    if True in face_down:
        shown = tuple([
            card if not face_down[i] or (seat is not None and seat in news_known[i]) else ""
            for i, card in enumerate(news)
        ])
    else:
        shown = tuple(news)
    tasks = state.tasks
    steps = tuple([_step(state, task, seat) for task in tasks]) if tasks and not finished else ()
    return TableView(
        round=state.round,
        phase=state.phase,
        favourite=state.favourite,
        field_now=state.field_now,
        players=players,
        localities=_localities(state.spots),
        turnout_markers=tuple(state.turnout_markers),
        news=shown,
        news_face_down=face_down,
        news_deck_count=len(state.news_deck),
        news_discard=tuple(state.news_discard),
        topic_deck_count=len(state.topic_deck),
        topic_discard=tuple(state.topic_discard),
        board=tuple(staffers),
        pending=steps[0] if steps else None,
        coordinated=tuple([(s, f) for s, f in state.coordinated]) if state.coordinated else (),
        protected=tuple([(s, f) for s, f in state.protected]) if state.protected else (),
        winner=state.winner,
        scandals_aside=tuple(state.scandals_aside),
        offers=tuple(state.offers),  # public: deals at the table are made in the open
        news_seen_by=tuple([known[0] if known else -1 for known in news_known]),
        queued=steps[1:],
    )


def _step(state: State, task: Task, seat: Seat | None) -> PendingView:
    """A queued step as ``seat`` sees it: the cards it holds only for its own seat."""
    if task.kind == "imitate":
        staffer = task.other
    else:
        index = task.index
        staffer = state.board[index].staffer if 0 <= index < len(state.board) else -1
    key = (PendingView, task.kind, task.seat, task.locality, staffer, task.other, task.amount,
           tuple(task.cards) if seat == task.seat else (), task.index)
    found = _INTERNED.get(key)
    if found is None:
        found = _intern(key, PendingView(*key[1:]))  # type: ignore[arg-type]
    return found  # type: ignore[return-value]


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
