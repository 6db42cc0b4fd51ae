"""Names that read as another's, in letters beyond Cyrillic and Greek: Lisu, Cherokee and Armenian
letters and Latin's own phonetic letters may not pass a player off as a server bot, and /play
numbers seats whose names read alike in them (``LOOKALIKES``, ``skeleton`` and ``mixes_scripts``
in engine/names.py, ``seatLabels`` in service/static/play/dom.js). Each test runs the real parts
(a replica's REST face on a real Redis, the page's module in Node.js)."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import pytest

from rest_helpers import LiveRest

# Letters that Unicode's confusables (UTS #39) take for a Latin one and that the table lacks:
# a capital of a script without small letters (Lisu, Cherokee) is no capital that case-folding
# brings to a small Latin letter, and the table holds small letters only.
LISU_BA = "\ua4d0"  # reads as B
CHEROKEE_YV = "\u13f4"  # reads as B
CHEROKEE_GO = "\u13aa"  # reads as A
ARMENIAN_OH = "\u0585"  # reads as o
LATIN_ALPHA = "\u0251"  # reads as a


def test_a_display_name_may_not_pass_for_a_server_bot_through_letters_missing_from_the_table(live: LiveRest) -> None:
    """A player may not sit under a server bot's name as it reads ("Bot (random)" with a Cyrillic
    o is refused BAD_DISPLAY_NAME). With a Lisu or Cherokee letter for the B, an Armenian oh for
    the o or a Latin alpha for the a, the name reads the same on every page and in the lobby,
    beside the real bot's, yet it is taken."""
    names = (f"{LISU_BA}ot (random)", f"{CHEROKEE_YV}ot (strong)", f"Bot (str{ARMENIAN_OH}ng)", f"Bot (r{LATIN_ALPHA}ndom)")
    seated = []
    for name in names:  # a table each, beside its server bot
        game_id = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 3}})["gameId"]
        live.ok("POST", f"/v1/games/{game_id}:addBot", {})
        answer = live.call("POST", f"/v1/games/{game_id}:join", {"displayName": name})
        if answer.status_code == 200:
            seated.append(ascii(name))
        else:
            assert answer.json()["details"][0]["reason"] == "BAD_DISPLAY_NAME", answer.text
    assert not seated, f"players sat as {seated} beside the server's bot"


SEAT_LABELS = """
const { seatLabels } = await import(process.argv[2]);
console.log(JSON.stringify(seatLabels(JSON.parse(process.argv[3]))));
"""


def test_the_page_tells_apart_seats_whose_names_differ_only_in_letters_missing_from_the_table(tmp_path: pathlib.Path) -> None:
    """/play numbers the seats of names that read alike "in whatever script's look-alike letters",
    so that one player never passes for another. A Cherokee A (U+13AA) or an Armenian oh (U+0585)
    for the Latin letter reads the same, yet gets no number: "\u13aada" sits beside Ada, "B\u0585b"
    beside Bob, and the table, the log and the offers show two of each with nothing to tell them
    apart."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is needed to check the /play modules")
    dom = pathlib.Path(__file__).resolve().parent.parent / "service" / "static" / "play" / "dom.js"
    seats = [{"seat": 0, "displayName": "Ada"}, {"seat": 1, "displayName": f"{CHEROKEE_GO}da"},
             {"seat": 2, "displayName": "Bob"}, {"seat": 3, "displayName": f"B{ARMENIAN_OH}b"}]
    script = tmp_path / "labels.mjs"
    script.write_text(SEAT_LABELS)
    done = subprocess.run([node, str(script), dom.as_uri(), json.dumps(seats)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    labels = json.loads(done.stdout.strip().splitlines()[-1])
    assert labels == {"0": "Ada (seat 0)", "1": f"{CHEROKEE_GO}da (seat 1)", "2": "Bob (seat 2)", "3": f"B{ARMENIAN_OH}b (seat 3)"}, ascii(labels)
