"""Wahlspiel's cheaper step gives out the same bytes as the plain one, over whole random games:
the stored state is ``json.dumps`` of the state's plain dict, to the byte, however much of its
text was kept from the state before; a view and the stored events are the messages written from
fresh objects; the shared roll and vote events and the moves from the tables are the ones made
anew."""

from __future__ import annotations

import json
import random
from dataclasses import asdict, fields, replace
from typing import Any

import pytest

from hustings.engine import Event, MalformedMoveError, Rng
from hustings.engine.wahlspiel import GAME, WahlspielOptions, WahlspielState, codec, serial, table, turns, views
from hustings.engine.wahlspiel.founding import party_colours, party_names
from hustings.engine.wahlspiel.model import Candidate, DieRolled, VotesChanged
from hustings.engine.wahlspiel.views import PartyView, TableView
from hustings.service import visibility
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2

MOVES_PER_GAME = 400  # a whole game is 100-250 steps; the bound only keeps a runaway game short


def _plain_json(state: WahlspielState) -> bytes:
    data = asdict(state)
    data["format"] = serial.FORMAT
    if data["revealed_ballot"] is None:
        del data["revealed_ballot"]  # written only while set
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _fresh_view(view: TableView) -> TableView:
    """The same view made of fresh objects (so that nothing kept by identity is found)."""
    parties = tuple(PartyView(**{f.name: getattr(p, f.name) for f in fields(PartyView)}) for p in view.parties)
    candidates = tuple(Candidate(**asdict(c)) for c in view.candidates)
    return TableView(**{**{f.name: getattr(view, f.name) for f in fields(TableView)}, "parties": parties, "candidates": candidates})


def _expected_parties(state: WahlspielState, seat: int | None) -> tuple[PartyView, ...]:
    names, colours = party_names(state), party_colours(state)
    return tuple(
        PartyView(
            i, names[i], colours[i], p.position, p.money, p.arrived, p.politicians, len(p.voters), len(p.events),
            p.trades, p.voters if i == seat else (), p.events if i == seat else (),
        )
        for i, p in enumerate(state.parties)
    )


def _fresh(event: Event) -> Event:
    """The same event made afresh, payloads and all (the rules share a roll's and a vote's)."""
    def copy(payload: Any) -> Any:
        return None if payload is None else type(payload)(**vars(payload))

    return Event(copy(event.payload), event.visible_to, copy(event.redacted), event.reveals)


def _view_bytes(view: TableView) -> bytes:
    out = game_pb2.GameView()
    codec.view_to_proto(view, out)
    return out.SerializeToString(deterministic=True)


def _stored_events(events: list[Event], version: int, seat: int) -> bytes:
    entry = storage_pb2.LogEntry(version=version, seat=seat)
    for event in events:
        visibility.fill_stored_event(entry.events.add(), GAME, event, version, seat)
    return entry.SerializeToString(deterministic=True)


def _check_state(state: WahlspielState, version: int) -> None:
    stored = GAME.dump_state(state)
    assert stored == _plain_json(state)
    if version % 4 == 0:
        assert GAME.dump_state(GAME.load_state(stored)) == stored  # a loaded state shares no kept text
    viewers = [*range(state.options.players), None]
    seat = viewers[version % len(viewers)]  # each seat and a spectator in turn
    view = GAME.view(state, seat)
    assert type(view) is TableView and view.__dict__.keys() == {f.name for f in fields(TableView)}
    assert view == _fresh_view(view)
    assert view.parties == _expected_parties(state, seat)
    assert _view_bytes(view) == _view_bytes(_fresh_view(view))


@pytest.mark.parametrize("label,options", GAME.sample_options())
def test_whole_random_games_give_the_plain_bytes(label: str, options: WahlspielOptions) -> None:
    pick = random.Random(label + str(options))
    rng = Rng(f"step-bytes-{options}".encode())
    state = GAME.setup(options, rng)
    version = 1
    for _ in range(MOVES_PER_GAME):
        _check_state(state, version)
        if GAME.is_over(state):
            break
        seat = pick.choice(sorted(GAME.to_act(state)))
        state, events = GAME.apply(state, seat, pick.choice(GAME.legal_moves(state, seat)), rng)
        version += 1
        assert _stored_events(events, version, seat) == _stored_events([_fresh(e) for e in events], version, seat)
    assert GAME.is_over(state), "the game should have ended within the bound"


def test_shared_roll_and_vote_events_are_the_ones_made_afresh() -> None:
    rng = Rng(b"shared-events")
    state = GAME.setup(WahlspielOptions(4), rng)
    pick = random.Random(4)
    while not GAME.is_over(state):
        seat = pick.choice(sorted(GAME.to_act(state)))
        state, _ = GAME.apply(state, seat, pick.choice(GAME.legal_moves(state, seat)), rng)
    assert turns._LANDINGS and table._VOTES_CHANGED
    for key, (position, event) in turns._LANDINGS.items():
        assert (position, event) == turns._landing(*key)
        assert type(event.payload) is DieRolled and event.public
    for key, event in table._VOTES_CHANGED.items():
        assert event == Event(VotesChanged(*key))


def test_a_changed_part_is_written_again_and_an_unchanged_one_found() -> None:
    state = GAME.setup(WahlspielOptions(3), Rng(b"kept-parts"))
    before = GAME.dump_state(state)
    parties = list(state.parties)
    parties[1] = replace(parties[1], money=parties[1].money + 1000, name='Die "Neuen"\\', arrived=True)
    changed = replace(state, parties=tuple(parties), last_roll=300, federal="P\u00e9\n")
    assert GAME.dump_state(changed) == _plain_json(changed)
    assert GAME.dump_state(state) == before == _plain_json(state)
    assert views.view(changed, 1).parties[0] is views.view(state, 1).parties[0]  # the unchanged party's view shared


def test_decoded_moves_from_the_tables_are_the_plainly_decoded_ones() -> None:
    for kind, (key, known) in codec._KNOWN.items():
        for move in known.values():
            message = game_pb2.Move()
            codec.move_to_proto(move, message)
            parsed = game_pb2.Move.FromString(message.SerializeToString())
            inner = getattr(parsed.wahlspiel, kind)
            plain = codec._DECODE[kind](inner)
            assert codec.move_from_proto(parsed) is move and plain == move and plain is not move
    bad = game_pb2.Move()
    bad.wahlspiel.cast_voter.card_id = "V001;"
    with pytest.raises(MalformedMoveError) as refused:
        codec.move_from_proto(bad)
    assert refused.value.reason == "BAD_ID"
