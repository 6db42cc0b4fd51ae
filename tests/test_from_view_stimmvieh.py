"""A Stimmvieh table rebuilt from the GameView a seat is sent (engine/stimmvieh/from_view.py).

The sampler's draws depend only on what the seat sees, so a rebuilt table that the seat cannot
tell from the real one gives the same sample for the same generator: checked for every step and
every seat of random games over every option set, with the view written by the functions the
service writes it with (service/host.py ``_view``).
"""

from __future__ import annotations

from typing import Any, Callable

import pytest

from conftest import run
from service_helpers import sent_view
from hustings.ai import make_bot
from hustings.ai.search import Budget
from hustings.engine import Rng
from hustings.engine.base import sampler
from hustings.engine.registry import get_game
from hustings.engine.stimmvieh import GAME, StimmviehOptions, StimmviehState
from hustings.engine.stimmvieh.codec import table_from_proto
from hustings.engine.stimmvieh.from_view import ViewError, state_from_view
from hustings.engine.stimmvieh.model import CHOOSING, FINISHED
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.host import GameHost
from hustings.service.notifier import Notifier
from hustings.service.store import Store
from hustings.v1 import game_pb2, game_service_pb2

SAMPLE = sampler(GAME)
OPEN, ACTIVE, FINISHED_STATUS = game_pb2.GAME_STATUS_OPEN, game_pb2.GAME_STATUS_ACTIVE, game_pb2.GAME_STATUS_FINISHED
MAX_STEPS = 400


def moves_bytes(state: StimmviehState, seat: int) -> list[bytes]:
    out = []
    for move in GAME.legal_moves(state, seat):
        message = game_pb2.Move()
        GAME.move_to_proto(move, message)
        out.append(message.SerializeToString())
    return out


def playout(options: StimmviehOptions, seed: bytes) -> list[StimmviehState]:
    """Every state of a random game, the first and the last included."""
    rng, chooser = Rng(b"deal" + seed), Rng(b"choose" + seed)
    state = GAME.setup(options, rng)
    states = [state]
    for _ in range(MAX_STEPS):
        if GAME.is_over(state):
            return states
        seat = chooser.choice(sorted(GAME.to_act(state)))
        state, _ = GAME.apply(state, seat, chooser.choice(GAME.legal_moves(state, seat)), rng)
        states.append(state)
    raise AssertionError("the game did not end within the step bound")


def check_rebuilt(state: StimmviehState, options: StimmviehOptions, seat: int, status: int, salt: bytes) -> StimmviehState:
    proto = sent_view(GAME, state, options, seat, status)
    assert table_from_proto(proto.stimmvieh) == GAME.view(state, None if status == OPEN else seat)
    rebuilt = state_from_view(proto, seat, Rng(b"a" + salt))
    assert GAME.dump_state(SAMPLE(rebuilt, seat, Rng(b"b" + salt))) == GAME.dump_state(SAMPLE(state, seat, Rng(b"b" + salt)))
    assert moves_bytes(rebuilt, seat) == moves_bytes(state, seat)
    assert GAME.to_act(rebuilt) == GAME.to_act(state)
    if state.phase != CHOOSING:
        # Every hand is known to the table from the reveal on: the rebuild holds the real ones.
        assert [p.backbenchers for p in rebuilt.parties] == [p.backbenchers for p in state.parties]
    return rebuilt


@pytest.mark.parametrize("number", range(len(GAME.sample_options())))
def test_the_rebuilt_table_gives_the_seat_the_samples_of_the_real_one(number: int) -> None:
    label, options = GAME.sample_options()[number]
    states = playout(options, b"%d" % number)
    phases = set()
    for step, state in enumerate(states):
        for seat in range(options.players):
            rebuilt = check_rebuilt(state, options, seat, ACTIVE if step < len(states) - 1 else FINISHED_STATUS, b"%d/%d" % (step, seat))
            phases.add(rebuilt.phase)
    for seat in range(options.players):  # a seat taken while others are still free
        check_rebuilt(states[0], options, seat, OPEN, b"open")
    assert phases == {CHOOSING, "CAMPAIGN", FINISHED}, label


