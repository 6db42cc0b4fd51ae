"""The Spin Doctors' view tells every seat how many side moves each player has left
(SpinDoctorsPlayer.side_moves_left): SIDE_MOVE_LIMIT after every decision of the game, one less
with each hand-over, offer, withdrawal or decline of that player, 0 once the game is over. Every
side move is a public event, so every seat and every spectator sees the same counts, and a count
of 0 is exactly what keeps a player's side moves off its legal moves. Through the engine (scenes
and whole random games) and through a real replica over gRPC and REST/JSON.

Seats follow the examples' clockwise order: ANTEK 0, ANIA 1, BARTEK 2.
"""

from __future__ import annotations

import random
from typing import Any

from conftest import run
from hustings.client import Client, HustingsError
from hustings.engine import Rng
from hustings.engine.spin_doctors import GAME
from hustings.engine.spin_doctors.model import (
    SIDE_MOVE_LIMIT,
    DeclineOffer,
    HandBudget,
    OfferDeal,
    OrderTie,
    SpinDoctorsOptions,
    State,
    Term,
    WithdrawOffer,
)
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2
from rest_helpers import LiveRest
from spin_doctors_helpers import side_moves, tie_to_order

ANTEK, ANIA, BARTEK = 0, 1, 2


def _apply(state: State, seat: int, move: Any) -> State:
    return GAME.apply(state, seat, move, Rng(b"view"))[0]



def _counts(state: State) -> list[int]:
    """Every player's side moves left, as the view gives them; asserts that every seat and a
    spectator are given the same counts."""
    seen = [[p.side_moves_left for p in GAME.view(state, viewer).players] for viewer in [None, *range(state.players)]]
    assert all(counts == seen[0] for counts in seen), seen
    return seen[0]


def _proto_counts(state: State, viewer: int | None) -> list[int]:
    """The counts as the view's message carries them to ``viewer``."""
    out = game_pb2.GameView()
    GAME.view_to_proto(GAME.view(state, viewer), out)
    return [p.side_moves_left for p in out.spin_doctors.players]



def test_the_count_goes_down_with_each_side_move_of_its_player_and_is_full_again_after_a_decision() -> None:
    state = tie_to_order()
    full = [SIDE_MOVE_LIMIT] * 3
    assert _counts(state) == full == [4, 4, 4]  # the number the proto comment and CONTENT.md state
    assert all(_proto_counts(state, viewer) == full for viewer in (None, ANTEK, ANIA, BARTEK))
    for made in range(1, SIDE_MOVE_LIMIT + 1):
        state = _apply(state, ANIA, HandBudget(BARTEK, 1))
        assert _counts(state) == [4, 4 - made, 4]
    assert side_moves(state, ANIA) == [] and side_moves(state, BARTEK)
    # BARTEK's count is his own: ANIA's hand-overs to him took none of it.
    state = _apply(state, BARTEK, HandBudget(ANTEK, 2))
    assert _counts(state) == [4, 0, 3]
    assert all(_proto_counts(state, viewer) == [4, 0, 3] for viewer in (None, ANTEK, ANIA, BARTEK))
    state = _apply(state, ANTEK, OrderTie(BARTEK))  # a decision of the game
    assert _counts(state) == full
    assert side_moves(state, ANIA)


def test_offers_withdrawals_and_declines_count_like_hand_overs() -> None:
    state = tie_to_order()
    tie = Term("ORDER_TIE", seat=BARTEK)
    state = _apply(state, BARTEK, OfferDeal(ANTEK, 2, tie))
    assert _counts(state) == [4, 4, 3]
    state = _apply(state, BARTEK, WithdrawOffer(0))
    assert _counts(state) == [4, 4, 2]
    state = _apply(state, ANIA, OfferDeal(ANTEK, 3, Term("ORDER_TIE", seat=ANIA)))
    state = _apply(state, ANTEK, DeclineOffer(0))  # the player owing the decision declines: a side move of his
    assert _counts(state) == [3, 3, 2]
    state = _apply(state, ANTEK, HandBudget(ANIA, 1))
    assert _counts(state) == [2, 3, 2] and GAME.to_act(state) == {ANTEK}


