"""The rules of Stimmvieh as pure functions of a ``StimmviehState``.

Every function returns a new state (sharing unchanged tuples with the old one) and never
mutates its input. Chance comes only from the ``Rng`` handed in.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from typing import Any, Sequence

from hustings.engine.base import Event, Seat, evolve
from hustings.engine.errors import (
    GameOverError,
    IllegalMoveError,
    InvalidOptionsError,
    MalformedMoveError,
    NotYourTurnError,
)
from hustings.engine.rng import Rng
from hustings.engine.stimmvieh.content import CONTENT, VOTE, Card
from hustings.engine.stimmvieh.model import (
    ANGELUS_PARTY,
    CAMPAIGN,
    CHOOSING,
    DISPLAY_SIZE,
    FINISHED,
    MAX_CAMPAIGNS,
    MAX_SLOGAN,
    PARTIES,
    POLITICIANS,
    ROUNDS,
    TOP_CANDIDATE_COUNT,
    AngelusCardPassed,
    CampaignRecord,
    CampaignStarted,
    ChooseTopCandidates,
    DisplayRefilled,
    ElectionNight,
    PartyState,
    PlayPolitician,
    PoliticianPlayed,
    RevealedTopCandidates,
    StartPlayerChosen,
    StimmviehOptions,
    StimmviehState,
    TieFlip,
    TopCandidatesChosen,
    TopCandidatesRevealed,
    deck,
    deck_of,
)
from hustings.engine.stimmvieh.scoring import election_night

RIGHT_OF_ANGELUS = ANGELUS_PARTY - 1
ALL_CHOICES = tuple(ChooseTopCandidates(c) for c in combinations(POLITICIANS, TOP_CANDIDATE_COUNT))

# --- options --------------------------------------------------------------------------------------


def validate_options(options: StimmviehOptions) -> StimmviehOptions:
    """Return ``options`` if acceptable, else raise InvalidOptionsError with a reason."""
    if type(options.players) is not int or options.players not in (3, 4):
        raise InvalidOptionsError("BAD_PLAYER_COUNT", "Stimmvieh is played by 3 or 4 players")
    if type(options.campaigns) is not int or not 1 <= options.campaigns <= MAX_CAMPAIGNS:
        raise InvalidOptionsError("BAD_CAMPAIGNS", f"campaigns must be 1 to {MAX_CAMPAIGNS}")
    if options.moderator:
        if type(options.moderator_seat) is not int or not 0 <= options.moderator_seat < options.players:
            raise InvalidOptionsError("BAD_MODERATOR_SEAT", "the moderator must sit in one of the seats")
    elif options.moderator_seat != 0:
        raise InvalidOptionsError("BAD_MODERATOR_SEAT", "moderator_seat is set but the moderator variant is off")
    slogan, replaces = options.custom_slogan, options.custom_replaces
    if slogan:
        if not isinstance(slogan, str) or len(slogan) > MAX_SLOGAN or not slogan.isprintable() or not slogan.strip():
            raise InvalidOptionsError("BAD_CUSTOM_VOTE_CARD", f"the slogan must be 1 to {MAX_SLOGAN} printable characters")
        if replaces not in {card.card_id for card in CONTENT.vote_cards}:
            raise InvalidOptionsError("BAD_CUSTOM_VOTE_CARD", "replaces_card_id must name a vote card, V01 to V17")
    elif replaces:
        raise InvalidOptionsError("BAD_CUSTOM_VOTE_CARD", "replaces_card_id is set but the slogan is empty")
    return options


# --- dealing ------------------------------------------------------------------------------------


def deal_campaign(
    options: StimmviehOptions,
    campaign: int,
    points: Sequence[int],
    rng: Rng,
    results: tuple[CampaignRecord, ...] = (),
) -> StimmviehState:
    """A freshly dealt campaign: shuffled stacks, four donation cards on display, Angelus' stack."""
    cards = deck_of(options)
    votes = sorted(card_id for card_id, card in cards.items() if card.kind == VOTE)
    donations = sorted(card_id for card_id, card in cards.items() if card.kind != VOTE)
    rng.shuffle(votes)
    rng.shuffle(donations)
    parties = [PartyState(campaign_points=points[party]) for party in range(PARTIES)]
    if options.with_angelus:
        stack = list(POLITICIANS)
        rng.shuffle(stack)
        parties[ANGELUS_PARTY] = evolve(parties[ANGELUS_PARTY], chosen=tuple(sorted(stack[:TOP_CANDIDATE_COUNT])))
    return StimmviehState(
        options=options,
        campaign=campaign,
        phase=CHOOSING,
        round=0,
        parties=tuple(parties),
        display=tuple(donations[:DISPLAY_SIZE]),
        vote_stack=tuple(votes),
        donation_stack=tuple(donations[DISPLAY_SIZE:]),
        campaign_results=results,
    )


