"""Canonical JSON written piece by piece, for the games' stored states.

Every move stores its game's whole state as ``json.dumps(..., sort_keys=True, separators=(",",
":"), ensure_ascii=False)``, and the log keeps a digest of those bytes, so the bytes may never
change. Encoding the whole tree on every move costs most in its long tuples of card ids, which
JSON writes as they stand: these pieces write such values directly, and anything that JSON would
escape goes through the json module, so the text is the json module's to the byte. A game's
``serial`` module puts its state together from them in sorted key order, keeping the text of
frozen parts that the next state shares (``kept_by_identity``).
"""

from __future__ import annotations

import json
from typing import Any, Callable, TypeVar

T = TypeVar("T")
R = TypeVar("R")

ENCODE = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, check_circular=False).encode
"""``json.dumps`` with the stored states' settings; the cycle check is left out (states are trees)."""


def written_as_is(text: str) -> bool:
    """True when JSON (``ensure_ascii=False``) writes ``text`` unescaped: it escapes only quotes,
    backslashes and control characters, and a printable string has no control characters."""
    return text.isprintable() and '"' not in text and "\\" not in text


def text(value: str) -> str:
    """A string's JSON."""
    return f'"{value}"' if written_as_is(value) else ENCODE(value)


def texts(values: tuple[str, ...] | list[str]) -> str:
    """The JSON array of a sequence of strings (card ids: one check for the whole stack); any
    other sequence is written by the json module."""
    if not values:
        return "[]"
    try:
        if written_as_is("".join(values)):
            return '["' + '","'.join(values) + '"]'
    except TypeError:  # not all strings
        pass
    return ENCODE(values)


def number(value: int | None) -> str:
    """An int's JSON, or null."""
    return "null" if value is None else str(value)


SMALL_INTS = {number: str(number) for number in range(256)}
"""The text of every small int (influences, seats, rounds): ``str`` of an int costs several times
a dict lookup."""


def numbers(values: tuple[int, ...] | list[int]) -> str:
    """The JSON array of a sequence of ints."""
    try:
        return "[" + ",".join([SMALL_INTS[value] for value in values]) + "]"
    except KeyError:  # a larger or negative int
        return "[" + ",".join(map(str, values)) + "]"


def scalar(value: Any) -> str:
    """The JSON of a str, an int, a bool or None (anything else goes through the json module)."""
    kind = type(value)
    if kind is str:
        return text(value)
    if kind is int:
        return str(value)
    if kind is bool:
        return "true" if value else "false"
    if value is None:
        return "null"
    return ENCODE(value)


KEPT = 4096
"""Texts each ``kept_by_identity`` writer keeps: several for every game a replica has in play."""


def kept_by_identity(write: Callable[[T], R], size: int = KEPT) -> Callable[[T], R]:
    """``write`` for immutable values, keeping what it wrote for the last ``size`` values (their
    text; a codec keeps messages, which its callers copy).

    A new state shares every unchanged part with the state before it, so the part's text is
    found by the part's identity: no hashing or comparing of the value (a frozen dataclass
    hashes every field on each lookup, in Python). Each kept text holds its value, so no other
    object can take that identity while the text is kept. When ``size`` texts are kept they are
    all let go at once (the next state of each game writes its parts afresh): clearing is atomic,
    so writers may run on several threads.
    """
    texts: dict[int, tuple[T, R]] = {}

    def kept(value: T) -> R:
        found = texts.get(id(value))
        if found is not None and found[0] is value:
            return found[1]
        written = write(value)
        if len(texts) >= size:
            texts.clear()
        texts[id(value)] = (value, written)
        return written

    kept.__doc__ = write.__doc__
    return kept


def _one_encoder() -> Callable[[Any, int], Any] | None:
    """One C encoder with ``ENCODE``'s settings, made once: ``ENCODE`` makes a new one on every
    call (in Python, through ``iterencode``), which costs more than writing a small object."""
    settings = ENCODE.__self__  # type: ignore[attr-defined]
    make = json.encoder.c_make_encoder
    if make is None or settings.indent is not None or settings.ensure_ascii:
        return None
    return make(  # type: ignore[no-any-return]
        None, settings.default, json.encoder.encode_basestring, None, settings.key_separator,
        settings.item_separator, settings.sort_keys, settings.skipkeys, settings.allow_nan,
    )


_ENCODER = _one_encoder()


def compound(value: dict[str, Any] | list[Any]) -> str:
    """The JSON of a dict or a list, as ``ENCODE`` writes it, through one encoder kept for all
    calls (the encoder keeps no state between calls: no cycle check, states are trees)."""
    if _ENCODER is None or type(value) not in (dict, list):
        return ENCODE(value)
    return "".join(_ENCODER(value, 0))
