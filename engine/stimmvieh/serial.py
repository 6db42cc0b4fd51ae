"""Deterministic JSON for a full Stimmvieh state (storage only: it holds every secret)."""

from __future__ import annotations

import json
from dataclasses import fields
from functools import cache, lru_cache
from typing import Any, TypeVar

from hustings.engine.stimmvieh.model import (
    CampaignRecord,
    CampaignResult,
    PartyState,
    StimmviehOptions,
    StimmviehState,
)

FORMAT = 1
T = TypeVar("T")


def _build(cls: type[T], data: Any) -> T:
    if not isinstance(data, dict):
        raise ValueError(f"stored {cls.__name__} must be an object")
    return cls(**{key: tuple(value) if isinstance(value, list) else value for key, value in data.items()})


# Every move stores the whole state, so its serialisation is on the move path. The bytes are
# exactly those of ``json.dumps(..., sort_keys=True, separators=(",", ":"), ensure_ascii=False)``
# (stored digests stay valid), produced more cheaply: dicts are built in sorted key order (no
# sorting), one encoder is reused without its cycle check (the values are trees), and the JSON
# of the options and of each party is kept for the next state, which shares most of them.
_ENCODE = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False).encode
_TOP_KEYS = tuple(sorted([f.name for f in fields(StimmviehState)] + ["format"]))
# Stand-ins for the options and the parties in the top-level encoding, replaced by their cached
# JSON. A key followed by a number cannot occur inside an encoded string (its quotes are escaped).
_OPTIONS_STAND_IN = -9_000_000_000_000_000_001
_PARTIES_STAND_IN = -9_000_000_000_000_000_002
FRAGMENTS_KEPT = 4096  # a few per game in play; frozen values, so equal values share one entry


@cache
def _sorted_names(cls: type) -> tuple[str, ...]:
    return tuple(sorted(f.name for f in fields(cls)))


def _flat_sorted(obj: Any) -> dict[str, Any]:
    return {name: getattr(obj, name) for name in _sorted_names(type(obj))}


@lru_cache(maxsize=FRAGMENTS_KEPT)
def _fragment(value: StimmviehOptions | PartyState) -> str:
    return _ENCODE(_flat_sorted(value))


def dump_state(state: StimmviehState) -> bytes:
    """The state as canonical JSON bytes (sorted keys, no spaces): equal states, equal bytes."""
    data: dict[str, Any] = {}
    for name in _TOP_KEYS:
        if name == "options":
            data[name] = _OPTIONS_STAND_IN
        elif name == "parties":
            data[name] = _PARTIES_STAND_IN
        elif name == "campaign_results":
            data[name] = [
                {"campaign": r.campaign, "results": [_flat_sorted(x) for x in r.results]} for r in state.campaign_results
            ]
        elif name == "format":
            data[name] = FORMAT
        else:
            data[name] = getattr(state, name)
    text = _ENCODE(data)
    text = text.replace(f'"options":{_OPTIONS_STAND_IN}', '"options":' + _fragment(state.options), 1)
    parties = "[" + ",".join([_fragment(p) for p in state.parties]) + "]"
    text = text.replace(f'"parties":{_PARTIES_STAND_IN}', '"parties":' + parties, 1)
    return text.encode("utf-8")


def load_state(raw: bytes) -> StimmviehState:
    """The inverse of ``dump_state``. Raises ValueError on data it did not write."""
    try:
        data = json.loads(raw.decode("utf-8"))
        if data.pop("format") != FORMAT:
            raise ValueError("unknown Stimmvieh state format")
        data["options"] = _build(StimmviehOptions, data["options"])
        data["parties"] = [_build(PartyState, p) for p in data["parties"]]
        data["campaign_results"] = [
            CampaignRecord(r["campaign"], tuple(_build(CampaignResult, x) for x in r["results"]))
            for r in data["campaign_results"]
        ]
        return _build(StimmviehState, data)
    except (KeyError, TypeError, AttributeError, json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"not a stored Stimmvieh state: {error}") from error
