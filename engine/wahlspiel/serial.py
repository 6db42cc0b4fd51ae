"""Deterministic JSON for a full Wahlspiel state (storage only: it holds every secret)."""

from __future__ import annotations

import json
from typing import Any

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


def dump_state(state: WahlspielState) -> bytes:
    """The state as canonical JSON bytes (sorted keys, no spaces): equal states, equal bytes."""
    data = _plain(state)
    data["format"] = FORMAT
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


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