def test_no_side_move_is_left_once_the_game_is_over() -> None:
    rng, chooser = Rng(b"over"), random.Random(3)
    state = GAME.setup(SpinDoctorsOptions(3), rng)
    for _ in range(3000):
        if GAME.is_over(state):
            break
        seat = chooser.choice(sorted(GAME.to_act(state)))
        decisions = [m for m in GAME.legal_moves(state, seat) if not GAME.is_side_move(m)]
        state = GAME.apply(state, seat, chooser.choice(decisions), rng)[0]
    assert GAME.is_over(state)
    assert _counts(state) == [0, 0, 0] and _proto_counts(state, None) == [0, 0, 0]
    assert all(GAME.legal_moves(state, seat) == [] for seat in range(3))


STEP_LIMIT = 6000  # a 5-player game spammed with side moves ends after about 4,000 steps


def _play_checking_counts(players: int, side_move_chance: float) -> dict[str, int]:
    """One random game through the engine, checking the counts at every step: what the view
    says for every seat equals SIDE_MOVE_LIMIT less that seat's side moves since the last
    decision, and a seat's side moves are listed exactly when its count is above 0 and the seat
    would have some with a fresh count (budget, offers and whose turn it is decide the rest)."""
    rng, chooser = Rng(f"counts:{players}".encode()), random.Random(players)
    state = GAME.setup(SpinDoctorsOptions(players), rng)
    made = [0] * players
    seen = {"none left": 0, "some left and listed": 0, "some left, none possible": 0}
    for _ in range(STEP_LIMIT):
        counts = _counts(state)
        assert counts == [SIDE_MOVE_LIMIT - n for n in made]
        fresh = state.sharing()
        fresh.side_moves = []  # the same table with every seat's side moves unused
        for seat in range(players):
            listed, possible = side_moves(state, seat), side_moves(fresh, seat)
            if counts[seat] == 0:
                assert listed == [], (seat, listed)
                seen["none left"] += 1
            else:
                assert listed == possible, seat
                seen["some left and listed" if listed else "some left, none possible"] += 1
        side = [(seat, move) for seat in range(players) for move in side_moves(state, seat)]
        if side and chooser.random() < side_move_chance:
            seat, move = chooser.choice(side)
        else:
            seat = chooser.choice(sorted(GAME.to_act(state)))
            move = chooser.choice([m for m in GAME.legal_moves(state, seat) if not GAME.is_side_move(m)])
        state = GAME.apply(state, seat, move, rng)[0]
        if GAME.is_side_move(move):
            made[seat] += 1
        else:
            made = [0] * players
        if GAME.is_over(state):
            break
    assert GAME.is_over(state), "the game did not end within the step bound"
    assert _counts(state) == [0] * players
    return seen


def test_across_whole_random_games_a_count_of_0_is_exactly_what_hides_a_seatsside_moves() -> None:
    for players, chance in ((3, 0.9), (5, 0.6)):
        seen = _play_checking_counts(players, chance)
        assert seen["none left"] > 0 and seen["some left and listed"] > 0, seen  # both sides were met


# --- through a real replica ---------------------------------------------------------------------

MAX_CHOOSING_MOVES = 40  # 3 seats: a Staff and 3 Programme cards each
NEW_GAME = {"kind": "spin_doctors", "options": {"players": 3}}


def _hand_overs(view: dict[str, Any]) -> list[dict[str, Any]]:
    return [m for m in view.get("legalMoves", []) if "handBudget" in m["spinDoctors"]]


def _rest_counts(live: LiveRest, game_id: str, token: str | None) -> list[int]:
    view = live.ok("GET", f"/v1/games/{game_id}/view", token=token)["view"]
    # The REST face prints fields with their default value too, so a 0 is there as well.
    return [p["sideMovesLeft"] for p in view["spinDoctors"]["players"]]


