"""Compact text pictures of a game view for the terminal player, one per game kind that has one.

Kinds without a picture here are shown field by field (protobuf text format), so a new game
plays in the terminal before anyone draws it.
"""

from __future__ import annotations

from typing import Callable

from hustings.v1 import game_pb2, stimmvieh_pb2


def _card(card: stimmvieh_pb2.StimmviehCard) -> str:
    if not card.card_id:
        return "-"
    unit = "k votes" if card.type == stimmvieh_pb2.STIMMVIEH_CARD_TYPE_VOTE else " k€"
    return f"{card.card_id} {card.amount}{unit} (influence {card.influence})"


def _stack(stack: stimmvieh_pb2.StimmviehCollectedStack) -> str:
    text = f"{stack.count} cards, top {_card(stack.top_card)}"
    if stack.HasField("total"):
        text += f", total {stack.total}"
    return text


def stimmvieh_table(view: game_pb2.GameView) -> str:
    """A Stimmvieh table: display, stacks, every party as the viewer may see it."""
    table = view.stimmvieh
    phase = stimmvieh_pb2.StimmviehPhase.Name(table.phase).removeprefix("STIMMVIEH_PHASE_")
    lines = [f"Campaign {table.campaign}/{table.campaigns}, round {table.round}, {phase}"]
    lines.append("Display: " + " | ".join(_card(c) for c in table.display))
    lines.append(
        f"Vote stack: {table.vote_stack_count} left, top {_card(table.vote_stack_top)}; "
        f"donation stack: {table.donation_stack_count} left, top {_card(table.donation_stack_top)}"
    )
    for party in table.parties:
        who = "dummy party" if party.angelus else f"seat {party.seat}"
        marks = []
        if view.HasField("seat") and party.HasField("seat") and party.seat == view.seat:
            marks.append("you")
        if table.HasField("current_party") and table.current_party == party.party:
            marks.append("to play")
        lines.append(f"  {party.party}. {party.name} ({who}{', ' + ', '.join(marks) if marks else ''})")
        hand = list(party.backbenchers) or f"{party.backbencher_count} cards"
        chosen = f", chosen {list(party.chosen_top_candidates)}" if party.chosen_top_candidates else ""
        lines.append(f"     top candidates {list(party.top_candidates)}, backbenchers {hand}{chosen}")
        lines.append(f"     votes: {_stack(party.votes)}; donations: {_stack(party.donations)}")
    if table.HasField("angelus_holder"):
        lines.append(f"The Angelus card is with seat {table.angelus_holder}.")
    for record in table.campaign_results:
        lines.append(f"Campaign {record.campaign} results:")
        for r in record.results:
            doubled = " doubled" if r.doubled else ""
            lines.append(f"  place {r.rank}: party {r.party}, {r.votes}k votes, {r.final_donations} k€{doubled}, {r.points} points")
    return "\n".join(lines)


PICTURES: dict[str, Callable[[game_pb2.GameView], str]] = {"stimmvieh": stimmvieh_table}
