"""Each game's CONTENT.md: "An entry that holds values of several kinds ... says the least printed
of them, and its note names the rest". An entry marked printed whose note calls a part of it
derived or designed, or one marked derived whose note calls a part designed, misleads whoever
looks for what was invented (31 such entries were found: a Staffer's designed costs under
"derived", Dazebook's designed influence under "printed")."""

from __future__ import annotations

import json
import pathlib
import re
from typing import Any, Iterator

import pytest

ENGINE = pathlib.Path(__file__).resolve().parent.parent / "engine"
KINDS = ("stimmvieh", "wahlspiel", "spin_doctors")
RANK = {"printed": 0, "derived": 1, "designed": 2}


def entries(value: Any, path: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every object of the content that carries a ``source``, with where it is."""
    if isinstance(value, dict):
        if isinstance(value.get("source"), str):
            yield path, value
        for key, inner in value.items():
            yield from entries(inner, f"{path}.{key}")
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from entries(inner, f"{path}[{index}]")


def least_printed_named(note: str) -> int:
    """The rank of the least printed kind the note names (0, printed, when it names none)."""
    return max((rank for word, rank in RANK.items() if re.search(rf"\b{word}\b", note)), default=0)


@pytest.mark.parametrize("kind", KINDS)
def test_every_entry_says_the_least_printed_kind_of_its_values(kind: str) -> None:
    data = json.loads((ENGINE / kind / "content.json").read_text(encoding="utf-8"))
    found = list(entries(data))
    assert len(found) > 20, "the content's entries were not found"
    wrong = [
        (path, entry["source"], entry["note"][:100])
        for path, entry in found
        if RANK[entry["source"]] < least_printed_named(entry.get("note", ""))
    ]
    assert not wrong, wrong


def test_the_check_reads_a_note_as_meant() -> None:
    assert least_printed_named("Designer's hint: amounts printed. Slogan designed.") == RANK["designed"]
    assert least_printed_named("First 3 printed; the rest derived from the total.") == RANK["derived"]
    assert least_printed_named("As printed on the box.") == RANK["printed"]
    assert least_printed_named("") == RANK["printed"]
