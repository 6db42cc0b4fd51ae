"""The Stimmvieh ``Game``: static facts, and the rules, views, storage and codec behind one object."""

from __future__ import annotations

from typing import Any

from hustings.engine.base import Event, Footprint, GameInfo, Outcome, Seat, Variant
from hustings.engine.rng import Rng
from hustings.engine.stimmvieh import codec, rules, serial, views
from hustings.engine.stimmvieh.model import (
    FINISHED,
    ChooseTopCandidates,
    PlayPolitician,
    StimmviehOptions,
    StimmviehState,
)
from hustings.engine.stimmvieh.scoring import outcome_of
from hustings.engine.stimmvieh.views import TableView

StimmviehMove = ChooseTopCandidates | PlayPolitician

INFO = GameInfo(
    kind="stimmvieh",
    title="Stimmvieh",
    min_players=3,
    max_players=4,
    variants=(
        Variant("moderator", "ALTERNATIVE 2: the moderator's seat breaks ties for the start player and on election night."),
        Variant("campaigns", "Several campaigns (1 to 9), each scored 5/3/2/1; the most points win."),
        Variant("custom_vote_card", "Your individual game: a vote card with your own slogan replaces one vote card."),
    ),
)


class StimmviehGame:
    """Stimmvieh, the card game of votes and donations, for 3 (with Angelus) or 4 players."""

    info: GameInfo = INFO

    # --- rules ------------------------------------------------------------------------------
    def setup(self, options: StimmviehOptions, rng: Rng) -> StimmviehState:
        """A new game with the first campaign dealt. Raises InvalidOptionsError."""
        return rules.setup(options, rng)

    def seat_count(self, options: StimmviehOptions) -> int:
        """3 or 4 seats; Angelus has none."""
        return options.players

    def to_act(self, state: StimmviehState) -> frozenset[Seat]:
        """Every seat yet to choose top candidates, or the seat whose turn it is."""
        return rules.to_act(state)

    def legal_moves(self, state: StimmviehState, seat: Seat) -> list[StimmviehMove]:
        """Every legal decision of ``seat`` now."""
        return rules.legal_moves(state, seat)

    def apply(self, state: StimmviehState, seat: Seat, move: StimmviehMove, rng: Rng) -> tuple[StimmviehState, list[Event]]:
        """The state after the move, with its events; raises an EngineError if illegal."""
        return rules.apply(state, seat, move, rng)

    def view(self, state: StimmviehState, seat: Seat | None) -> TableView:
        """The table as ``seat`` (None: a spectator) may see it."""
        return views.view(state, seat)

    def is_over(self, state: StimmviehState) -> bool:
        """True after the last campaign's election night."""
        return state.phase == FINISHED

    def outcome(self, state: StimmviehState) -> Outcome | None:
        """The final ranking (Angelus with seat None), or None while playing."""
        return outcome_of(state) if state.phase == FINISHED else None

    def move_is_public(self, move: StimmviehMove) -> bool:
        """Playing a politician is public; the choice of top candidates is secret."""
        return isinstance(move, PlayPolitician)

    def secret_footprint(self, state: StimmviehState, seat: Seat, move: StimmviehMove) -> Footprint:
        """The others learn only that top candidates were chosen, never which, until all are revealed."""
        return Footprint()

    # --- storage ----------------------------------------------------------------------------
    def dump_state(self, state: StimmviehState) -> bytes:
        """Canonical JSON of the full state."""
        return serial.dump_state(state)

    def load_state(self, data: bytes) -> StimmviehState:
        """The inverse of ``dump_state``."""
        return serial.load_state(data)

    # --- codec ------------------------------------------------------------------------------
    def options_from_proto(self, options: Any) -> StimmviehOptions:
        """Options from hustings.v1.GameOptions; raises InvalidOptionsError."""
        return codec.options_from_proto(options)

    def options_to_proto(self, options: StimmviehOptions, out: Any) -> None:
        """Fill hustings.v1.GameOptions."""
        codec.options_to_proto(options, out)

    def move_from_proto(self, move: Any) -> StimmviehMove:
        """A move from hustings.v1.Move; raises MalformedMoveError."""
        return codec.move_from_proto(move)

    def move_to_proto(self, move: StimmviehMove, out: Any) -> None:
        """Fill hustings.v1.Move."""
        codec.move_to_proto(move, out)

    def view_to_proto(self, view: TableView, out: Any) -> None:
        """Fill hustings.v1.GameView.stimmvieh."""
        codec.view_to_proto(view, out)

    def event_to_proto(self, payload: Any, out: Any) -> None:
        """Fill hustings.v1.Event.stimmvieh."""
        codec.event_to_proto(payload, out)

    # --- conformance support -------------------------------------------------------------------
    def sample_options(self) -> list[tuple[str, StimmviehOptions]]:
        """Option sets covering every player count and variant, labelled by what they exercise."""
        samples: list[tuple[str, StimmviehOptions]] = []
        for players in (3, 4):
            samples += [
                ("base", StimmviehOptions(players)),
                ("moderator", StimmviehOptions(players, moderator=True, moderator_seat=0)),
                ("moderator", StimmviehOptions(players, moderator=True, moderator_seat=players - 1)),
                ("campaigns", StimmviehOptions(players, campaigns=2)),
                ("custom_vote_card", StimmviehOptions(players, custom_slogan="Hay for all!", custom_replaces="V12")),
                (
                    "moderator+campaigns+custom_vote_card",
                    StimmviehOptions(players, True, 1, 2, "Milk and honey", "V01"),
                ),
            ]
        return samples

    def secret_twin(self, state: StimmviehState, seat: Seat, rng: Rng) -> StimmviehState:
        """A state differing only in ``seat``'s secrets and in what nobody sees (the leak test)."""
        return views.secret_twin(state, seat, rng)


GAME = StimmviehGame()
"""The one Stimmvieh game object, registered on import."""
