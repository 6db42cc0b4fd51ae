"""Determinization (``hustings.engine.base.sampler``): for random reachable states of every game,
a sample gives the seat exactly the view it has, depends only on that view (states differing in
another seat's secrets give equal samples), and over many samples every hidden card that is
consistent with the view turns up."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from hustings.engine import Game, Rng, games, state_digest
from hustings.engine.base import observe, sampler

STEP_LIMIT = 4000
CHECKPOINTS = 6  # states checked per game, spread over its course
SAMPLES = 8  # samples per state and seat for the view check
COVERAGE_SAMPLES = 300


def _reachable(game: Game[Any, Any, Any], options: Any, seed: bytes) -> list[Any]:
    """States of one random game (every ``stride`` steps), bounded in steps."""
    rng, chooser = Rng(seed), Rng(seed + b"/moves")
    state = game.setup(options, rng)
    trail = [state]
    for _ in range(STEP_LIMIT):
        if game.is_over(state):
            break
        seat = min(game.to_act(state))
        state, _ = game.apply(state, seat, chooser.choice(game.legal_moves(state, seat)), rng)
        trail.append(state)
    assert game.is_over(state), "a random game did not end within the step limit"
    stride = max(1, len(trail) // CHECKPOINTS)
    return trail[1:-1:stride][:CHECKPOINTS] + [trail[-1]]


def _options(game: Game[Any, Any, Any]) -> list[Any]:
    """One option set per player count (the variants do not change what is hidden)."""
    chosen: dict[int, Any] = {}
    for _, options in game.sample_options():
        chosen.setdefault(game.seat_count(options), options)
    return list(chosen.values())


CASES = [pytest.param(kind, options, id=f"{kind}-{game.seat_count(options)}p")
         for kind, game in games().items() for options in _options(game)]


@pytest.mark.parametrize(("kind", "options"), CASES)
def test_a_sample_keeps_the_view_and_depends_only_on_it(kind: str, options: Any) -> None:
    game = games()[kind]
    sample = sampler(game)
    players = game.seat_count(options)
    for number, state in enumerate(_reachable(game, options, f"sampling/{kind}/{players}".encode())):
        for seat in range(players):
            seen = game.view(state, seat)
            for k in range(SAMPLES):
                drawn = sample(state, seat, Rng(b"sample", k))
                assert game.view(drawn, seat) == seen, f"sample {k} of state {number} shows seat {seat} another view"
                assert game.to_act(drawn) == game.to_act(state)
                # The sample is a state the rules can go on with: every listed move applies.
                for actor in sorted(game.to_act(drawn))[:1]:
                    moves = game.legal_moves(drawn, actor)
                    assert moves == game.legal_moves(state, actor) or actor != seat
                    game.apply(drawn, actor, moves[-1], Rng(b"on", k))
            # Another seat's secrets changed: the samples (and the observation) stay the same.
            for other in range(players):
                if other == seat:
                    continue
                twin = game.secret_twin(state, other, Rng(b"twin", number))
                assert game.view(twin, seat) == seen
                for k in range(2):
                    assert state_digest(game, sample(twin, seat, Rng(b"s", k))) == state_digest(
                        game, sample(state, seat, Rng(b"s", k))
                    ), f"seat {seat}'s sample changed with seat {other}'s secrets"
                assert state_digest(game, observe(game, twin, seat)) == state_digest(game, observe(game, state, seat))


def _stimmvieh_hidden(state: Any, seat: int) -> tuple[set[str], Callable[[Any], set[str]]]:
    """The hidden vote cards, and where a sample puts some of them (the stack below its top)."""
    hidden = set(state.vote_stack[1:])
    for index, party in enumerate(state.parties):
        if index != seat:
            hidden |= set(party.votes[:-1])
    return hidden, lambda s: set(s.vote_stack[1:2])


def _wahlspiel_hidden(state: Any, seat: int) -> tuple[set[str], Callable[[Any], set[str]]]:
    """The voter cards seat does not see, and the hand of the next seat that holds any."""
    other = next(p for p in range(len(state.parties)) if p != seat and state.parties[p].voters)
    hidden = set(state.voter_stack) | {c for p, party in enumerate(state.parties) if p != seat for c in party.voters}
    return hidden, lambda s: set(s.parties[other].voters)


def _spin_doctors_hidden(state: Any, seat: int) -> tuple[set[str], Callable[[Any], set[str]]]:
    """The Staffers another seat may hold (none face up yet), and its Staff in a sample."""
    other = (seat + 1) % state.players
    keep = {p.staffer for p in state.board if p.seat == other and p.face_up} | {0}
    hidden = {str(s) for s in range(13) if s not in keep}
    return hidden, lambda s: {str(x) for x in s.seats[other].staff if x not in keep}


HIDDEN = {"stimmvieh": _stimmvieh_hidden, "wahlspiel": _wahlspiel_hidden, "spin_doctors": _spin_doctors_hidden}


@pytest.mark.parametrize("kind", sorted(HIDDEN))
def test_every_consistent_hidden_card_turns_up(kind: str) -> None:
    game = games()[kind]
    options = _options(game)[-1]
    states = _reachable(game, options, f"coverage/{kind}".encode())
    state = states[len(states) // 2]  # mid-game: hands and stacks in play
    seat = min(game.to_act(state)) if game.to_act(state) else 0
    hidden, shown = HIDDEN[kind](state, seat)
    assert len(hidden) > 1
    sample = sampler(game)
    seen: set[str] = set()
    for k in range(COVERAGE_SAMPLES):
        found = shown(sample(state, seat, Rng(b"coverage", k)))
        assert found <= hidden, f"a sample shows cards the seat knows are elsewhere: {sorted(found - hidden)}"
        seen |= found
        if seen == hidden:
            break
    assert seen == hidden, f"never sampled: {sorted(hidden - seen)}"