def setup(options: StimmviehOptions, rng: Rng) -> StimmviehState:
    """A new game: validated options, the first campaign dealt."""
    validate_options(options)
    return deal_campaign(options, 1, (0,) * PARTIES, rng)


def campaign_started(state: StimmviehState) -> CampaignStarted:
    """The public event describing a freshly dealt campaign."""
    cards = deck_of(state.options)
    return CampaignStarted(
        campaign=state.campaign,
        display=tuple(cards[c] for c in state.display),
        vote_stack_top=cards[state.vote_stack[0]] if state.vote_stack else None,
        donation_stack_top=cards[state.donation_stack[0]] if state.donation_stack else None,
    )


# --- who acts, what is legal ----------------------------------------------------------------------


def acting_seat(state: StimmviehState) -> Seat:
    """During the campaign: the current party's seat, or the holder of the "Angelus" card."""
    assert state.current_party is not None
    if state.is_angelus(state.current_party):
        assert state.angelus_holder is not None
        return state.angelus_holder
    return state.current_party


def to_act(state: StimmviehState) -> frozenset[Seat]:
    """The seats owing a decision: every seat yet to choose, or the one whose turn it is."""
    if state.phase == CHOOSING:
        return frozenset(s for s in range(state.options.players) if not state.parties[s].chosen)
    if state.phase == CAMPAIGN:
        return frozenset((acting_seat(state),))
    return frozenset()


def takeable(state: StimmviehState, influence: int) -> list[str]:
    """The display cards a politician of ``influence`` may take, in display order."""
    cards = deck_of(state.options)
    return [card_id for card_id in state.display if cards[card_id].influence <= influence]


def legal_moves(state: StimmviehState, seat: Seat) -> list[ChooseTopCandidates | PlayPolitician]:
    """Every legal decision of ``seat``: all 126 choices, or each politician with each card."""
    if seat not in to_act(state):
        return []
    if state.phase == CHOOSING:
        return list(ALL_CHOICES)
    assert state.current_party is not None
    party = state.parties[state.current_party]
    moves: list[ChooseTopCandidates | PlayPolitician] = []
    for influence in sorted(party.top_candidates + party.backbenchers):
        cards = takeable(state, influence)
        moves.extend(PlayPolitician(influence, card_id) for card_id in cards or [""])
    return moves


def check_move_shape(move: object) -> None:
    """Raise MalformedMoveError unless ``move`` is a well-formed Stimmvieh move."""
    if isinstance(move, ChooseTopCandidates):
        values = move.influences
        if (
            not isinstance(values, tuple)
            or len(values) != TOP_CANDIDATE_COUNT
            or len(set(values)) != TOP_CANDIDATE_COUNT
            or any(type(v) is not int or v not in POLITICIANS for v in values)
        ):
            raise MalformedMoveError("BAD_TOP_CANDIDATES", "choose four different influences from 1 to 9")
    elif isinstance(move, PlayPolitician):
        if type(move.influence) is not int or move.influence not in POLITICIANS:
            raise MalformedMoveError("BAD_INFLUENCE", "a politician's influence is 1 to 9")
        if not isinstance(move.take_card_id, str):
            raise MalformedMoveError("BAD_CARD_ID", "take_card_id must be a string")
    else:
        raise MalformedMoveError("UNKNOWN_MOVE", "not a Stimmvieh move")


