"""The rules of Wahlspiel as pure functions of a ``WahlspielState``: setup, who acts, what is
legal, and applying a decision. Chance comes only from the ``Rng`` handed in.

Legality has one source: ``legal_moves``. ``apply`` accepts exactly the listed moves, so what a
bot sees is what the rules allow.
"""

from __future__ import annotations

from itertools import combinations
from math import ceil
from typing import Any, Callable

from hustings.engine.base import Event, Seat
from hustings.engine.errors import (
    GameOverError,
    IllegalMoveError,
    InvalidOptionsError,
    MalformedMoveError,
    NotYourTurnError,
)
from hustings.engine.rng import Rng
from hustings.engine.wahlspiel import elections, turns
from hustings.engine.wahlspiel.content import (
    CONTENT,
    TARGET_CANDIDATES,
    TARGET_EVERY,
    TARGET_OWN,
    TARGET_PARTY,
)
from hustings.engine.wahlspiel.model import (
    ANSWERING,
    BALLOT,
    BUYING_EVENTS,
    BUYING_VOTERS,
    CHANGING_CANDIDATE,
    CHOOSING_PARTNER,
    CORE_VOTERS,
    EVENT,
    FINISHED,
    GOAL_VOTES,
    HANDING_OVER,
    MAX_PROPOSALS,
    MONEY_STEP,
    MAX_PLAYERS,
    MIN_PLAYERS,
    MOVE_TYPES,
    NOMINATING,
    OFFERING,
    RUNOFF,
    SENSATION,
    START_EVENTS,
    VOTER,
    VOTING,
    AnswerTrade,
    Ballot,
    BallotDecided,
    BallotOpened,
    BuyEvents,
    BuyVoters,
    Candidate,
    CandidateChanged,
    CastVoter,
    ChangeCandidate,
    ChoosePartner,
    Coalition,
    CoalitionChanged,
    EventPlayed,
    GoalVote,
    Judge,
    Judged,
    Move,
    Nominate,
    Nominated,
    Offer,
    OfferTrade,
    Party,
    ProposeOffer,
    Pass,
    PlayEvent,
    RunoffSent,
    RunoffVoterSent,
    SendRunoffVoter,
    TradeAnswered,
    TradeOffered,
    Verdict,
    VoterCast,
    WahlspielOptions,
    WahlspielState,
)
from hustings.engine.wahlspiel.table import (
    replace,
    EVENTS,
    POLITICIANS,
    VOTERS,
    add_card,
    change_money,
    change_votes,
    draw_cards,
    in_race,
    nominees,
    available,
    remove_card,
    retire,
    with_party,
)

# --- moves made once ---------------------------------------------------------------------------------


class MadeOnce(dict[Any, Move]):
    """Moves by their parameter (a content id, a count), each made once and shared (moves are
    frozen): listing the legal moves on every step then builds none, and the decoded move, taken
    from the same table, is found in the list by identity. A parameter outside the content
    makes a fresh move, which is not kept."""

    def __init__(self, make: Callable[[Any], Move], keys: Any) -> None:
        super().__init__((key, make(key)) for key in keys)
        self.make = make

    def __missing__(self, key: Any) -> Move:
        return self.make(key)


NOMINATIONS = MadeOnce(Nominate, POLITICIANS)
GOAL_VOTES_FOR = MadeOnce(GoalVote, POLITICIANS)
JUDGEMENTS = MadeOnce(lambda key: Judge(*key), [(p, verdict) for p in POLITICIANS for verdict in (True, False)])
CASTS = MadeOnce(CastVoter, VOTERS)
RUNOFF_VOTERS = MadeOnce(SendRunoffVoter, ["", *VOTERS])
CARDS_OFFERED = MadeOnce(lambda card: OfferTrade(give_card=card), [*VOTERS, *EVENTS])
CARDS_HANDED = MadeOnce(lambda card: AnswerTrade(True, card), ["", *VOTERS, *EVENTS])
PARTNERS = MadeOnce(ChoosePartner, range(MAX_PLAYERS))
PURCHASES = {
    BUYING_VOTERS: [BuyVoters(n) for n in range(len(VOTERS) + 1)],
    BUYING_EVENTS: [BuyEvents(n) for n in range(len(EVENTS) + 1)],
}
PASS = Pass()
PROPOSE = ProposeOffer()
DECLINE = AnswerTrade(False)
MONEY_OFFERED = OfferTrade(give_money=MONEY_STEP)
VOTER_ASKED = OfferTrade(ask_kind=VOTER)
EVENT_ASKED = OfferTrade(ask_kind=EVENT)
MONEY_ASKED = OfferTrade(ask_money=MONEY_STEP)


