"""What the cheaper engine step must keep: ``evolve`` gives what ``dataclasses.replace`` gives,
and Stimmvieh's hand-written state JSON is the json module's to the byte, whatever the strings."""

from __future__ import annotations

import json
from dataclasses import asdict, replace

import pytest

from hustings.engine import Rng, get_game
from hustings.engine.base import evolve
from hustings.engine.stimmvieh import serial
from hustings.engine.stimmvieh.model import PartyState, StimmviehOptions, StimmviehState

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
    assert serial._text(text) == _canonical(text)
    for values in [(text,), (text, "V01"), ("D02", text, "D03"), ()]:
        assert serial._texts(values) == _canonical(values)


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
