"""Random games of The Spin Doctors for 3, 4 and 5 players, with the invariants checked at every
step: the Election in the right round, markers within 0..20, no negative Budget, Support tokens
conserved, and no seat shown another seat's face-down Staffers, hidden Programme or Staff. Every
other game plays the Scandal variant; every fifth game seats the ready-made Staffs; together the
games use every Staffer Action."""

from __future__ import annotations

import random

import pytest

from hustings.engine import Rng
from hustings.engine.spin_doctors import GAME
from hustings.engine.spin_doctors.content import CONTENT
from hustings.engine.spin_doctors.model import FINISHED, SpinDoctorsOptions, State
from hustings.engine.spin_doctors.rules import STAFFS
from hustings.engine.spin_doctors.views import TableView

GAMES_PER_PLAYER_COUNT = 50
SECRET_EVENTS = frozenset({"STAFFER_CHOSEN", "PROGRAMME_CHOSEN", "STAFF_CHANGE_MADE", "PROGRAMME_CHANGE_MADE", "NEWS_ARRANGED"})


def _check_table(state: State) -> None:
    for marker in state.turnout_markers:
        assert 0 <= marker <= 20
    tokens = [p.supply + p.pool for p in state.seats]
    for spot in state.spots:
        for owner in [t for t in spot.turnout if t >= 0] + spot.red + spot.white + spot.activity:
            tokens[owner] += 1
    assert tokens == [CONTENT.support_tokens] * state.players, "Support tokens are not conserved"
    for player in state.seats:
        assert player.budget >= 0
        assert all(0 <= v <= 20 for v in player.votes)


def _check_view(view: TableView, viewer: int | None, state: State) -> None:
    for player in view.players:
        if player.seat != viewer:
            assert player.staff == () and player.programme_face_down == ()
    for staffer in view.board:
        if staffer.seat != viewer and not staffer.face_up:
            assert staffer.staffer == -1
    if view.pending is not None and view.pending.seat != viewer:
        assert view.pending.cards == ()
    for slot, card in enumerate(view.news[: CONTENT.red_news_fields]):
        if card:
            assert viewer is not None and viewer in state.news_known[slot]


def _check_event(payload: object, viewer: int | None) -> None:
    kind, seat = getattr(payload, "kind"), getattr(payload, "seat")
    if seat == viewer:
        return
    if kind in SECRET_EVENTS:
        assert getattr(payload, "staffer") == -1 and getattr(payload, "cards") == () and getattr(payload, "other") == -1
    if kind == "STAFFER_PLAYED" and not getattr(payload, "amount"):
        assert getattr(payload, "staffer") == -1


def play_one(players: int, seed: int, actions_used: set[str]) -> State:
    """One random game with every invariant checked after every step."""
    rng = Rng(f"spin:{players}:{seed}".encode())
    chooser = random.Random(seed)
    ready_made = seed % 5 == 0
    state = GAME.setup(SpinDoctorsOptions(players, scandals_set_aside=seed % 2 == 1), rng)
    viewers: list[int | None] = [*range(players), None]
    rounds_seen = {0}
    for _ in range(5000):
        if GAME.is_over(state):
            break
        seat = chooser.choice(sorted(GAME.to_act(state)))
        legal = GAME.legal_moves(state, seat)
        staffs = [m for m in legal if m in STAFFS[: len(CONTENT.ready_made_staffs)]]
        move = chooser.choice(staffs if ready_made and staffs else legal)
        state, events = GAME.apply(state, seat, move, rng)
        actions_used.update(e.payload.action for e in events if e.payload.kind == "ACTION")
        rounds_seen.add(state.round)
        _check_table(state)
        for viewer in viewers:
            if not GAME.is_over(state):
                _check_view(GAME.view(state, viewer), viewer, state)
            for event in events:
                payload = event.for_seat(viewer)
                if payload is not None:
                    _check_event(payload, viewer)
    assert state.phase == FINISHED
    election = CONTENT.election_round[players]
    assert state.round == election and rounds_seen == set(range(election + 1))
    assert all(len(p.face_up) == 3 for p in state.seats)
    return state


@pytest.mark.parametrize("players", [3, 4, 5])
def test_random_games(players: int) -> None:
    winners = set()
    actions_used: set[str] = set()
    for seed in range(GAMES_PER_PLAYER_COUNT):
        state = play_one(players, seed, actions_used)
        outcome = GAME.outcome(state)
        assert outcome is not None and outcome.placings[0].rank == 1
        winners.add(outcome.placings[0].seat)
    assert winners == set(range(players))  # nobody is favoured by seat
    assert actions_used == set(CONTENT.actions)
