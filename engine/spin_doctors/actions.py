"""Staffer Actions: which ones a resolving Staffer may take (enumerated with their targets and
costs, the voter traits included) and what each one does.

An Action's lasting decisions (where a Turnout token goes, which News card is broadcast, ...)
become follow-up tasks of the same seat, or of another seat where the rules say so (consent to a
Topic change, the answer to Blackmail).
"""

from __future__ import annotations

from itertools import combinations
from typing import Callable

from hustings.engine.base import Event, evolve
from hustings.engine.rng import Rng
from hustings.engine.spin_doctors.board import clamp
from hustings.engine.spin_doctors.content import CONTENT, Action
from hustings.engine.spin_doctors.model import (
    BLACKMAIL_PRICE,
    BLUE,
    FIELDS,
    GROUPS,
    MEDIA,
    Act,
    Decline,
    Happening,
    Played,
    State,
    Task,
    say,
)

DOUBLED_BY_COORDINATION = frozenset({
    "rally_of_support", "local_campaign", "meet_and_greet", "fundraising", "change_topic", "protest", "smear",
    "take_over_topic", "family_statement",
})
"""Every Region Action that names Localities of the Region: under Coordinate Actions each may be
carried out in both Localities at once (the ready-made Staffs combine Local Structures with the
Press Spokesperson's Change Topic, the Candidate's Family and the Celebrity)."""
TOPIC_HOLDERS = frozenset({"protest", "take_over_topic"})
"""Actions that name a player holding a token on the Topic card (the others: on the Turnout card)."""
SUPPORT_SPENT = {"smear": 1, "take_over_topic": 1, "family_statement": 2}
"""Support tokens an Action places per Locality (it is not offered without them)."""
LOCALITY_TARGETS = frozenset({"locality", "two_localities", "locality_seat"})
REGION_LOCALITIES = {f: CONTENT.localities_of(f) if f != MEDIA else () for f in FIELDS}
"""The Localities of each field (none on the Media field), looked up at every listed Action."""


def trait_of(state: State, locality: int) -> str:
    """The voter trait of the Turnout card lying in ``locality``."""
    return CONTENT.turnout_cards[state.spots[locality].turnout_card].trait


def group_of(state: State, locality: int) -> int:
    """The dominant Voter Group of ``locality``."""
    return CONTENT.turnout_cards[state.spots[locality].turnout_card].group


def targeted(act: Act, field: int) -> list[int]:
    """The Localities an Action names (both of the Region for a coordinated one)."""
    action = CONTENT.actions[act.action]
    if action.target not in LOCALITY_TARGETS:
        return []
    if action.target == "two_localities" and act.locality >= 0:
        return [act.locality, act.second]
    return [act.locality] if act.locality >= 0 else list(REGION_LOCALITIES[field])


def cost_of(state: State, act: Act, field: int, base: int) -> int:
    """The Action's cost: the Staffer's coin plus 1 per named Locality with Prices Go Up."""
    return base + sum(1 for loc in targeted(act, field) if trait_of(state, loc) == "prices_go_up")


def _unresolved_here(state: State, seat: int, field: int, index: int) -> list[int]:
    return [
        i for i, p in enumerate(state.board)
        if p.field == field and not p.resolved and i != index and p.seat != seat and [p.seat, field] not in state.protected
    ]


