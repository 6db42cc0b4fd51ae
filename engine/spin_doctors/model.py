"""The Spin Doctors values: options, moves, the full state (secrets included), tasks and events.

A state is a tree of small dataclasses, but no rule ever changes a state a caller holds:
``apply`` works on a copy (``State.for_step``) and returns it. Staffers on the board and tasks
are immutable (changed by replacing them), so copies share them; the Localities are shared until
a rule changes one (``State.changed_spot`` copies it first); copying only the rest keeps a step
(and the conformance suite, which tries every listed move) fast.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Callable, TypeVar, Union

from hustings.engine.base import Event
from hustings.engine.spin_doctors.content import CONTENT

T = TypeVar("T")


def init_at_once(cls: type) -> Callable[..., None]:
    """An ``__init__`` for the frozen dataclass ``cls`` that sets every field in one step.

    A frozen dataclass's own ``__init__`` sets each field through ``object.__setattr__``: an event
    of seventeen fields costs four times as much to make that way, and every step makes events,
    Staffers and tasks, and lists moves by the dozen. This one takes the same arguments with the
    same defaults (a default factory still gives a fresh value each time) and makes the same
    instance: the fields in declaration order in the instance's dict. Written out as source and
    compiled once, as ``dataclasses`` writes its own."""
    if hasattr(cls, "__post_init__") or hasattr(cls, "__slots__"):
        raise TypeError(f"{cls.__name__}: only plain dataclasses (no __post_init__, no __slots__)")
    names = [f.name for f in fields(cls)]
    scope: dict[str, Any] = {"_set": object.__setattr__, "_MISSING": MISSING}
    parameters, values = [], []
    for f in fields(cls):
        if f.default is not MISSING:
            scope[f"_default_{f.name}"] = f.default
            parameters.append(f"{f.name}=_default_{f.name}")
            values.append(f.name)
        elif f.default_factory is not MISSING:
            scope[f"_factory_{f.name}"] = f.default_factory
            parameters.append(f"{f.name}=_MISSING")
            values.append(f"_factory_{f.name}() if {f.name} is _MISSING else {f.name}")
        else:
            parameters.append(f.name)
            values.append(f.name)
    entries = ", ".join(f"{name!r}: {value}" for name, value in zip(names, values))
    source = f"def __init__(self, {', '.join(parameters)}):\n    _set(self, '__dict__', {{{entries}}})\n"
    exec(compile(source, f"<{cls.__name__}.__init__>", "exec"), scope)  # noqa: S102 - our own source
    init: Callable[..., None] = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


def made_at_once(cls: type[T]) -> type[T]:
    """``cls``, a frozen dataclass, made by ``init_at_once`` (for the values every step makes)."""
    cls.__init__ = init_at_once(cls)  # type: ignore[misc]
    return cls

MEDIA = 1
FIELDS = (1, 2, 3, 4, 5, 6)
CANDIDATE = 0
GROUPS = len(CONTENT.groups)
MIN_MARKER, MAX_MARKER = 0, 20
NEWS_FIELDS = CONTENT.red_news_fields + CONTENT.blue_news_fields
BLUE = tuple(range(CONTENT.red_news_fields, NEWS_FIELDS))
BREAKING_NEWS = NEWS_FIELDS - 1
BLACKMAIL_PRICE = 2
STAFFERS = tuple(range(1, len(CONTENT.staffers)))
"""The Staffers a player chooses from (the Candidate 0 is always in the Staff)."""
PROGRAMME_CARDS = tuple(CONTENT.programme_cards)
SIDE_MOVE_LIMIT = 4
"""Side moves (hand-overs, offers, withdrawals, declines, together) one seat may make between two
decisions of the game (designed): a payment of any sum to each of two players, or two offers and
one of them changed. Side moves do not move the game on, so without a limit two seats could hand a
point back and forth, or offer and withdraw, for ever, and the game's log would grow without end."""

# Phases. CHOOSING and POLL_CHANGES are simultaneous and secret; the others run a task queue.
CHOOSING = "CHOOSING"
OPENING = "OPENING"
PLANNING = "PLANNING"
RESOLUTION = "RESOLUTION"
DEBATE = "DEBATE"
SPEECH = "SPEECH"
POLL = "POLL"
POLL_CHANGES = "POLL_CHANGES"
ELECTION = "ELECTION"
FINISHED = "FINISHED"
PHASES = (CHOOSING, OPENING, PLANNING, RESOLUTION, DEBATE, SPEECH, POLL, POLL_CHANGES, ELECTION, FINISHED)


@made_at_once
@dataclass(frozen=True)
class SpinDoctorsOptions:
    """Validated options: the player count (3 to 5) and the alternative variant of the Scandal
    cards (set aside beside the board, brought in only by Staffers)."""

    players: int = 4
    scandals_set_aside: bool = False


