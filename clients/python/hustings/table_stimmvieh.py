"""Stimmvieh in the terminal: the table, its events in words, and words for card ids."""

from __future__ import annotations

from hustings.move_entry import Labeller
from hustings.tables import GameText, quantity, seat_name, wrap
from hustings.v1 import game_pb2, stimmvieh_pb2


def card_text(card: stimmvieh_pb2.StimmviehCard) -> str:
    """A card as ``D03 3 k€ (influence 4)``; ``-`` for no card."""
    if not card.card_id:
        return "-"
    unit = "k votes" if card.type == stimmvieh_pb2.STIMMVIEH_CARD_TYPE_VOTE else " k€"
    return f"{card.card_id} {card.amount}{unit} (influence {card.influence})"


def _stack(stack: stimmvieh_pb2.StimmviehCollectedStack) -> str:
    text = f"{quantity(stack.count, 'card')}, top {card_text(stack.top_card)}"
    if stack.HasField("total"):
        text += f", total {stack.total}"
    return text


def party_name(view: game_pb2.GameView, party: int) -> str:
    """A party with its player, e.g. ``Party B (Bot 1)``; the dummy party is just its name."""
    for p in view.stimmvieh.parties:
        if p.party == party:
            return p.name if p.angelus or not p.HasField("seat") else f"{p.name} ({seat_name(view, p.seat)})"
    return f"party {party}"


def stimmvieh_table(view: game_pb2.GameView) -> str:
    """A Stimmvieh table: display, stacks, every party as the viewer may see it."""
    table = view.stimmvieh
    phase = stimmvieh_pb2.StimmviehPhase.Name(table.phase).removeprefix("STIMMVIEH_PHASE_")
    lines = [f"Campaign {table.campaign}/{table.campaigns}, round {table.round}, {phase}"]
    lines.append("Display: " + " | ".join(card_text(c) for c in table.display))
    lines.append(
        f"Vote stack: {table.vote_stack_count} left, top {card_text(table.vote_stack_top)}; "
        f"donation stack: {table.donation_stack_count} left, top {card_text(table.donation_stack_top)}"
    )
    for party in table.parties:
        who = "dummy party" if party.angelus else seat_name(view, party.seat)
        marks = []
        if table.HasField("current_party") and table.current_party == party.party:
            marks.append("to play")
        lines.append(f"  {party.party}. {party.name} ({who}{', ' + ', '.join(marks) if marks else ''})")
        hand = list(party.backbenchers) or quantity(party.backbencher_count, "card")
        chosen = f", chosen {list(party.chosen_top_candidates)}" if party.chosen_top_candidates else ""
        played = f", played {list(party.played)}" if party.played else ""
        lines.append(f"     top candidates {list(party.top_candidates)}, backbenchers {hand}{chosen}{played}")
        lines.append(f"     votes: {_stack(party.votes)}; donations: {_stack(party.donations)}")
    if table.HasField("angelus_holder"):
        lines.append(f"The Angelus card is with {seat_name(view, table.angelus_holder)}.")
    for record in table.campaign_results[-1:]:
        lines.append(f"Campaign {record.campaign} results:")
        for r in record.results:
            # The donations before and after doubling, as the final placing's detail says them.
            donations = f"{r.donations} k€ doubled to {r.final_donations} k€" if r.doubled else f"{r.final_donations} k€"
            lines.append(f"  place {r.rank}: {party_name(view, r.party)}, {r.votes}k votes, {donations}, {quantity(r.points, 'point')}")
    return wrap(lines)


def tell(event: game_pb2.Event, view: game_pb2.GameView) -> str | None:
    """A Stimmvieh event in words."""
    if event.WhichOneof("body") != "stimmvieh":
        return None
    e = event.stimmvieh
    kind = e.WhichOneof("kind")
    if kind == "campaign_started":
        return f"Campaign {e.campaign_started.campaign} begins. Display: " + " | ".join(card_text(c) for c in e.campaign_started.display)
    if kind == "top_candidates_chosen":
        chosen = e.top_candidates_chosen
        secret = f": {' '.join(map(str, chosen.influences))}" if chosen.influences else " (face down)"
        return f"{party_name(view, chosen.party)} chose top candidates{secret}"
    if kind == "top_candidates_revealed":
        return "Top candidates revealed: " + "; ".join(
            f"{party_name(view, p.party)} {' '.join(map(str, p.influences))} (total {p.total})" for p in e.top_candidates_revealed.parties
        )
    if kind == "start_player_chosen":
        start = e.start_player_chosen
        return f"{party_name(view, start.party)} starts the campaign ({start.reason.lower().replace('_', ' ')})"
    if kind == "politician_played":
        played = e.politician_played
        top = " (a top candidate)" if played.top_candidate else ""
        took = f" and took {card_text(played.taken)}" if played.taken.card_id else " and took no card"
        by = ""
        if played.party not in _seated(view):  # the dummy party's politician is chosen by a seat
            by = f", decided by {seat_name(view, played.decided_by)}"
        return f"{party_name(view, played.party)} played politician {played.influence}{top}{took}{by}"
    if kind == "display_refilled":
        return f"The display is refilled with {card_text(e.display_refilled.card)}"
    if kind == "election_night":
        night = e.election_night
        return f"Election night of campaign {night.campaign}: " + "; ".join(
            f"{r.rank}. {party_name(view, r.party)} {r.votes}k votes, {r.final_donations} k€, {quantity(r.points, 'point')}" for r in night.results
        )
    if kind == "angelus_card_passed":
        return f"The Angelus card passes to {seat_name(view, e.angelus_card_passed.seat)}"
    return None


def _seated(view: game_pb2.GameView) -> set[int]:
    return {p.party for p in view.stimmvieh.parties if not p.angelus}


def labeller(view: game_pb2.GameView) -> Labeller:
    """Card ids in words (``D03`` -> ``3 k€``), from the cards the view shows."""
    cards = {c.card_id: c for c in view.stimmvieh.display}

    def label(name: str, value: object) -> str | None:
        card = cards.get(value) if name == "take_card_id" else None  # type: ignore[call-overload]
        return card_text(card).split(" ", 1)[1] if card is not None else None

    return label


TEXT = GameText(stimmvieh_table, tell, labeller)
