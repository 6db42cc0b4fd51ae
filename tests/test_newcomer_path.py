"""What a newcomer meets on the README's path that tests/test_readme.py does not run: the script
that installs the suite's Debian packages, judged against a node that is too old, with a fake
apt-get that only records its calls (the real one is never reachable from these tests)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pathlib
import re
import shlex
import shutil
import stat
import subprocess
import sys
from typing import Any

import pytest

from conftest import REPO, free_ports, serve_process
from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis, wait_for_port

README = REPO / "README.md"
README_ADDRESS = "127.0.0.1:50051"

INSTALL_SCRIPT = REPO / "tests" / "install-system-deps.sh"
# The real programs the script may call besides the fakes; nothing else is on its PATH.
REAL_TOOLS = ("id", "env")


def _executable(path: pathlib.Path, text: str) -> None:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


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


def _run_with_node(tmp_path: pathlib.Path, node: str) -> tuple[pathlib.Path, pathlib.Path, subprocess.CompletedProcess[str]]:
    """The script run in a sandbox whose node is the shell script ``node`` and whose npm is there
    too. Returns (bin, apt-get's record, what the script did)."""
    bin_dir, record = _sandbox(tmp_path)
    _executable(bin_dir / "node", f"#!/bin/sh\n{node}\n")
    _executable(bin_dir / "npm", "#!/bin/sh\necho 10.8.2\n")
    return bin_dir, record, _run(bin_dir)


@pytest.mark.parametrize("version", ["v18.19.0", "v16.20.2", "v19.9.0"])
def test_an_old_node_is_one_line_that_says_what_to_do(tmp_path: pathlib.Path, version: str) -> None:
    bin_dir, record, done = _run_with_node(tmp_path, f"echo {version}")
    assert done.returncode == 1, (done.stdout, done.stderr)
    said = [line for line in done.stderr.splitlines() if "node" in line]
    assert len(said) == 1, done.stderr
    (line,) = said
    assert f"node {version} at {bin_dir / 'node'} is older than Node.js 20" in line
    assert "install Node.js 20 or newer" in line and "first on PATH" in line
    assert "nodejs" not in _installs(record)  # apt-get would bring back the same old node


@pytest.mark.parametrize("version", ["v20.0.0", "v20.20.2", "v22.11.0", "v100.1.0"])
def test_a_node_new_enough_passes_without_a_word_about_it(tmp_path: pathlib.Path, version: str) -> None:
    _, record, done = _run_with_node(tmp_path, f"echo {version}")
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
    _, _, done = _run_with_node(tmp_path, "exit 3")
    assert done.returncode == 1 and "node of unknown version at" in done.stderr, done.stderr


def test_the_sandbox_reaches_no_real_apt_get(tmp_path: pathlib.Path) -> None:
    """The PATH these tests give the script holds only the fakes and the tools named above."""
    bin_dir, _ = _sandbox(tmp_path)
    assert shutil.which("apt-get", path=str(bin_dir)) == str(bin_dir / "apt-get")
    assert sorted(os.listdir(bin_dir)) == sorted([*REAL_TOOLS, "sudo", "apt-get"])


# ---------------------------------------------------------------- what `--help` says


def _commands() -> dict[str, argparse.ArgumentParser]:
    from hustings.cli import _parser

    (sub,) = [a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def test_every_command_s_help_says_what_it_does() -> None:
    """``hustings COMMAND --help`` opens with the line ``hustings --help`` lists it by (it used to
    show only usage and options: `hustings play --help` never said what play does)."""
    from hustings.cli import _parser

    listing = " ".join(_parser().format_help().split())
    commands = _commands()
    assert {"serve", "bots", "play", "verify", "arena"} <= set(commands)
    for name, command in commands.items():
        said = " ".join(command.format_help().split())
        description = " ".join((command.description or "").split())
        assert description and description in said, name
        assert f"{name} {description}" in listing, (name, description)


def test_every_option_with_a_default_says_it() -> None:
    """`hustings bots --help` showed `--concurrency` without its 8, `loadtest --help` `--clients`,
    `--seconds` and `--routing` without theirs: an option that has a value when not given says so."""
    unsaid = []
    for name, command in _commands().items():
        for action in command._actions:
            if action.default in (None, "", argparse.SUPPRESS) or action.default is False:
                continue  # nothing, or a flag that is off
            if "default" not in (action.help or ""):
                unsaid.append(f"hustings {name} {'/'.join(action.option_strings) or action.dest}")
    assert not unsaid, unsaid


def test_serve_s_help_names_every_variable_it_reads_and_the_deploy_notes_name_no_other() -> None:
    source = (REPO / "clients" / "python" / "hustings" / "cli.py").read_text()
    read = set(re.findall(r"(?:os\.environ\.get|_env)\(\"(HUSTINGS_[A-Z_]+)\"", source)) | {"HUSTINGS_SECRET"}
    said = set(re.findall(r"HUSTINGS_[A-Z_]+", _commands()["serve"].format_help()))
    assert len(read) >= 8 and said == read, (sorted(read), sorted(said))
    deploy = set(re.findall(r"HUSTINGS_[A-Z_]+", (REPO / "deploy" / "README.md").read_text()))
    image = set(re.findall(r"HUSTINGS_[A-Z_]+", (REPO / "deploy" / "Dockerfile").read_text()))
    assert deploy == read and image <= read, (sorted(deploy), sorted(image))


# ---------------------------------------------------------------- "Try it": bots, then verify


def _readme_section(title: str) -> str:
    text = README.read_text()
    match = re.search(rf"^##+ {re.escape(title)}\n(.*?)(?=^##+ |\Z)", text, re.S | re.M)
    assert match, title
    return match.group(1)


def _readme_line(block: str, starts: str) -> str:
    """The one command of ``block`` that starts with ``starts``, its trailing comment dropped."""
    (line,) = [line.split("  #", 1)[0].strip() for line in block.splitlines() if line.startswith(starts)]
    return line


def _cli(command: str, address: str) -> list[str]:
    """A README ``hustings …`` line as an argument list run by this Python, aimed at ``address``."""
    words = shlex.split(command.replace(README_ADDRESS, address))
    assert words[0] == "hustings", command
    return [sys.executable, "-m", "hustings.cli", *words[1:]]


def _json_lines_alike(printed: dict[str, Any], shown: dict[str, Any]) -> None:
    """The same fields in the same order, each value of the same type."""
    assert list(printed) == list(shown), (list(printed), list(shown))
    for key, value in shown.items():
        assert isinstance(printed[key], type(value)) or value is None, (key, printed[key], value)


def test_bots_on_your_server_then_verify_print_what_the_readme_shows(redis_server: EmbeddedRedis) -> None:
    """README Try it: `hustings bots --games 1 --server 127.0.0.1:50051` names the game in
    `sample_game_ids`, in a line like the one shown; `hustings verify GAME_ID --commitment HEX`
    checks it with the commitment its views show, and prints the line shown."""
    section = _readme_section("Try it")
    block = re.findall(r"^```sh\n(.*?)^```", section, re.S | re.M)[0]
    bots_line = _readme_line(block, "hustings bots --games 1 --server")
    verify_line = _readme_line(block, "hustings verify")
    bots_shown, verify_shown = (json.loads(b.replace("…", "")) for b in re.findall(r"^```json\n(.*?)^```", section, re.S | re.M))
    with serve_process("--redis-url", redis_server.url) as (_, port):
        address = f"127.0.0.1:{port}"
        done = subprocess.run(_cli(bots_line, address), capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr[-2000:]
        summary = json.loads(done.stdout.splitlines()[-1])
        _json_lines_alike(summary, bots_shown)
        (game_id,) = summary["sample_game_ids"]

        async def commitment() -> str:
            async with Client(address) as client:
                return (await client.view(game_id)).seed_commitment

        hex_ = asyncio.run(commitment())
        command = verify_line.replace("GAME_ID", game_id).replace("HEX", hex_)
        done = subprocess.run([*_cli(command, address), "--server", address], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, (done.stdout, done.stderr[-2000:])
    (line,) = done.stdout.splitlines()
    report = json.loads(line)
    _json_lines_alike(report, verify_shown)
    fixed = ("verified", "message", "failed_at_version", "commitment_from")
    assert {k: report[k] for k in fixed} == {k: verify_shown[k] for k in fixed}
    assert report["game_id"] == game_id and report["steps"] > 0 and report["draws"] > 0


# ---------------------------------------------------------------- "Write your own bot": a game to join

README_HTTP_ADDRESS = "127.0.0.1:8080"


def test_the_readme_s_game_to_join_is_one_the_example_bot_joins_and_finishes(redis_server: EmbeddedRedis) -> None:
    """README Write your own bot: the curl line makes a game on your server with bots in every
    seat but the first and prints its id; the Python bot's `--game GAME_ID` line joins it."""
    section = _readme_section("Write your own bot")
    blocks = re.findall(r"^```sh\n(.*?)^```", section, re.S | re.M)
    (python_block,) = [b for b in blocks if "--game GAME_ID" in b]
    (make,) = [b for b in blocks if b.startswith("curl ")]
    join = _readme_line(python_block, "python3 -m hustings.ai.example_bot --server")
    (http_port,) = free_ports(1)
    with serve_process("--redis-url", redis_server.url, "--http-address", f"127.0.0.1:{http_port}") as (_, port):
        wait_for_port(http_port)
        made = subprocess.run(
            ["sh", "-eu", "-c", make.replace(README_HTTP_ADDRESS, f"127.0.0.1:{http_port}")],
            capture_output=True, text=True, timeout=60,
        )
        assert made.returncode == 0, made.stderr[-2000:]
        (game_id,) = made.stdout.split()
        assert game_id.startswith("g") and "# g…" in make  # the line the block shows
        command = shlex.split(join.replace(README_ADDRESS, f"127.0.0.1:{port}").replace("GAME_ID", game_id))
        assert command[:3] == ["python3", "-m", "hustings.ai.example_bot"]
        done = subprocess.run([sys.executable, *command[1:]], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    line = json.loads(done.stdout.splitlines()[-1])
    assert line["game_id"] == game_id and line["seat"] == 0 and line["finished"] is True


# ---------------------------------------------------------------- clients/typescript/README.md

TS_README = REPO / "clients" / "typescript" / "README.md"


def test_the_typescript_readme_names_files_that_exist_and_the_readme_s_build() -> None:
    text = TS_README.read_text()
    folder = TS_README.parent
    named = set(re.findall(r"`((?:src|scripts)/[\w/.]+\.(?:ts|py))`", text))
    assert {"src/rest.ts", "src/example.ts", "src/example_bot.ts"} <= named, named
    assert all((folder / path).is_file() for path in named), sorted(p for p in named if not (folder / p).is_file())
    (block,) = re.findall(r"^```sh\n(.*?)^```", text, re.S | re.M)
    runs = re.findall(r"^node dist/(\w+)\.js", block, re.M)
    assert runs and all((folder / "src" / f"{name}.ts").is_file() for name in runs), runs
    main_readme = README.read_text()
    build = block.splitlines()[0]
    assert build.startswith("cd clients/typescript && npm ci && npm run build") and build in main_readme
    engines = json.loads((folder / "package.json").read_text())["engines"]["node"]
    assert engines == ">=20" and "Node.js 20 or newer" in text


@pytest.mark.slow  # needs the TypeScript client built (npm ci, npm run build): shared with tests/test_typescript.py
def test_the_typescript_readme_s_use_runs_as_shown(typescript_dist: pathlib.Path, redis_server: EmbeddedRedis, tmp_path: pathlib.Path) -> None:
    """The ``ts`` block is plain JavaScript as well: run against a real server with its imports
    pointed at the built client, it moves once and prints the refusal its comment shows."""
    (snippet,) = re.findall(r"^```ts\n(.*?)^```", TS_README.read_text(), re.S | re.M)
    (http_port,) = free_ports(1)
    script = tmp_path / "use.mjs"
    script.write_text(snippet.replace('from "./', f'from "{typescript_dist.as_uri()}/').replace(README_HTTP_ADDRESS, f"127.0.0.1:{http_port}"))
    with serve_process("--redis-url", redis_server.url, "--http-address", f"127.0.0.1:{http_port}"):
        wait_for_port(http_port)
        done = subprocess.run([shutil.which("node") or "node", str(script)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["moved: the game is at version 5", "409 STALE_VERSION"]
    assert "// 409 STALE_VERSION" in snippet