# --- applying a move ----------------------------------------------------------------------------


def apply(state: StimmviehState, seat: Seat, move: object, rng: Rng) -> tuple[StimmviehState, list[Event]]:
    """The state after ``seat`` makes ``move``; raises an EngineError and changes nothing if illegal."""
    if state.phase == FINISHED:
        raise GameOverError("GAME_OVER", "the game is over")
    check_move_shape(move)
    if type(seat) is not int or not 0 <= seat < state.options.players:
        raise NotYourTurnError("NOT_YOUR_TURN", "no such seat in this game")
    if isinstance(move, ChooseTopCandidates):
        if state.phase != CHOOSING:
            raise IllegalMoveError("WRONG_PHASE", "top candidates are chosen before the campaign")
        if state.parties[seat].chosen:
            raise IllegalMoveError("ALREADY_CHOSEN", "you have already chosen your top candidates")
        return _choose(state, seat, move, rng)
    assert isinstance(move, PlayPolitician)
    if state.phase != CAMPAIGN:
        raise IllegalMoveError("WRONG_PHASE", "politicians are played once everybody has chosen top candidates")
    if seat != acting_seat(state):
        raise NotYourTurnError("NOT_YOUR_TURN", "it is not your turn")
    return _play(state, seat, move, rng)


def first_move_of_game(state: StimmviehState) -> bool:
    """True before any seat has chosen in the first campaign: the next move is the game's first."""
    return state.campaign == 1 and not any(state.parties[s].chosen for s in range(state.options.players))


def _choose(state: StimmviehState, seat: Seat, move: ChooseTopCandidates, rng: Rng) -> tuple[StimmviehState, list[Event]]:
    events: list[Event] = []
    if first_move_of_game(state):
        # The setup itself records no events, so the first campaign's deal opens the log with the
        # game's first decision: a finished game can be refereed from its history alone.
        events.append(Event(campaign_started(state)))
    chosen = tuple(sorted(move.influences))
    parties = list(state.parties)
    parties[seat] = evolve(parties[seat], chosen=chosen)
    state = evolve(state, parties=tuple(parties))
    events.append(Event(TopCandidatesChosen(seat, chosen), visible_to=frozenset((seat,)), redacted=TopCandidatesChosen(seat)))
    if not to_act(state):
        state, more = _reveal(state, rng)
        events.extend(more)
    return state, events


def _reveal(state: StimmviehState, rng: Rng) -> tuple[StimmviehState, list[Event]]:
    parties = tuple(
        evolve(p, chosen=(), top_candidates=p.chosen, backbenchers=p.hand(revealed=False)) for p in state.parties
    )
    totals = [sum(p.top_candidates) for p in parties]
    moderator = state.options.moderator_seat if state.options.moderator else None
    start, reason, flips = choose_start_party(
        totals, [p.backbenchers for p in parties], state.options.with_angelus, moderator, rng
    )
    holder = state.seat_of(start) if state.options.with_angelus else None
    revealed = TopCandidatesRevealed(
        tuple(RevealedTopCandidates(i, p.top_candidates, totals[i]) for i, p in enumerate(parties))
    )
    state = evolve(
        state, parties=parties, phase=CAMPAIGN, round=1, start_party=start, current_party=start, angelus_holder=holder
    )
    return state, [Event(revealed, reveals=True), Event(StartPlayerChosen(start, reason, flips, holder))]


