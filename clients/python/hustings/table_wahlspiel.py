"""Wahlspiel in the terminal: a compact board, its events in words, and words for ids.

Politicians and the viewer's own cards come with the view; the texts of cards lying face up
(ballot box, played events) are looked up in the engine's content by their ids.
"""

from __future__ import annotations

import functools
import json
from importlib import resources

from hustings.move_entry import Labeller
from hustings.tables import GameText, possessive, quantity, seat_name, wrap
from hustings.v1 import game_pb2, wahlspiel_pb2

ROUNDS = {1: "cantonal council", 2: "national council", 3: "Federal Council"}
SHOWN_FACE_UP = 3  # how many of the latest face-up cards the table names


@functools.lru_cache(maxsize=1)
def card_texts() -> dict[str, str]:
    """The printed text of every voter and event card, by id, from the engine's content."""
    content = json.loads((resources.files("hustings.engine.wahlspiel") / "content.json").read_text(encoding="utf-8"))
    return {card["id"]: card["text"] for card in content["voters"] + content["events"]}


def _field(kind: int) -> str:
    return wahlspiel_pb2.WahlspielFieldKind.Name(kind).removeprefix("WAHLSPIEL_FIELD_KIND_").lower().replace("_", " ")


def _step(step: int) -> str:
    return wahlspiel_pb2.WahlspielStep.Name(step).removeprefix("WAHLSPIEL_STEP_").lower().replace("_", " ")


def party_name(view: game_pb2.GameView, party: int) -> str:
    """A party as its player's name, e.g. ``Bot 1``, or ``you``."""
    return seat_name(view, party)


def politician_name(view: game_pb2.GameView, politician_id: str) -> str:
    """``P02 Anna Muster``, or the bare id when the view does not deal it."""
    for p in view.wahlspiel.politicians:
        if p.politician_id == politician_id:
            return f"{p.politician_id} {p.name}"
    return politician_id


def _politician_line(p: wahlspiel_pb2.WahlspielPolitician) -> str:
    traits = f"; {', '.join(p.traits)}" if p.traits else ""
    return f"{p.politician_id} {p.name} ({p.sex}, {p.age}, {p.occupation}; {' '.join(p.symbols)}{traits})"


def _cards(ids: list[str], label: str) -> str:
    if not ids:
        return f"{label}: none"
    latest = "; ".join(f"{i} {card_texts().get(i, '')}".strip() for i in ids[-SHOWN_FACE_UP:])
    return f"{label}: {len(ids)}, latest {latest}"