# --- options and setup -----------------------------------------------------------------------------


def validate_options(options: WahlspielOptions) -> WahlspielOptions:
    """Return ``options`` if acceptable, else raise InvalidOptionsError with a reason."""
    if type(options.players) is not int or not MIN_PLAYERS <= options.players <= MAX_PLAYERS:
        raise InvalidOptionsError("BAD_PLAYER_COUNT", f"Wahlspiel is played by {MIN_PLAYERS} to {MAX_PLAYERS} players")
    if options.single_national_candidate and options.players < 5:
        raise InvalidOptionsError(
            "BAD_VARIANT", "one national council candidate per party is the variant for 5 or 6 players"
        )
    return options


def setup(options: WahlspielOptions, rng: Rng) -> WahlspielState:
    """A new game: politicians dealt evenly (the rest set aside), start money, 4 core voters and
    2 events per party dealt secretly, the first nominations due."""
    validate_options(options)
    players = options.players
    politicians = sorted(POLITICIANS)
    voters = sorted(VOTERS)
    events = sorted(EVENTS)
    rng.shuffle(politicians)
    rng.shuffle(voters)
    rng.shuffle(events)
    share = len(politicians) // players
    money = CONTENT.start_money_three_players if players == 3 else CONTENT.start_money
    parties = tuple(
        Party(
            politicians=tuple(sorted(politicians[i * share : (i + 1) * share])),
            money=money,
            voters=tuple(sorted(voters[i * CORE_VOTERS : (i + 1) * CORE_VOTERS])),
            events=tuple(sorted(events[i * START_EVENTS : (i + 1) * START_EVENTS])),
        )
        for i in range(players)
    )
    state = WahlspielState(
        options=options,
        round=1,
        step=NOMINATING,
        current=0,
        start_party=0,
        parties=parties,
        voter_stack=tuple(voters[players * CORE_VOTERS :]),
        event_stack=tuple(events[players * START_EVENTS :]),
    )
    return replace(state, current=turns.next_nominator(state) or 0)


# --- who acts, what is legal ----------------------------------------------------------------------------


def to_act(state: WahlspielState) -> frozenset[Seat]:
    """The seats owing a decision now."""
    if state.step == FINISHED:
        return frozenset()
    if state.step in (OFFERING, ANSWERING, HANDING_OVER):
        assert state.coalition is not None
        proposer = proposing_side(state)
        return frozenset((proposer if state.step == OFFERING else other_side(state, proposer),))
    if state.step == BALLOT:
        assert state.ballot is not None
        ballot = state.ballot
        return frozenset(j for j in ballot.judges if _next_in_question(ballot, j) is not None)
    if state.step == RUNOFF:
        assert state.runoff is not None
        decided = {s.party for s in state.runoff.sent}
        return frozenset(p for p in state.runoff.parties if p not in decided)
    return frozenset((state.current,))


def _next_in_question(ballot: Ballot, judge: int) -> str | None:
    judged = {v.politician for v in ballot.verdicts if v.judge == judge}
    return next((p for p in ballot.politicians if p not in judged), None)