def choose_start_party(
    totals: Sequence[int],
    backbenchers: Sequence[Sequence[int]],
    with_angelus: bool,
    moderator_party: int | None,
    rng: Rng,
) -> tuple[int, str, tuple[TieFlip, ...]]:
    """The start party, the reason, and any backbenchers flipped to find it.

    Highest top-candidate total starts. Tied highest: the lowest total starts (printed, odd);
    tied lowest too: those parties flip random backbenchers, higher starts, repeated among the
    still tied. ALTERNATIVE 2: the first tied party in turn order from the moderator starts.
    Angelus never starts: the party to her right does.
    """
    high = max(totals)
    tied = [p for p, total in enumerate(totals) if total == high]
    flips: tuple[TieFlip, ...] = ()
    if len(tied) == 1:
        start, reason = tied[0], "HIGHEST_TOTAL"
    elif moderator_party is not None:
        start = next(p for p in ((moderator_party + k) % PARTIES for k in range(PARTIES)) if p in tied)
        reason = "MODERATOR_ORDER"
    else:
        low = min(totals)
        lowest = [p for p, total in enumerate(totals) if total == low]
        if len(lowest) == 1:
            start, reason = lowest[0], "LOWEST_TOTAL_AFTER_TIE"
        else:
            start, flips = _flip_for_start(lowest, backbenchers, rng)
            reason = "TIE_FLIP"
    if with_angelus and start == ANGELUS_PARTY:
        start, reason = RIGHT_OF_ANGELUS, "RIGHT_OF_ANGELUS"
    return start, reason, flips


def _flip_for_start(contenders: list[int], backbenchers: Sequence[Sequence[int]], rng: Rng) -> tuple[int, tuple[TieFlip, ...]]:
    # Flipping from a shuffled pile means without replacement; once a pile is used up the
    # remaining tie is settled by a uniform draw, so the loop always ends.
    piles = {p: list(backbenchers[p]) for p in contenders}
    flips: list[TieFlip] = []
    while len(contenders) > 1 and all(piles[p] for p in contenders):
        flipped = {}
        for party in contenders:
            pile = piles[party]
            flipped[party] = pile.pop(rng.below(len(pile)))
            flips.append(TieFlip(party, flipped[party]))
        best = max(flipped.values())
        contenders = [p for p in contenders if flipped[p] == best]
    start = contenders[0] if len(contenders) == 1 else rng.choice(contenders)
    return start, tuple(flips)


def _play(state: StimmviehState, seat: Seat, move: PlayPolitician, rng: Rng) -> tuple[StimmviehState, list[Event]]:
    assert state.current_party is not None
    party_index = state.current_party
    party = state.parties[party_index]
    influence, card_id = move.influence, move.take_card_id
    whose = "Angelus has" if state.is_angelus(party_index) else "your party has"
    if influence in party.top_candidates:
        top_candidate = True
    elif influence in party.backbenchers:
        top_candidate = False
    else:
        raise IllegalMoveError("POLITICIAN_NOT_AVAILABLE", f"{whose} no politician of influence {influence} left")
    cards = deck_of(state.options)
    taken: Card | None = None
    if card_id:
        if card_id not in cards:
            # Not echoed: it may be as long as a request (a status too large for a gRPC client).
            raise MalformedMoveError("UNKNOWN_CARD", "take_card_id names no card of this game")
        if card_id not in state.display:
            raise IllegalMoveError("CARD_NOT_ON_DISPLAY", f"card {card_id} is not on display")
        taken = cards[card_id]
        if taken.influence > influence:
            raise IllegalMoveError("INFLUENCE_TOO_LOW", f"card {card_id} needs influence {taken.influence}")
    elif takeable(state, influence):
        raise IllegalMoveError("MUST_TAKE_CARD", f"a politician of influence {influence} must take a card on display")

    # One new party and one new state per turn (the rules' hottest path): fields first, then
    # ``evolve`` once for each.
    played: dict[str, Any]
    if top_candidate:
        played = {"top_candidates": tuple(p for p in party.top_candidates if p != influence)}
        changes: dict[str, Any] = {"top_candidate_discards": state.top_candidate_discards + (influence,)}
    else:
        played = {"backbenchers": tuple(p for p in party.backbenchers if p != influence)}
        changes = {"backbencher_discards": state.backbencher_discards + (influence,)}
    options = state.options
    events = [_played(party_index, influence, top_candidate, card_id, seat, options.custom_slogan, options.custom_replaces)]
    if taken is not None:
        if taken.kind == VOTE:
            played["votes"] = party.votes + (card_id,)
        else:
            played["donations"] = party.donations + (card_id,)
        changes.update(_take_and_refill(state, card_id, top_candidate, events))
    parties = list(state.parties)
    parties[party_index] = evolve(party, **played)
    changes["parties"] = tuple(parties)
    if state.is_angelus(party_index):
        assert state.angelus_holder is not None
        holder = (state.angelus_holder + 1) % state.options.players
        changes["angelus_holder"] = holder
        events.append(Event(AngelusCardPassed(holder)))
    next_party = (party_index + 1) % PARTIES
    changes["current_party"] = next_party
    changes["round"] = state.round + (1 if next_party == state.start_party else 0)
    state = evolve(state, **changes)
    if state.round > ROUNDS:
        state = _election_night(state, rng, events)
    return state, events


