"""Deterministic JSON for a full Spin Doctors state (storage only: it holds every secret)."""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any, Callable

from hustings.engine.jsontext import ENCODE, SMALL_INTS, kept_by_identity, numbers, text, texts
from hustings.engine.spin_doctors.model import Offer, Played, Player, SpinDoctorsOptions, Spot, State, Task, Term

FORMAT = 1
_NESTED = {"seats": Player, "spots": Spot, "board": Played, "tasks": Task}
_STATE_FIELDS = tuple(f.name for f in fields(State))
_KEYS = {cls: frozenset(f.name for f in fields(cls)) for cls in (State, *_NESTED.values())}

# Every move stores the whole state, so its serialisation is on the move path: the text is put
# together field by field in sorted key order (``hustings.engine.jsontext``: the same bytes as
# ``json.dumps``, so stored digests stay valid). A step clones the seats and the Localities and
# changes one or two of them, so a Locality's text is kept by its value (built as a tuple and
# hashed in C); Staffers on the board and tasks are frozen and shared by the next state, so
# theirs is kept by identity (hashing a frozen dataclass runs Python over every field). A seat
# changes on most steps and is written directly: its numbers from a table, its cards as they are.
_INTS = {**SMALL_INTS, -1: "-1"}
"""The text of every int a state holds in its scalar fields (-1: no winner yet)."""
_BOOLS = {True: "true", False: "false"}


def _int(value: int) -> str:
    """An int's JSON; a table lookup for the usual ones, the json module for anything else."""
    if type(value) is int:
        found = _INTS.get(value)
        if found is not None:
            return found
    return ENCODE(value)


@kept_by_identity
def _played(played: Played) -> str:
    return ENCODE(vars(played))


@kept_by_identity
def _task(task: Task) -> str:
    return ENCODE(vars(task))


KEPT_LOCALITIES = 1 << 13
"""Locality texts kept by value: a game changes a few per decision, ten lie on every table."""
_LOCALITIES: dict[tuple[Any, ...], str] = {}


def _spot(spot: Spot) -> str:
    key = (spot.turnout_card, spot.topic_card, tuple(spot.turnout), tuple(spot.red), tuple(spot.white), tuple(spot.activity))
    found = _LOCALITIES.get(key)
    if found is None:
        # An entry's attributes are exactly its dataclass fields (no rule adds any).
        found = ENCODE(vars(spot))
        if len(_LOCALITIES) >= KEPT_LOCALITIES:
            _LOCALITIES.clear()  # atomic: the next states write their Localities afresh
        _LOCALITIES[key] = found
    return found


def _player(player: Player) -> str:
    gave, budget, pool, poll_step, supply = player.gave, player.budget, player.pool, player.poll_step, player.supply
    if not (type(gave) is bool and type(budget) is int and type(pool) is int and type(poll_step) is int
            and type(supply) is int and budget in _INTS and pool in _INTS and poll_step in _INTS and supply in _INTS):
        return ENCODE(vars(player))  # values no rule sets: the json module writes them
    return (
        f'{{"budget":{_INTS[budget]},"face_up":{texts(player.face_up)},"gave":{_BOOLS[gave]},'
        f'"poll_step":{_INTS[poll_step]},"pool":{_INTS[pool]},"programme":{texts(player.programme)},'
        f'"shown":{numbers(player.shown)},"staff":{numbers(player.staff)},"supply":{_INTS[supply]},'
        f'"votes":{numbers(player.votes)}}}'
    )


def _pairs(pairs: list[list[int]]) -> str:
    return "[" + ",".join([numbers(pair) for pair in pairs]) + "]" if pairs else "[]"


def _options(options: SpinDoctorsOptions) -> str:
    if options.scandals_set_aside:
        return f'{{"players":{options.players},"scandals_set_aside":true}}'
    return f'{{"players":{options.players}}}'


def _offers(offers: list[Offer]) -> str | None:
    # Pending offers are written only when there are some, so states without them keep their bytes.
    return ENCODE([{**vars(offer), "term": vars(offer.term)} for offer in offers]) if offers else None


def _side_move_counts(counts: list[int]) -> str | None:
    # Written only once a side move is counted, so states without any keep their bytes (and
    # states stored before the count existed load with none made).
    return numbers(counts) if counts else None


_WRITERS: dict[str, Callable[[State], str | None]] = {
    "board": lambda s: "[" + ",".join([_played(p) for p in s.board]) + "]",
    "coordinated": lambda s: _pairs(s.coordinated),
    "debate_next": lambda s: _int(s.debate_next),
    "favourite": lambda s: _int(s.favourite),
    "field_now": lambda s: _int(s.field_now),
    "format": lambda s: str(FORMAT),
    "news": lambda s: texts(s.news),
    "news_deck": lambda s: texts(s.news_deck),
    "news_discard": lambda s: texts(s.news_discard),
    "news_known": lambda s: _pairs(s.news_known),
    "offers": lambda s: _offers(s.offers),
    "options": lambda s: _options(s.options),
    "phase": lambda s: text(s.phase),
    "protected": lambda s: _pairs(s.protected),
    "round": lambda s: _int(s.round),
    "scandals_aside": lambda s: texts(s.scandals_aside),
    "seats": lambda s: "[" + ",".join([_player(p) for p in s.seats]) + "]",
    "side_moves": lambda s: _side_move_counts(s.side_moves),
    "spots": lambda s: "[" + ",".join([_spot(p) for p in s.spots]) + "]",
    "tasks": lambda s: "[" + ",".join([_task(t) for t in s.tasks]) + "]",
    "topic_deck": lambda s: texts(s.topic_deck),
    "topic_discard": lambda s: texts(s.topic_discard),
    "turnout_markers": lambda s: numbers(s.turnout_markers),
    "winner": lambda s: _int(s.winner),
}
"""Each stored key's writer (None: the key is left out), in sorted key order."""
if list(_WRITERS) != sorted({*_STATE_FIELDS, "format"}):
    raise AssertionError("every field of State, and only those, needs a writer in sorted order")
_WRITTEN = tuple((f'"{name}":', write) for name, write in _WRITERS.items())


def dump_state(state: State) -> bytes:
    """The state as canonical JSON bytes (sorted keys, no spaces): equal states, equal bytes.

    ``scandals_set_aside`` is written only when set, so games without the variant keep the
    bytes (and the logged state digests) they had before it was stored."""
    pieces = []
    for key, write in _WRITTEN:
        written = write(state)
        if written is not None:
            pieces.append(key + written)
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
