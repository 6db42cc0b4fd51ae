"""The TypeScript client's build for the tests (the typescript_dist fixture) when test runs share a
checkout: two runs setting it up at once both get a working client, built once, and a run that
finds it up to date leaves node_modules and dist/ as they are (`npm ci` would delete node_modules
under the other run's tests). On a copy of clients/typescript, so that the checkout's own client
is never rebuilt under tests running meanwhile."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

from filelock import FileLock

from conftest import NPM_TIMEOUT_S, REPO, TS_DIR

TESTS = pathlib.Path(__file__).resolve().parent
SETUP = (
    "import json, pathlib, sys; sys.path.insert(0, sys.argv[1]); from conftest import build_typescript_client; "
    "print(json.dumps(build_typescript_client(pathlib.Path(sys.argv[2]))))"
)
LEFT_OUT = {"dist", "gen", ".test-build.lock"}  # the build's outputs (src/gen is generated) and the lock


def _build_outputs(folder: str, names: list[str]) -> list[str]:
    """What a copy of clients/typescript leaves out (only there and in src/, not in node_modules)."""
    return [name for name in names if pathlib.Path(folder) in (TS_DIR, TS_DIR / "src") and name in LEFT_OUT]


def _copy_of_the_client(root: pathlib.Path) -> pathlib.Path:
    """clients/typescript with its node_modules but without its build, in a checkout of its own
    (the protos are the real ones: scripts/generate.py reads ../../proto)."""
    ts_dir = root / "clients" / "typescript"
    (root / "clients").mkdir(parents=True)
    (root / "proto").symlink_to(REPO / "proto")
    with FileLock(str(TS_DIR / ".test-build.lock"), timeout=NPM_TIMEOUT_S * 2):  # not while it is installed
        shutil.copytree(TS_DIR, ts_dir, symlinks=True, ignore=_build_outputs)
    return ts_dir


def _set_up_at_once(ts_dir: pathlib.Path, count: int) -> list[list[str]]:
    """``count`` processes running the fixture's setup at once, as test runs of their own (not
    workers of this one); the steps each ran."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("PYTEST_XDIST_")}
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", SETUP, str(TESTS), str(ts_dir)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )
        for _ in range(count)
    ]
    ran = []
    for process in processes:
        try:
            out, err = process.communicate(timeout=NPM_TIMEOUT_S * 2)
        finally:
            process.kill()
        assert process.returncode == 0, err[-3000:]
        ran.append(json.loads(out.splitlines()[-1]))
    return ran


def _files(ts_dir: pathlib.Path) -> dict[str, tuple[int, int]]:
    """Each file of node_modules' install record and of dist/, with its inode and change time."""
    paths = [ts_dir / "node_modules" / ".package-lock.json", *(ts_dir / "dist").rglob("*")]
    return {str(path.relative_to(ts_dir)): (path.stat().st_ino, path.stat().st_ctime_ns) for path in paths}


def test_two_runs_setting_the_typescript_client_up_at_once_build_it_once(tmp_path: pathlib.Path) -> None:
    ts_dir = _copy_of_the_client(tmp_path / "checkout")
    first, second = sorted(_set_up_at_once(ts_dir, 2), key=len)
    assert first == [] and second[-1:] == ["run build"], (first, second)
    built = _files(ts_dir)
    assert "dist/display_names.js" in built

    (again,) = _set_up_at_once(ts_dir, 1)
    assert again == []
    assert _files(ts_dir) == built

    check = "import(process.argv[1]).then((m) => { if (m.checkedDisplayName('Ada') !== 'Ada') process.exit(3) })"
    used = subprocess.run(["node", "-e", check, (ts_dir / "dist" / "display_names.js").as_uri()],
                          capture_output=True, text=True, timeout=60)
    assert used.returncode == 0, used.stderr[-3000:]


def test_generating_the_stubs_outside_the_venv_says_what_to_do() -> None:
    """`npm run build` with a python3 that lacks the hustings package (the venv not active): one
    line saying to activate it, not a traceback."""
    script = pathlib.Path(__file__).resolve().parent.parent / "clients" / "typescript" / "scripts" / "generate.py"
    done = subprocess.run([sys.executable, "-S", str(script)], capture_output=True, text=True, timeout=60)  # -S: no site-packages
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "activate the venv" in done.stderr, done.stderr
