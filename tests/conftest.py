"""Shared fixtures: a real Redis server process on a free loopback port, and in-process replicas."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import pathlib
import re
import socket
import subprocess
import sys
import tempfile
import time
from typing import TYPE_CHECKING, Any, AsyncIterator, Iterator

import pytest

from hustings.service.embedded_redis import EmbeddedRedis, free_port, wait_for_port

if TYPE_CHECKING:
    from rest_helpers import LiveRest

REPO = pathlib.Path(__file__).resolve().parent.parent
CHROMIUM = pathlib.Path("/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """One real redis-server for the session (no persistence needed)."""
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis"), appendonly=False).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture()
def live(redis_server: EmbeddedRedis) -> Iterator["LiveRest"]:
    """A replica with its REST/JSON face (and /play) on the session's Redis, for one test; modules
    that share one across their tests define their own at module scope."""
    from rest_helpers import LiveRest

    with LiveRest(redis_server.url) as server:
        yield server


TS_DIR = pathlib.Path(__file__).resolve().parent.parent / "clients" / "typescript"
NPM_TIMEOUT_S = 300
BUILD_STAMP = ".hustings-test-build"  # in dist/: the digest of the inputs dist/ was built from


def _node_modules_match_the_lock(ts_dir: pathlib.Path) -> bool:
    """Whether node_modules holds what package-lock.json pins: npm's own record of its last
    install (node_modules/.package-lock.json) lists the same packages, and each is there."""
    try:
        wanted = json.loads((ts_dir / "package-lock.json").read_text(encoding="utf-8"))["packages"]
        installed = json.loads((ts_dir / "node_modules" / ".package-lock.json").read_text(encoding="utf-8"))["packages"]
    except (OSError, ValueError, KeyError):
        return False
    wanted = {path: entry for path, entry in wanted.items() if path}  # "" is the project itself
    if installed != wanted:
        return False
    for path, entry in wanted.items():
        try:
            manifest = json.loads((ts_dir / path / "package.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        if "version" in entry and manifest.get("version") != entry["version"]:
            return False
    return True


def _build_inputs_digest(ts_dir: pathlib.Path) -> str:
    """A digest of what `npm run build` reads: the package files, the scripts, the hand-written
    sources (src/gen/ is generated) and the protos that scripts/generate.py turns into src/gen/."""
    proto_root = ts_dir.parent.parent / "proto"
    files = [ts_dir / name for name in ("package.json", "package-lock.json", "tsconfig.json")]
    files += sorted(path for path in (ts_dir / "scripts").rglob("*") if path.is_file() and "__pycache__" not in path.parts)
    files += sorted(path for path in (ts_dir / "src").rglob("*") if path.is_file() and ts_dir / "src" / "gen" not in path.parents)
    files += sorted(path for path in proto_root.rglob("*.proto") if path.is_file())
    digest = hashlib.sha256()
    for path in files:
        digest.update(str(path.relative_to(ts_dir.parent.parent)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()


def build_typescript_client(ts_dir: pathlib.Path = TS_DIR, npm: str = "npm") -> list[str]:
    """`npm ci` from the committed lock file unless node_modules already matches it, then
    `npm run build` (generate + tsc) unless dist/ was built from the same inputs; returns the
    steps it ran. Test runs share the checkout (pytest-xdist workers, or two pytest runs at once),
    so this runs under a lock on a file in ``ts_dir``, and a run whose client is up to date
    changes nothing: `npm ci` would delete node_modules, and a build rewrite dist/, under another
    run's tests."""
    from filelock import FileLock

    ran: list[str] = []
    with FileLock(str(ts_dir / ".test-build.lock"), timeout=NPM_TIMEOUT_S * 2):
        stamp = ts_dir / "dist" / BUILD_STAMP
        steps = []
        if not _node_modules_match_the_lock(ts_dir):
            steps.append((npm, "ci", "--no-audit", "--no-fund"))
        digest = _build_inputs_digest(ts_dir)
        built_from = stamp.read_text(encoding="utf-8") if stamp.exists() else None
        if steps or built_from != digest:
            steps.append((npm, "run", "build"))
        if steps:
            stamp.unlink(missing_ok=True)  # a build cut short is not taken for a finished one
            for args in steps:
                result = subprocess.run(args, cwd=ts_dir, capture_output=True, text=True, timeout=NPM_TIMEOUT_S)
                assert result.returncode == 0, f"{' '.join(args)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
                ran.append(" ".join(args[1:]))
            stamp.write_text(digest, encoding="utf-8")
    return ran