# --- moves -------------------------------------------------------------------------------------


@made_at_once
@dataclass(frozen=True)
class ChooseStaff:
    """Before the game, secretly: the six Staffers (orders 1..12, ascending) who join the
    Candidate in your Staff. A ready-made Staff is one of these choices, made the same way."""

    staffers: tuple[int, ...]


@made_at_once
@dataclass(frozen=True)
class ChooseProgramme:
    """Before the game, secretly: add a Campaign Programme card to your Programme."""

    card: str


@made_at_once
@dataclass(frozen=True)
class RevealProgramme:
    """Turn one of your face-down Campaign Programme cards face up."""

    card: str


@made_at_once
@dataclass(frozen=True)
class PlayStaffer:
    """Action planning: play Staffer ``staffer`` onto ``field`` (1 Media, 2..6 Regions)."""

    staffer: int
    field: int


@made_at_once
@dataclass(frozen=True)
class OrderTie:
    """The Favourite: of the tied Staffers, the one of ``seat`` is resolved next."""

    seat: int


@made_at_once
@dataclass(frozen=True)
class Act:
    """Resolve the current Staffer with ``action``; the other fields are its target (-1 / ""
    when unused): ``locality`` (-1 with an Action naming Localities, under Coordinate Actions,
    means both; a Family Statement in both keeps its White field's Locality in ``second``),
    ``second`` (the other Locality, or the other Voter Group), ``seat`` and ``staffer``
    (another player, a Staffer), ``group`` (a Voter Group), ``step`` (+1 or -1), ``card``."""

    action: str
    locality: int = -1
    second: int = -1
    seat: int = -1
    staffer: int = -1
    group: int = -1
    step: int = 0
    card: str = ""


@made_at_once
@dataclass(frozen=True)
class Decline:
    """Resolve the current Staffer without an action, paying nothing."""


@made_at_once
@dataclass(frozen=True)
class PlaceSupport:
    """Place a Support token on a Turnout card along ``path``: the lowest field first, then the
    field each displaced token moves to; a final -1 means the last token was pushed off."""

    path: tuple[int, ...]


@made_at_once
@dataclass(frozen=True)
class PlaceOnTopic:
    """Place a Support token on the Topic card: a Red field, or a White field pushing off the
    White token at ``push_off`` (0 the lowest; -1 pushes nothing off)."""

    red: bool
    push_off: int = -1


@made_at_once
@dataclass(frozen=True)
class Broadcast:
    """A Media broadcast on the News card ``card`` lying on a Blue field."""

    card: str


@made_at_once
@dataclass(frozen=True)
class ArrangeNews:
    """Media Influence: the cards for the Red fields, first Red field first; the rest is discarded."""

    cards: tuple[str, ...]


@made_at_once
@dataclass(frozen=True)
class Consent:
    """Agree (or not) that another player changes a Topic card whose Red fields you hold."""

    agree: bool


@made_at_once
@dataclass(frozen=True)
class AnswerBlackmail:
    """Pay the blackmailer 2 Budget points, or let your Staffer be blocked."""

    pay: bool


@made_at_once
@dataclass(frozen=True)
class Speech:
    """The Favourite's speech: take ``amount`` (1 or 2) Votes from ``seat`` in ``group``;
    ``amount`` 0 gives up reducing Votes."""

    seat: int = -1
    group: int = -1
    amount: int = 0


@made_at_once
@dataclass(frozen=True)
class SwapStaffer:
    """After the Poll: put Staffer ``discard`` back and take ``take``; (-1, -1) keeps the Staff."""

    discard: int = -1
    take: int = -1


@made_at_once
@dataclass(frozen=True)
class ExchangeProgramme:
    """After the Poll: exchange the face-down Programme card for ``take``; "" keeps it."""

    take: str = ""


@made_at_once
@dataclass(frozen=True)
class NameWinner:
    """The Favourite names the winner among players tied on every tie-break."""

    seat: int


@made_at_once
@dataclass(frozen=True)
class HandBudget:
    """A binding immediate deal: hand ``amount`` Budget points to ``seat``."""

    seat: int
    amount: int


DEAL_TERMS = ("REDUCE_VOTES", "SPARE_VOTES", "ORDER_TIE", "CONSENT", "PUSH_OFF", "ACTION")
"""What a conditional offer may pay for (the subjects of exchange the rulebook lists, and the
blocking of the Example first round), each a decision the engine checks when it is made."""


