"""A thinking bot's decision is made public no sooner than its level's floor after its thinking
began (``service/seats.py`` ``THINKING_FLOOR_S``), so that a forced move and a choice are made
public alike. That holds only if the thinking of a choice ends before the floor, with room for a
loaded machine: these are the longest decisions found in random play of every kind and seat
count, and a Wahlspiel hand built to list the most ways to play (tests/test_bot_timing.py times
a decision through a replica)."""

from __future__ import annotations

import random
import time

from hustings.ai import server
from hustings.ai.search import TUNING
from hustings.engine import Rng, get_game
from hustings.engine.base import evolve
from hustings.engine.wahlspiel.content import CONTENT, TARGET_CANDIDATES
from hustings.engine.wahlspiel.model import SENSATION
from hustings.engine.wahlspiel.table import in_race
from hustings.service import table
from hustings.service.seats import THINKING_FLOOR_S
from hustings.v1 import game_pb2

# The quickest of a few runs, spread out (a loaded machine slows some runs, not the decision;
# a busy neighbour for a moment slows runs made one right after another alike), stopping at the
# first that fits.
GREEDY_RUNS = 8
GREEDY_PAUSE_S = 0.25
# A Wahlspiel Sensation field with a hand of this many event cards that name candidates, those
# naming most first: every way to play each is a move (150-300 of them).
MANY_WAYS_HAND = 12
SENSATION_STEP_LIMIT = 3000  # engine steps of random play searched for a Sensation field
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


def _greedy_takes_at_most_half_its_floor(game: object, state: object, seat: int, stand_in: bool) -> None:
    """The greedy decision of ``seat`` at its quickest of up to ``GREEDY_RUNS`` spread-out runs
    ends within half the greedy floor."""
    quickest = float("inf")
    for run in range(GREEDY_RUNS):
        began = time.perf_counter()
        table.bot_move(game, state, seat, "greedy", random.Random(run), stand_in=stand_in)  # type: ignore[arg-type]
        quickest = min(quickest, time.perf_counter() - began)
        if quickest * 2 <= THINKING_FLOOR_S["greedy"]:
            break
        time.sleep(GREEDY_PAUSE_S)
    assert quickest * 2 <= THINKING_FLOOR_S["greedy"], (
        f"the decision took {quickest * 1000:.1f} ms at its quickest, more than half the floor of"
        f" {THINKING_FLOOR_S['greedy'] * 1000:.0f} ms"
    )


def test_the_longest_greedy_decision_takes_at_most_half_its_floor() -> None:
    """The Spin Doctors' opening Staff choice for a player's seat (924 Staffs, five players, the
    first 200 weighed) is one of the greedy level's longest decisions: 11-25 ms on an idle
    machine (16-36 ms before its heuristic kept each Locality's gains), up to 46 ms beside two
    busy processes. The floor was 20 ms; half of it leaves a machine twice as slow the same."""
    game, state, seat = _opening("spin_doctors", 5, b"floor" * 6 + b"sd")
    assert len(table.DecisionsOnly(game).legal_moves(state, seat)) == 924  # type: ignore[arg-type]
    _greedy_takes_at_most_half_its_floor(game, state, seat, stand_in=True)


def _sensation_with_a_hand_of_many_ways() -> tuple[object, object, int]:
    """The game, a six-party Wahlspiel at a Sensation field of its first round reached by random
    play, with the acting party's event hand made of ``MANY_WAYS_HAND`` cards that name
    candidates, those naming most first (taken from the other hands and the stack), and the
    acting seat. A player may gather such a hand (events are bought and won, and nothing bounds
    a hand); a stand-in bot then decides for it once the player has left."""
    game = get_game("wahlspiel")
    assert game is not None
    rng, chooser = Rng(b"many-ways" * 4), Rng(b"many-ways-chooser")
    state = game.setup(game.options_from_proto(game_pb2.GameOptions(players=6)), rng)
    for _ in range(SENSATION_STEP_LIMIT):
        if state.step == SENSATION and state.round == 1 and len(in_race(state)) >= 12:
            break
        seat = chooser.choice(sorted(game.to_act(state)))
        state, _ = game.apply(state, seat, chooser.choice(game.legal_moves(state, seat)), rng)
    else:
        raise AssertionError("random play reached no Sensation field with twelve candidates in the race")
    seat = state.current
    naming = sorted((-card.count, c) for c, card in CONTENT.events.items() if card.target == TARGET_CANDIDATES)
    many = tuple(sorted(c for _, c in naming[:MANY_WAYS_HAND]))
    assert len(many) == MANY_WAYS_HAND
    parties = [evolve(p, events=tuple(c for c in p.events if c not in many)) for p in state.parties]
    parties[seat] = evolve(parties[seat], events=many)
    stack = tuple(c for c in state.event_stack + state.parties[seat].events if c not in many)
    return game, evolve(state, parties=tuple(parties), event_stack=stack), seat


def test_a_wahlspiel_hand_of_many_ways_to_play_is_weighed_within_half_the_greedy_floor() -> None:
    """A Sensation field lists every way to play each event card in the hand: twelve cards that
    name candidates are 150-300 moves, each costing the one-ply ranking five to eight times a
    Staff (Wahlspiel's step and heuristic). All weighed (the first 200), this hand's 304 took
    55-72 ms on a machine where the Staff choice takes 7 ms: past the floor, so when the
    stand-in's decision was made public told the table how many ways its hidden hand had, beyond
    the count of its cards, which is public. The ranking weighs ``TUNING["wahlspiel"].ranked``
    of them (spread over every card's ways)."""
    game, state, seat = _sensation_with_a_hand_of_many_ways()
    moves = len(game.legal_moves(state, seat))  # type: ignore[attr-defined]
    assert moves > 3 * TUNING["wahlspiel"].ranked, f"only {moves} ways to play the hand"
    _greedy_takes_at_most_half_its_floor(game, state, seat, stand_in=True)


def test_a_replicas_floor_rises_with_its_slowest_recent_thinking_and_falls_back() -> None:
    """README Bots: on a starved machine the floor rises to 1.25 times the slowest of the level's
    last 64 decisions on the replica, so that a forced move waits as long as a slow choice took;
    it falls back to the level's floor once those slow decisions are past."""
    from hustings.service.seats import FLOOR_MARGIN, FLOOR_MEMORY, ThinkingFloor

    floor = ThinkingFloor(THINKING_FLOOR_S["greedy"])
    assert floor.after(0.0) == THINKING_FLOOR_S["greedy"]  # a forced move on an idle replica
    assert floor.after(0.02) == THINKING_FLOOR_S["greedy"] - 0.02
    slow = 0.12  # a choice on a starved machine, past the floor
    assert abs(floor.after(slow) - (FLOOR_MARGIN - 1) * slow) < 1e-9
    # A forced move now: made public as late as that choice would be, not at the floor.
    assert abs(floor.after(0.0) - FLOOR_MARGIN * slow) < 1e-9
    for _ in range(FLOOR_MEMORY):
        floor.after(0.0)
    assert floor.after(0.0) == THINKING_FLOOR_S["greedy"]
    assert FLOOR_MARGIN > 1 and FLOOR_MEMORY >= 16
