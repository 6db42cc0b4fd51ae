"""Deterministic JSON for a full Spin Doctors state (storage only: it holds every secret)."""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any

from hustings.engine.spin_doctors.model import Played, Player, SpinDoctorsOptions, Spot, State, Task

FORMAT = 1


def dump_state(state: State) -> bytes:
    """The state as canonical JSON bytes (sorted keys, no spaces): equal states, equal bytes."""
    data = {f.name: getattr(state, f.name) for f in fields(State)}
    data["options"] = {"players": state.options.players}
    for name, cls in _NESTED.items():
        names = _FIELDS[cls]
        data[name] = [{n: getattr(item, n) for n in names} for item in data[name]]
    data["format"] = FORMAT
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


_NESTED = {"seats": Player, "spots": Spot, "board": Played, "tasks": Task}
_FIELDS = {cls: tuple(f.name for f in fields(cls)) for cls in _NESTED.values()}


def _list(cls: Any, items: Any) -> list[Any]:
    if not isinstance(items, list):
        raise ValueError(f"stored {cls.__name__} list expected")
    return [cls(**item) for item in items]


def load_state(raw: bytes) -> State:
    """The inverse of ``dump_state``. Raises ValueError on data it did not write."""
    try:
        data = json.loads(raw.decode("utf-8"))
        if data.pop("format") != FORMAT:
            raise ValueError("unknown Spin Doctors state format")
        data["options"] = SpinDoctorsOptions(**data["options"])
        data["seats"] = _list(Player, data["seats"])
        data["spots"] = _list(Spot, data["spots"])
        data["board"] = _list(Played, data["board"])
        data["tasks"] = _list(Task, data["tasks"])
        return State(**data)
    except (KeyError, TypeError, AttributeError, json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"not a stored Spin Doctors state: {error}") from error
