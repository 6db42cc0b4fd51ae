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

import grpc
from google.api import annotations_pb2, http_pb2
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor, ServiceDescriptor
from google.protobuf.message import Message

from hustings.service.errors import ServiceError, invalid

_VERBS = ("get", "put", "post", "delete", "patch")
_VARIABLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)(?:=([^}]*))?\}")
# Path variables never contain '/'; a ':' would be taken for the custom verb of the last segment.
_SEGMENT_VALUE = "[^/:]+"
_MULTI_SEGMENT_VALUE = "[^:]+"

# The standard mapping of gRPC codes to HTTP statuses (google.rpc.Code, grpc-gateway).
# FAILED_PRECONDITION is 400 as google.rpc.Code says, not 409: 409 is for ABORTED (a stale
# version, worth a retry on fresh state) and ALREADY_EXISTS.
HTTP_STATUS: dict[grpc.StatusCode, int] = {
    grpc.StatusCode.OK: 200,
    grpc.StatusCode.CANCELLED: 499,
    grpc.StatusCode.UNKNOWN: 500,
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.DEADLINE_EXCEEDED: 504,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.UNAUTHENTICATED: 401,
    grpc.StatusCode.RESOURCE_EXHAUSTED: 429,
    grpc.StatusCode.FAILED_PRECONDITION: 400,
    grpc.StatusCode.ABORTED: 409,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.UNIMPLEMENTED: 501,
    grpc.StatusCode.INTERNAL: 500,
    grpc.StatusCode.UNAVAILABLE: 503,
    grpc.StatusCode.DATA_LOSS: 500,
}


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


# Far deeper than any request message nests (a few levels); deeper JSON is refused before it
# reaches the protobuf parser, whose recursion would otherwise decide.
MAX_JSON_DEPTH = 32
# Far longer than any list of a request holds (a move names a handful of cards or influences);
# a longer one is refused before the protobuf parser walks it: a 42 kB list of 21,000 numbers
# cost 89 ms of the event loop, as one call.
MAX_JSON_LIST = 256

# What a field of each C++ type must hold, in words, for error messages of our own.
_EXPECTED = {
    FieldDescriptor.CPPTYPE_INT32: "a whole number in the range of int32",
    FieldDescriptor.CPPTYPE_INT64: "a whole number in the range of int64",
    FieldDescriptor.CPPTYPE_UINT32: "a whole number in the range of uint32",
    FieldDescriptor.CPPTYPE_UINT64: "a whole number in the range of uint64",
    FieldDescriptor.CPPTYPE_DOUBLE: "a number",
    FieldDescriptor.CPPTYPE_FLOAT: "a number",
    FieldDescriptor.CPPTYPE_BOOL: "true or false",
    FieldDescriptor.CPPTYPE_STRING: "a string",
}
_PARSE_ERRORS = (json_format.ParseError, ValueError, TypeError, RecursionError)


class _DuplicateKey(ValueError):
    """A JSON object names one key twice (json.loads would silently keep the last)."""


def _scalar(field: FieldDescriptor, text: str) -> Any:
    """A query or path value in the form json_format expects (it parses numbers from strings)."""
    if field.type == FieldDescriptor.TYPE_BOOL:
        if text in ("true", "false"):
            return text == "true"
        raise invalid("BAD_PARAMETER", f"{field.json_name} must be true or false")
    return text


def _insert(target: dict[str, Any], fields: list[FieldDescriptor], values: list[str]) -> None:
    for field in fields[:-1]:
        target = target.setdefault(field.name, {})
        if not isinstance(target, dict):
            raise invalid("BAD_PARAMETER", f"{field.json_name} is given twice")
    last = fields[-1]
    if last.message_type is not None:
        raise invalid("BAD_PARAMETER", f"{last.json_name} is a message; set its fields (e.g. {last.json_name}.field)")
    if last.name in target:
        raise invalid("BAD_PARAMETER", f"{last.json_name} is given twice")
    if last.is_repeated:
        target[last.name] = [_scalar(last, v) for v in values]
    elif len(values) != 1:
        raise invalid("BAD_PARAMETER", f"{last.json_name} takes one value")
    else:
        target[last.name] = _scalar(last, values[0])


