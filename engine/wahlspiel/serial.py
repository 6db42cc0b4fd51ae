"""Deterministic JSON for a full Wahlspiel state (storage only: it holds every secret)."""

from __future__ import annotations

import json
from dataclasses import fields
from functools import lru_cache
from typing import Any

from hustings.engine.jsontext import ENCODE, scalar, texts
from hustings.engine.wahlspiel.model import (
    Ballot,
    Candidate,
    Coalition,
    Offer,
    Party,
    Runoff,
    RunoffSent,
    Verdict,
    WahlspielOptions,
    WahlspielState,
)

FORMAT = 2  # 2: coalition offers are bundles (Offer), drafted and proposed by either side

# Which nested values each stored class holds: field name -> class (single value or tuple of them).
_NESTED: dict[type, dict[str, type]] = {
    WahlspielState: {
        "options": WahlspielOptions, "parties": Party, "candidates": Candidate,
        "coalition": Coalition, "ballot": Ballot, "runoff": Runoff,
    },
    Coalition: {"pending": Offer, "draft": Offer},
    Ballot: {"verdicts": Verdict},
    Runoff: {"sent": RunoffSent},
}


def _plain(value: Any) -> Any:
    """A stored dataclass as a dict of JSON values (tuples of strings stay tuples: JSON arrays)."""
    nested = _NESTED.get(type(value), {})
    out = dict(value.__dict__)
    for key, inner in nested.items():
        item = out[key]
        if isinstance(item, tuple):
            out[key] = [_plain(v) for v in item]
        elif item is not None:
            out[key] = _plain(item)
    return out


def _build(cls: type, data: Any) -> Any:
    if not isinstance(data, dict):
        raise ValueError(f"stored {cls.__name__} must be an object")
    nested = _NESTED.get(cls, {})
    values = {}
    for key, value in data.items():
        inner = nested.get(key)
        if inner is not None and isinstance(value, list):
            values[key] = tuple(_build(inner, v) for v in value)
        elif inner is not None and value is not None:
            values[key] = _build(inner, value)
        elif isinstance(value, list):
            values[key] = tuple(value)
        else:
            values[key] = value
    return cls(**values)


# Every move stores the whole state, so its serialisation is on the move path: the text is put
# together field by field in sorted key order (``hustings.engine.jsontext``: the same bytes as
# ``json.dumps``, so stored digests stay valid). The stacks of card ids are written directly, and
# the JSON of each nested value (options, a party, a candidate, the coalition, ballot or runoff)
# is kept for the next state, which shares most of them.
FRAGMENTS_KEPT = 8192  # a few dozen per game in play; frozen values, so equal values share one entry
_NESTED_FIELDS = _NESTED[WahlspielState]
_TOP_FIELDS = tuple(sorted([f.name for f in fields(WahlspielState)] + ["format"]))
_CARD_STACKS = frozenset(f.name for f in fields(WahlspielState) if f.type == "tuple[str, ...]")


@lru_cache(maxsize=FRAGMENTS_KEPT)
def _fragment(value: Any) -> str:
    return ENCODE(_plain(value))


def _field(state: WahlspielState, name: str) -> str:
    value = getattr(state, name)
    if name in _NESTED_FIELDS:
        if isinstance(value, tuple):
            return "[" + ",".join([_fragment(item) for item in value]) + "]"
        return "null" if value is None else _fragment(value)
    if name in _CARD_STACKS:
        return texts(value)
    return scalar(value)


def dump_state(state: WahlspielState) -> bytes:
    """The state as canonical JSON bytes (sorted keys, no spaces): equal states, equal bytes."""
    pieces = [f'"{name}":{FORMAT if name == "format" else _field(state, name)}' for name in _TOP_FIELDS]
    return ("{" + ",".join(pieces) + "}").encode("utf-8")


def load_state(raw: bytes) -> WahlspielState:
    """The inverse of ``dump_state``. Raises ValueError on data it did not write."""
    try:
        data = json.loads(raw.decode("utf-8"))
        if data.pop("format") != FORMAT:
            raise ValueError("unknown Wahlspiel state format")
        state = _build(WahlspielState, data)
        assert isinstance(state, WahlspielState)
        return state
    except (KeyError, TypeError, AttributeError, json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"not a stored Wahlspiel state: {error}") from error
