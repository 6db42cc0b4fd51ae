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
# (stored digests stay valid), written more cheaply: the state is a fixed tree of integers, None,
# short strings and tuples of them, so its text is put together field by field in sorted key
# order, and the JSON of the options and of each party is kept for the next state, which shares
# most of them. A string is written as it stands only where JSON would not escape it (see
# ``_plain``); anything else goes through the json module, so no value can change the bytes.
_ENCODE = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False, check_circular=False).encode
FRAGMENTS_KEPT = 4096  # a few per game in play; frozen values, so equal values share one entry


def _plain(text: str) -> bool:
    """True when JSON (``ensure_ascii=False``) writes ``text`` unescaped: it escapes only quotes,
    backslashes and control characters, and a printable string has no control characters."""
    return text.isprintable() and '"' not in text and "\\" not in text


def _text(value: str) -> str:
    return f'"{value}"' if _plain(value) else _ENCODE(value)


def _texts(values: tuple[str, ...]) -> str:
    if not values:
        return "[]"
    if _plain("".join(values)):  # card ids: one check for the whole stack
        return '["' + '","'.join(values) + '"]'
    return _ENCODE(values)


def _number(value: int | None) -> str:
    return "null" if value is None else str(value)


def _numbers(values: tuple[int, ...]) -> str:
    return "[" + ",".join(map(str, values)) + "]"


@cache
def _sorted_names(cls: type) -> tuple[str, ...]:
    return tuple(sorted(f.name for f in fields(cls)))


@lru_cache(maxsize=FRAGMENTS_KEPT)
def _options(options: StimmviehOptions) -> str:
    return _ENCODE({name: getattr(options, name) for name in _sorted_names(StimmviehOptions)})


@lru_cache(maxsize=FRAGMENTS_KEPT)
def _party(party: PartyState) -> str:
    return (
        f'{{"backbenchers":{_numbers(party.backbenchers)},"campaign_points":{party.campaign_points},'
        f'"chosen":{_numbers(party.chosen)},"donations":{_texts(party.donations)},'
        f'"top_candidates":{_numbers(party.top_candidates)},"votes":{_texts(party.votes)}}}'
    )


def _results(records: tuple[CampaignRecord, ...]) -> str:
    return _finished_campaigns(records) if records else "[]"


@lru_cache(maxsize=FRAGMENTS_KEPT)
def _finished_campaigns(records: tuple[CampaignRecord, ...]) -> str:
    names = _sorted_names(CampaignResult)
    return _ENCODE(
        [{"campaign": r.campaign, "results": [{n: getattr(x, n) for n in names} for x in r.results]} for r in records]
    )


def dump_state(state: StimmviehState) -> bytes:
    """The state as canonical JSON bytes (sorted keys, no spaces): equal states, equal bytes."""
    parties = ",".join([_party(p) for p in state.parties])
    return (
        f'{{"angelus_holder":{_number(state.angelus_holder)},'
        f'"backbencher_discards":{_numbers(state.backbencher_discards)},'
        f'"campaign":{state.campaign},'
        f'"campaign_results":{_results(state.campaign_results)},'
        f'"current_party":{_number(state.current_party)},'
        f'"display":{_texts(state.display)},'
        f'"donation_stack":{_texts(state.donation_stack)},'
        f'"format":{FORMAT},'
        f'"options":{_options(state.options)},'
        f'"parties":[{parties}],'
        f'"phase":{_text(state.phase)},'
        f'"round":{state.round},'
        f'"start_party":{_number(state.start_party)},'
        f'"top_candidate_discards":{_numbers(state.top_candidate_discards)},'
        f'"vote_stack":{_texts(state.vote_stack)}}}'
    ).encode("utf-8")


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