def wahlspiel_table(view: game_pb2.GameView) -> str:
    """The board as the viewer may see it, in about thirty lines for six parties."""
    w = view.wahlspiel
    politicians = {p.politician_id: p for p in w.politicians}
    turn = f"{possessive(view, w.current_party)} turn" if w.HasField("current_party") else "nobody's turn"
    first = f"; first at the goal: {party_name(view, w.first_arrived)}" if w.HasField("first_arrived") else ""
    lines = [
        f"Round {w.round} ({ROUNDS.get(w.round, '?')}), {_step(w.step)}, {turn}; last roll {w.last_roll or '-'}; "
        f"goal votes left {w.goal_votes}{first}",
        f"Stacks: {quantity(w.voter_stack_count, 'voter')}, {quantity(w.event_stack_count, 'event')}",
    ]
    goal = len(w.board) - 1
    for party in w.parties:
        here = _field(w.board[party.position].kind) if party.position < len(w.board) else "?"
        arrived = ", at the goal" if party.arrived else ""
        lines.append(
            f"  {party.party}. {party.name} ({party_name(view, party.party)}, {party.colour}): field {party.position}/{goal} "
            f"{here}{arrived}; {party.money} francs; {quantity(party.voter_count, 'voter')}, {quantity(party.event_count, 'event')}"
            + (f"; {quantity(party.trades, 'trade')}" if party.trades else "")
        )
    lines.append("Candidates:")
    for c in w.candidates:
        status = "" if c.in_race else ", out of the race"
        councillor = ", national councillor" if c.councillor else ""
        person = _politician_line(politicians[c.politician_id]) if c.politician_id in politicians else f"{c.politician_id} {c.name}"
        votes = "vote " if c.votes == 1 else "votes"  # the column keeps its width
        lines.append(f"  {c.votes:2d} {votes}  {person} - {party_name(view, c.party)}{status}{councillor}")
    mine = next((p for p in w.parties if view.HasField("seat") and p.party == view.seat), None)
    if mine is not None:
        standing = {c.politician_id for c in w.candidates}
        bench = [politicians[i] for i in mine.politician_ids if i not in standing and i in politicians]
        if bench:
            lines.append("Your other politicians: " + "; ".join(_politician_line(p) for p in bench))
        if mine.voters:
            lines.append("Your voters: " + "; ".join(f"{c.card_id} {c.text}" for c in mine.voters))
        if mine.events:
            lines.append("Your events: " + "; ".join(f"{c.card_id} {c.text}" for c in mine.events))
    lines.append(_cards(list(w.ballot_box_card_ids), "Ballot box") + " | " + _cards(list(w.event_discard_card_ids), "Events played"))
    elected = [
        ("Cantonal councillors", list(w.cantonal_councillor_ids)),
        ("National councillors", list(w.national_councillor_ids)),
        ("Federal Councillor", [w.federal_councillor_id] if w.federal_councillor_id else []),
    ]
    for label, ids in elected:
        if ids:
            lines.append(f"{label}: " + ", ".join(politician_name(view, i) for i in ids))
    if w.HasField("ballot"):
        b = w.ballot
        verdicts = ", ".join(f"{party_name(view, v.judge)} {'yes' if v.verdict else 'no'} on {v.politician_id}" for v in b.verdicts)
        lines.append(
            f"Ballot on {b.card.card_id} '{b.card.opinion or b.card.text}' cast by {party_name(view, b.caster)}: "
            f"candidates {', '.join(politician_name(view, i) for i in b.politician_ids)}; verdicts so far: {verdicts or 'none'}"
        )
    if w.HasField("coalition"):
        c = w.coalition
        pending = ""
        if c.HasField("pending"):
            pending = f"; open offer by {party_name(view, c.proposer)}: {_offer(c.pending)}"
        if c.draft.ByteSize():
            pending += f"; drafting: {_offer(c.draft)}"
        if c.handed_cards or c.handed_count:
            handed = ", ".join(card.card_id for card in c.handed_cards) or quantity(c.handed_count, "card")
            pending += f"; handed over so far: {handed}"
        lines.append(f"Coalition: {party_name(view, c.party)} with {party_name(view, c.partner)}, {quantity(c.offers, 'offer')} put{pending}")
    if w.HasField("runoff"):
        r = w.runoff
        sent = f"; you sent {r.sent_card.card_id}" if r.sent_card.card_id else ""
        lines.append(
            f"Run-off for {quantity(r.seats, 'seat')} among {', '.join(politician_name(view, i) for i in r.politician_ids)}; "
            f"parties {', '.join(party_name(view, p) for p in r.parties)}, decided {', '.join(party_name(view, p) for p in r.decided_parties) or 'none'}{sent}"
        )
    return wrap(lines)


