"""The Spin Doctors rebuilt from a seat's GameView (``from_view.state_from_view``): over random
games, at every step, the seat's samples of the rebuilt table are the samples of the real one
(the sampler depends only on the seat's view, so the rebuilt table shows the seat exactly what
the real one does) and its legal moves are the same; engine bots decide from it; views of
another kind, of nobody's seat or against the rules are refused."""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from service_helpers import sent_view
from hustings.ai import make_bot
from hustings.ai.search import Budget
from hustings.engine import Rng, games
from hustings.engine.base import sampler
from hustings.engine.spin_doctors import GAME
from hustings.engine.spin_doctors.from_view import state_from_view
from hustings.engine.spin_doctors.model import FINISHED, PLANNING, RESOLUTION, SpinDoctorsOptions, State
from hustings.v1 import game_pb2

STEP_LIMIT = 4000
GAMES_PER_OPTIONS = 3
SAMPLE = sampler(GAME)


def move_bytes(moves: list[Any]) -> list[bytes]:
    out = []
    for move in moves:
        message = game_pb2.Move()
        GAME.move_to_proto(move, message)
        out.append(message.SerializeToString(deterministic=True))
    return out


def random_game(options: SpinDoctorsOptions, number: int) -> Iterator[State]:
    """Every state of a random game, bounded in steps; seats owing nothing sometimes make their
    side moves (hand-overs and offers), so those show in the views too."""
    rng, chooser = Rng(f"from_view/{options}/{number}".encode()), Rng(f"from_view/moves/{number}".encode())
    state = GAME.setup(options, rng)
    for _ in range(STEP_LIMIT):
        yield state
        if GAME.is_over(state):
            return
        seat = min(GAME.to_act(state)) if chooser.below(8) else chooser.below(options.players)
        moves = GAME.legal_moves(state, seat) or GAME.legal_moves(state, seat := min(GAME.to_act(state)))
        state, _ = GAME.apply(state, seat, chooser.choice(moves), rng)
    raise AssertionError("a random game did not end within the step limit")


def _option_sets() -> list[Any]:
    return [pytest.param(options, id=f"{name}-{options.players}p") for name, options in GAME.sample_options()]


@pytest.mark.parametrize("options", _option_sets())
def test_the_rebuilt_table_samples_as_the_real_one(options: SpinDoctorsOptions) -> None:
    checked, seen = 0, set()
    for number in range(GAMES_PER_OPTIONS):
        for step, state in enumerate(random_game(options, number)):
            if state.phase == FINISHED:
                continue  # test_a_finished_table_is_rebuilt_as_it_was_shown
            seat = step % options.players  # each seat in turn, owing the decision or not
            rebuilt = state_from_view(sent_view(GAME, state, options, seat), seat, Rng(b"rebuild", step))
            assert GAME.dump_state(SAMPLE(rebuilt, seat, Rng(b"sample", step))) == GAME.dump_state(
                SAMPLE(state, seat, Rng(b"sample", step))
            ), f"game {number} step {step} ({state.phase}): seat {seat}'s samples differ"
            assert GAME.to_act(rebuilt) == GAME.to_act(state)
            assert move_bytes(GAME.legal_moves(rebuilt, seat)) == move_bytes(GAME.legal_moves(state, seat))
            checked += 1
            seen |= _what_only_the_table_saw(state, seat)
    assert checked > 300 * GAMES_PER_OPTIONS
    # The parts the view shows for this rebuild turned up (the test would not see them missing otherwise).
    assert seen >= {"handed_over", "queued_follow_up", "news_seen_by_another", "poll_change_half_made"}, seen


def _what_only_the_table_saw(state: State, seat: int) -> set[str]:
    """Public parts of ``state`` that follow from earlier events, not from the board."""
    found = set()
    if any(p.gave for i, p in enumerate(state.seats) if i != seat):
        found.add("handed_over")
    if any(t.kind not in ("plan", "reveal", "topic") for t in state.tasks[1:]):
        found.add("queued_follow_up")
    if any(known and known != [seat] for known in state.news_known):
        found.add("news_seen_by_another")
    if any(p.poll_step == 1 for p in state.seats):
        found.add("poll_change_half_made")
    return found


def test_a_finished_table_is_rebuilt_as_it_was_shown() -> None:
    options = SpinDoctorsOptions(3)
    *_, state = random_game(options, 7)
    for seat in range(3):
        rebuilt = state_from_view(sent_view(GAME, state, options, seat), seat, Rng(b"end"))
        assert rebuilt.phase == FINISHED and GAME.view(rebuilt, seat) == GAME.view(state, seat)
        # The same ranking and scores; the detail lists the Programme bonuses in the order the
        # cards were chosen, which no view shows.
        ranking = [(p.rank, p.seat, p.score, p.ranked_by) for p in GAME.outcome(state).placings]
        assert [(p.rank, p.seat, p.score, p.ranked_by) for p in GAME.outcome(rebuilt).placings] == ranking