def event_moves(state: WahlspielState, party: int) -> list[Move]:
    """Every way ``party`` can play each event card in hand (a card whose property finds too few
    candidates can still be played, to no effect)."""
    moves: list[Move] = []
    for card_id in state.parties[party].events:
        card = EVENTS[card_id]
        if card.target == TARGET_CANDIDATES:
            matching = [c.politician for c in in_race(state, card.condition)]
            if len(matching) < card.count:
                moves.append(PlayEvent(card_id))
            else:
                moves.extend(PlayEvent(card_id, combo) for combo in combinations(matching, card.count))
        elif card.target == TARGET_PARTY:
            moves.extend(PlayEvent(card_id, party=p) for p in range(state.options.players))
        else:
            moves.append(PlayEvent(card_id))
    return moves


def proposing_side(state: WahlspielState) -> int:
    """The coalition side drafting (or having put) the current offer."""
    assert state.coalition is not None
    return state.current if state.coalition.proposer < 0 else state.coalition.proposer


def other_side(state: WahlspielState, party: int) -> int:
    """The coalition side facing ``party``."""
    assert state.coalition is not None
    return state.coalition.partner if party == state.current else state.current


def offer_moves(state: WahlspielState, party: int) -> list[Move]:
    """What ``party`` may add to its draft, one item per move: a card of its own not yet in
    it, 1000 francs more that it has, one more card of a kind the other side holds more of than
    already asked, 1000 francs more that the other side has; or put a non-empty draft."""
    assert state.coalition is not None
    draft = state.coalition.draft
    own, other = state.parties[party], state.parties[other_side(state, party)]
    moves: list[Move] = [CARDS_OFFERED[c] for c in own.voters + own.events if c not in draft.give_cards]
    if own.money >= draft.give_money + MONEY_STEP:
        moves.append(MONEY_OFFERED)
    if len(other.voters) > draft.ask_voters:
        moves.append(VOTER_ASKED)
    if len(other.events) > draft.ask_events:
        moves.append(EVENT_ASKED)
    if other.money >= draft.ask_money + MONEY_STEP:
        moves.append(MONEY_ASKED)
    if not draft.is_empty():
        moves.append(PROPOSE)
    return moves


def handing_moves(state: WahlspielState, party: int) -> list[Move]:
    """The cards ``party`` may hand over next for the accepted offer: any of its cards of a kind
    still owed."""
    assert state.coalition is not None and state.coalition.pending is not None
    offer, handed = state.coalition.pending, state.coalition.handed
    own = state.parties[party]
    moves: list[Move] = []
    if sum(c in VOTERS for c in handed) < offer.ask_voters:
        moves.extend(CARDS_HANDED[c] for c in own.voters if c not in handed)
    if sum(c in EVENTS for c in handed) < offer.ask_events:
        moves.extend(CARDS_HANDED[c] for c in own.events if c not in handed)
    return moves


def legal_moves(state: WahlspielState, seat: Seat) -> list[Move]:
    """Every legal decision of ``seat`` now, enumerated."""
    if seat not in to_act(state):
        return []
    return _owed_moves(state, seat)


