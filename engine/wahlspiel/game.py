"""The Wahlspiel ``Game``: static facts, and the rules, views, storage and codec behind one object."""

from __future__ import annotations

from typing import Any

from hustings.engine.base import Event, Footprint, GameInfo, Outcome, Seat, Variant
from hustings.engine.rng import Rng
from hustings.engine.wahlspiel import codec, founding, rules, serial, views
from hustings.engine.wahlspiel.elections import outcome_of
from hustings.engine.wahlspiel.model import (
    FINISHED,
    SECRET_MOVES,
    AnswerTrade,
    Judge,
    Move,
    OfferTrade,
    SendRunoffVoter,
    WahlspielOptions,
    WahlspielState,
)
from hustings.engine.wahlspiel.table import card_kind
from hustings.engine.wahlspiel.views import TableView

INFO = GameInfo(
    kind="wahlspiel",
    title="Wahlspiel",
    min_players=2,
    max_players=6,
    variants=(
        Variant("gnomes", "The Gnomes (advanced optional rule): a candidate who reaches 17 votes leaves the race."),
        Variant(
            "single_national_candidate",
            "With 5 or 6 players: only 1 candidate per party in the national council election.",
        ),
    ),
)


class WahlspielGame:
    """Wahlspiel, the roll-and-move election game of three rounds, for 2 to 6 parties."""

    info: GameInfo = INFO

    # --- rules ------------------------------------------------------------------------------
    def setup(self, options: WahlspielOptions, rng: Rng) -> WahlspielState:
        """A new game with politicians, money, core voters and events dealt. Raises InvalidOptionsError."""
        return rules.setup(options, rng)

    def seat_count(self, options: WahlspielOptions) -> int:
        """One seat per party."""
        return options.players

    def to_act(self, state: WahlspielState) -> frozenset[Seat]:
        """The party whose decision it is, or every judge of a ballot, or every run-off party."""
        return rules.to_act(state)

    def legal_moves(self, state: WahlspielState, seat: Seat) -> list[Move]:
        """Every legal decision of ``seat`` now."""
        return rules.legal_moves(state, seat)

    def apply(self, state: WahlspielState, seat: Seat, move: Move, rng: Rng) -> tuple[WahlspielState, list[Event]]:
        """The state after the move, with its events; raises an EngineError if illegal."""
        return rules.apply(state, seat, move, rng)

    def view(self, state: WahlspielState, seat: Seat | None) -> TableView:
        """The table as ``seat`` (None: a spectator) may see it."""
        return views.view(state, seat)

    def is_over(self, state: WahlspielState) -> bool:
        """True once the Federal Councillor is elected."""
        return state.step == FINISHED

    def outcome(self, state: WahlspielState) -> Outcome | None:
        """The final ranking, or None while playing."""
        return outcome_of(state) if state.step == FINISHED else None

    def move_is_public(self, move: Move) -> bool:
        """Trade offers and answers (cards shown to the partner only), verdicts on a matter of
        opinion (shown together once the last is given) and run-off voters (face down until all
        are sent) are secret; every other decision is made in the open."""
        return not isinstance(move, SECRET_MOVES)

    def is_side_move(self, move: Move, state: WahlspielState | None = None) -> bool:
        """An item drafted into a coalition offer (``OfferTrade``): a step of composing the offer,
        which ends no decision. The drafting side owes the same decision after it, on the same
        clock, until it puts the offer or ends the coalition. Likewise a card handed over for an
        accepted offer, but the last, which completes the trade (CONTENT.md, Coalition); that
        needs the state the card is handed in."""
        if isinstance(move, OfferTrade):
            return True
        if not (isinstance(move, AnswerTrade) and move.card) or state is None:
            return False
        coalition = state.coalition
        if coalition is None or coalition.pending is None:
            return False
        owed = coalition.pending.ask_voters + coalition.pending.ask_events
        return len(coalition.handed) + 1 < owed

    def secret_footprint(self, state: WahlspielState, seat: Seat, move: Move) -> Footprint:
        """An item added to a coalition offer shows the table its kind and money, an answer whether
        it was accepted and a card handed over its kind (the other coalition side sees the cards);
        a judge is seen giving a verdict, not which; a run-off party is seen sending a voter face
        down, or none."""
        if isinstance(move, (OfferTrade, AnswerTrade)):
            assert state.coalition is not None
            other = state.coalition.partner if seat == state.current else state.current
            if isinstance(move, OfferTrade):
                kind = card_kind(move.give_card) if move.give_card else ""
                return Footprint((kind, move.give_money, move.ask_kind, move.ask_money), frozenset((other,)))
            kind = card_kind(move.card) if move.card else ""
            return Footprint((move.accept, kind), frozenset((other,)))
        if isinstance(move, Judge):
            return Footprint()
        assert isinstance(move, SendRunoffVoter)
        return Footprint(bool(move.card))

    def name_party(self, state: WahlspielState, seat: Seat, name: str, colour: str) -> WahlspielState:
        """The party of ``seat`` names itself and chooses its colour (one of the pieces'), as its
        player joins; empty keeps the default. Raises an EngineError (BAD_PARTY_NAME, BAD_COLOUR,
        COLOUR_TAKEN) and changes nothing when refused."""
        return founding.found_party(state, seat, name, colour)

    def party_names_in_use(self, state: WahlspielState, seat: Seat) -> frozenset[str]:
        """The names the other parties show or fall back to, which the party of ``seat`` may not
        read as when it names itself (held by the service at joining, not by replays)."""
        return founding.names_in_use(state, seat)

    def free_party(self, state: WahlspielState, seat: Seat) -> WahlspielState:
        """The party of ``seat`` as a new seat finds it (name and colour as at setup), when its
        player leaves the game before it starts and the seat is freed for the next."""
        return founding.free_party(state, seat)

    # --- storage ----------------------------------------------------------------------------
    def dump_state(self, state: WahlspielState) -> bytes:
        """Canonical JSON of the full state."""
        return serial.dump_state(state)

    def load_state(self, data: bytes) -> WahlspielState:
        """The inverse of ``dump_state``."""
        return serial.load_state(data)

    # --- codec ------------------------------------------------------------------------------
    def options_from_proto(self, options: Any) -> WahlspielOptions:
        """Options from hustings.v1.GameOptions; raises InvalidOptionsError."""
        return codec.options_from_proto(options)

    def options_to_proto(self, options: WahlspielOptions, out: Any) -> None:
        """Fill hustings.v1.GameOptions."""
        codec.options_to_proto(options, out)

    def move_from_proto(self, move: Any) -> Move:
        """A move from hustings.v1.Move; raises MalformedMoveError."""
        return codec.move_from_proto(move)

    def move_to_proto(self, move: Move, out: Any) -> None:
        """Fill hustings.v1.Move."""
        codec.move_to_proto(move, out)

    def view_to_proto(self, view: TableView, out: Any) -> None:
        """Fill hustings.v1.GameView.wahlspiel."""
        codec.view_to_proto(view, out)

    def event_to_proto(self, payload: Any, out: Any) -> None:
        """Fill hustings.v1.Event.wahlspiel."""
        codec.event_to_proto(payload, out)

    # --- conformance support -------------------------------------------------------------------
    def sample_options(self) -> list[tuple[str, WahlspielOptions]]:
        """Option sets covering 2 to 6 players and both variants, labelled by what they exercise."""
        samples: list[tuple[str, WahlspielOptions]] = []
        for players in range(2, 7):
            samples.append(("base", WahlspielOptions(players)))
            if players <= 4:
                samples.append(("gnomes", WahlspielOptions(players, gnomes=True)))
            else:
                samples.append(("single_national_candidate", WahlspielOptions(players, single_national_candidate=True)))
                samples.append(("gnomes+single_national_candidate", WahlspielOptions(players, True, True)))
        return samples

    def secret_twin(self, state: WahlspielState, seat: Seat, rng: Rng) -> WahlspielState:
        """A state differing only in ``seat``'s secrets and in what nobody sees (the leak test)."""
        return views.secret_twin(state, seat, rng)


GAME = WahlspielGame()
"""The one Wahlspiel game object, registered on import."""
