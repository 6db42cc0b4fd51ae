"""The Spin Doctors in the terminal: a compact table, its events in words, and words for ids.

The view speaks in catalogue ids and numbers (Staffer orders, Locality and Voter Group indexes,
card ids); their names come from the engine's content.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

from hustings.move_entry import Labeller
from hustings.tables import GameText, possessive, quantity, seat_name, subject, wrap
from hustings.v1 import game_pb2, spin_doctors_pb2

GROUP_SHORT = {0: "Young", 1: "Fam", 2: "Sen", 3: "Iron"}
SHOWN_DISCARDS = 3


@functools.lru_cache(maxsize=1)
def content() -> dict[str, Any]:
    """The engine's content of The Spin Doctors."""
    return json.loads((resources.files("hustings.engine.spin_doctors") / "content.json").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _names(section: str, key: str) -> dict[Any, str]:
    return {entry[key]: entry["name"] for entry in content()[section]}


def staffer(order: int) -> str:
    """A Staffer's name by its order; ``?`` for one face down."""
    return _names("staffers", "order").get(order, "?") if order >= 0 else "?"


def locality(index: int) -> str:
    """A Locality's name by its index."""
    return _names("localities", "locality").get(index, f"locality {index}")


def voter_group(index: int) -> str:
    """A Voter Group's name by its index."""
    groups = content()["voter_groups"]
    return groups[index]["name"] if 0 <= index < len(groups) else f"group {index}"


def field(number: int) -> str:
    """A board field's name, 1..6."""
    return _names("fields", "field").get(number, f"field {number}")


def action(action_id: str) -> str:
    """An Action's name by its id."""
    return _names("actions", "id").get(action_id, action_id)


def card(card_id: str) -> str:
    """A News, Programme, Topic or Turnout card in a few words."""
    for entry in content()["news_cards"]:
        if entry["id"] == card_id:
            if "scandal" in entry:
                return f"Scandal of {entry['scandal']}"
            return f"{entry['topic'].replace('_', ' ')}, {voter_group(_group_index(entry['group']))} {entry['turnout_change']:+d}"
    for entry in content()["programme_cards"]:
        if entry["id"] == card_id:
            return f"{entry['topic'].replace('_', ' ')} {entry['condition']}: +{entry['reward']} / -{entry['penalty']}"
    for entry in content()["topic_cards"]:
        if entry["id"] == card_id:
            return f"{entry['topic'].replace('_', ' ')}, {entry['red_fields']} red {entry['white_fields']} white"
    return card_id


def _group_index(group_id: str) -> int:
    return next((i for i, g in enumerate(content()["voter_groups"]) if g["id"] == group_id), -1)


def _owners(view: game_pb2.GameView, tokens: list[int]) -> str:
    colours = {p.seat: p.colour for p in view.spin_doctors.players}
    return " ".join(colours.get(t, "?") if t >= 0 else "." for t in tokens) or "-"


def _phase(phase: int) -> str:
    return spin_doctors_pb2.SpinDoctorsPhase.Name(phase).removeprefix("SPIN_DOCTORS_PHASE_").lower().replace("_", " ")


def spin_doctors_table(view: game_pb2.GameView) -> str:
    """The table as the viewer may see it, in about thirty lines."""
    s = view.spin_doctors
    lines = [
        f"Round {s.round}, {_phase(s.phase)}; Favourite {seat_name(view, s.favourite)}"
        + (f"; resolving {field(s.field_now)}" if s.field_now and s.phase == spin_doctors_pb2.SPIN_DOCTORS_PHASE_RESOLUTION else "")
        + f"; News deck {s.news_deck_count}, Topic deck {s.topic_deck_count}"
    ]
    if s.HasField("pending") and s.pending.kind:
        p = s.pending
        about = [f"{locality(p.locality)}" if p.locality >= 0 else "", f"Staffer {staffer(p.staffer)}" if p.staffer >= 0 else ""]
        about += [f"with {seat_name(view, p.other_seat)}" if p.other_seat >= 0 else "", quantity(p.amount, "point") if p.amount else ""]
        about += [f"cards {', '.join(p.cards)}" if p.cards else ""]
        lines.append(" ".join([f"Waiting for: {p.kind} by {seat_name(view, p.seat)}", *(a for a in about if a)]))
    lines.append("Turnout markers: " + ", ".join(f"{voter_group(g)} {m}" for g, m in enumerate(s.turnout_markers)))
    for player in s.players:
        votes = " ".join(f"{GROUP_SHORT.get(g, g)} {v}" for g, v in enumerate(player.votes))
        lines.append(
            f"  {seat_name(view, player.seat)} ({player.colour}): budget {player.budget}, supply {player.supply}"
            + (f", pool {player.pool}" if player.pool else "")
            + f"; votes {votes}; staff {player.staff_count} ({player.hand_count} in hand)"
        )
        if player.staff:
            lines.append("     staff: " + ", ".join(f"{o} {staffer(o)}" for o in player.staff))
        programme = [f"{c} (up)" for c in player.programme_face_up] + [f"{c} (down)" for c in player.programme_face_down]
        if programme or player.programme_count:
            lines.append(f"     programme ({player.programme_count}): " + (", ".join(programme) or "face down"))
    lines.append("Localities (turnout tokens | topic red / white | activity):")
    for loc in s.localities:
        lines.append(
            f"  {loc.locality} {locality(loc.locality)}: {loc.turnout_card} [{_owners(view, list(loc.turnout_tokens))}] | "
            f"{loc.topic_card} [{_owners(view, list(loc.red_tokens))} / {_owners(view, list(loc.white_tokens))}] | "
            f"[{_owners(view, list(loc.activity_tokens))}]"
        )
    news = []
    for i, card_id in enumerate(s.news):
        down = i < len(s.news_face_down) and s.news_face_down[i]
        news.append(card_id or ("face down" if down else "-"))
    lines.append("News track: " + " | ".join(news))
    if s.news_discard:
        lines.append(f"News discard ({len(s.news_discard)}): latest " + ", ".join(s.news_discard[-SHOWN_DISCARDS:]))
    if s.board_staffers:
        played = [
            f"{seat_name(view, b.seat)} {staffer(b.staffer)} on {b.field}"
            + ("" if b.face_up else " (down)")
            + (" resolved" if b.resolved else "")
            + (" blocked" if b.blocked else "")
            for b in s.board_staffers
        ]
        lines.append("Staffers on the board: " + "; ".join(played))
    if s.scandals_aside:
        lines.append("Scandals beside the board: " + ", ".join(s.scandals_aside))
    for number, offer in enumerate(s.offers):
        lines.append(f"Offer {number}: {offer_text(view, offer)}")
    if s.named_winner >= 0:
        lines.append(f"Named winner: {seat_name(view, s.named_winner)}")
    return wrap(lines)


TermKind = spin_doctors_pb2.SpinDoctorsDealTermKind


def term_text(view: game_pb2.GameView, term: spin_doctors_pb2.SpinDoctorsDealTerm) -> str:
    """What an offer pays for, e.g. ``reduce Bo's Votes`` or ``Undermine Credibility on Cy's Provocateur``."""
    named = seat_name(view, term.seat) if term.seat >= 0 else ""
    if term.kind == TermKind.SPIN_DOCTORS_DEAL_TERM_KIND_REDUCE_VOTES:
        return f"reduce {possessive(view, term.seat)} Votes in the speech"
    if term.kind == TermKind.SPIN_DOCTORS_DEAL_TERM_KIND_SPARE_VOTES:
        return "give up reducing Votes in the speech"
    if term.kind == TermKind.SPIN_DOCTORS_DEAL_TERM_KIND_ORDER_TIE:
        return f"let {possessive(view, term.seat)} tied Staffer go next"
    if term.kind == TermKind.SPIN_DOCTORS_DEAL_TERM_KIND_CONSENT:
        return "agree to the Topic change"
    if term.kind == TermKind.SPIN_DOCTORS_DEAL_TERM_KIND_PUSH_OFF:
        return f"push {possessive(view, term.seat)} token off a White field"
    if term.kind == TermKind.SPIN_DOCTORS_DEAL_TERM_KIND_ACTION:
        target = f"{possessive(view, term.seat)} {staffer(term.staffer)}" if term.staffer >= 0 else named
        return f"{action(term.action)} on {target}"
    return "an unknown term"


def offer_text(view: game_pb2.GameView, offer: spin_doctors_pb2.SpinDoctorsOffer) -> str:
    """A pending offer in words: who offers how much to whom, for what."""
    return (f"{seat_name(view, offer.offerer)} offers {quantity(offer.amount, 'Budget point')} to {seat_name(view, offer.seat)}"
            f" to {term_text(view, offer.term)}")


EventKind = spin_doctors_pb2.SpinDoctorsEventKind


def tell(event: game_pb2.Event, view: game_pb2.GameView) -> str | None:
    """An event of The Spin Doctors in words."""
    if event.WhichOneof("body") != "spin_doctors":
        return None
    e = event.spin_doctors
    who = seat_name(view, e.seat) if e.seat >= 0 else "the table"
    whose = possessive(view, e.seat) if e.seat >= 0 else "a"
    other = seat_name(view, e.other_seat) if e.other_seat >= 0 else ""
    cards = ", ".join(e.cards)
    k = e.kind
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_STAFFER_CHOSEN:
        return f"{who} chose a Staff"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_PROGRAMME_CHOSEN:
        return f"{who} chose a Programme card" + (f": {cards}" if cards else "")
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_STAFFS_CHOSEN:
        return "Every Staff and Programme is chosen"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_PROGRAMME_REVEALED:
        return f"{who} turned up Programme card {cards} ({card(e.cards[0]) if e.cards else ''})"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_ROUND_STARTED:
        return f"Round {e.amount} begins"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_NEWS_REVEALED:
        return f"News on field {e.amount}: {cards}" + (f" ({card(e.cards[0])})" if e.cards else "")
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_STAFFER_PLAYED:
        shown = staffer(e.staffer) if e.staffer >= 0 else "a Staffer"
        return f"{who} played {shown} on {field(e.field)}" + ("" if e.amount == 1 else " face down")
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_STAFFERS_REVEALED:
        return "Staffers turned up: " + "; ".join(f"{seat_name(view, b.seat)} {staffer(b.staffer)} on {b.field}" for b in e.revealed)
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_ACTION:
        targets = [
            locality(e.locality) if e.locality >= 0 else "",
            other,
            f"{possessive(view, e.other_seat) if e.other_seat >= 0 else 'own'} {staffer(e.target_staffer)}" if e.target_staffer >= 0 else "",
            voter_group(e.voter_group) if e.voter_group >= 0 else "",
            _second(e.action, e.second),
            f"turnout {e.step:+d}" if e.step else "",
            cards,
        ]
        said = ", ".join(t for t in targets if t)
        return f"{whose} {staffer(e.staffer)} used {action(e.action)}" + (f" on {said}" if said else "") + (f" for {quantity(e.amount, 'point')}" if e.amount else "")
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_DECLINED:
        return f"{whose} {staffer(e.staffer)} did not act"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_STAFFER_FORGOES:
        return f"{whose} {staffer(e.staffer)} forgoes its action"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_VOTES_LOST_TO_TRAIT:
        return f"{subject(who, 'loses')} {quantity(e.amount, 'vote')} of {voter_group(e.voter_group)} to Down with Dirty Politics"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_TURNOUT_TOKEN:
        return f"{who} placed Support on the Turnout card of {locality(e.locality)}" + (f", pushing off {other}" if other else "")
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_ACTIVITY_TOKENS:
        return f"{who} put {e.amount} Support on the Activity stack of {locality(e.locality)}"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_TOPIC_TOKEN:
        return f"{who} placed Support on a {'Red' if e.amount else 'White'} field of the Topic in {locality(e.locality)}" + (f", pushing off {other}" if other else "")
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_PUSHED_OFF_WHITE:
        return f"{subject(who, 'gains')} 1 vote of {voter_group(e.voter_group)} (pushed off a White field)"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_BROADCAST:
        return f"Media broadcast: {cards}" + (f" ({card(e.cards[0])})" if e.cards else "")
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_NEWS_ARRANGED:
        return f"{who} laid News on the Red fields" + (f": {cards}" if cards else "")
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_NEWS_DISCARDED:
        return f"News discarded: {cards}"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_CONSENT:
        return f"{who} {'agreed to' if e.amount else 'refused'} the Topic change of {other}"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_TOPIC_CHANGED:
        return f"Topic card changed in {locality(e.locality)}: {' for '.join(e.cards)}"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_BLACKMAIL_ANSWERED:
        return f"{who} {'paid ' + quantity(e.amount, 'point') + ' to' if e.amount else 'refused to pay'} {other}"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_FAVOURITE:
        return f"{subject(who, 'becomes')} the Favourite"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_TURNOUT_CHANGED:
        return f"Turnout of {voter_group(e.voter_group)} moves by {e.amount:+d}"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_SPEECH_VOTE:
        return f"{subject(who, 'gains')} {quantity(e.amount, 'vote')} of {voter_group(e.voter_group)} by the speech"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_SPEECH:
        return f"{who} took {quantity(e.amount, 'vote')} of {voter_group(e.voter_group)} from {other}" if e.amount else f"{who} gave up reducing votes"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_LOCALITY_VOTES:
        return f"{subject(who, 'gains')} {quantity(e.amount, 'vote')} of {voter_group(e.voter_group)} in {locality(e.locality)}"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_STAFF_CHANGE_MADE:
        return f"{who} made the Staff change after the Poll"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_PROGRAMME_CHANGE_MADE:
        return f"{who} made the Programme change after the Poll"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_POLL_CHANGES_MADE:
        return "Every change after the Poll is made"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_WINNER_NAMED:
        return f"The Favourite named {other} the winner"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_BUDGET_HANDED:
        return f"{who} handed {quantity(e.amount, 'Budget point')} to {other}"
    if k in _OFFER_EVENTS:
        return _OFFER_EVENTS[k].format(who=who, who_offers=subject(who, "offers"), whose=whose, other=other, budget=quantity(e.amount, "Budget point"), points=quantity(e.amount, "point"), term=term_text(view, e.term))
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_SCANDAL_NOT_FOUND:
        return f"No Scandal of {other} was found in the News deck"
    if k == EventKind.SPIN_DOCTORS_EVENT_KIND_TIE_ORDERED:
        return f"The Favourite lets {whose} Staffer go next"
    return None


_OFFER_EVENTS = {
    EventKind.SPIN_DOCTORS_EVENT_KIND_OFFER_MADE: "{who_offers} {budget} to {other} to {term} (held by the table)",
    EventKind.SPIN_DOCTORS_EVENT_KIND_OFFER_WITHDRAWN: "{who} withdrew the offer of {points} to {other}",
    EventKind.SPIN_DOCTORS_EVENT_KIND_OFFER_DECLINED: "{other} declined the {points} of {who}",
    EventKind.SPIN_DOCTORS_EVENT_KIND_OFFER_KEPT: "{other} did {term} and got {whose} {points}",
    EventKind.SPIN_DOCTORS_EVENT_KIND_OFFER_RETURNED: "{other} did not {term}: {who} got back the {points}",
}


def _second(action_id: str, second: int) -> str:
    """The second target of an Action: a Voter Group for Realignment, else a Locality."""
    if second < 0:
        return ""
    return voter_group(second) if action_id == "realignment" else locality(second)


def labeller(view: game_pb2.GameView) -> Labeller:
    """Staffers, Actions, Localities, Voter Groups, fields, seats and cards by name."""
    def label(name: str, value: object) -> str | None:
        if isinstance(value, spin_doctors_pb2.SpinDoctorsDealTerm):
            return term_text(view, value)
        if isinstance(value, bool) or value is None or value == -1:
            return None
        if isinstance(value, str):
            return action(value) if name == "action" else (card(value) if value else None)
        assert isinstance(value, int)
        if name in ("staffer", "staffers", "discard", "take"):
            return staffer(value)
        if name == "locality":
            return locality(value)
        if name == "voter_group":
            return voter_group(value)
        if name == "field":
            return field(value)
        if name == "seat":
            return seat_name(view, value)
        if name == "offer" and 0 <= value < len(view.spin_doctors.offers):
            return offer_text(view, view.spin_doctors.offers[value])
        return None

    return label


TEXT = GameText(spin_doctors_table, tell, labeller)
