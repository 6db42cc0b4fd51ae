"""The rules of The Spin Doctors as pure functions: setup, who acts, legal moves, apply.

``apply`` checks the move against the enumerated legal moves, then works on a clone of the
state, so a rejected move changes nothing and no caller's state is ever mutated.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations, repeat
from operator import is_
from typing import Any

from hustings.engine.base import Event, Seat, evolve
from hustings.engine.errors import GameOverError, IllegalMoveError, InvalidOptionsError, MalformedMoveError, NotYourTurnError
from hustings.engine.rng import Rng
from hustings.engine.spin_doctors import deals, flow
from hustings.engine.spin_doctors.content import CONTENT
from hustings.engine.spin_doctors.model import (
    CANDIDATE,
    CHOOSING,
    FINISHED,
    GROUPS,
    MOVE_TYPES,
    NEWS_FIELDS,
    POLL_CHANGES,
    PROGRAMME_CARDS,
    SIDE_MOVE_LIMIT,
    STAFFERS,
    ChooseProgramme,
    ChooseStaff,
    DeclineOffer,
    ExchangeProgramme,
    HandBudget,
    Happening,
    OfferDeal,
    Player,
    SpinDoctorsOptions,
    Spot,
    State,
    SwapStaffer,
    WithdrawOffer,
    say,
)

DEAL_MOVES = (OfferDeal, WithdrawOffer, DeclineOffer)
SIDE_MOVES = (HandBudget, *DEAL_MOVES)
"""Moves made beside the decisions: a hand-over and the deals change Budget points and offers,
never whose turn it is, so a seat owing a decision still owes it after one (the table's clock
runs on). Each seat may make SIDE_MOVE_LIMIT of them between two decisions of the game."""


def validate_options(options: SpinDoctorsOptions) -> SpinDoctorsOptions:
    """Return ``options`` if acceptable, else raise InvalidOptionsError."""
    if type(options.players) is not int or options.players not in (3, 4, 5):
        raise InvalidOptionsError("BAD_PLAYER_COUNT", "The Spin Doctors is played by 3 to 5 players")
    if type(options.scandals_set_aside) is not bool:
        raise InvalidOptionsError("BAD_VARIANT", "scandals_set_aside is a yes/no option")
    return options


def turnout_marker_start(cards: list[str]) -> list[int]:
    """Each group's Turnout marker: the sum of the highest Votes of the Localities whose Turnout
    card shows the group (``cards`` in Locality order)."""
    markers = [0] * GROUPS
    for locality, card in zip(CONTENT.localities, cards):
        markers[CONTENT.turnout_cards[card].group] += locality.votes[0]
    return markers


def setup(options: SpinDoctorsOptions, rng: Rng) -> State:
    """The board laid out as printed; every seat is to choose its Staff and Programme."""
    validate_options(options)
    turnout = sorted(CONTENT.turnout_cards)
    rng.shuffle(turnout)
    topics = sorted(CONTENT.topic_cards)
    rng.shuffle(topics)
    news = sorted(CONTENT.news_cards)
    aside = [c for c in news if CONTENT.news_cards[c].is_scandal] if options.scandals_set_aside else []
    news = [c for c in news if c not in aside]
    rng.shuffle(news)
    spots = [
        Spot(turnout[i], [-1] * CONTENT.turnout_cards[turnout[i]].fields, topics[i]) for i in range(len(CONTENT.localities))
    ]
    markers = turnout_marker_start(turnout[: len(spots)])
    if sum(markers) != CONTENT.turnout_marker_sum:
        raise AssertionError("Turnout markers must sum to 31")  # guaranteed by the content check
    reds = CONTENT.red_news_fields
    seats = [Player(staff=[CANDIDATE], budget=CONTENT.budget, supply=CONTENT.support_tokens) for _ in range(options.players)]
    return State(
        options=options,
        phase=CHOOSING,
        round=0,
        favourite=rng.below(options.players),
        seats=seats,
        spots=spots,
        turnout_markers=markers,
        news=news[:reds] + [""] * (NEWS_FIELDS - reds),
        news_known=[[] for _ in range(reds)],
        news_deck=news[reds:],
        news_discard=[],
        topic_deck=topics[len(spots):],
        topic_discard=[],
        scandals_aside=aside,
    )


def to_act(state: State) -> frozenset[Seat]:
    """Every seat still choosing (secret simultaneous steps), else the seat of the next task."""
    if state.phase == FINISHED:
        return frozenset()
    if state.phase == CHOOSING:
        return frozenset(s for s, p in enumerate(state.seats) if len(p.programme) < CONTENT.programme_size)
    if state.phase == POLL_CHANGES:
        return frozenset(s for s, p in enumerate(state.seats) if p.poll_step < 2)
    return frozenset((state.tasks[0].seat,)) if state.tasks else frozenset()


# The secret choices' moves, made once (they are listed at every step of the choosing).
_READY_MADE = [ChooseStaff(tuple(sorted(staff))) for staff in CONTENT.ready_made_staffs]
STAFFS = tuple(_READY_MADE + [ChooseStaff(c) for c in combinations(STAFFERS, CONTENT.staff_size - 1)
                              if ChooseStaff(c) not in _READY_MADE])
"""Every Staff a player may choose, as one secret move each: the ready-made Staffs first (the
rulebook suggests them for first games), then every other six of the twelve Staffers (924 in all).
Choosing the whole Staff in one move makes a ready-made Staff look like any other to the table."""
_STAFF_SET = frozenset(STAFFS)
_CHOOSE_PROGRAMME = {c: ChooseProgramme(c) for c in PROGRAMME_CARDS}
_SWAPS = {(d, t): SwapStaffer(d, t) for d in STAFFERS for t in STAFFERS}
_EXCHANGES = {c: ExchangeProgramme(c) for c in PROGRAMME_CARDS}
hand_budget = lru_cache(maxsize=4096)(HandBudget)
"""``HandBudget(seat, amount)``, one object per pair: hand-overs are listed at every step and read from
every hand-over message."""


def _own_options(state: State, seat: Seat) -> list[Any]:
    player = state.seats[seat]
    if state.phase == CHOOSING:
        if not player.staff_complete:
            return list(STAFFS)
        return [_CHOOSE_PROGRAMME[c] for c in PROGRAMME_CARDS if c not in player.programme]
    if state.phase == POLL_CHANGES:
        if player.poll_step == 0:
            outside = [s for s in STAFFERS if s not in player.staff]
            return [SwapStaffer()] + [_SWAPS[d, t] for d in player.staff if d != CANDIDATE for t in outside]
        return [ExchangeProgramme()] + [_EXCHANGES[c] for c in PROGRAMME_CARDS if c not in player.programme]
    return flow.task_options(state, state.tasks[0])


REVEALING = frozenset({"STAFFERS_REVEALED", "NEWS_REVEALED"})
"""Events that turn face-down decisions face up: the played Staffers, and News cards that Media
Influence laid face down on the Red fields."""

GIFT_STEPS = 5
"""Amounts of a hand-over: 1 to 5 Budget points, or a multiple of 5 (any sum takes at most two)."""


def gift_amounts(budget: int) -> list[int]:
    """The amounts a player with ``budget`` may hand over in one move: 1..5, then 10, 15, ..."""
    return [*range(1, min(budget, GIFT_STEPS) + 1), *range(2 * GIFT_STEPS, budget + 1, GIFT_STEPS)]


def _gifts(state: State, seat: Seat, acting: bool) -> list[HandBudget]:
    """Hand-overs of Budget points ``seat`` may make now. A seat owing a decision may hand over
    once before making it (so a player picking at random from its list always moves the game
    on); a seat owing nothing may hand over at any time, both within their side moves (the
    caller checks those)."""
    player = state.seats[seat]
    if state.phase == FINISHED or player.budget <= 0 or (acting and player.gave):
        return []
    amounts = gift_amounts(player.budget)
    return [hand_budget(s, n) for s in range(state.players) if s != seat for n in amounts]


def _gift_listed(state: State, seat: Seat, move: HandBudget, acting: bool) -> bool:
    """Whether ``move`` is one of ``_gifts(state, seat, acting)``, found without listing them
    (a hand-over is a third of the moves of a game): an exact HandBudget to another seat, of an
    amount ``gift_amounts`` lists."""
    if type(move) is not HandBudget or type(move.seat) is not int or type(move.amount) is not int:
        return False
    budget, amount = state.seats[seat].budget, move.amount
    if state.phase == FINISHED or budget <= 0 or (acting and state.seats[seat].gave):
        return False
    if move.seat == seat or not 0 <= move.seat < state.players:
        return False
    return 1 <= amount <= min(budget, GIFT_STEPS) or (2 * GIFT_STEPS <= amount <= budget and amount % GIFT_STEPS == 0)


def legal_moves(state: State, seat: Seat) -> list[Any]:
    """Every legal decision of ``seat``: its owed decision, if any, then its hand-overs of
    Budget points (binding immediate deals, allowed at any time), then its conditional deals
    (offers for the decision another player owes now; declining offers made to it). The side
    moves are listed only while the seat has some left since the last decision of the game."""
    if state.phase == FINISHED or type(seat) is not int or not 0 <= seat < state.players:
        return []
    acting = seat in to_act(state)
    own = _own_options(state, seat) if acting else []
    if state.side_moves_left(seat) <= 0:
        return own
    return own + _gifts(state, seat, acting) + deals.options(state, seat, acting)


def _hand_over(state: State, seat: Seat, move: HandBudget, acting: bool) -> tuple[State, list[Event]]:
    """A binding immediate deal: Budget points change hands; whose turn it is does not change."""
    if not _gift_listed(state, seat, move, acting):
        raise IllegalMoveError(
            "BAD_HAND_OVER",
            "hand 1 to 5 of your Budget points, or a multiple of 5, to another player (once before each decision you owe)",
        )
    # Only the two seats change; the rest is shared (every apply clones before it mutates).
    new = state.sharing()
    new.seats = list(state.seats)
    new.seats[seat], new.seats[move.seat] = state.seats[seat].clone(), state.seats[move.seat].clone()
    new.seats[seat].budget -= move.amount
    new.seats[move.seat].budget += move.amount
    if acting:
        new.seats[seat].gave = True
    events: list[Event] = []
    say(events, Happening("BUDGET_HANDED", seat=seat, other=move.seat, amount=move.amount))
    return new, events


def apply(state: State, seat: Seat, move: object, rng: Rng) -> tuple[State, list[Event]]:
    """The state after ``seat`` makes ``move``; raises an EngineError and changes nothing if illegal."""
    if state.phase == FINISHED:
        raise GameOverError("GAME_OVER", "the game is over")
    if not isinstance(move, MOVE_TYPES):
        raise MalformedMoveError("UNKNOWN_MOVE", "not a Spin Doctors move")
    if type(seat) is not int or not 0 <= seat < state.players:
        raise NotYourTurnError("NOT_YOUR_TURN", "no such seat")
    acting = seat in to_act(state)
    if isinstance(move, SIDE_MOVES):
        return _side_move(state, seat, move, acting)
    if not acting:
        raise NotYourTurnError("NOT_YOUR_TURN", "you owe no decision now")
    _check_offered(state, seat, move)
    events: list[Event] = []
    new = state.for_step()
    new.seats[seat].gave = False
    new.side_moves = []  # a decision of the game: every seat may make its side moves again
    if new.phase in (CHOOSING, POLL_CHANGES):
        _secret_step(new, seat, move, events)
    else:
        flow.perform(new, new.tasks.pop(0), move, rng, events)
        # The deal and the decision are one step: the offers made for it are settled at once.
        deals.settle(new, seat, move, list(events), events)
    flow.advance(new, rng, events)
    if new.offers:
        deals.release_stale(new, events)
    return new, [evolve(e, reveals=True) if e.payload.kind in REVEALING else e for e in events]


def _side_move(state: State, seat: Seat, move: Any, acting: bool) -> tuple[State, list[Event]]:
    """A hand-over or a deal move, counted against the seat's side moves until the next decision."""
    if state.side_moves_left(seat) <= 0:
        raise IllegalMoveError(
            "SIDE_MOVES_EXHAUSTED",
            f"you have made your {SIDE_MOVE_LIMIT} side moves (hand-overs, offers, withdrawals, declines) since the"
            " last decision of the game; you may make more once a player makes a decision",
        )
    if isinstance(move, HandBudget):
        new, events = _hand_over(state, seat, move, acting)
    else:
        new, events = deals.apply(state, seat, move, acting)
    made = list(state.side_moves) or [0] * state.players
    made[seat] += 1
    new.side_moves = made  # ``new`` shares its parts with ``state``: the count is a new list
    return new, events


