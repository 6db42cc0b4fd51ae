"""Stimmvieh values: options, moves, the full state (secrets included) and event payloads.

Everything is frozen and built from tuples, so a new state shares every unchanged part with the
old one and no rule can mutate a state that a caller still holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Union

from hustings.engine.stimmvieh.content import CONTENT, Card, VOTE

ROUNDS = 9
TOP_CANDIDATE_COUNT = 4
PARTIES = 4
ANGELUS_PARTY = 3
DISPLAY_SIZE = 4
POLITICIANS = tuple(range(1, 10))
MAX_CAMPAIGNS = 9
MAX_SLOGAN = 60
PLACE_POINTS = (5, 3, 2, 1)

CHOOSING = "CHOOSING_TOP_CANDIDATES"
CAMPAIGN = "CAMPAIGN"
FINISHED = "FINISHED"


@dataclass(frozen=True)
class StimmviehOptions:
    """Validated options: player count and the rulebook's variants."""

    players: int = 4
    moderator: bool = False
    moderator_seat: int = 0
    campaigns: int = 1
    custom_slogan: str = ""
    custom_replaces: str = ""

    @property
    def with_angelus(self) -> bool:
        """True for the 3-player game, where party 3 is the dummy Angelus."""
        return self.players == 3


@dataclass(frozen=True)
class ChooseTopCandidates:
    """The secret choice of four top candidates by their influences."""

    influences: tuple[int, ...]


@dataclass(frozen=True)
class PlayPolitician:
    """A turn: play the politician of ``influence``; take ``take_card_id`` ("" for none)."""

    influence: int
    take_card_id: str = ""


Move = Union[ChooseTopCandidates, PlayPolitician]


@dataclass(frozen=True)
class PartyState:
    """One party. Before the reveal ``chosen`` holds the face-down top candidates (Angelus: the
    top four of her shuffled stack); afterwards ``top_candidates`` and ``backbenchers`` hold the
    politicians not yet played. ``votes`` and ``donations`` are card ids, bottom first."""

    chosen: tuple[int, ...] = ()
    top_candidates: tuple[int, ...] = ()
    backbenchers: tuple[int, ...] = ()
    votes: tuple[str, ...] = ()
    donations: tuple[str, ...] = ()
    campaign_points: int = 0

    def hand(self, revealed: bool) -> tuple[int, ...]:
        """The politicians in hand: before the reveal, those not chosen as top candidates."""
        if revealed:
            return self.backbenchers
        return tuple(p for p in POLITICIANS if p not in self.chosen)


@dataclass(frozen=True)
class CampaignResult:
    """One party's election night."""

    party: int
    votes: int
    vote_influence: int
    doubled: bool
    donations: int
    final_donations: int
    rank: int
    points: int


@dataclass(frozen=True)
class CampaignRecord:
    """The results of one finished campaign, parties in party order."""

    campaign: int
    results: tuple[CampaignResult, ...]


@dataclass(frozen=True)
class StimmviehState:
    """The full table, secrets included. Stacks list their top card first."""

    options: StimmviehOptions
    campaign: int
    phase: str
    round: int
    parties: tuple[PartyState, ...]
    display: tuple[str, ...]
    vote_stack: tuple[str, ...]
    donation_stack: tuple[str, ...]
    start_party: int | None = None
    current_party: int | None = None
    angelus_holder: int | None = None
    top_candidate_discards: tuple[int, ...] = ()
    backbencher_discards: tuple[int, ...] = ()
    campaign_results: tuple[CampaignRecord, ...] = ()

    def is_angelus(self, party: int) -> bool:
        """True if ``party`` is the dummy Angelus in this game."""
        return self.options.with_angelus and party == ANGELUS_PARTY

    def seat_of(self, party: int) -> int | None:
        """The seat that manages ``party``; None for Angelus."""
        return None if self.is_angelus(party) else party


# --- the deck of a game --------------------------------------------------------------------------


@lru_cache(maxsize=64)
def deck(custom_slogan: str = "", custom_replaces: str = "") -> dict[str, Card]:
    """Every card of a game by id; the custom vote card "V00" replaces ``custom_replaces``."""
    cards = {card.card_id: card for card in CONTENT.vote_cards + CONTENT.donation_cards}
    if custom_slogan:
        replaced = cards.pop(custom_replaces)
        cards["V00"] = Card("V00", VOTE, replaced.amount, replaced.influence, custom_slogan)
    return cards


def deck_of(options: StimmviehOptions) -> dict[str, Card]:
    """The deck used with ``options``."""
    return deck(options.custom_slogan, options.custom_replaces)


def party_name(options: StimmviehOptions, party: int) -> str:
    """The name of ``party`` (Angelus in the 3-player game)."""
    if options.with_angelus and party == ANGELUS_PARTY:
        return CONTENT.angelus_name
    return CONTENT.party_names[party]


# --- event payloads ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CampaignStarted:
    """A campaign was dealt: the display and the visible stack tops. The first campaign's deal is
    logged with the game's first decision (the setup records no events)."""

    campaign: int
    display: tuple[Card, ...]
    vote_stack_top: Card | None
    donation_stack_top: Card | None


@dataclass(frozen=True)
class TopCandidatesChosen:
    """A party chose; ``influences`` is empty in the form others see."""

    party: int
    influences: tuple[int, ...] = ()


@dataclass(frozen=True)
class RevealedTopCandidates:
    """One party's flipped top candidates."""

    party: int
    influences: tuple[int, ...]
    total: int


@dataclass(frozen=True)
class TopCandidatesRevealed:
    """Everybody's top candidates, flipped at once."""

    parties: tuple[RevealedTopCandidates, ...]


@dataclass(frozen=True)
class TieFlip:
    """A backbencher flipped to break a start-player tie."""

    party: int
    influence: int


@dataclass(frozen=True)
class StartPlayerChosen:
    """How the start party was found."""

    party: int
    reason: str
    flips: tuple[TieFlip, ...] = ()
    angelus_holder: int | None = None


@dataclass(frozen=True)
class PoliticianPlayed:
    """A politician was played and a card (or none) taken."""

    party: int
    influence: int
    top_candidate: bool
    taken: Card | None
    decided_by: int


@dataclass(frozen=True)
class DisplayRefilled:
    """A card moved from a stack to the display."""

    card: Card
    new_stack_top: Card | None


@dataclass(frozen=True)
class AngelusCardPassed:
    """The "Angelus" card passed to ``seat``."""

    seat: int


@dataclass(frozen=True)
class ElectionNight:
    """A campaign's results, public."""

    record: CampaignRecord


EventPayload = Union[
    CampaignStarted,
    TopCandidatesChosen,
    TopCandidatesRevealed,
    StartPlayerChosen,
    PoliticianPlayed,
    DisplayRefilled,
    AngelusCardPassed,
    ElectionNight,
]
