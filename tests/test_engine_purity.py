"""The engine is pure: no I/O, clock, global randomness or service libraries, and protobuf only in
each game's codec (STYLE.md, point 1)."""

from __future__ import annotations

import ast
import pathlib

import pytest

ENGINE = pathlib.Path(__file__).resolve().parent.parent / "engine"
FORBIDDEN = frozenset({"grpc", "redis", "structlog", "random", "time", "os", "socket", "asyncio"})
PROTOBUF = ("google.protobuf", "hustings.v1", "hustings.storage")
MODULES = sorted(ENGINE.rglob("*.py"))


def imported_names(tree: ast.AST) -> list[str]:
    """Every module an import statement names (``from x import y`` gives x and x.y)."""
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            names.append(base)
            names += [f"{base}.{alias.name}" if node.module else alias.name for alias in node.names]
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in (
            "__import__",
            "import_module",
        ):
            names += [arg.value for arg in node.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
    return names


def test_there_are_engine_modules() -> None:
    assert any(path.parent.name == "stimmvieh" for path in MODULES)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ENGINE)))
def test_engine_module_is_pure(path: pathlib.Path) -> None:
    names = imported_names(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)))
    for name in names:
        root = name.split(".")[0]
        assert root not in FORBIDDEN, f"{path.name} imports {name}"
        if path.name != "codec.py":
            assert not name.startswith(PROTOBUF) and root != "google", f"{path.name} imports {name} outside codec.py"


def test_the_checker_catches_forbidden_imports() -> None:
    tree = ast.parse("import os.path\nfrom random import choice\nfrom hustings.v1 import game_pb2\n")
    assert imported_names(tree)[:3] == ["os.path", "random", "random.choice"]
    assert "hustings.v1.game_pb2" in imported_names(tree)
