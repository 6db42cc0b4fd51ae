"""The newcomer's path past the README's first two commands, held to what README.md,
clients/typescript/README.md and deploy/README.md promise: the service as `pip install .` (and so
the image) installs it, with every file of /play (its game renderers were left out, and the page
drew nothing); a listen address whose port is outside 0-65535, refused in one line (gRPC served
on some other port, the other faces stopped with a traceback); the README's TypeScript line for
the catalogue, which compiles and runs. Real `hustings serve` processes, real Redis, real HTTP, all
on loopback."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time
import zipfile
from typing import Iterator

import pytest
import requests

from conftest import REPO, free_ports, stop_process
from hustings.service.embedded_redis import EmbeddedRedis, wait_for_port

README = REPO / "README.md"
TS_DIR = REPO / "clients" / "typescript"
PLAY = REPO / "service" / "static" / "play"
START_TIMEOUT_S = 30.0
# What `pip install .` reads: the project's metadata and the folders its packages come from.
PACKAGE_SOURCES = ("pyproject.toml", "README.md", "LICENSE", "clients/python", "service", "engine")
NOT_SOURCES = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info", "build", "dist", "node_modules")


@pytest.fixture(scope="module")
def own_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """A Redis of this module's own: the replicas started here keep their server secret in it."""
    server = EmbeddedRedis(tmp_path_factory.mktemp("newcomer-redis"), appendonly=False).start()
    try:
        yield server
    finally:
        server.stop()


def _without_settings(**extra: str) -> dict[str, str]:
    """This environment without any HUSTINGS_* setting, plus ``extra``."""
    return {k: v for k, v in os.environ.items() if not k.startswith("HUSTINGS_")} | extra


# ---------------------------------------------------------------- the package as `pip install .` makes it


def _wheel(folder: pathlib.Path) -> pathlib.Path:
    """The wheel `pip install .` builds from this checkout's package sources (copied first, so
    that the build writes nothing into the checkout), unpacked into ``folder / "site"``."""
    source = folder / "source"
    for name in PACKAGE_SOURCES:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, source / name, ignore=NOT_SOURCES)
        else:
            source.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-q", str(source), "-w", str(folder / "wheel")],
        capture_output=True, text=True, timeout=300,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = (folder / "wheel").glob("hustings-*.whl")
    site = folder / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    return site


def test_the_installed_package_serves_every_file_of_the_play_page(own_redis: EmbeddedRedis, tmp_path: pathlib.Path) -> None:
    """deploy/README.md: the image (`pip install .`) serves "the browser client on `localhost:8081`
    (`http://localhost:8081/play`)"; README: "one renderer per game (`games/stimmvieh.js`,
    `wahlspiel.js`, `spin_doctors.js`)", which `app.js` imports. Every file of /play in the
    repository is served by `hustings serve` as the package installs it."""
    site = _wheel(tmp_path)
    env = _without_settings(PYTHONPATH=str(site))
    where = subprocess.run([sys.executable, "-c", "import hustings.service as s; print(s.__file__)"],
                           capture_output=True, text=True, timeout=60, env=env)
    assert where.stdout.strip().startswith(str(site)), where  # the installed copy, not the checkout
    files = sorted(path.relative_to(PLAY).as_posix() for path in PLAY.rglob("*") if path.is_file())
    assert "games/stimmvieh.js" in files and "app.js" in files, files
    grpc_port, http_port = free_ports(2)
    command = [sys.executable, "-m", "hustings.cli", "serve", "--redis-url", own_redis.url,
               "--address", f"127.0.0.1:{grpc_port}", "--http-address", f"127.0.0.1:{http_port}"]
    process = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(http_port)
        base = f"http://127.0.0.1:{http_port}/play"
        answers = {name: requests.get(f"{base}/{name}", timeout=10).status_code for name in files}
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert {name: status for name, status in answers.items() if status != 200} == {}


# ---------------------------------------------------------------- listen addresses


def _started_or_ended(process: subprocess.Popen[bytes], log: pathlib.Path) -> tuple[int | None, str]:
    """(exit status, stderr) once ``process`` has ended, or (None, stderr) as soon as it says it
    serves (it is then stopped); bounded by START_TIMEOUT_S."""
    deadline = time.monotonic() + START_TIMEOUT_S
    try:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return process.returncode, log.read_text(errors="replace")
            if '"replica_started"' in log.read_text(errors="replace"):
                return None, log.read_text(errors="replace")
            time.sleep(0.05)
        return None, log.read_text(errors="replace")
    finally:
        stop_process(process)


