"""What the cheaper step must keep: ``evolve`` gives what ``dataclasses.replace`` gives,
Stimmvieh's hand-written state JSON is the json module's to the byte, whatever the strings, and
the table's clocks are settled as before, ``settle`` answering what ``next_due`` finds."""

from __future__ import annotations

import json
import random
from dataclasses import asdict, replace
from typing import Any

import pytest

from hustings.engine import Rng, get_game
from hustings.engine import jsontext
from hustings.engine.base import evolve
from hustings.engine.errors import MalformedMoveError
from hustings.engine.stimmvieh import codec, serial
from hustings.engine.stimmvieh.model import PartyState, PlayPolitician, StimmviehOptions, StimmviehState
from hustings.service import table
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2, stimmvieh_pb2
from spin_doctors_helpers import as_first_written as spin_doctors_as_first_written

# Strings that JSON must escape (quotes, backslashes, control characters), that it writes as they
# are although they look odd (DEL, non-ASCII, U+2028), and lone surrogates it cannot write at all.
AWKWARD = ['a"b', "back\\slash", "tab\there", "nl\n", "\x00", "\x1f", "del\x7f", "é中", "\u2028", "", "V01"]


def _canonical(value: object) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _state() -> StimmviehState:
    game = get_game("stimmvieh")
    assert game is not None
    state: StimmviehState = game.setup(StimmviehOptions(3, campaigns=2), Rng(b"engine-step"))
    return state


def test_evolve_is_replace_and_leaves_the_original_alone() -> None:
    state = _state()
    changed = evolve(state, round=5, display=("D01",), current_party=2)
    assert changed == replace(state, round=5, display=("D01",), current_party=2)
    assert type(changed) is StimmviehState and changed is not state
    assert (state.round, state.current_party) == (0, None) and state.display != ("D01",)
    assert evolve(state) == state
    party = evolve(state.parties[0], votes=("V03",))
    assert party == PartyState(votes=("V03",)) and state.parties[0].votes == ()
    with pytest.raises(AttributeError):  # still frozen
        changed.round = 6  # type: ignore[misc]


def test_evolve_refuses_a_name_that_is_not_a_field() -> None:
    state = _state()
    with pytest.raises(TypeError, match="roud"):
        evolve(state, roud=3)


@pytest.mark.parametrize("text", AWKWARD)
def test_every_string_writer_writes_what_json_writes(text: str) -> None:
    assert jsontext.text(text) == jsontext.scalar(text) == _canonical(text)
    for values in [(text,), (text, "V01"), ("D02", text, "D03"), ()]:
        assert jsontext.texts(values) == jsontext.texts(list(values)) == _canonical(values)


@pytest.mark.parametrize("value", [0, -7, 2**70, True, False, None, 1.5, "x", (1, 2), ()])
def test_the_other_writers_write_what_json_writes(value: object) -> None:
    assert jsontext.scalar(value) == _canonical(value)
    if type(value) is int or value is None:
        assert jsontext.number(value) == _canonical(value)  # type: ignore[arg-type]
    if isinstance(value, tuple):
        assert jsontext.numbers(value) == _canonical(value)


@pytest.mark.parametrize("values", [(), (0,), (1, 9, 3), (255, 256), (-1, 5), (2**70, 0), tuple(range(40))])
def test_numbers_of_any_size_are_written_as_json_writes_them(values: tuple[int, ...]) -> None:
    assert jsontext.numbers(values) == jsontext.numbers(list(values)) == _canonical(values)


def test_a_kept_text_is_found_by_identity_and_never_for_another_object() -> None:
    written: list[object] = []

    def write(value: object) -> str:
        written.append(value)
        return repr(value)

    kept = jsontext.kept_by_identity(write, size=3)
    first, equal = PartyState(votes=("V01",)), PartyState(votes=("V01",))
    assert kept(first) == kept(first) and written == [first]  # the second time found by identity
    assert kept(equal) == kept(first) and written == [first, equal]  # equal, not the same: written
    for number in range(5):  # more than ``size``: everything let go, later texts written afresh
        assert kept((number,)) == f"({number},)"
    assert kept(first) == repr(first) and sum(value is first for value in written) == 2


