"""The committed generated code is exactly what proto/ produces."""

from __future__ import annotations

import importlib.util
import pathlib
import re

from conftest import REPO

# Lines that name the protobuf generator's own version; they may differ between tool releases.
# (The gRPC stubs' GRPC_GENERATED_VERSION is written as pyproject.toml's grpcio lower bound.)
_VERSION_LINE = re.compile(r"(Protobuf Python Version|^\s*\d+,\s*$)")


def _normalised(path: pathlib.Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if not _VERSION_LINE.search(line)]


def test_generated_code_is_fresh(tmp_path: pathlib.Path) -> None:
    spec = importlib.util.spec_from_file_location("generate", REPO / "proto" / "generate.py")
    assert spec is not None and spec.loader is not None
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    generate.generate(tmp_path)
    committed_root = REPO / "clients" / "python"
    produced = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    assert produced, "protoc produced nothing"
    for relative in produced:
        committed = committed_root / relative
        assert committed.exists(), f"{relative} is generated but not committed: run python proto/generate.py"
        assert _normalised(committed) == _normalised(tmp_path / relative), (
            f"{relative} is stale: run python proto/generate.py"
        )


def test_the_stubs_ask_for_the_grpcio_the_project_requires(tmp_path: pathlib.Path) -> None:
    """Every committed gRPC stub names pyproject.toml's grpcio lower bound: one written by a newer
    grpcio-tools refused to load under the grpcio the project allows."""
    spec = importlib.util.spec_from_file_location("generate", REPO / "proto" / "generate.py")
    assert spec is not None and spec.loader is not None
    generate = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generate)
    lower = generate.required_grpcio()
    assert f'"grpcio>={lower}"' in (REPO / "pyproject.toml").read_text()
    stubs = sorted((REPO / "clients" / "python").rglob("*_pb2_grpc.py"))
    assert stubs
    for stub in stubs:
        assert f"GRPC_GENERATED_VERSION = '{lower}'" in stub.read_text().splitlines(), stub
