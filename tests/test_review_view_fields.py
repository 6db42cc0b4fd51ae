"""The views' facts for rebuilding a table (Stimmvieh's played politicians; Wahlspiel's verdict
judges, card kinds of offers and hand-overs, run-off senders and closing party; the Spin Doctors'
hand-overs, Poll changes, who saw the Red News, queued steps and board indexes) show nobody what
the rulebooks keep from them, along random games of every kind.

Three kinds of checks:
- a public fact is the same for every viewer (a spectator sees what every seat sees of it) and,
  where the table's events tell it, is what those events told (Stimmvieh's played politicians);
- twins: two states differing only in what a viewer may not know (cards offered or handed over
  in a coalition, of the same kinds; a run-off voter sent face down; a judge's verdicts; cards
  held during Media Influence; the order of Red News only its arranger saw; a Staff changed after
  the Poll) give that viewer the same view, byte for byte;
- a step about a Staffer on the board names it only to viewers who may see it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Iterator

from hustings.engine import Rng, get_game
from hustings.engine.spin_doctors import model as sd
from hustings.engine.spin_doctors.content import CONTENT
from hustings.engine.stimmvieh import model as st
from hustings.engine.wahlspiel import model as ws
from hustings.engine.wahlspiel.table import VOTERS
from hustings.v1 import game_pb2

STEP_LIMIT = 6000
GAMES_PER_SET = 3


def _view(game: Any, state: Any, viewer: int | None) -> game_pb2.GameView:
    out = game_pb2.GameView()
    game.view_to_proto(game.view(state, viewer), out)
    return out


def _bytes(game: Any, state: Any, viewer: int | None) -> bytes:
    return _view(game, state, viewer).SerializeToString(deterministic=True)


def _viewers(state_players: int) -> list[int | None]:
    return [None, *range(state_players)]


def _playout(game: Any, options: Any, seed: bytes) -> Iterator[tuple[Any, list[Any], Any]]:
    """(state before, events of the step, state after) along one random game to its end."""
    rng, chooser = Rng(seed), Rng(b"chooser:" + seed)
    state = game.setup(options, rng)
    for _ in range(STEP_LIMIT):
        if game.is_over(state):
            return
        seat = chooser.choice(sorted(game.to_act(state)))
        move = chooser.choice(game.legal_moves(state, seat))
        after, events = game.apply(state, seat, move, rng)
        yield state, events, after
        state = after
    raise AssertionError("a random game did not end")


def _check_twin(game: Any, state: Any, twin: Any, blind: list[int | None], what: str) -> bool:
    """``blind`` viewers see ``twin`` as they see ``state``; True when the twin differs at all."""
    if game.dump_state(twin) == game.dump_state(state):
        return False
    for viewer in blind:
        who = "a spectator" if viewer is None else f"seat {viewer}"
        assert _bytes(game, state, viewer) == _bytes(game, twin, viewer), f"{who} tells apart {what}"
    return True


# --- Stimmvieh ---------------------------------------------------------------------------------


def test_stimmvieh_played_politicians_are_those_the_table_saw_played() -> None:
    """A party's ``played`` is, for every viewer, exactly the politicians of that party whose
    playing the public events showed this campaign (face up on a discard pile), and nothing
    while the top candidates are being chosen in secret."""
    game = get_game("stimmvieh")
    checked = 0
    for players, campaigns in ((3, 2), (4, 1)):
        options = st.StimmviehOptions(players, campaigns=campaigns)
        seen: dict[tuple[int, int], list[int]] = {}
        for before, events, after in _playout(game, options, f"played:{players}".encode()):
            for event in events:
                payload = event.for_seat(None)
                if isinstance(payload, st.PoliticianPlayed):
                    seen.setdefault((before.campaign, payload.party), []).append(payload.influence)
            if game.is_over(after):
                break
            views = [_view(game, after, viewer).stimmvieh for viewer in _viewers(players)]
            for party in range(len(after.parties)):
                expected = () if after.phase == st.CHOOSING else tuple(sorted(seen.get((after.campaign, party), [])))
                for viewer, shown in zip(_viewers(players), views):
                    assert tuple(shown.parties[party].played) == expected, (
                        f"party {party}'s played politicians as {viewer} sees them are not those the table saw played"
                    )
                checked += bool(expected)
    assert checked > 100


# --- Wahlspiel ---------------------------------------------------------------------------------


def _swap_from_stack(state: ws.WahlspielState, owner: int, cards: tuple[str, ...], rng: Rng) -> tuple[ws.WahlspielState, dict[str, str]]:
    """``state`` with each of ``cards`` (in ``owner``'s hand) exchanged for a card of the same
    kind from its stack (hand kept sorted, the stack card's place taken): which card it is is
    what the twin changes, its kind stays."""
    party = state.parties[owner]
    voters, events = list(party.voters), list(party.events)
    voter_stack, event_stack = list(state.voter_stack), list(state.event_stack)
    swapped: dict[str, str] = {}
    for card in cards:
        hand, stack = (voters, voter_stack) if card in VOTERS else (events, event_stack)
        if card not in hand or not stack:
            continue
        place = rng.below(len(stack))
        other = stack[place]
        stack[place] = card
        hand[hand.index(card)] = other
        swapped[card] = other
    parties = list(state.parties)
    parties[owner] = replace(party, voters=tuple(sorted(voters)), events=tuple(sorted(events)))
    twin = replace(state, parties=tuple(parties), voter_stack=tuple(voter_stack), event_stack=tuple(event_stack))
    return twin, swapped


def _coalition_twin(state: ws.WahlspielState, rng: Rng) -> ws.WahlspielState | None:
    """The cards offered (drafted or put) and handed over exchanged for others of their kinds."""
    c = state.coalition
    if c is None or c.partner < 0:
        return None
    proposer = state.current if c.proposer < 0 else c.proposer
    answerer = c.partner if proposer == state.current else state.current
    offered = c.draft.give_cards + (c.pending.give_cards if c.pending else ())
    if not offered and not c.handed:
        return None
    twin, given = _swap_from_stack(state, proposer, offered, rng)
    twin, taken = _swap_from_stack(twin, answerer, c.handed, rng)
    moved = {**given, **taken}

    def renamed(cards: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(moved.get(card, card) for card in cards)

    coalition = replace(
        c,
        draft=replace(c.draft, give_cards=renamed(c.draft.give_cards)),
        pending=replace(c.pending, give_cards=renamed(c.pending.give_cards)) if c.pending else None,
        handed=renamed(c.handed),
    )
    return replace(twin, coalition=coalition)


def _runoff_twin(state: ws.WahlspielState, rng: Rng) -> tuple[ws.WahlspielState, set[int]] | None:
    """The voters sent face down to a run-off exchanged for other voters (each sender's own)."""
    r = state.runoff
    if r is None or not any(s.card for s in r.sent) or not state.voter_stack:
        return None
    stack = list(state.voter_stack)
    sent = []
    senders = set()
    for entry in r.sent:
        if entry.card:
            place = rng.below(len(stack))
            stack[place], card = entry.card, stack[place]
            sent.append(replace(entry, card=card))
            senders.add(entry.party)
        else:
            sent.append(entry)
    return replace(state, voter_stack=tuple(stack), runoff=replace(r, sent=tuple(sent))), senders


def _ballot_twin(state: ws.WahlspielState, judge: int) -> ws.WahlspielState | None:
    """``judge``'s verdicts given so far in an open ballot, each the other way."""
    b = state.ballot
    if b is None or not any(v.judge == judge for v in b.verdicts):
        return None
    verdicts = tuple(replace(v, verdict=not v.verdict) if v.judge == judge else v for v in b.verdicts)
    return replace(state, ballot=replace(b, verdicts=verdicts))


def test_wahlspiel_new_fields_are_public_and_hide_the_cards() -> None:
    """Along random games: verdict judges, the kinds offered and handed over, the run-off's
    senders and closing party are the same for every viewer; a viewer outside the coalition
    cannot tell which cards of those kinds are offered or handed over, nobody but the sender
    which voter it sent to a run-off, nobody but the judge which verdicts it gave."""
    game = get_game("wahlspiel")
    twins = {"coalition": 0, "runoff": 0, "ballot": 0}
    kinds_seen = 0
    for players in (2, 3, 4, 5, 6):
        options = ws.WahlspielOptions(players)
        rng = Rng(f"twins:{players}".encode())
        for number in range(GAMES_PER_SET):
            for _, _, state in _playout(game, options, f"wahlspiel-fields:{players}:{number}".encode()):
                if game.is_over(state):
                    break
                viewers = _viewers(players)
                views = {viewer: _view(game, state, viewer).wahlspiel for viewer in viewers}
                public = {
                    viewer: (
                        list(v.ballot.verdict_judges) if v.HasField("ballot") else [],
                        list(v.coalition.draft.give_kinds) if v.HasField("coalition") else [],
                        list(v.coalition.pending.give_kinds) if v.HasField("coalition") and v.coalition.HasField("pending") else [],
                        list(v.coalition.handed_kinds) if v.HasField("coalition") else [],
                        (list(v.runoff.voter_sent_parties), v.runoff.closing_party) if v.HasField("runoff") else None,
                    )
                    for viewer, v in views.items()
                }
                assert len({repr(p) for p in public.values()}) == 1, f"a new public fact differs between viewers: {public}"
                kinds_seen += any(public[None][1:4])
                coalition = _coalition_twin(state, rng)
                if coalition is not None:
                    sides = {state.current, state.coalition.partner}
                    twins["coalition"] += _check_twin(
                        game, state, coalition, [v for v in viewers if v not in sides], "which cards a coalition offers or hands over"
                    )
                runoff = _runoff_twin(state, rng)
                if runoff is not None:
                    twin, senders = runoff
                    twins["runoff"] += _check_twin(
                        game, state, twin, [v for v in viewers if v not in senders], "which voter a run-off party sent"
                    )
                if state.ballot is not None:
                    for judge in state.ballot.judges:
                        twin = _ballot_twin(state, judge)
                        if twin is not None:
                            twins["ballot"] += _check_twin(
                                game, state, twin, [v for v in viewers if v != judge], f"seat {judge}'s verdicts"
                            )
    assert kinds_seen and all(twins.values()), f"situations not reached: {twins}, kinds {kinds_seen}"


# --- The Spin Doctors --------------------------------------------------------------------------


def _arrange_twin(state: sd.State, rng: Rng) -> tuple[sd.State, set[int]] | None:
    """The cards held for Media Influence exchanged for News cards of the deck."""
    holders = {t.seat for t in state.tasks if t.kind == "arrange" and t.cards}
    if not holders or not state.news_deck:
        return None
    twin = state.clone()
    deck = list(twin.news_deck)
    tasks = []
    for task in twin.tasks:
        if task.kind == "arrange" and task.cards:
            cards = list(task.cards)
            for i in range(len(cards)):
                place = rng.below(len(deck))
                deck[place], cards[i] = cards[i], deck[place]
            task = replace(task, cards=cards)
        tasks.append(task)
    twin.tasks, twin.news_deck = tasks, deck
    return twin, holders


def _red_order_twin(state: sd.State) -> tuple[sd.State, int] | None:
    """The face-down Red News that one seat arranged, in another order among their fields."""
    reds = CONTENT.red_news_fields
    by_seat: dict[int, list[int]] = {}
    for i in range(reds):
        if state.news[i] and len(state.news_known[i]) == 1:
            by_seat.setdefault(state.news_known[i][0], []).append(i)
    for seat, slots in sorted(by_seat.items()):
        if len({state.news[i] for i in slots}) > 1:
            twin = state.clone()
            cards = [twin.news[i] for i in slots]
            rotated = cards[1:] + cards[:1]
            for i, card in zip(slots, rotated):
                twin.news[i] = card
            return twin, seat
    return None


def _staff_twin(state: sd.State, rng: Rng) -> tuple[sd.State, int] | None:
    """A seat that has made its Staffer change after the Poll, with another Staff in hand."""
    if state.phase != sd.POLL_CHANGES:
        return None
    for seat, player in enumerate(state.seats):
        if player.poll_step >= 1:
            outside = [s for s in sd.STAFFERS if s not in player.staff]
            inside = [s for s in player.staff if s != sd.CANDIDATE and s not in player.shown]
            if not outside or not inside:
                continue
            twin = state.clone()
            drop, take = inside[rng.below(len(inside))], outside[rng.below(len(outside))]
            twin.seats[seat].staff = sorted([s for s in twin.seats[seat].staff if s != drop] + [take])
            return twin, seat
    return None


def _staffer_named_only_to_those_who_see_it(state: sd.State, view: game_pb2.GameView, viewer: int | None) -> int:
    """Every step (pending or queued) about a Staffer face down for ``viewer`` names no Staffer."""
    v = view.spin_doctors
    steps = ([v.pending] if v.HasField("pending") else []) + list(v.queued)
    named = 0
    for step in steps:
        if step.board_index >= 0:
            played = state.board[step.board_index]
            if not played.face_up and played.seat != viewer:
                assert step.staffer == -1, f"a step names seat {played.seat}'s face-down Staffer to {viewer}"
            named += 1
    return named


def test_spin_doctors_new_fields_are_public_and_hide_the_cards() -> None:
    """Along random games: hand-overs, Poll changes, who saw the Red News, the queued steps (but
    their cards) and board indexes are the same for every viewer; nobody but the arranger tells
    the cards held for Media Influence or the order it laid the Red News in, nobody else a Staff
    changed after the Poll."""
    game = get_game("spin_doctors")
    twins = {"arrange": 0, "red order": 0, "staff": 0}
    steps_named = 0
    sets = (sd.SpinDoctorsOptions(3), sd.SpinDoctorsOptions(4, scandals_set_aside=True), sd.SpinDoctorsOptions(5))
    for number, options in ((n, o) for n in range(GAMES_PER_SET) for o in sets):
        players = options.players
        rng = Rng(f"twins:{players}:{number}".encode())
        for _, _, state in _playout(game, options, f"spin-fields:{players}:{options.scandals_set_aside}:{number}".encode()):
            if game.is_over(state):
                break
            viewers = _viewers(players)
            views = {viewer: _view(game, state, viewer) for viewer in viewers}
            public = {}
            for viewer, view in views.items():
                v = view.spin_doctors
                queued = []
                for step in v.queued:
                    mine = type(step)()
                    mine.CopyFrom(step)
                    mine.ClearField("cards")
                    queued.append(mine)
                public[viewer] = (
                    [(p.handed_over, p.poll_changes_made, p.side_moves_left) for p in v.players],
                    list(v.news_seen_by),
                    [q.SerializeToString(deterministic=True) for q in queued],
                    v.pending.board_index if v.HasField("pending") else None,
                )
                steps_named += _staffer_named_only_to_those_who_see_it(state, view, viewer)
            assert len({repr(p) for p in public.values()}) == 1, "a new public fact differs between viewers"
            arrange = _arrange_twin(state, rng)
            if arrange is not None:
                twin, holders = arrange
                twins["arrange"] += _check_twin(game, state, twin, [v for v in viewers if v not in holders], "the cards held for Media Influence")
            red = _red_order_twin(state)
            if red is not None:
                twin, seat = red
                twins["red order"] += _check_twin(game, state, twin, [v for v in viewers if v != seat], "the order of the Red News")
            staff = _staff_twin(state, rng)
            if staff is not None:
                twin, seat = staff
                twins["staff"] += _check_twin(game, state, twin, [v for v in viewers if v != seat], "a Staff changed after the Poll")
    assert steps_named and all(twins.values()), f"situations not reached: {twins}, steps about a Staffer {steps_named}"