def test_a_sequence_of_other_values_is_still_written_as_json_writes_it() -> None:
    for values in [("V01", 3), [None, "x"], ("a", ("b",))]:
        assert jsontext.texts(values) == _canonical(values)  # type: ignore[arg-type]


def test_a_lone_surrogate_fails_as_it_does_with_json() -> None:
    state = evolve(_state(), display=("D01", "\ud800"))
    with pytest.raises(UnicodeEncodeError):
        _canonical(asdict(state)).encode("utf-8")
    with pytest.raises(UnicodeEncodeError):
        serial.dump_state(state)


@pytest.mark.parametrize("text", AWKWARD)
def test_a_state_holding_awkward_strings_dumps_to_the_canonical_json(text: str) -> None:
    """Stored states never hold such card ids, but no value may make the writer leave JSON."""
    base = _state()
    parties = list(base.parties)
    parties[1] = evolve(parties[1], votes=(text, "V02"), donations=("D01", text), chosen=(1, 5, 7, 9))
    state = evolve(
        base,
        parties=tuple(parties),
        display=(text,) + base.display[1:],
        vote_stack=base.vote_stack + (text,),
        phase=text or base.phase,
        options=evolve(base.options, custom_slogan=text, custom_replaces="V01" if text else ""),
    )
    expected = asdict(state)
    expected["format"] = serial.FORMAT
    assert serial.dump_state(state) == _canonical(expected).encode("utf-8")


def _settle_as_first_written(stored: storage_pb2.StoredGame, acting: frozenset[int], mover: int | None, now_ms: int) -> None:
    """``table.settle`` as it was first written (every field read where it is used), with what
    was added since: the pace of a table where bots decide for every seat, and a decision's time
    ending no later than the seat's own deadline."""
    settings = stored.table
    active = set(acting) if stored.status == game_pb2.GAME_STATUS_ACTIVE else set()
    for seat in stored.seats:
        if seat.seat == mover and seat.turn_started_ms and settings.bank_seconds and not table.bot_decides(seat):
            used = max(0, min(now_ms, table._deadline(settings, seat) or now_ms) - seat.turn_started_ms)
            seat.bank_ms = max(0, seat.bank_ms - used) + settings.increment_seconds * 1000
        if seat.seat not in active:
            seat.turn_started_ms = 0
            seat.deadline_ms = 0
            continue
        if seat.seat == mover or not seat.turn_started_ms:
            seat.turn_started_ms = now_ms
        if table.bot_decides(seat):  # due at once, or a pace after the step at a table of bots alone
            seat.deadline_ms = now_ms + table.BOT_ONLY_STEP_MS if table.all_bots(stored) else seat.turn_started_ms
        else:
            seat.deadline_ms = table._deadline(settings, seat)


@pytest.mark.parametrize("seed", range(6))
def test_settle_keeps_the_clocks_as_before_and_answers_the_next_deadline(seed: int) -> None:
    choices = random.Random(seed)
    stored = storage_pb2.StoredGame(game_id="g", kind="stimmvieh", status=game_pb2.GAME_STATUS_ACTIVE)
    stored.table.decision_seconds = choices.choice([0, 30])
    stored.table.bank_seconds = choices.choice([0, 60])
    stored.table.increment_seconds = 5 if stored.table.bank_seconds else 0
    seats = choices.randint(2, 6)
    for number in range(seats):
        stored.seats.add(seat=number, bank_ms=stored.table.bank_seconds * 1000, bot=choices.random() < 0.2)
    reference = storage_pb2.StoredGame()
    reference.CopyFrom(stored)
    now, answers = 1_000_000, set()
    for step in range(200):
        now += choices.randint(0, 90_000)
        for copy in (stored, reference):
            copy.seats[step % seats].absent = step % 7 == 0  # seats turn absent and back
            if step == 190:
                copy.status = game_pb2.GAME_STATUS_FINISHED
        acting = frozenset(s for s in range(seats) if choices.random() < 0.4)
        mover = choices.choice([None, *range(seats)])
        due = table.settle(stored, acting, mover, now)
        _settle_as_first_written(reference, acting, mover, now)
        assert stored.SerializeToString(deterministic=True) == reference.SerializeToString(deterministic=True)
        assert due == table.next_due(stored)
        answers.add(due > 0)
    assert stored.status == game_pb2.GAME_STATUS_FINISHED and table.next_due(stored) == 0
    if stored.table.decision_seconds or stored.table.bank_seconds:
        assert answers == {True, False}  # the comparison saw deadlines and none


