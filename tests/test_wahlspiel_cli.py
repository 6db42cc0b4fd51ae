"""Wahlspiel through the ``hustings`` command: bots and the terminal player, with real servers and Redis."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

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
    answers = "1\n" * 600
    done = subprocess.run(
        [*CLI, "play", "--kind", "wahlspiel", "--players", "3"], input=answers.encode(), capture_output=True, timeout=180
    )
    out = done.stdout.decode()
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert "your move" in out and "nominate" in out
    assert "Game over." in out and "Federal Councillor" in out