@made_at_once
@dataclass(frozen=True)
class Term:
    """The condition of an offer: the decision the other player owes now, made this way.
    REDUCE_VOTES: the Favourite's speech reduces the Votes of ``seat``. SPARE_VOTES: the speech
    gives up reducing Votes. ORDER_TIE: the Favourite resolves ``seat``'s tied Staffer next.
    CONSENT: agree to the change of the Topic card. PUSH_OFF: the token placed on the Topic card
    pushes a token of ``seat`` off a White field. ACTION: the Staffer being resolved carries out
    the red Action ``action`` against ``seat`` (and its Staffer ``staffer``, when the Action names one)."""

    kind: str
    seat: int = -1
    action: str = ""
    staffer: int = -1


@made_at_once
@dataclass(frozen=True)
class OfferDeal:
    """A binding conditional deal: ``amount`` Budget points for ``seat`` if it makes the decision
    it owes now as ``term`` says. The points leave you at once (held by the table, in everybody's
    view); they go to ``seat`` when it decides so, and come back to you otherwise."""

    seat: int
    amount: int
    term: Term


@made_at_once
@dataclass(frozen=True)
class WithdrawOffer:
    """Take back your pending offer number ``offer`` (its index among the pending offers)."""

    offer: int


@made_at_once
@dataclass(frozen=True)
class DeclineOffer:
    """Refuse the pending offer number ``offer`` made to you; its points return to its maker."""

    offer: int


Move = Union[
    ChooseStaff, ChooseProgramme, RevealProgramme, PlayStaffer, OrderTie, Act, Decline, PlaceSupport,
    PlaceOnTopic, Broadcast, ArrangeNews, Consent, AnswerBlackmail, Speech, SwapStaffer, ExchangeProgramme,
    NameWinner, HandBudget, OfferDeal, WithdrawOffer, DeclineOffer,
]
MOVE_TYPES = Move.__args__  # type: ignore[attr-defined]
PUBLIC_MOVES = (
    RevealProgramme, OrderTie, Act, Decline, PlaceSupport, PlaceOnTopic, Broadcast, Consent, AnswerBlackmail,
    Speech, NameWinner, HandBudget, OfferDeal, WithdrawOffer, DeclineOffer,
)


# --- state -------------------------------------------------------------------------------------


@dataclass
class Player:
    """One seat's supplies and secrets. ``staff`` holds Staffer orders (the Candidate 0 once the
    Staff is complete); ``programme`` every chosen Programme card, ``face_up`` those revealed;
    ``shown`` every Staffer of this seat that has been face up on the board (public memory)."""

    staff: list[int] = field(default_factory=list)
    programme: list[str] = field(default_factory=list)
    face_up: list[str] = field(default_factory=list)
    budget: int = 0
    supply: int = 0
    pool: int = 0
    votes: list[int] = field(default_factory=lambda: [0] * GROUPS)
    shown: list[int] = field(default_factory=list)
    gave: bool = False
    poll_step: int = 0

    def clone(self) -> Player:
        """A copy sharing nothing mutable."""
        return Player(
            list(self.staff), list(self.programme), list(self.face_up), self.budget, self.supply, self.pool,
            list(self.votes), list(self.shown), self.gave, self.poll_step,
        )

    @property
    def staff_complete(self) -> bool:
        """True once the Staff of seven is chosen."""
        return len(self.staff) == CONTENT.staff_size

    @property
    def face_down(self) -> list[str]:
        """The Programme cards still face down."""
        return [c for c in self.programme if c not in self.face_up]


@dataclass
class Spot:
    """A Locality on the table: Turnout card (token owner per support field, -1 empty), Topic
    card (Red and White fields bottom first) and Activity stack (base first, top last)."""

    turnout_card: str
    turnout: list[int]
    topic_card: str
    red: list[int] = field(default_factory=list)
    white: list[int] = field(default_factory=list)
    activity: list[int] = field(default_factory=list)

    def clone(self) -> Spot:
        """A copy sharing nothing mutable."""
        return Spot(self.turnout_card, list(self.turnout), self.topic_card, list(self.red), list(self.white), list(self.activity))


@made_at_once
@dataclass(frozen=True)
class Played:
    """A Staffer on a field this round (immutable: a change replaces it on the board)."""

    seat: int
    staffer: int
    field: int
    face_up: bool = False
    resolved: bool = False
    blocked: bool = False


@made_at_once
@dataclass(frozen=True)
class Task:
    """A step owed by ``seat``: a decision (listed moves) or an automatic effect. ``index`` is a
    Staffer on the board, ``other`` a second seat, ``cards`` cards held by the task (never
    changed: tasks are immutable and shared between clones)."""

    kind: str
    seat: int
    locality: int = -1
    index: int = -1
    other: int = -1
    amount: int = 0
    cards: list[str] = field(default_factory=list)


