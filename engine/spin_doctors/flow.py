"""The round: News update, planning, resolution, Debate, Turnout change, the Favourite's speech,
Poll and Election, run as a queue of tasks.

``advance`` performs automatic tasks and tasks with a single option until a real decision is
owed (or the game ends); when the queue is empty it takes the next step of the round.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any, Callable

from hustings.engine.base import Event, evolve
from hustings.engine.rng import Rng
from hustings.engine.spin_doctors import actions
from hustings.engine.spin_doctors.board import (
    clamp,
    next_favourite,
    place_on_topic,
    place_on_turnout,
    topic_options,
    turnout_paths,
)
from hustings.engine.spin_doctors.content import CONTENT
from hustings.engine.spin_doctors.model import (
    BLUE,
    BREAKING_NEWS,
    CANDIDATE,
    CHOOSING,
    DEBATE,
    ELECTION,
    FIELDS,
    FINISHED,
    GROUPS,
    OPENING,
    PLANNING,
    POLL,
    POLL_CHANGES,
    RESOLUTION,
    SPEECH,
    Act,
    AnswerBlackmail,
    ArrangeNews,
    Broadcast,
    Consent,
    Happening,
    NameWinner,
    OrderTie,
    PlaceOnTopic,
    PlaceSupport,
    Played,
    PlayStaffer,
    RevealProgramme,
    Speech,
    State,
    Task,
    say,
)
from hustings.engine.spin_doctors.scoring import settle_localities, tied_for_first

AUTOMATIC = frozenset({"activity", "red", "change_topic"})
PLAYS = {(staffer, f): PlayStaffer(staffer, f) for staffer in range(len(CONTENT.staffers)) for f in FIELDS}
"""Every planning move, made once: the planning options are listed at every step of a round."""
ELECTION_ROUND = CONTENT.election_round


# --- the options of a task ---------------------------------------------------------------------


def _tied(state: State) -> list[int]:
    """Indexes of the unresolved Staffers with the lowest order on the field being resolved."""
    here = [i for i, p in enumerate(state.board) if p.field == state.field_now and not p.resolved]
    if not here:
        return []
    low = min(state.board[i].staffer for i in here)
    return [i for i in here if state.board[i].staffer == low]


def _speech_options(state: State, task: Task) -> list[Speech]:
    card = CONTENT.news_cards[state.news[BREAKING_NEWS]]
    options = [Speech()]
    if card.is_scandal:
        if card.scandal != task.seat:
            options += [Speech(card.scandal, g, n) for g in range(GROUPS) for n in (1, 2) if state.seats[card.scandal].votes[g] > 0]
    else:
        options += [
            Speech(s, card.group, n) for s in range(state.players) for n in (1, 2)
            if s != task.seat and state.seats[s].votes[card.group] > 0
        ]
    return options


def _arrangements(state: State, task: Task) -> list[ArrangeNews]:
    size = min(CONTENT.red_news_fields, len(task.cards))
    return [ArrangeNews(p) for p in permutations(task.cards, size)]


OPTIONS: dict[str, Callable[[State, Task], list[Any]]] = {
    "reveal": lambda s, t: [RevealProgramme(c) for c in s.seats[t.seat].face_down],
    "plan": lambda s, t: [
        PLAYS[staffer, f]
        for staffer in ([CANDIDATE] if not any(p.seat == t.seat for p in s.board) else s.hand(t.seat))
        for f in FIELDS
    ],
    "order_tie": lambda s, t: [OrderTie(s.board[i].seat) for i in _tied(s)],
    "resolve": actions.resolve_options,
    "imitate": actions.imitate_options,
    "turnout": lambda s, t: [
        PlaceSupport(p) for p in turnout_paths(CONTENT.turnout_cards[s.spots[t.locality].turnout_card], s.spots[t.locality].turnout)
    ] if s.seats[t.seat].supply > 0 else [],
    "white": lambda s, t: [
        o for o in topic_options(CONTENT.topic_cards[s.spots[t.locality].topic_card], s.spots[t.locality].red, s.spots[t.locality].white)
        if not o.red
    ] if s.seats[t.seat].supply > 0 else [],
    "topic": lambda s, t: topic_options(CONTENT.topic_cards[s.spots[t.locality].topic_card], s.spots[t.locality].red, s.spots[t.locality].white),
    "broadcast": lambda s, t: [
        Broadcast(s.news[b]) for b in BLUE if s.news[b] and not CONTENT.news_cards[s.news[b]].is_scandal
    ],
    "arrange": _arrangements,
    "consent": lambda s, t: [Consent(True), Consent(False)],
    "blackmail": lambda s, t: ([AnswerBlackmail(True)] if s.seats[t.seat].budget >= t.amount else []) + [AnswerBlackmail(False)],
    "speech": _speech_options,
    "name_winner": lambda s, t: [NameWinner(seat) for seat in tied_for_first(s)],
}


def task_options(state: State, task: Task) -> list[Any]:
    """The decisions a decision task offers (empty: nothing can be done, the task is skipped)."""
    return OPTIONS[task.kind](state, task)


# --- performing a task -------------------------------------------------------------------------


def perform(state: State, task: Task, move: Any, rng: Rng, events: list[Event]) -> None:
    """Carry out ``task`` with ``move`` (one of its options; None for an automatic task)."""
    kind, seat = task.kind, task.seat
    me = state.seats[seat]
    if kind == "reveal":
        me.face_up.append(move.card)
        say(events, Happening("PROGRAMME_REVEALED", seat=seat, cards=(move.card,)))
    elif kind == "plan":
        _play(state, seat, move, events)
    elif kind == "order_tie":
        index = next(i for i in _tied(state) if state.board[i].seat == move.seat)
        say(events, Happening("TIE_ORDERED", seat=move.seat, staffer=state.board[index].staffer, field=state.field_now))
        _begin(state, index, events)
    elif kind in ("resolve", "imitate"):
        if kind == "resolve":
            state.board[task.index] = evolve(state.board[task.index], resolved=True)
        if isinstance(move, Act):
            actions.perform(state, task, move, rng, events)
        else:
            say(events, Happening("DECLINED", seat=seat, staffer=state.board[task.index].staffer, field=state.board[task.index].field))
    elif kind == "turnout":
        spot = state.changed_spot(task.locality)
        me.supply -= 1
        pushed = place_on_turnout(spot.turnout, move.path, seat)
        if pushed >= 0:
            state.seats[pushed].supply += 1
        say(events, Happening("TURNOUT_TOKEN", seat=seat, locality=task.locality, other=pushed, path=move.path))
    elif kind == "activity":
        add_activity(state, seat, task.locality, task.amount, events)
    elif kind == "red":
        spot = state.spots[task.locality]
        if me.supply > 0 and len(spot.red) < CONTENT.topic_cards[spot.topic_card].red_fields:
            me.supply -= 1
            spot = state.changed_spot(task.locality)
            place_on_topic(CONTENT.topic_cards[spot.topic_card], spot.red, spot.white, seat, PlaceOnTopic(True))
            say(events, Happening("TOPIC_TOKEN", seat=seat, locality=task.locality, amount=1))
    elif kind in ("white", "topic"):
        _place_on_topic(state, task, move, events)
    elif kind == "broadcast":
        _broadcast(state, seat, move.card, events)
    elif kind == "arrange":
        _arrange(state, seat, task, move, events)
    elif kind == "consent":
        say(events, Happening("CONSENT", seat=seat, locality=task.locality, other=task.other, amount=int(move.agree)))
        if not move.agree:
            _refuse(state, task)
    elif kind == "change_topic":
        _change_topic(state, seat, task.locality, events)
    elif kind == "blackmail":
        _answer_blackmail(state, task, move.pay, events)
    elif kind == "speech":
        if move.amount:
            votes = state.seats[move.seat].votes
            votes[move.group] = clamp(votes[move.group] - move.amount)
        say(events, Happening("SPEECH", seat=seat, other=move.seat, group=move.group, amount=move.amount))
    elif kind == "name_winner":
        state.winner = move.seat
        say(events, Happening("WINNER_NAMED", seat=seat, other=move.seat))
    else:
        raise ValueError(f"unknown task {kind!r}")


def _play(state: State, seat: int, move: PlayStaffer, events: list[Event]) -> None:
    face_up = move.staffer == CANDIDATE
    state.board.append(Played(seat, move.staffer, move.field, face_up=face_up))
    if face_up:
        say(events, Happening("STAFFER_PLAYED", seat=seat, staffer=move.staffer, field=move.field, amount=1))
    else:
        events.append(Event(
            Happening("STAFFER_PLAYED", seat=seat, staffer=move.staffer, field=move.field),
            visible_to=frozenset((seat,)),
            redacted=Happening("STAFFER_PLAYED", seat=seat, field=move.field),
        ))


def _place_on_topic(state: State, task: Task, move: PlaceOnTopic, events: list[Event]) -> None:
    spot = state.changed_spot(task.locality)
    seat = task.seat
    if task.kind == "topic":
        spot.activity.remove(seat)
    else:
        state.seats[seat].supply -= 1
    pushed = place_on_topic(CONTENT.topic_cards[spot.topic_card], spot.red, spot.white, seat, move)
    say(events, Happening("TOPIC_TOKEN", seat=seat, locality=task.locality, amount=int(move.red), other=pushed))
    if pushed >= 0:
        owner = state.seats[pushed]
        owner.supply += 1
        group = actions.group_of(state, task.locality)
        owner.votes[group] = clamp(owner.votes[group] + 1)
        say(events, Happening("PUSHED_OFF_WHITE", seat=pushed, locality=task.locality, group=group, amount=1))


def _broadcast(state: State, seat: int, card_id: str, events: list[Event]) -> None:
    topic = CONTENT.news_cards[card_id].topic
    say(events, Happening("BROADCAST", seat=seat, cards=(card_id,)))
    for loc, spot in enumerate(state.spots):
        if CONTENT.topic_cards[spot.topic_card].topic == topic:
            extra = 1 if actions.trait_of(state, loc) == "everything_matters" else 0
            add_activity(state, seat, loc, 1 + extra, events)


def add_activity(state: State, seat: int, locality: int, amount: int, events: list[Event]) -> None:
    """Put up to ``amount`` of ``seat``'s Support tokens on top of an Activity stack."""
    me = state.seats[seat]
    count = min(amount, me.supply)
    me.supply -= count
    if count:
        state.changed_spot(locality).activity += [seat] * count
        say(events, Happening("ACTIVITY_TOKENS", seat=seat, locality=locality, amount=count))