def _wahlspiel_as_first_written(state: Any) -> bytes:
    """The Wahlspiel state format as first written: the whole tree through ``json.dumps``; the
    shown hands of a ballot just decided, added since, only while there are some."""
    data = asdict(state)
    data["format"] = 2
    if data["revealed_ballot"] is None:
        del data["revealed_ballot"]
    return _canonical(data).encode("utf-8")


@pytest.mark.parametrize("kind", ["wahlspiel", "spin_doctors"])
def test_every_state_of_whole_games_dumps_as_first_written(kind: str) -> None:
    """Stored states and their digests must not change with the faster serialisation: every state
    of a whole game per option set dumps to the bytes first written, and loads back equal."""
    game = get_game(kind)
    assert game is not None
    reference = _wahlspiel_as_first_written if kind == "wahlspiel" else spin_doctors_as_first_written
    checked = 0
    for number, (_label, options) in enumerate(game.sample_options()):
        choices, rng = random.Random(number), Rng(f"{kind}-{number}".encode())
        state = game.setup(options, rng)
        for _ in range(3000):
            dumped = game.dump_state(state)
            assert dumped == reference(state)
            assert game.dump_state(game.load_state(dumped)) == dumped
            checked += 1
            if game.is_over(state):
                break
            seat = choices.choice(sorted(game.to_act(state)))
            state, _events = game.apply(state, seat, choices.choice(game.legal_moves(state, seat)), rng)
        assert game.is_over(state)
    assert checked > 100


def test_stimmvieh_shared_turn_events_and_moves_are_what_fresh_ones_would_be() -> None:
    """The turn's events and moves come from tables made once: over whole games they equal what
    building them afresh gives, and their messages what writing them field by field gives."""
    game = get_game("stimmvieh")
    assert game is not None
    checked = 0
    for number, (_label, options) in enumerate(game.sample_options()):
        choices, rng = random.Random(number), Rng(f"stimmvieh-step-{number}".encode())
        state = game.setup(options, rng)
        while not game.is_over(state):
            seat = choices.choice(sorted(game.to_act(state)))
            move = choices.choice(game.legal_moves(state, seat))
            proto = game_pb2.Move()
            game.move_to_proto(move, proto)
            assert game.move_from_proto(proto) == move
            state, events = game.apply(state, seat, move, rng)
            for event in events:
                fresh = replace(event.payload)  # a new payload, equal
                kept, written = game_pb2.Event(), stimmvieh_pb2.StimmviehEvent()
                game.event_to_proto(event.payload, kept)
                codec._EVENT_WRITERS[type(fresh)](fresh, written)
                assert kept.stimmvieh == written
                checked += 1
    assert checked > 500
    bad = game_pb2.Move()
    bad.stimmvieh.play_politician.influence = 10
    with pytest.raises(MalformedMoveError) as caught:  # not in the table: built and checked as before
        game.move_from_proto(bad)
    assert caught.value.reason == "BAD_INFLUENCE"
    assert codec._PLAYS[(9, "")] == PlayPolitician(9)
