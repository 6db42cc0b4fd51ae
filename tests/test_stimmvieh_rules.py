"""Stimmvieh rules, checked against the rulebook's worked examples and printed rules."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from hustings.engine import EngineError, Rng
from hustings.engine.stimmvieh import GAME, ChooseTopCandidates, PlayPolitician, StimmviehOptions
from hustings.engine.stimmvieh.content import CONTENT, DONATION, VOTE, Card
from hustings.engine.stimmvieh.model import (
    CAMPAIGN,
    AngelusCardPassed,
    CampaignStarted,
    DisplayRefilled,
    ElectionNight,
    PartyState,
    PoliticianPlayed,
    StartPlayerChosen,
    StimmviehState,
    TopCandidatesChosen,
    deck,
)
from hustings.engine.stimmvieh.rules import choose_start_party
from hustings.engine.stimmvieh.scoring import doubling_parties, election_night, shared_ranks

CARDS = deck()
KARIN, DANIEL, HOLGER, GISELA = 0, 1, 2, 3


def table(
    display: tuple[str, ...],
    vote_stack: tuple[str, ...] = ("V01", "V02"),
    donation_stack: tuple[str, ...] = ("D01", "D02"),
    players: int = 4,
    current: int = GISELA,
    start: int = 0,
    parties: dict[int, PartyState] | None = None,
    **options: Any,
) -> StimmviehState:
    """A campaign in round 1 with the given display and stacks; every party holds top candidates
    1-4 and backbenchers 5-9 unless ``parties`` says otherwise."""
    base = PartyState(top_candidates=(1, 2, 3, 4), backbenchers=(5, 6, 7, 8, 9))
    all_parties = [(parties or {}).get(p, base) for p in range(4)]
    return StimmviehState(
        options=StimmviehOptions(players, **options),
        campaign=1,
        phase=CAMPAIGN,
        round=1,
        parties=tuple(all_parties),
        display=display,
        vote_stack=vote_stack,
        donation_stack=donation_stack,
        start_party=start,
        current_party=current,
        angelus_holder=start if players == 3 else None,
    )


def payloads(events: list[Any], kind: type) -> list[Any]:
    return [e.payload for e in events if isinstance(e.payload, kind)]


def rejects(state: StimmviehState, seat: int, move: Any, reason: str) -> None:
    """The move is rejected with ``reason`` and the state is unchanged."""
    before = GAME.dump_state(state)
    with pytest.raises(EngineError) as caught:
        GAME.apply(state, seat, move, Rng(b"x"))
    assert caught.value.reason == reason
    assert GAME.dump_state(state) == before


# --- election night (rulebook examples) ----------------------------------------------------------


def vote_cards(*ids: str) -> tuple[Card, ...]:
    return tuple(CARDS[i] for i in ids)


def donation(amount: int) -> tuple[Card, ...]:
    return (Card("DX", DONATION, amount, 1, "example"),)


def test_election_night_example() -> None:
    karin = vote_cards("V15", "V16", "V07", "V05")  # 35 + 35 + 20 + 15 = 105
    daniel = vote_cards("V17", "V12", "V09", "V03")  # 40 + 25 + 15 + 10 = 90, influence 9+7+5+2
    holger = vote_cards("V13", "V11", "V08", "V06")  # 30 + 25 + 20 + 15 = 90, influence 7+6+5+4
    gisela = vote_cards("V14")  # 30
    record = election_night(
        1, [(karin, donation(340)), (daniel, donation(430)), (holger, donation(370)), (gisela, donation(780))]
    )
    by_party = record.results
    assert [r.votes for r in by_party] == [105, 90, 90, 30]
    assert by_party[DANIEL].vote_influence == 23 and by_party[HOLGER].vote_influence == 22
    assert [r.doubled for r in by_party] == [True, False, True, False]


def test_counting_donations_example() -> None:
    karin = vote_cards("V15", "V16", "V07", "V05")
    daniel = vote_cards("V17", "V12", "V09", "V03")
    holger = vote_cards("V13", "V11", "V08", "V06")
    gisela = vote_cards("V14")
    record = election_night(
        1, [(karin, donation(340)), (daniel, donation(430)), (holger, donation(370)), (gisela, donation(780))]
    )
    results = record.results
    assert [r.final_donations for r in results] == [680, 430, 740, 780]
    assert [r.rank for r in results] == [3, 4, 2, 1]
    assert [r.points for r in results] == [2, 1, 3, 5]


def test_doubling_ties() -> None:
    # Tied on votes and influence across the boundary: all involved double.
    assert doubling_parties([50, 40, 40, 10], [5, 6, 6, 1]) == {0, 1, 2}
    # Three tied for first: all three double.
    assert doubling_parties([40, 40, 40, 10], [6, 6, 6, 1]) == {0, 1, 2}
    # Tie below the two places does not matter.
    assert doubling_parties([50, 45, 10, 10], [5, 6, 1, 1]) == {0, 1}
    # Less influence wins the tie for the second place.
    assert doubling_parties([50, 40, 40, 10], [5, 7, 6, 1]) == {0, 2}
    # A party without votes never doubles.
    assert doubling_parties([50, 0, 0, 0], [5, 0, 0, 0]) == {0}
    assert doubling_parties([0, 0, 0, 0], [0, 0, 0, 0]) == frozenset()


def test_doubling_with_moderator() -> None:
    # ALTERNATIVE 2: the tied party closest to the moderator (moderator first) wins; no influence.
    assert doubling_parties([50, 40, 40, 10], [5, 7, 6, 1], moderator_party=1) == {0, 1}
    assert doubling_parties([50, 40, 40, 10], [5, 6, 7, 1], moderator_party=2) == {0, 2}
    assert doubling_parties([40, 40, 40, 10], [6, 6, 6, 1], moderator_party=3) == {0, 1}
    assert doubling_parties([40, 40, 40, 10], [6, 6, 6, 1], moderator_party=2) == {0, 2}


def test_shared_places_and_points() -> None:
    assert shared_ranks([500, 500, 300, 100]) == [1, 1, 3, 4]
    assert shared_ranks([100, 300, 300, 300]) == [4, 1, 1, 1]
    assert shared_ranks([500, 500, 300, 100], moderator_party=1) == [2, 1, 3, 4]
    record = election_night(
        1, [((), donation(500)), ((), donation(500)), ((), donation(300)), ((), donation(300))]
    )
    assert [r.points for r in record.results] == [5, 5, 2, 2]


# --- taking cards ---------------------------------------------------------------------------------


def by_influence(kind: str, influence: int) -> str:
    return next(c.card_id for c in CARDS.values() if c.kind == kind and c.influence == influence)


def test_gisela_takes_dazebook_with_a_backbencher() -> None:
    dazebook = next(c for c in CARDS.values() if c.label == "Dazebook Inc.")
    assert dazebook.amount == 60
    eight, nine = by_influence(DONATION, 8), by_influence(VOTE, 9)
    display = (dazebook.card_id, eight, nine, by_influence(VOTE, 7))
    state = table(display, vote_stack=("V17", "V02"), donation_stack=("D24", "D01"))
    # An influence-7 politician may take cards of influence 1..7, not 8 or 9.
    sevens = {m.take_card_id for m in GAME.legal_moves(state, GISELA) if m.influence == 7}
    assert sevens == {dazebook.card_id, display[3]}
    rejects(state, GISELA, PlayPolitician(7, eight), "INFLUENCE_TOO_LOW")
    rejects(state, GISELA, PlayPolitician(7, nine), "INFLUENCE_TOO_LOW")
    # The visible tops of the stacks may not be taken.
    rejects(state, GISELA, PlayPolitician(9, "V17"), "CARD_NOT_ON_DISPLAY")
    rejects(state, GISELA, PlayPolitician(9, "D24"), "CARD_NOT_ON_DISPLAY")
    after, events = GAME.apply(state, GISELA, PlayPolitician(7, dazebook.card_id), Rng(b"x"))
    assert after.parties[GISELA].donations == (dazebook.card_id,)
    assert 7 not in after.parties[GISELA].backbenchers
    assert after.backbencher_discards == (7,)
    # A backbencher refills from the donation stack.
    assert after.display == ("D24", eight, nine, display[3])
    assert after.donation_stack == ("D01",) and after.vote_stack == state.vote_stack
    [refilled] = payloads(events, DisplayRefilled)
    assert refilled.card.card_id == "D24" and refilled.new_stack_top.card_id == "D01"
    [played] = payloads(events, PoliticianPlayed)
    assert (played.party, played.influence, played.top_candidate, played.taken, played.decided_by) == (
        GISELA, 7, False, dazebook, GISELA
    )


def test_top_candidate_refills_from_the_vote_stack() -> None:
    display = ("D01", "D02", "D03", "D04")
    state = table(display, vote_stack=("V05", "V06"), donation_stack=("D10",))
    after, events = GAME.apply(state, GISELA, PlayPolitician(1, "D02"), Rng(b"x"))
    assert after.display == ("D01", "V05", "D03", "D04")
    assert after.vote_stack == ("V06",) and after.donation_stack == ("D10",)
    assert after.top_candidate_discards == (1,)
    assert payloads(events, DisplayRefilled)[0].card.card_id == "V05"


def test_empty_stack_gives_way_to_the_other() -> None:
    display = ("D01", "D02", "D03", "D04")
    state = table(display, vote_stack=(), donation_stack=("D10",))
    after, events = GAME.apply(state, GISELA, PlayPolitician(1, "D02"), Rng(b"x"))
    assert after.display == ("D01", "D10", "D03", "D04") and after.donation_stack == ()
    assert payloads(events, DisplayRefilled)[0].new_stack_top is None
    state = table(display, vote_stack=(), donation_stack=())
    after, events = GAME.apply(state, GISELA, PlayPolitician(1, "D02"), Rng(b"x"))
    assert after.display == ("D01", "D03", "D04") and not payloads(events, DisplayRefilled)


def test_must_take_a_card_if_able() -> None:
    state = table(("D01", "D10", "D20", "D24"))
    rejects(state, GISELA, PlayPolitician(5, ""), "MUST_TAKE_CARD")
    assert all(m.take_card_id for m in GAME.legal_moves(state, GISELA))


def test_too_weak_politician_takes_nothing_and_does_not_refill() -> None:
    display = (by_influence(DONATION, 5), by_influence(DONATION, 6), by_influence(VOTE, 8), by_influence(VOTE, 9))
    state = table(display)
    weak = [m for m in GAME.legal_moves(state, GISELA) if m.influence < 5]
    assert weak == [PlayPolitician(i, "") for i in (1, 2, 3, 4)]
    rejects(state, GISELA, PlayPolitician(2, display[0]), "INFLUENCE_TOO_LOW")
    after, events = GAME.apply(state, GISELA, PlayPolitician(2, ""), Rng(b"x"))
    assert after.display == display
    assert after.vote_stack == state.vote_stack and after.donation_stack == state.donation_stack
    assert after.parties[GISELA].votes == () and after.parties[GISELA].donations == ()
    assert [type(e.payload) for e in events] == [PoliticianPlayed]
    assert events[0].payload.taken is None


def test_turn_errors_leave_the_state_unchanged() -> None:
    state = table(("D01", "D02", "D03", "D04"))
    rejects(state, KARIN, PlayPolitician(5, "D01"), "NOT_YOUR_TURN")
    rejects(state, 7, PlayPolitician(5, "D01"), "NOT_YOUR_TURN")
    gone = replace(state.parties[GISELA], backbenchers=(6, 7, 8, 9))
    missing = replace(state, parties=state.parties[:3] + (gone,))
    rejects(missing, GISELA, PlayPolitician(5, "D01"), "POLITICIAN_NOT_AVAILABLE")
    rejects(state, GISELA, PlayPolitician(5, "D99"), "UNKNOWN_CARD")
    rejects(state, GISELA, PlayPolitician(10, "D01"), "BAD_INFLUENCE")
    rejects(state, GISELA, ChooseTopCandidates((1, 2, 3, 4)), "WRONG_PHASE")
    rejects(state, GISELA, "not a move", "UNKNOWN_MOVE")


# --- setup, choosing and the start player --------------------------------------------------------


def test_setup_deals_the_display_and_stacks() -> None:
    state = GAME.setup(StimmviehOptions(4), Rng(b"setup"))
    assert len(state.display) == 4 and all(CARDS[c].kind == DONATION for c in state.display)
    assert len(state.vote_stack) == 17 and len(state.donation_stack) == 20
    assert GAME.to_act(state) == {0, 1, 2, 3}
    assert len(GAME.legal_moves(state, 0)) == 126


def test_choosing_is_secret_and_simultaneous() -> None:
    rng = Rng(b"choose")
    state = GAME.setup(StimmviehOptions(4), rng)
    rejects(state, 0, PlayPolitician(5, ""), "WRONG_PHASE")
    rejects(state, 0, ChooseTopCandidates((1, 2, 3)), "BAD_TOP_CANDIDATES")
    rejects(state, 0, ChooseTopCandidates((1, 1, 2, 3)), "BAD_TOP_CANDIDATES")
    rejects(state, 0, ChooseTopCandidates((0, 1, 2, 3)), "BAD_TOP_CANDIDATES")
    state, events = GAME.apply(state, 2, ChooseTopCandidates((9, 1, 5, 3)), rng)
    [dealt, event] = events  # the game's first decision also logs the first campaign's deal
    assert isinstance(dealt.payload, CampaignStarted) and dealt.payload.campaign == 1
    assert event.for_seat(2) == TopCandidatesChosen(2, (1, 3, 5, 9))
    assert event.for_seat(0) == TopCandidatesChosen(2) and event.for_seat(None) == TopCandidatesChosen(2)
    assert GAME.to_act(state) == {0, 1, 3}
    rejects(state, 2, ChooseTopCandidates((1, 2, 3, 4)), "ALREADY_CHOSEN")
    assert GAME.legal_moves(state, 2) == []
    for seat, choice in ((0, (1, 2, 3, 4)), (1, (2, 3, 4, 5))):
        state, _ = GAME.apply(state, seat, ChooseTopCandidates(choice), rng)
    state, events = GAME.apply(state, 3, ChooseTopCandidates((6, 7, 8, 9)), rng)
    [start] = payloads(events, StartPlayerChosen)
    assert (start.party, start.reason) == (3, "HIGHEST_TOTAL")
    assert GAME.to_act(state) == {3} and state.round == 1
    assert state.parties[3].backbenchers == (1, 2, 3, 4, 5)


def test_start_player_highest_then_lowest() -> None:
    rng = Rng(b"start")
    hands = [(5, 6, 7, 8, 9)] * 4
    assert choose_start_party([30, 20, 10, 12], hands, False, None, rng)[:2] == (0, "HIGHEST_TOTAL")
    # Highest tied: the lowest total starts, even outside the tie (printed).
    assert choose_start_party([30, 30, 10, 12], hands, False, None, rng)[:2] == (2, "LOWEST_TOTAL_AFTER_TIE")


def test_start_player_lowest_tied_flips_backbenchers() -> None:
    hands = [(1, 2, 3, 4, 5), (5, 6, 7, 8, 9), (2, 3, 4, 6, 9), (1, 2, 3, 4, 5)]
    for n in range(30):
        party, reason, flips = choose_start_party([30, 30, 10, 10], hands, False, None, Rng(b"flip", n))
        assert reason == "TIE_FLIP" and party in (2, 3)
        assert {f.party for f in flips} == {2, 3}
        last = {f.party: f.influence for f in flips}
        assert last[party] == max(last.values())


def test_start_player_identical_backbenchers_terminates() -> None:
    hands = [(1, 2, 3, 4, 5)] * 4
    seen = set()
    for n in range(40):
        party, reason, flips = choose_start_party([10, 10, 10, 10], hands, False, None, Rng(b"same", n))
        assert reason == "TIE_FLIP" and len(flips) <= 20
        seen.add(party)
    assert len(seen) > 1


def test_start_player_right_of_angelus() -> None:
    hands = [(5, 6, 7, 8, 9)] * 4
    assert choose_start_party([10, 12, 14, 30], hands, True, None, Rng(b"a"))[:2] == (2, "RIGHT_OF_ANGELUS")
    assert choose_start_party([30, 30, 14, 10], hands, True, None, Rng(b"a"))[:2] == (2, "RIGHT_OF_ANGELUS")
    assert choose_start_party([10, 12, 14, 30], hands, False, None, Rng(b"a"))[:2] == (3, "HIGHEST_TOTAL")


def test_start_player_moderator_order() -> None:
    hands = [(5, 6, 7, 8, 9)] * 4
    assert choose_start_party([30, 30, 10, 30], hands, False, 1, Rng(b"m"))[:2] == (1, "MODERATOR_ORDER")
    assert choose_start_party([30, 30, 10, 30], hands, False, 2, Rng(b"m"))[:2] == (3, "MODERATOR_ORDER")
    assert choose_start_party([30, 12, 10, 30], hands, False, 1, Rng(b"m"))[:2] == (3, "MODERATOR_ORDER")
    assert choose_start_party([30, 12, 10, 30], hands, True, 1, Rng(b"m"))[:2] == (2, "RIGHT_OF_ANGELUS")
    assert choose_start_party([30, 12, 10, 11], hands, False, 1, Rng(b"m"))[:2] == (0, "HIGHEST_TOTAL")


def test_three_players_reveal_angelus_and_give_the_card() -> None:
    rng = Rng(b"three")
    state = GAME.setup(StimmviehOptions(3), rng)
    assert GAME.to_act(state) == {0, 1, 2}
    for seat, choice in ((0, (1, 2, 3, 4)), (1, (2, 3, 4, 5)), (2, (1, 2, 3, 5))):
        state, events = GAME.apply(state, seat, ChooseTopCandidates(choice), rng)
    angelus = state.parties[3]
    assert len(angelus.top_candidates) == 4 and len(angelus.backbenchers) == 5
    assert sum(angelus.top_candidates) >= 10
    [start] = payloads(events, StartPlayerChosen)
    # Angelus' lowest possible total is 10; she or party 2 (lowest) decides, or the highest human.
    assert start.angelus_holder == start.party == state.start_party == state.angelus_holder
    assert start.party in (0, 1, 2)


def test_angelus_card_passes_to_the_left() -> None:
    state = table(("D01", "D02", "D03", "D04"), players=3, current=3, start=1)
    assert state.angelus_holder == 1 and GAME.to_act(state) == {1}
    rejects(state, 0, PlayPolitician(5, "D01"), "NOT_YOUR_TURN")
    after, events = GAME.apply(state, 1, PlayPolitician(5, "D01"), Rng(b"x"))
    assert after.parties[3].donations == ("D01",)
    assert payloads(events, PoliticianPlayed)[0].decided_by == 1
    assert payloads(events, AngelusCardPassed) == [AngelusCardPassed(2)]
    assert after.angelus_holder == 2 and after.current_party == 0
    state = replace(state, angelus_holder=2)
    after, _ = GAME.apply(state, 2, PlayPolitician(5, "D01"), Rng(b"x"))
    assert after.angelus_holder == 0


def test_rounds_advance_at_the_start_party() -> None:
    state = table(("D01", "D02", "D03", "D04"), current=1, start=2)
    after, _ = GAME.apply(state, 1, PlayPolitician(1, "D01"), Rng(b"x"))
    assert (after.current_party, after.round) == (2, 2)


# --- several campaigns, custom vote card, options --------------------------------------------------


def play_out(options: StimmviehOptions, seed: bytes) -> tuple[Any, list[Any]]:
    rng, chooser = Rng(seed), Rng(b"c" + seed)
    state = GAME.setup(options, rng)
    all_events: list[Any] = []
    while not GAME.is_over(state):
        seat = min(GAME.to_act(state))
        state, events = GAME.apply(state, seat, chooser.choice(GAME.legal_moves(state, seat)), rng)
        all_events += events
    return state, all_events


def test_several_campaigns_score_points() -> None:
    state, events = play_out(StimmviehOptions(4, campaigns=3), b"three campaigns")
    nights = payloads(events, ElectionNight)
    assert [n.record.campaign for n in nights] == [1, 2, 3]
    totals = [sum(n.record.results[p].points for n in nights) for p in range(4)]
    for night in nights:
        for result in night.record.results:
            assert result.points == (5, 3, 2, 1)[result.rank - 1]
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert {p.seat: p.score for p in outcome.placings} == dict(enumerate(totals))
    assert [p.rank for p in outcome.placings] == sorted(shared_ranks(totals))
    assert [p.campaign_points for p in state.parties] == totals


def test_one_campaign_outcome_is_final_donations_with_angelus() -> None:
    state, events = play_out(StimmviehOptions(3), b"angelus game")
    [night] = payloads(events, ElectionNight)
    outcome = GAME.outcome(state)
    assert outcome is not None
    angelus = [p for p in outcome.placings if p.seat is None]
    assert len(angelus) == 1 and angelus[0].name == "Angelus"
    assert {p.name: p.score for p in outcome.placings}["Angelus"] == night.record.results[3].final_donations


def test_custom_vote_card_replaces_a_card() -> None:
    options = StimmviehOptions(4, custom_slogan="Hay for all!", custom_replaces="V07")
    state = GAME.setup(options, Rng(b"custom"))
    assert "V00" in state.vote_stack and "V07" not in state.vote_stack and len(state.vote_stack) == 17
    card = deck("Hay for all!", "V07")["V00"]
    assert (card.amount, card.influence, card.label, card.kind) == (CARDS["V07"].amount, CARDS["V07"].influence, "Hay for all!", VOTE)


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        (StimmviehOptions(2), "BAD_PLAYER_COUNT"),
        (StimmviehOptions(5), "BAD_PLAYER_COUNT"),
        (StimmviehOptions(4, campaigns=0), "BAD_CAMPAIGNS"),
        (StimmviehOptions(4, campaigns=10), "BAD_CAMPAIGNS"),
        (StimmviehOptions(3, moderator=True, moderator_seat=3), "BAD_MODERATOR_SEAT"),
        (StimmviehOptions(4, moderator=True, moderator_seat=-1), "BAD_MODERATOR_SEAT"),
        (StimmviehOptions(4, moderator=False, moderator_seat=2), "BAD_MODERATOR_SEAT"),
        (StimmviehOptions(4, custom_slogan="x" * 61, custom_replaces="V01"), "BAD_CUSTOM_VOTE_CARD"),
        (StimmviehOptions(4, custom_slogan="tab\there", custom_replaces="V01"), "BAD_CUSTOM_VOTE_CARD"),
        (StimmviehOptions(4, custom_slogan="   ", custom_replaces="V01"), "BAD_CUSTOM_VOTE_CARD"),
        (StimmviehOptions(4, custom_slogan="ok", custom_replaces="V18"), "BAD_CUSTOM_VOTE_CARD"),
        (StimmviehOptions(4, custom_slogan="ok", custom_replaces="D01"), "BAD_CUSTOM_VOTE_CARD"),
        (StimmviehOptions(4, custom_slogan="", custom_replaces="V01"), "BAD_CUSTOM_VOTE_CARD"),
    ],
)
def test_bad_options(options: StimmviehOptions, reason: str) -> None:
    with pytest.raises(EngineError) as caught:
        GAME.setup(options, Rng(b"x"))
    assert caught.value.reason == reason


def test_a_finished_game_accepts_no_moves() -> None:
    state, _ = play_out(StimmviehOptions(4), b"over")
    rejects(state, 0, PlayPolitician(1, ""), "GAME_OVER")
    rejects(state, 0, ChooseTopCandidates((1, 2, 3, 4)), "GAME_OVER")


def test_content_party_names() -> None:
    assert len(set(CONTENT.party_names)) == 4 and CONTENT.angelus_name == "Angelus"