def _arrange(state: State, seat: int, task: Task, move: ArrangeNews, events: list[Event]) -> None:
    for slot, card in enumerate(move.cards):
        state.news[slot] = card
        state.news_known[slot] = [seat]
    discarded = tuple(c for c in task.cards if c not in move.cards)
    state.news_discard += discarded
    events.append(Event(
        Happening("NEWS_ARRANGED", seat=seat, cards=move.cards),
        visible_to=frozenset((seat,)),
        redacted=Happening("NEWS_ARRANGED", seat=seat),
    ))
    if discarded:
        say(events, Happening("NEWS_DISCARDED", seat=seat, cards=discarded))


def _refuse(state: State, task: Task) -> None:
    while state.tasks and state.tasks[0].kind == "consent" and state.tasks[0].locality == task.locality:
        state.tasks.pop(0)
    change = state.tasks.pop(0)
    state.seats[change.seat].budget += change.amount
    # The Action was not carried out, so Everything Matters adds nothing either.
    if state.tasks and (state.tasks[0].kind, state.tasks[0].seat, state.tasks[0].locality) == ("activity", change.seat, change.locality):
        state.tasks.pop(0)


def _change_topic(state: State, seat: int, locality: int, events: list[Event]) -> None:
    spot = state.changed_spot(locality)
    for owner in spot.red + spot.white:
        state.seats[owner].supply += 1
    state.topic_discard.append(spot.topic_card)
    spot.topic_card = state.topic_deck.pop(0)
    spot.red, spot.white = [], []
    say(events, Happening("TOPIC_CHANGED", seat=seat, locality=locality, cards=(state.topic_discard[-1], spot.topic_card)))


