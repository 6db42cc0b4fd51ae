"""Deck-keeping twins for the conformance suite's leak test (tests/test_conformance.py).

A game's own ``secret_twin`` changes a seat's secrets and also reorders what nobody sees (deck
order), so a step that draws a card shows the twins different cards, and the suite must then let
their public events differ. A secret copied into a public event at such a step would hide among
those differences. The twins here change one seat's secrets and keep every card a step can draw
where it was: a hand is exchanged only with cards from the bottom of its deck, and ``drew_alike``
tells whether the step reached them. Where it did not, nothing the others receive may differ
unless the rules reveal something at that step.

One maker per registered kind; a game added to the registry needs its own here (the suite checks
that every kind has one).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

from hustings.engine import Rng
from hustings.engine.spin_doctors.content import CONTENT as SPIN_DOCTORS_CONTENT
from hustings.engine.spin_doctors.game import GAME as SPIN_DOCTORS
from hustings.engine.spin_doctors.model import FINISHED as SD_FINISHED
from hustings.engine.stimmvieh.model import ANGELUS_PARTY, CHOOSING, POLITICIANS, TOP_CANDIDATE_COUNT, ElectionNight
from hustings.engine.stimmvieh.model import FINISHED as ST_FINISHED
from hustings.engine.wahlspiel.model import FINISHED as WS_FINISHED


@dataclass(frozen=True)
class DeckKeepingTwin:
    """A state differing from the original only in one seat's secrets (and in secrets nobody
    knows, such as Angelus' face-down cards), with every card that a step may draw at the same
    place. ``drew_alike(after)`` is True when the step, giving ``after`` from the original, drew
    none of the cards moved to the bottom of a deck, so it drew the same cards in both."""

    state: Any
    drew_alike: Callable[[Any], bool]


@dataclass(frozen=True)
class _Exchange:
    """Secret cards after an exchange with a stack, the stack after it, and how many of the
    stack's bottom cards the exchange has used (those of earlier exchanges included)."""

    hidden: tuple[str, ...]
    stack: tuple[str, ...]
    used: int


def _exchange(hidden: Sequence[str], stack: Sequence[str], visible: int, used: int, rng: Rng) -> _Exchange:
    """``hidden`` with as many of its cards as the stack can give (below its ``visible`` top
    cards and above its ``used`` bottom ones) exchanged, at random places, for the stack's
    bottom cards, which go in random order; the stack takes the secret cards in their place."""
    count = min(len(hidden), max(0, len(stack) - visible - used))
    if not count:
        return _Exchange(tuple(hidden), tuple(stack), used)
    cards, rest = list(hidden), list(stack)
    places = list(range(len(cards)))
    rng.shuffle(places)
    end = len(rest) - used
    bottom = rest[end - count : end]
    rng.shuffle(bottom)
    for i, place in enumerate(places[:count]):
        cards[place], bottom[i] = bottom[i], cards[place]
    rest[end - count : end] = bottom
    return _Exchange(tuple(cards), tuple(rest), used + count)


def _bottom_untouched(before: Sequence[str], after: Sequence[str], count: int, visible: int) -> bool:
    """True when ``after`` is ``before`` less cards taken from the top (no reshuffle) and its
    bottom ``count`` cards are still below the ``visible`` top."""
    if not count:
        return True
    return len(after) >= count + visible and tuple(after) == tuple(before[len(before) - len(after) :])


def _all_untouched(checks: list[tuple[str, tuple[str, ...], int, int]]) -> Callable[[Any], bool]:
    """``drew_alike`` for exchanges with the stacks named in ``checks`` (name, the stack before,
    cards exchanged, visible top cards)."""

    def drew_alike(after: Any) -> bool:
        return all(_bottom_untouched(before, getattr(after, name), count, visible) for name, before, count, visible in checks)

    return drew_alike


# --- Stimmvieh ---------------------------------------------------------------------------------


def _stimmvieh(state: Any, owner: int, mover: int, move: Any, rng: Rng) -> DeckKeepingTwin | None:
    """Other top candidates for a seat that has chosen (and for Angelus), and its collected cards
    below the top (and Angelus') exchanged for cards from the bottom of their stacks. A stack's
    top is face up, and a draw turns up the next card: two visible."""
    if state.phase == ST_FINISHED:
        return None
    owners = [owner] + ([ANGELUS_PARTY] if state.options.with_angelus else [])
    parties = list(state.parties)
    if state.phase == CHOOSING:
        for party in owners:
            if parties[party].chosen:
                others = [p for p in POLITICIANS if p not in parties[party].chosen]
                rng.shuffle(others)
                kept = list(parties[party].chosen)
                rng.shuffle(kept)
                # One to four top candidates swapped for politicians left in hand.
                swapped = 1 + rng.below(TOP_CANDIDATE_COUNT)
                chosen = tuple(sorted(kept[swapped:] + others[:swapped]))
                parties[party] = replace(parties[party], chosen=chosen)
    stacks: dict[str, tuple[str, ...]] = {}
    checks = []
    for stack_name, pile in (("vote_stack", "votes"), ("donation_stack", "donations")):
        stack = getattr(state, stack_name)
        used = 0
        for party in owners:
            cards = getattr(parties[party], pile)
            done = _exchange(cards[:-1], stack, 2, used, rng)
            stack, used = done.stack, done.used
            parties[party] = replace(parties[party], **{pile: done.hidden + cards[-1:]})
        stacks[stack_name] = stack
        checks.append((stack_name, getattr(state, stack_name), used, 1))
    return DeckKeepingTwin(replace(state, parties=tuple(parties), **stacks), _all_untouched(checks))


