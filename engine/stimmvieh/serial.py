"""Deterministic JSON for a full Stimmvieh state (storage only: it holds every secret)."""

from __future__ import annotations

import json
from dataclasses import fields
from functools import cache
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


@cache
def _names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def _flat(obj: Any) -> dict[str, Any]:
    return {name: getattr(obj, name) for name in _names(type(obj))}


def _build(cls: type[T], data: Any) -> T:
    if not isinstance(data, dict):
        raise ValueError(f"stored {cls.__name__} must be an object")
    return cls(**{key: tuple(value) if isinstance(value, list) else value for key, value in data.items()})


def dump_state(state: StimmviehState) -> bytes:
    """The state as canonical JSON bytes (sorted keys, no spaces): equal states, equal bytes."""
    data = _flat(state)
    data["options"] = _flat(state.options)
    data["parties"] = [_flat(p) for p in state.parties]
    data["campaign_results"] = [
        {"campaign": r.campaign, "results": [_flat(x) for x in r.results]} for r in state.campaign_results
    ]
    data["format"] = FORMAT
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


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
