"""The board's own mechanics as plain functions: pushing tokens on Turnout and Topic cards,
settling a Locality, passing the Favourite marker. The rulebook's worked examples test these
directly with the printed numbers.
"""

from __future__ import annotations

from typing import Sequence

from hustings.engine.spin_doctors.content import TopicCard, TurnoutCard
from hustings.engine.spin_doctors.model import MAX_MARKER, MIN_MARKER, PlaceOnTopic

EMPTY = -1
PUSHED_OFF = -1


def clamp(value: int) -> int:
    """A Vote or Turnout marker position, kept within 0..20."""
    return max(MIN_MARKER, min(MAX_MARKER, value))


def turnout_paths(card: TurnoutCard, tokens: Sequence[int]) -> list[tuple[int, ...]]:
    """Every way to place a token on a Turnout card: a lowest field, then (while the field
    reached is occupied) the field its token is pushed to along an arrow, ending on an empty
    field or with -1 when a token is pushed off the top."""
    paths: list[tuple[int, ...]] = []

    def walk(path: tuple[int, ...]) -> None:
        here = path[-1]
        if tokens[here] == EMPTY:
            paths.append(path)
            return
        onward = card.onward(here)
        if not onward:
            paths.append(path + (PUSHED_OFF,))
        for nxt in onward:
            if nxt not in path:
                walk(path + (nxt,))

    for start in card.lowest():
        walk((start,))
    return paths


def place_on_turnout(tokens: list[int], path: Sequence[int], seat: int) -> int:
    """Place ``seat``'s token along ``path`` (one of ``turnout_paths``), moving each displaced
    token one step; returns the owner of a token pushed off the card, else -1."""
    pushed = EMPTY
    carried = seat
    for here in path:
        if here == PUSHED_OFF:
            pushed = carried
            break
        carried, tokens[here] = tokens[here], carried
        if carried == EMPTY:
            break
    return pushed


def topic_options(card: TopicCard, red: Sequence[int], white: Sequence[int]) -> list[PlaceOnTopic]:
    """Every legal placement of one token on a Topic card, as printed.

    A Red field while one is free. A White field: while one is still free, the token on the
    lowest field either moves up (pushing nothing off) or is pushed off; only when every White
    field is occupied may the player choose which token to push off. Tokens always fill the
    lowest fields, so ``white[0]`` is the token on the lowest White field.
    """
    options = []
    if len(red) < card.red_fields:
        options.append(PlaceOnTopic(True))
    if len(white) < card.white_fields:
        options.append(PlaceOnTopic(False))
        if white:
            options.append(PlaceOnTopic(False, 0))
    else:
        options.extend(PlaceOnTopic(False, i) for i in range(len(white)))
    return options


def place_on_topic(card: TopicCard, red: list[int], white: list[int], seat: int, choice: PlaceOnTopic) -> int:
    """Place ``seat``'s token (fields bottom first; the new token always takes the lowest field,
    the tokens below a pushed-off one move up). Returns the owner of a White token pushed off
    (who gains 1 Vote), or -1. ``choice`` must be one of ``topic_options``."""
    if choice.red:
        red.insert(0, seat)
        return EMPTY
    pushed = EMPTY
    if choice.push_off >= 0:
        pushed = white.pop(choice.push_off)
    white.insert(0, seat)
    return pushed


def locality_votes(values: Sequence[int], turnout: Sequence[int], topic: Sequence[int]) -> list[int]:
    """The Votes each seat gains from a Locality at the Poll or the Election.

    ``turnout``/``topic`` count each seat's tokens on the Turnout and Topic card. Seats with
    tokens on the Turnout card are ranked by them; the Topic card breaks ties; players still tied
    fill their positions together and all take the Votes of the lowest of them (0 past third).
    """
    seats = [s for s in range(len(turnout)) if turnout[s] > 0]
    seats.sort(key=lambda s: (-turnout[s], -topic[s]))
    gains = [0] * len(turnout)
    position = 0
    while position < len(seats):
        key = (turnout[seats[position]], topic[seats[position]])
        group = [s for s in seats[position:] if (turnout[s], topic[s]) == key]
        last = position + len(group) - 1
        for s in group:
            gains[s] = values[last] if last < len(values) else 0
        position += len(group)
    return gains


def next_favourite(pools: Sequence[int], holder: int) -> int:
    """Who holds the Favourite marker after the Debate: the most tokens in the Favourite pool; on
    a tie the tied player (other than the holder) nearest clockwise after the holder."""
    best = max(pools)
    tied = [s for s, count in enumerate(pools) if count == best]
    if len(tied) == 1:
        return tied[0]
    players = len(pools)
    return next(s for s in ((holder + k) % players for k in range(1, players + 1)) if s in tied and s != holder)
