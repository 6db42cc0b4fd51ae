"""A Stimmvieh table rebuilt from the GameView one seat is sent, so that a bot deciding from full
states can play over the network.

Everything the view shows is taken from it: the public table, the seat's own hand, choice and
collected stacks, Angelus' face-up backbenchers, every party's backbenchers once the top candidates
are revealed (1..9 less its top candidates and the politicians it has played, both shown), and how
many cards are hidden where. What it hides is redealt by ``sampling.sample_state`` from a table
that holds the hidden cards in some order: the other parties' face-down top candidates, their
collected cards below the visible tops, Angelus' face-down stack and the order of both stacks below
their tops. Since a sample depends only on what the seat sees and on ``rng``, the rebuilt table
and the real one give that seat equal samples for equal ``rng`` (tests/test_from_view_stimmvieh.py).

A view that no table under the rules shows its seat is refused with ``ViewError`` before anything
is drawn: another kind's view, a spectator's, a view naming cards outside the game's deck, or one
whose counts, turn or legal moves do not fit together.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Iterable

from hustings.engine.base import Seat
from hustings.engine.rng import Rng
from hustings.engine.stimmvieh import codec, rules
from hustings.engine.stimmvieh.content import VOTE, Card
from hustings.engine.stimmvieh.model import (
    ANGELUS_PARTY,
    CHOOSING,
    DISPLAY_SIZE,
    FINISHED,
    PARTIES,
    PLACE_POINTS,
    POLITICIANS,
    ROUNDS,
    TOP_CANDIDATE_COUNT,
    CampaignRecord,
    PartyState,
    StimmviehOptions,
    StimmviehState,
    deck_of,
)
from hustings.engine.stimmvieh.sampling import sample_state
from hustings.engine.stimmvieh.scoring import doubling_parties, election_night, shared_ranks
from hustings.engine.stimmvieh.views import PartyView, SentView, StackView, TableView, ViewError, view

BACKBENCHER_COUNT = len(POLITICIANS) - TOP_CANDIDATE_COUNT
_PLACEHOLDER_CHOICE = tuple(POLITICIANS[:TOP_CANDIDATE_COUNT])
"""A face-down choice before it is redealt: the sampler draws every hidden choice anew."""

__all__ = ["ViewError", "state_from_view"]


def state_from_view(view_message: Any, seat: Seat, rng: Rng) -> StimmviehState:
    """A table that ``seat`` cannot tell from the one behind ``view_message`` (a hustings.v1.GameView
    sent to ``seat``), with what the view hides drawn from ``rng`` as the sampler draws it.

    Raises ViewError (a ValueError) with a ``reason``: WRONG_KIND, SPECTATOR_VIEW, WRONG_SEAT,
    BAD_OPTIONS, BAD_LEGAL_MOVE, UNREADABLE_VIEW, or INCONSISTENT_VIEW for a view that is not
    one the rules can produce.
    """
    sent = codec.view_from_proto(view_message)
    if sent.seat is None:
        raise ViewError("SPECTATOR_VIEW", "a spectator's view shows no seat's knowledge to rebuild a table from")
    if sent.seat != seat:
        raise ViewError("WRONG_SEAT", f"the view was sent to seat {sent.seat}, not to seat {seat}")
    if not 0 <= seat < sent.options.players:
        raise ViewError("INCONSISTENT_VIEW", f"seat {seat} is not a seat of a {sent.options.players}-player game")
    _check_rules(sent)
    # Until the game starts the service shows every seat the spectator's view.
    viewer = None if sent.status == "OPEN" else seat
    table = _skeleton(sent, viewer)
    _check_same(sent, table, seat, viewer)
    return sample_state(table, seat, rng)


def _inconsistent(message: str) -> ViewError:
    return ViewError("INCONSISTENT_VIEW", message)


# --- what the rules allow a view to show -----------------------------------------------------------


def _check_rules(sent: SentView) -> None:
    """Refuse a view whose phase, turn, politicians and campaigns do not fit together: the
    rebuilt table would otherwise break the rules (a turn for a party with nobody left to play)."""
    table, options = sent.table, sent.options
    phase = table.phase
    if (sent.status == "FINISHED") != (phase == FINISHED):
        raise _inconsistent(f"a game in phase {phase} cannot have status {sent.status}")
    if len(table.parties) != PARTIES or [p.party for p in table.parties] != list(range(PARTIES)):
        raise _inconsistent(f"the table shows parties {[p.party for p in table.parties]}, not 0 to {PARTIES - 1}")
    if not 1 <= table.campaign <= options.campaigns or phase == FINISHED and table.campaign != options.campaigns:
        raise _inconsistent(f"campaign {table.campaign} of {options.campaigns} in phase {phase}")
    finished_campaigns = options.campaigns if phase == FINISHED else table.campaign - 1
    if [r.campaign for r in table.campaign_results] != list(range(1, finished_campaigns + 1)):
        raise _inconsistent(f"campaign {table.campaign} ({phase}) with results of campaigns "
                            f"{[r.campaign for r in table.campaign_results]}")
    for party in table.parties:
        won = sum(r.points for record in table.campaign_results for r in record.results if r.party == party.party)
        if party.campaign_points != won:
            raise _inconsistent(f"party {party.party} has {party.campaign_points} campaign points; its results give {won}")
        _check_politicians(party.chosen_top_candidates, f"party {party.party}'s chosen top candidates")
        _check_politicians(party.top_candidates + party.backbenchers, f"party {party.party}'s politicians")
        _check_politicians(party.top_candidates + party.played, f"party {party.party}'s politicians")
    for record in table.campaign_results:
        _check_record(record, options)
    if sent.status == "OPEN":
        # Nobody decides before every seat is taken.
        if phase != CHOOSING or table.campaign != 1 or any(
            p.top_candidates_chosen for p in table.parties if not (options.with_angelus and p.party == ANGELUS_PARTY)
        ):
            raise _inconsistent("an open game has made no move yet")
    if phase == CHOOSING:
        _check_choosing(table)
    else:
        _check_campaign(table, options)


def _check_politicians(influences: Iterable[int], what: str) -> None:
    shown = list(influences)
    _check_politicians_in_range(shown, what)
    if len(set(shown)) != len(shown):
        raise _inconsistent(f"{what} {shown} are not distinct influences")


def _check_politicians_in_range(influences: Iterable[int], what: str) -> None:
    if any(p not in POLITICIANS for p in influences):
        raise _inconsistent(f"{what} {list(influences)} are not all influences 1 to 9")


def _check_record(record: CampaignRecord, options: StimmviehOptions) -> None:
    """A campaign's results follow from each party's votes, vote influence and donations."""
    results = record.results
    if [r.party for r in results] != list(range(PARTIES)):
        raise _inconsistent(f"campaign {record.campaign} has results for parties {[r.party for r in results]}")
    moderator = options.moderator_seat if options.moderator else None
    doubled = doubling_parties([r.votes for r in results], [r.vote_influence for r in results], moderator)
    final = [r.donations * 2 if r.party in doubled else r.donations for r in results]
    ranks = shared_ranks(final, moderator)
    expected = [(p, p in doubled, final[p], ranks[p], PLACE_POINTS[ranks[p] - 1]) for p in range(PARTIES)]
    if [(r.party, r.doubled, r.final_donations, r.rank, r.points) for r in results] != expected:
        raise _inconsistent(f"the results of campaign {record.campaign} do not follow from its votes and donations")


def _check_choosing(table: TableView) -> None:
    if table.round != 0 or table.current_party is not None or table.start_party is not None:
        raise _inconsistent("top candidates are chosen before the first round: no round, turn or start party yet")
    if table.top_candidate_discards or table.backbencher_discards or any(p.played for p in table.parties):
        raise _inconsistent("no politician is played while top candidates are chosen")
    if any(p.votes.count or p.donations.count for p in table.parties):
        raise _inconsistent("no party holds cards while top candidates are chosen")
    for party in table.parties:
        if len(party.chosen_top_candidates) not in (0, TOP_CANDIDATE_COUNT):
            raise _inconsistent(f"party {party.party} chose {len(party.chosen_top_candidates)} top candidates, not 4")


def _check_campaign(table: TableView, options: StimmviehOptions) -> None:
    finished = table.phase == FINISHED
    if finished and table.round != ROUNDS or not finished and not 1 <= table.round <= ROUNDS:
        raise _inconsistent(f"round {table.round} in phase {table.phase}")
    start, current = table.start_party, table.current_party
    if start is None or start not in range(PARTIES) or options.with_angelus and start == ANGELUS_PARTY:
        raise _inconsistent(f"phase {table.phase} needs a start party other than Angelus, not {start}")
    if finished:
        played_this_round: set[int] = set(range(PARTIES))
        if current is not None or table.angelus_holder is not None:
            raise _inconsistent("a finished game has no party and no holder of the Angelus card to act")
    else:
        if current is None or current not in range(PARTIES):
            raise _inconsistent(f"the campaign needs a current party, not {current}")
        played_this_round = {p for p in range(PARTIES) if (p - start) % PARTIES < (current - start) % PARTIES}
    rounds_done = table.round - 1
    for party in table.parties:
        left = len(POLITICIANS) - rounds_done - (1 if party.party in played_this_round else 0)
        if len(party.top_candidates) > TOP_CANDIDATE_COUNT or not 0 <= party.backbencher_count <= BACKBENCHER_COUNT:
            raise _inconsistent(f"party {party.party} shows more than 4 top candidates or 5 backbenchers")
        if len(party.top_candidates) + party.backbencher_count != left:
            raise _inconsistent(
                f"party {party.party} has {len(party.top_candidates) + party.backbencher_count} politicians "
                f"left in round {table.round}; the turn order leaves it {left}"
            )
        if len(party.played) != len(POLITICIANS) - left:
            raise _inconsistent(
                f"party {party.party} has played {len(party.played)} politicians in round {table.round}; "
                f"the turn order makes it {len(POLITICIANS) - left}"
            )
    _check_politicians_in_range(table.top_candidate_discards + table.backbencher_discards, "the discards")
    for influence in POLITICIANS:
        # Every party has one politician of each influence: played, face up, or in a hand.
        seen = (table.top_candidate_discards + table.backbencher_discards).count(influence) + sum(
            influence in p.top_candidates + p.backbenchers for p in table.parties
        )
        if seen > PARTIES:
            raise _inconsistent(f"{seen} politicians of influence {influence} are shown; there are {PARTIES}")
    played = sorted(p for party in table.parties for p in party.played)
    if sorted(table.top_candidate_discards + table.backbencher_discards) != played:
        raise _inconsistent(f"the parties have played politicians {played}; the discard piles hold others")
    top_played = sum(TOP_CANDIDATE_COUNT - len(p.top_candidates) for p in table.parties)
    backbenchers_played = sum(BACKBENCHER_COUNT - p.backbencher_count for p in table.parties)
    if (len(table.top_candidate_discards), len(table.backbencher_discards)) != (top_played, backbenchers_played):
        raise _inconsistent(
            f"{top_played} top candidates and {backbenchers_played} backbenchers were played, but the discards hold "
            f"{len(table.top_candidate_discards)} and {len(table.backbencher_discards)}"
        )
    if options.with_angelus and not finished:
        # The card starts with the start party (never Angelus) and passes on each time she plays.
        angelus_plays = rounds_done + (1 if ANGELUS_PARTY in played_this_round else 0)
        holder = (start + angelus_plays) % options.players
        if table.angelus_holder != holder:
            raise _inconsistent(f"the Angelus card is with seat {table.angelus_holder}; the turn order puts it with seat {holder}")
    elif table.angelus_holder is not None:
        raise _inconsistent("only a 3-player game in play has a holder of the Angelus card")


# --- the table behind the view -------------------------------------------------------------------


def _skeleton(sent: SentView, viewer: Seat | None) -> StimmviehState:
    """The table the view shows, with the hidden cards and choices in some order of their own."""
    table, options = sent.table, sent.options
    cards = deck_of(options)
    shown: set[str] = set()

    def card_id(card: Card, kind: str | None, where: str) -> str:
        if cards.get(card.card_id) != card:
            raise _inconsistent(f"{where}: card {card.card_id[:8]!r} is not this game's card of that id")
        if kind is not None and (card.kind == VOTE) != (kind == VOTE):
            raise _inconsistent(f"{where}: card {card.card_id} is not a {kind} card")
        if card.card_id in shown:
            raise _inconsistent(f"card {card.card_id} is shown twice")
        shown.add(card.card_id)
        return card.card_id

    def stack(stack: StackView, kind: str, where: str, full: bool) -> tuple[tuple[str, ...], int]:
        """The ids shown in full, or the visible top with how many hidden cards lie below it."""
        if stack.count < 0:
            raise _inconsistent(f"{where}: {stack.count} cards")
        if full:
            if stack.cards is None or len(stack.cards) != stack.count:
                raise _inconsistent(f"{where}: {stack.count} cards that this seat sees in full, but not shown")
            return tuple(card_id(c, kind, where) for c in stack.cards), 0
        if (stack.top_card is None) != (stack.count == 0):
            raise _inconsistent(f"{where}: {stack.count} cards with {'no' if stack.top_card is None else 'a'} top card")
        if stack.top_card is None:
            return (), 0
        return (card_id(stack.top_card, kind, where),), stack.count - 1

    display = tuple(card_id(c, None, "the display") for c in table.display)
    vote_top, votes_hidden = stack(_stack_of(table, "vote"), VOTE, "the vote stack", False)
    donation_top, donations_hidden = stack(_stack_of(table, "donation"), "donation", "the donation stack", False)
    if (table.vote_stack_count or table.donation_stack_count) and len(display) != DISPLAY_SIZE:
        raise _inconsistent(f"the display holds {len(display)} cards while a stack can refill it")

    finished = table.phase == FINISHED
    collected: list[tuple[tuple[str, ...], int, tuple[str, ...], int]] = []
    for party in table.parties:
        full = party.party == viewer or finished
        where = f"party {party.party}'s"
        votes = stack(party.votes, VOTE, f"{where} votes", full)
        donations = stack(party.donations, "donation", f"{where} donations", full)
        collected.append(votes + donations)

    # What the seat does not see of the deck lies face down, below the visible tops.
    hidden_votes = sorted(i for i, c in cards.items() if c.kind == VOTE and i not in shown)
    hidden_donations = sorted(i for i, c in cards.items() if c.kind != VOTE and i not in shown)
    below_votes = [votes_hidden] + [c[1] for c in collected]
    below_donations = [donations_hidden] + [c[3] for c in collected]
    for kind, pool, below in (("vote", hidden_votes, below_votes), ("donation", hidden_donations, below_donations)):
        if sum(below) != len(pool):
            raise _inconsistent(f"{sum(below)} {kind} cards lie face down, but {len(pool)} of the deck are not shown")
    vote_stack = vote_top + _take(hidden_votes, votes_hidden)
    donation_stack = donation_top + _take(hidden_donations, donations_hidden)

    parties = []
    for party, (votes, below_v, donations, below_d) in zip(table.parties, collected):
        # Collected stacks list their top (the last card taken) last.
        parties.append(
            _party(table, options, party, viewer,
                   _take(hidden_votes, below_v) + votes, _take(hidden_donations, below_d) + donations)
        )
    return StimmviehState(
        options=options,
        campaign=table.campaign,
        phase=table.phase,
        round=table.round,
        parties=tuple(parties),
        display=display,
        vote_stack=vote_stack,
        donation_stack=donation_stack,
        start_party=table.start_party,
        current_party=table.current_party,
        angelus_holder=table.angelus_holder,
        top_candidate_discards=table.top_candidate_discards,
        backbencher_discards=table.backbencher_discards,
        campaign_results=table.campaign_results,
    )


def _stack_of(table: TableView, kind: str) -> StackView:
    """A draw stack as a StackView: its top and count."""
    if kind == "vote":
        return StackView(table.vote_stack_top, table.vote_stack_count)
    return StackView(table.donation_stack_top, table.donation_stack_count)


def _take(pool: list[str], count: int) -> tuple[str, ...]:
    taken = tuple(pool[:count])
    del pool[:count]
    return taken


def _party(
    table: TableView, options: StimmviehOptions, party: PartyView, viewer: Seat | None,
    votes: tuple[str, ...], donations: tuple[str, ...],
) -> PartyState:
    angelus = options.with_angelus and party.party == ANGELUS_PARTY
    points = party.campaign_points
    if table.phase == CHOOSING:
        if party.party == viewer:
            chosen = tuple(sorted(party.chosen_top_candidates))
        else:
            # Angelus' four lie face down from the deal; any other party's only once chosen.
            chosen = _PLACEHOLDER_CHOICE if angelus or party.top_candidates_chosen else ()
        return PartyState(chosen=chosen, votes=votes, donations=donations, campaign_points=points)
    if party.party == viewer or angelus or table.phase == FINISHED:
        backbenchers = party.backbenchers
    else:
        # In hand, yet known to all: the politicians neither face up on the table nor played.
        backbenchers = tuple(p for p in POLITICIANS if p not in party.top_candidates and p not in party.played)
    return PartyState(
        top_candidates=party.top_candidates, backbenchers=backbenchers, votes=votes, donations=donations,
        campaign_points=points,
    )


def _check_same(sent: SentView, table: StimmviehState, seat: Seat, viewer: Seat | None) -> None:
    """Refuse the view unless the rebuilt table shows ``viewer`` exactly that view, owes what the
    view says is owed and allows the seat the very moves the view lists."""
    rebuilt = view(table, viewer)
    if rebuilt != sent.table:
        differ = [f.name for f in fields(TableView) if getattr(rebuilt, f.name) != getattr(sent.table, f.name)]
        raise _inconsistent(f"no table under the rules shows this seat the view's {', '.join(differ)}")
    if table.phase == FINISHED:
        cards = deck_of(table.options)
        collected = [(tuple(cards[c] for c in p.votes), tuple(cards[c] for c in p.donations)) for p in table.parties]
        moderator = table.options.moderator_seat if table.options.moderator else None
        if election_night(table.campaign, collected, moderator) != table.campaign_results[-1]:
            raise _inconsistent("the last campaign's results are not those of the cards the parties collected")
    if sent.status == "ACTIVE":
        owed = tuple(sorted(rules.to_act(table)))
        moves = tuple(rules.legal_moves(table, seat))
    else:
        owed, moves = (), ()
    if sent.to_act != owed:
        raise _inconsistent(f"the view says seats {list(sent.to_act)} are to act; the table makes it {list(owed)}")
    if sent.legal_moves != moves:
        raise _inconsistent(f"the view lists {len(sent.legal_moves)} legal moves; the table allows {len(moves)} others")
