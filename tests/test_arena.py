"""``hustings arena``: a couple of short games per kind through the command line, the JSON line's
shape, rotating seats and win shares that add up."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hustings.ai.arena import run_arena, wilson
from hustings.ai.search import Budget


def test_wilson_interval_matches_known_values() -> None:
    low, high = wilson(55, 100)
    assert (round(low, 3), round(high, 3)) == (0.452, 0.644)
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(0, 10)
    assert low == 0.0 and 0.27 < high < 0.28


def test_arena_command_prints_the_json_line_last() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "hustings.cli", "arena", "--kind", "stimmvieh", "--players", "4",
         "--bots", "greedy,random,strong,random", "--games", "2", "--seed", "7", "--iterations", "8"],
        capture_output=True, text=True, timeout=240, check=False,
    )
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.strip().splitlines()
    summary = json.loads(lines[-1])
    assert [b["bot"] for b in summary["bots"]] == ["greedy", "random", "strong", "random"]
    assert summary["games"] == 2 and summary["kind"] == "stimmvieh"
    for bot in summary["bots"]:
        low, high = bot["ci95"]
        assert 0.0 <= low <= bot["win_share"] <= high <= 1.0
        assert 1.0 <= bot["mean_place"] <= 4.0
        assert bot["s_per_decision"] > 0 and bot["decisions"] > 0
    # Every game has a winner among the four seats (no Angelus at four): the shares add up to 1.
    assert abs(sum(b["win_share"] for b in summary["bots"]) - 1.0) < 1e-3
    assert len(lines) == 5  # a line per bot, then the JSON


@pytest.mark.parametrize(("kind", "players", "levels"), [
    ("wahlspiel", 3, ["strong", "greedy", "random"]),
    ("spin_doctors", 3, ["greedy", "random", "strong"]),
    ("stimmvieh", 3, ["random", "strong", "greedy"]),
])
def test_arena_plays_every_kind(kind: str, players: int, levels: list[str]) -> None:
    summary = run_arena(kind, players, levels, games=players, seed=3, budget=Budget(iterations=4, seconds=1.0))
    shares = sum(b["win_share"] for b in summary["bots"])
    # A shared first place is split; only Stimmvieh's Angelus (three players) takes wins from the seats.
    assert 0.0 <= shares <= 1.0 + 1e-9
    if kind != "stimmvieh":
        assert abs(shares - 1.0) < 1e-3
    # Seats rotate: over ``players`` games each bot sat in every seat once, so each made decisions.
    assert all(b["decisions"] > 0 for b in summary["bots"])


def test_arena_refuses_a_wrong_bot_count() -> None:
    with pytest.raises(ValueError, match="names 2 bots for 4 players"):
        run_arena("stimmvieh", 4, ["strong", "random"], games=1, seed=1, budget=Budget())
