"""Checks every game's content loader shares: a content file holds only the sections and members
its game declares, and an id names one entry of its section.

A member the loader does not know would load as if it were absent: a misspelt ``influnce`` beside
a card's ``influence``, or a new member that the rules were meant to read but never do. So the
loaders refuse it, naming the section, the entry and the member, as they refuse every other
malformed entry (``ContentError`` of the game).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Mapping

COMMON_FIELDS = frozenset({"source", "note"})
"""The members every entry may hold: where it comes from and a note for the reader."""


def entry_name(section: str, entry: Mapping[str, Any], index: int | None = None) -> str:
    """How a message names an entry: its section and id (``vote_cards V02``), else its place in
    the section (``board #4``, counting from 1), else the section alone (an object section)."""
    entry_id = entry.get("id")
    if (isinstance(entry_id, str) and entry_id) or type(entry_id) is int:
        return f"{section} {entry_id}"
    return section if index is None else f"{section} #{index + 1}"


def refuse_unknown_fields(entry: Mapping[str, Any], known: Iterable[str], where: str, error: type[Exception]) -> None:
    """Raise ``error`` naming ``where`` and the first member of ``entry`` (in sorted order) that
    ``known`` does not name."""
    allowed = frozenset(known)
    unknown = sorted(str(key) for key in entry if key not in allowed)
    if unknown:
        raise error(f"{where}: unknown field {unknown[0]!r} (the fields are {', '.join(sorted(allowed))})")


def refuse_unknown_members(data: Mapping[str, Any], sections: Mapping[str, Iterable[str]], error: type[Exception]) -> None:
    """Check a decoded content file against its shape: ``sections`` names every section of the
    file and the members its entries hold (an object section: its own members; a list section:
    those of each object in it; a plain value such as ``about``: none), besides the
    ``COMMON_FIELDS`` every entry may hold. Raise ``error`` for a section the file should not
    have, or an entry holding a member not named. Entries that are not objects are left to the
    loader, which refuses them with its own message."""
    extra = sorted(str(key) for key in data if key not in sections)
    if extra:
        raise error(f"content: unknown section {extra[0]!r} (the sections are {', '.join(sections)})")
    for section, fields in sections.items():
        known = COMMON_FIELDS | frozenset(fields)
        value = data.get(section)
        if isinstance(value, dict):
            refuse_unknown_fields(value, known, section, error)
        elif isinstance(value, list):
            for index, entry in enumerate(value):
                if isinstance(entry, dict):
                    refuse_unknown_fields(entry, known, entry_name(section, entry, index), error)


def refuse_repeated_ids(ids: Iterable[Any], where: str, error: type[Exception]) -> None:
    """Raise ``error`` naming every id that ``ids`` holds more than once."""
    counts = Counter(ids)
    repeated = sorted(str(i) for i, n in counts.items() if n > 1)
    if repeated:
        raise error(f"{where}: ids must be unique; repeated: {', '.join(repeated)}")
