"""The shape every game module has, and the small value types they share.

A game is a ``Game`` object registered under its kind. Its rules are pure functions of a state
(plus a counter-based ``Rng`` where chance is involved); its codec converts its own moves, views
and events to and from the public protobuf messages, so the service knows games only through
this surface.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Generic, Hashable, Mapping, Protocol, TypeVar

from hustings.engine.errors import EngineError
from hustings.engine.rng import Rng

Seat = int
"""A seat number, 0-based in turn order."""

StateT = TypeVar("StateT")
MoveT = TypeVar("MoveT")
OptionsT = TypeVar("OptionsT")


@dataclass(frozen=True)
class Event:
    """Something that happened, with who may see it.

    ``payload`` is a game-specific value that the game's codec turns into a protobuf event.
    ``visible_to`` is None for a public event, else the seats that see ``payload``; every other
    seat (and spectators) sees ``redacted`` instead, or nothing when ``redacted`` is None.
    ``reveals`` marks the step at which the rules turn secret decisions face up (top candidates,
    face-down Staffers, run-off voters): until such a step, a seat's secret choice must leave no
    trace in what the others see (the non-interference property of the conformance suite).
    """

    payload: Any
    visible_to: frozenset[Seat] | None = None
    redacted: Any = None
    reveals: bool = False

    @property
    def public(self) -> bool:
        """True when every seat and spectator sees the full payload."""
        return self.visible_to is None

    def for_seat(self, seat: Seat | None) -> Any:
        """The payload as ``seat`` (None: a spectator) may see it, or None for nothing."""
        if self.visible_to is None or (seat is not None and seat in self.visible_to):
            return self.payload
        return self.redacted


@dataclass(frozen=True)
class Footprint:
    """What the table learns of a secret decision at the moment it is made.

    ``shown`` is the part of the decision the others see (the field a face-down Staffer is played
    on, the kind of card offered in a trade), or None when they learn only that it was made. Two
    legal secret decisions of a seat with equal footprints must look the same to every other seat
    and to spectators, except ``confidants``: the seats that the rules let see the decision whole
    (the coalition partner shown the offered card).
    """

    shown: Hashable = None
    confidants: frozenset[Seat] = frozenset()


@dataclass(frozen=True)
class Variant:
    """A variant that the kind's options switch on."""

    name: str
    description: str


@dataclass(frozen=True)
class GameInfo:
    """Static facts about a game kind, declared once by its module."""

    kind: str
    title: str
    min_players: int
    max_players: int
    variants: tuple[Variant, ...] = ()


@dataclass(frozen=True)
class Placing:
    """One place in the final ranking; ``seat`` is None for a non-seat participant."""

    rank: int
    seat: Seat | None
    name: str
    score: int
    detail: str = ""
    ranked_by: tuple[tuple[str, int], ...] = ()
    """(name, value) of what the participant was ranked by: the score, then each tie-break."""


@dataclass(frozen=True)
class Outcome:
    """The final result, best first, with the rulebook's tie-breaks applied."""

    placings: tuple[Placing, ...] = field(default_factory=tuple)


