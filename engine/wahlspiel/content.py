"""The Wahlspiel content (board, politicians, voter and event cards), loaded from ``content.json``
and validated at import.

Bad data raises ``ContentError`` naming the entry and what is wrong with it, so a broken edit to
the data file fails at start-up instead of producing an odd game.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Mapping

from hustings.engine.base import content_version, rules_version
from hustings.engine.content_shape import refuse_repeated_ids, refuse_unknown_fields, refuse_unknown_members

SOURCES = frozenset({"printed", "derived", "designed"})
POLITICIAN_COUNT = 45
VOTER_COUNT = 125
EVENT_COUNT = 90
SYMBOLS_PER_POLITICIAN = 5
PARTY_COUNT = 6

START = "start"
VOTER_PURCHASE = "voter_purchase"
EVENT_PURCHASE = "event_purchase"
PRIZE = "prize"
VOTING = "voting"
SENSATION = "sensation"
CANDIDATE_CHANGE = "candidate_change"
COALITION = "coalition"
KANTONSRAT = "kantonsrat"
NATIONALRAT = "nationalrat"
BUNDESRAT = "bundesrat"
GOALS = (KANTONSRAT, NATIONALRAT, BUNDESRAT)
ROUND_FIELDS = frozenset({VOTER_PURCHASE, EVENT_PURCHASE, PRIZE, VOTING, SENSATION, CANDIDATE_CHANGE, COALITION})
FIELD_KINDS = ROUND_FIELDS | {START, *GOALS}

# Who an event card refers to.
TARGET_CANDIDATES = "candidates"  # ``count`` candidates in the race that the player designates
TARGET_EVERY = "every"  # every candidate in the race with the property
TARGET_OWN = "own"  # the party that plays the card
TARGET_PARTY = "party"  # a party the player designates
TARGETS = frozenset({TARGET_CANDIDATES, TARGET_EVERY, TARGET_OWN, TARGET_PARTY})
CONDITION_KEYS = frozenset({"sex", "age_min", "age_max", "occupations", "traits", "symbols"})

SECTIONS: Mapping[str, tuple[str, ...]] = {
    "about": (),
    "money": ("start", "start_three_players", "voter_price", "event_price"),
    "elections": ("goal", "seats", "pay"),
    "parties": ("party", "name", "colour"),
    "symbols": ("id", "icon"),
    "traits": ("id", "meaning"),
    "occupations": ("id",),
    "board": ("kind", "prize_voters", "prize_events"),
    "politicians": ("id", "name", "sex", "age", "occupation", "traits", "symbols"),
    "voters": ("id", "text", "condition", "opinion"),
    "events": ("id", "text", "target", "count", "condition", "votes", "halve", "lose_all", "withdraw", "money"),
}
"""The sections of ``content.json`` and the members of their entries besides ``source`` and
``note`` (a card's ``condition`` holds ``CONDITION_KEYS``): the loader refuses any other
(``hustings.engine.content_shape``)."""


PRESENTATION: tuple[str, ...] = (
    "about",
    "**.note",
    "**.source",
    "parties[].name",
    "politicians[].name",
    "voters[].text",
    "events[].text",
    "symbols[].icon",
    "traits[].meaning",
)
"""The members of ``content.json`` that only players read (``hustings.engine.base`` explains the
patterns): the rules never read them, so an edit to them keeps the games in play (CONTENT.md)."""


class ContentError(ValueError):
    """The content data is not valid Wahlspiel content."""


@dataclass(frozen=True)
class Politician:
    """A politician card: what the picture shows and the 5 interest symbols."""

    politician_id: str
    name: str
    sex: str
    age: int
    occupation: str
    traits: frozenset[str]
    symbols: tuple[str, ...]


@dataclass(frozen=True)
class Condition:
    """A property of a candidate that a card names; every given part must hold.

    ``symbols`` holds when the politician champions ANY of them (a voter "for art and homeland"
    backs candidates with one or both symbols); ``traits`` and ``occupations`` likewise match any.
    """

    sex: str = ""
    age_min: int = 0
    age_max: int = 0
    occupations: tuple[str, ...] = ()
    traits: tuple[str, ...] = ()
    symbols: tuple[str, ...] = ()

    def matches(self, politician: Politician) -> bool:
        """True if ``politician`` has the property."""
        return (
            (not self.sex or politician.sex == self.sex)
            and (not self.age_min or politician.age >= self.age_min)
            and (not self.age_max or politician.age <= self.age_max)
            and (not self.occupations or politician.occupation in self.occupations)
            and (not self.traits or any(t in politician.traits for t in self.traits))
            and (not self.symbols or any(s in politician.symbols for s in self.symbols))
        )


@dataclass(frozen=True)
class VoterCard:
    """A voter: one vote to every candidate in the race who matches ``condition``. With an
    ``opinion`` the card is a matter of opinion: the other players judge each matching candidate."""

    card_id: str
    text: str
    condition: Condition
    opinion: str = ""


@dataclass(frozen=True)
class EventCard:
    """An event: who it refers to (``target``, ``count``, ``condition``) and what it does."""

    card_id: str
    text: str
    target: str
    count: int = 0
    condition: Condition = Condition()
    votes: int = 0
    halve: bool = False
    lose_all: bool = False
    withdraw: bool = False
    money: int = 0


@dataclass(frozen=True)
class Field:
    """A board field; a prize field names its printed prize."""

    kind: str
    prize_voters: int = 0
    prize_events: int = 0


@dataclass(frozen=True)
class Election:
    """An election round: its goal field, the seats and what each seat pays."""

    goal: str
    seats: int
    pay: int


@dataclass(frozen=True)
class Content:
    """Everything the rules read from the data file."""

    start_money: int
    start_money_three_players: int
    voter_price: int
    event_price: int
    elections: tuple[Election, ...]
    party_names: tuple[str, ...]
    party_colours: tuple[str, ...]
    board: tuple[Field, ...]
    goal_positions: tuple[int, ...]
    politicians: dict[str, Politician]
    voters: dict[str, VoterCard]
    events: dict[str, EventCard]
    symbols: tuple[str, ...]
    traits: tuple[str, ...]
    occupations: tuple[str, ...]


def _source(entry: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(entry, dict):
        raise ContentError(f"{where}: expected an object")
    if entry.get("source") not in SOURCES:
        raise ContentError(f"{where}: source must be one of {sorted(SOURCES)}, got {entry.get('source')!r}")
    if "note" in entry and not isinstance(entry["note"], str):
        raise ContentError(f"{where}: note must be a string")
    return entry


def _int(value: Any, where: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise ContentError(f"{where}: expected an integer {low}..{high}, got {value!r}")
    return value


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ContentError(f"{where}: expected a non-empty string, got {value!r}")
    return value


def _ids(entries: Any, where: str) -> tuple[str, ...]:
    if not isinstance(entries, list) or not entries:
        raise ContentError(f"{where}: expected a non-empty list")
    ids = tuple(_text(_source(e, f"{where} #{i + 1}").get("id"), f"{where} #{i + 1} id") for i, e in enumerate(entries))
    refuse_repeated_ids(ids, where, ContentError)
    return ids


class _Vocabulary:
    def __init__(self, symbols: tuple[str, ...], traits: tuple[str, ...], occupations: tuple[str, ...]) -> None:
        self.symbols, self.traits, self.occupations = symbols, traits, occupations

    def words(self, values: Any, known: tuple[str, ...], where: str) -> tuple[str, ...]:
        if not isinstance(values, list) or not values or any(v not in known for v in values):
            raise ContentError(f"{where}: expected a non-empty list from {list(known)}, got {values!r}")
        if len(set(values)) != len(values):
            raise ContentError(f"{where}: repeated entries in {values!r}")
        return tuple(values)

    def condition(self, data: Any, where: str) -> Condition:
        if data is None:
            return Condition()
        if not isinstance(data, dict) or not data:
            raise ContentError(f"{where}: a condition is an object with keys from {sorted(CONDITION_KEYS)}")
        refuse_unknown_fields(data, CONDITION_KEYS, f"{where} condition", ContentError)
        sex = data.get("sex", "")
        if sex not in ("", "f", "m"):
            raise ContentError(f"{where}: sex must be 'f' or 'm'")
        return Condition(
            sex=sex,
            age_min=_int(data.get("age_min", 0), f"{where} age_min", 0, 120),
            age_max=_int(data.get("age_max", 0), f"{where} age_max", 0, 120),
            occupations=self.words(data["occupations"], self.occupations, f"{where} occupations") if "occupations" in data else (),
            traits=self.words(data["traits"], self.traits, f"{where} traits") if "traits" in data else (),
            symbols=self.words(data["symbols"], self.symbols, f"{where} symbols") if "symbols" in data else (),
        )


def _board(entries: Any) -> tuple[tuple[Field, ...], tuple[int, ...]]:
    if not isinstance(entries, list):
        raise ContentError("board: expected a list of fields")
    board = []
    for index, raw in enumerate(entries):
        where = f"board field {index}"
        entry = _source(raw, where)
        kind = entry.get("kind")
        if kind not in FIELD_KINDS:
            raise ContentError(f"{where}: kind must be one of {sorted(FIELD_KINDS)}, got {kind!r}")
        voters = _int(entry.get("prize_voters", 0), f"{where} prize_voters", 0, 2)
        events = _int(entry.get("prize_events", 0), f"{where} prize_events", 0, 1)
        if kind == PRIZE and not ((voters and not events) or (events and not voters)):
            raise ContentError(f"{where}: a prize is printed as 1 event or 1-2 voters")
        if kind != PRIZE and (voters or events):
            raise ContentError(f"{where}: only prize fields carry a prize")
        board.append(Field(kind, voters, events))
    kinds = [f.kind for f in board]
    if not kinds or kinds[0] != START or kinds.count(START) != 1:
        raise ContentError("board: the track begins with the one START field")
    goals = tuple(kinds.index(g) if kinds.count(g) == 1 else -1 for g in GOALS)
    if -1 in goals or list(goals) != sorted(goals) or goals[-1] != len(board) - 1:
        raise ContentError("board: KANTONSRAT, NATIONALRAT and BUNDESRAT appear once each, in order, BUNDESRAT last")
    starts = (0, goals[0], goals[1])
    for start, goal, name in zip(starts, goals, GOALS):
        stretch = set(kinds[start + 1 : goal])
        if stretch != ROUND_FIELDS:
            raise ContentError(f"board: the stretch to {name} must hold every field kind, missing {sorted(ROUND_FIELDS - stretch)}")
        if goal - start < 8:
            raise ContentError(f"board: the stretch to {name} must last several turns (at least 8 fields)")
    return tuple(board), goals


def _politicians(entries: Any, vocabulary: _Vocabulary) -> dict[str, Politician]:
    ids = _ids(entries, "politicians")
    if len(ids) != POLITICIAN_COUNT:
        raise ContentError(f"politicians: expected {POLITICIAN_COUNT}, got {len(ids)}")
    politicians = {}
    for entry, pid in zip(entries, ids):
        where = f"politician {pid}"
        if entry.get("sex") not in ("f", "m"):
            raise ContentError(f"{where}: sex must be 'f' or 'm'")
        traits = tuple(entry.get("traits", []))
        if traits:
            vocabulary.words(list(traits), vocabulary.traits, f"{where} traits")
        symbols = vocabulary.words(entry.get("symbols"), vocabulary.symbols, f"{where} symbols")
        if len(symbols) != SYMBOLS_PER_POLITICIAN:
            raise ContentError(f"{where}: a politician card shows exactly {SYMBOLS_PER_POLITICIAN} interest symbols")
        occupation = entry.get("occupation")
        if occupation not in vocabulary.occupations:
            raise ContentError(f"{where}: unknown occupation {occupation!r}")
        politicians[pid] = Politician(
            pid, _text(entry.get("name"), f"{where} name"), entry["sex"], _int(entry.get("age"), f"{where} age", 18, 99),
            occupation, frozenset(traits), symbols,
        )
    names = [p.name for p in politicians.values()]
    if len(set(names)) != len(names):
        raise ContentError("politicians: names must be unique")
    return politicians


def _voters(entries: Any, vocabulary: _Vocabulary) -> dict[str, VoterCard]:
    ids = _ids(entries, "voters")
    if len(ids) != VOTER_COUNT:
        raise ContentError(f"voters: expected {VOTER_COUNT}, got {len(ids)}")
    voters = {}
    for entry, card_id in zip(entries, ids):
        where = f"voter {card_id}"
        condition = vocabulary.condition(entry.get("condition"), where)
        if condition == Condition():
            raise ContentError(f"{where}: a voter card names whom it votes for")
        if len(condition.symbols) > 2:
            raise ContentError(f"{where}: a voter card shows one or two symbols")
        opinion = entry.get("opinion", "")
        if not isinstance(opinion, str):
            raise ContentError(f"{where}: opinion must be a string")
        voters[card_id] = VoterCard(card_id, _text(entry.get("text"), f"{where} text"), condition, opinion)
    return voters


def _events(entries: Any, vocabulary: _Vocabulary) -> dict[str, EventCard]:
    ids = _ids(entries, "events")
    if len(ids) != EVENT_COUNT:
        raise ContentError(f"events: expected {EVENT_COUNT}, got {len(ids)}")
    events = {}
    for entry, card_id in zip(entries, ids):
        where = f"event {card_id}"
        target = entry.get("target")
        if target not in TARGETS:
            raise ContentError(f"{where}: target must be one of {sorted(TARGETS)}")
        card = EventCard(
            card_id,
            _text(entry.get("text"), f"{where} text"),
            target,
            count=_int(entry.get("count", 0), f"{where} count", 0, 3),
            condition=vocabulary.condition(entry.get("condition"), where),
            votes=_int(entry.get("votes", 0), f"{where} votes", -5, 5),
            halve=entry.get("halve", False) is True,
            lose_all=entry.get("lose_all", False) is True,
            withdraw=entry.get("withdraw", False) is True,
            money=_int(entry.get("money", 0), f"{where} money", -10000, 10000),
        )
        on_candidates = bool(card.votes or card.halve or card.lose_all or card.withdraw)
        if (target == TARGET_CANDIDATES) != (card.count > 0):
            raise ContentError(f"{where}: exactly the designated-candidates cards name a count")
        if target in (TARGET_OWN, TARGET_PARTY) and (on_candidates or card.condition != Condition() or not card.money):
            raise ContentError(f"{where}: a party card moves money and nothing else")
        if target in (TARGET_CANDIDATES, TARGET_EVERY) and not on_candidates:
            raise ContentError(f"{where}: a candidate card changes votes or withdraws a candidate")
        if target == TARGET_EVERY and card.condition == Condition():
            raise ContentError(f"{where}: an 'every candidate' card names a property")
        if card.money % 1000:
            raise ContentError(f"{where}: money moves in thousands of francs")
        events[card_id] = card
    return events


def parse_content(data: Mapping[str, Any]) -> Content:
    """Validate the decoded JSON of a content file and build the content. Raises ContentError."""
    refuse_unknown_members(data, SECTIONS, ContentError)
    money = _source(data.get("money"), "money")
    vocabulary = _Vocabulary(
        _ids(data.get("symbols"), "symbols"), _ids(data.get("traits"), "traits"), _ids(data.get("occupations"), "occupations")
    )
    for required in ("objectivity", "art", "homeland"):
        if required not in vocabulary.symbols:
            raise ContentError(f"symbols: the printed symbol {required!r} is missing")
    elections = []
    raw_elections = data.get("elections")
    if not isinstance(raw_elections, list) or len(raw_elections) != len(GOALS):
        raise ContentError("elections: expected one entry per goal")
    for goal, raw in zip(GOALS, raw_elections):
        entry = _source(raw, f"election {goal}")
        if entry.get("goal") != goal:
            raise ContentError(f"elections: expected {goal!r} in this place")
        elections.append(Election(goal, _int(entry.get("seats"), f"{goal} seats", 1, 9), _int(entry.get("pay"), f"{goal} pay", 0, 50000)))
    parties = data.get("parties")
    if not isinstance(parties, list) or len(parties) != PARTY_COUNT:
        raise ContentError(f"parties: expected {PARTY_COUNT} (one per game piece)")
    for index, raw in enumerate(parties):
        if _source(raw, f"party {index}").get("party") != index:
            raise ContentError(f"party #{index}: expected party={index}")
        _text(raw.get("name"), f"party {index} name")
        _text(raw.get("colour"), f"party {index} colour")
    board, goals = _board(data.get("board"))
    return Content(
        start_money=_int(money.get("start"), "money start", 0, 100000),
        start_money_three_players=_int(money.get("start_three_players"), "money start_three_players", 0, 100000),
        voter_price=_int(money.get("voter_price"), "money voter_price", 1, 100000),
        event_price=_int(money.get("event_price"), "money event_price", 1, 100000),
        elections=tuple(elections),
        party_names=tuple(p["name"] for p in parties),
        party_colours=tuple(p["colour"] for p in parties),
        board=board,
        goal_positions=goals,
        politicians=_politicians(data.get("politicians"), vocabulary),
        voters=_voters(data.get("voters"), vocabulary),
        events=_events(data.get("events"), vocabulary),
        symbols=vocabulary.symbols,
        traits=vocabulary.traits,
        occupations=vocabulary.occupations,
    )


def load_content() -> Content:
    """Read and validate the packaged ``content.json``."""
    text = resources.files(__package__).joinpath("content.json").read_text(encoding="utf-8")
    return parse_content(json.loads(text))


CONTENT = load_content()
"""The validated content, loaded once at import."""

CONTENT_DATA: Mapping[str, Any] = json.loads(
    resources.files(__package__).joinpath("content.json").read_text(encoding="utf-8")
)
"""The decoded content file as it stands (provenance and notes included), for the catalogue."""

CONTENT_VERSION: str = content_version(CONTENT_DATA)
"""The version of this content file, every member included: the catalogue's version (and ETag)."""

RULES_VERSION: str = rules_version(CONTENT_DATA, PRESENTATION)
"""The version of what the rules read of this content (the file without ``PRESENTATION``): games
record it at creation and are played on by any build with the same one."""
