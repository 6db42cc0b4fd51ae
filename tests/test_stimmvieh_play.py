"""Stimmvieh invariants over random games: cards are conserved, nine rounds per campaign, every
politician is played exactly once, and ``apply`` accepts exactly the listed moves."""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hustings.engine import EngineError, Rng
from hustings.engine.stimmvieh import GAME, ChooseTopCandidates, PlayPolitician, StimmviehOptions
from hustings.engine.stimmvieh.model import (
    CHOOSING,
    AngelusCardPassed,
    CampaignStarted,
    ElectionNight,
    PoliticianPlayed,
    StimmviehState,
    deck_of,
)

OPTION_SETS = [
    StimmviehOptions(3),
    StimmviehOptions(4),
    StimmviehOptions(3, moderator=True, moderator_seat=2, campaigns=2),
    StimmviehOptions(4, campaigns=2, custom_slogan="Hay for all!", custom_replaces="V05"),
]
TOTAL_CARDS = 41


def card_count(state: StimmviehState) -> Counter[str]:
    cards: Counter[str] = Counter(state.display + state.vote_stack + state.donation_stack)
    for party in state.parties:
        cards.update(party.votes + party.donations)
    return cards


def play(options: StimmviehOptions, seed: bytes) -> tuple[list[StimmviehState], list[tuple[int, Any, list[Any]]]]:
    rng, chooser = Rng(seed), Rng(b"choose" + seed)
    state = GAME.setup(options, rng)
    states, steps = [state], []
    while not GAME.is_over(state):
        seat = chooser.choice(sorted(GAME.to_act(state)))
        move = chooser.choice(GAME.legal_moves(state, seat))
        state, events = GAME.apply(state, seat, move, rng)
        states.append(state)
        steps.append((seat, move, events))
    return states, steps


def test_cards_are_conserved_and_unique() -> None:
    for n, options in enumerate(OPTION_SETS * 3):
        states, _ = play(options, b"conserve%d" % n)
        ids = set(deck_of(options))
        for state in states:
            counted = card_count(state)
            assert sum(counted.values()) == TOTAL_CARDS and set(counted) == ids
            assert len(state.display) == 4


def test_nine_rounds_and_every_politician_once() -> None:
    for n, options in enumerate(OPTION_SETS * 3):
        states, steps = play(options, b"rounds%d" % n)
        campaigns: list[list[PoliticianPlayed]] = []  # every campaign, the first too, opens with CampaignStarted
        passes = 0
        for seat, _, events in steps:
            for event in events:
                payload = event.payload
                if isinstance(payload, PoliticianPlayed):
                    campaigns[-1].append(payload)
                    expected = seat if not (options.players == 3 and payload.party == 3) else payload.decided_by
                    assert payload.decided_by == expected
                elif isinstance(payload, CampaignStarted):
                    campaigns.append([])
                elif isinstance(payload, AngelusCardPassed):
                    passes += 1
        assert len(campaigns) == options.campaigns
        for played in campaigns:
            assert len(played) == 36
            for party in range(4):
                mine = [p.influence for p in played if p.party == party]
                assert sorted(mine) == list(range(1, 10))
            # Turn order: nine rounds of the four parties from the start party.
            start = played[0].party
            assert [p.party for p in played] == [(start + i) % 4 for i in range(36)]
        assert passes == (9 * options.campaigns if options.players == 3 else 0)
        rounds = [s.round for s in states]
        assert max(rounds) == 9 and all(b - a in (0, 1) or b == 0 for a, b in zip(rounds, rounds[1:]))
        nights = [e.payload for _, _, events in steps for e in events if isinstance(e.payload, ElectionNight)]
        assert len(nights) == options.campaigns


def reachable_states() -> list[StimmviehState]:
    states: list[StimmviehState] = []
    for n, options in enumerate(OPTION_SETS):
        played, _ = play(options, b"reach%d" % n)
        states.extend(played[:: 3])
    return states


STATES = reachable_states()
CARD_IDS = sorted(set(deck_of(OPTION_SETS[0])) | {"V00", "", "X", "D99"})


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    index=st.integers(0, len(STATES) - 1),
    seat=st.integers(-1, 4),
    influence=st.integers(-1, 11),
    card=st.sampled_from(CARD_IDS),
)
def test_apply_accepts_exactly_the_listed_plays(index: int, seat: int, influence: int, card: str) -> None:
    state = STATES[index]
    move = PlayPolitician(influence, card)
    listed = seat in range(state.options.players) and move in GAME.legal_moves(state, seat)
    before = GAME.dump_state(state)
    try:
        GAME.apply(state, seat, move, Rng(b"h"))
        accepted = True
    except EngineError:
        accepted = False
    assert accepted == listed
    assert GAME.dump_state(state) == before


@settings(max_examples=200, deadline=None, derandomize=True)
@given(index=st.integers(0, len(STATES) - 1), seat=st.integers(0, 3), choice=st.lists(st.integers(-1, 10), max_size=6))
def test_apply_accepts_exactly_the_listed_choices(index: int, seat: int, choice: list[int]) -> None:
    state = STATES[index]
    move = ChooseTopCandidates(tuple(choice))
    canonical = ChooseTopCandidates(tuple(sorted(choice)))
    listed = seat < state.options.players and canonical in GAME.legal_moves(state, seat)
    try:
        GAME.apply(state, seat, move, Rng(b"h"))
        accepted = True
    except EngineError:
        accepted = False
    assert accepted == listed
    assert accepted == (state.phase == CHOOSING and seat < state.options.players and not state.parties[seat].chosen
                        and len(set(choice)) == 4 == len(choice) and all(1 <= v <= 9 for v in choice))
