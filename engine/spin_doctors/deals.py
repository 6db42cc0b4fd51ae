"""Binding conditional deals ("Communication"): Budget points offered for a decision, held by the
table until that decision is made.

"Any agreements that can be carried out immediately are binding": ANTEK, about to give his
speech, may not take ANIA's 5 Budget points for reducing BARTEK's Votes and then give the
reduction up. So an offer names the player who owes a decision now, the Budget points, and the
way that decision is to be made (a ``Term``). The points leave the offerer at once and lie on the
table, in everybody's view (deals at the table are public). When the other player makes the
decision, every offer made to it is settled in the same step: met, the points go to it; not met,
they return. Until then the offerer may withdraw an offer and the other player may decline it.
Offers, withdrawals and declines are side moves, counted against the seat's limit by ``rules``.

A term names only public things (seats, Staffers face up, Actions against named players), and
the terms offered for a decision are derived from public facts alone, so offers reveal nothing.
"""

from __future__ import annotations

from typing import Any

from hustings.engine.base import Event, Seat
from hustings.engine.errors import IllegalMoveError
from hustings.engine.spin_doctors import flow
from hustings.engine.spin_doctors.board import place_on_topic
from hustings.engine.spin_doctors.content import CONTENT
from hustings.engine.spin_doctors.model import (
    CHOOSING,
    FINISHED,
    POLL_CHANGES,
    Act,
    Consent,
    DeclineOffer,
    Happening,
    Offer,
    OfferDeal,
    OrderTie,
    PlaceOnTopic,
    Speech,
    State,
    Term,
    WithdrawOffer,
    say,
)

OFFER_AMOUNTS = (1, 2, 3, 4, 5)
"""Budget points one offer may hold (the rulebook's example offers 5); a larger sum takes two offers."""
MAX_OFFERS = 2
"""Pending offers one player may have at a time, so the table (and the move lists) stay short."""


def _decision(state: State) -> Any:
    """The public decision owed now by one player (the head of the task queue), or None."""
    if state.phase in (CHOOSING, POLL_CHANGES, FINISHED) or not state.tasks:
        return None
    return state.tasks[0]


def terms(state: State) -> list[Term]:
    """The ways the decision owed now may be bought, derived from public facts only."""
    task = _decision(state)
    if task is None or task.kind not in _TERMS:
        return []
    return _TERMS[task.kind](state, task)


def _speech_terms(state: State, task: Any) -> list[Term]:
    reduced = sorted({m.seat for m in flow.task_options(state, task) if m.amount})
    return [Term("REDUCE_VOTES", seat=s) for s in reduced] + [Term("SPARE_VOTES")]


def _push_off_terms(state: State, task: Any) -> list[Term]:
    spot = state.spots[task.locality]
    card = CONTENT.topic_cards[spot.topic_card]
    pushed = set()
    for option in flow.task_options(state, task):
        pushed.add(place_on_topic(card, list(spot.red), list(spot.white), task.seat, option))
    return [Term("PUSH_OFF", seat=s) for s in sorted(pushed - {-1})]


def _action_terms(state: State, task: Any) -> list[Term]:
    # Red Actions against a named player: what they name lies face up on the table. Other Actions
    # (a Substitute from the hand, say) could reveal what only their owner knows.
    found: list[Term] = []
    for move in flow.task_options(state, task):
        if isinstance(move, Act) and move.seat >= 0 and CONTENT.actions[move.action].red:
            term = Term("ACTION", seat=move.seat, action=move.action, staffer=move.staffer)
            if term not in found:
                found.append(term)
    return found


_TERMS = {
    "speech": _speech_terms,
    "order_tie": lambda s, t: [Term("ORDER_TIE", seat=m.seat) for m in flow.task_options(s, t)],
    "consent": lambda s, t: [Term("CONSENT")],
    "topic": _push_off_terms,
    "white": _push_off_terms,
    "resolve": _action_terms,
    "imitate": _action_terms,
}


def met(term: Term, move: Any, events: list[Event]) -> bool:
    """Whether ``move`` (with the events it caused) makes the decision as ``term`` says."""
    kind = term.kind
    if kind == "REDUCE_VOTES":
        return isinstance(move, Speech) and move.seat == term.seat and move.amount > 0
    if kind == "SPARE_VOTES":
        return isinstance(move, Speech) and move.amount == 0
    if kind == "ORDER_TIE":
        return isinstance(move, OrderTie) and move.seat == term.seat
    if kind == "CONSENT":
        return isinstance(move, Consent) and move.agree
    if kind == "PUSH_OFF":
        return isinstance(move, PlaceOnTopic) and any(
            e.payload.kind == "PUSHED_OFF_WHITE" and e.payload.seat == term.seat for e in events
        )
    return (isinstance(move, Act) and move.action == term.action and move.seat == term.seat
            and move.staffer == term.staffer)


