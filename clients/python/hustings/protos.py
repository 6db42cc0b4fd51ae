"""Where protoc finds the imports of our protos: shared by every generator (Python code,
OpenAPI document, TypeScript stubs)."""

from __future__ import annotations

import pathlib


def include_dirs(proto_root: pathlib.Path) -> list[str]:
    """``proto_root``, protobuf's well-known types (from grpcio-tools) and googleapis (from
    googleapis-common-protos, which ships the .proto files too)."""
    import google.api
    import grpc_tools

    well_known = pathlib.Path(grpc_tools.__file__).parent / "_proto"
    googleapis = pathlib.Path(list(google.api.__path__)[0]).parent.parent
    return [str(proto_root), str(well_known), str(googleapis)]
