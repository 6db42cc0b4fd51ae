"""Binding immediate deals ("Communication"): any player may hand Budget points to another at any
time, as a move of its own, whether or not it owes a decision; whose turn it is does not change.
And conditional offers: Budget points for the decision another player owes now, held by the table
until that decision is made, paid if it is made as offered and returned otherwise.

Seats follow the examples' clockwise order: ANTEK 0, ANIA 1, BARTEK 2.
"""

from __future__ import annotations

import random
import uuid

import pytest

from hustings.engine import Rng
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.table_spin_doctors import labeller, spin_doctors_table, tell
from hustings.v1 import game_pb2
from rest_helpers import LiveRest
from hustings.engine.errors import GameOverError, IllegalMoveError, NotYourTurnError
from hustings.engine.spin_doctors import GAME, deals, flow, rules
from hustings.engine.spin_doctors.model import (
    BREAKING_NEWS,
    DEBATE,
    FINISHED,
    RESOLUTION,
    SPEECH,
    Act,
    ChooseProgramme,
    Consent,
    Decline,
    DeclineOffer,
    HandBudget,
    Offer,
    OfferDeal,
    OrderTie,
    PlaceOnTopic,
    Played,
    Speech,
    SpinDoctorsOptions,
    State,
    Task,
    Term,
    WithdrawOffer,
)

ANTEK, ANIA, BARTEK = 0, 1, 2
CENTRAL = 3
FAMILIES = 1
STEP_LIMIT = 5000


def _resolving() -> State:
    """ANTEK's Chief of Staff is to be resolved on the Central Region; ANIA and BARTEK owe nothing."""
    state = rules.setup(SpinDoctorsOptions(3), Rng(b"deals"))
    for player in state.seats:
        player.staff = [0, 1, 2, 3, 4, 5, 12]
        player.programme = ["economy_3plus", "health_care_0to2", "foreign_policy_0to2"]
        player.face_up = ["economy_3plus"]
    state.phase, state.round, state.field_now = RESOLUTION, 1, CENTRAL
    state.board = [Played(ANTEK, 1, CENTRAL, True), Played(ANIA, 2, CENTRAL, True)]
    state.tasks = [Task("resolve", ANTEK, index=0)]
    return state


def _gifts(state: State, seat: int) -> list[HandBudget]:
    return [m for m in rules.legal_moves(state, seat) if isinstance(m, HandBudget)]


def test_gift_amounts_are_1_to_5_then_multiples_of_5() -> None:
    assert rules.gift_amounts(0) == []
    assert rules.gift_amounts(3) == [1, 2, 3]
    assert rules.gift_amounts(9) == [1, 2, 3, 4, 5]
    assert rules.gift_amounts(15) == [1, 2, 3, 4, 5, 10, 15]
    assert rules.gift_amounts(23) == [1, 2, 3, 4, 5, 10, 15, 20]


def test_a_seat_owing_nothing_lists_its_hand_overs_only() -> None:
    state = _resolving()
    assert rules.to_act(state) == {ANTEK}
    amounts = [1, 2, 3, 4, 5, 10, 15]
    assert rules.legal_moves(state, ANIA) == [HandBudget(ANTEK, n) for n in amounts] + [HandBudget(BARTEK, n) for n in amounts]
    state.seats[BARTEK].budget = 0
    assert rules.legal_moves(state, BARTEK) == []