class Game(Protocol, Generic[OptionsT, StateT, MoveT]):
    """What every registered game offers. See DESIGN.md "A game".

    A game with moves that end no decision (The Spin Doctors' hand-overs and deal offers, made
    beside the decisions; Wahlspiel's items drafted into a coalition offer, steps of one) says
    which with a method ``is_side_move(move) -> bool``; see ``is_side_move``.
    """

    info: GameInfo

    # --- rules (pure) -------------------------------------------------------------------------
    def setup(self, options: OptionsT, rng: Rng) -> StateT:
        """A new game. Raises InvalidOptionsError for bad options."""
        ...

    def seat_count(self, options: OptionsT) -> int:
        """How many seats a game with these options has."""
        ...

    def to_act(self, state: StateT) -> frozenset[Seat]:
        """The seats that owe a decision now; empty once the game is over."""
        ...

    def legal_moves(self, state: StateT, seat: Seat) -> list[MoveT]:
        """Every legal decision of ``seat`` now, enumerated; empty if it owes none."""
        ...

    def apply(self, state: StateT, seat: Seat, move: MoveT, rng: Rng) -> tuple[StateT, list[Event]]:
        """The state after ``seat`` makes ``move``. Raises an EngineError and leaves ``state``
        untouched when the move is not legal."""
        ...

    def view(self, state: StateT, seat: Seat | None) -> Any:
        """What ``seat`` (None: a spectator) may see: the only way state leaves the engine."""
        ...

    def is_over(self, state: StateT) -> bool:
        """True once the game has ended."""
        ...

    def outcome(self, state: StateT) -> Outcome | None:
        """The final ranking once the game is over, else None."""
        ...

    def move_is_public(self, move: MoveT) -> bool:
        """True when every seat may see the decision itself (not only its events)."""
        ...

    def secret_footprint(self, state: StateT, seat: Seat, move: MoveT) -> Footprint:
        """What the others learn of ``seat``'s secret ``move`` (one that ``move_is_public`` calls
        secret), legal in ``state``, when it is made; see ``Footprint``."""
        ...

    # --- storage ------------------------------------------------------------------------------
    def dump_state(self, state: StateT) -> bytes:
        """Serialise a state, deterministically (equal states give equal bytes)."""
        ...

    def load_state(self, data: bytes) -> StateT:
        """The inverse of ``dump_state``."""
        ...

    # --- codec (public protobuf messages) -----------------------------------------------------
    def options_from_proto(self, options: Any) -> OptionsT:
        """Engine options from a hustings.v1.GameOptions. Raises InvalidOptionsError."""
        ...

    def options_to_proto(self, options: OptionsT, out: Any) -> None:
        """Fill a hustings.v1.GameOptions."""
        ...

    def move_from_proto(self, move: Any) -> MoveT:
        """An engine move from a hustings.v1.Move. Raises MalformedMoveError."""
        ...

    def move_to_proto(self, move: MoveT, out: Any) -> None:
        """Fill a hustings.v1.Move."""
        ...

    def view_to_proto(self, view: Any, out: Any) -> None:
        """Fill the game's field of a hustings.v1.GameView."""
        ...

    def event_to_proto(self, payload: Any, out: Any) -> None:
        """Fill the game's field of a hustings.v1.Event."""
        ...

    # --- conformance support (used by tests/test_conformance.py) -------------------------------
    def sample_options(self) -> list[tuple[str, OptionsT]]:
        """Option sets covering every player count and every variant, each labelled with the
        variant names it switches on ("base" for none, several joined by "+")."""
        ...

    def secret_twin(self, state: StateT, seat: Seat, rng: Rng) -> StateT:
        """A state that differs from ``state`` only in what ``seat`` alone knows and what nobody
        knows (deck order): every other seat's view of it must be the same (the leak test)."""
        ...


FrozenT = TypeVar("FrozenT")


def evolve(value: FrozenT, **changes: Any) -> FrozenT:
    """A copy of the frozen dataclass instance ``value`` with ``changes``, as ``dataclasses.replace``
    makes it, at a quarter of the cost: the rules make new states on every move, and ``replace``
    checks every field and runs the frozen ``__init__``. For the engine's plain value classes
    only (every field set by ``__init__``, no ``__post_init__``, no ``__slots__``); a name that
    is not a field of ``value`` raises TypeError, as with ``replace``."""
    fields_now = value.__dict__
    if not changes.keys() <= fields_now.keys():
        raise TypeError(f"{type(value).__name__} has no field {sorted(changes.keys() - fields_now.keys())}")
    copy = object.__new__(type(value))
    copy.__dict__.update(fields_now, **changes)  # a new object, not yet seen by anyone: frozen still holds
    return copy


def is_side_move(game: Game[Any, Any, Any], move: Any, state: Any = None) -> bool:
    """True when ``move``, made in ``state``, ends no decision: it is made beside one (The Spin
    Doctors' hand-overs and deals) or is a step of one that its mover goes on with (Wahlspiel's
    items drafted into a coalition offer, until the offer is put or the coalition ended, and the
    cards handed over for an accepted offer, until the last). It never changes who owes a
    decision, and a seat owing one still owes the same one after it. The table's clocks run on
    through such a move (service/table.py ``settle``), so that it cannot buy a seat a fresh
    decision time; the move that ends the decision pays for all of its time. Without ``state``
    a game answers only for moves that are side moves in every state.

    A game without such moves declares nothing: every move of a seat then ends the decision it
    owed, which is the default here."""
    declared: Callable[[Any, Any], bool] | None = getattr(game, "is_side_move", None)
    return declared is not None and bool(declared(move, state))


def state_digest(game: Game[Any, Any, Any], state: Any) -> str:
    """SHA-256 (hex) of a state's serialisation: equal for equal states."""
    return hashlib.sha256(game.dump_state(state)).hexdigest()


def fill_event(game: Game[Any, Any, Any], out: Any, payload: Any, version: int, seat: Seat | None) -> None:
    """Fill a hustings.v1.Event for ``payload``: the one way events become messages."""
    out.version = version
    if seat is not None:
        out.seat = seat
    game.event_to_proto(payload, out)


