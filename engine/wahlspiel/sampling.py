"""Determinization for Wahlspiel: a full table that one seat cannot tell from the real one.

``sample_state`` redeals what the seat does not see: the other parties' voter and event hands
(same sizes), the order of both stacks, the cards of a coalition offer (drafted or put) and
those handed over for it, which only the two sides saw (cards of the kinds the table saw, from
the right hand), the voters other parties sent to a run-off, and the verdicts other judges have
given in an open ballot (each yes or no at random). Pools are sorted before they are shuffled, so
the sample depends only on what the seat sees and on ``rng``.
"""

from __future__ import annotations

from hustings.engine.base import Seat
from hustings.engine.rng import Rng
from hustings.engine.wahlspiel.model import FINISHED, RunoffSent, WahlspielState
from hustings.engine.wahlspiel.table import card_kind, replace


def sample_state(state: WahlspielState, seat: Seat, rng: Rng) -> WahlspielState:
    """A table consistent with everything ``seat`` sees of ``state``, its unseen cards redealt."""
    if state.step == FINISHED:
        return state
    coalition = state.coalition
    partners = coalition is not None and coalition.partner >= 0 and seat in (state.current, coalition.partner)
    # Cards in an offer or handed over for it: (owner, cards, what), seen by the two sides only.
    shown: list[tuple[int, tuple[str, ...], str]] = []
    if coalition is not None and coalition.partner >= 0:
        proposer = state.current if coalition.proposer < 0 else coalition.proposer
        answerer = coalition.partner if proposer == state.current else state.current
        offer = coalition.pending if coalition.pending is not None else coalition.draft
        shown = [(proposer, offer.give_cards, "offer"), (answerer, coalition.handed, "handed")]
    # Cards the seat has seen in an offer stay where they are.
    kept = {c for _, cards, _ in shown for c in cards} if partners else set()
    others = [p for p in range(len(state.parties)) if p != seat]
    runoff = state.runoff
    hidden_sent = [i for i, s in enumerate(runoff.sent) if s.party != seat and s.card] if runoff is not None else []
    hands: dict[int, dict[str, tuple[str, ...]]] = {p: {} for p in others}
    stacks: dict[str, tuple[str, ...]] = {}
    sent_cards: list[str] = []
    for hand_name, stack_name in (("voters", "voter_stack"), ("events", "event_stack")):
        stack: tuple[str, ...] = getattr(state, stack_name)
        movable = {p: [c for c in getattr(state.parties[p], hand_name) if c not in kept] for p in others}
        pool = [c for p in others for c in movable[p]] + list(stack)
        if hand_name == "voters" and runoff is not None:
            pool += [runoff.sent[i].card for i in hidden_sent]
        pool.sort()
        rng.shuffle(pool)
        for p in others:
            fixed = [c for c in getattr(state.parties[p], hand_name) if c in kept]
            count = len(movable[p])
            hands[p][hand_name] = tuple(sorted(fixed + pool[:count]))
            pool = pool[count:]
        if hand_name == "voters":
            sent_cards, pool = pool[: len(hidden_sent)], pool[len(hidden_sent) :]
        stacks[stack_name] = tuple(pool)
    parties = list(state.parties)
    for p in others:
        parties[p] = replace(parties[p], **hands[p])
    changes: dict[str, object] = {"parties": tuple(parties), **stacks}
    if coalition is not None and not partners and any(cards for _, cards, _ in shown):
        # The table saw only the kinds of these cards; each lies, distinct, in its owner's hand.
        redealt: dict[str, tuple[str, ...]] = {}
        for owner, cards, what in shown:
            chosen: list[str] = []
            for card in cards:
                hand_name = "voters" if card_kind(card) == "voter" else "events"
                free = [c for c in hands[owner][hand_name] if c not in chosen]
                chosen.append(free[rng.below(len(free))])
            redealt[what] = tuple(chosen)
        if coalition.pending is not None:
            coalition = replace(coalition, pending=replace(coalition.pending, give_cards=redealt["offer"]))
        else:
            coalition = replace(coalition, draft=replace(coalition.draft, give_cards=redealt["offer"]))
        changes["coalition"] = replace(coalition, handed=redealt["handed"])
    if runoff is not None and hidden_sent:
        sent = list(runoff.sent)
        for i, card in zip(hidden_sent, sent_cards):
            sent[i] = RunoffSent(sent[i].party, card)
        changes["runoff"] = replace(runoff, sent=tuple(sent))
    ballot = state.ballot
    if ballot is not None and any(v.judge != seat for v in ballot.verdicts):
        verdicts = tuple([v if v.judge == seat else replace(v, verdict=rng.below(2) == 1) for v in ballot.verdicts])
        changes["ballot"] = replace(ballot, verdicts=verdicts)
    return replace(state, **changes)