def _owed_moves(state: WahlspielState, seat: Seat) -> list[Move]:
    """``legal_moves`` of a seat known to owe a decision."""
    step, own = state.step, state.parties[seat]
    if step == NOMINATING:
        return [NOMINATIONS[p] for p in available(state, seat)]
    if step == BUYING_VOTERS or step == BUYING_EVENTS:
        purchases = PURCHASES[step]
        count = max(0, turns.purchasable(state, seat, step) + 1)
        return purchases[:count] if count <= len(purchases) else purchases + [
            BuyVoters(n) if step == BUYING_VOTERS else BuyEvents(n) for n in range(len(purchases), count)
        ]
    moves: list[Move] = []
    if step == VOTING:
        moves.extend([CASTS[c] for c in own.voters])
        moves.append(PASS)
        return moves
    if step == SENSATION:
        return event_moves(state, seat) + [PASS]
    if step == CHANGING_CANDIDATE:
        moves.extend(ChangeCandidate(c.politician, p) for c in nominees(state, seat) for p in available(state, seat))
        return moves + [PASS]
    if step == CHOOSING_PARTNER:
        moves.extend([PARTNERS[p] for p in range(state.options.players) if p != seat])
        return moves + [PASS]
    if step == OFFERING:
        return offer_moves(state, seat) + [PASS]
    if step == ANSWERING:
        return [CARDS_HANDED[""], DECLINE]
    if step == HANDING_OVER:
        return handing_moves(state, seat)
    if step == BALLOT:
        assert state.ballot is not None
        politician = _next_in_question(state.ballot, seat)
        return [JUDGEMENTS[politician, True], JUDGEMENTS[politician, False]] if politician else []
    if step == GOAL_VOTES:
        return [GOAL_VOTES_FOR[c.politician] for c in in_race(state) if c.party == seat]
    if step == RUNOFF:
        moves.extend([RUNOFF_VOTERS[c] for c in own.voters if not VOTERS[c].opinion])
        return moves + [RUNOFF_VOTERS[""]]
    return []


# --- applying a move ------------------------------------------------------------------------------


def apply(state: WahlspielState, seat: Seat, move: object, rng: Rng) -> tuple[WahlspielState, list[Event]]:
    """The state after ``seat`` makes ``move``; raises an EngineError and changes nothing if illegal."""
    if state.step == FINISHED:
        raise GameOverError("GAME_OVER", "the game is over")
    if not isinstance(move, MOVE_TYPES):
        raise MalformedMoveError("UNKNOWN_MOVE", "not a Wahlspiel move")
    if type(seat) is not int or seat not in to_act(state):
        raise NotYourTurnError("NOT_YOUR_TURN", "you owe no decision now")
    legal = _owed_moves(state, seat)
    if move not in legal:
        raise IllegalMoveError(_reason(state, seat, move, legal), "that decision is not open to you now")
    events: list[Event] = []
    if state.revealed_ballot is not None:
        state = replace(state, revealed_ballot=None)  # the hands shown go down at the next decision
    state = _HANDLERS[type(move)](state, seat, move, rng, events)
    return state, events


def _reason(state: WahlspielState, seat: Seat, move: Move, legal: list[Move]) -> str:
    if not any(type(m) is type(move) for m in legal):
        return "WRONG_STEP"
    card = getattr(move, "card", "") or getattr(move, "give_card", "")
    own = state.parties[seat]
    if card and card not in own.voters + own.events:
        return "CARD_NOT_IN_HAND"
    if isinstance(move, (BuyVoters, BuyEvents)) or (isinstance(move, OfferTrade) and move.give_money):
        return "NOT_ENOUGH_MONEY"
    return "ILLEGAL_MOVE"


def _nominate(state: WahlspielState, seat: Seat, move: Nominate, rng: Rng, events: list[Event]) -> WahlspielState:
    events.append(Event(Nominated(seat, move.politician)))
    state = replace(state, candidates=state.candidates + (Candidate(move.politician, seat),))
    if turns.nominations_owed(state, seat):
        return state
    return turns.after_nomination(state, rng, events)


def _buy_voters(state: WahlspielState, seat: Seat, move: BuyVoters, rng: Rng, events: list[Event]) -> WahlspielState:
    if move.count:
        state = draw_cards(state, seat, move.count, 0, "BOUGHT", CONTENT.voter_price, rng, events)
    return turns.end_turn(state, rng, events)


def _buy_events(state: WahlspielState, seat: Seat, move: BuyEvents, rng: Rng, events: list[Event]) -> WahlspielState:
    if move.count:
        state = draw_cards(state, seat, 0, move.count, "BOUGHT", CONTENT.event_price, rng, events)
    return turns.end_turn(state, rng, events)


