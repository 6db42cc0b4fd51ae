"""The Spin Doctors through the service: the ``hustings bots`` command, with its own embedded
server and Redis, plays whole games for 3, 4 and 5 players without an error."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

GAMES = 3  # 20 per player count also finish with 0 errors (about 40 s each on 2 cores)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_bots_finish_spin_doctors_games_without_errors(players: int) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hustings.cli", "bots", "--kind", "spin_doctors", "--games", str(GAMES),
         "--players", str(players), "--seed", "11"],
        capture_output=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    lines = [line for line in done.stdout.decode().splitlines() if line.startswith("{")]
    summary = json.loads(lines[-1])
    assert summary["games_finished"] == GAMES
    assert summary["errors"] == 0 and summary["rejected"] == 0
