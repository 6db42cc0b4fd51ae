"""The browser table's words for a decision, checked in Node.js against the game modules of
/play themselves (service/static/play/games/*.js), with no browser: what a button says must name
the right player."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import pytest

GAMES = pathlib.Path(__file__).resolve().parent.parent / "service" / "static" / "play" / "games"

# A Locality whose White fields hold, lowest first, a token of seat 2 and one of seat 0, while
# seat 1 owes the placement there: push-off 0 is seat 2's token, push-off 1 seat 0's.
SCRIPT = """
const game = (await import(process.argv[2])).default;
const names = ["ANTEK", "ANIA", "BARTEK"];
const ctx = {
  cache: {}, cat: {}, seatName: (seat) => names[seat] ?? "",
  kindView: { localities: [{ locality: 4, whiteTokens: [] }, { locality: 7, whiteTokens: [2, 0] }],
              pending: { kind: "white", seat: 1, locality: 7 } },
};
console.log(JSON.stringify([0, 1].map((i) => game.valueLabel("pushOff", i, ctx, "placeOnTopic"))));
"""


def test_a_push_off_names_the_owner_of_the_token_not_the_seat_of_that_number(tmp_path: pathlib.Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is needed to check the /play modules")
    script = tmp_path / "labels.mjs"
    script.write_text(SCRIPT)
    done = subprocess.run([node, str(script), (GAMES / "spin_doctors.js").as_uri()], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == ["BARTEK’s token", "ANTEK’s token"]