def _cast_voter(state: WahlspielState, seat: Seat, move: CastVoter, rng: Rng, events: list[Event]) -> WahlspielState:
    voter = VOTERS[move.card]
    parties = list(state.parties)
    parties[seat] = replace(parties[seat], voters=tuple([c for c in parties[seat].voters if c != move.card]))
    state = replace(state, parties=tuple(parties), ballot_box=state.ballot_box + (move.card,))
    matching = tuple(c.politician for c in in_race(state, voter.condition))
    if voter.opinion and matching:
        judges = tuple(p for p in range(state.options.players) if p != seat)
        events.append(Event(VoterCast(seat, move.card, ())))
        events.append(Event(BallotOpened(move.card, matching, judges)))
        return replace(state, step=BALLOT, ballot=Ballot(move.card, seat, matching, judges))
    events.append(Event(VoterCast(seat, move.card, matching)))
    for politician in matching:
        state = change_votes(state, politician, 1, "VOTER", events)
    return _after_voter(state, rng, events)


def _after_voter(state: WahlspielState, rng: Rng, events: list[Event]) -> WahlspielState:
    if state.parties[state.current].voters:
        return replace(state, step=VOTING, ballot=None)
    return turns.end_turn(state, rng, events)


def _judge(state: WahlspielState, seat: Seat, move: Judge, rng: Rng, events: list[Event]) -> WahlspielState:
    ballot = state.ballot
    assert ballot is not None
    ballot = replace(ballot, verdicts=ballot.verdicts + (Verdict(seat, move.politician, move.verdict),))
    # A show of hands: nobody sees another's hand before showing their own (CONTENT.md).
    events.append(Event(Judged(seat, move.politician, move.verdict), visible_to=frozenset((seat,)), redacted=Judged(seat, "", False)))
    state = replace(state, ballot=ballot)
    if to_act(state):
        return state
    return decide_ballot(state, rng, events)


def decide_ballot(state: WahlspielState, rng: Rng, events: list[Event]) -> WahlspielState:
    """The last verdict is in: every hand is shown at once, and the majority of the other players
    decides for each candidate in question; a tied show of hands is no majority, so that
    candidate gets no vote. The table sees the hands until the next decision."""
    ballot = state.ballot
    assert ballot is not None
    shown = tuple(sorted(ballot.verdicts, key=lambda v: (ballot.politicians.index(v.politician), v.judge)))
    ballot = replace(ballot, verdicts=shown)
    events.extend(Event(Judged(v.judge, v.politician, v.verdict), reveals=True) for v in shown)
    yes = tuple(p for p in ballot.politicians if 2 * sum(v.verdict for v in shown if v.politician == p) > len(ballot.judges))
    events.append(Event(BallotDecided(ballot.card, yes), reveals=True))
    for politician in yes:
        state = change_votes(state, politician, 1, "VOTER", events)
    return replace(_after_voter(state, rng, events), revealed_ballot=ballot)


def apply_event_card(state: WahlspielState, party: int, move: PlayEvent, events: list[Event]) -> WahlspielState:
    """Make an event public and apply it to the designated candidates or party. "Half" is
    rounded up: a candidate with 5 votes who loses half gives up 3."""
    card = EVENTS[move.card]
    state = with_party(state, party, events=tuple(c for c in state.parties[party].events if c != move.card))
    state = replace(state, event_discards=state.event_discards + (move.card,))
    if card.target == TARGET_CANDIDATES:
        targets = list(move.candidates)
    elif card.target == TARGET_EVERY:
        targets = [c.politician for c in in_race(state, card.condition)]
    else:
        targets = []
    effective = bool(targets) or card.target in (TARGET_OWN, TARGET_PARTY)
    events.append(Event(EventPlayed(party, move.card, tuple(targets), move.party, effective)))
    for politician in targets:
        candidate = state.candidate(politician)
        assert candidate is not None
        if card.withdraw:
            state = retire(state, politician, "EVENT", events)
        elif card.lose_all or card.halve:
            loss = candidate.votes if card.lose_all else ceil(candidate.votes / 2)
            state = change_votes(state, politician, -loss, "EVENT", events)
        elif card.votes:
            state = change_votes(state, politician, card.votes, "EVENT", events)
        if card.money:
            state = change_money(state, candidate.party, card.money, "EVENT", events)
    if card.target == TARGET_OWN:
        state = change_money(state, party, card.money, "EVENT", events)
    elif card.target == TARGET_PARTY:
        state = change_money(state, move.party, card.money, "EVENT", events)
    return state