def test_a_seat_owing_nothing_hands_budget_and_the_turn_stays() -> None:
    state = _resolving()
    tasks = [(t.kind, t.seat, t.index) for t in state.tasks]
    after, events = rules.apply(state, BARTEK, HandBudget(ANIA, 10), Rng(b"d"))
    assert [p.budget for p in after.seats] == [15, 25, 5]
    assert [(e.public, e.payload.kind, e.payload.seat, e.payload.other, e.payload.amount) for e in events] == [
        (True, "BUDGET_HANDED", BARTEK, ANIA, 10)
    ]
    assert rules.to_act(after) == {ANTEK} and [(t.kind, t.seat, t.index) for t in after.tasks] == tasks
    assert [p.budget for p in state.seats] == [15, 15, 15]  # the caller's state is untouched
    # Owing nothing, BARTEK may hand over again at once (5 + 2 makes 7).
    after, _ = rules.apply(after, BARTEK, HandBudget(ANIA, 5), Rng(b"d"))
    assert [p.budget for p in after.seats] == [15, 30, 0]
    assert rules.legal_moves(after, BARTEK) == []


def test_the_seat_owing_a_decision_hands_over_once_before_it() -> None:
    state = _resolving()
    listed = rules.legal_moves(state, ANTEK)
    own = [m for m in listed if not isinstance(m, HandBudget)]
    assert Decline() in own and listed[len(own):] == _gifts(state, ANTEK) and len(_gifts(state, ANTEK)) == 14
    state, _ = rules.apply(state, ANTEK, HandBudget(BARTEK, 2), Rng(b"d"))
    assert rules.to_act(state) == {ANTEK} and rules.legal_moves(state, ANTEK) == own
    with pytest.raises(IllegalMoveError) as error:
        rules.apply(state, ANTEK, HandBudget(BARTEK, 1), Rng(b"d"))
    assert error.value.reason == "BAD_HAND_OVER"
    assert _gifts(state, ANIA)  # the others still may
    state, _ = rules.apply(state, ANTEK, Decline(), Rng(b"d"))
    assert rules.to_act(state) == {ANIA} and _gifts(state, ANTEK)  # owing nothing again


@pytest.mark.parametrize(
    "move",
    [HandBudget(BARTEK, 7), HandBudget(BARTEK, 16), HandBudget(BARTEK, 0), HandBudget(BARTEK, -1), HandBudget(ANIA, 1),
     HandBudget(3, 1), HandBudget(True, 1), HandBudget(BARTEK, "1")],  # type: ignore[arg-type]
)
def test_bad_hand_overs_are_refused(move: HandBudget) -> None:
    state = _resolving()
    before = GAME.dump_state(state)
    with pytest.raises(IllegalMoveError) as error:
        rules.apply(state, ANIA, move, Rng(b"d"))
    assert error.value.reason == "BAD_HAND_OVER"
    assert GAME.dump_state(state) == before


def test_a_seat_owing_nothing_still_cannot_decide_for_another() -> None:
    state = _resolving()
    with pytest.raises(NotYourTurnError):
        rules.apply(state, ANIA, Decline(), Rng(b"d"))
    with pytest.raises(NotYourTurnError):
        rules.apply(state, 3, HandBudget(ANIA, 1), Rng(b"d"))


def test_hand_overs_while_others_choose_their_staff() -> None:
    state = rules.setup(SpinDoctorsOptions(3), Rng(b"choosing"))
    rng = Rng(b"c")
    for move in (rules.STAFFS[0], ChooseProgramme("economy_3plus"), ChooseProgramme("economy_0to2"), ChooseProgramme("health_care_3plus")):
        state, _ = rules.apply(state, ANTEK, move, rng)
    assert rules.to_act(state) == {ANIA, BARTEK}
    assert rules.legal_moves(state, ANTEK) == _gifts(state, ANTEK) != []
    state, _ = rules.apply(state, ANTEK, HandBudget(ANIA, 3), rng)
    assert [p.budget for p in state.seats] == [12, 18, 15] and rules.to_act(state) == {ANIA, BARTEK}


def test_no_hand_overs_once_the_game_is_over() -> None:
    state = _resolving()
    state.phase, state.tasks = FINISHED, []
    assert all(rules.legal_moves(state, seat) == [] for seat in range(3))
    with pytest.raises(GameOverError):
        rules.apply(state, ANIA, HandBudget(ANTEK, 1), Rng(b"d"))


