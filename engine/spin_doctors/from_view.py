"""A Spin Doctors table rebuilt from the ``GameView`` one seat is sent: the inverse of its view.

Everything the view shows is taken from it: the public table, the seat's own Staff and face-down
Programme cards, how many Staffers and Programme cards every other seat holds, how many cards lie
face down and in each deck. What it hides is laid down first as stand-ins of the right number,
then drawn by ``sampling.sample_state`` exactly as a search bot's samples are, so the rebuilt
table is one of the tables the seat cannot tell from the real one.

Which Locality the Debate takes next is not on the table; it follows from the round, the phase
and the Locality being debated.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hustings.engine.base import Seat, enum_name
from hustings.engine.errors import InvalidOptionsError
from hustings.engine.rng import Rng
from hustings.engine.spin_doctors import codec
from hustings.engine.spin_doctors.content import CONTENT
from hustings.engine.spin_doctors.model import (
    CANDIDATE,
    CHOOSING,
    DEAL_TERMS,
    DEBATE,
    FINISHED,
    GROUPS,
    NEWS_FIELDS,
    OPENING,
    PHASES,
    PLANNING,
    PROGRAMME_CARDS,
    RESOLUTION,
    SIDE_MOVE_LIMIT,
    STAFFERS,
    Offer,
    Played,
    Player,
    SpinDoctorsOptions,
    Spot,
    State,
    Task,
    Term,
)
from hustings.engine.spin_doctors.rules import to_act
from hustings.engine.spin_doctors.sampling import redeal_news, sample_state, shuffled

KIND = "spin_doctors"
_DECISIONS = frozenset({"reveal", "plan", "order_tie", "resolve", "imitate", "turnout", "white", "topic", "broadcast", "arrange",
                        "consent", "blackmail", "speech", "name_winner"})
"""The task kinds a view may show pending (the automatic ones never wait for anybody)."""
_STEPS = _DECISIONS | {"activity", "red", "change_topic"}
"""The task kinds a view may show queued."""
_ON_BOARD = frozenset({"resolve", "imitate", "blackmail"})
"""The task kinds about a Staffer on the board."""


def _refuse(why: str) -> ValueError:
    return ValueError(f"not a Spin Doctors view this rebuild can use: {why}")


def _check(condition: bool, why: str) -> None:
    if not condition:
        raise _refuse(why)


def state_from_view(view: Any, seat: int, rng: Rng) -> State:
    """A full table that ``seat``, shown ``view``, cannot tell from the real one; its hidden parts
    drawn with ``rng`` as ``sample_state`` draws them. Raises ValueError for a view of another
    kind, a spectator's view, a view of another seat, or one the rules cannot have produced."""
    _check(view.kind == KIND, f"the view is of kind {view.kind[:40]!r}")
    _check(view.WhichOneof("game") == KIND, "the view carries no Spin Doctors table")
    _check(view.HasField("seat"), "a spectator's view (no seat) hides what a seat knows of its own")
    _check(type(seat) is int and view.seat == seat, f"the view is seat {view.seat}'s, not seat {seat}'s")
    try:
        options = codec.options_from_proto(view.options)
    except InvalidOptionsError as error:
        raise _refuse(f"its options: {error}") from error
    _check(0 <= seat < options.players, f"seat {seat} is not one of the {options.players} seats")
    table = view.spin_doctors
    state = _table(table, options, seat)
    if enum_name(view, "status", "GAME_STATUS_") == "ACTIVE":  # only then are the seats to act listed
        _check(sorted(to_act(state)) == list(view.to_act), "the seats to act are not the ones the table owes a decision")
    if state.phase == FINISHED:
        # Every Staff and Programme lies open now, and the sampler keeps a finished table as it
        # is: only the decks and the Red-field News nobody showed this seat are still unseen.
        redeal_news(state, seat, rng)
        state.topic_deck = shuffled(state.topic_deck, rng)
        return state
    return sample_state(state, seat, rng)


def _table(table: Any, options: SpinDoctorsOptions, seat: Seat) -> State:
    """The state with stand-ins for what the seat does not see."""
    phase = enum_name(table, "phase", "SPIN_DOCTORS_PHASE_")
    _check(phase in PHASES, f"phase {table.phase} is none of the game's")
    _check(len(table.players) == options.players, f"{len(table.players)} players for {options.players} seats")
    _check(len(table.localities) == len(CONTENT.localities), "the table does not hold every Locality")
    _check(len(table.news) == NEWS_FIELDS and len(table.news_face_down) == NEWS_FIELDS, "the News track has other fields")
    _check(len(table.turnout_markers) == GROUPS, "a Turnout marker per Voter Group expected")
    board = [_played(b, seat, options.players) for b in table.board_staffers]
    news, known = _news(table, seat, options.players)
    state = State(
        options=options,
        phase=phase,
        round=table.round,
        favourite=table.favourite,
        seats=[_player(p, i, seat, board) for i, p in enumerate(table.players)],
        spots=[_spot(loc, i) for i, loc in enumerate(table.localities)],
        turnout_markers=list(table.turnout_markers),
        news=news,
        news_known=known,
        news_deck=[],
        news_discard=list(table.news_discard),
        topic_deck=[],
        topic_discard=list(table.topic_discard),
        board=board,
        field_now=table.field_now,
        coordinated=[[p.seat, p.field] for p in table.coordinated],
        protected=[[p.seat, p.field] for p in table.protected],
        winner=table.named_winner,
        scandals_aside=list(table.scandals_aside),
        offers=[_offer(o) for o in table.offers],
    )
    _check(0 <= state.favourite < options.players, "the Favourite is no seat")
    state.side_moves = _side_moves(table) if phase != FINISHED else []  # the last decision reset them
    state.tasks = _tasks(state, table, seat)
    state.debate_next = _debate_next(state)
    _decks(state, table, seat)
    return state