async def _through_the_host(url: str) -> int:
    """Play a seeded 3-player game through a real GameHost on Redis; at every step rebuild each
    seat's table from the GameView the host answers GetView with. Returns the views checked."""
    store = Store.from_url(url)
    host = GameHost(store, Notifier(store.client), allow_client_seed=True)
    checked = 0
    try:
        options = game_pb2.GameOptions(players=3)
        options.stimmvieh.moderator = True
        create = game_service_pb2.CreateGameRequest(kind="stimmvieh", options=options, seed="5eed" * 16)
        game_id = (await host.create_game(create)).game_id
        tokens: list[str] = []
        for i in range(3):
            joined = await host.join_game(game_service_pb2.JoinGameRequest(game_id=game_id, display_name=f"P{i}"))
            tokens.append(joined.seat_token)
            if i < 2:  # the game is still open: the seat is shown the spectator's table
                opened = await host.get_view(game_id, joined.seat_token)
                assert opened.status == game_pb2.GAME_STATUS_OPEN
                state = GAME.load_state((await store.load(game_id)).engine_state)  # type: ignore[union-attr]
                rebuilt = state_from_view(opened, i, Rng(b"open"))
                assert GAME.dump_state(SAMPLE(rebuilt, i, Rng(b"o"))) == GAME.dump_state(SAMPLE(state, i, Rng(b"o")))
                checked += 1
        chooser = Rng(b"host")
        for step in range(MAX_STEPS):
            stored = await store.load(game_id)
            assert stored is not None
            state = GAME.load_state(stored.engine_state)
            for seat, token in enumerate(tokens):
                proto = await host.get_view(game_id, token)
                rebuilt = state_from_view(proto, seat, Rng(b"a%d" % step))
                salt = b"b%d/%d" % (step, seat)
                assert GAME.dump_state(SAMPLE(rebuilt, seat, Rng(salt))) == GAME.dump_state(SAMPLE(state, seat, Rng(salt)))
                assert moves_bytes(rebuilt, seat) == moves_bytes(state, seat)
                checked += 1
            if GAME.is_over(state):
                return checked
            seat = chooser.choice(sorted(GAME.to_act(state)))
            move = game_pb2.Move()
            GAME.move_to_proto(chooser.choice(GAME.legal_moves(state, seat)), move)
            request = game_service_pb2.SubmitMoveRequest(game_id=game_id, move=move, request_id=f"m{step}")
            await host.submit_move(request, tokens[seat])
        raise AssertionError("the game did not end within the step bound")
    finally:
        await host.notifier.stop()
        await store.close()


def test_the_views_the_host_sends_rebuild_the_table(redis_server: EmbeddedRedis) -> None:
    checked = run(_through_the_host(redis_server.url))
    assert checked >= 3 * 40, checked  # three choices and 36 turns at least, every seat


def test_what_the_view_hides_is_drawn_anew() -> None:
    # Four players, all top candidates chosen but not yet revealed: the others' choices, their
    # collected cards and the stacks' order are the rebuild's own draws.
    options = StimmviehOptions(4)
    state = next(s for s in playout(options, b"hides") if s.phase == "CAMPAIGN" and s.round == 5)
    proto = sent_view(GAME, state, options, 0)
    first, second = (state_from_view(proto, 0, Rng(seed)) for seed in (b"x", b"y"))
    assert first != second
    for rebuilt in (first, second):
        assert rebuilt.parties[0] == state.parties[0]
        assert rebuilt.display == state.display
        assert rebuilt.vote_stack[:1] == state.vote_stack[:1] and len(rebuilt.vote_stack) == len(state.vote_stack)
        assert [p.votes[-1:] for p in rebuilt.parties] == [p.votes[-1:] for p in state.parties]
        assert sorted(rebuilt.vote_stack + sum((p.votes for p in rebuilt.parties), ())) == sorted(
            state.vote_stack + sum((p.votes for p in state.parties), ())
        )


