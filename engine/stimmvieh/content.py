"""The Stimmvieh deck and party names, loaded from ``content.json`` and validated at import.

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

VOTE = "vote"
DONATION = "donation"
SOURCES = frozenset({"printed", "derived", "designed"})
MIN_INFLUENCE = 1
MAX_INFLUENCE = 9
VOTE_CARD_COUNT = 17
DONATION_CARD_COUNT = 24
PARTY_COUNT = 4

CARD_FIELDS = ("id", "amount", "influence", "label")
SECTIONS: Mapping[str, tuple[str, ...]] = {
    "about": (),
    "influence_range": ("min", "max"),
    "parties": ("party", "name"),
    "angelus": ("name",),
    "vote_cards": CARD_FIELDS,
    "donation_cards": CARD_FIELDS,
}
"""The sections of ``content.json`` and the members of their entries besides ``source`` and
``note``: the loader refuses any other (``hustings.engine.content_shape``)."""

PRESENTATION: tuple[str, ...] = (
    "about",
    "**.note",
    "**.source",
    "parties[].name",
    "angelus.name",
    "vote_cards[].label",
    "donation_cards[].label",
)
"""The members of ``content.json`` that only players read (``hustings.engine.base`` explains the
patterns): the rules never read them, so an edit to them keeps the games in play (CONTENT.md)."""


class ContentError(ValueError):
    """The content data is not a valid Stimmvieh deck."""


@dataclass(frozen=True)
class Card:
    """A vote card (``amount`` in thousands of votes) or a donation card (thousands of euros)."""

    card_id: str
    kind: str
    amount: int
    influence: int
    label: str


@dataclass(frozen=True)
class Content:
    """Everything the rules read from the data file."""

    party_names: tuple[str, ...]
    angelus_name: str
    vote_cards: tuple[Card, ...]
    donation_cards: tuple[Card, ...]


def _source(entry: Mapping[str, Any], where: str) -> None:
    if entry.get("source") not in SOURCES:
        raise ContentError(f"{where}: source must be one of {sorted(SOURCES)}, got {entry.get('source')!r}")
    if "note" in entry and not isinstance(entry["note"], str):
        raise ContentError(f"{where}: note must be a string")


def _cards(entries: Any, kind: str, prefix: str, count: int) -> tuple[Card, ...]:
    if not isinstance(entries, list) or len(entries) != count:
        raise ContentError(f"{kind} cards: expected a list of {count}, got {len(entries) if isinstance(entries, list) else entries!r}")
    cards = []
    for index, entry in enumerate(entries):
        where = f"{kind} card #{index + 1}"
        if not isinstance(entry, dict):
            raise ContentError(f"{where}: expected an object")
        _source(entry, where)
        card_id, amount, influence, label = (entry.get(k) for k in ("id", "amount", "influence", "label"))
        if not (isinstance(card_id, str) and len(card_id) == 3 and card_id[0] == prefix and card_id[1:].isdigit()):
            raise ContentError(f"{where}: id must look like {prefix}01, got {card_id!r}")
        if card_id == f"{prefix}00":
            raise ContentError(f"{where}: id {card_id} is reserved for the custom vote card")
        if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
            raise ContentError(f"{where} ({card_id}): amount must be a positive integer, got {amount!r}")
        if not isinstance(influence, int) or isinstance(influence, bool) or not MIN_INFLUENCE <= influence <= MAX_INFLUENCE:
            raise ContentError(f"{where} ({card_id}): influence must be {MIN_INFLUENCE}..{MAX_INFLUENCE}, got {influence!r}")
        if not isinstance(label, str) or not label.strip():
            raise ContentError(f"{where} ({card_id}): label must be a non-empty string")
        cards.append(Card(card_id, kind, amount, influence, label))
    return tuple(cards)


def _influence_range(entry: Any) -> None:
    """The influences the cards may carry: the rules hold ``MIN_INFLUENCE..MAX_INFLUENCE`` in code
    (every party's nine politicians), so the file, which the catalogue shows, must say the same."""
    if not isinstance(entry, dict):
        raise ContentError("influence_range: expected an object with min and max")
    _source(entry, "influence_range")
    low, high = entry.get("min"), entry.get("max")
    if (low, high) != (MIN_INFLUENCE, MAX_INFLUENCE) or type(low) is not int or type(high) is not int:
        raise ContentError(
            f"influence_range: the rules use influence {MIN_INFLUENCE}..{MAX_INFLUENCE} (the politicians'), got {low!r}..{high!r}"
        )


def parse_content(data: Mapping[str, Any]) -> Content:
    """Validate the decoded JSON of a content file and build the deck. Raises ContentError."""
    refuse_unknown_members(data, SECTIONS, ContentError)
    _influence_range(data.get("influence_range"))
    parties = data.get("parties")
    if not isinstance(parties, list) or len(parties) != PARTY_COUNT:
        raise ContentError(f"parties: expected a list of {PARTY_COUNT}")
    names = []
    for index, entry in enumerate(parties):
        if not isinstance(entry, dict) or entry.get("party") != index:
            raise ContentError(f"party #{index}: expected an object with party={index}")
        _source(entry, f"party {index}")
        if not isinstance(entry.get("name"), str) or not entry["name"].strip():
            raise ContentError(f"party {index}: name must be a non-empty string")
        names.append(entry["name"])
    angelus = data.get("angelus")
    if not isinstance(angelus, dict) or not isinstance(angelus.get("name"), str) or not angelus["name"]:
        raise ContentError("angelus: expected an object with a name")
    _source(angelus, "angelus")
    votes = _cards(data.get("vote_cards"), VOTE, "V", VOTE_CARD_COUNT)
    donations = _cards(data.get("donation_cards"), DONATION, "D", DONATION_CARD_COUNT)
    refuse_repeated_ids((card.card_id for card in votes), "vote_cards", ContentError)
    refuse_repeated_ids((card.card_id for card in donations), "donation_cards", ContentError)
    amounts = [card.amount for card in donations]
    if len(set(amounts)) != len(amounts):
        raise ContentError("donation cards must all have different amounts (printed)")
    return Content(tuple(names), angelus["name"], votes, donations)


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