def _answer_blackmail(state: State, task: Task, pay: bool, events: list[Event]) -> None:
    if pay:
        state.seats[task.seat].budget -= task.amount
        state.seats[task.other].budget += task.amount
    else:
        state.board[task.index] = evolve(state.board[task.index], blocked=True)
    say(events, Happening("BLACKMAIL_ANSWERED", seat=task.seat, other=task.other, amount=task.amount if pay else 0,
                          staffer=state.board[task.index].staffer))


# --- the round ---------------------------------------------------------------------------------


def advance(state: State, rng: Rng, events: list[Event]) -> None:
    """Run automatic steps until a decision is owed or the game is over."""
    while state.phase != FINISHED:
        if state.tasks:
            task = state.tasks[0]
            if task.kind in AUTOMATIC:
                state.tasks.pop(0)
                perform(state, task, None, rng, events)
                continue
            options = task_options(state, task)
            if len(options) > 1:
                return
            state.tasks.pop(0)
            if options:
                perform(state, task, options[0], rng, events)
            continue
        if state.phase in (CHOOSING, POLL_CHANGES) and not simultaneous_done(state):
            return
        _step(state, rng, events)


def simultaneous_done(state: State) -> bool:
    """True when every seat has finished the current secret simultaneous choice."""
    if state.phase == CHOOSING:
        return all(len(p.programme) == CONTENT.programme_size for p in state.seats)
    return all(p.poll_step == 2 for p in state.seats)