@pytest.mark.parametrize("level", ["greedy", "strong"])
def test_an_engine_bot_plays_a_legal_move_from_a_rebuilt_table(level: str) -> None:
    bot = make_bot(level, Budget(iterations=6, seconds=5.0))
    for options in (StimmviehOptions(3), StimmviehOptions(4, campaigns=2)):
        states = playout(options, level.encode())
        # The opening choice, a turn in the first rounds, the holder of the Angelus card in turn.
        picks = [states[0]] + [s for s in states if s.phase == "CAMPAIGN" and s.round == 2][:4]
        for state in picks:
            for seat in sorted(GAME.to_act(state)):
                rebuilt = state_from_view(sent_view(GAME, state, options, seat), seat, Rng(b"rebuild"))
                move = bot.choose(GAME, rebuilt, seat, Rng(b"bot"))
                assert move in GAME.legal_moves(state, seat)


# --- views that are refused --------------------------------------------------------------------

OPTIONS = StimmviehOptions(3)
STATES = playout(OPTIONS, b"refused")
MIDGAME = next(s for s in STATES if s.phase == "CAMPAIGN" and s.round == 3 and s.current_party == 1)
CHOOSING_STATE = next(s for s in STATES if s.phase == CHOOSING and 0 < len(GAME.to_act(s)) < OPTIONS.players)


def refused(proto: game_pb2.GameView, seat: int = 1) -> ViewError:
    with pytest.raises(ValueError) as caught:
        state_from_view(proto, seat, Rng(b"r"))
    assert isinstance(caught.value, ViewError)
    return caught.value


def test_a_view_of_another_kind_is_refused() -> None:
    wahlspiel = get_game("wahlspiel")
    assert wahlspiel is not None
    options = wahlspiel.sample_options()[0][1]
    proto = sent_view(wahlspiel, wahlspiel.setup(options, Rng(b"w")), options, 1)
    error = refused(proto)
    assert error.reason == "WRONG_KIND" and "not a Stimmvieh view" in str(error)
    mislabelled = sent_view(GAME, MIDGAME, OPTIONS, 1)
    mislabelled.kind = "spin_doctors"
    assert refused(mislabelled).reason == "WRONG_KIND"


def test_a_spectator_view_and_another_seat_s_view_are_refused() -> None:
    assert refused(sent_view(GAME, MIDGAME, OPTIONS, None)).reason == "SPECTATOR_VIEW"
    error = refused(sent_view(GAME, MIDGAME, OPTIONS, 2), seat=1)
    assert error.reason == "WRONG_SEAT" and str(error) == "the view was sent to seat 2, not to seat 1"


def _tampered(change: Callable[[game_pb2.GameView], None], state: StimmviehState = MIDGAME) -> game_pb2.GameView:
    proto = sent_view(GAME, state, OPTIONS, 1)
    change(proto)
    return proto


def _extra_legal_move(view: game_pb2.GameView) -> None:
    view.legal_moves.add().stimmvieh.play_politician.influence = 9


def _one_fewer_backbencher(view: game_pb2.GameView) -> None:
    view.stimmvieh.parties[0].backbencher_count -= 1


def _played_swapped(view: game_pb2.GameView) -> None:
    # Party 0 claims to have played a politician still in its hand instead of one it played.
    other = view.stimmvieh.parties[0]
    in_hand = next(p for p in range(1, 10) if p not in other.played and p not in other.top_candidates)
    other.played[:] = sorted([*other.played[1:], in_hand])


def _played_forgotten(view: game_pb2.GameView) -> None:
    del view.stimmvieh.parties[2].played[0]


def _played_while_choosing(view: game_pb2.GameView) -> None:
    view.stimmvieh.parties[0].played.append(4)


def _unknown_card(view: game_pb2.GameView) -> None:
    view.stimmvieh.display[0].card_id = "D99"


def _card_twice(view: game_pb2.GameView) -> None:
    view.stimmvieh.display[1].CopyFrom(view.stimmvieh.display[0])


def _no_current_party(view: game_pb2.GameView) -> None:
    view.stimmvieh.ClearField("current_party")


def _lost_stack_card(view: game_pb2.GameView) -> None:
    view.stimmvieh.vote_stack_count -= 1


def _other_to_act(view: game_pb2.GameView) -> None:
    view.to_act[:] = [2]


def _three_chosen(view: game_pb2.GameView) -> None:
    view.stimmvieh.parties[1].chosen_top_candidates[:] = [1, 2, 3]


