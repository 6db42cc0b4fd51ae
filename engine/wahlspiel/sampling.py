"""Determinization for Wahlspiel: a full table that one seat cannot tell from the real one.

``sample_state`` redeals what the seat does not see: the other parties' voter and event hands
(same sizes), the order of both stacks, a coalition offer's card that only the partners saw (a
card of the kind the table saw, from the giver's hand) and the voters other parties sent to a
run-off. Pools are sorted before they are shuffled, so the sample depends only on what the seat
sees and on ``rng``.
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
    offer = state.coalition.pending if state.coalition is not None else None
    giver = state.current
    partners = state.coalition is not None and seat in (state.current, state.coalition.partner)
    # A card offered to the seat stays in the giver's hand: the seat has seen it.
    kept = offer.give_card if offer is not None and offer.give_card and partners else ""
    others = [p for p in range(len(state.parties)) if p != seat]
    runoff = state.runoff
    hidden_sent = [i for i, s in enumerate(runoff.sent) if s.party != seat and s.card] if runoff is not None else []
    hands: dict[int, dict[str, tuple[str, ...]]] = {p: {} for p in others}
    stacks: dict[str, tuple[str, ...]] = {}
    sent_cards: list[str] = []
    for hand_name, stack_name in (("voters", "voter_stack"), ("events", "event_stack")):
        stack: tuple[str, ...] = getattr(state, stack_name)
        movable = {p: [c for c in getattr(state.parties[p], hand_name) if c != kept] for p in others}
        pool = [c for p in others for c in movable[p]] + list(stack)
        if hand_name == "voters" and runoff is not None:
            pool += [runoff.sent[i].card for i in hidden_sent]
        pool.sort()
        rng.shuffle(pool)
        for p in others:
            fixed = [c for c in getattr(state.parties[p], hand_name) if c == kept]
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
    if offer is not None and offer.give_card and not partners:
        # The table saw only the kind of the offered card; it lies in the giver's hand.
        kind = card_kind(offer.give_card)
        hand = hands[giver]["voters" if kind == "voter" else "events"]
        card = hand[rng.below(len(hand))]
        changes["coalition"] = replace(state.coalition, pending=replace(offer, give_card=card))
    if runoff is not None and hidden_sent:
        sent = list(runoff.sent)
        for i, card in zip(hidden_sent, sent_cards):
            sent[i] = RunoffSent(sent[i].party, card)
        changes["runoff"] = replace(runoff, sent=tuple(sent))
    return replace(state, **changes)