def _played(b: Any, seat: Seat, players: int) -> Played:
    _check(0 <= b.seat < players and 1 <= b.field <= 6, "a Staffer on the board of no seat or on no field")
    shown = b.face_up or b.seat == seat
    _check(shown == (b.staffer >= 0), "a Staffer on the board shown face down or hidden face up")
    _check(b.staffer < len(CONTENT.staffers), f"Staffer {b.staffer} is not in the game")
    # Another seat's face-down Staffer is a stand-in: the sampler deals it from that seat's Staff.
    return Played(b.seat, b.staffer if shown else -1, b.field, face_up=b.face_up, resolved=b.resolved, blocked=b.blocked)


def _player(p: Any, index: int, seat: Seat, board: list[Played]) -> Player:
    _check(p.seat == index, "players out of seat order")
    _check(p.staff_count in (1, CONTENT.staff_size), f"a Staff of {p.staff_count}")
    _check(len(p.votes) == GROUPS, "a Vote marker per Voter Group expected")
    face_up = list(p.programme_face_up)
    _check(len(set(face_up)) == len(face_up) and set(face_up) <= set(PROGRAMME_CARDS), "unknown or repeated Programme cards")
    _check(len(face_up) <= p.programme_count <= CONTENT.programme_size, "more Programme cards face up than held")
    on_board = [b.staffer for b in board if b.seat == index]
    if p.staff_count == 1:
        staff = [CANDIDATE]
    elif index == seat or p.staff:  # its own, or anybody's once the game is over
        staff = sorted(p.staff)
        _check(len(staff) == p.staff_count and len(set(staff)) == len(staff), "a Staff is not shown whole")
        _check(staff[0] == CANDIDATE and set(staff) <= {CANDIDATE, *STAFFERS}, "the Staff is not the Candidate and Staffers")
        _check(set(on_board) <= set(staff), "a Staffer of the seat on the board is not in its Staff")
    else:
        # Stand-ins: the sampler keeps the Candidate and the face-up Staffers and redeals the rest.
        shown = {s for s in on_board if s >= 0}
        _check(shown <= {CANDIDATE, *STAFFERS}, "an unknown Staffer face up")
        staff = sorted(shown | {CANDIDATE})
        staff += [s for s in STAFFERS if s not in staff][: p.staff_count - len(staff)]
        _check(len(staff) == p.staff_count, "more Staffers on the board than in the Staff")
    _check(p.hand_count == len(staff) - len(on_board), "the Staffers in hand do not add up")
    if index == seat or p.programme_face_down:
        face_down = list(p.programme_face_down)
        _check(len(face_up) + len(face_down) == p.programme_count, "a Programme is not shown whole")
    else:
        face_down = [c for c in PROGRAMME_CARDS if c not in face_up][: p.programme_count - len(face_up)]
    programme = face_up + face_down
    _check(len(set(programme)) == len(programme) and set(programme) <= set(PROGRAMME_CARDS), "unknown or repeated Programme cards")
    _check(0 <= p.poll_changes_made <= 2, "more than two changes after the Poll")
    return Player(
        staff=staff, programme=programme, face_up=face_up, budget=p.budget, supply=p.supply, pool=p.pool,
        votes=list(p.votes), shown=list(p.shown_staffers), gave=p.handed_over, poll_step=p.poll_changes_made,
    )


def _spot(loc: Any, index: int) -> Spot:
    _check(loc.locality == index, "Localities out of order")
    _check(loc.turnout_card in CONTENT.turnout_cards and loc.topic_card in CONTENT.topic_cards, "an unknown card on a Locality")
    _check(len(loc.turnout_tokens) == CONTENT.turnout_cards[loc.turnout_card].fields, "a Turnout card with other fields")
    return Spot(loc.turnout_card, list(loc.turnout_tokens), loc.topic_card, list(loc.red_tokens), list(loc.white_tokens),
                list(loc.activity_tokens))


