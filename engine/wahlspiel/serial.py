"""Deterministic JSON for a full Wahlspiel state (storage only: it holds every secret)."""

from __future__ import annotations

import json
from dataclasses import fields
from typing import Any, Callable

from hustings.engine.jsontext import ENCODE, SMALL_INTS, scalar, texts
from hustings.engine.wahlspiel.model import (
    EVENT,
    VOTER,
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
        "coalition": Coalition, "ballot": Ballot, "runoff": Runoff, "revealed_ballot": Ballot,
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
# ``json.dumps``, so stored digests stay valid). A move changes a party or two, a candidate, a
# stack or the coalition, and the next state shares every other part: the text of each part (a
# nested value, a tuple of them, a stack of card ids, a number or a string) is kept, found by the
# part's identity. (Found by value, a frozen dataclass would be hashed field by field in Python
# on every lookup.) Each kept text holds its part, so no other object can take that identity
# while the text is kept; lists are never kept (they could change under their text).
_KEPT: dict[int, tuple[Any, str]] = {}
TEXTS_KEPT = 16384
"""Texts kept: a few dozen for every game in play. When full, all are let go at once (the next
state of each game writes its parts afresh): clearing is atomic, so threads may share them."""


def _keep(value: Any) -> tuple[Any, str]:
    kept = (value, _write(value))
    if value.__class__ is not list:
        if len(_KEPT) >= TEXTS_KEPT:
            _KEPT.clear()
        _KEPT[id(value)] = kept
    return kept


def _text(value: Any) -> str:
    """The JSON of one part, kept or written."""
    return (_KEPT.get(id(value)) or _keep(value))[1]


def _write(value: Any) -> str:
    cls = value.__class__
    if cls is tuple or cls is list:
        if value and value[0].__class__ is not str:  # parties, candidates
            return "[" + ",".join([_text(item) for item in value]) + "]"
        return texts(value)  # card ids (anything else there goes through the json module)
    if cls is int:
        return SMALL_INTS.get(value) or str(value)
    if cls is str or cls is bool or value is None:
        return scalar(value)
    writer = _WRITERS.get(cls)
    if writer is not None:
        return writer(value)
    names = _FIELD_NAMES.get(cls)
    if names is None:
        if not hasattr(value, "__dataclass_fields__"):
            return ENCODE(value)
        names = _FIELD_NAMES[cls] = tuple(sorted(f.name for f in fields(value)))
    # A stored dataclass is the object of its fields in sorted order, as the json module writes
    # ``_plain(value)`` (the json module's own encoder costs more, on every coalition offer).
    return "{" + ",".join([f'"{name}":{_text(getattr(value, name))}' for name in names]) + "}"


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


# The values a move changes most often are written by hand (a party takes cards or pays, a
# candidate wins votes); the rest go through the json module.
def _party(party: Party) -> str:
    return (
        f'{{"arrived":{_text(party.arrived)},"colour":{_text(party.colour)},"events":{_text(party.events)},'
        f'"money":{_text(party.money)},"name":{_text(party.name)},"politicians":{_text(party.politicians)},'
        f'"position":{_text(party.position)},"trades":{_text(party.trades)},"voters":{_text(party.voters)}}}'
    )


def _candidate(candidate: Candidate) -> str:
    return (
        f'{{"councillor":{_text(candidate.councillor)},"in_race":{_text(candidate.in_race)},'
        f'"party":{_text(candidate.party)},"politician":{_text(candidate.politician)},'
        f'"votes":{_text(candidate.votes)}}}'
    )


_WRITERS: dict[type, Callable[[Any], str]] = {Party: _party, Candidate: _candidate}


def _revealed(ballot: Ballot) -> str:
    return f'"revealed_ballot":{(_KEPT.get(id(ballot)) or _keep(ballot))[1]},'


def dump_state(state: WahlspielState) -> bytes:
    """The state as canonical JSON bytes (sorted keys, no spaces): equal states, equal bytes."""
    # Each part's text is looked up inline: a call per field would cost more than the lookup.
    get, keep, s = _KEPT.get, _keep, state
    return (
        f'{{"ballot":{(get(id(s.ballot)) or keep(s.ballot))[1]},'
        f'"ballot_box":{(get(id(s.ballot_box)) or keep(s.ballot_box))[1]},'
        f'"candidates":{(get(id(s.candidates)) or keep(s.candidates))[1]},'
        f'"cantonal":{(get(id(s.cantonal)) or keep(s.cantonal))[1]},'
        f'"coalition":{(get(id(s.coalition)) or keep(s.coalition))[1]},'
        f'"current":{(get(id(s.current)) or keep(s.current))[1]},'
        f'"event_discards":{(get(id(s.event_discards)) or keep(s.event_discards))[1]},'
        f'"event_stack":{(get(id(s.event_stack)) or keep(s.event_stack))[1]},'
        f'"federal":{(get(id(s.federal)) or keep(s.federal))[1]},'
        f'"first_arrived":{(get(id(s.first_arrived)) or keep(s.first_arrived))[1]},'
        f'"format":{FORMAT},'
        f'"goal_votes":{(get(id(s.goal_votes)) or keep(s.goal_votes))[1]},'
        f'"last_roll":{(get(id(s.last_roll)) or keep(s.last_roll))[1]},'
        f'"national":{(get(id(s.national)) or keep(s.national))[1]},'
        f'"options":{(get(id(s.options)) or keep(s.options))[1]},'
        f'"parties":{(get(id(s.parties)) or keep(s.parties))[1]},'
        f'"retired":{(get(id(s.retired)) or keep(s.retired))[1]},'
        # Written only while set (one step after a show of hands): every other state keeps the
        # bytes, and so the digest, it had before the field existed, and older builds read it.
        f'{"" if s.revealed_ballot is None else _revealed(s.revealed_ballot)}'
        f'"round":{(get(id(s.round)) or keep(s.round))[1]},'
        f'"runoff":{(get(id(s.runoff)) or keep(s.runoff))[1]},'
        f'"start_party":{(get(id(s.start_party)) or keep(s.start_party))[1]},'
        f'"step":{(get(id(s.step)) or keep(s.step))[1]},'
        f'"voter_stack":{(get(id(s.voter_stack)) or keep(s.voter_stack))[1]}}}'
    ).encode("utf-8")


def _from_format_1(data: dict[str, Any]) -> None:
    """Bring a state of format 1 (release 0.1.0) to format 2 in place. Its open coalition offer
    was one item each way from the party on the field (``give_card`` or ``give_money``, a card of
    ``ask_kind`` or ``ask_money``): the bundle of format 2 holding just those, proposed by that
    party (``proposer`` -1), with nothing drafted or handed over yet."""
    coalition = data.get("coalition")
    if coalition is None:
        return
    pending = coalition.get("pending")
    if pending is not None:
        give_card, ask_kind = pending.get("give_card", ""), pending.get("ask_kind", "")
        coalition["pending"] = {
            "give_cards": [give_card] if give_card else [],
            "give_money": pending.get("give_money", 0),
            "ask_voters": 1 if ask_kind == VOTER else 0,
            "ask_events": 1 if ask_kind == EVENT else 0,
            "ask_money": pending.get("ask_money", 0),
        }


def load_state(raw: bytes) -> WahlspielState:
    """The inverse of ``dump_state``; reads format 1 too (``_from_format_1``). Raises ValueError
    on data it did not write. A field added
    to the state since its format was set (``revealed_ballot``) is absent from the snapshots
    written before it, and from every one written while it is unset, and takes its default there."""
    try:
        data = json.loads(raw.decode("utf-8"))
        stored_format = data.pop("format")
        if stored_format == 1:
            _from_format_1(data)
        elif stored_format != FORMAT:
            raise ValueError("unknown Wahlspiel state format")
        state = _build(WahlspielState, data)
        assert isinstance(state, WahlspielState)
        return state
    except (KeyError, TypeError, AttributeError, json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"not a stored Wahlspiel state: {error}") from error