def _play_event(state: WahlspielState, seat: Seat, move: PlayEvent, rng: Rng, events: list[Event]) -> WahlspielState:
    state = apply_event_card(state, seat, move, events)
    return turns.end_turn(state, rng, events)


def _change(state: WahlspielState, seat: Seat, move: ChangeCandidate, rng: Rng, events: list[Event]) -> WahlspielState:
    events.append(Event(CandidateChanged(seat, move.withdraw, move.nominate)))
    candidates = tuple(
        Candidate(move.nominate, seat) if c.politician == move.withdraw else c for c in state.candidates
    )
    return turns.end_turn(replace(state, candidates=candidates), rng, events)


def _choose_partner(state: WahlspielState, seat: Seat, move: ChoosePartner, rng: Rng, events: list[Event]) -> WahlspielState:
    events.append(Event(CoalitionChanged(seat, move.party)))
    return replace(state, step=OFFERING, coalition=Coalition(partner=move.party))


def _offer(state: WahlspielState, seat: Seat, move: OfferTrade, rng: Rng, events: list[Event]) -> WahlspielState:
    coalition = state.coalition
    assert coalition is not None
    draft = coalition.draft
    draft = replace(
        draft,
        give_cards=draft.give_cards + ((move.give_card,) if move.give_card else ()),
        give_money=draft.give_money + move.give_money,
        ask_voters=draft.ask_voters + (move.ask_kind == VOTER),
        ask_events=draft.ask_events + (move.ask_kind == EVENT),
        ask_money=draft.ask_money + move.ask_money,
    )
    return replace(state, coalition=replace(coalition, draft=draft))


def _propose(state: WahlspielState, seat: Seat, move: ProposeOffer, rng: Rng, events: list[Event]) -> WahlspielState:
    coalition = state.coalition
    assert coalition is not None
    offer, other = coalition.draft, other_side(state, seat)
    voters = sum(c in VOTERS for c in offer.give_cards)
    public = TradeOffered(
        seat, other, voters, len(offer.give_cards) - voters, offer.give_money,
        offer.ask_voters, offer.ask_events, offer.ask_money,
    )
    full = replace(public, give_cards=offer.give_cards)
    events.append(Event(full, visible_to=frozenset((seat, other)), redacted=public))
    coalition = replace(coalition, proposer=seat, offers=coalition.offers + 1, draft=Offer(), pending=offer)
    return replace(state, step=ANSWERING, coalition=coalition)


def _answer(state: WahlspielState, seat: Seat, move: AnswerTrade, rng: Rng, events: list[Event]) -> WahlspielState:
    coalition = state.coalition
    assert coalition is not None and coalition.pending is not None
    proposer, offer = proposing_side(state), coalition.pending
    if not move.accept:
        events.append(Event(TradeAnswered(proposer, seat, False)))
        # The decliner may counter-offer, while proposals are left.
        return _next_proposal(state, seat, rng, events)
    if move.card:
        coalition = replace(coalition, handed=coalition.handed + (move.card,))
        state = replace(state, coalition=coalition)
    if len(coalition.handed) < offer.ask_voters + offer.ask_events:
        return replace(state, step=HANDING_OVER)
    return _trade(state, proposer, seat, offer, coalition.handed, rng, events)


