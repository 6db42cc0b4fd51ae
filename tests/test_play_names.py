"""The browser table's names for seats (service/static/play/dom.js, ``seatLabels``), checked in
Node.js against the module /play serves: a name several seats share carries each seat's number,
however it is written (case, width, characters that show nothing, blanks around and within it,
which a page collapses), so that one player never passes for another; a name of its own stays
as it is."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import pytest

DOM = pathlib.Path(__file__).resolve().parent.parent / "service" / "static" / "play" / "dom.js"

SCRIPT = """
const { seatLabels } = await import(process.argv[2]);
console.log(JSON.stringify(seatLabels(JSON.parse(process.argv[3]))));
"""

CASES = {
    "width-case-and-invisible": (
        [{"displayName": "Ada"}, {"seat": 1, "displayName": "\uff21\uff44\uff41"}, {"seat": 2, "displayName": "Bo"},
         {"seat": 3, "displayName": "ada\u034f"}, {"seat": 4}, {"seat": 5, "displayName": "Bot (random)"},
         {"seat": 6, "displayName": "Bot (random)"}],
        {"0": "Ada (seat 0)", "1": "\uff21\uff44\uff41 (seat 1)", "2": "Bo", "3": "ada\u034f (seat 3)", "4": "seat 4",
         "5": "Bot (random) (seat 5)", "6": "Bot (random) (seat 6)"},
    ),
    "blanks": (
        [{"displayName": "Ann"}, {"seat": 1, "displayName": "Ann \ufe0f"}, {"seat": 2, "displayName": "Bo Lee"},
         {"seat": 3, "displayName": "Bo  Lee"}, {"seat": 4, "displayName": "Cy"}],
        {"0": "Ann (seat 0)", "1": "Ann \ufe0f (seat 1)", "2": "Bo Lee (seat 2)", "3": "Bo  Lee (seat 3)", "4": "Cy"},
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_seats_sharing_a_name_are_told_apart_by_their_numbers(tmp_path: pathlib.Path, case: str) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is needed to check the /play modules")
    seats, labels = CASES[case]
    script = tmp_path / "names.mjs"
    script.write_text(SCRIPT)
    done = subprocess.run([node, str(script), DOM.as_uri(), json.dumps(seats)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == labels
