"""A Wahlspiel table rebuilt from one seat's ``GameView``: what a bot playing over the network
decides from.

Everything the view shows is taken from it: the board, pieces, money, politicians, candidates,
ballot box, played events, councillors, the seat's own hands, how many cards each party and each
stack holds, the ballot, the coalition and the run-off. Where each unseen card lies is then drawn
by ``sampling.sample_state``, as for any determinization: the cards the seat has not seen are
first laid out in a fixed order (each party's hand and the stacks at the sizes the view gives),
and the sampler redeals them. Since a sample depends only on what the seat sees and on ``rng``,
the result is a sample of the real table.

Each party shows the content's default name and colour until it chooses its own; a party that
chose exactly its default looks the same, and is rebuilt as one that did not choose (names and
colours play no part in the rules). A finished game's hidden cards stay in the fixed order: the
sampler keeps a finished table as it is, and nobody owes a decision there.
"""

from __future__ import annotations

from typing import Any

from hustings.engine.base import Seat, enum_name
from hustings.engine.errors import EngineError
from hustings.engine.rng import Rng
from hustings.engine.wahlspiel import model as m
from hustings.engine.wahlspiel.codec import move_from_proto, options_from_proto
from hustings.engine.wahlspiel.content import CONTENT
from hustings.engine.wahlspiel.founding import party_colours
from hustings.engine.wahlspiel.rules import legal_moves, to_act
from hustings.engine.wahlspiel.sampling import sample_state
from hustings.engine.wahlspiel.table import card_kind

KIND = "wahlspiel"
_KIND_NAMES = {"VOTER": m.VOTER, "EVENT": m.EVENT}
_KIND_MARK = {m.VOTER: "?voter", m.EVENT: "?event"}
"""Stand-ins for the cards of an offer or a hand-over that the seat saw only the backs of."""
_MARK_KIND = {mark: kind for kind, mark in _KIND_MARK.items()}


def _kind(card: str) -> str:
    return _MARK_KIND.get(card) or card_kind(card)


def state_from_view(view: Any, seat: Seat, rng: Rng) -> m.WahlspielState:
    """A full table that ``seat`` cannot tell from the one its ``view`` (a hustings.v1.GameView)
    was made of: what the view shows taken from it, what it hides (the other parties' hands, the
    stacks' order, what only others saw) drawn with ``rng`` as ``sampling.sample_state`` draws it.

    Raises ValueError, naming what is wrong, for a view of another kind, a spectator's view, a
    view of another seat, a view of a game not yet started (it shows no hands), and a view that
    no table of the rules could show (cards unknown, missing or in two places, counts that do not
    add up, or to_act and legal moves other than the table's)."""
    if view.kind != KIND or view.WhichOneof("game") != KIND:
        raise ValueError(f"not a Wahlspiel view (kind {view.kind!r}, table {view.WhichOneof('game')!r})")
    if not view.HasField("seat"):
        raise ValueError("a spectator's view: a table is rebuilt from a seat's view only")
    if view.seat != seat:
        raise ValueError(f"the view is seat {view.seat}'s, not seat {seat}'s")
    if enum_name(view, "status", "GAME_STATUS_") == "OPEN":
        raise ValueError("the game has not started: a seat's view shows no hands until it does")
    try:
        options = options_from_proto(view.options)
    except EngineError as error:
        raise ValueError(f"the view's options are not Wahlspiel's: {error}") from error
    if not 0 <= seat < options.players:
        raise ValueError(f"seat {seat} is not at a table of {options.players}")
    try:
        table = _Rebuild(view.wahlspiel, seat, options).state()
        if enum_name(view, "status", "GAME_STATUS_") == "ACTIVE":
            # Who owes a decision and what the seat may do follow from the table: they must agree.
            if sorted(to_act(table)) != sorted(view.to_act):
                raise ValueError(f"the view's to_act {sorted(view.to_act)} is not the table's {sorted(to_act(table))}")
            if [move_from_proto(move) for move in view.legal_moves] != legal_moves(table, seat):
                raise ValueError("the view's legal moves are not the ones its table gives the seat")
    except (KeyError, IndexError, TypeError, EngineError) as error:
        raise ValueError(f"the Wahlspiel view is not one the rules could show: {error!r}") from error
    return sample_state(table, seat, rng)


