"""A Wahlspiel table rebuilt from a seat's GameView (engine/wahlspiel/from_view.py) is one the seat
cannot tell from the real one: for a random game of every option set, at every step (for the seats
that act and one more in turn), a determinization of the rebuilt table equals the same
determinization of the real one (the sampler depends only on what the seat sees), and the seat's
legal moves are the same. Engine bots decide from a rebuilt table; bad views are refused."""

from __future__ import annotations

import pytest

from service_helpers import sent_view
from hustings.ai import make_bot
from hustings.ai.search import Budget
from hustings.engine import Rng
from hustings.engine.base import sampler
from hustings.engine.wahlspiel import model as m
from hustings.engine.wahlspiel.from_view import state_from_view
from hustings.engine.wahlspiel.game import GAME
from hustings.v1 import game_pb2

SAMPLE = sampler(GAME)
GAMES_PER_OPTION_SET = 1
STEP_LIMIT = 3000


def _moves(state: m.WahlspielState, seat: int) -> list[bytes]:
    written = []
    for move in GAME.legal_moves(state, seat):
        out = game_pb2.Move()
        GAME.move_to_proto(move, out)
        written.append(out.SerializeToString(deterministic=True))
    return written


def _playout(options: m.WahlspielOptions, seed: bytes) -> list[m.WahlspielState]:
    """Every state of one random game but the last (a finished table keeps its hidden cards)."""
    rng = Rng(seed)
    state = GAME.setup(options, rng)
    states = []
    for _ in range(STEP_LIMIT):
        if GAME.is_over(state):
            return states
        states.append(state)
        acting = sorted(GAME.to_act(state))
        seat = acting[rng.below(len(acting))]
        moves = GAME.legal_moves(state, seat)
        state, _ = GAME.apply(state, seat, moves[rng.below(len(moves))], rng)
    raise AssertionError("a random game did not end")


@pytest.mark.parametrize("label,options", GAME.sample_options(), ids=[f"{o.players}p-{label}" for label, o in GAME.sample_options()])
def test_rebuilt_table_samples_as_the_real_one(label: str, options: m.WahlspielOptions) -> None:
    steps: set[str] = set()
    for game in range(GAMES_PER_OPTION_SET):
        for version, state in enumerate(_playout(options, f"{label}-{options.players}-{game}".encode())):
            steps.add(state.step)
            # The seats that act, and one more in turn: every seat is checked at every kind of step.
            for seat in sorted(GAME.to_act(state) | {version % options.players}):
                view = sent_view(GAME, state, state.options, seat, version=version)
                rebuilt = state_from_view(view, seat, Rng(b"a"))
                assert GAME.dump_state(SAMPLE(rebuilt, seat, Rng(b"b"))) == GAME.dump_state(SAMPLE(state, seat, Rng(b"b"))), (
                    f"step {version} ({state.step}), seat {seat}"
                )
                assert _moves(rebuilt, seat) == _moves(state, seat)
                assert list(view.legal_moves) == [game_pb2.Move.FromString(b) for b in _moves(rebuilt, seat)]
    assert m.NOMINATING in steps and m.VOTING in steps


def _one_state_per_step(options: m.WahlspielOptions, seed: bytes) -> dict[str, m.WahlspielState]:
    found: dict[str, m.WahlspielState] = {}
    for state in _playout(options, seed):
        found.setdefault(state.step, state)
    return found


@pytest.mark.parametrize("level", ["greedy", "strong"])
def test_an_engine_bot_plays_a_legal_move_from_a_rebuilt_table(level: str) -> None:
    bot = make_bot(level, Budget(iterations=3, seconds=30.0)) if level == "strong" else make_bot(level)
    states = _one_state_per_step(m.WahlspielOptions(4), b"bots")
    assert len(states) >= 10, sorted(states)
    for step, state in states.items():
        for seat in sorted(GAME.to_act(state)):
            rebuilt = state_from_view(sent_view(GAME, state, state.options, seat), seat, Rng(b"view"))
            move = bot.choose(GAME, rebuilt, seat, Rng(b"bot"))
            assert move in GAME.legal_moves(state, seat), (step, seat, move)


def test_bad_views_are_refused() -> None:
    state = _playout(m.WahlspielOptions(3), b"refusals")[40]
    view = sent_view(GAME, state, state.options, 1)
    assert state_from_view(view, 1, Rng(b"a")).step == state.step

    def refused(changed: game_pb2.GameView, seat: int, reason: str) -> None:
        with pytest.raises(ValueError, match=reason):
            state_from_view(changed, seat, Rng(b"a"))

    other_kind = game_pb2.GameView()
    other_kind.CopyFrom(view)
    other_kind.kind = "stimmvieh"
    refused(other_kind, 1, "not a Wahlspiel view")
    refused(sent_view(GAME, state, state.options, None), 1, "spectator")
    refused(view, 2, "seat 1's, not seat 2's")
    opened = game_pb2.GameView()
    opened.CopyFrom(view)
    opened.status = game_pb2.GAME_STATUS_OPEN
    refused(opened, 1, "not started")
    no_options = game_pb2.GameView()
    no_options.CopyFrom(view)
    no_options.options.players = 9
    refused(no_options, 1, "options")
    more_cards = game_pb2.GameView()
    more_cards.CopyFrom(view)
    more_cards.wahlspiel.voter_stack_count += 1
    refused(more_cards, 1, "do not fill the stacks")
    twice = game_pb2.GameView()
    twice.CopyFrom(view)
    twice.wahlspiel.ballot_box_card_ids.append(twice.wahlspiel.parties[1].voters[0].card_id)
    refused(twice, 1, "two places")
    hidden_count = game_pb2.GameView()
    hidden_count.CopyFrom(view)
    hidden_count.wahlspiel.parties[1].voter_count += 1
    refused(hidden_count, 1, "own hands")
    not_owed = game_pb2.GameView()
    not_owed.CopyFrom(view)
    not_owed.to_act[:] = [s for s in range(3) if s not in view.to_act]
    refused(not_owed, 1, "to_act")
    fewer_moves = game_pb2.GameView()
    fewer_moves.CopyFrom(sent_view(GAME, state, state.options, state.current))
    assert len(fewer_moves.legal_moves) > 1
    del fewer_moves.legal_moves[0]
    refused(fewer_moves, state.current, "legal moves")


def test_a_finished_table_is_rebuilt_with_no_decision_left() -> None:
    rng = Rng(b"finished")
    state = GAME.setup(m.WahlspielOptions(2), rng)
    for _ in range(STEP_LIMIT):
        if GAME.is_over(state):
            break
        seat = sorted(GAME.to_act(state))[0]
        moves = GAME.legal_moves(state, seat)
        state, _ = GAME.apply(state, seat, moves[rng.below(len(moves))], rng)
    rebuilt = state_from_view(sent_view(GAME, state, state.options, 0), 0, Rng(b"a"))
    assert GAME.is_over(rebuilt) and GAME.outcome(rebuilt) == GAME.outcome(state)
    assert GAME.view(rebuilt, 0) == GAME.view(state, 0)
