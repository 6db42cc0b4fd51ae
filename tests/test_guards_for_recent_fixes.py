"""Guards for parts of recent fixes that no other test held to what they promise.

- ``clients/typescript/scripts/display_names.py --check``: under the Python whose Unicode version
  wrote the data file, the whole file is compared (a stale Unicode table is found); under another
  Unicode version only the Unicode tables are let differ, the rule's own lines are compared.
- /play's ``seatLabels`` (service/static/play/dom.js) drops the marks the server's names check
  drops, those of a non-zero canonical combining class (``unicodedata.combining``), all of them
  (an overlay of class 1 too) and only them (a vowel sign of class 0 stays).
- The store's memory reading stops for good only when Redis refuses INFO for good: not permitted
  (NOPERM), or an unknown command (renamed away); not for an error of the moment.
- The Python example bot whose return to an absent seat is refused NOT_ABSENT (another program
  of the seat came back first) plays on.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import pathlib
import random
import shutil
import subprocess
import unicodedata
from typing import Any

import pytest
import redis

from conftest import run
from service_helpers import RefusingProxy, away_from_a_running_game, replica_and_client
from hustings.ai.example_bot import play
from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store_room import refused_for_good
from hustings.v1 import game_pb2

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "clients" / "typescript" / "scripts" / "display_names.py"
DATA = ROOT / "clients" / "typescript" / "src" / "display_names_data.ts"
DOM = ROOT / "service" / "static" / "play" / "dom.js"


@pytest.fixture(scope="module")
def name_data_script() -> Any:
    spec = importlib.util.spec_from_file_location("display_names_script", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _with_line(text: str, name: str, value: str) -> str:
    """``text`` with the line ``export const NAME = ...;`` set to ``value``."""
    lines = text.splitlines()
    at = [i for i, line in enumerate(lines) if line.startswith(f"export const {name} =")]
    assert len(at) == 1, name
    lines[at[0]] = f"export const {name} = {value};"
    return "\n".join(lines) + "\n"


def _checked(script: Any, text: str, path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> int:
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(script, "OUT", path)
    return int(script.main(["--check"]))


def test_the_name_data_check_finds_a_stale_unicode_table(
    name_data_script: Any, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under this Python's Unicode version (the file's), a Unicode table that is not what this
    Python writes is out of date: the rule's lines alone are not enough. The file is written here
    by this Python, so that a Python of another Unicode version than the committed file's (3.12,
    3.13) checks the same."""
    written = name_data_script.source()
    assert f'UNICODE_VERSION = "{unicodedata.unidata_version}";' in written
    assert _checked(name_data_script, written, tmp_path / "same.ts", monkeypatch) == 0
    stale = _with_line(written, "PROPERTIES", "[0]")
    assert _checked(name_data_script, stale, tmp_path / "stale.ts", monkeypatch) == 1


def test_the_name_data_check_compares_the_rules_lines_under_another_unicode_version(
    name_data_script: Any, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file of another Unicode version: its Unicode tables may differ from this Python's, its
    rule's lines (limits, look-alike letters) may not."""
    other = _with_line(DATA.read_text(encoding="utf-8"), "UNICODE_VERSION", '"1.0.0"')
    other = _with_line(other, "PROPERTIES", "[0]")
    assert _checked(name_data_script, other, tmp_path / "other.ts", monkeypatch) == 0
    for name, value in (("MAX_DISPLAY_NAME", "1000"), ("LOOKALIKES", '"ab"')):
        changed = _with_line(other, name, value)
        assert _checked(name_data_script, changed, tmp_path / f"{name}.ts", monkeypatch) == 1, name


LABELS = """
const { seatLabels } = await import(process.argv[2]);
console.log(JSON.stringify(seatLabels(JSON.parse(process.argv[3]))));
"""


def test_play_drops_the_marks_the_server_drops_and_only_those(tmp_path: pathlib.Path) -> None:
    """"Ada" with a combining overlay (class 1, dropped by the server's check) reads as "Ada":
    both are numbered. "काम" and "कम" differ by a vowel sign of class 0, which the server keeps:
    neither is numbered."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is needed to check the /play modules")
    assert unicodedata.combining("\u0338") == 1 and unicodedata.combining("\u093e") == 0
    seats = [
        {"seat": 0, "displayName": "Ada"}, {"seat": 1, "displayName": "A\u0338da"},
        {"seat": 2, "displayName": "\u0915\u093e\u092e"}, {"seat": 3, "displayName": "\u0915\u092e"},
    ]
    script = tmp_path / "labels.mjs"
    script.write_text(LABELS)
    done = subprocess.run([node, str(script), DOM.as_uri(), json.dumps(seats)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {
        "0": "Ada (seat 0)", "1": "A\u0338da (seat 1)", "2": "\u0915\u093e\u092e", "3": "\u0915\u092e",
    }


def test_only_refusals_for_good_stop_the_memory_reading(redis_server: EmbeddedRedis) -> None:
    """Errors as a real Redis answers them: an unknown command (INFO renamed away) and NOPERM stop
    the reading; an error of another kind does not."""
    admin = redis.Redis.from_url(redis_server.url)
    try:
        with pytest.raises(redis.ResponseError) as unknown:
            admin.execute_command("HUSTINGS-NO-SUCH-COMMAND")
        assert refused_for_good(unknown.value), str(unknown.value)
        admin.execute_command("ACL", "SETUSER", "guard-no-info", "on", ">guard-password", "~*", "&*", "+@all", "-info")
        limited = redis.Redis(host="127.0.0.1", port=redis_server.port, username="guard-no-info", password="guard-password")
        try:
            with pytest.raises(redis.ResponseError) as noperm:
                limited.info("memory")
            assert refused_for_good(noperm.value), str(noperm.value)
        finally:
            limited.close()
        admin.set("guard-a-string", "x")
        with pytest.raises(redis.ResponseError) as wrong:
            admin.lpush("guard-a-string", "y")
        assert not refused_for_good(wrong.value), str(wrong.value)
    finally:
        admin.execute_command("ACL", "DELUSER", "guard-no-info")
        admin.delete("guard-a-string")
        admin.close()


def test_the_python_bot_plays_on_after_a_return_refused_not_absent(redis_server: EmbeddedRedis) -> None:
    """Ada's seat is away; as the bot's return goes out, another program of her seat comes back
    first (and Bea leaves, so that the game runs on): the server refuses the bot's return
    NOT_ABSENT, and the bot plays on to the end on the same stream."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (replica, client):
            ada, bea = await away_from_a_running_game(client)

            async def another_program_comes_back() -> None:
                await client.return_to_game(ada.game_id, ada.token)
                await client.leave(bea.game_id, bea.token)

            async with RefusingProxy(f"127.0.0.1:{replica.port}", [], before_return=another_program_comes_back) as proxy, \
                    Client(f"127.0.0.1:{proxy.port}") as through:
                played = await asyncio.wait_for(play([through], ada, random.Random(5)), 30)
            assert played.view.status == game_pb2.GAME_STATUS_FINISHED and played.returned == []
            assert proxy.returns == 1 and proxy.watches == 1

    run(scenario(), timeout_s=60)