def _news(table: Any, seat: Seat, players: int) -> tuple[list[str], list[list[int]]]:
    """The News track with "?" standing in for face-down cards the seat has not seen, and who
    has seen each Red field's card."""
    reds = CONTENT.red_news_fields
    news, known = [], []
    _check(len(table.news_seen_by) == reds, "who has seen each Red field's card is not shown")
    for i, (card, face_down) in enumerate(zip(table.news, table.news_face_down)):
        _check(face_down == (i < reds and (face_down or bool(card))), "a card face down off the Red fields, or face up on one")
        _check(not card or card in CONTENT.news_cards, f"unknown News card {card[:40]!r}")
        news.append(card if card or not face_down else "?")
        if i < reds:
            seen_by = table.news_seen_by[i]
            _check(seen_by == -1 or (face_down and 0 <= seen_by < players), "a Red field's card seen by no seat")
            _check(bool(card) == (seen_by == seat), "a card shown to a seat that has not seen it, or hidden from the one that has")
            known.append([seen_by] if seen_by >= 0 else [])
    return news, known


def _offer(o: Any) -> Offer:
    kind = enum_name(o.term, "kind", "SPIN_DOCTORS_DEAL_TERM_KIND_")
    _check(kind in DEAL_TERMS, "an offer without a term")
    return Offer(o.offerer, o.seat, o.amount, Term(kind, o.term.seat, o.term.action, o.term.staffer))


def _side_moves(table: Any) -> list[int]:
    made = [SIDE_MOVE_LIMIT - p.side_moves_left for p in table.players]
    _check(all(0 <= n <= SIDE_MOVE_LIMIT for n in made), "side moves left out of range")
    # The count is kept only once somebody has made one (see State.side_moves).
    return made if any(made) else []


def _task(state: State, q: Any, seat: Seat, pending: bool) -> Task:
    """A step of the queue as its task (the view shows the Staffer it is about by its place on
    the board); another seat's cards for Media Influence are dealt with the decks (``_decks``)."""
    kinds = _DECISIONS if pending else _STEPS
    _check(q.kind in kinds, f"{'pending decision' if pending else 'queued step'} {q.kind[:40]!r} is none of the game's")
    _check(0 <= q.seat < state.players, f"a {q.kind} step of no seat")
    _check(-1 <= q.board_index < len(state.board), f"a {q.kind} step about no Staffer on the board")
    _check(q.board_index >= 0 or q.kind not in _ON_BOARD, f"a {q.kind} step about no Staffer")
    _check(q.seat == seat or not q.cards, "cards of another seat's step shown")
    return Task(q.kind, q.seat, q.locality, q.board_index, q.other_seat, q.amount, list(q.cards))


def _tasks(state: State, table: Any, seat: Seat) -> list[Task]:
    """The pending decision and the steps the rules have queued behind it."""
    if not table.HasField("pending") or state.phase == FINISHED:
        _check(not table.queued, "steps queued behind no pending decision")
        return []
    return [_task(state, table.pending, seat, True)] + [_task(state, q, seat, False) for q in table.queued]


def _debate_next(state: State) -> int:
    """The next Locality the Debate takes: 0 until the first Debate, all ten once a Debate is
    over, the one after the pending one during a Debate."""
    if state.phase == DEBATE and state.tasks:
        return state.tasks[0].locality + 1
    before_first = state.round <= 1 and state.phase in (CHOOSING, OPENING, PLANNING, RESOLUTION)
    return 0 if before_first else len(state.spots)


def _decks(state: State, table: Any, seat: Seat) -> None:
    """The News and Topic decks (and the cards another seat holds for Media Influence) as
    stand-ins of the right number, from every card the seat has not seen."""
    seen = Counter(c for c in state.news if c and c != "?")
    seen.update(state.news_discard)
    seen.update(state.scandals_aside)
    for task in state.tasks:
        seen.update(task.cards)
    unseen = Counter(list(CONTENT.news_cards))
    unseen.subtract(seen)
    _check(all(n >= 0 for n in unseen.values()), "a News card shown twice")
    hidden = sorted(unseen.elements())
    face_down = state.news.count("?")
    holding = [t for t in range(len(state.tasks)) if state.tasks[t].kind == "arrange" and state.tasks[t].seat != seat]
    held = len(hidden) - face_down - table.news_deck_count
    _check(held >= 0 and (held == 0 or holding), "the News cards do not add up")
    pool = iter(hidden)
    state.news = [next(pool) if c == "?" else c for c in state.news]
    for t in holding:
        task = state.tasks[t]
        state.tasks[t] = Task(task.kind, task.seat, task.locality, task.index, task.other, task.amount,
                              [next(pool) for _ in range(held)])
    state.news_deck = list(pool)
    on_table = Counter(s.topic_card for s in state.spots)
    on_table.update(state.topic_discard)
    deck = Counter(list(CONTENT.topic_cards))
    deck.subtract(on_table)
    _check(all(n >= 0 for n in deck.values()), "a Topic card shown twice")
    state.topic_deck = sorted(deck.elements())
    _check(len(state.topic_deck) == table.topic_deck_count, "the Topic cards do not add up")