def _check_offered(state: State, seat: Seat, move: Any) -> None:
    """Raise IllegalMoveError unless ``move`` is one of ``seat``'s listed decisions."""
    if state.phase == CHOOSING and not state.seats[seat].staff_complete:
        # 924 Staffs: looked up in a set, not searched in the list.
        if isinstance(move, ChooseStaff) and type(move.staffers) is tuple and all(type(s) is int for s in move.staffers):
            if move in _STAFF_SET:
                return
            # A shape no Staff has, in any state: malformed (INVALID_ARGUMENT), as Stimmvieh's four
            # top candidates are; a gRPC bot branching on the code read it as an illegal move.
            raise MalformedMoveError("BAD_STAFF", "a Staff is six different Staffers, 1 to 12, besides the Candidate")
    else:
        options = _own_options(state, seat)
        # A planning move read from its message is the listed object itself (codec's table):
        # found by identity in C, before comparing it with each option by its dataclass __eq__.
        if any(map(is_, options, repeat(move))) or move in options:
            return
    raise IllegalMoveError("ILLEGAL_MOVE", f"{type(move).__name__} is not one of your legal decisions now")


def _secret_step(state: State, seat: Seat, move: Any, events: list[Event]) -> None:
    """A secret simultaneous decision: the seat sees what it did, the others only that it did."""
    player = state.seats[seat]
    if isinstance(move, ChooseStaff):
        player.staff = [CANDIDATE, *move.staffers]
        # Its owner sees the Staff in its view; the event tells everybody only that it is chosen.
        say(events, Happening("STAFFER_CHOSEN", seat=seat))
        return
    if isinstance(move, ChooseProgramme):
        player.programme.append(move.card)
        secret = Happening("PROGRAMME_CHOSEN", seat=seat, cards=(move.card,))
    elif isinstance(move, SwapStaffer):
        if move.discard >= 0:
            player.staff = sorted([s for s in player.staff if s != move.discard] + [move.take])
        player.poll_step = 1
        secret = Happening("STAFF_CHANGE_MADE", seat=seat, staffer=move.take, other=move.discard)
    else:
        assert isinstance(move, ExchangeProgramme)
        if move.take:
            hidden = player.face_down[0]
            player.programme[player.programme.index(hidden)] = move.take
        player.poll_step = 2
        secret = Happening("PROGRAMME_CHANGE_MADE", seat=seat, cards=(move.take,) if move.take else ())
    events.append(Event(secret, visible_to=frozenset((seat,)), redacted=Happening(secret.kind, seat=seat)))
