"""Copies of the installed ``hustings`` package with an edited content file, as an operator makes
one: the tests run a fresh interpreter or a server on such a copy (``PYTHONPATH``), so that its
rules read the edited file at import exactly as a deployed replica does."""

from __future__ import annotations

import contextlib
import copy
import json
import os
import pathlib
import shutil
import sys
from importlib import resources
from typing import Any, Iterator, Mapping

import hustings
import hustings.engine
import hustings.service
from hustings.engine.base import LIST_ITEM, Path, is_presentation

MARK = " ✎"
"""What an edited string gains: a mark no content file holds, so that a view or catalogue shows
whether the edited text reached it."""

SOURCES = ("printed", "derived", "designed")


def content_data(kind: str) -> Any:
    """The decoded content file of ``kind`` as installed."""
    return json.loads(resources.files(f"hustings.engine.{kind}").joinpath("content.json").read_text(encoding="utf-8"))


def edited_value(value: Any) -> Any:
    """Another value of the same kind, valid wherever ``value`` is: a source becomes the next
    source, a text gains ``MARK``, a number one more, a flag its opposite; an empty list or
    object and a null become a non-empty one."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, str):
        return SOURCES[(SOURCES.index(value) + 1) % len(SOURCES)] if value in SOURCES else value + MARK
    if value is None:
        return 1
    if value == []:
        return [MARK]
    if value == {}:
        return {"edited": MARK}
    raise TypeError(f"no edit for {value!r}")


@contextlib.contextmanager
def edited_in_place(data: Any, keys: tuple[Any, ...], value: Any) -> Iterator[None]:
    """``data`` with the leaf at ``keys`` (keys and list positions) set to ``value`` while the
    block runs, as it was afterwards."""
    holder = data
    for key in keys[:-1]:
        holder = holder[key]
    before = holder[keys[-1]]
    holder[keys[-1]] = value
    try:
        yield
    finally:
        holder[keys[-1]] = before


def located_leaves(data: Any, keys: tuple[Any, ...] = (), path: Path = ()) -> list[tuple[tuple[Any, ...], Path, Any]]:
    """Every leaf of decoded JSON (a value that is neither an object nor a list; an empty one
    counts) as (keys and list positions, its path with "[]" for a list element, value)."""
    if isinstance(data, dict) and data:
        return [leaf for key, value in data.items() for leaf in located_leaves(value, (*keys, key), (*path, str(key)))]
    if isinstance(data, list) and data:
        return [leaf for i, value in enumerate(data) for leaf in located_leaves(value, (*keys, i), (*path, LIST_ITEM))]
    return [(keys, path, data)]


def with_every_member_edited(data: Any, presentation: tuple[str, ...]) -> tuple[Any, int]:
    """``data`` with every leaf inside a member that ``presentation`` names edited
    (``edited_value``), and how many were."""
    changed, count = copy.deepcopy(data), 0
    for keys, path, value in located_leaves(data):
        if is_presentation(path, presentation):
            holder = changed
            for key in keys[:-1]:
                holder = holder[key]
            holder[keys[-1]] = edited_value(value)
            count += 1
    return changed, count


def with_every_member_rotated(data: Any, presentation: tuple[str, ...]) -> tuple[Any, int]:
    """``data`` with the texts of each presentation member passed on along its list: the entries
    that share a member's path (every label of the vote cards, say) each take the next one's
    text, the last the first's. Unlike ``edited_value``, which keeps equal texts equal and their
    order, this changes which entries' texts are equal and how they sort, so that rules that
    compared or sorted by them would decide otherwise. How many leaves changed."""
    changed = copy.deepcopy(data)
    groups: dict[Path, list[tuple[tuple[Any, ...], str]]] = {}
    for keys, path, value in located_leaves(data):
        if is_presentation(path, presentation) and isinstance(value, str):
            groups.setdefault(path, []).append((keys, value))
    count = 0
    for leaves in groups.values():
        for (keys, value), (_, following) in zip(leaves, leaves[1:] + leaves[:1]):
            if following != value:
                holder = changed
                for key in keys[:-1]:
                    holder = holder[key]
                holder[keys[-1]] = following
                count += 1
    return changed, count


def package_copy(root: pathlib.Path, contents: Mapping[str, Any]) -> pathlib.Path:
    """A copy of the installed ``hustings`` package (its engine and service in place) under
    ``root``, with the content file of each kind in ``contents`` replaced by that data; returns
    ``root``, the folder to put first on ``PYTHONPATH``."""
    package = root / "hustings"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(pathlib.Path(hustings.__file__).parent, package, ignore=ignore)
    for name, module in (("engine", hustings.engine), ("service", hustings.service)):
        source = pathlib.Path(str(module.__file__)).parent
        shutil.copytree(source, package / name, ignore=ignore, dirs_exist_ok=True)
    for kind, data in contents.items():
        (package / "engine" / kind / "content.json").write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return root


def environment(root: pathlib.Path | None) -> dict[str, str]:
    """The environment of a child interpreter that imports ``hustings`` from ``root`` (None:
    the installed package)."""
    env = dict(os.environ)
    if root is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(root), *filter(None, [env.get("PYTHONPATH")])])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


PYTHON = sys.executable