def tell(event: game_pb2.Event, view: game_pb2.GameView) -> str | None:
    """A Wahlspiel event in words."""
    if event.WhichOneof("body") != "wahlspiel":
        return None
    e = event.wahlspiel
    kind = e.WhichOneof("kind")
    p = functools.partial(party_name, view)
    pol = functools.partial(politician_name, view)
    if kind == "nominated":
        return f"{p(e.nominated.party)} nominated {pol(e.nominated.politician_id)}"
    if kind == "die_rolled":
        d = e.die_rolled
        bounced = ", bouncing back from the goal" if d.bounced else ""
        return f"{p(d.party)} rolled {d.pips} and moved to field {d.position} ({_field(d.field)}){bounced}"
    if kind == "cards_drawn":
        d = e.cards_drawn
        cost = f" for {d.cost} francs" if d.cost else " as a prize"
        seen = f": {', '.join(c.card_id for c in d.cards)}" if d.cards else ""
        return f"{p(d.party)} took {quantity(d.voter_count, 'voter')} and {quantity(d.event_count, 'event')}{cost}{seen}"
    if kind == "votes_changed":
        d = e.votes_changed
        return f"{pol(d.politician_id)} {'gains' if d.delta >= 0 else 'loses'} {quantity(abs(d.delta), 'vote')}, now {d.votes}"
    if kind == "voter_cast":
        d = e.voter_cast
        to = f" for {', '.join(pol(i) for i in d.politician_ids)}" if d.politician_ids else ""
        return f"{p(d.party)} cast voter {d.card.card_id} '{d.card.text}'{to}"
    if kind == "ballot_opened":
        d = e.ballot_opened
        return f"A ballot on '{d.card.opinion or d.card.text}' about {', '.join(pol(i) for i in d.politician_ids)}; judges: {', '.join(p(j) for j in d.judges)}"
    if kind == "judged":
        d = e.judged
        if not d.politician_id:  # a verdict still hidden (a show of hands reveals them together)
            return f"{p(d.judge)} has given a verdict"
        return f"{p(d.judge)} judged {pol(d.politician_id)}: {'yes' if d.verdict else 'no'}"
    if kind == "ballot_decided":
        d = e.ballot_decided
        return f"The ballot on {d.card_id} found {', '.join(pol(i) for i in d.politician_ids) or 'nobody'} fitting"
    if kind == "money_changed":
        d = e.money_changed
        return f"{p(d.party)} {'gets' if d.delta >= 0 else 'pays'} {abs(d.delta)} francs ({d.reason.lower()}), now {d.money}"
    if kind == "event_played":
        d = e.event_played
        effect = "" if d.effective else " (no effect)"
        about = f" on {', '.join(pol(i) for i in d.politician_ids)}" if d.politician_ids else ""
        return f"{p(d.party)} played event {d.card.card_id} '{d.card.text}'{about}{effect}"
    if kind == "candidate_changed":
        d = e.candidate_changed
        return f"{p(d.party)} withdrew {pol(d.withdrawn_politician_id)} and fielded {pol(d.nominated_politician_id)}"
    if kind == "candidate_retired":
        return f"{pol(e.candidate_retired.politician_id)} leaves the race ({e.candidate_retired.reason.lower()})"
    if kind == "coalition_changed":
        d = e.coalition_changed
        return f"The coalition of {p(d.party)} and {p(d.partner)} {'ends' if d.ended else 'is formed'}"
    if kind == "trade_offered":
        d = e.trade_offered
        return f"{p(d.party)} offers {p(d.partner)} {_offer(d.offer)}"
    if kind == "trade_answered":
        d = e.trade_answered
        return f"{p(d.partner)} {'accepts' if d.accepted else 'refuses'} the offer of {p(d.party)}"
    if kind == "goal_reached":
        d = e.goal_reached
        return f"{p(d.party)} reached the {_field(d.goal)} goal" + (" first" if d.first else "")
    if kind == "runoff_opened":
        d = e.runoff_opened
        return f"A run-off for {quantity(d.seats, 'seat')} among {', '.join(pol(i) for i in d.politician_ids)}"
    if kind == "runoff_voter_sent":
        d = e.runoff_voter_sent
        return f"{p(d.party)} decided on a run-off voter" + (f": {d.card.card_id}" if d.card.card_id else "")
    if kind == "runoff_voters_revealed":
        d = e.runoff_voters_revealed
        return "Run-off voters: " + "; ".join(f"{p(s.party)} {s.card.card_id or 'none'}" for s in d.sent)
    if kind == "runoff_card_turned":
        d = e.runoff_card_turned
        return f"The voter stack turns up {d.card.card_id} '{d.card.text}'"
    if kind == "runoff_lots":
        return "Lots decide the run-off: " + ", ".join(pol(i) for i in e.runoff_lots.politician_ids)
    if kind == "election_held":
        d = e.election_held
        return f"Election of round {d.round} ({ROUNDS.get(d.round, '?')}): " + ", ".join(pol(i) for i in d.politician_ids)
    return None


def labeller(view: game_pb2.GameView) -> Labeller:
    """Politician ids as names, the viewer's card ids as their texts, parties as players."""
    w = view.wahlspiel
    names = {p.politician_id: p.name for p in w.politicians}
    cards = {c.card_id: c.text for party in w.parties for c in list(party.voters) + list(party.events)}

    def label(name: str, value: object) -> str | None:
        if name.endswith(("politician_id", "politician_ids")):
            return names.get(str(value))
        if name.endswith("card_id"):
            return cards.get(str(value)) or card_texts().get(str(value))
        if name == "party" and isinstance(value, int):
            return party_name(view, value)
        return None

    return label


TEXT = GameText(wahlspiel_table, tell, labeller)


def _offer(o: "wahlspiel_pb2.WahlspielOffer") -> str:
    """An offer in words: the bundle given (cards by id where this seat may see them, else by
    kind and count) for the bundle asked."""
    given = [card.card_id for card in o.give_cards]
    if not given:
        given = [quantity(n, noun) for n, noun in ((o.give_voter_count, "voter card"), (o.give_event_count, "event card")) if n]
    if o.give_money:
        given.append(f"{o.give_money} francs")
    asked = [quantity(n, noun) for n, noun in ((o.ask_voter_count, "voter card"), (o.ask_event_count, "event card")) if n]
    if o.ask_money:
        asked.append(f"{o.ask_money} francs")
    return f"{', '.join(given) or 'nothing'} for {', '.join(asked) or 'nothing'}"
