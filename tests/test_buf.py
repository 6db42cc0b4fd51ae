"""``buf lint`` and ``buf format`` over proto/, as a Buf user runs them, with the repository's own
buf.yaml rules. The suite has no Buf Schema Registry to fetch googleapis from, so the lint runs
in a copy of the workspace whose googleapis module comes from the googleapis-common-protos
package (the files protoc uses here too); everything else is the committed configuration."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys
from typing import Any

import pytest
import yaml

from conftest import REPO

BUF_TIMEOUT_S = 120


def _buf() -> str:
    beside = pathlib.Path(sys.executable).parent / "buf"
    found = str(beside) if beside.exists() else shutil.which("buf")
    assert found, "the buf CLI is missing: python3 -m pip install -e '.[test]' (buf-bin)"
    return found


def _googleapis() -> pathlib.Path:
    """The folder holding google/api/*.proto, as shipped by googleapis-common-protos."""
    import google.api

    return pathlib.Path(list(google.api.__path__)[0]).parent.parent


def _offline_workspace(folder: pathlib.Path) -> pathlib.Path:
    """A copy of proto/ beside the googleapis files, under the committed rules, deps local."""
    config: dict[str, Any] = yaml.safe_load((REPO / "buf.yaml").read_text())
    assert config["deps"] == ["buf.build/googleapis/googleapis"]
    shutil.copytree(REPO / "proto", folder / "proto", ignore=shutil.ignore_patterns("*.py", "__pycache__"))
    api = folder / "googleapis" / "google" / "api"
    api.mkdir(parents=True)
    for proto in (_googleapis() / "google" / "api").glob("*.proto"):
        shutil.copy(proto, api)
    del config["deps"]
    config["modules"].append({"path": "googleapis"})
    (folder / "buf.yaml").write_text(yaml.safe_dump(config))
    return folder


def _lint(workspace: pathlib.Path) -> subprocess.CompletedProcess[str]:
    # Only the proto module: googleapis follows its own style.
    return subprocess.run([_buf(), "lint", "proto"], cwd=workspace, capture_output=True, text=True, timeout=BUF_TIMEOUT_S)


def test_buf_lint_passes_on_proto(tmp_path: pathlib.Path) -> None:
    done = _lint(_offline_workspace(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr


def test_buf_lint_catches_a_break_of_the_style(tmp_path: pathlib.Path) -> None:
    workspace = _offline_workspace(tmp_path)
    service = workspace / "proto" / "hustings" / "v1" / "game_service.proto"
    text = service.read_text()
    assert "string game_id = 1;" in text
    service.write_text(text.replace("string game_id = 1;", "string gameId = 1;", 1))
    done = _lint(workspace)
    assert done.returncode != 0
    assert 'Field name "gameId" should be lower_snake_case' in done.stdout


def test_buf_format_leaves_proto_unchanged() -> None:
    done = subprocess.run([_buf(), "format", "-d", "--exit-code"], cwd=REPO, capture_output=True, text=True, timeout=BUF_TIMEOUT_S)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    rules = subprocess.run(
        [_buf(), "config", "ls-lint-rules", "--configured-only"], cwd=REPO, capture_output=True, text=True, timeout=BUF_TIMEOUT_S
    )
    assert rules.returncode == 0 and "FIELD_LOWER_SNAKE_CASE" in rules.stdout, rules.stderr


RELEASED = REPO / "proto" / "released" / "0.1.0.binpb"


def _breaking(workspace: pathlib.Path) -> subprocess.CompletedProcess[str]:
    """``buf breaking`` against release 0.1.0's image, under the committed rules (buf.yaml)."""
    return subprocess.run(
        [_buf(), "breaking", "--against", str(RELEASED)], cwd=workspace, capture_output=True, text=True, timeout=BUF_TIMEOUT_S
    )


def test_the_messages_stay_wire_and_json_compatible_with_release_0_1_0(tmp_path: pathlib.Path) -> None:
    """buf.yaml: stubs generated from 0.1.0 parse every answer, and a replica decodes every record
    a 0.1.0 replica stored."""
    rules = subprocess.run(
        [_buf(), "config", "ls-breaking-rules", "--configured-only"], cwd=REPO, capture_output=True, text=True, timeout=BUF_TIMEOUT_S
    )
    assert rules.returncode == 0 and "FIELD_SAME_JSON_NAME" in rules.stdout, rules.stdout + rules.stderr
    done = _breaking(_offline_workspace(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("path", "before", "after", "says"),
    [
        # A field renumbered: a 0.1.0 client would read the game id under the wrong number.
        ("v1/game_service.proto", "string game_id = 1;", "string game_id = 41;", 'Previously present field "1" with name "game_id"'),
        # A stored field's type changed: a game a 0.1.0 replica stored would not decode.
        ("storage/v1/storage.proto", "bytes seed = ", "string seed = ", 'changed type from "bytes" to "string"'),
    ],
)
def test_the_compatibility_check_catches_a_break(tmp_path: pathlib.Path, path: str, before: str, after: str, says: str) -> None:
    workspace = _offline_workspace(tmp_path)
    proto = workspace / "proto" / "hustings" / path
    text = proto.read_text()
    assert before in text
    proto.write_text(text.replace(before, after, 1))
    done = _breaking(workspace)
    assert done.returncode != 0
    assert says in done.stdout, done.stdout + done.stderr