def _targets(state: State, seat: int, index: int, action: Action) -> list[Act]:
    """Every target of ``action`` for the Staffer ``index`` (before costs)."""
    me = state.seats[seat]
    field = state.board[index].field
    here = REGION_LOCALITIES[field]
    a = action.id
    kind = action.target
    others = [s for s in range(state.players) if s != seat]
    if kind == "none":
        if a == "media_influence" and not any(state.news[: CONTENT.red_news_fields]) and not state.news_deck:
            return []
        if a in ("coordinate_actions", "protection") and [seat, field] in (state.coordinated if a == "coordinate_actions" else state.protected):
            return []
        return [Act(a)]
    coordinated = a in DOUBLED_BY_COORDINATION and [seat, field] in state.coordinated
    if kind == "locality":
        acts = [Act(a, locality=loc) for loc in here if _locality_ok(state, seat, a, loc)]
        if coordinated and len(acts) == len(here) and _both_ok(state, seat, a, here):
            acts.append(Act(a))
        return acts
    if kind == "two_localities":
        acts = [
            Act(a, locality=x, second=y) for x in here for y in here
            if x != y and _red_free(state, x) and me.supply >= SUPPORT_SPENT[a]
        ]
        if coordinated and all(_red_free(state, x) for x in here) and me.supply >= len(here) + 1:
            acts += [Act(a, second=y) for y in here]  # a Red field in both Localities, the White one in ``second``
        return acts
    if kind == "group":
        return [Act(a, group=g) for g in range(GROUPS)]
    if kind == "group_step":
        return [
            Act(a, group=g, step=st) for g in range(GROUPS) for st in (-1, 1)
            if clamp(state.turnout_markers[g] + st) != state.turnout_markers[g]
        ]
    if kind == "two_groups":
        return [Act(a, group=g, second=h) for g, h in combinations(range(GROUPS), 2) if me.votes[g] != me.votes[h]]
    if kind == "news_blue":
        return [Act(a, card=state.news[b]) for b in BLUE if state.news[b]] if state.news_deck else []
    if kind == "staffer_here":
        return [Act(a, seat=state.board[i].seat, staffer=state.board[i].staffer) for i in _unresolved_here(state, seat, field, index)]
    if kind == "staffer_copy":
        return [
            Act(a, seat=p.seat, staffer=p.staffer) for i, p in enumerate(state.board)
            if p.field == field and i != index and p.face_up
            and any(CONTENT.actions[b].usable_on(field) for b in CONTENT.staffers[p.staffer].basic)
        ]
    if kind == "own_hand":
        return [Act(a, staffer=s) for s in state.hand(seat)]
    if kind == "own_later":
        return [Act(a, staffer=p.staffer) for p in state.board if p.seat == seat and not p.resolved and p.field > field]
    if kind == "seat":
        if state.options.scandals_set_aside:
            aside = {CONTENT.news_cards[c].scandal for c in state.scandals_aside}
            return [Act(a, seat=s) for s in others if s in aside]
        shown = {CONTENT.news_cards[c].scandal for c in state.news_discard + [state.news[b] for b in BLUE] if c}
        return [Act(a, seat=s) for s in others if s not in shown]
    if kind == "seat_group":
        if a == "steal_votes":
            return [Act(a, seat=s, group=g) for s in others for g in range(GROUPS) if state.seats[s].votes[g] > 0]
        return [Act(a, seat=s, group=g) for s in others for g in range(GROUPS) if state.seats[s].votes[g] != me.votes[g]]
    if kind == "locality_seat":
        spent = SUPPORT_SPENT.get(a, 0)
        held = {loc: _holders(state, a, loc) for loc in here}
        acts = [Act(a, locality=loc, seat=s) for loc in here for s in others if s in held[loc] and me.supply >= spent]
        if coordinated and me.supply >= spent * len(here):
            acts += [Act(a, seat=s) for s in others if all(s in held[loc] for loc in here)]
        return acts
    raise ValueError(f"unknown target kind {kind!r}")


def _locality_ok(state: State, seat: int, action: str, loc: int) -> bool:
    if action == "change_topic":
        return bool(state.topic_deck)
    return True


def _both_ok(state: State, seat: int, action: str, here: tuple[int, ...]) -> bool:
    """Whether a coordinated ``action`` can be carried out in every Locality of the Region.
    Change Topic in both needs two Topic cards in the deck and no other player's consent (a
    blocked card is changed with the one-Locality form, which asks its holders)."""
    if action == "change_topic":
        return len(state.topic_deck) >= len(here) and not any(_consent_needed(state, seat, loc) for loc in here)
    return True


def _consent_needed(state: State, seat: int, loc: int) -> bool:
    """True when every Red field of the Topic card is occupied and another player holds one."""
    spot = state.spots[loc]
    return len(spot.red) == CONTENT.topic_cards[spot.topic_card].red_fields and bool(set(spot.red) - {seat})


def _red_free(state: State, loc: int) -> bool:
    spot = state.spots[loc]
    return len(spot.red) < CONTENT.topic_cards[spot.topic_card].red_fields


def _holders(state: State, action: str, loc: int) -> list[int]:
    """The owners of the tokens ``action`` may name in ``loc``: on the Topic card or the Turnout card."""
    spot = state.spots[loc]
    return spot.red + spot.white if action in TOPIC_HOLDERS else spot.turnout


def act_options(state: State, seat: int, index: int, actions: tuple[str, ...], base: int) -> list[Act]:
    """Every affordable Act with ``actions`` usable where Staffer ``index`` stands."""
    field = state.board[index].field
    budget = state.seats[seat].budget
    options = []
    for action_id in actions:
        action = CONTENT.actions[action_id]
        if action.usable_on(field):
            options += [act for act in _targets(state, seat, index, action) if cost_of(state, act, field, base) <= budget]
    return options


def resolve_options(state: State, task: Task) -> list[Act | Decline]:
    """A resolving Staffer: decline, or a Basic or Special Action with its target."""
    staffer = CONTENT.staffers[state.board[task.index].staffer]
    options: list[Act | Decline] = [Decline()]
    options += act_options(state, task.seat, task.index, staffer.basic, staffer.basic_cost)
    if staffer.special_cost is not None:
        options += act_options(state, task.seat, task.index, staffer.special, staffer.special_cost)
    return options


