"""The committed OpenAPI document is generated from the proto and is not stale."""

from __future__ import annotations

import json
import subprocess
import sys

from hustings.service import openapi
from hustings.service.rest_routes import http_rules
from hustings.v1 import game_service_pb2

REGENERATE = "python -m hustings.service.openapi"


def test_committed_document_is_not_stale() -> None:
    committed = openapi.DEFAULT_OUT.read_text()
    assert committed == openapi.generate(), f"{openapi.DEFAULT_OUT} is stale: run `{REGENERATE}`"


def test_check_command_reports_staleness(tmp_path: "object") -> None:
    stale = tmp_path / "openapi.json"  # type: ignore[operator]
    stale.write_text("{}\n")
    command = [sys.executable, "-m", "hustings.service.openapi", "--check", "--out", str(stale)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1 and "stale" in result.stderr
    fresh = subprocess.run([*command[:-3], "--out", str(stale)], capture_output=True, text=True, timeout=120)
    assert fresh.returncode == 0
    assert subprocess.run(command, capture_output=True, timeout=120).returncode == 0


def test_document_covers_every_annotated_rpc() -> None:
    document = json.loads(openapi.DEFAULT_OUT.read_text())
    assert document["openapi"].startswith("3.")
    service = game_service_pb2.DESCRIPTOR.services_by_name["GameService"]
    operations = {
        op["operationId"]: (path, verb) for path, item in document["paths"].items() for verb, op in item.items()
    }
    for rule in http_rules(service):
        assert operations[f"GameService_{rule.name}"] == (rule.openapi_path, rule.verb)
    schemas = document["components"]["schemas"]
    view = schemas["hustings.v1.GameView"]
    assert view["properties"]["version"]["type"] == "string"  # int64 as in canonical JSON
    assert "legalMoves" in view["properties"] and "oneOf" in view  # lowerCamelCase names; oneof game
    assert schemas["hustings.v1.GameStatus"]["enum"][0] == "GAME_STATUS_UNSPECIFIED"
    assert view["description"].startswith("A game as one caller sees it.")  # proto comments
    join = document["paths"]["/v1/games/{game_id}:join"]["post"]
    body = schemas[join["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]]
    assert "gameId" not in body["properties"] and "displayName" in body["properties"]
    watch = document["paths"]["/v1/games/{game_id}:watch"]["get"]
    assert "text/event-stream" in watch["responses"]["200"]["content"]
    assert {p["name"] for p in watch["parameters"]} == {"game_id", "fromVersion", "Last-Event-ID"}
