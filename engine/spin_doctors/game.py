"""The Spin Doctors ``Game``: static facts, and the rules, views, storage and codec behind one object."""

from __future__ import annotations

from typing import Any

from hustings.engine.base import Event, Footprint, GameInfo, Outcome, Seat, Variant
from hustings.engine.rng import Rng
from hustings.engine.spin_doctors import codec, rules, serial, views
from hustings.engine.spin_doctors.model import (
    CANDIDATE,
    FINISHED,
    PUBLIC_MOVES,
    ArrangeNews,
    PlayStaffer,
    SpinDoctorsOptions,
    State,
)
from hustings.engine.spin_doctors.scoring import outcome_of
from hustings.engine.spin_doctors.views import TableView

INFO = GameInfo(
    kind="spin_doctors",
    title="The Spin Doctors",
    min_players=3,
    max_players=5,
    variants=(
        Variant(
            "scandals_set_aside",
            "Alternative variant of the Scandal cards: they start beside the board and come into play only through Staffers.",
        ),
    ),
)


class SpinDoctorsGame:
    """The Spin Doctors: staff placement, Debate, Poll and Election, for 3 to 5 players."""

    info: GameInfo = INFO

    # --- rules ------------------------------------------------------------------------------
    def setup(self, options: SpinDoctorsOptions, rng: Rng) -> State:
        """The board laid out as printed. Raises InvalidOptionsError."""
        return rules.setup(options, rng)

    def seat_count(self, options: SpinDoctorsOptions) -> int:
        """3 to 5 seats."""
        return options.players

    def to_act(self, state: State) -> frozenset[Seat]:
        """Every seat in a secret simultaneous choice, or the seat owing the next decision."""
        return rules.to_act(state)

    def legal_moves(self, state: State, seat: Seat) -> list[Any]:
        """Every legal decision of ``seat`` now."""
        return rules.legal_moves(state, seat)

    def apply(self, state: State, seat: Seat, move: Any, rng: Rng) -> tuple[State, list[Event]]:
        """The state after the move, with its events; raises an EngineError if illegal."""
        return rules.apply(state, seat, move, rng)

    def view(self, state: State, seat: Seat | None) -> TableView:
        """The table as ``seat`` (None: a spectator) may see it."""
        return views.view(state, seat)

    def is_over(self, state: State) -> bool:
        """True once the Election is counted (and any tie named)."""
        return state.phase == FINISHED

    def outcome(self, state: State) -> Outcome | None:
        """The final ranking, or None while playing."""
        return outcome_of(state) if state.phase == FINISHED else None

    def move_is_public(self, move: Any) -> bool:
        """Secret: Staff and Programme choices, face-down Staffers, the Media Influence order."""
        if isinstance(move, PlayStaffer):
            return move.staffer == CANDIDATE
        return isinstance(move, PUBLIC_MOVES)

    def is_side_move(self, move: Any, state: State | None = None) -> bool:
        """Hand-overs of Budget points and the deals (offers, withdrawals, declines): made beside
        the decisions, they leave a seat owing one still owing it, on the same clock."""
        return isinstance(move, rules.SIDE_MOVES)

    def secret_footprint(self, state: State, seat: Seat, move: Any) -> Footprint:
        """The table sees the field a face-down Staffer is played on and the News card Media
        Influence discards; of a Staff, a Programme or a change after the Poll, only that it was made."""
        if isinstance(move, PlayStaffer):
            return Footprint(move.field)
        if isinstance(move, ArrangeNews):
            return Footprint(tuple(c for c in state.tasks[0].cards if c not in move.cards))
        return Footprint()

    # --- storage ----------------------------------------------------------------------------
    def dump_state(self, state: State) -> bytes:
        """Canonical JSON of the full state."""
        return serial.dump_state(state)

    def load_state(self, data: bytes) -> State:
        """The inverse of ``dump_state``."""
        return serial.load_state(data)

    # --- codec ------------------------------------------------------------------------------
    def options_from_proto(self, options: Any) -> SpinDoctorsOptions:
        """Options from hustings.v1.GameOptions; raises InvalidOptionsError."""
        return codec.options_from_proto(options)

    def options_to_proto(self, options: SpinDoctorsOptions, out: Any) -> None:
        """Fill hustings.v1.GameOptions."""
        codec.options_to_proto(options, out)

    def move_from_proto(self, move: Any) -> Any:
        """A move from hustings.v1.Move; raises MalformedMoveError."""
        return codec.move_from_proto(move)

    def move_to_proto(self, move: Any, out: Any) -> None:
        """Fill hustings.v1.Move."""
        codec.move_to_proto(move, out)

    def view_to_proto(self, view: TableView, out: Any) -> None:
        """Fill hustings.v1.GameView.spin_doctors."""
        codec.view_to_proto(view, out)

    def event_to_proto(self, payload: Any, out: Any) -> None:
        """Fill hustings.v1.Event.spin_doctors."""
        codec.event_to_proto(payload, out)

    # --- conformance support -------------------------------------------------------------------
    def sample_options(self) -> list[tuple[str, SpinDoctorsOptions]]:
        """Every player count, the Scandal variant with 4 players (a few sets: full games are long)."""
        return [
            ("base", SpinDoctorsOptions(3)),
            ("scandals_set_aside", SpinDoctorsOptions(4, scandals_set_aside=True)),
            ("base", SpinDoctorsOptions(5)),
        ]

    def secret_twin(self, state: State, seat: Seat, rng: Rng) -> State:
        """A state differing only in ``seat``'s secrets and in what nobody sees (the leak test)."""
        return views.secret_twin(state, seat, rng)


GAME = SpinDoctorsGame()
"""The one Spin Doctors game object, registered on import."""