def _field_of(message: Descriptor, key: str) -> FieldDescriptor | None:
    return message.fields_by_name.get(key) or message.fields_by_camelcase_name.get(key)


def _nested(field: FieldDescriptor) -> Descriptor | None:
    """The message type to look into for ``field``: not maps or well-known types, whose JSON
    forms are not objects of their fields."""
    kind = field.message_type
    if kind is None or kind.GetOptions().map_entry or kind.full_name.startswith("google.protobuf."):
        return None
    return kind


def _children(field: FieldDescriptor, value: Any, path: str) -> list[tuple[Any, str]]:
    """The JSON objects inside ``value`` that are messages of ``field``'s type, with their paths."""
    if field.is_repeated:
        return [(item, f"{path}[{i}]") for i, item in enumerate(value) if isinstance(item, dict)] if isinstance(value, list) else []
    return [(value, path)] if isinstance(value, dict) else []


def _given_twice(message: Descriptor, data: dict[str, Any], path: str) -> str | None:
    """The path of a field set under both of its spellings (``displayName`` and ``display_name``),
    anywhere in ``data``; json_format would silently keep one of them."""
    seen: set[int] = set()
    for key, value in data.items():
        field = _field_of(message, key)
        if field is None:
            continue
        name = path + field.json_name
        if field.number in seen:
            return name
        seen.add(field.number)
        kind = _nested(field)
        if kind is not None:
            for child, child_path in _children(field, value, name):
                found = _given_twice(kind, child, child_path + ".")
                if found:
                    return found
    return None


def _expected(field: FieldDescriptor) -> str:
    if field.message_type is not None:
        what = f"a {field.message_type.name} object"
    elif field.enum_type is not None:
        what = f"a {field.enum_type.name} name or number"
    elif field.type == FieldDescriptor.TYPE_BYTES:
        what = "base64 text"
    else:
        what = _EXPECTED.get(field.cpp_type, "a value of its type")
    return f"a list, each item {what}" if field.is_repeated else what


def _fault(message: Descriptor, data: dict[str, Any], path: str) -> tuple[str, str]:
    """Where ``data`` fails to be a ``message`` and why, in words of our own (never the parser's
    text, which names internals): (field path, error message)."""
    where = path or "the request"
    for oneof in message.oneofs:
        members = [key for key in data if (f := _field_of(message, key)) is not None and f.containing_oneof is oneof]
        if len(members) > 1:
            return path, f"{where} sets more than one field of {oneof.name}"
    for key, value in data.items():
        field = _field_of(message, key)
        if field is None:
            return path, f"{where} has a field that {message.name} does not define"
        name = (path + "." if path else "") + field.json_name
        kind = _nested(field)
        if kind is not None:
            for child, child_path in _children(field, value, name):
                try:
                    json_format.ParseDict(child, message_factory.GetMessageClass(kind)())
                except _PARSE_ERRORS:
                    return _fault(kind, child, child_path)
        try:
            json_format.ParseDict({key: value}, message_factory.GetMessageClass(message)())
        except _PARSE_ERRORS:
            return name, f"{name} must be {_expected(field)}"
    return path, f"{where} is not a valid {message.name}"


def _parse_dict(data: dict[str, Any], message: Message, reason: str) -> None:
    """``data`` into ``message``; a failure is INVALID_ARGUMENT ``reason`` naming the field."""
    twice = _given_twice(message.DESCRIPTOR, data, "")
    if twice:
        raise ServiceError(
            grpc.StatusCode.INVALID_ARGUMENT, "DUPLICATE_JSON_KEY", f"{twice} is given twice (in both spellings)", {"field": twice}
        )
    try:
        json_format.ParseDict(data, message)
    except _PARSE_ERRORS:
        path, text = _fault(message.DESCRIPTOR, data, "")
        raise ServiceError(grpc.StatusCode.INVALID_ARGUMENT, reason, text, {"field": path} if path else None) from None


