"""A view's legal moves written from kept bytes (service/legal_moves.py) are the plain path's
bytes: over every state of whole random games of each kind, for every seat, the view equals the
one filled move by move (``move_to_proto`` into ``legal_moves.add()``), whether its list is
written afresh or found kept; the kept parts and lists stay within their bounds; two seats of
one state, and one seat of two states, each get their own list."""

from __future__ import annotations

import random
from typing import Any, Iterator

import pytest

from hustings.engine import Rng, get_game
from hustings.service.legal_moves import LegalMoveLists, fill_legal_moves
from hustings.v1 import game_pb2

GAMES = {"spin_doctors": (0, 1, 2), "stimmvieh": (0, 5, 6), "wahlspiel": (0, 5, 11)}
"""Three option sets (indices into ``sample_options``) per kind: player counts and variants."""
MAX_STEPS = 3000
"""Far above a random game's length (The Spin Doctors' is about 370 steps), so every loop ends."""


def _states(kind: str, which: int, seed: int) -> Iterator[Any]:
    """Every state of one random game of ``kind`` with its ``which``-th sample options."""
    game = get_game(kind)
    label, options = game.sample_options()[which]
    pick = random.Random(seed)
    state = game.setup(options, Rng(seed.to_bytes(32, "big")))
    dice = Rng((seed + 1).to_bytes(32, "big"))
    for _ in range(MAX_STEPS):
        yield state
        if game.is_over(state):
            return
        seat = pick.choice(sorted(game.to_act(state)))
        state, _ = game.apply(state, seat, pick.choice(game.legal_moves(state, seat)), dice)
    raise AssertionError(f"a random {kind} game ({label}) did not end in {MAX_STEPS} steps")


def _plain(game: Any, state: Any, seat: int) -> bytes:
    """A seat's view's bytes with its legal moves added one by one, as views were first
    written; fields set before and after them as the host sets them."""
    view = game_pb2.GameView(game_id="g", version=7)
    for move in game.legal_moves(state, seat):
        game.move_to_proto(move, view.legal_moves.add())
    view.to_act.extend([0])
    return view.SerializeToString()


def _kept(lists: LegalMoveLists | None, game: Any, state: Any, seat: int) -> bytes:
    """The same view with its legal moves from kept bytes (the replica's own when ``lists`` is
    None)."""
    view = game_pb2.GameView(game_id="g", version=7)
    if lists is None:
        fill_legal_moves(game, state, seat, view)
    else:
        lists.fill(game, state, seat, view)
    view.to_act.extend([0])
    return view.SerializeToString()


@pytest.mark.parametrize("kind,which", [(kind, which) for kind, picks in GAMES.items() for which in picks])
def test_every_seat_of_every_state_gets_the_plain_bytes(kind: str, which: int) -> None:
    game = get_game(kind)
    seats = range(game.seat_count(game.sample_options()[which][1]))
    listed = 0
    for state in _states(kind, which, seed=100 + which):
        for seat in seats:
            plain = _plain(game, state, seat)
            assert _kept(None, game, state, seat) == plain, (kind, seat)  # written (or found kept)
            assert _kept(None, game, state, seat) == plain, (kind, seat)  # found kept
            listed += bool(game.legal_moves(state, seat))
        # A state made anew from the stored bytes is another object with the same lists; the
        # one before it is let go at once, so CPython soon gives a new one its address.
        again = game.load_state(game.dump_state(state))
        for seat in seats:
            assert _kept(None, game, again, seat) == _plain(game, state, seat), (kind, seat)
        del again
    assert listed > 0


def test_kept_parts_and_lists_stay_within_their_bounds() -> None:
    lists = LegalMoveLists(moves=40, lists=5, list_bytes=3000)
    game = get_game("spin_doctors")
    most = (0, 0, 0)
    for state in _states("spin_doctors", 0, seed=7):
        for seat in range(3):
            assert _kept(lists, game, state, seat) == _plain(game, state, seat)
            moves, kept_lists, kept_bytes = lists.kept()
            assert moves <= 40 and kept_lists <= 5 and kept_bytes <= 3000
            most = tuple(max(a, b) for a, b in zip(most, (moves, kept_lists, kept_bytes)))  # type: ignore[assignment]
    assert most[0] == 40 and most[1] == 5 and most[2] > 2000  # each bound was reached, so held


def test_two_seats_of_one_state_and_one_seat_of_two_states_get_their_own_lists() -> None:
    game = get_game("spin_doctors")
    lists = LegalMoveLists()
    states = _states("spin_doctors", 1, seed=11)
    first = next(states)
    # At the Staff choice every seat lists the same Staffs, then hand-overs to the other seats.
    zero, one = _plain(game, first, 0), _plain(game, first, 1)
    assert zero != one
    assert _kept(lists, game, first, 0) == zero
    assert _kept(lists, game, first, 1) == one
    assert _kept(lists, game, first, 0) == zero  # found kept, still seat 0's
    assert lists.kept()[1] == 2
    # One seat's list changes with the state: a later state's is written afresh.
    second = next(s for s in states if _plain(game, s, 0) != zero)
    later = _plain(game, second, 0)
    assert _kept(lists, game, second, 0) == later
    assert _kept(lists, game, first, 0) == zero