def _step(state: State, rng: Rng, events: list[Event]) -> None:
    phase = state.phase
    if phase == CHOOSING:
        say(events, Happening("STAFFS_CHOSEN"))
        state.phase = OPENING
        state.tasks = [Task("reveal", s) for s in state.order_from(state.favourite)]
    elif phase == OPENING:
        start_round(state, 1, events)
    elif phase == PLANNING:
        state.board = [evolve(played, face_up=True) for played in state.board]
        for played in state.board:
            if played.staffer not in state.seats[played.seat].shown:
                state.seats[played.seat].shown.append(played.staffer)
        say(events, Happening("STAFFERS_REVEALED", revealed=tuple((p.seat, p.staffer, p.field) for p in state.board)))
        state.phase, state.field_now = RESOLUTION, FIELDS[0]
    elif phase == RESOLUTION:
        _next_staffer(state, events)
    elif phase == DEBATE:
        _debate_step(state, events)
    elif phase == SPEECH:
        _end_of_round(state, events)
    elif phase == POLL:
        settle_localities(state, events)
        for player in state.seats:
            player.poll_step = 0
        state.phase = POLL_CHANGES
    elif phase == POLL_CHANGES:
        say(events, Happening("POLL_CHANGES_MADE"))
        start_round(state, state.round + 1, events)
    elif phase == ELECTION:
        state.phase = FINISHED


def start_round(state: State, number: int, events: list[Event]) -> None:
    """The News update, then action planning from the Favourite."""
    state.round = number
    say(events, Happening("ROUND_STARTED", amount=number))
    news_update(state, events)
    state.phase = PLANNING
    per_round = CONTENT.staffers_per_round[number - 1]
    state.tasks = [Task("plan", s) for _ in range(per_round) for s in state.order_from(state.favourite)]


