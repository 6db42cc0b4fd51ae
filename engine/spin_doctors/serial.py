"""Deterministic JSON for a full Spin Doctors state (storage only: it holds every secret)."""

from __future__ import annotations

import json
from dataclasses import fields
from functools import lru_cache
from typing import Any, Callable

from hustings.engine.jsontext import ENCODE, SMALL_INTS, compound, numbers, text, texts
from hustings.engine.spin_doctors.model import Offer, Played, Player, SpinDoctorsOptions, Spot, State, Task, Term

FORMAT = 1
_NESTED = {"seats": Player, "spots": Spot, "board": Played, "tasks": Task}
_STATE_FIELDS = tuple(f.name for f in fields(State))
_KEYS = {cls: frozenset(f.name for f in fields(cls)) for cls in (State, *_NESTED.values())}

# Every move stores the whole state, so its serialisation is on the move path: the text is put
# together in sorted key order (``hustings.engine.jsontext``: the same bytes as ``json.dumps``, so
# stored digests stay valid), and the text of every part that the next state may share is kept.
# A step clones the seats and the Localities and changes one or two, so theirs is kept by value
# (a tuple of their fields, hashed in C), as are stacks of card ids and lists of ints. Staffers on
# the board and tasks are frozen and shared by the next state: the whole board's (and the task
# queue's) text is kept by the identities of its entries, each entry's by its own identity (hashing
# a frozen dataclass runs Python over every field). A kept text holds what it was written from,
# so no other object takes an identity it is kept by.
KEPT = 4096
"""Texts each table keeps: several for each game a replica has in play."""
KEPT_TABLES = 1024
"""Whole sets of ten Localities kept (each holds its ten keys: a larger entry)."""
_INTS = {**SMALL_INTS, -1: "-1"}
"""The text of every int a state holds in its scalar fields (-1: no winner yet)."""
_LOCALITIES: dict[tuple[Any, ...], str] = {}
_ALL_LOCALITIES: dict[tuple[Any, ...], str] = {}
_SEATS: dict[tuple[Any, ...], str] = {}
_BOARDS: dict[tuple[int, ...], tuple[tuple[Played, ...], str]] = {}
_TASK_QUEUES: dict[tuple[int, ...], tuple[tuple[Task, ...], str]] = {}
_card_ids = lru_cache(maxsize=KEPT)(texts)
_int_list = lru_cache(maxsize=KEPT)(numbers)


def _keep(table: dict[Any, Any], key: Any, written: Any, size: int = KEPT) -> Any:
    if len(table) >= size:
        table.clear()  # atomic: the next states write their parts afresh
    table[key] = written
    return written


def _int(value: int) -> str:
    """An int's JSON; a table lookup for the usual ones, the json module for anything else."""
    if type(value) is int:
        found = _INTS.get(value)
        if found is not None:
            return found
    return ENCODE(value)


_STAFFERS: dict[tuple[Any, ...], str] = {}
_TASKS: dict[tuple[Any, ...], str] = {}


def _listed(items: list[Any], lists: dict[Any, Any], parts: dict[Any, str], value_of: Callable[[Any], tuple[Any, ...]]) -> str:
    """The JSON list of ``items`` (dataclass entries): kept by the entries' identities, each
    entry's text by its value (entries repeat across games and steps)."""
    if not items:
        return "[]"
    key = tuple(map(id, items))
    found = lists.get(key)
    if found is None:
        written = []
        for item in items:
            value = value_of(item)
            text_of = parts.get(value)
            if text_of is None:
                text_of = _keep(parts, value, compound(vars(item)))
            written.append(text_of)
        found = _keep(lists, key, (tuple(items), "[" + ",".join(written) + "]"))
    return found[1]


def _played_value(p: Played) -> tuple[Any, ...]:
    # Played Staffers repeat across games (a seat, a Staffer, a field and three flags).
    return (p.seat, p.staffer, p.field, p.face_up, p.resolved, p.blocked)


def _task_value(t: Task) -> tuple[Any, ...]:
    return (t.kind, t.seat, t.locality, t.index, t.other, t.amount, tuple(t.cards))


def _board(board: list[Played]) -> str:
    return _listed(board, _BOARDS, _STAFFERS, _played_value)


def _tasks(tasks: list[Task]) -> str:
    return _listed(tasks, _TASK_QUEUES, _TASKS, _task_value)


def _locality(key: tuple[Any, ...], spot: Spot) -> str:
    found = _LOCALITIES.get(key)
    if found is None:
        # An entry's attributes are exactly its dataclass fields (no rule adds any).
        found = _keep(_LOCALITIES, key, compound(vars(spot)))
    return found