def _trade(
    state: WahlspielState, proposer: int, taker: int, offer: Offer, handed: tuple[str, ...], rng: Rng, events: list[Event]
) -> WahlspielState:
    """An accepted offer takes effect at once: the bundles change hands (binding, as agreed)."""
    public = TradeAnswered(proposer, taker, True, given_count=len(offer.give_cards), received_count=len(handed))
    full = replace(public, given_cards=offer.give_cards, received_cards=handed)
    events.append(Event(full, visible_to=frozenset((proposer, taker)), redacted=public))
    giver, receiver = state.parties[proposer], state.parties[taker]
    for card in offer.give_cards:
        giver, receiver = remove_card(giver, card), add_card(receiver, card)
    for card in handed:
        receiver, giver = remove_card(receiver, card), add_card(giver, card)
    parties = list(state.parties)
    parties[proposer] = replace(giver, trades=giver.trades + 1)
    parties[taker] = replace(receiver, trades=receiver.trades + 1)
    state = replace(state, parties=tuple(parties))
    if offer.give_money:
        state = change_money(state, proposer, -offer.give_money, "TRADE", events)
        state = change_money(state, taker, offer.give_money, "TRADE", events)
    if offer.ask_money:
        state = change_money(state, taker, -offer.ask_money, "TRADE", events)
        state = change_money(state, proposer, offer.ask_money, "TRADE", events)
    # After a deal the party on the field may propose again.
    return _next_proposal(state, state.current, rng, events)


def _next_proposal(state: WahlspielState, proposer: int, rng: Rng, events: list[Event]) -> WahlspielState:
    """``proposer`` drafts the next offer, or the visit ends once MAX_PROPOSALS have been put."""
    coalition = state.coalition
    assert coalition is not None
    if coalition.offers >= MAX_PROPOSALS:
        events.append(Event(CoalitionChanged(state.current, coalition.partner, ended=True)))
        return turns.end_turn(state, rng, events)
    coalition = replace(coalition, proposer=proposer, draft=Offer(), pending=None, handed=())
    return replace(state, step=OFFERING, coalition=coalition)


def _goal_vote(state: WahlspielState, seat: Seat, move: GoalVote, rng: Rng, events: list[Event]) -> WahlspielState:
    state = change_votes(state, move.politician, 1, "GOAL", events)
    state = replace(state, goal_votes=state.goal_votes - 1)
    if state.goal_votes and any(c.party == seat for c in in_race(state)):
        return state
    return turns.end_turn(state, rng, events)


def _send_runoff(state: WahlspielState, seat: Seat, move: SendRunoffVoter, rng: Rng, events: list[Event]) -> WahlspielState:
    runoff = state.runoff
    assert runoff is not None
    events.append(Event(RunoffVoterSent(seat, move.card), visible_to=frozenset((seat,)), redacted=RunoffVoterSent(seat)))
    if move.card:
        state = with_party(state, seat, voters=tuple(c for c in state.parties[seat].voters if c != move.card))
    state = replace(state, runoff=replace(runoff, sent=runoff.sent + (RunoffSent(seat, move.card),)))
    if to_act(state):
        return state
    state = elections.settle_runoff(state, rng, events)
    return turns.next_round(state, rng, events)


def _pass(state: WahlspielState, seat: Seat, move: Pass, rng: Rng, events: list[Event]) -> WahlspielState:
    if state.step == OFFERING:
        # Either side ends the coalition by passing instead of proposing; the visit is over.
        assert state.coalition is not None
        events.append(Event(CoalitionChanged(state.current, state.coalition.partner, ended=True)))
    return turns.end_turn(state, rng, events)


_Handler = Callable[[WahlspielState, Seat, Any, Rng, list[Event]], WahlspielState]
_HANDLERS: dict[type, _Handler] = {
    Nominate: _nominate,
    BuyVoters: _buy_voters,
    BuyEvents: _buy_events,
    CastVoter: _cast_voter,
    Judge: _judge,
    PlayEvent: _play_event,
    ChangeCandidate: _change,
    ChoosePartner: _choose_partner,
    OfferTrade: _offer,
    ProposeOffer: _propose,
    AnswerTrade: _answer,
    GoalVote: _goal_vote,
    SendRunoffVoter: _send_runoff,
    Pass: _pass,
}
