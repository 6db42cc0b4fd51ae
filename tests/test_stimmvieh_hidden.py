"""Direct checks of Stimmvieh's hidden information: what a seat's view (and its protobuf form)
shows of another seat, of Angelus, and of the decks; and what events and errors reveal."""

from __future__ import annotations

from typing import Any

from hustings.engine import EngineError, Rng
from hustings.engine.stimmvieh import GAME, ChooseTopCandidates, PlayPolitician, StimmviehOptions
from hustings.engine.stimmvieh.model import CHOOSING, FINISHED, StimmviehState, TopCandidatesChosen
from hustings.v1 import game_pb2

OPTION_SETS = [StimmviehOptions(3, campaigns=2), StimmviehOptions(4, moderator=True, moderator_seat=1)]


def games(count: int = 4) -> list[tuple[list[StimmviehState], list[list[Any]]]]:
    played = []
    for n in range(count):
        options = OPTION_SETS[n % len(OPTION_SETS)]
        rng, chooser = Rng(b"hidden%d" % n), Rng(b"hc%d" % n)
        state = GAME.setup(options, rng)
        states, events = [state], []
        while not GAME.is_over(state):
            seat = chooser.choice(sorted(GAME.to_act(state)))
            state, step_events = GAME.apply(state, seat, chooser.choice(GAME.legal_moves(state, seat)), rng)
            states.append(state)
            events.append(step_events)
        played.append((states, events))
    return played


PLAYED = games()


def proto_view(state: StimmviehState, seat: int | None) -> Any:
    out = game_pb2.GameView()
    GAME.view_to_proto(GAME.view(state, seat), out)
    return out.stimmvieh


def card_ids(message: Any) -> set[str]:
    """Every card id anywhere in a message."""
    found: set[str] = set()
    for field, value in message.ListFields():
        if field.name == "card_id":
            found.add(value)
        elif field.message_type is not None:
            for item in value if field.is_repeated else [value]:
                found |= card_ids(item)
    return found


def test_views_of_others_hide_their_secrets() -> None:
    for states, _ in PLAYED:
        for state in states:
            players = state.options.players
            for viewer in [*range(players), None]:
                view = proto_view(state, viewer)
                for party in view.parties:
                    own = party.HasField("seat") and party.seat == viewer
                    if own:
                        continue
                    if not party.angelus or state.phase == CHOOSING:
                        assert list(party.backbenchers) == []
                    assert list(party.chosen_top_candidates) == []
                    if state.phase == CHOOSING:
                        assert list(party.top_candidates) == []
                    for stack in (party.votes, party.donations):
                        if state.phase != FINISHED:
                            assert list(stack.cards) == [] and not stack.HasField("total")
                        assert stack.count == len(stack.cards) or state.phase != FINISHED


def test_views_show_the_owner_its_own_secrets() -> None:
    for states, _ in PLAYED:
        for state in states:
            for seat in range(state.options.players):
                party = proto_view(state, seat).parties[seat]
                mine = state.parties[seat]
                assert party.votes.count == len(mine.votes) and len(party.votes.cards) == len(mine.votes)
                assert party.donations.HasField("total")
                if state.phase == CHOOSING:
                    assert tuple(party.chosen_top_candidates) == mine.chosen
                    assert party.backbencher_count == 9 - len(mine.chosen)
                else:
                    assert tuple(party.backbenchers) == mine.backbenchers


def test_deck_order_below_the_visible_tops_never_shows() -> None:
    for states, _ in PLAYED:
        for state in states:
            public = set(state.display) | set(state.vote_stack[:1]) | set(state.donation_stack[:1])
            public |= {p.votes[-1] for p in state.parties if p.votes}
            public |= {p.donations[-1] for p in state.parties if p.donations}
            for viewer in [*range(state.options.players), None]:
                allowed = set(public)
                if state.phase == FINISHED:
                    allowed |= {c for p in state.parties for c in p.votes + p.donations}
                elif viewer is not None:
                    allowed |= set(state.parties[viewer].votes + state.parties[viewer].donations)
                shown = card_ids(proto_view(state, viewer))
                assert shown <= allowed
                assert not shown & (set(state.vote_stack[1:]) | set(state.donation_stack[1:]))


def test_angelus_is_nobody_s_secret_holder() -> None:
    for states, _ in PLAYED:
        for state in states:
            if state.options.players != 3 or state.phase == FINISHED:
                continue
            for viewer in (0, 1, 2, None):
                angelus = proto_view(state, viewer).parties[3]
                assert angelus.angelus and not angelus.HasField("seat")
                assert list(angelus.votes.cards) == [] and not angelus.votes.HasField("total")
                if state.phase != CHOOSING:
                    assert tuple(angelus.backbenchers) == state.parties[3].backbenchers


def test_the_spectator_sees_no_more_than_any_seat() -> None:
    for states, _ in PLAYED:
        for state in states[::5]:
            spectator = proto_view(state, None)
            for party in spectator.parties:
                if not party.angelus:
                    assert list(party.backbenchers) == [] and list(party.chosen_top_candidates) == []


def test_chosen_events_hide_the_choice_from_others() -> None:
    for states, steps in PLAYED:
        for events in steps:
            for event in events:
                if isinstance(event.payload, TopCandidatesChosen):
                    chooser = event.payload.party
                    assert event.visible_to == frozenset({chooser})
                    for viewer in [0, 1, 2, None]:
                        if viewer != chooser:
                            assert event.for_seat(viewer).influences == ()
                            message = game_pb2.Event()
                            GAME.event_to_proto(event.for_seat(viewer), message)
                            assert list(message.stimmvieh.top_candidates_chosen.influences) == []
                else:
                    assert event.public


def test_error_messages_name_no_secret_of_others() -> None:
    rng = Rng(b"errors")
    state = GAME.setup(StimmviehOptions(4), rng)
    state, _ = GAME.apply(state, 1, ChooseTopCandidates((6, 7, 8, 9)), rng)
    for seat, move in ((0, PlayPolitician(9, "")), (1, ChooseTopCandidates((1, 2, 3, 4)))):
        try:
            GAME.apply(state, seat, move, rng)
        except EngineError as error:
            if seat != 1:
                assert not any(str(v) in error.message for v in (6, 7, 8, 9))
        else:
            raise AssertionError("move accepted")