def test_the_count_arrives_over_grpc_and_rest_json(redis_server: EmbeddedRedis) -> None:
    with LiveRest(redis_server.url) as live:
        assert live.replica is not None
        game_id = live.ok("POST", "/v1/games", NEW_GAME)["gameId"]
        tokens = [live.ok("POST", f"/v1/games/{game_id}:join", {"displayName": f"P{i}"})["seatToken"] for i in range(3)]
        viewers: list[str | None] = [None, *tokens]
        number = 0

        def move(seat: int, body: dict[str, Any]) -> None:
            nonlocal number
            number += 1
            live.ok("POST", f"/v1/games/{game_id}/moves", {"move": body, "requestId": f"r{number}"}, token=tokens[seat])

        async def grpc_counts() -> list[list[int]]:
            async with Client(f"127.0.0.1:{live.replica.port}") as client:  # type: ignore[union-attr]
                views = [await client.view(game_id, token) for token in viewers]
            return [[p.side_moves_left for p in v.spin_doctors.players] for v in views]

        async def grpc_refusal(seat: int, body: game_pb2.Move) -> str:
            async with Client(f"127.0.0.1:{live.replica.port}") as client:  # type: ignore[union-attr]
                try:
                    await client.move(game_id, tokens[seat], body)
                except HustingsError as error:
                    return error.reason
            raise AssertionError("a side move beyond the limit was accepted")

        assert run(grpc_counts()) == [[4, 4, 4]] * 4
        assert all(_rest_counts(live, game_id, token) == [4, 4, 4] for token in viewers)
        # While choosing, ANTEK hands over once before his choice (his one hand-over as a seat owing one).
        move(ANTEK, _hand_overs(live.ok("GET", f"/v1/games/{game_id}/view", token=tokens[ANTEK])["view"])[0])
        assert run(grpc_counts()) == [[3, 4, 4]] * 4
        assert all(_rest_counts(live, game_id, token) == [3, 4, 4] for token in viewers)
        for _ in range(MAX_CHOOSING_MOVES):
            table = live.ok("GET", f"/v1/games/{game_id}/view")["view"]
            if table["spinDoctors"]["phase"] != "SPIN_DOCTORS_PHASE_CHOOSING":
                break
            seat = min(table["toAct"])
            mine = live.ok("GET", f"/v1/games/{game_id}/view", token=tokens[seat])["view"]
            move(seat, next(m for m in mine["legalMoves"] if "handBudget" not in m["spinDoctors"]))
        else:
            raise AssertionError("the choosing did not end")
        # One seat owes the opening decision; another one, owing nothing, hands over until none is left.
        acting = live.ok("GET", f"/v1/games/{game_id}/view")["view"]["toAct"][0]
        giver = (acting + 1) % 3
        assert run(grpc_counts()) == [[4, 4, 4]] * 4  # the choices were decisions: full again
        for _ in range(SIDE_MOVE_LIMIT):
            mine = live.ok("GET", f"/v1/games/{game_id}/view", token=tokens[giver])["view"]
            move(giver, _hand_overs(mine)[0])
        expected = [0 if seat == giver else 4 for seat in range(3)]
        assert run(grpc_counts()) == [expected] * 4
        assert all(_rest_counts(live, game_id, token) == expected for token in viewers)
        mine = live.ok("GET", f"/v1/games/{game_id}/view", token=tokens[giver])["view"]
        assert _hand_overs(mine) == [] and mine["spinDoctors"]["players"][giver]["sideMovesLeft"] == 0
        hand_over = game_pb2.Move()
        hand_over.spin_doctors.hand_budget.seat, hand_over.spin_doctors.hand_budget.amount = acting, 1
        assert run(grpc_refusal(giver, hand_over)) == "SIDE_MOVES_EXHAUSTED"
        # The opening decision gives every seat its side moves again.
        mine = live.ok("GET", f"/v1/games/{game_id}/view", token=tokens[acting])["view"]
        move(acting, next(m for m in mine["legalMoves"] if "handBudget" not in m["spinDoctors"]))
        assert run(grpc_counts()) == [[4, 4, 4]] * 4
        assert all(_rest_counts(live, game_id, token) == [4, 4, 4] for token in viewers)
