"""Deterministic JSON for a full Spin Doctors state (storage only: it holds every secret)."""

from __future__ import annotations

import json
from dataclasses import fields
from functools import lru_cache
from typing import Any

from hustings.engine.jsontext import ENCODE, numbers, scalar, texts
from hustings.engine.spin_doctors.model import Offer, Played, Player, SpinDoctorsOptions, Spot, State, Task, Term

FORMAT = 1
_NESTED = {"seats": Player, "spots": Spot, "board": Played, "tasks": Task}
_STATE_FIELDS = tuple(f.name for f in fields(State))
_KEYS = {cls: frozenset(f.name for f in fields(cls)) for cls in (State, *_NESTED.values())}
# Every move stores the whole state, so its serialisation is on the move path: the text is put
# together field by field in sorted key order (``hustings.engine.jsontext``: the same bytes as
# ``json.dumps``, so stored digests stay valid), the decks' card ids written directly.
_WRITTEN = tuple(sorted(_STATE_FIELDS + ("format",)))
_CARD_LISTS = frozenset(f.name for f in fields(State) if f.type == "list[str]")
_INT_LISTS = frozenset(f.name for f in fields(State) if f.type == "list[int]")


@lru_cache(maxsize=4096)
def _played(played: Played) -> str:
    return ENCODE(vars(played))


def _options(options: SpinDoctorsOptions) -> str:
    if options.scandals_set_aside:
        return f'{{"players":{options.players},"scandals_set_aside":true}}'
    return f'{{"players":{options.players}}}'


def _field(state: State, name: str) -> str:
    value = getattr(state, name)
    if name == "board":  # Staffers played stay as they are: their JSON is kept for the next state
        return "[" + ",".join([_played(item) for item in value]) + "]"
    if name in _NESTED:
        # An entry's attributes are exactly its dataclass fields (no rule adds any).
        return ENCODE([vars(item) for item in value])
    if name in _CARD_LISTS:
        return texts(value)
    if name in _INT_LISTS:
        return numbers(value)
    return scalar(value)


def dump_state(state: State) -> bytes:
    """The state as canonical JSON bytes (sorted keys, no spaces): equal states, equal bytes.

    ``scandals_set_aside`` is written only when set, so games without the variant keep the
    bytes (and the logged state digests) they had before it was stored."""
    pieces = []
    for name in _WRITTEN:
        if name == "offers":
            # Pending offers are written only when there are some, so states without them keep their bytes.
            if state.offers:
                pieces.append('"offers":' + ENCODE([{**vars(offer), "term": vars(offer.term)} for offer in state.offers]))
        elif name == "side_moves":
            # Written only once a side move is counted, so states without any keep their bytes
            # (and states stored before the count existed load with none made).
            if state.side_moves:
                pieces.append('"side_moves":' + numbers(state.side_moves))
        elif name == "options":
            pieces.append('"options":' + _options(state.options))
        elif name == "format":
            pieces.append(f'"format":{FORMAT}')
        else:
            pieces.append(f'"{name}":{_field(state, name)}')
    return ("{" + ",".join(pieces) + "}").encode("utf-8")


def _list(cls: Any, items: Any) -> list[Any]:
    if not isinstance(items, list):
        raise ValueError(f"stored {cls.__name__} list expected")
    keys = _KEYS[cls]
    made = []
    for item in items:
        if not isinstance(item, dict) or item.keys() != keys:
            raise ValueError(f"stored {cls.__name__} has other fields than {sorted(keys)}")
        # The stored fields are exactly the dataclass's, so they become its attributes as they are.
        obj = object.__new__(cls)
        obj.__dict__.update(item)
        made.append(obj)
    return made


def _offer(item: Any) -> Offer:
    term = item["term"]
    if not isinstance(item, dict) or item.keys() != _OFFER_KEYS or not isinstance(term, dict) or term.keys() != _TERM_KEYS:
        raise ValueError("stored offer has other fields than an Offer's")
    return Offer(item["offerer"], item["seat"], item["amount"], Term(**term))


_OFFER_KEYS = frozenset(f.name for f in fields(Offer))
_TERM_KEYS = frozenset(f.name for f in fields(Term))


def _side_moves(counts: Any, players: int) -> list[int]:
    if counts and (not isinstance(counts, list) or len(counts) != players or any(type(n) is not int for n in counts)):
        raise ValueError("stored side moves are not one count per seat")
    return list(counts)


def load_state(raw: bytes) -> State:
    """The inverse of ``dump_state``. Raises ValueError on data it did not write."""
    try:
        data = json.loads(raw)
        if not isinstance(data, dict) or data.pop("format") != FORMAT:
            raise ValueError("unknown Spin Doctors state format")
        data["options"] = SpinDoctorsOptions(**data["options"])
        for name, cls in _NESTED.items():
            data[name] = _list(cls, data[name])
        data["offers"] = [_offer(item) for item in data.get("offers", [])]
        data["side_moves"] = _side_moves(data.get("side_moves", []), data["options"].players)
        return State(**data)
    except (KeyError, TypeError, AttributeError, json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"not a stored Spin Doctors state: {error}") from error