@made_at_once
@dataclass(frozen=True)
class Offer:
    """A pending conditional offer: ``offerer``'s ``amount`` Budget points, held by the table,
    for ``seat`` if its decision owed now meets ``term`` (immutable, shared between clones)."""

    offerer: int
    seat: int
    amount: int
    term: Term


@dataclass
class State:
    """The full table, secrets included."""

    options: SpinDoctorsOptions
    phase: str
    round: int
    favourite: int
    seats: list[Player]
    spots: list[Spot]
    turnout_markers: list[int]
    news: list[str]
    news_known: list[list[int]]
    news_deck: list[str]
    news_discard: list[str]
    topic_deck: list[str]
    topic_discard: list[str]
    board: list[Played] = field(default_factory=list)
    tasks: list[Task] = field(default_factory=list)
    field_now: int = 0
    debate_next: int = 0
    coordinated: list[list[int]] = field(default_factory=list)
    protected: list[list[int]] = field(default_factory=list)
    winner: int = -1
    scandals_aside: list[str] = field(default_factory=list)
    offers: list[Offer] = field(default_factory=list)
    side_moves: list[int] = field(default_factory=list)
    """Side moves (hand-overs, offers, withdrawals, declines) each seat has made since the last
    decision of the game, by seat; empty while nobody has made one (as every stored state
    written before the count existed)."""

    def clone(self) -> State:
        """A deep copy, fast."""
        copy = self.for_step()
        copy.spots = [s.clone() for s in self.spots]
        return copy

    def for_step(self) -> State:
        """A copy for ``apply`` to change: as ``clone``, but the Localities are shared until a
        rule changes one through ``changed_spot`` (a decision changes at most a few of the ten,
        and most change none)."""
        return State(
            self.options, self.phase, self.round, self.favourite,
            [p.clone() for p in self.seats], list(self.spots), list(self.turnout_markers),
            list(self.news), [list(k) for k in self.news_known], list(self.news_deck), list(self.news_discard),
            list(self.topic_deck), list(self.topic_discard), list(self.board),
            list(self.tasks), self.field_now, self.debate_next,
            [list(c) for c in self.coordinated], [list(c) for c in self.protected], self.winner,
            list(self.scandals_aside), list(self.offers), list(self.side_moves),
        )

    def changed_spot(self, locality: int) -> Spot:
        """The Locality ``locality`` of a state made by ``for_step`` (or ``clone``), to be
        changed: its copy takes its place first, since it may be the one the state before shares.
        Every rule that changes a Locality takes it through here."""
        spot = self.spots[locality] = self.spots[locality].clone()
        return spot

    def sharing(self) -> State:
        """A copy sharing every part with this state, for a step that then replaces (never
        changes) the parts it touches."""
        copy = object.__new__(State)
        copy.__dict__.update(self.__dict__)
        return copy

    @property
    def players(self) -> int:
        """The number of seats."""
        return self.options.players

    def side_moves_left(self, seat: int) -> int:
        """How many more side moves ``seat`` may make before the next decision of the game."""
        return SIDE_MOVE_LIMIT - (self.side_moves[seat] if self.side_moves else 0)

    def order_from(self, seat: int) -> list[int]:
        """Every seat clockwise starting with ``seat``."""
        return [(seat + k) % self.players for k in range(self.players)]

    def hand(self, seat: int) -> list[int]:
        """Staffers of ``seat``'s Staff not on the board this round."""
        on_board = {p.staffer for p in self.board if p.seat == seat}
        return [s for s in self.seats[seat].staff if s not in on_board]


# --- events ------------------------------------------------------------------------------------


@made_at_once
@dataclass(frozen=True)
class Happening:
    """One event. ``kind`` names it (see the proto's SpinDoctorsEventKind); the other fields are
    set when they apply (-1 / 0 / empty otherwise). ``cards`` holds card ids only; ``revealed``
    holds (seat, staffer, field) of every Staffer turned face up; ``term`` the condition of an offer."""

    kind: str
    seat: int = -1
    staffer: int = -1
    field: int = -1
    locality: int = -1
    group: int = -1
    amount: int = 0
    other: int = -1
    cards: tuple[str, ...] = ()
    action: str = ""
    second: int = -1
    step: int = 0
    target_staffer: int = -1
    path: tuple[int, ...] = ()
    pools: tuple[int, ...] = ()
    revealed: tuple[tuple[int, int, int], ...] = ()
    term: Term | None = None


_EVENT_INIT = init_at_once(Event)


def public_event(happening: Happening) -> Event:
    """``Event(happening)``: a public event, made at once (see ``init_at_once``)."""
    event = object.__new__(Event)
    _EVENT_INIT(event, happening)
    return event


def say(events: list[Event], happening: Happening) -> None:
    """Record a public event."""
    events.append(public_event(happening))
