"""Deterministic JSON for a full Stimmvieh state (storage only: it holds every secret)."""

from __future__ import annotations

import json
from dataclasses import fields
from functools import cache, lru_cache
from typing import Any, TypeVar

from hustings.engine.jsontext import ENCODE, number, numbers, text, texts
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


# Every move stores the whole state, so its serialisation is on the move path: the text is put
# together field by field in sorted key order (``hustings.engine.jsontext``: the same bytes as
# ``json.dumps``, so stored digests stay valid), and the JSON of the options, of each party and
# of the finished campaigns is kept for the next state, which shares most of them.
FRAGMENTS_KEPT = 4096  # a few per game in play; frozen values, so equal values share one entry


@cache
def _sorted_names(cls: type) -> tuple[str, ...]:
    return tuple(sorted(f.name for f in fields(cls)))


@lru_cache(maxsize=FRAGMENTS_KEPT)
def _options(options: StimmviehOptions) -> str:
    return ENCODE({name: getattr(options, name) for name in _sorted_names(StimmviehOptions)})


@lru_cache(maxsize=FRAGMENTS_KEPT)
def _party(party: PartyState) -> str:
    return (
        f'{{"backbenchers":{numbers(party.backbenchers)},"campaign_points":{party.campaign_points},'
        f'"chosen":{numbers(party.chosen)},"donations":{texts(party.donations)},'
        f'"top_candidates":{numbers(party.top_candidates)},"votes":{texts(party.votes)}}}'
    )


def _results(records: tuple[CampaignRecord, ...]) -> str:
    return _finished_campaigns(records) if records else "[]"


@lru_cache(maxsize=FRAGMENTS_KEPT)
def _finished_campaigns(records: tuple[CampaignRecord, ...]) -> str:
    names = _sorted_names(CampaignResult)
    return ENCODE(
        [{"campaign": r.campaign, "results": [{n: getattr(x, n) for n in names} for x in r.results]} for r in records]
    )


def dump_state(state: StimmviehState) -> bytes:
    """The state as canonical JSON bytes (sorted keys, no spaces): equal states, equal bytes."""
    parties = ",".join([_party(p) for p in state.parties])
    return (
        f'{{"angelus_holder":{number(state.angelus_holder)},'
        f'"backbencher_discards":{numbers(state.backbencher_discards)},'
        f'"campaign":{state.campaign},'
        f'"campaign_results":{_results(state.campaign_results)},'
        f'"current_party":{number(state.current_party)},'
        f'"display":{texts(state.display)},'
        f'"donation_stack":{texts(state.donation_stack)},'
        f'"format":{FORMAT},'
        f'"options":{_options(state.options)},'
        f'"parties":[{parties}],'
        f'"phase":{text(state.phase)},'
        f'"round":{state.round},'
        f'"start_party":{number(state.start_party)},'
        f'"top_candidate_discards":{numbers(state.top_candidate_discards)},'
        f'"vote_stack":{texts(state.vote_stack)}}}'
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
