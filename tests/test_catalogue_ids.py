"""Every id that a view, an event or a legal move carries resolves in the kind's catalogue, in one
spelling, over 100 random games per kind (engine-level play, every option set in turn).

Each kind has a table naming, for every string field of its messages, which catalogue list the
field refers to (or that it is no id at all): a new string field fails until it is classified.
Integer references (parties, Staffers, Localities, Voter Groups, politicians' influence) are
checked the same way where the table names them. Cards shown inside views must carry the
catalogue's own values for their id.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from hustings.engine import Rng, games
from hustings.engine.registry import get_catalogue
from hustings.v1 import game_pb2, game_service_pb2

GAMES_PER_KIND = 100
STEP_LIMIT = 5000
# Views and whole lists of legal moves are the costliest messages: every few steps (for the seat
# that moves and a spectator), and every view at the end of the game; the move made and the
# events of every step are always checked.
VIEW_EVERY = 7
NOT_AN_ID = None


def catalogue(kind: str) -> Any:
    answer = game_service_pb2.GetGameKindResponse()
    found = get_catalogue(kind)
    assert found is not None
    found.fill(answer)
    return getattr(answer, kind)


Table = dict[str, "set[Any] | None"]


def stimmvieh_table() -> tuple[Table, Callable[[str, Message], None]]:
    cat = catalogue("stimmvieh")
    cards = {c.card_id: c for c in [*cat.vote_cards, *cat.donation_cards]}
    card_ids = set(cards) | {cat.custom_vote_card_id}
    influences = set(cat.politician_influences)
    parties = {p.party for p in cat.parties}
    table: Table = {
        "card_id": card_ids, "take_card_id": card_ids | {""}, "replaces_card_id": card_ids - {cat.custom_vote_card_id},
        "label": NOT_AN_ID, "name": NOT_AN_ID, "reason": NOT_AN_ID, "slogan": NOT_AN_ID,
        "StimmviehTieFlip.influence": influences, "StimmviehPoliticianPlayed.influence": influences,
        "influences": influences, "top_candidates": influences, "backbenchers": influences,
        "chosen_top_candidates": influences, "top_candidate_discards": influences, "backbencher_discards": influences,
        "party": parties, "current_party": parties, "start_party": parties,
    }

    def card_values(name: str, message: Message) -> None:
        if name == "StimmviehCard" and message.card_id in cards:  # type: ignore[attr-defined]
            entry = cards[message.card_id]  # type: ignore[attr-defined]
            assert (message.amount, message.influence, message.label) == (entry.amount, entry.influence, entry.label)  # type: ignore[attr-defined]

    return table, card_values


def wahlspiel_table() -> tuple[Table, Callable[[str, Message], None]]:
    cat = catalogue("wahlspiel")
    politicians = {p.politician.politician_id: p.politician for p in cat.politicians}
    voters = {v.card_id: v for v in cat.voters}
    events = {e.card_id: e for e in cat.events}
    pids, card_ids = set(politicians) | {""}, set(voters) | set(events) | {""}
    parties = {p.party for p in cat.parties}
    table: Table = {
        **{f: pids for f in ("politician_id", "politician_ids", "nominate_politician_id", "nominated_politician_id",
                             "withdraw_politician_id", "withdrawn_politician_id", "elected_politician_ids",
                             "retired_politician_ids", "cantonal_councillor_ids", "national_councillor_ids", "federal_councillor_id")},
        **{f: card_ids for f in ("card_id", "give_card_id", "ballot_box_card_ids", "event_discard_card_ids")},
        "symbols": {s.id for s in cat.symbols}, "traits": {t.id for t in cat.traits},
        "occupation": {o.id for o in cat.occupations}, "sex": {"f", "m"}, "colour": {p.colour for p in cat.parties},
        "opinion": {v.opinion for v in cat.voters},
        "name": NOT_AN_ID, "reason": NOT_AN_ID, "text": NOT_AN_ID,
        "party": parties, "current_party": parties, "start_party": parties, "partner": parties, "target_party": parties,
        "proposer": parties,
        "WahlspielParty.position": set(range(len(cat.board))),
    }

    def card_values(name: str, message: Message) -> None:
        if name == "WahlspielPolitician":
            assert message == politicians[message.politician_id]  # type: ignore[attr-defined]
        elif name == "WahlspielCard" and message.card_id:  # type: ignore[attr-defined]
            card_id = message.card_id  # type: ignore[attr-defined]
            entry = voters.get(card_id) or events[card_id]
            assert message.text == entry.text  # type: ignore[attr-defined]
            if card_id in voters:
                assert list(message.symbols) == list(voters[card_id].condition.symbols)  # type: ignore[attr-defined]
                assert message.opinion == voters[card_id].opinion  # type: ignore[attr-defined]

    return table, card_values


def spin_doctors_table() -> tuple[Table, Callable[[str, Message], None]]:
    cat = catalogue("spin_doctors")
    news = {c.card_id for c in cat.news_cards}
    programmes = {c.card_id for c in cat.programme_cards}
    topics = {c.card_id for c in cat.topic_cards}
    turnouts = {c.card_id for c in cat.turnout_cards}
    staffers = {s.staffer for s in cat.staffers}
    localities = {loc.locality for loc in cat.localities}
    groups = {g.voter_group for g in cat.voter_groups}
    actions = {a.action: a for a in cat.actions}
    fields = {f.field for f in cat.fields}
    table: Table = {
        "news": news | {""}, "news_discard": news, "scandals_aside": news, "SpinDoctorsBroadcast.card": news,
        "SpinDoctorsArrangeNews.cards": news, "SpinDoctorsAct.card": news | {""},
        "programme_face_up": programmes, "programme_face_down": programmes, "SpinDoctorsChooseProgramme.card": programmes,
        "SpinDoctorsRevealProgramme.card": programmes, "SpinDoctorsExchangeProgramme.take": programmes,
        "topic_card": topics, "topic_discard": topics, "turnout_card": turnouts,
        "SpinDoctorsEvent.cards": news | programmes | topics | turnouts, "SpinDoctorsPending.cards": news | programmes,
        "action": set(actions) | {""}, "colour": {c.id for c in cat.colours}, "kind": NOT_AN_ID,
        "staffer": staffers | {-1}, "shown_staffers": staffers, "SpinDoctorsPlayer.staff": staffers,
        "SpinDoctorsSwapStaffer.discard": staffers | {-1}, "SpinDoctorsSwapStaffer.take": staffers | {-1},
        "SpinDoctorsChooseStaff.staffers": staffers,
        "locality": localities | {-1}, "voter_group": groups | {-1}, "field": fields | {-1},
        "target_staffer": staffers | {-1},
    }
    second = {"TWO_LOCALITIES": localities, "TWO_VOTER_GROUPS": groups}

    def card_values(name: str, message: Message) -> None:
        if name == "SpinDoctorsAct" or (name == "SpinDoctorsEvent" and message.action):  # type: ignore[attr-defined]
            action = actions[message.action]  # type: ignore[attr-defined]
            target = cat.DESCRIPTOR.file.pool.FindEnumTypeByName("hustings.v1.SpinDoctorsActionTarget").values_by_number[action.target].name
            kind = target.removeprefix("SPIN_DOCTORS_ACTION_TARGET_")
            if kind in second:
                assert message.second in second[kind], (message, kind)  # type: ignore[attr-defined]

    return table, card_values


TABLES = {"stimmvieh": stimmvieh_table, "wahlspiel": wahlspiel_table, "spin_doctors": spin_doctors_table}


class Checker:
    """Checks every message of one kind against its table; counts the references it checked.

    A sub-message already checked (same type, same bytes) is not walked again: views repeat
    most of their parts from step to step."""

    def __init__(self, kind: str) -> None:
        self.table, self.card_values = TABLES[kind]()
        self.checked = 0
        self._seen: set[tuple[str, bytes]] = set()

    def check(self, message: Message, where: str) -> None:
        name = message.DESCRIPTOR.name
        key = (name, message.SerializeToString(deterministic=True))
        if key in self._seen:
            return
        self.card_values(name, message)
        for field, value in message.ListFields():
            items = value if field.is_repeated else [value]
            if field.type == FieldDescriptor.TYPE_MESSAGE:
                for item in items:
                    self.check(item, where)
                continue
            if field.type not in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_INT64):
                continue
            allowed = self.table.get(f"{name}.{field.name}", self.table.get(field.name, "unlisted"))
            if allowed == "unlisted":
                assert field.type != FieldDescriptor.TYPE_STRING, f"{where}: string field {name}.{field.name} is not classified in the table"
                continue
            if allowed is NOT_AN_ID:
                continue
            for item in items:
                assert item in allowed, f"{where}: {name}.{field.name} = {item!r} is not in the catalogue"  # type: ignore[operator]
                self.checked += 1
        self._seen.add(key)


def _view(game: Any, state: Any, seat: int | None) -> game_pb2.GameView:
    out = game_pb2.GameView()
    game.view_to_proto(game.view(state, seat), out)
    return out


def _play(kind: str, options: Any, seed: bytes, checker: Checker) -> None:
    game = games()[kind]
    rng, chooser = Rng(seed), Rng(b"choose:" + seed)
    state = game.setup(options, rng)
    seats = range(game.seat_count(options))
    for step in range(STEP_LIMIT):
        if game.is_over(state):
            break
        seat = chooser.choice(sorted(game.to_act(state)))
        legal = game.legal_moves(state, seat)
        move = chooser.choice(legal)
        for listed in legal if step % VIEW_EVERY == 0 else [move]:
            out = game_pb2.Move()
            game.move_to_proto(listed, out)
            checker.check(out, f"a legal move of seat {seat}")
        if step % VIEW_EVERY == 0:
            for viewer in (seat, None):
                checker.check(_view(game, state, viewer), f"the view of {viewer}")
        state, events = game.apply(state, seat, move, rng)
        for event in events:
            for payload in (event.payload, event.redacted):
                if payload is not None:
                    out = game_pb2.Event()
                    game.event_to_proto(payload, out)
                    checker.check(out, "an event")
    else:
        pytest.fail("the game did not end")
    for viewer in [*seats, None]:
        checker.check(_view(game, state, viewer), f"the final view of {viewer}")


@pytest.mark.parametrize("kind", sorted(TABLES))
def test_every_id_resolves_in_the_catalogue(kind: str) -> None:
    assert set(TABLES) == set(games()), "every kind needs its table"
    game = games()[kind]
    samples = [options for _, options in game.sample_options()]
    checker = Checker(kind)
    for number in range(GAMES_PER_KIND):
        _play(kind, samples[number % len(samples)], f"ids:{kind}:{number}".encode(), checker)
    assert checker.checked > GAMES_PER_KIND * 10  # the tables named fields that really occur


def test_the_checker_catches_an_unknown_id() -> None:
    checker = Checker("wahlspiel")
    move = game_pb2.Move()
    move.wahlspiel.nominate.politician_id = "p19"
    with pytest.raises(AssertionError, match="not in the catalogue"):
        checker.check(move, "a made-up move")