def fill_outcome(game: Game[Any, Any, Any], state: Any, out: Any) -> None:
    """Fill a hustings.v1.Outcome with the final result of ``state`` (nothing while the game
    goes on): the one way an outcome becomes a message, for the finished view and for a replay
    checking it. Who played a seat (``bot_played``) is the table's, not the rules': not set here."""
    outcome = game.outcome(state)
    if outcome is None:
        return
    for p in outcome.placings:
        placing = out.placings.add(rank=p.rank, name=p.name, score=p.score, detail=p.detail)
        for name, value in p.ranked_by:
            placing.ranked_by.add(name=name, value=value)
        if p.seat is not None:
            placing.seat = p.seat


def content_version(data: Mapping[str, Any]) -> str:
    """The version of a game's content: SHA-256 (hex, first 16 digits) of its canonical JSON,
    so that a re-indented file keeps its version and any change of a value gets a new one."""
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


# --- presentation and rules -------------------------------------------------------------------
# A game's content holds what its rules read (amounts, influences, counts, board links, abilities)
# and what only players read (labels, names, notes, sources, the ``about`` text). Each game
# declares the second kind in its ``content`` module as ``PRESENTATION``: patterns over the paths
# of the content file's members. A path is the keys from the top joined by ".", with "[]" for an
# element of a list ("vote_cards[].label", "round_counter.note", "turnout_cards[].arrows[][]").
# In a pattern, "*" stands for any one key and "**" for any run of keys and list elements,
# none included ("**.note": a "note" member at any depth). A pattern names object members: the
# member it names goes with all it holds.

Path = tuple[str, ...]
LIST_ITEM = "[]"


