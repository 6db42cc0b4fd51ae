"""The REST face's parsing of bodies and queries, over generated input: every request is either
a request message or an INVALID_ARGUMENT in our own words, never a parser's text or a crash.
(Pure: no server, so that no live replica's use of ``random`` meets Hypothesis' generation.)"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rest_helpers import LEAK_MARKERS
from hustings.service.errors import ServiceError
from hustings.service.rest_routes import build_request, http_rules
from hustings.v1 import game_service_pb2


def _field_names() -> list[str]:
    """Every field name of every request message, in both spellings, to steer generated JSON."""
    names: set[str] = set()
    pending = [rule.method.input_type for rule in RULES]
    seen: set[str] = set()
    while pending:
        message = pending.pop()
        if message.full_name in seen:
            continue
        seen.add(message.full_name)
        for f in message.fields:
            names.update((f.name, f.json_name))
            if f.message_type is not None:
                pending.append(f.message_type)
    return sorted(names)


RULES = http_rules(game_service_pb2.DESCRIPTOR.services_by_name["GameService"])
NAMES = _field_names()
SCALARS = (
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | st.floats(allow_nan=False)
    | st.text(max_size=8) | st.sampled_from(["GAME_STATUS_OPEN", "1", "-1", "1e3", "AA==", "stimmvieh"])
)
DOCUMENTS = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(NAMES) | st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)


def _only_our_refusals(rule: Any, query: dict[str, list[str]], body: bytes) -> None:
    try:
        build_request(rule, {p: "g1" for p in rule.path_fields}, query, body)
    except ServiceError as error:
        assert error.code.name == "INVALID_ARGUMENT"
        for marker in LEAK_MARKERS:
            assert marker not in error.message


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from([r for r in RULES if r.body]), st.dictionaries(st.sampled_from(NAMES), DOCUMENTS, max_size=5))
def test_any_json_body_is_a_request_or_a_refusal_in_our_words(rule: Any, document: dict[str, Any]) -> None:
    _only_our_refusals(rule, {}, json.dumps(document).encode())


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.sampled_from([r for r in RULES if not r.body]),
    st.dictionaries(
        st.sampled_from(NAMES + ["options.players", "a.b"]),
        st.lists(st.text(max_size=6) | st.sampled_from(["1", "true", "x", "99999999999", "GAME_STATUS_OPEN"]), min_size=1, max_size=2),
        max_size=4,
    ),
)
def test_any_query_is_a_request_or_a_refusal_in_our_words(rule: Any, query: dict[str, list[str]]) -> None:
    _only_our_refusals(rule, query, b"")