def build_request(
    rule: HttpRule,
    path_params: Mapping[str, str],
    query: Mapping[str, Sequence[str]],
    body: bytes,
) -> Message:
    """The RPC's request message from the HTTP request's parts.

    The body (for ``body: "*"``) is canonical protobuf JSON (lowerCamelCase or proto names,
    unknown fields rejected, no key given twice, at most ``MAX_JSON_DEPTH`` levels deep); query
    parameters (for rules without a body) name fields in either spelling, dotted for nested
    fields, repeated for repeated fields; path variables are set last. Every malformed input is an
    INVALID_ARGUMENT ServiceError whose message is our own text, never a parser's.
    """
    message = message_factory.GetMessageClass(rule.method.input_type)()
    if rule.body:
        if query:
            raise invalid("UNEXPECTED_QUERY_PARAMETER", f"{rule.name} takes its fields in the JSON body, not the query")
        if body.strip():
            _parse_dict(_parse_body(rule, body), message, "INVALID_JSON_REQUEST")
    else:
        data: dict[str, Any] = {}
        path_roots = {p.split(".")[0] for p in rule.path_fields}
        for key, values in query.items():
            try:
                fields = _field_path(rule.method.input_type, key.split("."))
            except KeyError:
                raise invalid("UNKNOWN_QUERY_PARAMETER", f"a query parameter names no field of {rule.method.input_type.name}") from None
            if fields[0].name in path_roots:
                raise invalid("UNKNOWN_QUERY_PARAMETER", f"{fields[0].json_name} is part of the path, not the query")
            _insert(data, fields, list(values))
        _parse_dict(data, message, "BAD_PARAMETER")
    path_data: dict[str, Any] = {}
    for path in rule.path_fields:
        _insert(path_data, _field_path(rule.method.input_type, path.split(".")), [path_params[path]])
    path_message = message_factory.GetMessageClass(rule.method.input_type)()
    _parse_dict(path_data, path_message, "BAD_PARAMETER")
    message.MergeFrom(path_message)
    return message


def _without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    document = dict(pairs)
    if len(document) != len(pairs):
        raise _DuplicateKey
    return document


def _shape_fault(document: Any) -> ServiceError | None:
    """Why ``document`` nests arrays and objects more than ``MAX_JSON_DEPTH`` levels or holds a
    list longer than ``MAX_JSON_LIST``; None when it does neither (no recursion)."""
    stack = [(document, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            return invalid("JSON_TOO_DEEP", f"the body nests deeper than {MAX_JSON_DEPTH} levels")
        if isinstance(node, list) and len(node) > MAX_JSON_LIST:
            return invalid("JSON_LIST_TOO_LONG", f"a list in the body holds more than {MAX_JSON_LIST} items")
        children = node.values() if isinstance(node, dict) else node
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return None


def _parse_body(rule: HttpRule, body: bytes) -> dict[str, Any]:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise invalid("MALFORMED_JSON", "the body is not UTF-8") from None
    try:
        document = json.loads(text, object_pairs_hook=_without_duplicates)
    except _DuplicateKey:
        raise invalid("DUPLICATE_JSON_KEY", "an object in the body names a key twice") from None
    except RecursionError:
        raise invalid("JSON_TOO_DEEP", f"the body nests deeper than {MAX_JSON_DEPTH} levels") from None
    except ValueError:
        raise invalid("MALFORMED_JSON", "the body is not JSON") from None
    if not isinstance(document, dict):
        raise invalid("MALFORMED_JSON", f"the body of {rule.name} must be a JSON object")
    fault = _shape_fault(document)
    if fault is not None:
        raise fault
    return document


def to_json(message: Message) -> dict[str, Any]:
    """A message in canonical JSON (lowerCamelCase names, enums as names, 64-bit integers as
    strings), with every non-optional scalar written even when it holds its default, so that
    clients without the schema need no defaults table; optional fields and oneofs appear only
    when set."""
    return json_format.MessageToDict(message, always_print_fields_with_no_presence=True)

