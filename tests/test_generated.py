"""The committed generated code is exactly what proto/ produces."""

from __future__ import annotations

import importlib.util
import pathlib
import re

from conftest import REPO

# Lines that name the generator's own version; they may differ between tool releases.
_VERSION_LINE = re.compile(r"(Protobuf Python Version|GRPC_GENERATED_VERSION|^\s*\d+,\s*$)")


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
