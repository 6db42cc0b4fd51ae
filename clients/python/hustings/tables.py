"""How the terminal player shows a game: a compact table, events in words, labels for move parts.

One module per game kind draws its table (``table_stimmvieh``, ``table_wahlspiel``,
``table_spin_doctors``); they are registered here under the view's ``game`` field. A kind that
has none is shown field by field (protobuf text format, cut to a screenful), so a new game plays
in the terminal before anyone draws it.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Callable

from google.protobuf import json_format, text_format

from hustings.move_entry import Labeller, words
from hustings.v1 import game_pb2

# A fallback table longer than this is cut: a prompt should fit on a screen.
FALLBACK_LINES = 40
# Tables wrap their lines at this width, continuing them indented.
WIDTH = 120


def seat_name(view: game_pb2.GameView, seat: int) -> str:
    """The display name of ``seat``, or "you" for the viewer's own seat."""
    if view.HasField("seat") and view.seat == seat:
        return "you"
    for s in view.seats:
        if s.seat == seat and s.display_name:
            return s.display_name
    return f"seat {seat}"


def subject(who: str, verb: str) -> str:
    """``who`` and a present-tense ``verb`` given in its third-person form ("gains"), agreeing
    with "you" for the viewer's own seat: ``you gain``, ``Bot 1 gains``."""
    return f"you {verb[:-1]}" if who == "you" else f"{who} {verb}"


def quantity(count: int, noun: str) -> str:
    """A count with its noun in the number it takes: ``1 card``, ``2 cards``, ``0 cards``."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def possessive(view: game_pb2.GameView, seat: int) -> str:
    """``your`` for the viewer's seat, else ``Bot 1's``."""
    name = seat_name(view, seat)
    return "your" if name == "you" else f"{name}'s"


def wrap(lines: list[str]) -> str:
    """Lines joined, each longer than WIDTH wrapped with an indented continuation (an item
    holding several lines is taken line by line)."""
    out: list[str] = []
    for line in (part for text in lines for part in text.split("\n")):
        indent = " " * (len(line) - len(line.lstrip()) + 4)
        out.extend(textwrap.wrap(line, WIDTH, subsequent_indent=indent, break_on_hyphens=False) or [""])
    return "\n".join(out)


def _no_labels(_name: str, _value: object) -> str | None:
    return None


def fallback_table(view: game_pb2.GameView) -> str:
    """The game's own view in protobuf text format, cut to a screenful."""
    field = view.WhichOneof("game")
    if not field:
        return ""
    lines = text_format.MessageToString(getattr(view, field)).rstrip().splitlines()
    if len(lines) > FALLBACK_LINES:
        lines = lines[:FALLBACK_LINES] + [f"… ({len(lines) - FALLBACK_LINES} more lines)"]
    return "\n".join(lines)


def fallback_tell(event: game_pb2.Event, view: game_pb2.GameView) -> str | None:
    """Any event in plain words: its kind and its fields."""
    body = event.WhichOneof("body")
    if body is None:
        return None
    inner = getattr(event, body)
    if inner.DESCRIPTOR.oneofs_by_name.get("kind") is not None and inner.WhichOneof("kind"):
        name = inner.WhichOneof("kind")
        inner = getattr(inner, name)
    else:
        name = body
    fields = json_format.MessageToDict(inner, preserving_proto_field_name=True)
    said = ", ".join(f"{words(k)} {v}" for k, v in fields.items())
    who = f"{seat_name(view, event.seat)}: " if event.HasField("seat") else ""
    return f"{who}{words(name)}" + (f" ({said})" if said else "")


@dataclass(frozen=True)
class GameText:
    """How the terminal shows one game kind."""

    table: Callable[[game_pb2.GameView], str]
    """The table as the viewer may see it, a screenful at most."""
    tell: Callable[[game_pb2.Event, game_pb2.GameView], "str | None"] = fallback_tell
    """An event in words, with names from the viewer's latest view; None to say nothing."""
    labeller: Callable[[game_pb2.GameView], Labeller] = lambda _view: _no_labels
    """Words for the values of move parts (card texts, names) in this view."""


FALLBACK = GameText(fallback_table)


def game_text(view: game_pb2.GameView) -> GameText:
    """The GameText of the view's kind, or the field-by-field fallback."""
    from hustings import table_spin_doctors, table_stimmvieh, table_wahlspiel

    texts = {"stimmvieh": table_stimmvieh.TEXT, "wahlspiel": table_wahlspiel.TEXT, "spin_doctors": table_spin_doctors.TEXT}
    return texts.get(view.WhichOneof("game") or "", FALLBACK)