def _own_backbencher_swapped(view: game_pb2.GameView) -> None:
    own = view.stimmvieh.parties[1]
    missing = next(p for p in range(1, 10) if p not in own.backbenchers and p not in own.top_candidates)
    own.backbenchers[0] = missing


@pytest.mark.parametrize(
    "change, state, reason, words",
    [
        (_extra_legal_move, MIDGAME, "INCONSISTENT_VIEW", "legal moves"),
        (_one_fewer_backbencher, MIDGAME, "INCONSISTENT_VIEW", "party 0 has"),
        (_unknown_card, MIDGAME, "INCONSISTENT_VIEW", "'D99'"),
        (_card_twice, MIDGAME, "INCONSISTENT_VIEW", "shown twice"),
        (_no_current_party, MIDGAME, "INCONSISTENT_VIEW", "current party"),
        (_lost_stack_card, MIDGAME, "INCONSISTENT_VIEW", "vote cards lie face down"),
        (_other_to_act, MIDGAME, "INCONSISTENT_VIEW", "to act"),
        (_own_backbencher_swapped, MIDGAME, "INCONSISTENT_VIEW", "politicians of influence"),
        (_three_chosen, CHOOSING_STATE, "INCONSISTENT_VIEW", "chose 3 top candidates"),
        (_played_swapped, MIDGAME, "INCONSISTENT_VIEW", "the discard piles hold others"),
        (_played_forgotten, MIDGAME, "INCONSISTENT_VIEW", "party 2 has played 1 politicians"),
        (_played_while_choosing, CHOOSING_STATE, "INCONSISTENT_VIEW", "no politician is played"),
    ],
    ids=lambda v: getattr(v, "__name__", "")[1:] if callable(v) else "",
)
def test_a_view_against_the_rules_is_refused(change: Any, state: StimmviehState, reason: str, words: str) -> None:
    error = refused(_tampered(change, state))
    assert error.reason == reason and words in str(error), str(error)


def test_bad_options_in_a_view_are_refused() -> None:
    proto = sent_view(GAME, MIDGAME, OPTIONS, 1)
    proto.options.players = 5
    assert refused(proto).reason == "BAD_OPTIONS"


def _numbers(message: Any) -> list[tuple[Any, str, int | None]]:
    """Where every integer of a message sits: (holder, field name, index or None)."""
    found: list[tuple[Any, str, int | None]] = []
    for field, value in message.ListFields():
        items = list(value) if field.is_repeated else [value]
        for index, item in enumerate(items):
            where = index if field.is_repeated else None
            if field.message_type is not None:
                found += _numbers(item)
            elif isinstance(item, int) and not isinstance(item, bool):
                found.append((message, field.name, where))
    return found


def test_a_view_with_any_number_changed_is_rebuilt_or_refused_with_a_reason() -> None:
    # Every way a number can be off is either a view the rules produce (then the rebuilt table
    # shows the seat exactly that view) or refused as a ViewError: never another exception.
    chooser = Rng(b"fuzz")
    outcomes = {"refused": 0, "rebuilt": 0}
    many = StimmviehOptions(4, moderator=True, moderator_seat=1, campaigns=2, custom_slogan="Ja!", custom_replaces="V03")
    tables = [(OPTIONS, STATES), (many, playout(many, b"fuzz"))]
    for number in range(300):
        options, states = tables[number % 2]
        state = states[chooser.below(len(states))]
        seat = chooser.below(options.players)
        proto = sent_view(GAME, state, options, seat)
        holder, name, index = chooser.choice(_numbers(proto.stimmvieh))
        value = (getattr(holder, name) if index is None else getattr(holder, name)[index]) + chooser.choice([-2, -1, 1, 7])
        if index is None:
            setattr(holder, name, value)
        else:
            getattr(holder, name)[index] = value
        try:
            rebuilt = state_from_view(proto, seat, Rng(b"%d" % number))
        except ViewError as error:
            assert error.reason == "INCONSISTENT_VIEW" or error.reason == "UNREADABLE_VIEW", error.reason
            outcomes["refused"] += 1
        else:
            assert sent_view(GAME, rebuilt, options, seat) == proto
            outcomes["rebuilt"] += 1
    assert outcomes["refused"] > 200, outcomes