def test_random_play_with_hand_overs_stays_bounded() -> None:
    """Picking at random among all listed moves of an acting seat, hand-overs included, a game
    takes at most one hand-over per decision, so it ends well within the step bound."""
    for players in (3, 5):
        rng = Rng(f"bounded:{players}".encode())
        chooser = random.Random(players)
        state = GAME.setup(SpinDoctorsOptions(players), rng)
        decisions = hand_overs = 0
        for _ in range(STEP_LIMIT):
            if GAME.is_over(state):
                break
            seat = chooser.choice(sorted(GAME.to_act(state)))
            move = chooser.choice(GAME.legal_moves(state, seat))
            state, _ = GAME.apply(state, seat, move, rng)
            if isinstance(move, HandBudget):
                hand_overs += 1
            else:
                decisions += 1
        assert GAME.is_over(state)
        assert 0 < hand_overs <= decisions
        assert all(p.budget >= 0 for p in state.seats)


# --- conditional offers ---------------------------------------------------------------------------


def _speech() -> State:
    """The Favourite's speech example: the Debate ends with nobody in a Favourite pool, so the
    marker passes from BARTEK to ANTEK; a Families News card lies on Breaking News. ANTEK has 11
    Votes there, BARTEK 7, ANIA 1. The engine runs the end of the Debate up to ANTEK's speech."""
    state = rules.setup(SpinDoctorsOptions(3), Rng(b"speech"))
    for player in state.seats:
        player.staff = [0, 1, 2, 3, 4, 5, 12]
        player.programme = ["economy_3plus", "health_care_0to2", "foreign_policy_0to2"]
        player.face_up = ["economy_3plus"]
    state.phase, state.round, state.favourite = DEBATE, 1, BARTEK
    state.debate_next = len(state.spots)  # every Activity stack resolved
    state.news[BREAKING_NEWS] = "N-culture_and_education-2"  # Families, turnout +1
    for seat, votes in ((ANTEK, 11), (ANIA, 1), (BARTEK, 7)):
        state.seats[seat].votes[FAMILIES] = votes
    flow.advance(state, Rng(b"speech"), [])
    assert state.favourite == ANTEK and state.phase == SPEECH and state.tasks == [Task("speech", ANTEK)]
    assert state.seats[ANTEK].votes[FAMILIES] == 12  # "moving his Vote marker from 11 to 12"
    return state


REDUCE_BARTEK = OfferDeal(ANTEK, 5, Term("REDUCE_VOTES", seat=BARTEK))


def test_printed_example_anias_offer_is_paid_when_antek_reduces_barteks_votes() -> None:
    """"Any agreements that can be carried out immediately are binding (for example, if ANTEK
    holds the Favourite marker, and during the Favourite's speech ANIA offers him 5 Budget points
    in return for reducing BARTEK's Votes, then at the moment the players agree to the exchange,
    ANTEK may not both accept the Budget points from ANIA and give up the action. Likewise, ANIA
    must hand ANTEK 5 Budget points if he reduces BARTEK's Votes)."
    And the speech example: "ANTEK decides to remove 2 Votes from BARTEK and moves his Vote marker
    from 7 to 5."""
    state = _speech()
    assert REDUCE_BARTEK in rules.legal_moves(state, ANIA)
    state, events = rules.apply(state, ANIA, REDUCE_BARTEK, Rng(b"offer"))
    assert [(e.public, e.payload.kind, e.payload.seat, e.payload.other, e.payload.amount, e.payload.term) for e in events] == [
        (True, "OFFER_MADE", ANIA, ANTEK, 5, REDUCE_BARTEK.term)
    ]
    # The 5 points left ANIA at once and lie on the table, in everybody's view; the turn is ANTEK's.
    assert [p.budget for p in state.seats] == [15, 10, 15]
    assert state.offers == [Offer(ANIA, ANTEK, 5, REDUCE_BARTEK.term)]
    for viewer in (ANTEK, ANIA, BARTEK, None):
        assert GAME.view(state, viewer).offers == (Offer(ANIA, ANTEK, 5, REDUCE_BARTEK.term),)
    assert rules.to_act(state) == {ANTEK}
    # ANTEK reduces BARTEK's Votes: in the same step the 5 points are his.
    state, events = rules.apply(state, ANTEK, Speech(BARTEK, FAMILIES, 2), Rng(b"speech"))
    assert state.seats[BARTEK].votes[FAMILIES] == 5 and state.seats[ANTEK].votes[FAMILIES] == 12
    assert [p.budget for p in state.seats] == [20, 10, 15] and state.offers == []
    kinds = [e.payload.kind for e in events]
    assert kinds.index("SPEECH") < kinds.index("OFFER_KEPT")
    kept = next(e.payload for e in events if e.payload.kind == "OFFER_KEPT")
    assert (kept.seat, kept.other, kept.amount) == (ANIA, ANTEK, 5)