def options(state: State, seat: Seat, acting: bool) -> list[Any]:
    """The deal moves of ``seat``: the one owing the decision may decline offers made to it;
    every other player may make an offer (within MAX_OFFERS) and withdraw its own."""
    found: list[Any] = []
    for number, offer in enumerate(state.offers):
        if acting and offer.seat == seat:
            found.append(DeclineOffer(number))
        elif offer.offerer == seat:
            found.append(WithdrawOffer(number))
    task = _decision(state)
    if acting or task is None or task.seat == seat:
        return found
    budget = state.seats[seat].budget
    if sum(1 for o in state.offers if o.offerer == seat) >= MAX_OFFERS or budget <= 0:
        return found
    amounts = [n for n in OFFER_AMOUNTS if n <= budget]
    return found + [OfferDeal(task.seat, n, term) for term in terms(state) for n in amounts]


def apply(state: State, seat: Seat, move: Any, acting: bool) -> tuple[State, list[Event]]:
    """Make, withdraw or decline an offer; whose turn it is does not change."""
    if not _well_formed(move) or move not in options(state, seat, acting):
        raise IllegalMoveError("BAD_OFFER", _REFUSAL[type(move)])
    # Only one seat and the offers change; the rest is shared (every apply clones before it mutates).
    new = state.sharing()
    new.seats = list(state.seats)
    new.offers = list(state.offers)
    events: list[Event] = []
    if isinstance(move, OfferDeal):
        new.seats[seat] = state.seats[seat].clone()
        new.seats[seat].budget -= move.amount
        new.offers.append(Offer(seat, move.seat, move.amount, move.term))
        say(events, Happening("OFFER_MADE", seat=seat, other=move.seat, amount=move.amount, term=move.term))
    else:
        offer = new.offers.pop(move.offer)
        new.seats[offer.offerer] = state.seats[offer.offerer].clone()
        new.seats[offer.offerer].budget += offer.amount
        kind = "OFFER_WITHDRAWN" if isinstance(move, WithdrawOffer) else "OFFER_DECLINED"
        say(events, Happening(kind, seat=offer.offerer, other=offer.seat, amount=offer.amount, term=offer.term))
    return new, events


def _well_formed(move: Any) -> bool:
    """Exact types only: True equals 1 in Python, but is no seat."""
    if isinstance(move, OfferDeal):
        term = move.term
        return (type(move.seat) is int and type(move.amount) is int and type(term) is Term and type(term.kind) is str
                and type(term.seat) is int and type(term.action) is str and type(term.staffer) is int)
    return type(move.offer) is int


_REFUSAL = {
    OfferDeal: f"offer 1 to {OFFER_AMOUNTS[-1]} of your Budget points to the player owing the decision now, for one of the"
               f" ways it may make it (at most {MAX_OFFERS} pending offers each)",
    WithdrawOffer: "withdraw one of your own pending offers",
    DeclineOffer: "decline one of the pending offers made to you",
}


def settle(state: State, seat: Seat, move: Any, caused: list[Event], events: list[Event]) -> None:
    """``seat`` has made its decision with ``move`` (which caused ``caused``): each offer made to
    it pays out if met and returns to its maker if not."""
    if not any(offer.seat == seat for offer in state.offers):
        return
    kept = []
    for offer in state.offers:
        if offer.seat != seat:
            kept.append(offer)
            continue
        if met(offer.term, move, caused):
            state.seats[seat].budget += offer.amount
            say(events, Happening("OFFER_KEPT", seat=offer.offerer, other=seat, amount=offer.amount, term=offer.term))
        else:
            state.seats[offer.offerer].budget += offer.amount
            say(events, Happening("OFFER_RETURNED", seat=offer.offerer, other=seat, amount=offer.amount, term=offer.term))
    state.offers = kept


def release_stale(state: State, events: list[Event]) -> None:
    """Return every offer whose decision is no longer the one owed now (after a step that moved
    the game on: a new task, phase or round). Offers are settled with their decision, so this
    finds none unless a rule removes a decision without its player making it."""
    task = _decision(state)
    stale = [o for o in state.offers if task is None or o.seat != task.seat]
    for offer in stale:
        state.seats[offer.offerer].budget += offer.amount
        say(events, Happening("OFFER_RETURNED", seat=offer.offerer, other=offer.seat, amount=offer.amount, term=offer.term))
    if stale:
        state.offers = [o for o in state.offers if o not in stale]