@pytest.mark.parametrize("flag", ["--address", "--http-address", "--metrics-address"])
def test_a_port_past_65535_stops_serve_with_one_line(flag: str, own_redis: EmbeddedRedis, tmp_path: pathlib.Path) -> None:
    """deploy/README.md: "A setting that cannot work stops `serve` at start with one line on
    stderr, never a traceback: exit status 2 for a value the command line cannot read (... a listen
    address that is no HOST:PORT with a port from 0 to 65535)", refused before the embedded
    Redis starts, the flag named. Port 65536 is not a port: gRPC takes it modulo 65536 and listens
    on a free port of its choice (99999 on 34463, -1 on 65535), where no client and no balancer
    looks for it; the REST/JSON and metrics listeners end in an OverflowError traceback."""
    listeners = {"--address": "127.0.0.1:0", "--http-address": "", "--metrics-address": ""}
    listeners[flag] = "127.0.0.1:65536"
    command = [sys.executable, "-m", "hustings.cli", "serve", "--redis-url", own_redis.url]
    for name, value in listeners.items():
        command += [name, value]
    log = tmp_path / "stderr"
    with log.open("wb") as stderr:
        process = subprocess.Popen(command, cwd=tmp_path, env=_without_settings(), stdout=subprocess.DEVNULL, stderr=stderr)
        status, said = _started_or_ended(process, log)
    ours = [line for line in said.splitlines() if line.startswith("hustings")]
    assert status == 2, f"{flag} 127.0.0.1:65536: {'still serving' if status is None else status}\n{said[-2000:]}"
    assert "Traceback" not in said and len(ours) == 1, said[-3000:]
    assert flag in ours[0] and "65536" in ours[0], ours  # the line names the setting at fault


# ---------------------------------------------------------------- the catalogue in TypeScript


def _catalogue_expression() -> str:
    """The README's TypeScript look-up of a catalogue entry (The catalogue, last paragraph)."""
    section = re.search(r"^### The catalogue\n(.*?)(?=^##+ |\Z)", README.read_text(), re.S | re.M)
    assert section, "README has no section '### The catalogue'"
    (expression,) = [span for span in re.findall(r"`([^`\n]+)`", section.group(1)) if span.startswith("(await loadCatalogueIndex(")]
    return expression


@pytest.mark.slow  # needs the TypeScript client built (npm ci, npm run build), shared with tests/test_typescript.py
def test_the_readme_s_catalogue_look_up_compiles_and_runs(typescript_dist: pathlib.Path, live: object, tmp_path: pathlib.Path) -> None:
    """README The catalogue: "In TypeScript, `clients/typescript/src/catalogue.ts` looks entries up
    by id: `(await loadCatalogueIndex(api, "wahlspiel")).voter("V001").condition`". Put
    beside the client's sources as printed, it compiles under the client's own tsconfig (strict)
    and prints voter V001's condition from a live server."""
    expression = _catalogue_expression()
    copy = tmp_path / "typescript"
    shutil.copytree(TS_DIR / "src", copy / "src")  # the generated stubs (src/gen) included
    for name in ("tsconfig.json", "package.json"):
        shutil.copy2(TS_DIR / name, copy / name)
    (copy / "node_modules").symlink_to(TS_DIR / "node_modules")
    (copy / "src" / "readme_catalogue.ts").write_text(
        'import { HustingsRest } from "./rest.js";\n'
        'import { loadCatalogueIndex } from "./catalogue.js";\n'
        'const api = new HustingsRest(process.argv[2] ?? "http://127.0.0.1:8080");\n'
        f"console.log(JSON.stringify({expression}));\n"
    )
    node = shutil.which("node") or "node"
    compiled = subprocess.run([node, str(TS_DIR / "node_modules" / "typescript" / "bin" / "tsc"), "-p", "."],
                              cwd=copy, capture_output=True, text=True, timeout=120)
    assert compiled.returncode == 0, compiled.stdout[-2000:] + compiled.stderr[-2000:]
    done = subprocess.run([node, str(copy / "dist" / "readme_catalogue.js"), live.base_url],  # type: ignore[attr-defined]
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    condition = json.loads(done.stdout)
    assert isinstance(condition, dict) and condition, done.stdout