@pytest.mark.parametrize("speech", [Speech(), Speech(ANIA, FAMILIES, 1)])
def test_printed_example_antek_cannot_keep_the_points_and_give_up_the_reduction(speech: Speech) -> None:
    """"ANTEK may not both accept the Budget points from ANIA and give up the action": giving up
    (or reducing someone else) returns ANIA's 5 points to her in the same step."""
    state = _speech()
    state, _ = rules.apply(state, ANIA, REDUCE_BARTEK, Rng(b"offer"))
    state, events = rules.apply(state, ANTEK, speech, Rng(b"speech"))
    assert [p.budget for p in state.seats] == [15, 15, 15] and state.offers == []
    assert state.seats[BARTEK].votes[FAMILIES] == 7
    returned = [(e.payload.seat, e.payload.other, e.payload.amount) for e in events if e.payload.kind == "OFFER_RETURNED"]
    assert returned == [(ANIA, ANTEK, 5)]


def test_the_speech_terms_are_the_reductions_possible_and_giving_up() -> None:
    """The terms offered follow the decision's options: Votes of BARTEK or ANIA in Families (the
    Favourite cannot reduce his own), or giving up."""
    state = _speech()
    assert deals.terms(state) == [Term("REDUCE_VOTES", seat=ANIA), Term("REDUCE_VOTES", seat=BARTEK), Term("SPARE_VOTES")]
    offers = [m for m in rules.legal_moves(state, BARTEK) if isinstance(m, OfferDeal)]
    assert offers == [OfferDeal(ANTEK, n, t) for t in deals.terms(state) for n in deals.OFFER_AMOUNTS]
    assert not any(isinstance(m, OfferDeal) for m in rules.legal_moves(state, ANTEK))  # nobody buys his own decision


def test_withdrawn_and_declined_offers_return_their_points() -> None:
    state = _speech()
    spare = OfferDeal(ANTEK, 3, Term("SPARE_VOTES"))
    state, _ = rules.apply(state, ANIA, REDUCE_BARTEK, Rng(b"o"))
    state, _ = rules.apply(state, BARTEK, spare, Rng(b"o"))
    assert [p.budget for p in state.seats] == [15, 10, 12]
    assert WithdrawOffer(1) in rules.legal_moves(state, BARTEK) and WithdrawOffer(0) not in rules.legal_moves(state, BARTEK)
    listed = rules.legal_moves(state, ANTEK)
    assert DeclineOffer(0) in listed and DeclineOffer(1) in listed and not any(isinstance(m, WithdrawOffer) for m in listed)
    after, events = rules.apply(state, BARTEK, WithdrawOffer(1), Rng(b"o"))
    assert [p.budget for p in after.seats] == [15, 10, 15] and after.offers == [Offer(ANIA, ANTEK, 5, REDUCE_BARTEK.term)]
    assert [(e.payload.kind, e.payload.seat, e.payload.amount) for e in events] == [("OFFER_WITHDRAWN", BARTEK, 3)]
    after, events = rules.apply(state, ANTEK, DeclineOffer(0), Rng(b"o"))
    assert [p.budget for p in after.seats] == [15, 15, 12] and after.offers == [Offer(BARTEK, ANTEK, 3, spare.term)]
    assert [(e.payload.kind, e.payload.seat, e.payload.other) for e in events] == [("OFFER_DECLINED", ANIA, ANTEK)]
    assert rules.to_act(after) == {ANTEK}
    # Both offers made, ANTEK gives up: BARTEK's is kept, ANIA's returns.
    after, events = rules.apply(state, ANTEK, Speech(), Rng(b"o"))
    assert [p.budget for p in after.seats] == [18, 15, 12]
    assert [e.payload.kind for e in events if e.payload.kind.startswith("OFFER")] == ["OFFER_RETURNED", "OFFER_KEPT"]


