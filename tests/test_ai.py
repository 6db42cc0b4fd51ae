"""The in-process bots (``hustings.ai``): every level plays legal moves to the end of a game of
every kind, and no bot can peek: the same view and the same rng give the same move, whatever
another seat's secrets are."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from hustings.ai import LEVELS, Budget, decide, heuristics, make_bot, search
from hustings.engine import Game, Rng, games
from hustings.engine.wahlspiel.table import POLITICIANS, VOTERS

STEP_LIMIT = 4000
SMALL = Budget(iterations=24, seconds=5.0)  # the iteration count binds, so the moves are reproducible


def _states(game: Game[Any, Any, Any], players: int, seed: bytes, every: int) -> list[Any]:
    """States of one random game, every ``every`` steps, where some seat owes a decision."""
    options = next(o for _, o in game.sample_options() if game.seat_count(o) == players)
    rng, chooser = Rng(seed), Rng(seed + b"/moves")
    state = game.setup(options, rng)
    found = []
    for step in range(STEP_LIMIT):
        if game.is_over(state):
            break
        seat = min(game.to_act(state))
        moves = game.legal_moves(state, seat)
        if step % every == 0 and len(moves) > 1:
            found.append(state)
        state, _ = game.apply(state, seat, chooser.choice(moves), rng)
    return found


@pytest.mark.parametrize("kind", sorted(games()))
@pytest.mark.parametrize("level", LEVELS)
def test_a_decision_ignores_the_other_seats_secrets(kind: str, level: str) -> None:
    game = games()[kind]
    bot = make_bot(level, SMALL)
    checked = 0
    for number, state in enumerate(_states(game, 4, f"peek/{kind}".encode(), every=7)[:4]):
        seat = min(game.to_act(state))
        move = decide(game, state, seat, bot, Rng(b"decide", number))
        assert move in game.legal_moves(state, seat)
        for other in range(game.seat_count(state.options)):
            if other == seat:
                continue
            twin = game.secret_twin(state, other, Rng(b"twin", number * 10 + other))
            assert game.view(twin, seat) == game.view(state, seat)
            assert decide(game, twin, seat, bot, Rng(b"decide", number)) == move, (
                f"{level} moved otherwise when seat {other}'s secrets changed"
            )
            checked += 1
    assert checked >= 3


def test_a_twin_changes_some_secret() -> None:
    """The no-peek test has teeth: the twins it compares really differ in hidden cards."""
    game = games()["wahlspiel"]
    state = _states(game, 4, b"teeth", every=11)[2]
    twin = game.secret_twin(state, 1, Rng(b"twin"))
    assert game.dump_state(twin) != game.dump_state(state)


@pytest.mark.parametrize("kind", sorted(games()))
def test_a_greedy_rollout_search_ignores_the_other_seats_secrets(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The search with heuristic-guided playouts (every seat plays the heuristic's one-ply
    choice on a drawn table) still decides from the seat's own view only."""
    monkeypatch.setitem(search.TUNING, kind, search.Tuning(depth=3, width=4, greedy_rollout=0.2, rollout_sample=3))
    game = games()[kind]
    bot = make_bot("strong", Budget(iterations=8, seconds=5.0))
    checked = 0
    for number, state in enumerate(_states(game, 4, f"rollout/{kind}".encode(), every=9)[:2]):
        seat = min(game.to_act(state))
        move = decide(game, state, seat, bot, Rng(b"decide", number))
        for other in (s for s in range(game.seat_count(state.options)) if s != seat):
            twin = game.secret_twin(state, other, Rng(b"twin", number * 10 + other))
            assert decide(game, twin, seat, bot, Rng(b"decide", number)) == move
            checked += 1
    assert checked >= 3


def test_wahlspiel_heuristic_values_a_voter_by_the_candidates_it_backs() -> None:
    """In the Federal Council round a voter card backing one of the party's own candidates is worth
    more than one backing none of them; the one candidate elected decides, so votes on the
    party's best candidate count more than the same votes spread."""
    game = games()["wahlspiel"]
    # A party in the Federal Council round with two candidates: its own and a national councillor.
    state = next(s for s in _states(game, 4, b"heuristic", every=1) if s.round == 3 and s.step == "VOTING"
                 and sum(c.in_race and c.party == s.current for c in s.candidates) >= 2)
    party = state.current
    mine = [c for c in state.candidates if c.in_race and c.party == party]
    backing = next(card for card in sorted(VOTERS) if any(VOTERS[card].condition.matches(POLITICIANS[c.politician]) for c in mine))
    idle = next(card for card in sorted(VOTERS) if not any(VOTERS[card].condition.matches(POLITICIANS[c.politician]) for c in mine))
    parties = list(state.parties)
    with_backing = replace(state, parties=tuple(replace(p, voters=(backing,)) if i == party else p for i, p in enumerate(parties)))
    with_idle = replace(state, parties=tuple(replace(p, voters=(idle,)) if i == party else p for i, p in enumerate(parties)))
    assert heuristics.wahlspiel(with_backing)[party] > heuristics.wahlspiel(with_idle)[party]
    first, second = mine[0].politician, mine[1].politician

    def votes(a: int, b: int) -> Any:
        return replace(state, candidates=tuple(
            replace(c, votes=a if c.politician == first else b if c.politician == second else c.votes)
            for c in state.candidates))

    assert heuristics.wahlspiel(votes(4, 0))[party] > heuristics.wahlspiel(votes(2, 2))[party]
