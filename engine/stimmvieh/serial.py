"""Deterministic JSON for a full Stimmvieh state (storage only: it holds every secret)."""

from __future__ import annotations

import json
from dataclasses import fields
from functools import cache, lru_cache
from typing import Any, TypeVar

from hustings.engine.jsontext import ENCODE, KEPT, kept_by_identity, number, numbers, text, texts
from hustings.engine.stimmvieh.model import (
    CAMPAIGN,
    CHOOSING,
    FINISHED,
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
# ``json.dumps``, so stored digests stay valid), and the text of every part that the next state
# may share is kept: a move changes one party, a discard pile and perhaps the display and a stack,
# and the rest is found again. Frozen dataclasses are found by identity (hashing one runs Python
# over every field); tuples of card ids and of influences by value (C hashes them quickly, and
# a loaded state finds them too).
_card_ids = lru_cache(maxsize=KEPT)(texts)
_influences = lru_cache(maxsize=KEPT)(numbers)
_PHASES = {phase: text(phase) for phase in (CHOOSING, CAMPAIGN, FINISHED)}


@cache
def _sorted_names(cls: type) -> tuple[str, ...]:
    return tuple(sorted(f.name for f in fields(cls)))


@kept_by_identity
def _options(options: StimmviehOptions) -> str:
    return ENCODE({name: getattr(options, name) for name in _sorted_names(StimmviehOptions)})


@kept_by_identity
def _party(party: PartyState) -> str:
    return (
        f'{{"backbenchers":{_influences(party.backbenchers)},"campaign_points":{party.campaign_points},'
        f'"chosen":{_influences(party.chosen)},"donations":{_card_ids(party.donations)},'
        f'"top_candidates":{_influences(party.top_candidates)},"votes":{_card_ids(party.votes)}}}'
    )


def _campaign_results(records: tuple[CampaignRecord, ...]) -> str:
    return _finished_campaigns(records) if records else "[]"


@kept_by_identity
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
        f'"backbencher_discards":{_influences(state.backbencher_discards)},'
        f'"campaign":{state.campaign},'
        f'"campaign_results":{_campaign_results(state.campaign_results)},'
        f'"current_party":{number(state.current_party)},'
        f'"display":{_card_ids(state.display)},'
        f'"donation_stack":{_card_ids(state.donation_stack)},'
        f'"format":{FORMAT},'
        f'"options":{_options(state.options)},'
        f'"parties":[{parties}],'
        f'"phase":{_PHASES.get(state.phase) or text(state.phase)},'
        f'"round":{state.round},'
        f'"start_party":{number(state.start_party)},'
        f'"top_candidate_discards":{_influences(state.top_candidate_discards)},'
        f'"vote_stack":{_card_ids(state.vote_stack)}}}'
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
