"""The Spin Doctors' cheaper step keeps every byte: over random whole games, for every player
count and the Scandal variant, each stored state is the json module's text of the plain state,
each event's message is the one written field by field, every seat's and a spectator's view
message the one added entry by entry, a move read back from its message is the move, and
``apply`` leaves the state it was given as it was (Localities are shared with the next
state until a rule changes one). The kept texts and the values made at once are checked against
the plain ways of making them too."""

from __future__ import annotations

import random
from dataclasses import MISSING, FrozenInstanceError, fields
from typing import Any

import pytest

from hustings.engine import Rng
from hustings.engine.base import Event
from hustings.engine.spin_doctors import GAME, codec, rules
from hustings.engine.spin_doctors.model import (
    Act,
    Decline,
    HandBudget,
    Happening,
    PlaceSupport,
    Played,
    Speech,
    SpinDoctorsOptions,
    State,
    Task,
    Term,
    init_at_once,
    public_event,
)
from hustings.v1 import game_pb2, spin_doctors_pb2
from spin_doctors_helpers import as_first_written, plain_view_message

OPTION_SETS = [SpinDoctorsOptions(3), SpinDoctorsOptions(4), SpinDoctorsOptions(4, True), SpinDoctorsOptions(5)]
MAX_STEPS = 3000
"""Far above a random game's length (about 370 steps), so that every loop ends."""


def _event_bytes(payload: Happening) -> tuple[bytes, bytes]:
    """The event's message from the codec, and written field by field."""
    fast, plain = game_pb2.Event(), game_pb2.Event()
    codec.event_to_proto(payload, fast)
    codec._fill_event(payload, plain.spin_doctors)
    return fast.SerializeToString(deterministic=True), plain.SerializeToString(deterministic=True)


def _check_views(state: State) -> int:
    """Every seat's and a spectator's view message equals the one added entry by entry."""
    for seat in [*range(state.players), None]:
        view = GAME.view(state, seat)
        message = game_pb2.GameView()
        GAME.view_to_proto(view, message)
        assert message.spin_doctors.SerializeToString(deterministic=True) == plain_view_message(view).SerializeToString(deterministic=True), seat
    return state.players + 1


def _check_gifts(state: State, seat: int, acting: bool) -> int:
    """``_gift_listed`` answers what searching the listed hand-overs answers, for every seat and
    amount around the legal ones."""
    listed = rules._gifts(state, seat, acting)
    budget = state.seats[seat].budget
    checked = 0
    for other in range(-1, state.players + 1):
        for amount in [*range(-1, 12), 15, 20, budget - 1, budget, budget + 1, budget + 5]:
            move = HandBudget(other, amount)
            assert rules._gift_listed(state, seat, move, acting) == (move in listed), (other, amount, budget)
            checked += 1
    return checked


def _play(options: SpinDoctorsOptions, number: int) -> dict[str, int]:
    seed = f"step-bytes-{number}".encode()
    choices = random.Random(number)
    rng = Rng(seed)
    state = GAME.setup(options, rng)
    counts = {"steps": 0, "events": 0, "gifts": 0, "shared": 0, "views": 0}
    for _ in range(MAX_STEPS):
        if GAME.is_over(state):
            break
        seat = choices.choice(sorted(GAME.to_act(state)))
        move = choices.choice(GAME.legal_moves(state, seat))
        proto = game_pb2.Move()
        GAME.move_to_proto(move, proto)
        read = GAME.move_from_proto(game_pb2.Move.FromString(proto.SerializeToString()))
        assert read == move and type(read) is type(move)
        if counts["steps"] % 7 == 0:
            counts["gifts"] += _check_gifts(state, seat, seat in GAME.to_act(state))
        if counts["steps"] % 5 == 0:
            counts["views"] += _check_views(state)
        before = as_first_written(state)
        rng = Rng(seed, rng.counter)  # as the host: a fresh Rng at the stored counter
        new, events = GAME.apply(state, seat, move, rng)
        assert as_first_written(state) == before, f"apply changed the state it was given ({type(move).__name__})"
        assert GAME.dump_state(new) == as_first_written(new)
        counts["shared"] += sum(1 for a, b in zip(state.spots, new.spots) if a is b)
        for event in events:
            for payload in (event.payload, event.redacted):
                if payload is not None:
                    fast, plain = _event_bytes(payload)
                    assert fast == plain, payload
                    counts["events"] += 1
        state = new
        counts["steps"] += 1
    assert GAME.is_over(state)
    counts["views"] += _check_views(state)
    return counts


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: f"{o.players}{'-aside' if o.scandals_set_aside else ''}")
def test_random_whole_games_keep_their_bytes(options: SpinDoctorsOptions) -> None:
    totals = {"steps": 0, "events": 0, "gifts": 0, "shared": 0, "views": 0}
    for number in range(2):
        for key, value in _play(options, number + 10 * options.players + options.scandals_set_aside).items():
            totals[key] += value
    assert totals["steps"] > 300 and totals["events"] > 300 and totals["gifts"] > 1000 and totals["views"] > 250
    assert totals["shared"] > totals["steps"]  # Localities were shared between states, and stayed unchanged