# A turn's events are immutable values that recur (a party plays an influence and takes a card;
# a card refills the display and uncovers the next): each is made once and shared, which costs
# less than building the frozen event and its payload on every turn. A game's deck is named by
# its options' custom card (``deck``), so that the memo's key hashes only ints and strings.
EVENTS_KEPT = 4096


@lru_cache(maxsize=EVENTS_KEPT)
def _played(party: int, influence: int, top_candidate: bool, card_id: str, seat: Seat, slogan: str, replaces: str) -> Event:
    taken = deck(slogan, replaces)[card_id] if card_id else None
    return Event(PoliticianPlayed(party, influence, top_candidate, taken, seat))


@lru_cache(maxsize=EVENTS_KEPT)
def _refilled(card_id: str, new_top_id: str, slogan: str, replaces: str) -> Event:
    cards = deck(slogan, replaces)
    return Event(DisplayRefilled(cards[card_id], cards[new_top_id] if new_top_id else None))


def _take_and_refill(state: StimmviehState, card_id: str, top_candidate: bool, events: list[Event]) -> dict[str, Any]:
    """Take ``card_id`` off the display and put the next card of the right stack in its place."""
    slot = state.display.index(card_id)
    # After a top candidate the vote stack refills, after a backbencher the donation stack;
    # an empty stack gives way to the other one.
    names = ("vote_stack", "donation_stack") if top_candidate else ("donation_stack", "vote_stack")
    for name in names:
        stack: tuple[str, ...] = getattr(state, name)
        if stack:
            refill, rest = stack[0], stack[1:]
            options = state.options
            events.append(_refilled(refill, rest[0] if rest else "", options.custom_slogan, options.custom_replaces))
            return {"display": state.display[:slot] + (refill,) + state.display[slot + 1 :], name: rest}
    return {"display": state.display[:slot] + state.display[slot + 1 :]}


def _election_night(state: StimmviehState, rng: Rng, events: list[Event]) -> StimmviehState:
    cards = deck_of(state.options)
    collected = [(tuple(cards[c] for c in p.votes), tuple(cards[c] for c in p.donations)) for p in state.parties]
    moderator = state.options.moderator_seat if state.options.moderator else None
    record = election_night(state.campaign, collected, moderator)
    events.append(Event(ElectionNight(record)))
    points = [p.campaign_points + r.points for p, r in zip(state.parties, record.results)]
    results = state.campaign_results + (record,)
    if state.campaign < state.options.campaigns:
        state = deal_campaign(state.options, state.campaign + 1, points, rng, results)
        events.append(Event(campaign_started(state)))
        return state
    parties = tuple(evolve(p, campaign_points=points[i]) for i, p in enumerate(state.parties))
    return evolve(
        state,
        parties=parties,
        phase=FINISHED,
        round=ROUNDS,
        current_party=None,
        angelus_holder=None,
        campaign_results=results,
    )