def test_pending_offers_are_bounded_per_player() -> None:
    state = _speech()
    for amount in (1, 2):
        state, _ = rules.apply(state, ANIA, OfferDeal(ANTEK, amount, Term("SPARE_VOTES")), Rng(b"o"))
    assert [m for m in rules.legal_moves(state, ANIA) if isinstance(m, OfferDeal)] == []
    assert len(state.offers) == deals.MAX_OFFERS
    with pytest.raises(IllegalMoveError) as error:
        rules.apply(state, ANIA, OfferDeal(ANTEK, 1, Term("SPARE_VOTES")), Rng(b"o"))
    assert error.value.reason == "BAD_OFFER"
    assert any(isinstance(m, OfferDeal) for m in rules.legal_moves(state, BARTEK))


@pytest.mark.parametrize(
    "move",
    [OfferDeal(ANTEK, 6, Term("SPARE_VOTES")), OfferDeal(ANTEK, 0, Term("SPARE_VOTES")), OfferDeal(BARTEK, 1, Term("SPARE_VOTES")),
     OfferDeal(ANTEK, 1, Term("REDUCE_VOTES", seat=ANTEK)), OfferDeal(ANTEK, 1, Term("CONSENT")), OfferDeal(True, 1, Term("SPARE_VOTES")),
     OfferDeal(ANTEK, 1, Term("REDUCE_VOTES", seat=True)), OfferDeal(ANTEK, 1, "SPARE_VOTES"), WithdrawOffer(0), DeclineOffer(0),
     WithdrawOffer(True)],  # type: ignore[arg-type]
)
def test_bad_offers_are_refused_and_change_nothing(move: object) -> None:
    state = _speech()
    before = GAME.dump_state(state)
    with pytest.raises(IllegalMoveError) as error:
        rules.apply(state, ANIA, move, Rng(b"o"))
    assert error.value.reason == "BAD_OFFER"
    assert GAME.dump_state(state) == before


def test_no_offers_for_secret_decisions() -> None:
    """Staffs, Programmes and face-down Staffers are chosen in secret: nothing to offer for."""
    state = rules.setup(SpinDoctorsOptions(3), Rng(b"secret"))
    assert deals.terms(state) == [] and not any(isinstance(m, OfferDeal) for m in rules.legal_moves(state, ANTEK))
    state = _resolving()
    state.tasks = [Task("plan", ANTEK)]
    assert deals.terms(state) == []