def imitate_options(state: State, task: Task) -> list[Act | Decline]:
    """Imitation: one Basic Action of the copied Staffer ``task.other`` (order), at no cost."""
    return [Decline(), *act_options(state, task.seat, task.index, CONTENT.staffers[task.other].basic, 0)]


def base_cost(state: State, task: Task, act: Act) -> int:
    """The Staffer's coin for ``act`` (0 when imitating)."""
    if task.kind == "imitate":
        return 0
    staffer = CONTENT.staffers[state.board[task.index].staffer]
    return staffer.basic_cost if act.action in staffer.basic else staffer.special_cost or 0


def perform(state: State, task: Task, act: Act, rng: Rng, events: list[Event]) -> None:
    """Pay for and carry out ``act`` (already checked legal), voter traits included."""
    seat, index = task.seat, task.index
    field = state.board[index].field
    me = state.seats[seat]
    cost = cost_of(state, act, field, base_cost(state, task, act))
    me.budget -= cost
    localities = targeted(act, field)
    say(events, Happening("ACTION", seat=seat, staffer=state.board[index].staffer, field=field, locality=act.locality,
                            group=act.group, amount=cost, other=act.seat, action=act.action, cards=(act.card,) if act.card else (),
                            second=act.second, step=act.step, target_staffer=act.staffer))
    if CONTENT.actions[act.action].red:
        for loc in localities:
            group = group_of(state, loc)
            if trait_of(state, loc) == "down_with_dirty_politics" and me.votes[group] > 0:
                me.votes[group] -= 1
                say(events, Happening("VOTES_LOST_TO_TRAIT", seat=seat, locality=loc, group=group, amount=1))
    EFFECTS[act.action](state, seat, index, act, localities, rng, events)
    if act.action == "change_topic":
        state.tasks[-1] = evolve(state.tasks[-1], amount=cost)  # refunded if a Red-field holder refuses
    for loc in localities:
        if trait_of(state, loc) == "everything_matters":
            state.tasks.append(Task("activity", seat, loc, amount=1))


Effect = Callable[[State, int, int, Act, list[int], Rng, list[Event]], None]