@pytest.fixture(scope="session")
def typescript_dist() -> pathlib.Path:
    """The TypeScript client, installed and built once (see build_typescript_client). Without
    Node.js 20+ and npm the tests fail, they do not skip."""
    import shutil

    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.fail("the TypeScript client needs Node.js 20+ with npm on PATH", pytrace=False)
    version = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
    assert int(version.lstrip("v").split(".")[0]) >= 20, f"Node.js 20+ needed, found {version}"
    build_typescript_client(TS_DIR, npm)
    return TS_DIR / "dist"


@pytest.fixture(scope="session")
def chromium() -> pathlib.Path:
    """Debian's Chromium, which the browser tests need (a system package, not a PyPI one)."""
    if not CHROMIUM.exists():
        pytest.fail(
            f"the browser tests need Debian's Chromium at {CHROMIUM}: run `sh tests/install-system-deps.sh` "
            "(apt-get, as root or through sudo), or leave them out with -m 'not slow'",
            pytrace=False,
        )
    return CHROMIUM


@pytest.fixture(scope="module")
def browser(chromium: pathlib.Path) -> Iterator[Any]:
    """Headless Chromium driven by Playwright (its own browser downloads are never used)."""
    from playwright.sync_api import Error, sync_playwright

    with sync_playwright() as playwright:
        try:
            launched = playwright.chromium.launch(executable_path=str(chromium), headless=True, args=CHROMIUM_FLAGS)
        except Error as error:
            reason = next((line for line in str(error).splitlines() if line.strip()), "no message")
            pytest.fail(f"Chromium at {chromium} did not start: {reason}", pytrace=False)
        try:
            yield launched
        finally:
            launched.close()


PAGE_WAIT_MS = 20_000


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    """A page of a browser context of its own, waiting up to PAGE_WAIT_MS for anything."""
    from playwright.sync_api import expect

    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(PAGE_WAIT_MS)
        expect.set_options(timeout=PAGE_WAIT_MS)
        yield page
    finally:
        context.close()


@pytest.fixture()
def second_page(browser: Any) -> Iterator[Any]:
    """Another player's page, in a browser context of its own (its own storage of seats)."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(PAGE_WAIT_MS)
        yield page
    finally:
        context.close()


def create_and_join_from_the_lobby(page: Any, base_url: str, unlisted: bool = False) -> str:
    """Ada makes a three-seat Stimmvieh table in /play's lobby (unlisted or not), which seats her
    at once in seat 0 (she gave her name); the table's game id."""
    from playwright.sync_api import expect

    page.goto(base_url + "/play")
    page.fill("#player-name", "Ada")
    page.select_option("#new-kind", "stimmvieh")
    page.fill("#new-players", "3")
    if unlisted:
        page.check("#new-unlisted")
    page.click("#create-game")
    page.wait_for_url("**/play#/game/*")
    game_id = str(page.url.rsplit("/", 1)[1])
    expect(page.locator("#you")).to_contain_text("seat 0")
    return game_id


@contextlib.asynccontextmanager
async def running_replica(redis_url: str, allow_client_seed: bool = True, **config: Any) -> AsyncIterator["object"]:
    """An in-process replica on a free port (``config``: more ReplicaConfig fields); yields the Replica."""
    from hustings.service.replica import Replica, ReplicaConfig

    replica = await Replica(
        ReplicaConfig(redis_url=redis_url, address="127.0.0.1:0", allow_client_seed=allow_client_seed, grace_s=1.0, **config)
    ).start()
    try:
        yield replica
    finally:
        await replica.stop()



class HeldClock:
    """A machine clock that stands still until the test moves it on (a replica's ``local_clock``)."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance_to_ms(self, replica: Any, target_ms: int) -> None:
        """Move on so that the replica's shared clock reads ``target_ms`` (to the rounding)."""
        self.now += (target_ms - replica.host._now_ms()) / 1000

def run(coro: "asyncio.Future[object] | object", timeout_s: float = 120.0) -> object:
    """Run a coroutine to completion with a bound on its time."""
    return asyncio.run(asyncio.wait_for(coro, timeout_s))  # type: ignore[arg-type]


