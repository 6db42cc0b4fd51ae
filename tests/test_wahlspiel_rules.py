"""Wahlspiel rules, checked against the rulebook's printed rules and examples (issue 3, Acceptance)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

import pytest

from hustings.engine import EngineError, Event, IllegalMoveError, InvalidOptionsError, NotYourTurnError, Rng
from hustings.engine.wahlspiel import GAME, WahlspielOptions, WahlspielState
from hustings.engine.wahlspiel import turns
from hustings.engine.wahlspiel.content import CONTENT, BUNDESRAT, KANTONSRAT, Politician
from hustings.engine.wahlspiel.model import (
    ANSWERING,
    BALLOT,
    BUYING_VOTERS,
    CHANGING_CANDIDATE,
    CHOOSING_PARTNER,
    FINISHED,
    GOAL_VOTES,
    NOMINATING,
    OFFERING,
    RUNOFF,
    SENSATION,
    VOTING,
    AnswerTrade,
    BuyVoters,
    Candidate,
    CardsDrawn,
    CastVoter,
    ChangeCandidate,
    ChoosePartner,
    DieRolled,
    ElectionHeld,
    EventPlayed,
    GoalReached,
    GoalVote,
    Judge,
    Nominate,
    OfferTrade,
    Pass,
    PlayEvent,
    ProposeOffer,
    RunoffCardTurned,
    RunoffVotersRevealed,
    SendRunoffVoter,
    TradeOffered,
)

POLITICIANS = CONTENT.politicians
VOTERS = CONTENT.voters
EVENTS = CONTENT.events
GOAL_1, GOAL_2, GOAL_3 = CONTENT.goal_positions


def find(test: Callable[[Politician], bool], count: int = 1, exclude: tuple[str, ...] = ()) -> list[str]:
    """``count`` politicians (ids) that pass ``test``."""
    found = [p for p, politician in sorted(POLITICIANS.items()) if test(politician) and p not in exclude]
    assert len(found) >= count, "the content has too few such politicians for this test"
    return found[:count]


def voter_for(backs: str, not_backs: str) -> str:
    """A non-opinion voter card that backs ``backs`` and not ``not_backs``."""
    return next(
        card_id
        for card_id, voter in sorted(VOTERS.items())
        if not voter.opinion
        and voter.condition.matches(POLITICIANS[backs])
        and not voter.condition.matches(POLITICIANS[not_backs])
    )


def rolling(pips: int) -> Rng:
    """An Rng whose next die roll shows ``pips``."""
    for counter in range(1000):
        if Rng(b"die", counter).below(6) + 1 == pips:
            return Rng(b"die", counter)
    raise AssertionError("no such counter")


def table(
    players: int = 4,
    step: str = VOTING,
    current: int = 0,
    candidates: tuple[Candidate, ...] = (),
    hands: dict[int, tuple[tuple[str, ...], tuple[str, ...]]] | None = None,
    money: dict[int, int] | None = None,
    options: dict[str, Any] | None = None,
    **changes: Any,
) -> WahlspielState:
    """A dealt game with the given candidates, hands (voters, events) and money, waiting at ``step``."""
    state = GAME.setup(WahlspielOptions(players, **(options or {})), Rng(b"table"))
    parties = list(state.parties)
    standing = {c.politician for c in candidates}
    for i in range(players):  # each candidate's party owns the politician
        own = [p for p in parties[i].politicians if p not in standing]
        own += [c.politician for c in candidates if c.party == i]
        parties[i] = replace(parties[i], politicians=tuple(sorted(own)))
        if hands and i in hands:
            parties[i] = replace(parties[i], voters=tuple(sorted(hands[i][0])), events=tuple(sorted(hands[i][1])))
        if money and i in money:
            parties[i] = replace(parties[i], money=money[i])
    return replace(state, step=step, current=current, candidates=candidates, parties=tuple(parties), **changes)


def votes(state: WahlspielState) -> dict[str, int]:
    return {c.politician: c.votes for c in state.candidates}


def payloads(events: list[Event], kind: type, seat: int | None = None) -> list[Any]:
    return [e.for_seat(seat) for e in events if isinstance(e.payload, kind)]


# --- setup and options -------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_setup_deals_politicians_evenly_money_core_voters_and_events(players: int) -> None:
    state = GAME.setup(WahlspielOptions(players), Rng(b"deal"))
    share = 45 // players
    dealt = [p for party in state.parties for p in party.politicians]
    assert all(len(party.politicians) == share for party in state.parties)
    assert len(set(dealt)) == share * players  # the rest (45 mod players) is set aside
    assert all(party.money == (10000 if players == 3 else 6000) for party in state.parties)
    assert all(len(party.voters) == 4 and len(party.events) == 2 for party in state.parties)
    assert len(state.voter_stack) == 125 - 4 * players and len(state.event_stack) == 90 - 2 * players
    assert state.step == NOMINATING and GAME.to_act(state) == frozenset({0})
    assert len(GAME.legal_moves(state, 0)) == share


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        (WahlspielOptions(1), "BAD_PLAYER_COUNT"),
        (WahlspielOptions(7), "BAD_PLAYER_COUNT"),
        (WahlspielOptions(4, single_national_candidate=True), "BAD_VARIANT"),
    ],
)
def test_bad_options_are_refused(options: WahlspielOptions, reason: str) -> None:
    with pytest.raises(InvalidOptionsError) as error:
        GAME.setup(options, Rng(b"x"))
    assert error.value.reason == reason


@pytest.mark.parametrize(("players", "first_round"), [(2, 4), (3, 3), (4, 2), (6, 2)])
def test_each_party_names_its_candidates_in_turn_then_the_die_rolls(players: int, first_round: int) -> None:
    state = GAME.setup(WahlspielOptions(players), Rng(b"nominate"))
    rng = Rng(b"nominate-play")
    for party in range(players):
        for number in range(first_round):
            assert GAME.to_act(state) == frozenset({party}) and state.step == NOMINATING
            move = GAME.legal_moves(state, party)[0]
            state, events = GAME.apply(state, party, move, rng)
    assert len(state.candidates) == players * first_round
    assert all(c.votes == 0 and c.in_race for c in state.candidates)
    assert state.step != NOMINATING
    assert isinstance(events[1].payload, DieRolled) and events[1].payload.party == 0


def test_the_national_round_takes_one_candidate_per_party_with_the_variant() -> None:
    state = table(6, options={"single_national_candidate": True}, round=2)
    assert turns.candidates_required(state) == 1
    assert turns.candidates_required(replace(state, options=WahlspielOptions(6))) == 2
    assert turns.candidates_required(replace(state, round=3)) == 1


# --- moving ----------------------------------------------------------------------------------------------


def test_a_goal_need_not_be_reached_exactly_and_the_first_gets_two_votes() -> None:
    a, b = find(lambda p: True, 2)
    state = table(2, candidates=(Candidate(a, 0), Candidate(b, 1)))
    state = replace(state, parties=(replace(state.parties[0], position=GOAL_1 - 2), state.parties[1]))
    events: list[Event] = []
    state = turns.begin_turn(state, 0, rolling(6), events)
    assert state.parties[0].position == GOAL_1 and state.parties[0].arrived
    assert payloads(events, GoalReached) == [GoalReached(0, KANTONSRAT, True)]
    assert state.step == GOAL_VOTES and GAME.legal_moves(state, 0) == [GoalVote(a)]
    rng = Rng(b"goal")
    state, _ = GAME.apply(state, 0, GoalVote(a), rng)
    state, _ = GAME.apply(state, 0, GoalVote(a), rng)
    assert votes(state)[a] == 2 and state.first_arrived == 0


def test_bundesrat_needs_the_exact_count_and_surplus_pips_move_back() -> None:
    state = table(2, round=3)
    state = replace(state, parties=(replace(state.parties[0], position=GOAL_3 - 2), state.parties[1]))
    events: list[Event] = []
    bounced = turns.begin_turn(state, 0, rolling(5), events)
    assert payloads(events, DieRolled)[0] == DieRolled(0, 5, GOAL_3 - 2, GOAL_3 - 3, CONTENT.board[GOAL_3 - 3].kind, True)
    assert not bounced.parties[0].arrived
    events = []
    exact = turns.begin_turn(state, 0, rolling(2), events)
    assert exact.parties[0].position == GOAL_3 and exact.parties[0].arrived
    assert payloads(events, GoalReached)[0].goal == BUNDESRAT


def test_the_round_goes_on_until_every_party_has_arrived() -> None:
    a, b = find(lambda p: True, 2)
    state = table(2, candidates=(Candidate(a, 0, 3), Candidate(b, 1, 1)), first_arrived=0)
    state = replace(state, parties=(replace(state.parties[0], arrived=True, position=GOAL_1), state.parties[1]))
    events: list[Event] = []
    after = turns.end_turn(replace(state, current=0), Rng(b"go-on"), events)
    rolls = payloads(events, DieRolled)
    assert rolls and all(r.party == 1 for r in rolls)  # only the party still on its way rolls
    if not any(isinstance(e.payload, ElectionHeld) for e in events):
        assert after.candidates and after.round == 1  # candidates stay in the race meanwhile


def test_buying_voters_costs_1000_each_and_only_the_buyer_sees_them() -> None:
    state = table(3, step=BUYING_VOTERS, money={0: 3500})
    assert GAME.legal_moves(state, 0) == [BuyVoters(n) for n in range(4)]
    after, events = GAME.apply(state, 0, BuyVoters(3), Rng(b"buy"))
    assert after.parties[0].money == 500 and len(after.parties[0].voters) == len(state.parties[0].voters) + 3
    drawn = payloads(events, CardsDrawn, 0)[0]
    assert len(drawn.cards) == 3 and set(drawn.cards) <= set(after.parties[0].voters)
    seen_by_other = payloads(events, CardsDrawn, 1)[0]
    assert seen_by_other.cards == () and seen_by_other.voters == 3 and seen_by_other.cost == 3000


def test_a_prize_field_gives_its_prize_free() -> None:
    prize = next(i for i, f in enumerate(CONTENT.board) if f.kind == "prize" and f.prize_voters == 2 and i < GOAL_1)
    state = table(2)
    for pips in range(1, 7):
        state = replace(state, parties=(replace(state.parties[0], position=prize - pips), state.parties[1]))
        if prize - pips >= 0:
            break
    events: list[Event] = []
    after = turns.begin_turn(state, 0, rolling(pips), events)
    drawn = payloads(events, CardsDrawn, 0)[0]
    assert drawn.reason == "PRIZE" and drawn.voters == 2 and drawn.cost == 0
    assert after.parties[0].money == state.parties[0].money


def test_a_voting_field_is_skipped_without_voter_cards() -> None:
    voting = next(i for i, f in enumerate(CONTENT.board) if f.kind == "voting" and i < GOAL_1)
    state = table(2, hands={0: ((), ())})
    state = replace(state, parties=(replace(state.parties[0], position=voting - 1), state.parties[1]))
    events: list[Event] = []
    after = turns.begin_turn(state, 0, rolling(1), events)
    assert payloads(events, DieRolled)[1].party == 1  # the turn passed on at once
    assert after.current != 0 or after.step != VOTING


# --- voters ------------------------------------------------------------------------------------------


def test_a_voter_gives_one_vote_to_every_matching_candidate_of_any_party() -> None:
    both = find(lambda p: {"art", "homeland"} <= set(p.symbols))[0]
    art_only = find(lambda p: "art" in p.symbols and "homeland" not in p.symbols)[0]
    neither = find(lambda p: not {"art", "homeland"} & set(p.symbols))[0]
    state = table(
        3,
        candidates=(Candidate(both, 1, 4), Candidate(art_only, 2), Candidate(neither, 0)),
        hands={0: (("V061", "V001"), ())},
    )
    assert VOTERS["V061"].text == "votes for art and homeland"
    after, _ = GAME.apply(state, 0, CastVoter("V061"), Rng(b"vote"))
    assert votes(after) == {both: 5, art_only: 1, neither: 0}  # two matching symbols, still one vote
    assert after.step == VOTING and after.current == 0 and "V061" in after.ballot_box
    done, _ = GAME.apply(after, 0, Pass(), Rng(b"vote"))
    assert done.step != VOTING or done.current != 0


def test_a_ballot_on_a_matter_of_opinion_is_decided_by_the_majority_of_the_others() -> None:
    man_a, man_b = find(lambda p: p.sex == "m", 2)
    (woman,) = find(lambda p: p.sex == "f")
    state = table(
        4,
        candidates=(Candidate(man_a, 1), Candidate(man_b, 2), Candidate(woman, 3)),
        hands={0: (("V120", "V001"), ())},
    )
    assert VOTERS["V120"].opinion == "radiates authority"
    rng = Rng(b"ballot")
    state, _ = GAME.apply(state, 0, CastVoter("V120"), rng)
    assert state.step == BALLOT and GAME.to_act(state) == frozenset({1, 2, 3})  # not the caster
    assert state.ballot is not None and state.ballot.politicians == (man_a, man_b)
    with pytest.raises(NotYourTurnError):
        GAME.apply(state, 0, Judge(man_a, True), rng)
    for judge, (on_a, on_b) in {1: (True, False), 2: (True, True), 3: (False, False)}.items():
        state, _ = GAME.apply(state, judge, Judge(man_a, on_a), rng)
        state, events = GAME.apply(state, judge, Judge(man_b, on_b), rng)
    assert votes(state) == {man_a: 1, man_b: 0, woman: 0}  # 2 of 3 for A; 1 of 3 for B
    assert state.step == VOTING and state.current == 0 and state.ballot is None


def test_a_tied_show_of_hands_gives_no_vote() -> None:
    (man,) = find(lambda p: p.sex == "m")
    state = table(3, candidates=(Candidate(man, 1),), hands={0: (("V120",), ())})
    rng = Rng(b"tie")
    state, _ = GAME.apply(state, 0, CastVoter("V120"), rng)
    state, _ = GAME.apply(state, 1, Judge(man, True), rng)
    state, _ = GAME.apply(state, 2, Judge(man, False), rng)
    assert votes(state) == {man: 0}


# --- events ------------------------------------------------------------------------------------------


def test_half_is_rounded_up_five_votes_lose_three() -> None:
    (target,) = find(lambda p: True)
    state = table(2, step=SENSATION, candidates=(Candidate(target, 1, 5),), hands={0: ((), ("E44",))})
    assert "half" in EVENTS["E44"].text
    after, _ = GAME.apply(state, 0, PlayEvent("E44", (target,)), Rng(b"half"))
    assert votes(after) == {target: 2}


def test_an_event_about_a_woman_has_no_effect_when_no_woman_stands() -> None:
    men = find(lambda p: p.sex == "m", 2)
    state = table(2, step=SENSATION, candidates=(Candidate(men[0], 0, 1), Candidate(men[1], 1, 1)), hands={0: ((), ("E01",))})
    assert EVENTS["E01"].text.startswith("A woman writes a book")
    assert GAME.legal_moves(state, 0) == [PlayEvent("E01"), Pass()]
    after, events = GAME.apply(state, 0, PlayEvent("E01"), Rng(b"woman"))
    assert votes(after) == votes(state) and after.parties[0].money == state.parties[0].money
    assert payloads(events, EventPlayed)[0].effective is False


def test_the_woman_writes_a_book_example() -> None:
    (woman,) = find(lambda p: p.sex == "f")
    state = table(2, step=SENSATION, candidates=(Candidate(woman, 1, 3),), hands={0: ((), ("E01",))})
    assert PlayEvent("E01", (woman,)) in GAME.legal_moves(state, 0)
    after, _ = GAME.apply(state, 0, PlayEvent("E01", (woman,)), Rng(b"book"))
    assert votes(after) == {woman: 5} and after.parties[1].money == state.parties[1].money + 4000


def test_an_event_for_two_candidates_needs_two_with_the_property() -> None:
    (woman,) = find(lambda p: p.sex == "f")
    (man,) = find(lambda p: p.sex == "m")
    state = table(2, step=SENSATION, candidates=(Candidate(woman, 0), Candidate(man, 1)), hands={0: ((), ("E48",))})
    assert EVENTS["E48"].count == 2
    assert GAME.legal_moves(state, 0) == [PlayEvent("E48"), Pass()]
    after, _ = GAME.apply(state, 0, PlayEvent("E48"), Rng(b"two"))
    assert votes(after) == votes(state)


def test_money_never_goes_below_nothing() -> None:
    card = next(c for c, e in sorted(EVENTS.items()) if e.target == "party" and e.money <= -3000)
    state = table(2, step=SENSATION, hands={0: ((), (card,))}, money={1: 1000})
    after, _ = GAME.apply(state, 0, PlayEvent(card, party=1), Rng(b"broke"))
    assert after.parties[1].money == 0


# --- candidate change, coalition ------------------------------------------------------------------------------


def test_a_changed_candidate_starts_without_votes_and_may_replace_an_eliminated_one() -> None:
    old, gone = find(lambda p: True, 2)
    state = table(2, step=CHANGING_CANDIDATE, candidates=(Candidate(old, 0, 6), Candidate(gone, 0, 2, in_race=False)))
    new = next(p for p in state.parties[0].politicians if p not in (old, gone))
    assert ChangeCandidate(gone, new) in GAME.legal_moves(state, 0)
    after, _ = GAME.apply(state, 0, ChangeCandidate(old, new), Rng(b"change"))
    assert after.candidate(old) is None and after.candidate(new) == Candidate(new, 0, 0)


def test_a_coalition_trade_happens_only_when_both_agree() -> None:
    state = table(3, step=CHOOSING_PARTNER, hands={0: (("V001",), ()), 2: (("V002",), ("E02",))}, money={0: 1000, 2: 3000})
    rng = Rng(b"coalition")
    state, _ = GAME.apply(state, 0, ChoosePartner(2), rng)
    assert state.step == OFFERING
    for item in (OfferTrade(give_card="V001"), OfferTrade(ask_money=1000), OfferTrade(ask_money=1000)):
        state, _ = GAME.apply(state, 0, item, rng)
    state, events = GAME.apply(state, 0, ProposeOffer(), rng)
    assert state.step == ANSWERING and GAME.to_act(state) == frozenset({2})
    assert payloads(events, TradeOffered, 2)[0].give_cards == ("V001",)
    assert payloads(events, TradeOffered, 1)[0].give_cards == () and payloads(events, TradeOffered, 1)[0].give_voters == 1
    refused, _ = GAME.apply(state, 2, AnswerTrade(False), rng)
    assert refused.parties == state.parties and refused.step == OFFERING and GAME.to_act(refused) == frozenset({2})
    agreed, _ = GAME.apply(state, 2, AnswerTrade(True), rng)
    assert agreed.parties[0].voters == () and agreed.parties[2].voters == ("V001", "V002")
    assert agreed.parties[0].money == 3000 and agreed.parties[2].money == 1000
    state, _ = GAME.apply(agreed, 0, OfferTrade(give_money=1000), rng)
    state, _ = GAME.apply(state, 0, OfferTrade(ask_kind="event"), rng)
    state, _ = GAME.apply(state, 0, ProposeOffer(), rng)
    state, _ = GAME.apply(state, 2, AnswerTrade(True), rng)
    assert GAME.legal_moves(state, 2) == [AnswerTrade(True, "E02")]
    state, _ = GAME.apply(state, 2, AnswerTrade(True, "E02"), rng)
    assert state.parties[0].events[-1:] == ("E02",) and state.parties[2].money == 2000


def test_trading_outside_a_coalition_is_refused() -> None:
    state = table(3, step=VOTING, hands={0: (("V001",), ())})
    with pytest.raises(IllegalMoveError) as error:
        GAME.apply(state, 0, OfferTrade(give_card="V001"), Rng(b"x"))
    assert error.value.reason == "WRONG_STEP"


# --- elections and run-offs ---------------------------------------------------------------------------------


def _arrived(state: WahlspielState) -> WahlspielState:
    return replace(state, parties=tuple(replace(p, arrived=True) for p in state.parties), first_arrived=1)


def test_five_cantonal_seats_pay_5000_and_the_first_at_the_goal_starts_round_two() -> None:
    names = find(lambda p: True, 6)
    candidates = tuple(Candidate(p, i % 2, v) for i, (p, v) in enumerate(zip(names, (9, 8, 7, 6, 5, 4))))
    state = _arrived(table(2, candidates=candidates, money={0: 0, 1: 0}))
    events: list[Event] = []
    after = turns.election(state, Rng(b"count"), events)
    assert after.cantonal == tuple(names[:5])
    assert after.parties[0].money == 3 * 5000 and after.parties[1].money == 2 * 5000
    assert after.round == 2 and after.step == NOMINATING and after.start_party == 1 and after.current == 1


def test_a_runoff_decided_by_the_extra_voter() -> None:
    names = find(lambda p: True, 4)
    x, y = find(lambda p: True, 2, exclude=tuple(names))
    card = voter_for(x, y)
    candidates = tuple(Candidate(p, 0, 9) for p in names) + (Candidate(x, 0, 1), Candidate(y, 1, 1))
    state = _arrived(table(2, candidates=candidates, hands={0: ((card,), ()), 1: (("V120",), ())}))
    events: list[Event] = []
    state = turns.election(state, Rng(b"runoff"), events)
    assert state.step == RUNOFF and GAME.to_act(state) == frozenset({0, 1})
    assert state.runoff is not None and state.runoff.politicians == (x, y) and state.runoff.seats == 1
    assert GAME.legal_moves(state, 1) == [SendRunoffVoter()]  # a matter of opinion cannot be sent
    rng = Rng(b"runoff")
    state, events = GAME.apply(state, 0, SendRunoffVoter(card), rng)
    assert events[0].for_seat(1).card == ""  # face down until every run-off party has decided
    state, events = GAME.apply(state, 1, SendRunoffVoter(), rng)
    assert payloads(events, RunoffVotersRevealed)[0].politicians == (x,)
    assert state.cantonal == tuple(names) + (x,) and not payloads(events, RunoffCardTurned)


def test_a_runoff_decided_by_the_top_card_of_the_voter_stack() -> None:
    names = find(lambda p: True, 2)
    x, y = find(lambda p: True, 2, exclude=tuple(names))
    card = voter_for(y, x)
    candidates = (Candidate(names[0], 0, 5), Candidate(names[1], 1, 4), Candidate(x, 0, 2), Candidate(y, 1, 2))
    state = table(4, candidates=candidates)
    stack = (card,) + tuple(c for c in state.voter_stack if c != card)
    state = _arrived(replace(state, round=2, voter_stack=stack))
    rng = Rng(b"stack")
    state = turns.election(state, rng, [])
    for party in sorted(GAME.to_act(state)):
        state, events = GAME.apply(state, party, SendRunoffVoter(), rng)
    turned = payloads(events, RunoffCardTurned)
    assert turned[0] == RunoffCardTurned(card, (y,)) and len(turned) == 1
    assert state.national == (names[0], names[1], y)
    assert state.round == 3 and card in state.ballot_box


def test_the_federal_council_election_has_the_national_councillors_and_one_candidate_per_party() -> None:
    state = GAME.setup(WahlspielOptions(3), Rng(b"federal"))
    national = (state.parties[0].politicians[0], state.parties[1].politicians[0], state.parties[1].politicians[1])
    state = replace(state, round=2, national=national, first_arrived=2)
    state = turns.next_round(state, Rng(b"federal"), [])
    assert state.round == 3 and state.start_party == 2 and GAME.to_act(state) == frozenset({2})
    assert [(c.politician, c.councillor) for c in state.candidates] == [(p, True) for p in national]
    assert not set(national) & {m.politician for m in GAME.legal_moves(state, 1)}  # type: ignore[attr-defined]
    rng = Rng(b"federal-play")
    for party in (2, 0, 1):
        state, _ = GAME.apply(state, party, GAME.legal_moves(state, party)[0], rng)
    assert len(state.candidates) == 6 and state.step != NOMINATING


def test_the_party_of_the_federal_councillor_wins() -> None:
    state = table(3, round=3)
    councillor = state.parties[2].politicians[0]
    candidates = (
        Candidate(councillor, 2, 7, councillor=True),
        Candidate(state.parties[0].politicians[0], 0, 6),
        Candidate(state.parties[1].politicians[0], 1, 3),
    )
    state = _arrived(replace(state, candidates=candidates))
    events: list[Event] = []
    state = turns.election(state, Rng(b"win"), events)
    assert state.step == FINISHED and state.federal == councillor and GAME.is_over(state)
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert [(p.rank, p.seat, p.score) for p in outcome.placings] == [(1, 2, 7), (2, 0, 6), (3, 1, 3)]
    assert "Federal Councillor" in outcome.placings[0].detail
    with pytest.raises(EngineError):
        GAME.apply(state, 0, Pass(), Rng(b"over"))


def test_a_placings_detail_keeps_the_words_every_release_has_shown() -> None:
    """The detail under a placing is part of the result `hustings verify` compares with its own
    replay, so its words are those of every release (a verifier of an earlier release would
    call a game whose detail read otherwise not the replay's): "1 national, 1 cantonal seats"
    stays as it reads."""
    state = table(3, round=3)
    parties = state.parties
    national = (parties[0].politicians[0], parties[1].politicians[0], parties[1].politicians[1])
    cantonal = (parties[0].politicians[1], parties[2].politicians[0], parties[2].politicians[1], parties[2].politicians[2])
    state = replace(state, national=national, cantonal=cantonal, step=FINISHED)
    outcome = GAME.outcome(state)
    assert outcome is not None
    detail = {p.seat: p.detail for p in outcome.placings}
    money = {i: party.money for i, party in enumerate(parties)}
    assert detail[0] == f"1 national, 1 cantonal seats, {money[0]} francs", detail[0]
    assert detail[1] == f"2 national, 0 cantonal seats, {money[1]} francs", detail[1]
    assert detail[2] == f"0 national, 3 cantonal seats, {money[2]} francs", detail[2]


@pytest.mark.parametrize("gnomes", [True, False])
def test_the_gnomes_take_a_candidate_who_reaches_17_votes(gnomes: bool) -> None:
    (star,) = find(lambda p: "objectivity" in p.symbols)
    state = table(2, candidates=(Candidate(star, 1, 16),), hands={0: (("V001", "V002"), ())}, options={"gnomes": gnomes})
    assert VOTERS["V001"].condition.symbols == ("objectivity",)
    after, _ = GAME.apply(state, 0, CastVoter("V001"), Rng(b"gnomes"))
    candidate = after.candidate(star)
    assert candidate is not None and candidate.votes == 17
    assert candidate.in_race is not gnomes and (star in after.retired) is gnomes


# --- hidden information, storage, codec ---------------------------------------------------------------------


def test_views_show_own_hands_and_only_counts_of_others() -> None:
    state = GAME.setup(WahlspielOptions(3), Rng(b"hidden"))
    mine, theirs = GAME.view(state, 0).parties[0], GAME.view(state, 1).parties[0]
    assert mine.voters == state.parties[0].voters and mine.events == state.parties[0].events
    assert theirs.voters == () and theirs.events == () and theirs.voter_count == 4 and theirs.event_count == 2
    spectator = GAME.view(state, None)
    assert all(p.voters == () and p.events == () for p in spectator.parties)


def test_state_storage_round_trips() -> None:
    state = table(3, step=CHOOSING_PARTNER, hands={0: (("V001",), ())})
    state, _ = GAME.apply(state, 0, ChoosePartner(1), Rng(b"s"))
    state, _ = GAME.apply(state, 0, OfferTrade(give_card="V001"), Rng(b"s"))
    data = GAME.dump_state(state)
    assert GAME.load_state(data) == state and GAME.dump_state(GAME.load_state(data)) == data
    state, _ = GAME.apply(state, 0, ProposeOffer(), Rng(b"s"))
    data = GAME.dump_state(state)
    assert GAME.load_state(data) == state and GAME.dump_state(GAME.load_state(data)) == data


@pytest.mark.parametrize(
    "move",
    [
        Nominate("P01"), BuyVoters(0), BuyVoters(3), CastVoter("V001"), PlayEvent("E01", ("P02",)),
        PlayEvent("E70", party=0), ChangeCandidate("P01", "P02"), ChoosePartner(0),
        OfferTrade("V001", 0, "event", 1000), AnswerTrade(True, "E02"), AnswerTrade(False), Judge("P03", False),
        GoalVote("P04"), SendRunoffVoter(), SendRunoffVoter("V002"), Pass(), ProposeOffer(),
    ],
)
def test_moves_round_trip_through_the_proto(move: Any) -> None:
    from hustings.v1 import game_pb2

    message = game_pb2.Move()
    GAME.move_to_proto(move, message)
    assert GAME.move_from_proto(message) == move