def test_the_example_first_round_deal_as_an_offer() -> None:
    """"ANIA, before resolving the action of her Authority, offered BARTEK to block ANTEK's
    Provocateur in exchange for 5 Budget points. BARTEK agreed and handed ANIA 5 Budget points.
    ANIA used the Undermine Credibility Action and paid 2 Budget points." As an offer held by the
    table: the 5 points reach ANIA in the step her Authority blocks the Provocateur."""
    state = _resolving()
    state.board = [Played(ANIA, 2, CENTRAL, True), Played(ANTEK, 3, CENTRAL, True), Played(BARTEK, 4, CENTRAL, True)]
    state.tasks = [Task("resolve", ANIA, index=0)]
    block = OfferDeal(ANIA, 5, Term("ACTION", seat=ANTEK, action="undermine_credibility", staffer=3))
    assert block in rules.legal_moves(state, BARTEK)
    state, _ = rules.apply(state, BARTEK, block, Rng(b"o"))
    assert [p.budget for p in state.seats] == [15, 15, 10]
    state, events = rules.apply(state, ANIA, Act("undermine_credibility", seat=ANTEK, staffer=3), Rng(b"o"))
    assert [p.budget for p in state.seats] == [15, 15 - 2 + 5, 10]
    assert state.board[1].blocked and ("OFFER_KEPT", BARTEK, ANIA, 5) in [
        (e.payload.kind, e.payload.seat, e.payload.other, e.payload.amount) for e in events
    ]


def test_tie_order_consent_and_push_off_terms() -> None:
    """The other subjects of exchange the rulebook lists: "Deciding, by the player holding the
    Favourite marker, the order of tied Staffers, in favour of one of the players", "Allowing
    another player to change a Topic card when we occupy Red fields", "Pushing a player's Support
    token off a White field on a Topic card, to give them a Vote"."""
    # The Favourite (ANTEK) orders ANIA's and BARTEK's tied Authorities.
    state = _resolving()
    state.board = [Played(ANIA, 2, CENTRAL, True), Played(BARTEK, 2, CENTRAL, True)]
    state.tasks = [Task("order_tie", ANTEK)]
    assert deals.terms(state) == [Term("ORDER_TIE", seat=ANIA), Term("ORDER_TIE", seat=BARTEK)]
    state, _ = rules.apply(state, BARTEK, OfferDeal(ANTEK, 2, Term("ORDER_TIE", seat=BARTEK)), Rng(b"o"))
    after, _ = rules.apply(state, ANTEK, OrderTie(BARTEK), Rng(b"o"))
    assert after.seats[ANTEK].budget == 17 and after.seats[BARTEK].budget == 13
    after, _ = rules.apply(state, ANTEK, OrderTie(ANIA), Rng(b"o"))
    assert after.seats[ANTEK].budget == 15 and after.seats[BARTEK].budget == 15
    # ANIA holds the Red fields ANTEK's Authority needs to change.
    state = _resolving()
    state.tasks = [Task("consent", ANIA, 2, other=ANTEK), Task("change_topic", ANTEK, 2, amount=2)]
    assert deals.terms(state) == [Term("CONSENT")]
    state, _ = rules.apply(state, ANTEK, OfferDeal(ANIA, 4, Term("CONSENT")), Rng(b"o"))
    agreed, _ = rules.apply(state, ANIA, Consent(True), Rng(b"o"))
    refused, _ = rules.apply(state, ANIA, Consent(False), Rng(b"o"))
    assert (agreed.seats[ANIA].budget, agreed.seats[ANTEK].budget) == (19, 11)
    assert (refused.seats[ANIA].budget, refused.seats[ANTEK].budget) == (15, 15 + 2)  # the refund of the Action too
    # BARTEK places a token on a Topic card whose two White fields hold ANTEK's and ANIA's tokens.
    state = _resolving()
    spot = state.spots[2]
    spot.topic_card = "economy_3"  # two Red, two White fields
    spot.white = [ANTEK, ANIA]
    state.seats[ANTEK].supply -= 1
    state.seats[ANIA].supply -= 1
    state.tasks = [Task("white", BARTEK, 2)]
    assert Term("PUSH_OFF", seat=ANIA) in deals.terms(state)
    state, _ = rules.apply(state, ANIA, OfferDeal(BARTEK, 1, Term("PUSH_OFF", seat=ANIA)), Rng(b"o"))
    pushes = [m for m in rules.legal_moves(state, BARTEK) if isinstance(m, PlaceOnTopic)]
    budgets = set()
    for move in pushes:
        after, events = rules.apply(state, BARTEK, move, Rng(b"o"))
        pushed_ania = any(e.payload.kind == "PUSHED_OFF_WHITE" and e.payload.seat == ANIA for e in events)
        assert after.seats[BARTEK].budget == (16 if pushed_ania else 15)
        assert after.seats[ANIA].budget == (14 if pushed_ania else 15)
        budgets.add(after.seats[BARTEK].budget)
    assert budgets == {15, 16}  # some placements push her off, others do not