def stop_process(process: "subprocess.Popen[Any]") -> None:
    """Stop a process the test started, if it still runs: SIGTERM, 20 s for its drain, then SIGKILL."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


def free_ports(count: int) -> list[int]:
    """``count`` distinct TCP ports free on 127.0.0.1 right now. They are held together while
    they are picked: a port let go may be the very next one handed out (about once in 20,000)."""
    with contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) for _ in range(count)]
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [int(sock.getsockname()[1]) for sock in sockets]


@contextlib.contextmanager
def serve_process(*args: str, cwd: pathlib.Path | None = None) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``hustings serve`` as a real child process on a free port; yields (process, port).

    Its log lines go to a temporary file (a pipe nobody reads would fill up and block the
    server); after the process ends they are in ``process.log_text``.
    """
    named = {int(p) for p in re.findall(r"127\.0\.0\.1:(\d+)", " ".join(args))}  # the caller's other listeners
    port = next(p for p in free_ports(len(named) + 1) if p not in named)
    with tempfile.TemporaryFile() as log_file:
        process = subprocess.Popen(
            [sys.executable, "-m", "hustings.cli", "serve", "--address", f"127.0.0.1:{port}", "--http-address", "", *args],
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=log_file,
        )
        try:
            wait_for_port(port)
            yield process, port
        finally:
            stop_process(process)
            log_file.seek(0)
            process.log_text = log_file.read().decode(errors="replace")  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def module_cluster_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A three-master Cluster of the module's own (``redis_cluster``), by its URL."""
    with redis_cluster(tmp_path_factory.mktemp("cluster")) as nodes:
        yield f"redis+cluster://127.0.0.1:{nodes[0].port}"


@pytest.fixture
def own_redis(tmp_path: pathlib.Path) -> Iterator[EmbeddedRedis]:
    """A Redis server of the test's own, without AOF: for tests whose games or keys must not reach
    other tests' replicas (games of bots left behind, whose decisions later replicas of the
    session's Redis would claim and think about; a server secret's check value) or that need a
    lobby or keyspace of their own."""
    server = EmbeddedRedis(tmp_path / "own-redis", appendonly=False).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def own_redis_url(own_redis: EmbeddedRedis) -> str:
    """``own_redis`` by its URL."""
    return own_redis.url


@pytest.fixture(params=["server", "cluster"])
def lobby_url(request: pytest.FixtureRequest) -> str:
    """A Redis whose lobby is the test's alone: a server of its own, then the module's Cluster
    (emptied by ``service_helpers.empty_store``)."""
    if request.param == "server":
        return str(request.getfixturevalue("own_redis_url"))
    return str(request.getfixturevalue("module_cluster_url"))


CLUSTER_SLOTS = 16384


@contextlib.contextmanager
def redis_cluster(folder: pathlib.Path, masters: int = 3, timeout_s: float = 30.0) -> Iterator[list[EmbeddedRedis]]:
    """A real Redis Cluster of ``masters`` server processes on loopback, slots split evenly."""
    import redis as sync_redis

    nodes = []
    try:
        for i in range(masters):
            port = free_port(cluster=True)
            node = EmbeddedRedis(
                folder / f"node{i}",
                port=port,
                appendonly=False,
                extra_args=["--cluster-enabled", "yes", "--cluster-config-file", f"nodes-{port}.conf", "--cluster-node-timeout", "2000"],
            )
            nodes.append(node.start())
        clients = [sync_redis.Redis(host="127.0.0.1", port=n.port) for n in nodes]
        share = CLUSTER_SLOTS // masters
        for i, client in enumerate(clients):
            first = i * share
            last = CLUSTER_SLOTS - 1 if i == masters - 1 else first + share - 1
            client.execute_command("CLUSTER ADDSLOTS", *range(first, last + 1))
        for node in nodes[1:]:
            clients[0].execute_command("CLUSTER MEET", "127.0.0.1", node.port)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            infos = [c.cluster("info") for c in clients]
            if all(str(i.get("cluster_state")) == "ok" and int(i.get("cluster_known_nodes", 0)) == masters for i in infos):
                break
            time.sleep(0.1)
        else:
            raise TimeoutError("the cluster did not converge")
        for client in clients:
            client.close()
        yield nodes
    finally:
        for node in nodes:
            node.stop()


@pytest.fixture
def quick_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables of bots alone decide at a quick pace (a decision a millisecond rather than
    ``table.BOT_ONLY_STEP_MS``), for in-process replicas of tests whose bot-played games only set
    the scene."""
    from hustings.service import table

    monkeypatch.setattr(table, "BOT_ONLY_STEP_MS", 1)
