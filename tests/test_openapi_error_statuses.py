"""The OpenAPI document's description of an error says which HTTP status each gRPC code is
answered with, and which refusals of the HTTP layer keep HTTP's own status; both as the REST face
answers. It said RESOURCE_EXHAUSTED 429 where REQUEST_TOO_LARGE is 413, and left out
OUT_OF_RANGE (400) and the 405, 408 and 415 refusals."""

from __future__ import annotations

import json
import re

import grpc

from conftest import REPO
from rest_helpers import LiveRest
from hustings.service.rest_routes import HTTP_STATUS

EXCEPTIONS = {  # what the description names: status, reason, gRPC code
    "405 METHOD_NOT_ALLOWED (UNIMPLEMENTED)": (405, "METHOD_NOT_ALLOWED", grpc.StatusCode.UNIMPLEMENTED),
    "408 BODY_TIMEOUT (DEADLINE_EXCEEDED)": (408, "BODY_TIMEOUT", grpc.StatusCode.DEADLINE_EXCEEDED),
    "413 REQUEST_TOO_LARGE (RESOURCE_EXHAUSTED)": (413, "REQUEST_TOO_LARGE", grpc.StatusCode.RESOURCE_EXHAUSTED),
    "415 UNSUPPORTED_CONTENT_ENCODING (INVALID_ARGUMENT)": (415, "UNSUPPORTED_CONTENT_ENCODING", grpc.StatusCode.INVALID_ARGUMENT),
}


def _description() -> str:
    document = json.loads((REPO / "service" / "static" / "openapi.json").read_text())
    return " ".join(document["components"]["schemas"]["google.rpc.Status"]["description"].split())


def test_the_description_maps_every_code_as_the_rest_face_does() -> None:
    text = _description()
    mapping = re.search(r"HTTP status follows from it \((.*?)\), except", text)
    assert mapping, text
    said: dict[str, int] = {}
    for names, status in re.findall(r"((?:[A-Z_]+(?:, | and )?)+) (\d{3})", mapping.group(1)):
        for name in re.split(r", | and ", names):
            said[name] = int(status)
    assert said == {code.name: status for code, status in HTTP_STATUS.items() if code is not grpc.StatusCode.OK}
    for phrase in EXCEPTIONS:
        assert phrase in text, phrase


def test_the_http_layers_own_refusals_are_answered_as_described(live: LiveRest) -> None:
    def reason_and_code(response: object) -> tuple[int, str, int]:
        body = response.json()  # type: ignore[attr-defined]
        return response.status_code, body["details"][0]["reason"], body["code"]  # type: ignore[attr-defined]

    answers = {
        "METHOD_NOT_ALLOWED": live.call("DELETE", "/v1/games"),
        "REQUEST_TOO_LARGE": live.call("POST", "/v1/games", b"{" + b" " * (65 << 10) + b"}"),
        "UNSUPPORTED_CONTENT_ENCODING": live.call("POST", "/v1/games", b"{}", headers={"Content-Encoding": "gzip"}),
    }
    for status, reason, code in EXCEPTIONS.values():
        if reason in answers:  # BODY_TIMEOUT waits 10 s: tests/test_rest_connections.py has it
            assert reason_and_code(answers[reason]) == (status, reason, code.value[0]), reason
