"""HTTP rules of the REST/JSON face, read from the proto's ``google.api.http`` annotations.

The annotations on ``hustings.v1.GameService`` are the single source of the routes: both the
server (``rest.py``) and the OpenAPI generator (``openapi.py``) read them through the method
descriptors, as Envoy and grpc-gateway would. This module also turns an HTTP request (path
variables, query parameters, JSON body) into the RPC's request message, in protobuf's canonical
JSON mapping.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from google.api import annotations_pb2, http_pb2
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message

from hustings.service.errors import invalid

_VERBS = ("get", "put", "post", "delete", "patch")
_VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)(?:=([^}]*))?\}")
# Path variables never contain '/'; a ':' would be taken for the custom verb of the last segment.
_SEGMENT_VALUE = "[^/:]+"
_MULTI_SEGMENT_VALUE = "[^:]+"


@dataclass(frozen=True)
class HttpRule:
    """One RPC as an HTTP route: verb, path template, which fields come from path and body."""

    method: MethodDescriptor
    verb: str
    template: str
    body: str
    path_fields: tuple[str, ...]

    @property
    def name(self) -> str:
        """The RPC's name, e.g. ``JoinGame``."""
        return self.method.name

    @property
    def streaming(self) -> bool:
        """True for a server-streaming RPC (served as Server-Sent Events)."""
        return self.method.server_streaming

    @property
    def aiohttp_path(self) -> str:
        """The template in aiohttp's router syntax, e.g. ``/v1/games/{game_id:[^/:]+}:join``."""

        def variable(match: re.Match[str]) -> str:
            pattern = match.group(2)
            value = _MULTI_SEGMENT_VALUE if pattern and "**" in pattern else _SEGMENT_VALUE
            return "{" + match.group(1).replace(".", "__") + ":" + value + "}"

        return _VARIABLE.sub(variable, self.template)

    @property
    def openapi_path(self) -> str:
        """The template in OpenAPI's syntax, e.g. ``/v1/games/{game_id}:join``."""
        return _VARIABLE.sub(lambda m: "{" + m.group(1) + "}", self.template)

    def query_fields(self) -> list[FieldDescriptor]:
        """The top-level request fields that a GET fills from query parameters."""
        if self.body:
            return []
        skip = {path.split(".")[0] for path in self.path_fields}
        return [f for f in self.method.input_type.fields if f.name not in skip]


def _rule_of(method: MethodDescriptor, rule: http_pb2.HttpRule) -> HttpRule:
    verb = rule.WhichOneof("pattern")
    if verb not in _VERBS:
        raise ValueError(f"{method.full_name}: unsupported HTTP pattern {verb!r}")
    template = getattr(rule, verb)
    path_fields = tuple(m.group(1) for m in _VARIABLE.finditer(template))
    for path in path_fields:
        _field_path(method.input_type, path.split("."))  # fails early on a typo in the proto
    return HttpRule(method, verb, template, rule.body, path_fields)


def http_rules(service: ServiceDescriptor) -> list[HttpRule]:
    """Every annotated RPC of ``service`` (additional_bindings included), in proto order."""
    rules = []
    for method in service.methods:
        options = method.GetOptions()
        if not options.HasExtension(annotations_pb2.http):
            continue
        rule = options.Extensions[annotations_pb2.http]
        rules.append(_rule_of(method, rule))
        rules.extend(_rule_of(method, extra) for extra in rule.additional_bindings)
    return rules


def _field_path(message: Descriptor, names: Sequence[str]) -> list[FieldDescriptor]:
    """The fields along a dotted path, each name in proto or JSON spelling."""
    fields = []
    for i, name in enumerate(names):
        field = message.fields_by_name.get(name) or message.fields_by_camelcase_name.get(name)
        if field is None:
            raise KeyError(name)
        fields.append(field)
        if i < len(names) - 1:
            if field.message_type is None or field.is_repeated:
                raise KeyError(name)
            message = field.message_type
    return fields