def _stimmvieh_shows(event: Any) -> bool:
    """Election night counts every collected stack (the rulebook's reveal of the totals)."""
    return isinstance(event.payload, ElectionNight)


# --- Wahlspiel ---------------------------------------------------------------------------------


def _named_cards(move: Any) -> set[str]:
    """The cards a Wahlspiel move names (the one cast, played, given or handed over)."""
    return {getattr(move, name) for name in ("card", "give_card") if getattr(move, name, "")}


def _wahlspiel(state: Any, owner: int, mover: int, move: Any, rng: Rng) -> DeckKeepingTwin | None:
    """The seat's hands exchanged for cards from the bottom of the stacks, but the cards its move
    names and the cards the other coalition side has been shown or handed; the other verdict
    for each of its verdicts in an open ballot."""
    if state.step == WS_FINISHED:
        return None
    party = state.parties[owner]
    known = _named_cards(move) if owner == mover else set()
    coalition = state.coalition
    if coalition is not None and coalition.partner >= 0 and owner in (state.current, coalition.partner):
        known.update(coalition.draft.give_cards, coalition.pending.give_cards if coalition.pending else (), coalition.handed)
    hands = {}
    stacks = {}
    checks = []
    for hand_name, stack_name in (("voters", "voter_stack"), ("events", "event_stack")):
        hand: tuple[str, ...] = getattr(party, hand_name)
        movable = [c for c in hand if c not in known]
        done = _exchange(movable, getattr(state, stack_name), 0, 0, rng)
        hands[hand_name] = tuple(sorted([c for c in hand if c in known] + list(done.hidden)))
        stacks[stack_name] = done.stack
        checks.append((stack_name, getattr(state, stack_name), done.used, 0))
    parties = list(state.parties)
    parties[owner] = replace(party, **hands)
    ballot = state.ballot
    if ballot is not None:
        verdicts = tuple(replace(v, verdict=not v.verdict) if v.judge == owner else v for v in ballot.verdicts)
        ballot = replace(ballot, verdicts=verdicts)
    return DeckKeepingTwin(replace(state, parties=tuple(parties), ballot=ballot, **stacks), _all_untouched(checks))


# --- The Spin Doctors ----------------------------------------------------------------------------


def _spin_doctors(state: Any, owner: int, mover: int, move: Any, rng: Rng) -> DeckKeepingTwin | None:
    """The game's own twin (other face-down Staffers, Staff in hand and face-down Programme
    cards) with the Topic deck as it was, and the News only the seat has seen (face down on a
    Red field, or held to arrange, unless it is arranging them now) exchanged for cards from the
    bottom of the News deck."""
    if state.phase == SD_FINISHED:
        return None
    twin = SPIN_DOCTORS.secret_twin(state, owner, rng)
    twin.news, twin.topic_deck = list(state.news), list(state.topic_deck)
    # News nobody has seen is left alone: like a deck's cards, a step may show it to somebody.
    slots = [i for i in range(SPIN_DOCTORS_CONTENT.red_news_fields) if state.news[i] and set(state.news_known[i]) == {owner}]
    held = [t for t, task in enumerate(state.tasks) if task.kind == "arrange" and task.seat == owner and (t, owner) != (0, mover)]
    done = _exchange([state.news[i] for i in slots] + [c for t in held for c in state.tasks[t].cards], state.news_deck, 0, 0, rng)
    cards = iter(done.hidden)
    for i in slots:
        twin.news[i] = next(cards)
    for t in held:
        twin.tasks[t] = replace(state.tasks[t], cards=[next(cards) for _ in state.tasks[t].cards])
    twin.news_deck = list(done.stack)
    return DeckKeepingTwin(twin, _all_untouched([("news_deck", tuple(state.news_deck), done.used, 0)]))


# --- by kind -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Kind:
    make: Callable[[Any, int, int, Any, Rng], DeckKeepingTwin | None]
    shows: Callable[[Any], bool]


KINDS: dict[str, _Kind] = {
    "stimmvieh": _Kind(_stimmvieh, _stimmvieh_shows),
    "wahlspiel": _Kind(_wahlspiel, lambda event: False),
    "spin_doctors": _Kind(_spin_doctors, lambda event: False),
}
"""Every registered kind's twin maker, and which events show by the rules what the twins change
besides those marked ``reveals``."""


def deck_keeping_twin(kind: str, state: Any, owner: int, step: tuple[int, Any], rng: Rng) -> DeckKeepingTwin | None:
    """A deck-keeping twin of ``state`` differing in ``owner``'s secrets, fit for ``step`` (the
    seat about to move and its move, which stays legal), or None once the game is over."""
    mover, move = step
    return KINDS[kind].make(state, owner, mover, move, rng)


def reveals_by_rules(kind: str, event: Any) -> bool:
    """True when ``event`` may show by the rules what a deck-keeping twin changes: it is marked
    ``reveals``, or it is one the kind names (Stimmvieh's election night counts every collected
    stack, hidden cards included)."""
    return bool(event.reveals) or KINDS[kind].shows(event)