def parse_path(text: str) -> Path:
    """A path (or pattern) written "a[].b" as its parts ("a", "[]", "b")."""
    parts: list[str] = []
    for piece in text.split("."):
        key = piece.rstrip("[]") if piece not in ("*", "**") else piece
        if not key or piece[len(key):] != LIST_ITEM * ((len(piece) - len(key)) // 2):
            raise ValueError(f"bad content path {text!r}")
        parts.append(key)
        parts.extend([LIST_ITEM] * ((len(piece) - len(key)) // 2))
    return tuple(parts)


def format_path(path: Path) -> str:
    """The written form of ``path``: ("a", "[]", "b") is "a[].b"."""
    text = ""
    for part in path:
        text += part if part == LIST_ITEM or not text else "." + part
    return text


def path_matches(pattern: Path, path: Path) -> bool:
    """True when ``pattern`` (from ``parse_path``) names ``path``."""
    if not pattern:
        return not path
    head, rest = pattern[0], pattern[1:]
    if head == "**":
        return any(path_matches(rest, path[i:]) for i in range(len(path) + 1))
    if not path or not (head == path[0] or (head == "*" and path[0] != LIST_ITEM)):
        return False
    return path_matches(rest, path[1:])


@lru_cache(maxsize=4096)
def _naming(presentation: tuple[str, ...], path: Path) -> tuple[str, ...]:
    # Paths hold no list positions, so a file of thousands of members has a few dozen paths.
    return tuple(pattern for pattern in presentation if path_matches(parse_path(pattern), path))


def is_presentation(path: Path, presentation: tuple[str, ...]) -> bool:
    """True when ``path`` is, or lies inside, a member that a ``presentation`` pattern names."""
    return any(_naming(presentation, path[:end]) for end in range(1, len(path) + 1))


def _stripped(data: Any, presentation: tuple[str, ...]) -> tuple[Any, set[str]]:
    used: set[str] = set()

    def strip(value: Any, path: Path) -> Any:
        if isinstance(value, dict):
            kept = {}
            for key, inner in value.items():
                inner_path = (*path, str(key))
                naming = _naming(presentation, inner_path)
                if naming:
                    used.update(naming)
                else:
                    kept[key] = strip(inner, inner_path)
            return kept
        if isinstance(value, list):
            return [strip(inner, (*path, LIST_ITEM)) for inner in value]
        return value

    return strip(data, ()), used


def rules_version(data: Mapping[str, Any], presentation: tuple[str, ...]) -> str:
    """The version of what a game's rules read of its content: ``content_version`` of the content
    without its presentation members. An edit to a label, a name, a note or a source keeps it;
    an edit to anything else (an amount, an influence, a count, a link, an ability) changes it.
    Every pattern but one that begins with ``**`` must name some member of ``data`` (ValueError
    otherwise), so that a misspelt declaration is caught rather than quietly naming nothing; a
    ``**`` pattern ("**.note") names members that may come and go, and deleting every one of them
    is an edit of presentation like any other."""
    kept, used = _stripped(data, presentation)
    unused = [pattern for pattern in presentation if pattern not in used and not pattern.startswith("**")]
    if unused:
        raise ValueError(f"presentation pattern {unused[0]!r} names nothing in the content")
    return content_version(kept)


@dataclass(frozen=True)
class Catalogue:
    """A kind's catalogue: every card, field and action of its content as typed public data.

    Each game declares one as ``CATALOGUE`` in its ``catalogue`` module, built by its codec from
    its content; the registry finds it there, so the service serves it without knowing the game.
    ``fill`` sets the game's field of a hustings.v1.GetGameKindResponse.
    """

    kind: str
    content_version: str
    fill: Callable[[Any], None]
    rules_version: str = ""
    """The version of what the rules read (``rules_version``): games record it at creation and
    play on under any content with the same one. Empty: the kind declares no presentation
    members, and ``content_version`` is what games must match."""


class ContentVersionError(EngineError):
    """A stored game was created with content whose rules this build no longer has: it is refused
    (reason CONTENT_VERSION_RETIRED, FAILED_PRECONDITION) rather than played on with other cards
    than the ones it was dealt. ``recorded`` and ``current`` are the versions compared: the rules
    versions when the game recorded one, else the content versions."""

    def __init__(self, kind: str, recorded: str, current: str) -> None:
        super().__init__(
            "CONTENT_VERSION_RETIRED",
            f"this {kind} game was created with content version {recorded}; this server plays {current}",
        )
        self.kind, self.recorded, self.current = kind, recorded, current


Sampler = Callable[[Any, Seat, Rng], Any]
"""``sample_state(state, seat, rng)``: a full state that ``seat`` cannot tell from ``state``."""


def _package(game: Game[Any, Any, Any]) -> str:
    """The package of ``game``'s module (of the game it wraps, for a wrapper that names it as
    ``wrapped``: the server's stand-ins narrow a game's legal moves so)."""
    return type(getattr(game, "wrapped", game)).__module__.rsplit(".", 1)[0]


def sampler(game: Game[Any, Any, Any]) -> Sampler:
    """The determinization of ``game``: ``sample_state`` from the ``sampling`` module beside the
    game's own (as the registry finds its catalogue), so that bots reach it through the registry.

    ``sample_state(state, seat, rng)`` keeps everything ``seat`` sees (its view of the sample
    equals its view of ``state``) and redeals everything else (other seats' hands and face-down
    choices, deck order) from what that seat has not seen. The sample depends only on that view
    and on ``rng``: states that differ only in secrets hidden from ``seat`` give equal samples,
    so a search over samples cannot peek. A search calls it once per sample; the states it hands
    in may themselves be samples (see ``observe``).
    """
    found: Sampler = importlib.import_module(f"{_package(game)}.sampling").sample_state
    return found


def enum_name(message: Any, field: str, prefix: str, value: int | None = None) -> str:
    """The name, without ``prefix``, of an enum ``field``'s value in a protobuf ``message`` (or
    of ``value``, one entry of a repeated one); "" when it names none. Read from the message's
    own descriptor, so that a rebuild from a view imports no protobuf code outside the codecs."""
    number = getattr(message, field) if value is None else value
    found = message.DESCRIPTOR.fields_by_name[field].enum_type.values_by_number.get(number)
    return found.name.removeprefix(prefix) if found is not None else ""


Rebuilder = Callable[[Any, Seat, Rng], Any]
"""``state_from_view(view, seat, rng)``: a full state rebuilt from the ``GameView`` the server
sends ``seat``, which that seat cannot tell from the real one."""


def rebuilder(game: Game[Any, Any, Any]) -> Rebuilder:
    """The inverse of a seat's view: ``state_from_view`` from the ``from_view`` module beside the
    game's own, found as ``sampler`` finds ``sample_state``.

    ``state_from_view(view, seat, rng)`` takes everything the view shows (the public table, the
    seat's own secrets, how many hidden things there are) and draws what it hides as the sampler
    draws it, so that an engine bot can decide over the network from the GameViews it is sent,
    as it decides in the arena from a state (tests/test_from_view_*.py: the seat's samples of the
    rebuilt state and of the real one are the same).
    """
    found: Rebuilder = importlib.import_module(f"{_package(game)}.from_view").state_from_view
    return found


OBSERVATION_SEED = b"observation"


def observe(game: Game[Any, Any, Any], state: Any, seat: Seat) -> Any:
    """What ``seat`` knows of ``state``, as a state: one fixed determinization of it.

    Since a sample depends only on the seat's view, this observation carries nothing of the
    secrets ``seat`` cannot see; a bot handed a full state keeps only this and decides from it.
    """
    return sampler(game)(state, seat, Rng(OBSERVATION_SEED))