def test_an_offer_whose_decision_is_gone_returns_when_the_game_moves_on() -> None:
    """"Returned otherwise": should a decision leave the queue without its player making it,
    the offers for it go back to their makers at the next step (here made up: an offer to
    BARTEK, who owes nothing, while ANTEK gives his speech and the round ends)."""
    state = _speech()
    state.offers = [Offer(ANIA, BARTEK, 4, Term("CONSENT"))]
    state.seats[ANIA].budget -= 4
    state, events = rules.apply(state, ANTEK, Speech(), Rng(b"o"))
    assert state.offers == [] and state.seats[ANIA].budget == 15
    assert [(e.payload.kind, e.payload.seat, e.payload.other, e.payload.amount) for e in events if e.payload.kind.startswith("OFFER")] == [
        ("OFFER_RETURNED", ANIA, BARTEK, 4)
    ]


def test_random_play_with_offers_keeps_every_budget_point() -> None:
    """Players owing nothing make, withdraw and see declined offers at random: games still end,
    and no Budget point is made or lost by a deal (the table's held points count)."""
    for players in (3, 5):
        rng = Rng(f"offers:{players}".encode())
        chooser = random.Random(players)
        state = GAME.setup(SpinDoctorsOptions(players), rng)
        made = kept = 0
        for _ in range(STEP_LIMIT):
            if GAME.is_over(state):
                break
            acting = sorted(GAME.to_act(state))
            idle = [s for s in range(players) if s not in acting]
            deal_moves = [(s, m) for s in idle for m in GAME.legal_moves(state, s) if isinstance(m, (OfferDeal, WithdrawOffer))]
            if deal_moves and chooser.random() < 0.5:
                seat, move = chooser.choice(deal_moves)
            else:
                seat = chooser.choice(acting)
                move = chooser.choice(GAME.legal_moves(state, seat))
            total = sum(p.budget for p in state.seats) + sum(o.amount for o in state.offers)
            after, events = GAME.apply(state, seat, move, rng)
            if isinstance(move, (OfferDeal, WithdrawOffer, DeclineOffer)):
                assert sum(p.budget for p in after.seats) + sum(o.amount for o in after.offers) == total
            made += isinstance(move, OfferDeal)
            kept += sum(e.payload.kind == "OFFER_KEPT" for e in events)
            state = after
        assert GAME.is_over(state) and state.offers == []
        assert made > 0 and kept > 0


# --- through the real service (REST/JSON) --------------------------------------------------------

SERVICE_MOVE_LIMIT = 600


