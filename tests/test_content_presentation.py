"""The content members each game declares presentation only (``PRESENTATION`` in its content
module) are not read by its rules, and every other member is in its rules version.

The first is played out: a copy of the package whose content file has every presentation member
edited (every label, name, note, source and text; tests/content_copies.py) plays the same seeded
random games, in a fresh interpreter, as the installed package (tests/content_trace.py). At
every step the same seats act with the same legal moves (their protobuf bytes), the same move is
made and the stored state after it is byte for byte the same; the outcomes are the same but for
the names and detail text of the placings. The copy's catalogue shows the edited texts, and its
rules version is the installed one, so a replica built from it plays on the games in play.
A member of the rules wrongly declared presentation is caught by the same comparison (a vote
amount, below).
"""

from __future__ import annotations

import importlib
import json
import pathlib
import subprocess
from typing import Any

import pytest

from content_copies import (
    MARK,
    PYTHON,
    content_data,
    edited_value,
    environment,
    located_leaves,
    package_copy,
    with_every_member_edited,
    with_every_member_rotated,
    edited_in_place,
)
from hustings.engine.base import format_path, is_presentation, rules_version
from hustings.engine.registry import get_catalogue

KINDS = ("stimmvieh", "wahlspiel", "spin_doctors")
SEEDS = {"stimmvieh": 2, "wahlspiel": 1, "spin_doctors": 1}
"""Random games per option set the game samples (Stimmvieh's are short, so two)."""
MAX_STEPS = 3000
"""Far above a random game's length (at most about 460 steps), so that every game ends."""
TRACE = pathlib.Path(__file__).resolve().parent / "content_trace.py"
TIMEOUT_S = 120


def presentation(kind: str) -> tuple[str, ...]:
    declared: tuple[str, ...] = importlib.import_module(f"hustings.engine.{kind}.content").PRESENTATION
    return declared


def traces(kind: str, roots: list[pathlib.Path | None]) -> list[dict[str, Any]]:
    """The trace of ``kind`` under each package copy (None: the installed package), the
    interpreters running side by side."""
    args = [PYTHON, str(TRACE), kind, str(SEEDS[kind]), str(MAX_STEPS)]
    children = [subprocess.Popen(args, env=environment(root), stdout=subprocess.PIPE, stderr=subprocess.PIPE) for root in roots]
    found = []
    for child in children:
        out, err = child.communicate(timeout=TIMEOUT_S)
        assert child.returncode == 0, err.decode(errors="replace")[-3000:]
        found.append(json.loads(out))
    return found


def differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Where what the rules decided differs: the first step of each game that differs, and
    outcomes that differ (names and detail text aside)."""
    found = []
    assert before["games"].keys() == after["games"].keys()
    for name, game in before["games"].items():
        other = after["games"][name]
        steps = next((i for i, (a, b) in enumerate(zip(game["steps"], other["steps"])) if a != b), None)
        if steps is not None or len(game["steps"]) != len(other["steps"]):
            found.append(f"{name}: step {steps if steps is not None else min(len(game['steps']), len(other['steps']))}")
        if game["outcome"] != other["outcome"]:
            found.append(f"{name}: outcome {game['outcome']} became {other['outcome']}")
    return found


def edited_copy(kind: str, declared: tuple[str, ...], root: pathlib.Path) -> tuple[pathlib.Path, int]:
    changed, count = with_every_member_edited(content_data(kind), declared)
    return package_copy(root, {kind: changed}), count


@pytest.mark.parametrize("kind", KINDS)
def test_presentation_members_are_not_read_by_the_rules(kind: str, tmp_path: pathlib.Path) -> None:
    declared = presentation(kind)
    root, count = edited_copy(kind, declared, tmp_path / "edited")
    assert count >= 90  # every label, name, note and source of the file
    rotated, moved = with_every_member_rotated(content_data(kind), declared)
    assert moved >= 30
    before, after, passed_on = traces(kind, [None, root, package_copy(tmp_path / "rotated", {kind: rotated})])
    assert passed_on["rules_version"] == before["rules_version"]
    assert differences(before, passed_on) == []  # equal texts, and their order, are not what rules read either
    assert after["imported_from"].startswith(str(root)) and not before["imported_from"].startswith(str(root))
    catalogue = get_catalogue(kind)
    assert catalogue is not None
    assert before["content_version"] == catalogue.content_version != after["content_version"]
    assert before["rules_version"] == catalogue.rules_version == after["rules_version"]
    assert MARK not in before["catalogue"] and MARK in after["catalogue"]  # the copy shows the edited texts
    assert differences(before, after) == []
    if kind != "spin_doctors":  # its players are named by colour, an identifier the rules read
        assert any(MARK in game["view"] for game in after["games"].values())  # the views show them too


def test_a_rule_member_declared_presentation_is_caught(tmp_path: pathlib.Path) -> None:
    """The comparison above has the power to tell: with the vote cards' amounts wrongly
    declared presentation too (each edited: one thousand votes more), the games differ."""
    wrong = (*presentation("stimmvieh"), "vote_cards[].amount")
    root, _ = edited_copy("stimmvieh", wrong, tmp_path)
    before, after = traces("stimmvieh", [None, root])
    assert before["rules_version"] != after["rules_version"]
    assert differences(before, after)


@pytest.mark.parametrize("kind", KINDS)
def test_every_member_the_rules_read_is_in_the_rules_version(kind: str) -> None:
    """Every leaf of the content file, edited alone: a leaf outside the presentation members
    changes the rules version (so the edit retires games in play), one inside keeps it. (Any
    edit changes the content version, and so the catalogue's ETag: test_catalogue_content.py.)"""
    data, declared = content_data(kind), presentation(kind)
    rules = rules_version(data, declared)
    kept, retired = [], []
    for keys, path, value in located_leaves(data):
        with edited_in_place(data, keys, edited_value(value)):
            same = rules_version(data, declared) == rules
        assert same == is_presentation(path, declared), f"{format_path(path)} {keys}"
        (kept if same else retired).append(format_path(path))
    assert kept and retired
    assert {"about"} <= set(kept) and not {p for p in retired if p.endswith((".note", ".source", ".label"))}


@pytest.mark.parametrize("kind", KINDS)
def test_the_declaration_names_only_members_of_the_file(kind: str) -> None:
    data = content_data(kind)
    with pytest.raises(ValueError, match="names nothing"):
        rules_version(data, (*presentation(kind), "no_such_member[].label"))
    assert rules_version(data, presentation(kind)) == get_catalogue(kind).rules_version  # type: ignore[union-attr]


def _without(data: Any, member: str) -> Any:
    """``data`` with every ``member`` member deleted, at any depth."""
    if isinstance(data, dict):
        return {k: _without(v, member) for k, v in data.items() if k != member}
    if isinstance(data, list):
        return [_without(v, member) for v in data]
    return data


@pytest.mark.parametrize("kind", KINDS)
def test_deleting_every_note_keeps_the_rules_version(kind: str) -> None:
    """Notes are presentation: a file with every note deleted has the same rules version, and a
    declaration that names them at any depth ("**.note") still loads without them."""
    data = content_data(kind)
    bare = _without(data, "note")
    assert bare != data
    assert rules_version(bare, presentation(kind)) == rules_version(data, presentation(kind))
