"""Stimmvieh's determinization and what it may redeal of a party's hand.

Every party holds one politician of each influence 1 to 9; after the reveal its top candidates lie
face up and every politician it plays goes face up on a discard pile (``PoliticianPlayed``, a
public event naming the party). So from the reveal on each party's backbenchers are known to the
whole table: 1..9 less its top candidates (played or not) less the backbenchers it played. A
sample may not hand a party a politician it has already played, nor any other hand than that one.
"""

from __future__ import annotations

from hustings.engine import Rng
from hustings.engine.base import sampler
from hustings.engine.stimmvieh import GAME, StimmviehOptions, StimmviehState
from hustings.engine.stimmvieh.codec import table_from_proto
from hustings.engine.stimmvieh.model import CAMPAIGN, CHOOSING, POLITICIANS, PoliticianPlayed, TopCandidatesRevealed
from hustings.v1 import game_pb2

SAMPLE = sampler(GAME)
SAMPLES = 4  # per state and seat
MAX_STEPS = 400
OPTION_SETS = [StimmviehOptions(4), StimmviehOptions(3, campaigns=2)]


def _game(options: StimmviehOptions, seed: bytes) -> list[tuple[StimmviehState, dict[int, list[int]], dict[int, tuple[int, ...]]]]:
    """Every state of a random game, with what the table saw of each party this campaign: the
    politicians it played, in order, and its top candidates as revealed."""
    rng, chooser = Rng(b"deal" + seed), Rng(b"choose" + seed)
    state = GAME.setup(options, rng)
    played: dict[int, list[int]] = {p: [] for p in range(4)}
    revealed: dict[int, tuple[int, ...]] = {}
    trail = []
    for _ in range(MAX_STEPS):
        if GAME.is_over(state):
            return trail
        seat = chooser.choice(sorted(GAME.to_act(state)))
        state, events = GAME.apply(state, seat, chooser.choice(GAME.legal_moves(state, seat)), rng)
        for event in events:
            if isinstance(event.payload, TopCandidatesRevealed):
                played = {p: [] for p in range(4)}
                revealed = {r.party: r.influences for r in event.payload.parties}
            elif isinstance(event.payload, PoliticianPlayed):
                played[event.payload.party].append(event.payload.influence)
        if state.phase == CHOOSING:  # a new campaign: every politician back in hand
            played, revealed = {p: [] for p in range(4)}, {}
        trail.append((state, {p: list(v) for p, v in played.items()}, dict(revealed)))
    raise AssertionError("the game did not end within the step bound")


def test_what_the_table_saw_names_every_hand() -> None:
    # The premise, from the public events alone: 1..9 less the revealed top candidates less the
    # backbenchers played is each party's hand at every turn.
    checked = 0
    for number, options in enumerate(OPTION_SETS):
        for state, played, revealed in _game(options, b"premise%d" % number):
            if state.phase != CAMPAIGN:
                continue
            for party in range(4):
                known = [p for p in POLITICIANS if p not in revealed[party] and p not in played[party]]
                assert tuple(known) == state.parties[party].backbenchers
                checked += 1
    assert checked > 2 * 4 * 30, checked


def test_a_sample_never_hands_a_party_a_politician_it_has_played() -> None:
    wrong: list[str] = []
    checked = 0
    for number, options in enumerate(OPTION_SETS):
        trail = _game(options, b"sampling%d" % number)
        for step, (state, played, _) in enumerate(trail[::3]):
            if state.phase == CHOOSING:
                continue
            for seat in range(options.players):
                for k in range(SAMPLES):
                    drawn = SAMPLE(state, seat, Rng(b"s%d/%d" % (step, seat), k))
                    for party in range(4):
                        again = sorted(set(drawn.parties[party].backbenchers) & set(played[party]))
                        if again:
                            wrong.append(f"round {state.round}: party {party} given {again}, played {played[party]}")
                        checked += 1
    assert checked > 1000, checked
    assert not wrong, f"{len(wrong)} of {checked} sampled hands hold politicians already played, e.g. {wrong[:3]}"


def test_a_sample_hands_every_party_the_hand_the_table_knows() -> None:
    # After the reveal nothing of a hand is hidden, so every sample keeps every hand as it is;
    # the top candidates chosen but not yet revealed are still drawn anew.
    options = OPTION_SETS[0]
    trail = _game(options, b"hands")
    later = next(s for s, played, _ in trail if s.phase == CAMPAIGN and s.round == 4 and s.current_party == 2)
    choosing = next(s for s, _, _ in trail if s.phase == CHOOSING and len(GAME.to_act(s)) == 1)
    chosen_by_others = set()
    for k in range(16):
        drawn = SAMPLE(later, 0, Rng(b"later", k))
        assert [p.backbenchers for p in drawn.parties] == [p.backbenchers for p in later.parties]
        assert [p.top_candidates for p in drawn.parties] == [p.top_candidates for p in later.parties]
        drawn = SAMPLE(choosing, 0, Rng(b"choosing", k))
        chosen_by_others.add(tuple(p.chosen for p in drawn.parties[1:]))
    assert len(chosen_by_others) > 1


def test_every_seat_sees_what_each_party_has_played() -> None:
    # The view's ``played`` is what the table saw, the same for every seat and a spectator, and
    # its protobuf form reads back to it.
    checked = 0
    for number, options in enumerate(OPTION_SETS):
        for state, played, _ in _game(options, b"views%d" % number)[::2]:
            for viewer in [*range(options.players), None]:
                seen = GAME.view(state, viewer)
                assert [p.played for p in seen.parties] == [tuple(sorted(played[p])) for p in range(4)]
                out = game_pb2.GameView()
                GAME.view_to_proto(seen, out)
                assert [tuple(p.played) for p in out.stimmvieh.parties] == [p.played for p in seen.parties]
                assert table_from_proto(out.stimmvieh) == seen
                checked += 1
    assert checked > 100, checked
