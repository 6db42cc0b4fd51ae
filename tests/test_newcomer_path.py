"""What a newcomer meets on the README's path that tests/test_readme.py does not run: the script
that installs the suite's Debian packages, judged against a node that is too old, with a fake
apt-get that only records its calls (the real one is never reachable from these tests)."""

from __future__ import annotations

import os
import pathlib
import shutil
import stat
import subprocess

import pytest

from conftest import REPO

INSTALL_SCRIPT = REPO / "tests" / "install-system-deps.sh"
# The real programs the script may call besides the fakes; nothing else is on its PATH.
REAL_TOOLS = ("id", "env")


def _executable(path: pathlib.Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _fake_node(bin_dir: pathlib.Path, version: str) -> None:
    """A ``node`` that prints ``version`` for ``node --version``, as Node.js does."""
    _executable(bin_dir / "node", f"#!/bin/sh\necho {version}\n")


def _sandbox(tmp_path: pathlib.Path) -> tuple[pathlib.Path, pathlib.Path]:
    """A bin folder to be the whole PATH: ``id`` and ``env`` linked to the real ones, a ``sudo``
    that runs its arguments, and an ``apt-get`` that records each call in a file and, asked to
    install nodejs, leaves the node Debian 12 ships (18) and its npm. Returns (bin, record)."""
    bin_dir, record = tmp_path / "bin", tmp_path / "apt-get-calls"
    bin_dir.mkdir()
    for tool in REAL_TOOLS:
        real = shutil.which(tool)
        assert real, f"{tool} is missing"
        (bin_dir / tool).symlink_to(real)
    _executable(bin_dir / "sudo", '#!/bin/sh\nexec "$@"\n')
    chmod = shutil.which("chmod")  # the fake apt-get's own tool, by its full path: not on the script's PATH
    assert chmod, "chmod is missing"
    _executable(
        bin_dir / "apt-get",
        "#!/bin/sh\n"
        f'echo "$*" >> "{record}"\n'
        'case " $* " in *" nodejs "*)\n'
        f'  printf "#!/bin/sh\\necho v18.19.0\\n" > "{bin_dir}/node"; {chmod} +x "{bin_dir}/node"\n'
        f'  printf "#!/bin/sh\\necho 9.2.0\\n" > "{bin_dir}/npm"; {chmod} +x "{bin_dir}/npm" ;;\n'
        "esac\n",
    )
    return bin_dir, record


def _run(bin_dir: pathlib.Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": str(bin_dir), "HOME": str(bin_dir.parent), "LANG": "C"}
    return subprocess.run(["/bin/sh", str(INSTALL_SCRIPT)], capture_output=True, text=True, timeout=30, env=env)


def _installs(record: pathlib.Path) -> list[str]:
    """The packages of every ``apt-get install`` the script asked for."""
    calls = record.read_text().splitlines() if record.exists() else []
    return [word for call in calls if call.split()[:1] == ["install"] for word in call.split()[1:] if not word.startswith("-")]


@pytest.mark.parametrize("version", ["v18.19.0", "v16.20.2", "v19.9.0"])
def test_an_old_node_is_one_line_that_says_what_to_do(tmp_path: pathlib.Path, version: str) -> None:
    bin_dir, record = _sandbox(tmp_path)
    _fake_node(bin_dir, version)
    _executable(bin_dir / "npm", "#!/bin/sh\necho 9.2.0\n")
    done = _run(bin_dir)
    assert done.returncode == 1, (done.stdout, done.stderr)
    said = [line for line in done.stderr.splitlines() if "node" in line]
    assert len(said) == 1, done.stderr
    (line,) = said
    assert f"node {version} at {bin_dir / 'node'} is older than Node.js 20" in line
    assert "install Node.js 20 or newer" in line and "first on PATH" in line
    assert "nodejs" not in _installs(record)  # apt-get would bring back the same old node


@pytest.mark.parametrize("version", ["v20.0.0", "v20.20.2", "v22.11.0", "v100.1.0"])
def test_a_node_new_enough_passes_without_a_word_about_it(tmp_path: pathlib.Path, version: str) -> None:
    bin_dir, record = _sandbox(tmp_path)
    _fake_node(bin_dir, version)
    _executable(bin_dir / "npm", "#!/bin/sh\necho 10.8.2\n")
    done = _run(bin_dir)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert "older" not in done.stderr and "nodejs" not in _installs(record)


def test_a_node_that_apt_get_installs_too_old_is_named_after_the_install(tmp_path: pathlib.Path) -> None:
    """No node at all: apt-get installs Debian's nodejs and npm, and the node it leaves (18) is
    then named as too old, rather than the suite failing later in the TypeScript tests."""
    bin_dir, record = _sandbox(tmp_path)
    done = _run(bin_dir)
    assert {"nodejs", "npm"} <= set(_installs(record)), record.read_text()
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert done.stderr.splitlines()[-1].startswith(f"tests/install-system-deps.sh: node v18.19.0 at {bin_dir / 'node'} is older")


def test_a_node_that_prints_no_version_is_not_taken_for_new(tmp_path: pathlib.Path) -> None:
    bin_dir, _ = _sandbox(tmp_path)
    _executable(bin_dir / "node", "#!/bin/sh\nexit 3\n")
    _executable(bin_dir / "npm", "#!/bin/sh\necho 10.8.2\n")
    done = _run(bin_dir)
    assert done.returncode == 1 and "node of unknown version at" in done.stderr, done.stderr


def test_the_sandbox_reaches_no_real_apt_get(tmp_path: pathlib.Path) -> None:
    """The PATH these tests give the script holds only the fakes and the tools named above."""
    bin_dir, _ = _sandbox(tmp_path)
    assert shutil.which("apt-get", path=str(bin_dir)) == str(bin_dir / "apt-get")
    assert sorted(os.listdir(bin_dir)) == sorted([*REAL_TOOLS, "sudo", "apt-get"])