def _rally(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    for loc in locs:
        state.tasks += [Task("turnout", seat, loc), Task("activity", seat, loc, amount=1)]


def _local_campaign(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    state.tasks += [Task("turnout", seat, loc) for loc in locs]


def _meet_and_greet(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    state.tasks += [Task("activity", seat, loc, amount=2) for loc in locs]


def _fundraising(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    for loc in locs:
        state.seats[seat].budget += CONTENT.turnout_cards[state.spots[loc].turnout_card].funding


def _gain_votes(amount: int) -> Effect:
    def gain(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
        votes = state.seats[seat].votes
        votes[act.group] = clamp(votes[act.group] + amount)

    return gain


def _election_spot(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    _gain_votes(1)(state, seat, index, act, locs, rng, events)
    state.tasks.append(Task("broadcast", seat))


def _report(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    state.tasks.append(Task("broadcast", seat))


def _substitute(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    state.board.append(Played(seat, act.staffer, state.board[index].field, face_up=True))
    if act.staffer not in state.seats[seat].shown:
        state.seats[seat].shown.append(act.staffer)


def _take_the_lead(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    moved = next(i for i, p in enumerate(state.board) if p.seat == seat and p.staffer == act.staffer)
    state.board[moved] = evolve(state.board[moved], field=state.board[index].field)


def _media_influence(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    reds = range(CONTENT.red_news_fields)
    cards = [state.news[r] for r in reds if state.news[r]]
    if state.news_deck:
        cards.append(state.news_deck.pop(0))
    for r in reds:
        state.news[r] = ""
        state.news_known[r] = []
    state.tasks.append(Task("arrange", seat, cards=cards))


def _find(state: State, act: Act) -> int:
    return next(i for i, p in enumerate(state.board) if p.seat == act.seat and p.staffer == act.staffer)


def _undermine(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    target = _find(state, act)
    state.board[target] = evolve(state.board[target], blocked=True)


def _blackmail(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    state.tasks.append(Task("blackmail", act.seat, index=_find(state, act), other=seat, amount=BLACKMAIL_PRICE))


def _imitation(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    state.tasks.append(Task("imitate", seat, index=index, other=act.staffer))


def _mark(name: str) -> Effect:
    def mark(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
        getattr(state, name).append([seat, state.board[index].field])

    return mark


def _family_statement(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    if act.locality >= 0:
        state.tasks += [Task("red", seat, act.locality), Task("white", seat, act.second)]
        return
    # Coordinated: the Red field (the one-Locality part) in both Localities, the White as usual.
    state.tasks += [Task("red", seat, loc) for loc in locs] + [Task("white", seat, act.second)]


def _change_topic(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    for loc in locs:
        spot = state.spots[loc]
        card = CONTENT.topic_cards[spot.topic_card]
        holders = sorted(set(spot.red) - {seat}) if len(spot.red) == card.red_fields else []
        ordered = [s for s in state.order_from(seat) if s in holders]
        state.tasks += [Task("consent", s, loc, other=seat) for s in ordered]
        state.tasks.append(Task("change_topic", seat, loc))


def _change_news(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    slot = state.news.index(act.card)
    state.news_discard.append(act.card)
    state.news[slot] = state.news_deck.pop(0)
    say(events, Happening("NEWS_REVEALED", cards=(state.news[slot],), amount=slot))


def _topmost(tokens: list[int], seat: int) -> int:
    """The index of ``seat``'s highest token in ``tokens`` (bottom first)."""
    return len(tokens) - 1 - tokens[::-1].index(seat)


def _protest(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    for loc in locs:
        spot = state.changed_spot(loc)
        fields = spot.white if act.seat in spot.white else spot.red
        del fields[_topmost(fields, act.seat)]
        state.seats[act.seat].supply += 1


def _replace_token(state: State, seat: int, other: int, tokens: list[int]) -> None:
    """``seat``'s token takes the field of ``other``'s topmost token, which returns to its owner."""
    tokens[_topmost(tokens, other)] = seat
    state.seats[other].supply += 1
    state.seats[seat].supply -= 1


def _smear(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    for loc in locs:
        _replace_token(state, seat, act.seat, state.changed_spot(loc).turnout)


def _take_over_topic(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    # A Red field first: holding it is what blocks a change of the Topic card.
    for loc in locs:
        spot = state.changed_spot(loc)
        _replace_token(state, seat, act.seat, spot.red if act.seat in spot.red else spot.white)


def _steal_votes(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    state.seats[act.seat].votes[act.group] -= 1
    state.seats[seat].votes[act.group] = clamp(state.seats[seat].votes[act.group] + 1)


def _vote_swap(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    mine, theirs = state.seats[seat].votes, state.seats[act.seat].votes
    mine[act.group], theirs[act.group] = theirs[act.group], mine[act.group]


def _mobilisation(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    state.turnout_markers[act.group] = clamp(state.turnout_markers[act.group] + act.step)


def _realignment(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    votes = state.seats[seat].votes
    votes[act.group], votes[act.second] = votes[act.second], votes[act.group]


def _triggering_a_scandal(state: State, seat: int, index: int, act: Act, locs: list[int], rng: Rng, events: list[Event]) -> None:
    # Listed while the Scandal is not face up; if it lies face down on a Red field the search of
    # the deck finds nothing (printed: "playing this particular Scandal card is impossible").
    source = state.scandals_aside if state.options.scandals_set_aside else state.news_deck
    found = [c for c in source if CONTENT.news_cards[c].scandal == act.seat]
    if not found:
        rng.shuffle(state.news_deck)
        say(events, Happening("SCANDAL_NOT_FOUND", seat=seat, other=act.seat))
        return
    card = found[0]
    source.remove(card)
    if not state.options.scandals_set_aside:
        rng.shuffle(state.news_deck)
    first_blue = BLUE[0]
    if state.news[first_blue]:
        state.news_discard.append(state.news[first_blue])
    state.news[first_blue] = card
    say(events, Happening("NEWS_REVEALED", cards=(card,), amount=first_blue))


EFFECTS: dict[str, Effect] = {
    "rally_of_support": _rally,
    "election_spot": _election_spot,
    "substitute": _substitute,
    "media_influence": _media_influence,
    "undermine_credibility": _undermine,
    "coordinate_actions": _mark("coordinated"),
    "family_statement": _family_statement,
    "change_topic": _change_topic,
    "change_news": _change_news,
    "protest": _protest,
    "blackmail": _blackmail,
    "triggering_a_scandal": _triggering_a_scandal,
    "report": _report,
    "fundraising": _fundraising,
    "mobilisation": _mobilisation,
    "realignment": _realignment,
    "endorsement": _gain_votes(2),
    "meet_and_greet": _meet_and_greet,
    "smear": _smear,
    "take_over_topic": _take_over_topic,
    "steal_votes": _steal_votes,
    "vote_swap": _vote_swap,
    "local_campaign": _local_campaign,
    "take_the_lead": _take_the_lead,
    "protection": _mark("protected"),
    "imitation": _imitation,
}
"""What every Action in the content does; a test checks that each content Action has one."""