class _Rebuild:
    """The table of one view with the unseen cards laid out in a fixed order."""

    def __init__(self, own: Any, seat: Seat, options: m.WahlspielOptions) -> None:
        self.own, self.seat, self.options = own, seat, options
        step = enum_name(own, "step", "WAHLSPIEL_STEP_")
        if step not in m.STEPS:
            raise ValueError(f"no Wahlspiel step {step!r}")
        self.step = step

    def state(self) -> m.WahlspielState:
        """The whole table, every unseen card placed."""
        own, seat, step = self.own, self.seat, self.step
        players = self.options.players
        if len(own.parties) != players or [p.party for p in own.parties] != list(range(players)):
            raise ValueError(f"the view shows {len(own.parties)} parties for {players} seats")
        mine = own.parties[seat]
        hand_voters = tuple(sorted(c.card_id for c in mine.voters))
        hand_events = tuple(sorted(c.card_id for c in mine.events))
        if (len(hand_voters), len(hand_events)) != (mine.voter_count, mine.event_count):
            raise ValueError("the seat's own hands differ from its card counts")
        if not set(hand_voters) <= CONTENT.voters.keys() or not set(hand_events) <= CONTENT.events.keys():
            raise ValueError("the seat's own hands hold cards that are not Wahlspiel voters and events")
        named = [p for party in own.parties for p in party.politician_ids] + [c.politician_id for c in own.candidates]
        if not set(named) <= CONTENT.politicians.keys():
            raise ValueError(f"politicians not in Wahlspiel's content: {sorted(set(named) - CONTENT.politicians.keys())}")
        if step == m.RUNOFF and not own.HasField("runoff") or step == m.BALLOT and not own.HasField("ballot"):
            raise ValueError(f"a {step} step without its {step.lower()}")
        coalition = self._coalition()
        runoff = self._runoff()
        # Cards of other parties the seat has seen (in an offer, or handed over for one).
        seen: dict[int, list[str]] = {p: [] for p in range(players) if p != seat}
        partners = coalition is not None and coalition.partner >= 0 and seat in (self._current(), coalition.partner)
        if coalition is not None and coalition.partner >= 0 and partners:
            proposer, answerer = self._sides(coalition)
            offer = coalition.pending if coalition.pending is not None else coalition.draft
            if proposer != seat:
                seen[proposer].extend(offer.give_cards)
            if answerer != seat:
                seen[answerer].extend(coalition.handed)
        own_sent = [s.card for s in runoff.sent if s.party == seat and s.card] if runoff is not None else []
        voters, events = self._unseen(hand_voters, hand_events, seen, own_sent)
        hands: dict[int, dict[str, list[str]]] = {}
        for p in seen:
            party = own.parties[p]
            kept_voters = [c for c in seen[p] if card_kind(c) == m.VOTER]
            kept_events = [c for c in seen[p] if card_kind(c) == m.EVENT]
            hands[p] = {
                "voters": kept_voters + _take(voters, party.voter_count - len(kept_voters), f"party {p}'s voters"),
                "events": kept_events + _take(events, party.event_count - len(kept_events), f"party {p}'s events"),
            }
        if runoff is not None:
            sent = []
            for s in runoff.sent:
                card = s.card
                if s.party != seat and card:  # a voter sent face down: any unseen voter
                    card = _take(voters, 1, "the run-off voters")[0]
                sent.append(m.RunoffSent(s.party, card))
            runoff = m.Runoff(runoff.politicians, runoff.seats, runoff.elected, runoff.parties, tuple(sent))
        if coalition is not None and coalition.partner >= 0 and not partners:
            coalition = self._offered_from_hands(coalition, hands)
        if len(voters) != own.voter_stack_count or len(events) != own.event_stack_count:
            raise ValueError(
                f"the cards left unseen ({len(voters)} voters, {len(events)} events) do not fill the stacks"
                f" ({own.voter_stack_count} voters, {own.event_stack_count} events)"
            )
        parties = []
        colours = self._colours()
        for i, p in enumerate(own.parties):
            held = {"voters": hand_voters, "events": hand_events} if i == seat else {
                k: tuple(sorted(v)) for k, v in hands[i].items()
            }
            parties.append(m.Party(
                politicians=tuple(p.politician_ids), money=p.money, position=p.position,
                voters=held["voters"], events=held["events"], arrived=p.arrived, trades=p.trades,
                name="" if p.name == CONTENT.party_names[i] else p.name, colour=colours[i],
            ))
        ballot, revealed = self._ballots()
        return m.WahlspielState(
            options=self.options,
            round=own.round,
            step=step,
            current=self._current(),
            start_party=own.start_party,
            parties=tuple(parties),
            candidates=tuple(
                m.Candidate(c.politician_id, c.party, c.votes, c.in_race, c.councillor) for c in own.candidates
            ),
            voter_stack=tuple(voters),
            event_stack=tuple(events),
            ballot_box=tuple(own.ballot_box_card_ids),
            event_discards=tuple(own.event_discard_card_ids),
            retired=tuple(own.retired_politician_ids),
            cantonal=tuple(own.cantonal_councillor_ids),
            national=tuple(own.national_councillor_ids),
            federal=own.federal_councillor_id,
            first_arrived=own.first_arrived if own.HasField("first_arrived") else -1,
            goal_votes=own.goal_votes,
            last_roll=own.last_roll,
            coalition=coalition,
            ballot=ballot,
            runoff=runoff,
            revealed_ballot=revealed,
        )

    # --- parts ------------------------------------------------------------------------------

    def _current(self) -> int:
        own = self.own
        if own.HasField("current_party"):
            return own.current_party
        if self.step == m.RUNOFF:
            return own.runoff.closing_party
        if self.step == m.FINISHED:
            return -1
        raise ValueError(f"a {self.step} step without a current party")

    def _sides(self, coalition: m.Coalition) -> tuple[int, int]:
        current = self._current()
        proposer = current if coalition.proposer < 0 else coalition.proposer
        return proposer, coalition.partner if proposer == current else current

    def _coalition(self) -> m.Coalition | None:
        own = self.own
        if self.step == m.CHOOSING_PARTNER:
            return m.Coalition()
        if not own.HasField("coalition"):
            if self.step in (m.OFFERING, m.ANSWERING, m.HANDING_OVER):
                raise ValueError(f"a {self.step} step without its coalition")
            return None
        c = own.coalition
        if c.party != self._current() or not 0 <= c.partner < self.options.players or c.partner == c.party:
            raise ValueError("the coalition's sides are not the party on the field and another party")
        # The side on the field drafts the first offer without being named: set only once an offer is put.
        proposer = -1 if c.offers == 0 else c.proposer
        if proposer not in (-1, c.party, c.partner):
            raise ValueError("the coalition's proposer is neither side")
        return m.Coalition(
            partner=c.partner, offers=c.offers, proposer=proposer, draft=_offer(c.draft),
            pending=_offer(c.pending) if c.HasField("pending") else None,
            handed=_placeholders(c, "handed_cards", "handed_kinds", c.handed_count, "handed over"),
        )

    def _offered_from_hands(self, coalition: m.Coalition, hands: dict[int, dict[str, list[str]]]) -> m.Coalition:
        """For a seat outside the coalition: the cards offered and handed over, of the kinds the
        table saw, taken from their owners' (laid out) hands."""
        proposer, answerer = self._sides(coalition)
        offer = coalition.pending if coalition.pending is not None else coalition.draft

        def pick(owner: int, kinds: tuple[str, ...]) -> tuple[str, ...]:
            free = {m.VOTER: list(hands[owner]["voters"]), m.EVENT: list(hands[owner]["events"])}
            chosen = []
            for kind in kinds:
                if not free[kind]:
                    raise ValueError(f"party {owner} holds fewer {kind} cards than it offers or hands over")
                chosen.append(free[kind].pop(0))
            return tuple(chosen)

        given = pick(proposer, tuple(_kind(c) for c in offer.give_cards))
        handed = pick(answerer, tuple(_kind(c) for c in coalition.handed))
        if coalition.pending is not None:
            return m.Coalition(
                coalition.partner, coalition.offers, coalition.proposer, coalition.draft,
                _replace_cards(coalition.pending, given), handed,
            )
        return m.Coalition(
            coalition.partner, coalition.offers, coalition.proposer, _replace_cards(coalition.draft, given),
            coalition.pending, handed,
        )

    def _runoff(self) -> m.Runoff | None:
        own = self.own
        if self.step != m.RUNOFF or not own.HasField("runoff"):
            if own.HasField("runoff"):
                raise ValueError(f"a run-off outside the RUNOFF step ({self.step})")
            return None
        r = own.runoff
        sent_by = set(r.voter_sent_parties)
        if not sent_by <= set(r.decided_parties) or not set(r.decided_parties) <= set(r.parties):
            raise ValueError("run-off voters from parties that have not decided or may not send one")
        sent = []
        for p in r.decided_parties:
            if p == self.seat:
                card = r.sent_card.card_id if r.HasField("sent_card") else ""
            else:
                card = "?" if p in sent_by else ""  # laid out with the unseen cards
            sent.append(m.RunoffSent(p, card))
        return m.Runoff(
            tuple(r.politician_ids), r.seats, tuple(r.elected_politician_ids), tuple(r.parties), tuple(sent)
        )

    def _ballots(self) -> tuple[m.Ballot | None, m.Ballot | None]:
        """The open ballot (in a BALLOT step), or the ballot just decided, its hands still shown."""
        own = self.own
        if not own.HasField("ballot"):
            return None, None
        b = own.ballot
        politicians = tuple(b.politician_ids)
        if self.step != m.BALLOT:
            verdicts = tuple(m.Verdict(v.judge, v.politician_id, v.verdict) for v in b.verdicts)
            return None, m.Ballot(b.card.card_id, b.caster, politicians, tuple(b.judges), verdicts)
        mine = [v for v in b.verdicts if v.judge == self.seat]
        if len(mine) != len(b.verdicts):
            raise ValueError("an open ballot shows another judge's verdict")
        # Each judge decides the candidates in their order, so a verdict's judge names its candidate.
        given: dict[int, int] = {}
        verdicts = []
        for judge in b.verdict_judges:
            k = given.get(judge, 0)
            given[judge] = k + 1
            if judge not in b.judges or k >= len(politicians):
                raise ValueError(f"more verdicts from judge {judge} than the ballot asks for")
            if judge == self.seat:
                if k >= len(mine) or mine[k].politician_id != politicians[k]:
                    raise ValueError("the seat's own verdicts do not match the ballot's order")
                verdicts.append(m.Verdict(judge, politicians[k], mine[k].verdict))
            else:
                verdicts.append(m.Verdict(judge, politicians[k], False))  # hidden: the sampler draws it
        if given.get(self.seat, 0) != len(mine):
            raise ValueError("the seat's own verdicts are not among the verdicts given")
        return m.Ballot(b.card.card_id, b.caster, politicians, tuple(b.judges), tuple(verdicts)), None

    def _colours(self) -> tuple[str, ...]:
        """Each party's chosen colour, "" where the view shows the default it would have."""
        shown = tuple(p.colour for p in self.own.parties)
        chosen = list(shown)
        probe = [m.Party((), 0, colour=c) for c in chosen]
        for i in range(len(chosen)):
            trial = list(probe)
            trial[i] = m.Party((), 0, colour="")
            if party_colours(_with_parties(trial)) == shown:
                probe = trial
                chosen[i] = ""
        return tuple(chosen)

    def _unseen(
        self, hand_voters: tuple[str, ...], hand_events: tuple[str, ...], seen: dict[int, list[str]], own_sent: list[str]
    ) -> tuple[list[str], list[str]]:
        """Every card whose place the seat does not see, sorted."""
        own = self.own
        located: list[str] = [*hand_voters, *hand_events, *own.ballot_box_card_ids, *own.event_discard_card_ids, *own_sent]
        for cards in seen.values():
            located.extend(cards)
        unknown = [c for c in located if c not in CONTENT.voters and c not in CONTENT.events]
        if unknown:
            raise ValueError(f"cards not in Wahlspiel's content: {sorted(set(unknown))}")
        if len(set(located)) != len(located):
            raise ValueError("a card is shown in two places")
        taken = set(located)
        return sorted(c for c in CONTENT.voters if c not in taken), sorted(c for c in CONTENT.events if c not in taken)