def _spots(spots: list[Spot]) -> str:
    keys = tuple([(s.turnout_card, s.topic_card, tuple(s.turnout), tuple(s.red), tuple(s.white), tuple(s.activity)) for s in spots])
    found = _ALL_LOCALITIES.get(keys)
    if found is None:
        found = _keep(_ALL_LOCALITIES, keys, "[" + ",".join([_locality(k, s) for k, s in zip(keys, spots)]) + "]", KEPT_TABLES)
    return found


def _seats(seats: list[Player]) -> str:
    written = []
    for p in seats:
        key = (p.budget, p.supply, p.pool, p.gave, p.poll_step, tuple(p.staff), tuple(p.programme), tuple(p.face_up),
               tuple(p.votes), tuple(p.shown))
        found = _SEATS.get(key)
        if found is None:
            found = _keep(_SEATS, key, _seat(p))
        written.append(found)
    return "[" + ",".join(written) + "]"


def _seat(player: Player) -> str:
    """A seat's JSON written directly (most steps change a seat, and the json module sorts its
    keys and encodes every part on each call); anything but the values rules set goes through it."""
    numbers_ok = all(type(n) is int and n in _INTS for n in (player.budget, player.pool, player.poll_step, player.supply))
    if not numbers_ok or type(player.gave) is not bool:
        return compound(vars(player))
    return (
        f'{{"budget":{_INTS[player.budget]},"face_up":{texts(player.face_up)},'
        f'"gave":{"true" if player.gave else "false"},"poll_step":{_INTS[player.poll_step]},'
        f'"pool":{_INTS[player.pool]},"programme":{texts(player.programme)},"shown":{numbers(player.shown)},'
        f'"staff":{numbers(player.staff)},"supply":{_INTS[player.supply]},"votes":{numbers(player.votes)}}}'
    )


def _pairs(pairs: list[list[int]]) -> str:
    return "[" + ",".join([numbers(pair) for pair in pairs]) + "]" if pairs else "[]"


def _options(options: SpinDoctorsOptions) -> str:
    if options.scandals_set_aside:
        return f'{{"players":{options.players},"scandals_set_aside":true}}'
    return f'{{"players":{options.players}}}'


_WRITTEN = (
    "board", "coordinated", "debate_next", "favourite", "field_now", "format", "news", "news_deck", "news_discard",
    "news_known", "offers", "options", "phase", "protected", "round", "scandals_aside", "seats", "side_moves", "spots",
    "tasks", "topic_deck", "topic_discard", "turnout_markers", "winner",
)
"""The keys ``dump_state`` writes, in sorted order: every field of ``State``, and the format."""
if list(_WRITTEN) != sorted({*_STATE_FIELDS, "format"}):
    raise AssertionError("dump_state must write every field of State (and only those) in sorted order")


def dump_state(state: State) -> bytes:
    """The state as canonical JSON bytes (sorted keys, no spaces): equal states, equal bytes.

    ``scandals_set_aside`` is written only when set, so games without the variant keep the
    bytes (and the logged state digests) they had before it was stored. Pending offers and the
    side moves' count likewise only when there are some."""
    offers = state.offers
    offers_text = '"offers":' + ENCODE([{**vars(o), "term": vars(o.term)} for o in offers]) + "," if offers else ""
    side_moves = state.side_moves
    side_moves_text = f'"side_moves":{_int_list(tuple(side_moves))},' if side_moves else ""
    return (
        f'{{"board":{_board(state.board)},"coordinated":{_pairs(state.coordinated)},'
        f'"debate_next":{_int(state.debate_next)},"favourite":{_int(state.favourite)},'
        f'"field_now":{_int(state.field_now)},"format":{FORMAT},"news":{_card_ids(tuple(state.news))},'
        f'"news_deck":{_card_ids(tuple(state.news_deck))},"news_discard":{_card_ids(tuple(state.news_discard))},'
        f'"news_known":{_pairs(state.news_known)},{offers_text}"options":{_options(state.options)},'
        f'"phase":{text(state.phase)},"protected":{_pairs(state.protected)},"round":{_int(state.round)},'
        f'"scandals_aside":{_card_ids(tuple(state.scandals_aside))},"seats":{_seats(state.seats)},'
        f'{side_moves_text}"spots":{_spots(state.spots)},"tasks":{_tasks(state.tasks)},'
        f'"topic_deck":{_card_ids(tuple(state.topic_deck))},"topic_discard":{_card_ids(tuple(state.topic_discard))},'
        f'"turnout_markers":{_int_list(tuple(state.turnout_markers))},"winner":{_int(state.winner)}}}'
    ).encode("utf-8")


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
