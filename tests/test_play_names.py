"""The browser table's names for seats (service/static/play/dom.js, ``seatLabels``), checked in
Node.js against the module /play serves: a name several seats share carries each seat's number,
however it is written (case, width, characters that show nothing), so that one player never
passes for another; a name of its own stays as it is."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import pytest

DOM = pathlib.Path(__file__).resolve().parent.parent / "service" / "static" / "play" / "dom.js"

SCRIPT = """
const { seatLabels } = await import(process.argv[2]);
const seats = [
  { displayName: "Ada" }, { seat: 1, displayName: "\\uff21\\uff44\\uff41" }, { seat: 2, displayName: "Bo" },
  { seat: 3, displayName: "ada\\u034f" }, { seat: 4 }, { seat: 5, displayName: "Bot (random)" },
  { seat: 6, displayName: "Bot (random)" },
];
console.log(JSON.stringify(seatLabels(seats)));
"""


def test_seats_sharing_a_name_are_told_apart_by_their_numbers(tmp_path: pathlib.Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is needed to check the /play modules")
    script = tmp_path / "names.mjs"
    script.write_text(SCRIPT)
    done = subprocess.run([node, str(script), DOM.as_uri()], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {
        "0": "Ada (seat 0)",
        "1": "\uff21\uff44\uff41 (seat 1)",
        "2": "Bo",
        "3": "ada\u034f (seat 3)",
        "4": "seat 4",
        "5": "Bot (random) (seat 5)",
        "6": "Bot (random) (seat 6)",
    }