def _scalar(field: FieldDescriptor, text: str) -> Any:
    """A query or path value in the form json_format expects (it parses numbers from strings)."""
    if field.type == FieldDescriptor.TYPE_BOOL:
        if text in ("true", "false"):
            return text == "true"
        raise invalid("BAD_PARAMETER", f"{field.name} must be true or false")
    return text


def _insert(target: dict[str, Any], fields: list[FieldDescriptor], values: list[str]) -> None:
    for field in fields[:-1]:
        target = target.setdefault(field.name, {})
        if not isinstance(target, dict):
            raise invalid("BAD_PARAMETER", f"{field.name} is given twice")
    last = fields[-1]
    if last.message_type is not None:
        raise invalid("BAD_PARAMETER", f"{last.name} is a message; set its fields (e.g. {last.name}.field)")
    if last.name in target:
        raise invalid("BAD_PARAMETER", f"{last.name} is given twice")
    if last.is_repeated:
        target[last.name] = [_scalar(last, v) for v in values]
    elif len(values) != 1:
        raise invalid("BAD_PARAMETER", f"{last.name} takes one value")
    else:
        target[last.name] = _scalar(last, values[0])


def _parse_dict(data: dict[str, Any], message: Message, what: str) -> None:
    try:
        json_format.ParseDict(data, message)
    except (json_format.ParseError, ValueError, TypeError, RecursionError) as error:
        raise invalid("BAD_PARAMETER", f"bad {what}: {_short(error)}") from None


def _short(error: BaseException) -> str:
    return str(error)[:300]


def build_request(
    rule: HttpRule,
    path_params: Mapping[str, str],
    query: Mapping[str, Sequence[str]],
    body: bytes,
) -> Message:
    """The RPC's request message from the HTTP request's parts.

    The body (for ``body: "*"``) is canonical protobuf JSON (lowerCamelCase or proto names,
    unknown fields rejected); query parameters (for rules without a body) name fields in either
    spelling, dotted for nested fields, repeated for repeated fields; path variables are set last.
    Every malformed input is an INVALID_ARGUMENT ServiceError.
    """
    message = message_factory.GetMessageClass(rule.method.input_type)()
    if rule.body:
        if query:
            raise invalid("UNEXPECTED_QUERY_PARAMETER", f"{rule.name} takes its fields in the JSON body, not the query")
        if body.strip():
            _parse_body(rule, body, message)
    else:
        data: dict[str, Any] = {}
        for key, values in query.items():
            try:
                fields = _field_path(rule.method.input_type, key.split("."))
            except KeyError:
                raise invalid("UNKNOWN_QUERY_PARAMETER", f"{rule.name} has no field {key[:60]!r}") from None
            if fields[0].name in {p.split(".")[0] for p in rule.path_fields}:
                raise invalid("UNKNOWN_QUERY_PARAMETER", f"{key[:60]} is part of the path")
            _insert(data, fields, list(values))
        _parse_dict(data, message, "query parameter")
    path_data: dict[str, Any] = {}
    for path in rule.path_fields:
        _insert(path_data, _field_path(rule.method.input_type, path.split(".")), [path_params[path]])
    path_message = message_factory.GetMessageClass(rule.method.input_type)()
    _parse_dict(path_data, path_message, "path")
    message.MergeFrom(path_message)
    return message


def _parse_body(rule: HttpRule, body: bytes, message: Message) -> None:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise invalid("MALFORMED_JSON", "the body is not UTF-8") from None
    try:
        document = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise invalid("MALFORMED_JSON", f"the body is not JSON: {_short(error)}") from None
    if not isinstance(document, dict):
        raise invalid("MALFORMED_JSON", f"the body of {rule.name} must be a JSON object")
    try:
        json_format.ParseDict(document, message)
    except (json_format.ParseError, ValueError, TypeError, RecursionError) as error:
        raise invalid("INVALID_JSON_REQUEST", f"the body is not a {message.DESCRIPTOR.name}: {_short(error)}") from None


def to_json(message: Message) -> dict[str, Any]:
    """A message in canonical JSON (lowerCamelCase names, enums as names, 64-bit integers as
    strings), with every non-optional scalar written even when it holds its default, so that
    clients without the schema need no defaults table; optional fields and oneofs appear only
    when set."""
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)

