"""A thinking bot's decision is made public no sooner than its level's floor after its thinking
began (``service/seats.py`` ``THINKING_FLOOR_S``), so that a forced move and a choice are made
public alike. That holds only if the thinking of a choice ends before the floor, with room for a
loaded machine: these are the longest decisions found in random play of every kind and seat
count (tests/test_bot_timing.py times a decision through a replica)."""

from __future__ import annotations

import random
import time

from hustings.ai import server
from hustings.engine import Rng, get_game
from hustings.service import table
from hustings.service.seats import THINKING_FLOOR_S
from hustings.v1 import game_pb2

# The quickest of a few runs, spread out (a loaded machine slows some runs, not the decision;
# a busy neighbour for a moment slows runs made one right after another alike), stopping at the
# first that fits.
GREEDY_RUNS = 8
GREEDY_PAUSE_S = 0.25
# Room the strong search leaves before its floor at least, where its time runs out: its
# overrun (one playout past its time) was at most 9 ms beside two busy processes on two cores.
STRONG_ROOM_S = 0.025


def _opening(kind: str, players: int, seed: bytes) -> tuple[object, object, int]:
    """The game, its dealt state and the first seat to act."""
    game = get_game(kind)
    assert game is not None
    state = game.setup(game.options_from_proto(game_pb2.GameOptions(players=players)), Rng(seed))
    return game, state, min(game.to_act(state))


def test_a_strong_search_that_runs_out_of_time_ends_well_before_its_floor() -> None:
    """Stimmvieh's top candidates (126 ways to choose them): 200 playouts take longer than the
    search's time, which runs out first, on an idle machine too. With the search's time the
    floor itself (0.2 s), the decision ended at the floor or past it, up to a playout later (9 ms
    beside two busy processes), while a forced one was made public at the floor."""
    game, state, seat = _opening("stimmvieh", 3, b"floor" * 6 + b"st")
    assert len(game.legal_moves(state, seat)) == 126  # type: ignore[attr-defined]
    began = time.perf_counter()
    move = table.bot_move(game, state, seat, "strong", random.Random(1))  # type: ignore[arg-type]
    took = time.perf_counter() - began
    assert move in game.legal_moves(state, seat)  # type: ignore[attr-defined]
    assert server._BOTS["strong"].last_iterations < server.SERVER_BUDGET.iterations, "the search's time did not run out first"  # type: ignore[attr-defined]
    assert took <= THINKING_FLOOR_S["strong"] - STRONG_ROOM_S, (
        f"the search took {took * 1000:.0f} ms: a floor of {THINKING_FLOOR_S['strong'] * 1000:.0f} ms leaves less than"
        f" {STRONG_ROOM_S * 1000:.0f} ms for its last playout"
    )


def test_the_longest_greedy_decision_takes_at_most_half_its_floor() -> None:
    """The Spin Doctors' opening Staff choice for a player's seat (924 Staffs, five players) is
    the greedy level's longest decision: 11-25 ms on an idle machine (16-36 ms before its
    heuristic kept each Locality's gains), up to 46 ms beside two busy processes. The floor was
    20 ms; half of it leaves a machine twice as slow the same."""
    game, state, seat = _opening("spin_doctors", 5, b"floor" * 6 + b"sd")
    assert len(table.DecisionsOnly(game).legal_moves(state, seat)) == 924  # type: ignore[arg-type]
    quickest = float("inf")
    for run in range(GREEDY_RUNS):
        began = time.perf_counter()
        table.bot_move(game, state, seat, "greedy", random.Random(run), stand_in=True)  # type: ignore[arg-type]
        quickest = min(quickest, time.perf_counter() - began)
        if quickest * 2 <= THINKING_FLOOR_S["greedy"]:
            break
        time.sleep(GREEDY_PAUSE_S)
    assert quickest * 2 <= THINKING_FLOOR_S["greedy"], (
        f"the decision took {quickest * 1000:.1f} ms at its quickest, more than half the floor of"
        f" {THINKING_FLOOR_S['greedy'] * 1000:.0f} ms"
    )
