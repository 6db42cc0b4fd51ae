"""The Spin Doctors content (board, cards, Staffers, Actions), loaded from ``content.json`` and
validated at import.

Bad data raises ``ContentError`` naming the entry and what is wrong with it, so a broken edit to
the data file fails loudly at start-up instead of producing an odd game.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Mapping

from hustings.engine.base import content_version, rules_version
from hustings.engine.content_shape import refuse_repeated_ids, refuse_unknown_members

SOURCES = frozenset({"printed", "derived", "designed"})
TRAITS = ("down_with_dirty_politics", "prices_go_up", "everything_matters")
FIELD_KINDS = ("media", "region", "both")
TARGETS = frozenset(
    {
        "none", "locality", "two_localities", "group", "group_step", "two_groups", "news_blue",
        "staffer_here", "staffer_copy", "own_hand", "own_later", "seat", "seat_group", "locality_seat",
    }
)
CONDITIONS = ("3+", "0-2")
MAX_MARKER = 20

SECTIONS: Mapping[str, tuple[str, ...]] = {
    "about": (),
    "voter_groups": ("id", "name"),
    "topics": ("id", "name"),
    "colours": ("id", "name"),
    "fields": ("id", "field", "kind", "name"),
    "localities": ("id", "locality", "name", "region", "votes"),
    "news_track": ("red_fields", "blue_fields"),
    "round_counter": ("staffers_per_round", "poll_round", "election_round"),
    "start": ("budget", "support_tokens", "staff_size", "programme_size", "topic_cards_on_board", "turnout_marker_sum"),
    "voter_traits": ("id", "name"),
    "turnout_cards": ("id", "trait", "group", "funding", "fields", "arrows"),
    "topic_cards": ("id", "topic", "red_fields", "white_fields"),
    "news_cards": ("id", "topic", "group", "turnout_change", "scandal"),
    "programme_cards": ("id", "topic", "condition", "reward", "penalty"),
    "actions": ("id", "name", "field", "colour", "target", "text"),
    "staffers": ("id", "order", "name", "basic_cost", "basic", "special_cost", "special"),
    "ready_made_staffs": ("id", "staffers", "text"),
}
"""The sections of ``content.json`` and the members of their entries besides ``source`` and
``note``: the loader refuses any other (``hustings.engine.content_shape``)."""


PRESENTATION: tuple[str, ...] = (
    "about",
    "**.note",
    "**.source",
    "voter_groups[].name",
    "topics[].name",
    "colours[].name",
    "voter_traits[].name",
    "fields[].name",
    "localities[].name",
    "actions[].name",
    "actions[].text",
    "staffers[].name",
    "ready_made_staffs[].text",
)
"""The members of ``content.json`` that only players read (``hustings.engine.base`` explains the
patterns): the rules never read them, so an edit to them keeps the games in play (CONTENT.md)."""


class ContentError(ValueError):
    """The content data is not a valid Spin Doctors box."""


@dataclass(frozen=True)
class Locality:
    """A Locality: its Region field (2..6) and the Votes for first, second and third place."""

    index: int
    id: str
    name: str
    field: int
    votes: tuple[int, ...]


@dataclass(frozen=True)
class TurnoutCard:
    """Voter trait, dominant Voter Group (index), funding value and the support-field graph:
    ``arrows`` are (from, to) pairs; a field with no arrow into it is a lowest field, a field with
    no arrow out of it is a top field (its token can be pushed off)."""

    id: str
    trait: str
    group: int
    funding: int
    fields: int
    arrows: tuple[tuple[int, int], ...]

    def lowest(self) -> tuple[int, ...]:
        """The fields a new token may be placed on."""
        targets = {b for _, b in self.arrows}
        return tuple(f for f in range(self.fields) if f not in targets)

    def onward(self, field: int) -> tuple[int, ...]:
        """The fields a token on ``field`` may be pushed to; empty for a top field."""
        return tuple(b for a, b in self.arrows if a == field)


@dataclass(frozen=True)
class TopicCard:
    """A Topic card: its topic (index) and how many Red and White fields it has."""

    id: str
    topic: int
    red_fields: int
    white_fields: int


# What a News card other than a Scandal says.
NEWS_FIELDS = frozenset({"topic", "group", "turnout_change"})


@dataclass(frozen=True)
class NewsCard:
    """A News card: topic, Voter Group and turnout change; or a Scandal of colour ``scandal``."""

    id: str
    topic: int = -1
    group: int = -1
    turnout_change: int = 0
    scandal: int = -1

    @property
    def is_scandal(self) -> bool:
        """True for a Scandal card."""
        return self.scandal >= 0


@dataclass(frozen=True)
class ProgrammeCard:
    """A Campaign Programme card (each colour has the same twelve)."""

    id: str
    topic: int
    condition: str
    reward: int
    penalty: int

    def fulfilled(self, count: int) -> bool:
        """True if ``count`` Topic cards of its topic on the board meet the condition."""
        return count >= 3 if self.condition == "3+" else count <= 2


@dataclass(frozen=True)
class Action:
    """A Staffer Action: where it may be used (media, region or both), its colour, its target."""

    id: str
    name: str
    field: str
    red: bool
    target: str
    text: str

    def usable_on(self, field: int) -> bool:
        """True if the Action may be used by a Staffer standing on ``field`` (1 is Media)."""
        return self.field == "both" or (self.field == "media") == (field == 1)


@dataclass(frozen=True)
class Staffer:
    """One of the thirteen Staffers of every colour, by Staffer order."""

    order: int
    id: str
    name: str
    basic_cost: int
    basic: tuple[str, ...]
    special_cost: int | None
    special: tuple[str, ...]


@dataclass(frozen=True)
class Content:
    """Everything the rules read from the data file."""

    groups: tuple[str, ...]
    topics: tuple[str, ...]
    colours: tuple[str, ...]
    field_names: tuple[str, ...]
    localities: tuple[Locality, ...]
    red_news_fields: int
    blue_news_fields: int
    staffers_per_round: tuple[int, ...]
    poll_round: int
    election_round: dict[int, int]
    budget: int
    support_tokens: int
    staff_size: int
    programme_size: int
    turnout_marker_sum: int
    turnout_cards: dict[str, TurnoutCard]
    topic_cards: dict[str, TopicCard]
    news_cards: dict[str, NewsCard]
    programme_cards: dict[str, ProgrammeCard]
    actions: dict[str, Action]
    staffers: tuple[Staffer, ...]
    ready_made_staffs: tuple[tuple[int, ...], ...]

    def localities_of(self, field: int) -> tuple[int, ...]:
        """The Localities of a Region field, left to right."""
        return tuple(loc.index for loc in self.localities if loc.field == field)


def _entries(data: Mapping[str, Any], key: str, count: int | None = None) -> list[dict[str, Any]]:
    entries = data.get(key)
    if not isinstance(entries, list) or (count is not None and len(entries) != count):
        raise ContentError(f"{key}: expected a list" + (f" of {count}" if count is not None else ""))
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise ContentError(f"{key} #{index + 1}: expected an object")
        if entry.get("source") not in SOURCES:
            raise ContentError(f"{key} #{index + 1}: source must be one of {sorted(SOURCES)}")
    return entries


def _int(entry: Mapping[str, Any], key: str, where: str, low: int, high: int) -> int:
    value = entry.get(key)
    if type(value) is not int or not low <= value <= high:
        raise ContentError(f"{where}: {key} must be an integer {low}..{high}, got {value!r}")
    return value


def _index(names: tuple[str, ...], value: Any, where: str) -> int:
    if value not in names:
        raise ContentError(f"{where}: unknown name {value!r}")
    return names.index(value)


def _ids(entries: list[dict[str, Any]], where: str) -> tuple[str, ...]:
    ids = tuple(e.get("id") for e in entries)
    for index, entry_id in enumerate(ids):
        if not isinstance(entry_id, str) or not entry_id:
            raise ContentError(f"{where} #{index + 1}: id must be a non-empty string, got {entry_id!r}")
    refuse_repeated_ids(ids, where, ContentError)
    return ids  # type: ignore[return-value]


def _board(data: Mapping[str, Any]) -> tuple[tuple[str, ...], tuple[Locality, ...]]:
    fields = _entries(data, "fields", 6)
    field_ids = _ids(fields, "fields")
    for number, entry in enumerate(fields, start=1):
        if entry.get("field") != number or entry.get("kind") != ("media" if number == 1 else "region"):
            raise ContentError(f"field {number}: the Media field is 1, Regions 2..6 (printed)")
    localities = []
    for index, entry in enumerate(_entries(data, "localities", 10)):
        where = f"locality {entry.get('id')!r}"
        if entry.get("locality") != index:
            raise ContentError(f"{where}: expected locality={index}")
        field = _index(field_ids, entry.get("region"), where) + 1
        votes = entry.get("votes")
        if not isinstance(votes, list) or len(votes) != 3 or any(type(v) is not int or v < 0 for v in votes):
            raise ContentError(f"{where}: votes must be three non-negative integers")
        if list(votes) != sorted(votes, reverse=True):
            raise ContentError(f"{where}: votes must not increase from first to third place")
        localities.append(Locality(index, entry["id"], str(entry.get("name")), field, tuple(votes)))
    for field in range(2, 7):
        if sum(1 for loc in localities if loc.field == field) != 2:
            raise ContentError(f"field {field}: every Region has two Localities")
    _ids(data["localities"], "localities")
    return tuple(str(e.get("name")) for e in fields), tuple(localities)


def _turnout_cards(data: Mapping[str, Any], groups: tuple[str, ...]) -> dict[str, TurnoutCard]:
    cards = {}
    entries = _entries(data, "turnout_cards", 20)
    for entry, card_id in zip(entries, _ids(entries, "turnout_cards")):
        where = f"turnout card {card_id}"
        if entry.get("trait") not in TRAITS:
            raise ContentError(f"{where}: trait must be one of {TRAITS}")
        fields = _int(entry, "fields", where, 1, 9)
        arrows = entry.get("arrows")
        if not isinstance(arrows, list) or any(
            not isinstance(a, list) or len(a) != 2 or not all(type(x) is int and 0 <= x < fields for x in a) or a[0] >= a[1]
            for a in arrows
        ):
            raise ContentError(f"{where}: arrows must be [from, to] pairs of fields, pointing to a higher field")
        card = TurnoutCard(
            card_id, entry["trait"], _index(groups, entry.get("group"), where),
            _int(entry, "funding", where, 0, 9), fields, tuple((a, b) for a, b in arrows),
        )
        if not card.lowest():
            raise ContentError(f"{where}: needs a lowest field")
        cards[card_id] = card
    return cards


def _cards(data: Mapping[str, Any], groups: tuple[str, ...], topics: tuple[str, ...], colours: tuple[str, ...]) -> tuple[
    dict[str, TopicCard], dict[str, NewsCard], dict[str, ProgrammeCard]
]:
    topic_entries = _entries(data, "topic_cards", 36)
    topic_cards = {}
    for entry, card_id in zip(topic_entries, _ids(topic_entries, "topic_cards")):
        where = f"topic card {card_id}"
        topic_cards[card_id] = TopicCard(
            card_id, _index(topics, entry.get("topic"), where),
            _int(entry, "red_fields", where, 1, 4), _int(entry, "white_fields", where, 1, 4),
        )
    for topic in range(len(topics)):
        if sum(1 for c in topic_cards.values() if c.topic == topic) != 6:
            raise ContentError(f"topic {topics[topic]}: expected 6 Topic cards (derived)")
    news_entries = _entries(data, "news_cards", 41)
    news_cards = {}
    for entry, card_id in zip(news_entries, _ids(news_entries, "news_cards")):
        where = f"news card {card_id}"
        if "scandal" in entry:
            news = sorted(NEWS_FIELDS & entry.keys())
            if news:
                # A Scandal names a Candidate's colour and nothing else: values here would load
                # and be ignored, which reads as though they counted.
                raise ContentError(f"{where}: a Scandal has no {', '.join(news)}")
            news_cards[card_id] = NewsCard(card_id, scandal=_index(colours, entry["scandal"], where))
        else:
            news_cards[card_id] = NewsCard(
                card_id, _index(topics, entry.get("topic"), where), _index(groups, entry.get("group"), where),
                _int(entry, "turnout_change", where, -MAX_MARKER, MAX_MARKER),
            )
    if sorted(c.scandal for c in news_cards.values() if c.is_scandal) != list(range(len(colours))):
        raise ContentError("news cards: exactly one Scandal per colour (printed)")
    programme_entries = _entries(data, "programme_cards", 12)
    programme_cards = {}
    for entry, card_id in zip(programme_entries, _ids(programme_entries, "programme_cards")):
        where = f"programme card {card_id}"
        if entry.get("condition") not in CONDITIONS:
            raise ContentError(f"{where}: condition must be one of {CONDITIONS}")
        programme_cards[card_id] = ProgrammeCard(
            card_id, _index(topics, entry.get("topic"), where), entry["condition"],
            _int(entry, "reward", where, 0, 20), _int(entry, "penalty", where, 0, 20),
        )
    if len({(c.topic, c.condition) for c in programme_cards.values()}) != 12:
        raise ContentError("programme cards: one per topic and condition (derived)")
    return topic_cards, news_cards, programme_cards


def _staff(data: Mapping[str, Any]) -> tuple[dict[str, Action], tuple[Staffer, ...], tuple[tuple[int, ...], ...]]:
    action_entries = _entries(data, "actions")
    actions = {}
    for entry, action_id in zip(action_entries, _ids(action_entries, "actions")):
        where = f"action {action_id}"
        if entry.get("field") not in FIELD_KINDS or entry.get("colour") not in ("green", "red"):
            raise ContentError(f"{where}: field must be one of {FIELD_KINDS}, colour green or red")
        if entry.get("target") not in TARGETS:
            raise ContentError(f"{where}: target must be one of {sorted(TARGETS)}")
        actions[action_id] = Action(
            action_id, str(entry.get("name")), entry["field"], entry["colour"] == "red", entry["target"], str(entry.get("text"))
        )
    staffer_entries = _entries(data, "staffers", 13)
    _ids(staffer_entries, "staffers")
    staffers = []
    for order, entry in enumerate(staffer_entries):
        where = f"staffer {entry.get('id')!r}"
        if entry.get("order") != order:
            raise ContentError(f"{where}: expected order {order} (derived Staffer order)")
        basic, special = entry.get("basic"), entry.get("special")
        if not isinstance(basic, list) or not basic or not isinstance(special, list):
            raise ContentError(f"{where}: basic must list at least one Action, special a list")
        for action_id in basic + special:
            if action_id not in actions:
                raise ContentError(f"{where}: unknown action {action_id!r}")
        special_cost = None if entry.get("special_cost") is None else _int(entry, "special_cost", where, 0, 9)
        if bool(special) != (special_cost is not None):
            raise ContentError(f"{where}: a special cost exactly when there is a Special action")
        staffers.append(
            Staffer(order, entry["id"], str(entry.get("name")), _int(entry, "basic_cost", where, 0, 9), tuple(basic), special_cost, tuple(special))
        )
    staff_entries = _entries(data, "ready_made_staffs", 5)
    for number, entry in enumerate(staff_entries, start=1):
        if type(entry.get("id")) is not int or entry["id"] < 1:
            raise ContentError(f"ready_made_staffs #{number}: id must be a positive integer (the Staff's number), got {entry.get('id')!r}")
    refuse_repeated_ids((entry["id"] for entry in staff_entries), "ready_made_staffs", ContentError)
    staffs = []
    for entry in staff_entries:
        members = entry.get("staffers")
        if not isinstance(members, list) or len(members) != 6 or len(set(members)) != 6 or not all(type(m) is int and 1 <= m <= 12 for m in members):
            raise ContentError(f"ready-made staff {entry.get('id')}: six different Staffers 1..12")
        staffs.append(tuple(sorted(members)))
    return actions, tuple(staffers), tuple(staffs)


def parse_content(data: Mapping[str, Any]) -> Content:
    """Validate the decoded JSON of a content file and build the box. Raises ContentError."""
    refuse_unknown_members(data, SECTIONS, ContentError)
    groups = _ids(_entries(data, "voter_groups", 4), "voter_groups")
    topics = _ids(_entries(data, "topics", 6), "topics")
    colours = _ids(_entries(data, "colours", 5), "colours")
    _ids(_entries(data, "voter_traits", 3), "voter_traits")
    field_names, localities = _board(data)
    news, rounds, start = data.get("news_track"), data.get("round_counter"), data.get("start")
    if not all(isinstance(x, dict) and x.get("source") in SOURCES for x in (news, rounds, start)):
        raise ContentError("news_track, round_counter and start must be objects with a source")
    assert isinstance(news, dict) and isinstance(rounds, dict) and isinstance(start, dict)
    per_round = rounds.get("staffers_per_round")
    if not isinstance(per_round, list) or len(per_round) != 7 or per_round[0] != 3 or any(type(n) is not int or not 1 <= n <= 7 for n in per_round):
        raise ContentError("round_counter: seven rounds of 1..7 Staffers, 3 in round 1 (printed)")
    election = rounds.get("election_round")
    if not isinstance(election, dict) or {int(k) for k in election} != {3, 4, 5}:
        raise ContentError("round_counter: election_round for 3, 4 and 5 players")
    election_round = {int(k): int(v) for k, v in election.items()}
    poll_round = _int(rounds, "poll_round", "round_counter", 1, 6)
    if any(not poll_round < r <= 7 for r in election_round.values()):
        raise ContentError("round_counter: the Election comes after the Poll, by round 7")
    turnout_cards = _turnout_cards(data, groups)
    topic_cards, news_cards, programme_cards = _cards(data, groups, topics, colours)
    actions, staffers, staffs = _staff(data)
    content = Content(
        groups, topics, colours, field_names, localities,
        _int(news, "red_fields", "news_track", 1, 5), _int(news, "blue_fields", "news_track", 1, 5),
        tuple(per_round), poll_round, election_round,
        _int(start, "budget", "start", 0, 99), _int(start, "support_tokens", "start", 1, 36),
        _int(start, "staff_size", "start", 2, 13), _int(start, "programme_size", "start", 3, 3),
        _int(start, "turnout_marker_sum", "start", 0, 99),
        turnout_cards, topic_cards, news_cards, programme_cards, actions, staffers, staffs,
    )
    if _int(start, "topic_cards_on_board", "start", 0, 99) != len(localities):
        raise ContentError(f"start: topic_cards_on_board must be {len(localities)}, one on each Locality's Topic card field (printed)")
    if sum(loc.votes[0] for loc in localities) != content.turnout_marker_sum:
        raise ContentError("localities: the highest Votes of the ten Localities must sum to 31 (printed check)")
    return content


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
