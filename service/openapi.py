"""The OpenAPI 3.1 document of the REST/JSON face, generated from the proto.

Paths come from the ``google.api.http`` annotations (``rest_routes.http_rules``), schemas from
the messages (oneofs as "at most one of", enums as their names, 64-bit integers as strings, as in
protobuf's canonical JSON mapping), descriptions from the proto comments. protoc (grpc_tools)
compiles ``proto/`` with its comments; the result is committed as ``service/static/openapi.json``
and served at ``/openapi.json``.

Regenerate after a proto change (``tests/test_openapi.py`` fails while it is stale)::

    python -m hustings.service.openapi            # writes service/static/openapi.json
    python -m hustings.service.openapi --check    # exit 1 when the committed one is stale
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import tempfile
from typing import Any, Iterable

from google.protobuf import descriptor_pb2, descriptor_pool
from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor, ServiceDescriptor

from hustings.protos import include_dirs
from hustings.service.rest_routes import HTTP_STATUS, HttpRule, http_rules

SERVICE_NAME = "hustings.v1.GameService"
PACKAGE_DIR = pathlib.Path(__file__).resolve().parent
DEFAULT_PROTO_ROOT = PACKAGE_DIR.parent / "proto"
DEFAULT_OUT = PACKAGE_DIR / "static" / "openapi.json"
REF = "#/components/schemas/"
# The RPCs whose REST answers are cacheable (hustings.service.catalogue.rest_answer): an ETag, the
# content version quoted, with ``Cache-Control: public, no-cache``; a matching If-None-Match gets
# 304 with no content.
CONDITIONAL_GETS = {"hustings.v1.GameService.GetGameKind"}

_INT32 = {"type": "integer", "format": "int32", "minimum": -(2**31), "maximum": 2**31 - 1}
_UINT32 = {"type": "integer", "format": "int64", "minimum": 0, "maximum": 2**32 - 1}
_INT64 = {"type": "string", "format": "int64", "pattern": "^-?[0-9]{1,19}$"}
_UINT64 = {"type": "string", "format": "uint64", "pattern": "^[0-9]{1,20}$"}
_SCALARS: dict[int, dict[str, Any]] = {
    FieldDescriptor.TYPE_INT32: _INT32,
    FieldDescriptor.TYPE_SINT32: _INT32,
    FieldDescriptor.TYPE_SFIXED32: _INT32,
    FieldDescriptor.TYPE_UINT32: _UINT32,
    FieldDescriptor.TYPE_FIXED32: _UINT32,
    FieldDescriptor.TYPE_INT64: _INT64,
    FieldDescriptor.TYPE_SINT64: _INT64,
    FieldDescriptor.TYPE_SFIXED64: _INT64,
    FieldDescriptor.TYPE_UINT64: _UINT64,
    FieldDescriptor.TYPE_FIXED64: _UINT64,
    FieldDescriptor.TYPE_FLOAT: {"type": "number", "format": "float"},
    FieldDescriptor.TYPE_DOUBLE: {"type": "number", "format": "double"},
    FieldDescriptor.TYPE_BOOL: {"type": "boolean"},
    FieldDescriptor.TYPE_STRING: {"type": "string"},
    FieldDescriptor.TYPE_BYTES: {"type": "string", "format": "byte"},
}

def _status_mapping() -> str:
    """Each HTTP status of an error and the gRPC codes answered with it, as the REST face maps
    them (``HTTP_STATUS``): "INVALID_ARGUMENT, FAILED_PRECONDITION and OUT_OF_RANGE 400, …"."""
    by_status: dict[int, list[str]] = {}
    for code, status in HTTP_STATUS.items():
        if status != 200:
            by_status.setdefault(status, []).append(code.name)
    parts = []
    for status, names in sorted(by_status.items()):
        listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        parts.append(f"{listed} {status}")
    return ", ".join(parts)


_STATUS_MAPPING = _status_mapping()

_STATUS_SCHEMAS: dict[str, Any] = {
    "google.rpc.Status": {
        "type": "object",
        "description": (
            "An error (google.rpc.Status in canonical JSON). `code` is the gRPC status code; the "
            f"HTTP status follows from it ({_STATUS_MAPPING}), except for the HTTP layer's own "
            "refusals, which keep HTTP's: 405 METHOD_NOT_ALLOWED (UNIMPLEMENTED), 408 BODY_TIMEOUT "
            "(DEADLINE_EXCEEDED), 413 REQUEST_TOO_LARGE (RESOURCE_EXHAUSTED), 415 "
            "UNSUPPORTED_CONTENT_ENCODING (INVALID_ARGUMENT). `details` holds one "
            "google.rpc.ErrorInfo whose `reason` is machine-readable (e.g. NOT_YOUR_TURN, "
            "STALE_VERSION, GAME_NOT_FOUND, MALFORMED_JSON) and whose `domain` is \"hustings\"; "
            "a refusal that hints when to come back (TOO_MANY_GAMES_CREATED, CALL_RATE_EXCEEDED, "
            "STORE_UNAVAILABLE, STORE_BUSY, UNKNOWN_STORED_KIND) also holds a google.rpc.RetryInfo, and its answer a "
            "Retry-After header in whole seconds."
        ),
        "properties": {
            "code": {**_INT32, "description": "The gRPC status code (google.rpc.Code)."},
            "message": {"type": "string", "description": "What went wrong, for people."},
            "details": {
                "type": "array",
                "description": "One google.rpc.ErrorInfo, and a google.rpc.RetryInfo with a retry hint.",
                "items": {"oneOf": [{"$ref": REF + "google.rpc.ErrorInfo"}, {"$ref": REF + "google.rpc.RetryInfo"}]},
            },
        },
        "required": ["code", "message"],
        "additionalProperties": False,
    },
    "google.rpc.ErrorInfo": {
        "type": "object",
        "description": "The machine-readable cause of an error (packed in google.protobuf.Any).",
        "properties": {
            "@type": {"type": "string", "const": "type.googleapis.com/google.rpc.ErrorInfo"},
            "reason": {"type": "string", "description": "UPPER_SNAKE_CASE cause, stable for programs."},
            "domain": {"type": "string", "description": "Always \"hustings\"."},
            "metadata": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        "required": ["@type", "reason", "domain"],
        "additionalProperties": False,
    },
    "google.rpc.RetryInfo": {
        "type": "object",
        "description": "When to send the refused call again (packed in google.protobuf.Any).",
        "properties": {
            "@type": {"type": "string", "const": "type.googleapis.com/google.rpc.RetryInfo"},
            "retryDelay": {"type": "string", "description": "The wait, as a google.protobuf.Duration (e.g. \"2.5s\")."},
        },
        "required": ["@type", "retryDelay"],
        "additionalProperties": False,
    },
}


# --- compiling the proto with its comments ----------------------------------------------------
def descriptor_set(proto_root: pathlib.Path = DEFAULT_PROTO_ROOT) -> descriptor_pb2.FileDescriptorSet:
    """Every proto under ``proto_root`` (and its imports) compiled with comments."""
    from grpc_tools import protoc

    files = sorted(str(p.relative_to(proto_root)) for p in proto_root.rglob("*.proto"))
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "set.pb"
        args = ["protoc", *(f"-I{d}" for d in include_dirs(proto_root))]
        args += [f"--descriptor_set_out={out}", "--include_source_info", "--include_imports", *files]
        if protoc.main(args) != 0:
            raise SystemExit("protoc failed")
        result = descriptor_pb2.FileDescriptorSet()
        result.ParseFromString(out.read_bytes())
        return result


def _comments(files: descriptor_pb2.FileDescriptorSet) -> dict[str, str]:
    """Leading comments by full name (messages, fields, enums, values, services, methods)."""
    found: dict[str, str] = {}
    for file in files.file:
        by_path = {tuple(loc.path): loc.leading_comments for loc in file.source_code_info.location}

        def note(name: str, path: tuple[int, ...]) -> None:
            text = by_path.get(path, "").strip()
            if text:
                found[name] = "\n".join(line.strip() for line in text.splitlines())

        def walk_enum(enum: descriptor_pb2.EnumDescriptorProto, prefix: str, path: tuple[int, ...]) -> None:
            note(prefix + enum.name, path)
            for i, value in enumerate(enum.value):
                note(f"{prefix}{enum.name}.{value.name}", path + (2, i))

        def walk_message(message: descriptor_pb2.DescriptorProto, prefix: str, path: tuple[int, ...]) -> None:
            name = prefix + message.name
            note(name, path)
            for i, field in enumerate(message.field):
                note(f"{name}.{field.name}", path + (2, i))
            for i, nested in enumerate(message.nested_type):
                walk_message(nested, name + ".", path + (3, i))
            for i, enum in enumerate(message.enum_type):
                walk_enum(enum, name + ".", path + (4, i))

        prefix = file.package + "." if file.package else ""
        for i, message in enumerate(file.message_type):
            walk_message(message, prefix, (4, i))
        for i, enum in enumerate(file.enum_type):
            walk_enum(enum, prefix, (5, i))
        for i, service in enumerate(file.service):
            note(prefix + service.name, (6, i))
            for j, method in enumerate(service.method):
                note(f"{prefix}{service.name}.{method.name}", (6, i, 2, j))
    return found


# --- schemas ----------------------------------------------------------------------------------
class _Schemas:
    def __init__(self, comments: dict[str, str]) -> None:
        self.comments = comments
        self.schemas: dict[str, Any] = {}

    def _described(self, schema: dict[str, Any], name: str) -> dict[str, Any]:
        text = self.comments.get(name)
        return {**schema, "description": text} if text else dict(schema)

    def ref_enum(self, enum: EnumDescriptor) -> dict[str, Any]:
        if enum.full_name not in self.schemas:
            lines = [f"- `{v.name}`: {self.comments.get(f'{enum.full_name}.{v.name}', '')}".rstrip() for v in enum.values]
            description = "\n".join(filter(None, [self.comments.get(enum.full_name, ""), *lines]))
            self.schemas[enum.full_name] = {"type": "string", "enum": [v.name for v in enum.values], "description": description}
        return {"$ref": REF + enum.full_name}

    def ref_message(self, message: Descriptor) -> dict[str, Any]:
        if message.full_name not in self.schemas:
            self.schemas[message.full_name] = {}  # placeholder: recursion ends here
            self.schemas[message.full_name] = self.object_schema(message, exclude=())
        return {"$ref": REF + message.full_name}

    def object_schema(self, message: Descriptor, exclude: Iterable[str]) -> dict[str, Any]:
        skip = set(exclude)
        properties = {
            field.json_name: self.field_schema(field) for field in message.fields if field.name not in skip
        }
        schema: dict[str, Any] = self._described({"type": "object"}, message.full_name)
        schema["properties"] = properties
        schema["additionalProperties"] = False
        groups = []
        for oneof in message.oneofs:
            members = [f.json_name for f in oneof.fields if f.name not in skip]
            if _synthetic(oneof) or len(members) < 2:
                continue
            # At most one member of the oneof is set: exactly one branch matches.
            groups.append({"oneOf": [{"required": [m]} for m in members] + [{"not": {"anyOf": [{"required": [m]} for m in members]}}]})
            note = f"At most one of {', '.join('`' + m + '`' for m in members)} (oneof `{oneof.name}`)."
            schema["description"] = (schema.get("description", "") + "\n\n" + note).strip()
        if len(groups) == 1:
            schema.update(groups[0])
        elif groups:
            schema["allOf"] = groups
        return schema

    def field_schema(self, field: FieldDescriptor) -> dict[str, Any]:
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            value = field.message_type.fields_by_name["value"]
            schema: dict[str, Any] = {"type": "object", "additionalProperties": self._single(value)}
        elif field.is_repeated:
            schema = {"type": "array", "items": self._single(field)}
        else:
            schema = self._single(field)
        return self._described(schema, field.full_name)

    def _single(self, field: FieldDescriptor) -> dict[str, Any]:
        if field.enum_type is not None:
            return self.ref_enum(field.enum_type)
        if field.message_type is not None:
            return self.ref_message(field.message_type)
        return dict(_SCALARS[field.type])


def _synthetic(oneof: Any) -> bool:
    """True for the oneof protoc makes for a proto3 ``optional`` field."""
    fields = list(oneof.fields)
    return len(fields) == 1 and oneof.name == "_" + fields[0].name


# --- the document -----------------------------------------------------------------------------
def _parameter(schemas: _Schemas, rule: HttpRule, field: FieldDescriptor, name: str, where: str) -> dict[str, Any]:
    schema = {k: v for k, v in schemas.field_schema(field).items() if k != "description"}
    parameter: dict[str, Any] = {"name": name, "in": where, "required": where == "path", "schema": schema}
    text = schemas.comments.get(field.full_name)
    if text:
        parameter["description"] = text
    if where == "query" and field.is_repeated:
        parameter.update(style="form", explode=True)
    return parameter


_CACHE_HEADERS: dict[str, Any] = {
    "ETag": {
        "description": "The content version, quoted (a strong validator); send it back in If-None-Match.",
        "schema": {"type": "string"},
    },
    "Cache-Control": {
        "description": "`public, no-cache`: any cache may keep the answer, and revalidates it with If-None-Match.",
        "schema": {"type": "string"},
    },
}


def _sse_event_schema(update: dict[str, Any]) -> dict[str, Any]:
    """One Server-Sent Event as a JSON object (fields id, event, data, retry), as OpenAPI 3.1
    tools read a ``text/event-stream`` schema; ``data`` is JSON described by contentSchema."""

    def data(schema: dict[str, Any]) -> dict[str, Any]:
        return {"type": "string", "contentMediaType": "application/json", "contentSchema": schema}

    return {
        "type": "object",
        "description": "One event of the stream.",
        "properties": {
            "id": {"type": "string", "pattern": "^[0-9]+$", "description": "The version of the update."},
            "event": {"type": "string", "enum": ["message", "end", "error"]},
            "data": {"type": "string"},
            "retry": {"type": "integer", "minimum": 0},
        },
        "required": ["data"],
        "oneOf": [
            {"properties": {"event": {"const": "message"}, "data": data(update)}, "required": ["id"]},
            {"properties": {"event": {"const": "end"}, "data": data({"type": "object", "maxProperties": 0})}, "required": ["event"]},
            {"properties": {"event": {"const": "error"}, "data": data({"$ref": REF + "google.rpc.Status"})}, "required": ["event"]},
        ],
    }


def _operation(schemas: _Schemas, rule: HttpRule) -> dict[str, Any]:
    method = rule.method
    text = schemas.comments.get(f"{method.containing_service.full_name}.{method.name}", "")
    operation: dict[str, Any] = {
        "operationId": f"{method.containing_service.name}_{method.name}",
        "tags": [method.containing_service.name],
        "summary": text.split("\n")[0] if text else method.name,
        "description": f"{text}\n\ngRPC: `{method.full_name}`.".strip(),
    }
    request = method.input_type
    parameters = []
    for path in rule.path_fields:
        field = request.fields_by_name[path.split(".")[0]]
        parameters.append(_parameter(schemas, rule, field, path, "path"))
    for field in rule.query_fields():
        if field.message_type is not None:
            continue  # nested query fields (a.b=) are accepted but not listed
        parameters.append(_parameter(schemas, rule, field, field.json_name, "query"))
    conditional = method.full_name in CONDITIONAL_GETS and rule.verb == "get"
    if conditional:
        parameters.append({
            "name": "If-None-Match",
            "in": "header",
            "required": False,
            "description": "The ETag of an answer already held: when it is still current, the answer is 304 with no content.",
            "schema": {"type": "string"},
        })
    if rule.streaming:
        parameters.append({
            "name": "Last-Event-ID",
            "in": "header",
            "required": False,
            "description": "Resume after this version (sent by EventSource on reconnection); overrides fromVersion.",
            "schema": {"type": "string", "pattern": "^[0-9]{1,18}$"},
        })
    if parameters:
        operation["parameters"] = parameters
    if rule.body:
        if rule.body != "*":
            raise ValueError(f"{method.full_name}: only body \"*\" is supported")
        if rule.path_fields:
            name = f"{method.containing_service.full_name}.{method.name}Body"
            schema = schemas.object_schema(request, exclude=[p.split(".")[0] for p in rule.path_fields])
            schema["description"] = f"{method.input_type.name} without the fields taken from the path."
            schemas.schemas[name] = schema
            body_schema = {"$ref": REF + name}
        else:
            body_schema = schemas.ref_message(request)
        operation["requestBody"] = {"required": True, "content": {"application/json": {"schema": body_schema}}}
    output = schemas.ref_message(method.output_type)
    if rule.streaming:
        ok = {
            "description": (
                "Server-Sent Events: one event per update, `id:` its version and `data:` a "
                f"`{method.output_type.full_name}` in canonical JSON; `event: end` when the game is over, "
                "`event: error` (data: google.rpc.Status) if the stream fails; `: keepalive` comments "
                "while nothing happens. The stream opens with a `retry: 2000` field alone (the reconnection "
                "delay, in ms), which dispatches no event."
            ),
            "content": {"text/event-stream": {"schema": _sse_event_schema(output)}},
        }
    else:
        description = schemas.comments.get(method.output_type.full_name, method.output_type.name)
        ok = {"description": description, "content": {"application/json": {"schema": output}}}
    responses: dict[str, Any] = {"200": ok}
    if conditional:
        ok["headers"] = _CACHE_HEADERS
        responses["304"] = {
            "description": "Not Modified: the ETag named in If-None-Match is current; no content.",
            "headers": _CACHE_HEADERS,
        }
    if rule.streaming:
        responses["204"] = {
            "description": (
                "No Content: the game is over and nothing follows the version asked for (fromVersion "
                "or Last-Event-ID at its last version). EventSource stops reconnecting on a 204, "
                "as it does not after `event: end`."
            ),
        }
    operation["responses"] = {
        **responses,
        "default": {
            "description": "An error: google.rpc.Status with a machine-readable ErrorInfo reason.",
            "content": {"application/json": {"schema": {"$ref": REF + "google.rpc.Status"}}},
        },
    }
    return operation


def build_document(files: descriptor_pb2.FileDescriptorSet, service_name: str = SERVICE_NAME) -> dict[str, Any]:
    """The OpenAPI document for ``service_name`` as described by ``files``."""
    pool = descriptor_pool.DescriptorPool()
    for file in files.file:
        pool.Add(file)
    service: ServiceDescriptor = pool.FindServiceByName(service_name)
    comments = _comments(files)
    schemas = _Schemas(comments)
    paths: dict[str, dict[str, Any]] = {}
    for rule in http_rules(service):
        paths.setdefault(rule.openapi_path, {})[rule.verb] = _operation(schemas, rule)
    components = {**{k: schemas.schemas[k] for k in sorted(schemas.schemas)}, **_STATUS_SCHEMAS}
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "hustings",
            "version": service.file.package.rsplit(".", 1)[-1],
            "description": (
                comments.get(service.full_name, "")
                + "\n\nThe REST/JSON face of `" + service.full_name + "`, generated from the proto's "
                "`google.api.http` annotations. Bodies and responses use protobuf's canonical JSON "
                "mapping: lowerCamelCase names (proto names are accepted too), enums by name, 64-bit "
                "integers as strings; responses also write fields that hold their default value. "
                "Query parameters name fields in either spelling."
            ).strip(),
        },
        "tags": [{"name": service.name, "description": comments.get(service.full_name, "")}],
        "security": [{}, {"seatToken": []}],
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {
                "seatToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "The seat token from JoinGame; without it the caller is a spectator.",
                }
            },
        },
    }


def render(document: dict[str, Any]) -> str:
    """The document as committed: stable key order, two-space indent, final newline."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def generate(proto_root: pathlib.Path = DEFAULT_PROTO_ROOT) -> str:
    """The OpenAPI document for the protos under ``proto_root``, rendered."""
    return render(build_document(descriptor_set(proto_root)))


def main(argv: list[str] | None = None) -> int:
    """Write (or with --check, compare) the committed OpenAPI document."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0] if __doc__ else None)
    parser.add_argument("--proto-root", type=pathlib.Path, default=DEFAULT_PROTO_ROOT)
    parser.add_argument("--out", type=pathlib.Path, default=DEFAULT_OUT)
    parser.add_argument("--check", action="store_true", help="exit 1 when --out differs from the proto")
    args = parser.parse_args(argv)
    text = generate(args.proto_root)
    if args.check:
        current = args.out.read_text() if args.out.exists() else ""
        if current != text:
            print(f"{args.out} is stale: run python -m hustings.service.openapi", file=sys.stderr)
            return 1
        return 0
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
