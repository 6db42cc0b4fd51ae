"""Votes from Localities (Poll and Election), Votes Cast, and the final ranking with the printed
tie-breaks (Votes Cast, then raw Votes, then Budget, then the Favourite names the winner)."""

from __future__ import annotations

from dataclasses import dataclass

from hustings.engine.base import Event, Outcome, Placing
from hustings.engine.spin_doctors.board import clamp, locality_votes
from hustings.engine.spin_doctors.content import CONTENT
from hustings.engine.spin_doctors.model import Happening, State


@dataclass(frozen=True)
class Score:
    """One seat's Election: counted Votes per group (capped by Turnout), Programme bonuses per
    card (in Programme order), Votes Cast, raw Votes and Budget."""

    seat: int
    counted: tuple[int, ...]
    bonuses: tuple[int, ...]
    cast: int
    raw: int
    budget: int

    @property
    def key(self) -> tuple[int, int, int]:
        """What ranks the seat, best highest."""
        return (self.cast, self.raw, self.budget)


def settle_localities(state: State, events: list[Event]) -> None:
    """Every Locality in board order gives Votes on the Vote track of its Turnout card's group."""
    for index, spot in enumerate(state.spots):
        turnout = [spot.turnout.count(s) for s in range(state.players)]
        topic = [spot.red.count(s) + spot.white.count(s) for s in range(state.players)]
        gains = locality_votes(CONTENT.localities[index].votes, turnout, topic)
        group = CONTENT.turnout_cards[spot.turnout_card].group
        for seat, gain in enumerate(gains):
            if gain:
                player = state.seats[seat]
                player.votes[group] = clamp(player.votes[group] + gain)
                events.append(Event(Happening("LOCALITY_VOTES", seat=seat, locality=index, group=group, amount=gain)))


def topic_counts(state: State) -> list[int]:
    """How many Topic cards of each topic lie on the board."""
    counts = [0] * len(CONTENT.topics)
    for spot in state.spots:
        counts[CONTENT.topic_cards[spot.topic_card].topic] += 1
    return counts


def programme_bonus(card_id: str, counts: list[int]) -> int:
    """The bonus Votes of one Programme card: its reward if kept, minus its penalty if not."""
    card = CONTENT.programme_cards[card_id]
    return card.reward if card.fulfilled(counts[card.topic]) else -card.penalty


def score_seat(seat: int, votes: list[int], turnout: list[int], programme: list[str], counts: list[int], budget: int) -> Score:
    """The Election count for one seat (a plain function, so the printed table can be checked)."""
    counted = tuple(min(v, t) for v, t in zip(votes, turnout))
    bonuses = tuple(programme_bonus(c, counts) for c in programme)
    return Score(seat, counted, bonuses, sum(counted) + sum(bonuses), sum(votes), budget)


def scores(state: State) -> list[Score]:
    """Every seat's Election count."""
    counts = topic_counts(state)
    return [
        score_seat(s, p.votes, state.turnout_markers, p.programme, counts, p.budget) for s, p in enumerate(state.seats)
    ]


def tied_for_first(state: State) -> list[int]:
    """The seats tied on every printed tie-break for first place."""
    all_scores = scores(state)
    best = max(s.key for s in all_scores)
    return [s.seat for s in all_scores if s.key == best]


def outcome_of(state: State) -> Outcome:
    """The final ranking: by Votes Cast, raw Votes, Budget; the named winner first among equals."""
    all_scores = scores(state)
    keyed = sorted(all_scores, key=lambda s: (s.key, s.seat == state.winner), reverse=True)
    placings = []
    rank = 0
    previous: tuple[object, ...] | None = None
    for position, score in enumerate(keyed, start=1):
        key = (score.key, score.seat == state.winner)
        if key != previous:
            rank, previous = position, key
        counted = "/".join(str(v) for v in score.counted)
        bonuses = ",".join(f"{b:+d}" for b in score.bonuses)
        detail = f"votes {counted}; programme {bonuses}; raw {score.raw}; budget {score.budget}"
        ranked_by = (("votes_cast", score.cast), ("raw_votes", score.raw), ("budget", score.budget), ("named_winner", int(score.seat == state.winner)))
        placings.append(Placing(rank, score.seat, CONTENT.colours[score.seat], score.cast, detail, ranked_by))
    return Outcome(tuple(placings))