def test_an_offer_through_the_service_is_public_and_settled_with_the_decision(redis_server: EmbeddedRedis) -> None:
    """Over REST/JSON: a seat owing nothing finds offers among its legal moves, makes one; every
    seat and spectators see it pending with its points held; the decision that follows settles it
    (kept or returned, in the history), and nothing stays held."""
    chooser = random.Random(17)
    with LiveRest(redis_server.url, allow_client_seed=True) as live:
        game_id = live.ok("POST", "/v1/games", {"kind": "spin_doctors", "options": {"players": 3}, "seed": "17" * 32})["gameId"]
        tokens = [live.ok("POST", f"/v1/games/{game_id}:join", {"displayName": name})["seatToken"] for name in ("Antek", "Ania", "Bartek")]
        views = lambda: [live.ok("GET", f"/v1/games/{game_id}/view", token=t)["view"] for t in tokens]  # noqa: E731
        offered = None
        for _ in range(SERVICE_MOVE_LIMIT):
            seen = views()
            idle = [(s, m) for s, v in enumerate(seen) if s not in v.get("toAct", [])
                    for m in v.get("legalMoves", []) if "offerDeal" in m["spinDoctors"]]
            if idle:
                offered = idle[0]
                break
            seat = chooser.choice(seen[0]["toAct"])
            moves = [m for m in seen[seat]["legalMoves"] if not {"handBudget", "declineOffer"} & set(m["spinDoctors"])]
            live.ok("POST", f"/v1/games/{game_id}/moves", {"move": chooser.choice(moves), "requestId": uuid.uuid4().hex}, token=tokens[seat])
        assert offered is not None, "no seat owing nothing was ever offered a deal"
        offerer, move = offered
        deal = move["spinDoctors"]["offerDeal"]
        budget = int(seen[offerer]["spinDoctors"]["players"][offerer].get("budget", 0))
        live.ok("POST", f"/v1/games/{game_id}/moves", {"move": move, "requestId": uuid.uuid4().hex}, token=tokens[offerer])
        spectator = live.ok("GET", f"/v1/games/{game_id}/view")["view"]
        for view in [*views(), spectator]:
            assert [(o.get("offerer", 0), o.get("seat", 0), o["amount"], o["term"]) for o in view["spinDoctors"]["offers"]] == [
                (offerer, deal.get("seat", 0), deal["amount"], deal["term"])
            ]
            assert view["spinDoctors"]["players"][offerer].get("budget", 0) == budget - deal["amount"]
        decider = deal.get("seat", 0)
        mine = views()[decider]
        decision = next(m for m in mine["legalMoves"] if not {"handBudget", "declineOffer"} & set(m["spinDoctors"]))
        live.ok("POST", f"/v1/games/{game_id}/moves", {"move": decision, "requestId": uuid.uuid4().hex}, token=tokens[decider])
        after = views()[offerer]["spinDoctors"]
        assert not after.get("offers")
        history = live.ok("GET", f"/v1/games/{game_id}/history", token=tokens[offerer])
        settled = [e["spinDoctors"]["kind"] for entry in history["entries"] for e in entry.get("events", [])
                   if e.get("spinDoctors", {}).get("kind", "").startswith("SPIN_DOCTORS_EVENT_KIND_OFFER_")]
        assert len(settled) == 2 and settled[0] == "SPIN_DOCTORS_EVENT_KIND_OFFER_MADE" and settled[1] in (
            "SPIN_DOCTORS_EVENT_KIND_OFFER_KEPT", "SPIN_DOCTORS_EVENT_KIND_OFFER_RETURNED")
        kept = settled[1].endswith("KEPT")
        assert after["players"][offerer].get("budget", 0) == budget - (deal["amount"] if kept else 0)


def test_the_terminal_tells_offers_in_words() -> None:
    """The terminal table lists pending offers, tells their events and names the offer a
    DeclineOffer move is about."""
    state = _speech()
    state, events = rules.apply(state, ANIA, REDUCE_BARTEK, Rng(b"offer"))
    view = game_pb2.GameView()
    GAME.view_to_proto(GAME.view(state, ANTEK), view)
    table = spin_doctors_table(view)
    assert "Offer 0: seat 1 offers 5 Budget points to seat 0 to reduce seat 2's Votes in the speech" in table
    event = game_pb2.Event()
    GAME.event_to_proto(events[0].payload, event)
    assert tell(event, view) == "seat 1 offers 5 Budget points to seat 0 to reduce seat 2's Votes in the speech (held by the table)"
    assert labeller(view)("offer", 0) == "seat 1 offers 5 Budget points to seat 0 to reduce seat 2's Votes in the speech"
