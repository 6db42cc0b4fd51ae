"""Wahlspiel values: options, moves, the full state (secrets included) and event payloads.

Everything is frozen and built from tuples, so a new state shares every unchanged part with the
old one and no rule can mutate a state that a caller still holds. Seats and parties are the same
numbers: seat ``n`` plays party ``n``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

MIN_PLAYERS = 2
MAX_PLAYERS = 6
ROUNDS = 3
DIE_SIDES = 6
GOAL_BONUS_VOTES = 2
GNOMES_VOTES = 17
MAX_PROPOSALS = 6  # offers and counter-offers put to a partner in one coalition visit (designed bound)
MONEY_STEP = 1000  # francs added to an offer per item drafted: every sum in the game is a multiple of it
CORE_VOTERS = 4
START_EVENTS = 2
RUNOFF_CARD_LIMIT = 25  # voter-stack cards turned up before a run-off falls back to drawing lots

# What the state waits for (``WahlspielState.step``).
NOMINATING = "NOMINATING"
BUYING_VOTERS = "BUYING_VOTERS"
BUYING_EVENTS = "BUYING_EVENTS"
VOTING = "VOTING"
BALLOT = "BALLOT"
SENSATION = "SENSATION"
CHANGING_CANDIDATE = "CHANGING_CANDIDATE"
CHOOSING_PARTNER = "CHOOSING_PARTNER"
OFFERING = "OFFERING"
ANSWERING = "ANSWERING"
HANDING_OVER = "HANDING_OVER"
GOAL_VOTES = "GOAL_VOTES"
RUNOFF = "RUNOFF"
FINISHED = "FINISHED"
STEPS = (
    NOMINATING, BUYING_VOTERS, BUYING_EVENTS, VOTING, BALLOT, SENSATION, CHANGING_CANDIDATE,
    CHOOSING_PARTNER, OFFERING, ANSWERING, GOAL_VOTES, RUNOFF, FINISHED, HANDING_OVER,
)

PARTY_NAME_LIMIT = 60  # characters of a party's chosen name

VOTER = "voter"
EVENT = "event"


@dataclass(frozen=True)
class WahlspielOptions:
    """Validated options: the player count and the variants."""

    players: int = 4
    gnomes: bool = False
    single_national_candidate: bool = False


# --- moves ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Nominate:
    """Name one of your politicians as a candidate for this election round."""

    politician: str


@dataclass(frozen=True)
class BuyVoters:
    """On a voter purchase field: buy ``count`` voters blind (0 buys none)."""

    count: int


@dataclass(frozen=True)
class BuyEvents:
    """On an event purchase field: buy ``count`` events blind (0 buys none)."""

    count: int


@dataclass(frozen=True)
class CastVoter:
    """On a voting field: place one voter card face up into the ballot box."""

    card: str


@dataclass(frozen=True)
class PlayEvent:
    """On a sensation field: play one event on the designated candidates or party."""

    card: str
    candidates: tuple[str, ...] = ()
    party: int = -1


@dataclass(frozen=True)
class ChangeCandidate:
    """On a candidate change field: withdraw ``withdraw`` and field ``nominate`` (at 0 votes)."""

    withdraw: str
    nominate: str


@dataclass(frozen=True)
class ChoosePartner:
    """On a coalition field: choose the coalition partner."""

    party: int


@dataclass(frozen=True)
class OfferTrade:
    """Add one item to the offer being drafted for the other coalition side: one card of your
    own (``give_card``), 1000 francs more given (``give_money``), one more card of a kind asked
    for (``ask_kind``; the other side chooses which) or 1000 francs more asked (``ask_money``)."""

    give_card: str = ""
    give_money: int = 0
    ask_kind: str = ""
    ask_money: int = 0


@dataclass(frozen=True)
class ProposeOffer:
    """Put the drafted offer (a bundle of cards and money given and asked) to the other side."""


@dataclass(frozen=True)
class AnswerTrade:
    """The answer to an offer (accept or decline; a decline lets the decliner counter-offer),
    or, after accepting an offer that asks for cards, one card handed over (``card``)."""

    accept: bool
    card: str = ""


@dataclass(frozen=True)
class Judge:
    """A ballot on a matter of opinion: does ``politician`` fit the voter card?"""

    politician: str
    verdict: bool


@dataclass(frozen=True)
class GoalVote:
    """First at the goal: give one of the two vote stones to one of your candidates."""

    politician: str


@dataclass(frozen=True)
class SendRunoffVoter:
    """A run-off party sends one more voter (``card``), or none (empty)."""

    card: str = ""


@dataclass(frozen=True)
class Pass:
    """Decline what the field offers, or end voting, trading or the coalition."""


Move = Union[
    Nominate, BuyVoters, BuyEvents, CastVoter, PlayEvent, ChangeCandidate, ChoosePartner,
    OfferTrade, AnswerTrade, Judge, GoalVote, SendRunoffVoter, Pass, ProposeOffer,
]
MOVE_TYPES = (
    Nominate, BuyVoters, BuyEvents, CastVoter, PlayEvent, ChangeCandidate, ChoosePartner,
    OfferTrade, AnswerTrade, Judge, GoalVote, SendRunoffVoter, Pass, ProposeOffer,
)
SECRET_MOVES = (OfferTrade, AnswerTrade, Judge, SendRunoffVoter)

# --- state ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Party:
    """One party: its politicians (public), money, piece, secret hands (sorted card ids), how
    many coalition trades it has agreed to (the table sees cards change hands), and the name and
    colour it chose ("" until it chooses: the content's defaults stand in)."""

    politicians: tuple[str, ...]
    money: int
    position: int = 0
    voters: tuple[str, ...] = ()
    events: tuple[str, ...] = ()
    arrived: bool = False
    trades: int = 0
    name: str = ""
    colour: str = ""


@dataclass(frozen=True)
class Candidate:
    """A candidate in this election round. ``councillor``: a national councillor standing ex
    officio in the Federal Council election; ``in_race`` False once eliminated."""

    politician: str
    party: int
    votes: int = 0
    in_race: bool = True
    councillor: bool = False


@dataclass(frozen=True)
class Verdict:
    """One judge's verdict on one candidate."""

    judge: int
    politician: str
    verdict: bool


@dataclass(frozen=True)
class Ballot:
    """The ballot among the other players on a matter-of-opinion voter card."""

    card: str
    caster: int
    politicians: tuple[str, ...]
    judges: tuple[int, ...]
    verdicts: tuple[Verdict, ...] = ()


@dataclass(frozen=True)
class Offer:
    """A bundle between the coalition sides: cards and francs the proposer gives, how many voter
    and event cards (the other side chooses which) and francs it asks for."""

    give_cards: tuple[str, ...] = ()
    give_money: int = 0
    ask_voters: int = 0
    ask_events: int = 0
    ask_money: int = 0

    def is_empty(self) -> bool:
        """True when the offer gives and asks nothing."""
        return not (self.give_cards or self.give_money or self.ask_voters or self.ask_events or self.ask_money)


@dataclass(frozen=True)
class Coalition:
    """A coalition visit: the partner (-1 while choosing), the side drafting or proposing
    (``proposer``, -1 for the party on the field), offers put so far, the offer being drafted,
    the offer put to the other side, and the cards handed over for an accepted offer so far."""

    partner: int = -1
    offers: int = 0
    proposer: int = -1
    draft: Offer = Offer()
    pending: Offer | None = None
    handed: tuple[str, ...] = ()


@dataclass(frozen=True)
class RunoffSent:
    """What a run-off party sent ("" for no voter)."""

    party: int
    card: str


@dataclass(frozen=True)
class Runoff:
    """A run-off between tied candidates for ``seats`` seats; ``parties`` owe an extra voter."""

    politicians: tuple[str, ...]
    seats: int
    elected: tuple[str, ...]
    parties: tuple[int, ...]
    sent: tuple[RunoffSent, ...] = ()


@dataclass(frozen=True)
class WahlspielState:
    """The full table, secrets included. Stacks list their top card first."""

    options: WahlspielOptions
    round: int
    step: str
    current: int
    start_party: int
    parties: tuple[Party, ...]
    candidates: tuple[Candidate, ...] = ()
    voter_stack: tuple[str, ...] = ()
    event_stack: tuple[str, ...] = ()
    ballot_box: tuple[str, ...] = ()
    event_discards: tuple[str, ...] = ()
    retired: tuple[str, ...] = ()
    cantonal: tuple[str, ...] = ()
    national: tuple[str, ...] = ()
    federal: str = ""
    first_arrived: int = -1
    goal_votes: int = 0
    last_roll: int = 0
    coalition: Coalition | None = None
    ballot: Ballot | None = None
    runoff: Runoff | None = None
    # The ballot just decided, every verdict face up, until the next decision: the show of hands
    # the table has seen (views show it; the step that reveals it must change what all see).
    revealed_ballot: Ballot | None = None

    def candidate(self, politician: str) -> Candidate | None:
        """The candidate standing for ``politician`` this round, or None."""
        for candidate in self.candidates:
            if candidate.politician == politician:
                return candidate
        return None


# --- event payloads --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Nominated:
    """A party named a candidate."""

    party: int
    politician: str


@dataclass(frozen=True)
class DieRolled:
    """A party rolled and moved; ``bounced`` when surplus pips moved it back from BUNDESRAT."""

    party: int
    pips: int
    origin: int
    position: int
    field: str
    bounced: bool = False


@dataclass(frozen=True)
class CardsDrawn:
    """Cards a party took blind. ``cards`` only in the party's own copy; others see counts."""

    party: int
    reason: str
    voters: int
    events: int
    cost: int = 0
    cards: tuple[str, ...] = ()


@dataclass(frozen=True)
class VotesChanged:
    """Votes a candidate won or lost, and why."""

    politician: str
    delta: int
    votes: int
    reason: str


@dataclass(frozen=True)
class VoterCast:
    """A voter card went face up into the ballot box; ``politicians`` got a vote each."""

    party: int
    card: str
    politicians: tuple[str, ...]


@dataclass(frozen=True)
class BallotOpened:
    """A matter of opinion: the ``judges`` decide on each of ``politicians``."""

    card: str
    politicians: tuple[str, ...]
    judges: tuple[int, ...]


@dataclass(frozen=True)
class Judged:
    """One judge's verdict. Given secretly: only the judge sees it, the others a copy with no
    candidate and no verdict (that the judge has given one); all are shown together, face up,
    when the last judge has given theirs."""

    judge: int
    politician: str
    verdict: bool


@dataclass(frozen=True)
class BallotDecided:
    """The majority found these politicians fit the card."""

    card: str
    politicians: tuple[str, ...]


@dataclass(frozen=True)
class MoneyChanged:
    """A party's money changed by ``delta`` (floored at nothing left), and why."""

    party: int
    delta: int
    money: int
    reason: str


@dataclass(frozen=True)
class EventPlayed:
    """An event card was made public; ``effective`` False when its property found nobody."""

    party: int
    card: str
    candidates: tuple[str, ...]
    target_party: int
    effective: bool


@dataclass(frozen=True)
class CandidateChanged:
    """A party withdrew one candidate and fielded another."""

    party: int
    withdrawn: str
    nominated: str


@dataclass(frozen=True)
class CandidateRetired:
    """A candidate left the race for good (``reason``: EVENT or GNOMES)."""

    politician: str
    reason: str


@dataclass(frozen=True)
class CoalitionChanged:
    """A coalition was formed (``partner`` >= 0), or ended (``ended``)."""

    party: int
    partner: int
    ended: bool = False


@dataclass(frozen=True)
class TradeOffered:
    """An offer put from ``party`` to ``partner`` (either coalition side). Others see how many
    voter and event cards it gives; the cards only in the two sides' copies."""

    party: int
    partner: int
    give_voters: int
    give_events: int
    give_money: int
    ask_voters: int
    ask_events: int
    ask_money: int
    give_cards: tuple[str, ...] = ()


@dataclass(frozen=True)
class TradeAnswered:
    """The answer to ``party``'s offer by ``partner``; once accepted and done, the cards each side
    gave only in the two sides' copies (others see the counts)."""

    party: int
    partner: int
    accepted: bool
    given_cards: tuple[str, ...] = ()
    received_cards: tuple[str, ...] = ()
    given_count: int = 0
    received_count: int = 0


@dataclass(frozen=True)
class GoalReached:
    """A party's piece reached the round's goal."""

    party: int
    goal: str
    first: bool


@dataclass(frozen=True)
class RunoffOpened:
    """Tied candidates go to a run-off for ``seats`` seats; ``parties`` may send a voter."""

    politicians: tuple[str, ...]
    seats: int
    parties: tuple[int, ...]


@dataclass(frozen=True)
class RunoffVoterSent:
    """A run-off party decided; the card only in its own copy."""

    party: int
    card: str = ""


@dataclass(frozen=True)
class RunoffVotersRevealed:
    """Every run-off party's extra voter, face up; ``politicians`` got a run-off vote each."""

    sent: tuple[RunoffSent, ...]
    politicians: tuple[str, ...]


@dataclass(frozen=True)
class RunoffCardTurned:
    """The top card of the voter stack, turned up to decide the run-off."""

    card: str
    politicians: tuple[str, ...]


@dataclass(frozen=True)
class RunoffLots:
    """The voter stack could not decide: lots were drawn."""

    politicians: tuple[str, ...]


@dataclass(frozen=True)
class ElectionHeld:
    """The result of an election round: who is elected and what each seat paid."""

    round: int
    elected: tuple[str, ...]
    pay: int


EventPayload = Union[
    Nominated, DieRolled, CardsDrawn, VotesChanged, VoterCast, BallotOpened, Judged, BallotDecided,
    MoneyChanged, EventPlayed, CandidateChanged, CandidateRetired, CoalitionChanged, TradeOffered,
    TradeAnswered, GoalReached, RunoffOpened, RunoffVoterSent, RunoffVotersRevealed, RunoffCardTurned,
    RunoffLots, ElectionHeld,
]
