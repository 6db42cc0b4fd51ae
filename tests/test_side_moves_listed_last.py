"""GameView.legal_moves lists the decision's moves first and the moves allowed at any time after
them (The Spin Doctors' side moves: hand_budget, offer_deal, withdraw_offer, decline_offer; the
other games have none), as its proto comment says: a bot that acts only when in to_act takes the
moves before the first side move. Over every state of whole random games, for every seat, the
view's list as the service writes it (``fill_legal_moves``)."""

from __future__ import annotations

import pytest

from hustings.engine import get_game
from hustings.service.legal_moves import fill_legal_moves
from hustings.v1 import game_pb2
from test_legal_moves import GAMES, _states

SIDE_MOVES = {"hand_budget", "offer_deal", "withdraw_offer", "decline_offer"}
SEEDS = (1, 2)


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_side_moves_come_after_the_decisions(kind: str) -> None:
    game = get_game(kind)
    sides = 0
    for which in GAMES[kind]:
        seats = game.seat_count(game.sample_options()[which][1])
        for seed in SEEDS:
            for state in _states(kind, which, seed):
                for seat in range(seats):
                    view = game_pb2.GameView()
                    fill_legal_moves(game, state, seat, view)
                    names = [getattr(m, m.WhichOneof("game")).WhichOneof("kind") for m in view.legal_moves]
                    side = [name in SIDE_MOVES for name in names]
                    assert side == sorted(side), (kind, seat, names)
                    sides += sum(side)
    if kind == "spin_doctors":
        assert sides > 0, "no side move was listed: the check saw nothing"
    else:
        assert sides == 0
