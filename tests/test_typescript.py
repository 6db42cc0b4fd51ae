"""The TypeScript stubs build from the proto, the typed example type-checks (tsc, strict) and
plays a move against a live server over the REST/JSON face.

Needs Node.js 20+ and npm (the project's CI machine has them); ``npm ci`` installs exactly what
clients/typescript/package-lock.json pins. Without node the test fails, it does not skip.
"""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
from typing import Iterator

import pytest

from rest_helpers import LiveRest
from hustings.service.embedded_redis import EmbeddedRedis

TS_DIR = pathlib.Path(__file__).resolve().parent.parent / "clients" / "typescript"
NPM_TIMEOUT_S = 300


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: the TypeScript client needs Node.js 20+ with npm on PATH")
    return path


def _run(*args: str, timeout: float = NPM_TIMEOUT_S) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(args, cwd=TS_DIR, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


@pytest.fixture(scope="module")
def built() -> Iterator[pathlib.Path]:
    """`npm ci` from the committed lock file, then `npm run build` (generate + tsc)."""
    node, npm = _tool("node"), _tool("npm")
    version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    assert int(version.lstrip("v").split(".")[0]) >= 20, f"Node.js 20+ needed, found {version}"
    _run(npm, "ci", "--no-audit", "--no-fund")
    _run(npm, "run", "build")
    yield TS_DIR / "dist"


def test_stubs_are_generated_for_every_public_proto(built: pathlib.Path) -> None:
    protos = sorted(p.stem for p in (TS_DIR.parent.parent / "proto" / "hustings" / "v1").glob("*.proto"))
    generated = sorted(p.name.removesuffix("_pb.ts") for p in (TS_DIR / "src" / "gen" / "hustings" / "v1").glob("*_pb.ts"))
    assert generated == protos
    assert (built / "example.js").exists() and (built / "rest.d.ts").exists()


def test_typed_example_plays_a_move_against_a_live_server(built: pathlib.Path, redis_server: EmbeddedRedis) -> None:
    with LiveRest(redis_server.url) as live:
        result = _run(_tool("node"), str(built / "example.js"), live.base_url, timeout=60)
        line = json.loads(result.stdout.strip().splitlines()[-1])
        assert line["seats"] == [0, 1, 2]
        assert int(line["version"]) == int(line["movedFrom"]) + 1 and line["events"] >= 1
        assert line["refused"] == "STALE_VERSION"
        view = live.ok("GET", f"/v1/games/{line['gameId']}/view")["view"]
        assert view["version"] == line["version"]