def _state_in(phase: str, options: SpinDoctorsOptions, number: int) -> State:
    return next(s for s in random_game(options, number) if s.phase == phase)


@pytest.mark.parametrize("level", ["greedy", "strong"])
@pytest.mark.parametrize("phase", [PLANNING, RESOLUTION])
def test_engine_bots_move_from_a_rebuilt_table(level: str, phase: str) -> None:
    options = SpinDoctorsOptions(4)
    state = _state_in(phase, options, 3)
    seat = min(GAME.to_act(state))
    view = sent_view(GAME, state, options, seat)
    bot = make_bot(level, Budget(iterations=4, seconds=5.0))
    rebuilt = state_from_view(view, seat, Rng(b"bot"))
    move = bot.choose(GAME, rebuilt, seat, Rng(b"choose"))
    assert move_bytes([move])[0] in {m.SerializeToString(deterministic=True) for m in view.legal_moves}
    GAME.apply(state, seat, move, Rng(b"apply"))  # the real table takes it


def test_views_it_cannot_use_are_refused() -> None:
    options = SpinDoctorsOptions(3)
    state = _state_in(PLANNING, options, 1)
    view = sent_view(GAME, state, options, 0)

    def refused(message: game_pb2.GameView, seat: int, why: str) -> None:
        with pytest.raises(ValueError, match=why):
            state_from_view(message, seat, Rng(b"r"))

    refused(sent_view(GAME, state, options, None), 0, "spectator")
    refused(view, 1, "seat 0's, not seat 1's")
    other = games()["stimmvieh"]
    stimmvieh = game_pb2.GameView(kind="stimmvieh", seat=0)
    other.view_to_proto(other.view(other.setup(other.sample_options()[0][1], Rng(b"s")), 0), stimmvieh)
    refused(stimmvieh, 0, "kind 'stimmvieh'")
    wrong_kind = game_pb2.GameView()
    wrong_kind.CopyFrom(view)
    wrong_kind.kind = "wahlspiel"
    refused(wrong_kind, 0, "kind 'wahlspiel'")
    tampered = [
        (lambda v: v.spin_doctors.players[1].__setattr__("staff_count", 5), "a Staff of 5"),
        (lambda v: v.spin_doctors.news_discard.append(next(c for c in v.spin_doctors.news if c)), "shown twice"),
        (lambda v: v.to_act.append(2) if 2 not in v.to_act else v.to_act.remove(2), "seats to act"),
        (lambda v: v.spin_doctors.__setattr__("topic_deck_count", 1), "Topic cards do not add up"),
        (lambda v: v.spin_doctors.players.pop(), "players for 3 seats"),
        (lambda v: v.options.__setattr__("players", 9), "options"),
    ]
    for change, why in tampered:
        bad = game_pb2.GameView()
        bad.CopyFrom(view)
        change(bad)
        refused(bad, 0, why)
    state_from_view(view, 0, Rng(b"r"))  # the view itself is fine


def test_a_sample_does_not_tell_in_which_order_a_programme_was_chosen() -> None:
    """Which of its Programme cards a seat chose first shows in no view: a table that differs only
    in that gives every seat the same samples (the rebuilt table cannot know it)."""
    options = SpinDoctorsOptions(3)
    state = _state_in(PLANNING, options, 2)
    for owner in range(3):
        player = state.seats[owner]
        assert len(player.face_up) == 1 and len(player.programme) == 3
        for order in ([0, 1, 2], [1, 0, 2], [1, 2, 0]):
            # The face-up card moved about; the face-down ones keep their order (their owner sees it).
            face_down = player.face_down
            slots = [player.face_up[0] if i == 0 else face_down[i - 1] for i in order]
            twin = state.clone()
            twin.seats[owner] = replace_programme(twin.seats[owner], slots)
            for seat in range(3):
                assert GAME.view(twin, seat) == GAME.view(state, seat)
                assert GAME.dump_state(SAMPLE(twin, seat, Rng(b"o"))) == GAME.dump_state(SAMPLE(state, seat, Rng(b"o"))), (
                    f"seat {seat}'s sample tells the order of seat {owner}'s Programme"
                )


def replace_programme(player: Any, programme: list[str]) -> Any:
    copy = player.clone()
    copy.programme = list(programme)
    return copy
