"""Leaks planted on purpose, so that the conformance suite's leak test is itself tested: each
registered game, wrapped so that at every step that turns a card face up from a deck one more
public event carries a secret of a seat, must fail it (tests/test_conformance.py).

Such a step is where the game's own twin, which shuffles the decks, shows everybody other cards
anyway; only the deck-keeping twin (tests/deck_keeping_twins.py) tells the planted secret from
the cards drawn.
"""

from __future__ import annotations

from typing import Any, Callable

from hustings.engine import Event, Game, Rng
from hustings.engine.spin_doctors.model import Happening
from hustings.engine.stimmvieh.model import PARTIES, DisplayRefilled, deck_of
from hustings.engine.wahlspiel.model import RunoffCardTurned

Plant = Callable[[Any, int, list[Event]], Any]
"""``plant(state, seat, events)``: the payload of a public event carrying a secret of a seat
(from ``state``, before ``seat``'s step) when the step's ``events`` turn a card up from a deck,
else None."""


class LeakyGame:
    """``game`` with a planted leak: ``plant``'s payload, when it gives one, is added to the
    step's events as a public event. Everything else is the game's own."""

    def __init__(self, game: Game[Any, Any, Any], plant: Plant) -> None:
        self._game = game
        self._plant = plant
        self.planted = 0
        """How many steps carried a planted secret (every twin's included)."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)

    def apply(self, state: Any, seat: int, move: Any, rng: Rng) -> tuple[Any, list[Event]]:
        """The game's step, with the planted event after its own."""
        after, events = self._game.apply(state, seat, move, rng)
        payload = self._plant(state, seat, events)
        if payload is None:
            return after, events
        self.planted += 1
        return after, [*events, Event(payload)]


def _stimmvieh(state: Any, seat: int, events: list[Event]) -> Any:
    """A card refilling the display from a stack: the bottom card of the next party's collected
    stack (hidden below its top) comes along as another refill."""
    if not any(isinstance(e.payload, DisplayRefilled) for e in events):
        return None
    for party in ((seat + k) % PARTIES for k in range(1, PARTIES + 1)):
        hidden = state.parties[party].votes[:-1] + state.parties[party].donations[:-1]
        if hidden:
            return DisplayRefilled(deck_of(state.options)[hidden[0]], None)
    return None


def _wahlspiel(state: Any, seat: int, events: list[Event]) -> Any:
    """A voter card turned up from the stack to decide a run-off: a voter card from the hand of
    the next party holding one is turned up with it."""
    if not any(isinstance(e.payload, RunoffCardTurned) for e in events):
        return None
    players = len(state.parties)
    for party in ((seat + k) % players for k in range(1, players + 1)):
        if state.parties[party].voters:
            return RunoffCardTurned(state.parties[party].voters[0], ())
    return None


def _spin_doctors(state: Any, seat: int, events: list[Event]) -> Any:
    """A News card revealed or a Topic card changed (both drawn from their decks): the face-down
    Programme cards of the next seat holding some come along as a changed Topic."""
    kinds = {e.payload.kind for e in events}
    if not kinds & {"NEWS_REVEALED", "TOPIC_CHANGED"}:
        return None
    players = len(state.seats)
    for other in ((seat + k) % players for k in range(1, players + 1)):
        if state.seats[other].face_down:
            return Happening("TOPIC_CHANGED", cards=tuple(state.seats[other].face_down))
    return None


PLANTS: dict[str, Plant] = {"stimmvieh": _stimmvieh, "wahlspiel": _wahlspiel, "spin_doctors": _spin_doctors}
"""A planted leak for every registered kind."""
