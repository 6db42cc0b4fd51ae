"""The catalogue as the service serves it: one GetGameKind answer per kind, built once from the
registry (the game's codec fills it), and its REST form with the content version as the ETag.

The service knows nothing of any game here: a kind's catalogue is whatever its codec gives.
"""

from __future__ import annotations

import json

from aiohttp import web

from hustings.engine import games
from hustings.engine.registry import get_catalogue
from hustings.service.errors import not_found
from hustings.service.rest_routes import to_json
from hustings.v1 import game_pb2, game_service_pb2

_ANSWERS: dict[str, game_service_pb2.GetGameKindResponse] = {}
_BODIES: dict[tuple[str, str], bytes] = {}


def kind_answer(kind: str) -> game_service_pb2.GetGameKindResponse:
    """The GetGameKind answer for ``kind`` (shared: callers must not change it). NOT_FOUND
    UNKNOWN_KIND for a kind this service does not host."""
    answer = _ANSWERS.get(kind)
    if answer is not None:
        return answer
    game, catalogue = games().get(kind), get_catalogue(kind)
    if game is None or catalogue is None:
        raise not_found("UNKNOWN_KIND", f"unknown game kind {kind[:40]!r}; see ListGameKinds")
    info = game.info
    answer = game_service_pb2.GetGameKindResponse(
        kind=game_pb2.GameKind(
            kind=info.kind, title=info.title, min_players=info.min_players, max_players=info.max_players,
            variants=[game_pb2.Variant(name=v.name, description=v.description) for v in info.variants],
        ),
        content_version=catalogue.content_version,
        rules_version=catalogue.rules_version,
    )
    catalogue.fill(answer)
    _ANSWERS[kind] = answer
    return answer


def etag_of(content_version: str) -> str:
    """The ETag of a catalogue answer: its content version, quoted (a strong validator)."""
    return f'"{content_version}"'


def matches_etag(if_none_match: str | None, etag: str) -> bool:
    """Whether an ``If-None-Match`` header names ``etag``."""
    if not if_none_match:
        return False
    candidates = [tag.strip() for tag in if_none_match.split(",")]
    # A weak comparison, as RFC 9110 asks for If-None-Match: W/"x" matches "x".
    return "*" in candidates or any(tag.removeprefix("W/") == etag for tag in candidates)


def rest_answer(request: web.Request, answer: game_service_pb2.GetGameKindResponse) -> web.Response:
    """The HTTP answer: 304 when the client's ``If-None-Match`` names this content version, else
    the canonical JSON, the very same bytes for every request of the same kind and version."""
    etag = etag_of(answer.content_version)
    headers = {"ETag": etag, "Cache-Control": "public, no-cache"}
    if matches_etag(request.headers.get("If-None-Match"), etag):
        return web.Response(status=304, headers=headers)
    key = (answer.kind.kind, answer.content_version)
    body = _BODIES.get(key)
    if body is None:
        body = _BODIES[key] = json.dumps(to_json(answer)).encode("utf-8")
    return web.Response(body=body, content_type="application/json", headers=headers)