def test_the_kept_texts_follow_every_change_of_a_seat_and_a_locality() -> None:
    """A seat or a Locality changed in place (as a scene laid out by hand changes them) is
    written anew: their texts are kept by value, never by identity."""
    state = GAME.setup(SpinDoctorsOptions(3), Rng(b"kept-texts"))
    assert GAME.dump_state(state) == as_first_written(state)
    state.seats[1].budget += 7
    state.seats[2].votes[0] = 5
    state.spots[4].activity.append(2)
    state.spots[0].turnout[0] = 1
    state.news_deck.append(state.news_deck.pop(0))
    state.board.append(Played(1, 4, 2))
    state.tasks.append(Task("plan", 1))
    state.winner = -1
    assert GAME.dump_state(state) == as_first_written(state)
    state.tasks[-1] = Task("plan", 2)
    state.board[-1] = Played(1, 4, 2, face_up=True)
    assert GAME.dump_state(state) == as_first_written(state)


def test_values_rules_never_set_are_still_written_as_json_writes_them() -> None:
    state = GAME.setup(SpinDoctorsOptions(4), Rng(b"odd-values"))
    state.seats[0].budget = 1000  # beyond the table of small ints
    state.seats[1].pool = -3
    state.favourite = 300
    state.phase = 'quote " and \\ backslash'
    state.spots[2].topic_card = "é\u2028"
    assert GAME.dump_state(state) == as_first_written(state)


def _made_plainly(cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The instance dict a dataclass's own ``__init__`` makes from these arguments."""
    made: dict[str, Any] = {}
    given = dict(zip([f.name for f in fields(cls)], args), **kwargs)
    for f in fields(cls):
        if f.name in given:
            made[f.name] = given[f.name]
        elif f.default_factory is not MISSING:
            made[f.name] = f.default_factory()
        else:
            made[f.name] = f.default
    return made


@pytest.mark.parametrize(
    ("cls", "args", "kwargs"),
    [
        (Happening, ("ACTION",), {"seat": 2, "cards": ("x",), "term": Term("CONSENT")}),
        (Happening, ("STAFFS_CHOSEN",), {}),
        (Act, ("smear", 3, -1, 2), {"staffer": 5}),
        (Task, ("arrange", 1), {"cards": ["a", "b"]}),
        (Task, ("plan", 0), {}),
        (Played, (1, 2, 3, True), {}),
        (Term, ("ACTION",), {"seat": 1, "action": "smear"}),
        (Decline, (), {}),
        (Speech, (), {"amount": 2}),
        (PlaceSupport, ((0, 2, -1),), {}),
    ],
)
def test_values_made_at_once_are_what_their_dataclass_makes(cls: type, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    made = cls(*args, **kwargs)
    assert vars(made) == _made_plainly(cls, args, kwargs)
    assert list(vars(made)) == [f.name for f in fields(cls)]
    assert made == cls(*args, **kwargs)
    if cls is not Task:  # a task holds a list of cards: unhashable, as before
        assert hash(made) == hash(cls(*args, **kwargs))
    with pytest.raises(FrozenInstanceError):
        made.x = 1  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        cls(*args, **kwargs, not_a_field=1)
    if cls is Task:
        assert Task("plan", 0).cards is not Task("plan", 0).cards  # a fresh default list each time


def test_public_events_are_the_events_the_dataclass_makes() -> None:
    payload = Happening("ROUND_STARTED", amount=2)
    assert public_event(payload) == Event(payload)
    assert vars(public_event(payload)) == vars(Event(payload))
    with pytest.raises(TypeError, match="plain dataclasses"):
        init_at_once(type("Slotted", (), {"__slots__": ()}))


def test_an_event_message_already_filled_is_overwritten_as_before() -> None:
    first = Happening("BROADCAST", seat=1, cards=("n1", "n2"), path=(0, 1))
    second = Happening("TOPIC_TOKEN", seat=2, locality=3, amount=1)
    reused, plain = game_pb2.Event(), spin_doctors_pb2.SpinDoctorsEvent()
    codec.event_to_proto(first, reused)
    codec.event_to_proto(second, reused)
    codec._fill_event(first, plain)
    codec._fill_event(second, plain)
    assert reused.spin_doctors == plain and list(reused.spin_doctors.cards) == []
    with pytest.raises(ValueError):
        codec.event_to_proto(Happening("NO_SUCH_KIND"), game_pb2.Event())
