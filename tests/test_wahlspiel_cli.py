"""Wahlspiel through the ``hustings`` command: bots and the terminal player, with real servers and Redis."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest
from terminal_helpers import PartsAnswerer, play_through_pty

CLI = [sys.executable, "-m", "hustings.cli"]
GAMES = 6  # the acceptance run is 30 games per player count; a few keep the suite quick


def _json_line(output: bytes) -> dict[str, object]:
    lines = [line for line in output.decode().splitlines() if line.startswith("{")]
    assert lines, output.decode()
    return json.loads(lines[-1])  # type: ignore[no-any-return]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_bots_finish_wahlspiel_games_without_errors(players: int) -> None:
    done = subprocess.run(
        [*CLI, "bots", "--kind", "wahlspiel", "--games", str(GAMES), "--players", str(players), "--seed", "3"],
        capture_output=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    summary = _json_line(done.stdout)
    assert summary["kind"] == "wahlspiel" and summary["players"] == players
    assert summary["games_finished"] == GAMES
    assert summary["errors"] == 0 and summary["rejected"] == 0
    assert int(summary["moves"]) > GAMES * players * 5  # type: ignore[call-overload]


def test_play_wahlspiel_in_the_terminal_to_the_end() -> None:
    out = play_through_pty([*CLI, "play", "--kind", "wahlspiel", "--players", "3"], PartsAnswerer(random.Random(3)), max_answers=600)
    assert out.returncode == 0, out.text[-3000:] + out.stderr[-2000:]
    assert "your move at version" in out.text and "nominate" in out.text
    assert "Game over." in out.text and "Federal Councillor" in out.text
    assert "refused: " not in out.text and "Traceback" not in out.text
    # A compact board per prompt, not the whole view field by field.
    screens = out.text.split("--- wahlspiel ")[1:]
    assert screens and max(len(screen.split("Your legal moves")[0].splitlines()) for screen in screens) <= 60