def news_update(state: State, events: list[Event]) -> None:
    """Shift the News track one field right (the last card to the discard pile), reveal the card
    reaching the first Blue field, and lay the top of the News deck on the first Red field."""
    reds = CONTENT.red_news_fields
    if state.news[-1]:
        state.news_discard.append(state.news[-1])
    state.news = [""] + state.news[:-1]
    state.news_known = [[]] + state.news_known[: reds - 1]
    if state.news[reds]:
        say(events, Happening("NEWS_REVEALED", cards=(state.news[reds],), amount=reds))
    if state.news_deck:
        state.news[0] = state.news_deck.pop(0)


def scandal_blocks(state: State, seat: int) -> bool:
    """True while the Scandal card of ``seat``'s colour lies on a Blue field."""
    return any(state.news[b] and CONTENT.news_cards[state.news[b]].scandal == seat for b in BLUE)


def _next_staffer(state: State, events: list[Event]) -> None:
    tied = _tied(state)
    if not tied:
        if state.field_now < FIELDS[-1]:
            state.field_now += 1
            return
        state.board, state.coordinated, state.protected = [], [], []
        state.phase, state.debate_next = DEBATE, 0
        return
    if len(tied) > 1:
        state.tasks.append(Task("order_tie", state.favourite))
        return
    _begin(state, tied[0], events)


def _begin(state: State, index: int, events: list[Event]) -> None:
    played = state.board[index]
    if played.blocked or (played.staffer == CANDIDATE and scandal_blocks(state, played.seat)):
        state.board[index] = evolve(played, resolved=True)
        say(events, Happening("STAFFER_FORGOES", seat=played.seat, staffer=played.staffer, field=played.field))
        return
    state.tasks.append(Task("resolve", played.seat, index=index))


def _debate_step(state: State, events: list[Event]) -> None:
    if state.debate_next < len(state.spots):
        locality = state.debate_next
        state.debate_next += 1
        spot = state.changed_spot(locality)
        first: list[int] = []
        for seat in reversed(spot.activity):
            if seat in first:
                state.seats[seat].pool += 1
            else:
                first.append(seat)
        spot.activity = list(reversed(first))
        state.tasks = [Task("topic", seat, locality) for seat in first]
        return
    pools = [p.pool for p in state.seats]
    state.favourite = next_favourite(pools, state.favourite)
    say(events, Happening("FAVOURITE", seat=state.favourite, pools=tuple(pools)))
    for player in state.seats:
        player.supply += player.pool
        player.pool = 0
    breaking = state.news[BREAKING_NEWS]
    state.phase = SPEECH
    if not breaking:
        return
    card = CONTENT.news_cards[breaking]
    if card.is_scandal:
        if card.scandal < state.players:
            state.tasks.append(Task("speech", state.favourite))
        return
    state.turnout_markers[card.group] = clamp(state.turnout_markers[card.group] + card.turnout_change)
    say(events, Happening("TURNOUT_CHANGED", group=card.group, amount=card.turnout_change, cards=(breaking,)))
    votes = state.seats[state.favourite].votes
    votes[card.group] = clamp(votes[card.group] + 1)
    say(events, Happening("SPEECH_VOTE", seat=state.favourite, group=card.group, amount=1))
    state.tasks.append(Task("speech", state.favourite))


def _end_of_round(state: State, events: list[Event]) -> None:
    if state.round == ELECTION_ROUND[state.players]:
        for seat, player in enumerate(state.seats):
            for card in player.face_down:
                player.face_up.append(card)
                say(events, Happening("PROGRAMME_REVEALED", seat=seat, cards=(card,)))
        settle_localities(state, events)
        state.phase = ELECTION
        if len(tied_for_first(state)) > 1:
            state.tasks.append(Task("name_winner", state.favourite))
        return
    if state.round == CONTENT.poll_round:
        state.phase = POLL
        state.tasks = [Task("reveal", s) for s in state.order_from(state.favourite)]
        return
    start_round(state, state.round + 1, events)
