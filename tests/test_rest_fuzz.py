"""Property-based fuzzing of the REST face from its OpenAPI document (schemathesis).

Every operation gets generated requests, valid and invalid; the checks are: no 5xx, responses
match the document (status, content type, schema; for WatchGame each Server-Sent Event's JSON
data). A share of the requests is steered to real games, tokens and kinds so that the fuzzing
gets past the first validation. Examples are bounded so the run stays well under two minutes.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass
from typing import Any, Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from rest_helpers import LiveRest
from hustings.service import openapi
from hustings.service.embedded_redis import EmbeddedRedis

MAX_EXAMPLES = 100
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


@dataclass
class Table:
    """A live server and real games (open and active) with their seat tokens."""

    live: LiveRest
    tokens: dict[str, list[str]]


@pytest.fixture(scope="module")
def table(redis_server: EmbeddedRedis) -> Iterator[Table]:
    with LiveRest(redis_server.url) as server:
        tokens = {}
        for players, names in ((4, ("Ada",)), (3, ("Ada", "Bo", "Cy"))):
            game_id, joined = server.new_game(players=players, names=names)
            tokens[game_id] = [j["seatToken"] for j in joined]
        yield Table(server, tokens)


def _steer(case: Any, table: Table) -> None:
    """Point a share of the generated requests at real games, real tokens and real kinds, so that
    the fuzzing reaches past the first validation (deterministic: derived from the case)."""
    digest = zlib.crc32(repr((case.body, case.path_parameters, case.query)).encode())
    games = sorted(table.tokens)
    game_id = games[digest % len(games)]
    if case.path_parameters and "game_id" in case.path_parameters and digest % 3 != 0:
        case.path_parameters["game_id"] = game_id
        if digest % 5 < 3:
            tokens = table.tokens[game_id]
            token = tokens[digest % len(tokens)]
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
            if case.operation.path.endswith("/moves") and isinstance(case.body, dict):
                case.body["requestId"] = f"fuzz-{digest}"
                if digest % 7 < 3:
                    view = table.live.ok("GET", f"/v1/games/{game_id}/view", token=token)["view"]
                    if view["legalMoves"]:
                        case.body["move"] = view["legalMoves"][digest % len(view["legalMoves"])]
    if case.operation.path.endswith(":watch") and case.path_parameters.get("game_id") in table.tokens:
        # Ask for the whole game so that the first event comes at once (not on the next move).
        case.query = {**(case.query or {}), "fromVersion": "0"}
        case.headers = {k: v for k, v in (case.headers or {}).items() if k.lower() != "last-event-id"}
    if case.operation.path == "/v1/games" and case.method.upper() == "POST" and isinstance(case.body, dict):
        if digest % 2 == 0:
            case.body["kind"] = "stimmvieh"
            options = case.body.get("options")
            if isinstance(options, dict) and digest % 4 == 0:
                options["players"] = 3 + digest % 2


@pytest.fixture(scope="module")
def api_schema(table: Table) -> Any:
    document = json.loads(openapi.DEFAULT_OUT.read_text())
    schema = schemathesis.openapi.from_dict(document)
    schema.config.update(base_url=table.live.base_url, request_timeout=10)
    schema.config.max_stream_events = 1  # WatchGame: validate the first event, then hang up
    # The deterministic coverage phase enumerates every oneof branch of every body and takes
    # minutes on this document; the randomised phases (valid and invalid data) stay bounded.
    schema.config.phases.coverage.enabled = False
    return schema


schema = schemathesis.pytest.from_fixture("api_schema")


@pytest.mark.slow  # a fuzzing run over every REST route: about 35 s
@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.function_scoped_fixture],
)
def test_rest_face_never_fails_and_matches_its_document(case: Any, table: Table) -> None:
    _steer(case, table)
    case.call_and_validate(checks=CHECKS)