def _take(pool: list[str], count: int, what: str) -> list[str]:
    if count < 0 or count > len(pool):
        raise ValueError(f"{what}: {count} cards asked of {len(pool)} unseen")
    taken = pool[:count]
    del pool[:count]
    return taken


def _placeholders(message: Any, cards: str, kinds: str, count: int, what: str) -> tuple[str, ...]:
    """The cards of an offer or hand-over: shown ones by id; unseen ones as their kind's mark
    (``?voter``, ``?event``) until they are taken from a hand."""
    ids = tuple(c.card_id for c in getattr(message, cards))
    if ids:
        if len(ids) != count:
            raise ValueError(f"{len(ids)} cards {what} shown for {count}")
        return ids
    names = [enum_name(message, kinds, "WAHLSPIEL_CARD_KIND_", k) for k in getattr(message, kinds)]
    if not set(names) <= _KIND_NAMES.keys():
        raise ValueError(f"cards {what} of no kind")
    marks = tuple(_KIND_MARK[_KIND_NAMES[k]] for k in names)
    if len(marks) != count:
        raise ValueError(f"{len(marks)} kinds of cards {what} for {count}")
    return marks


def _offer(o: Any) -> m.Offer:
    return m.Offer(
        give_cards=_placeholders(o, "give_cards", "give_kinds", o.give_voter_count + o.give_event_count, "offered"),
        give_money=o.give_money, ask_voters=o.ask_voter_count, ask_events=o.ask_event_count, ask_money=o.ask_money,
    )


def _replace_cards(offer: m.Offer, cards: tuple[str, ...]) -> m.Offer:
    return m.Offer(cards, offer.give_money, offer.ask_voters, offer.ask_events, offer.ask_money)


def _with_parties(parties: list[m.Party]) -> m.WahlspielState:
    return m.WahlspielState(m.WahlspielOptions(len(parties)), 1, m.NOMINATING, 0, 0, tuple(parties))
