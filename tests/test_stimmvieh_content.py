"""The Stimmvieh deck (validated data), the protobuf codec and the stored state."""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any

import pytest

from hustings.engine import InvalidOptionsError, MalformedMoveError, Rng, get_game
from hustings.engine.stimmvieh import GAME, ChooseTopCandidates, PlayPolitician, StimmviehOptions
from hustings.engine.stimmvieh.content import CONTENT, DONATION, ContentError, parse_content
from hustings.engine.stimmvieh.model import (
    AngelusCardPassed,
    CampaignRecord,
    CampaignResult,
    CampaignStarted,
    DisplayRefilled,
    ElectionNight,
    PoliticianPlayed,
    RevealedTopCandidates,
    StartPlayerChosen,
    TieFlip,
    TopCandidatesChosen,
    TopCandidatesRevealed,
    deck,
)
from hustings.v1 import game_pb2, stimmvieh_pb2

RAW = json.loads(resources.files("hustings.engine.stimmvieh").joinpath("content.json").read_text(encoding="utf-8"))


# --- content --------------------------------------------------------------------------------------


def test_registered_under_its_kind() -> None:
    assert get_game("stimmvieh") is GAME
    info = GAME.info
    assert (info.kind, info.title, info.min_players, info.max_players) == ("stimmvieh", "Stimmvieh", 3, 4)
    assert [v.name for v in info.variants] == ["moderator", "campaigns", "custom_vote_card"]
    names = set(stimmvieh_pb2.StimmviehOptions.DESCRIPTOR.fields_by_name)
    assert {v.name for v in info.variants} <= names


def test_deck_matches_the_printed_facts() -> None:
    votes, donations = CONTENT.vote_cards, CONTENT.donation_cards
    assert len(votes) == 17 and len(donations) == 24
    assert sorted(c.influence for c in votes if c.amount == 25) == [6, 7]
    assert len({c.amount for c in donations}) == 24
    dazebook = [c for c in donations if c.label == "Dazebook Inc."]
    assert len(dazebook) == 1 and dazebook[0].amount == 60
    # Lower influence gives more donation per point of influence.
    per_point = {i: [c.amount / i for c in donations if c.influence == i] for i in range(1, 10)}
    means = [sum(v) / len(v) for v in per_point.values()]
    assert means == sorted(means, reverse=True)
    assert {c.influence for c in votes + donations} == set(range(1, 10))


def test_every_entry_says_where_it_comes_from() -> None:
    entries = RAW["vote_cards"] + RAW["donation_cards"] + RAW["parties"] + [RAW["angelus"], RAW["influence_range"]]
    assert all(e["source"] in {"printed", "derived", "designed"} for e in entries)
    # The two 25,000 cards (amount and influence) and Dazebook Inc. (donor and amount) are printed
    # in part; each says designed for the rest (CONTENT.md), its note naming what is printed.
    in_part = [e for e in RAW["vote_cards"] + RAW["donation_cards"] if "printed" in e.get("note", "")]
    assert sorted(e["id"] for e in in_part) == ["D09", "V11", "V12"]
    assert all(e["source"] == "designed" for e in in_part)


def broken(change: Any) -> dict[str, Any]:
    data = copy.deepcopy(RAW)
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d["vote_cards"].pop(), "expected a list of 17"),
        (lambda d: d["donation_cards"].append(dict(d["donation_cards"][0])), "expected a list of 24"),
        (lambda d: d["vote_cards"][3].update(id="V01"), "unique"),
        (lambda d: d["vote_cards"][3].update(influence=10), "influence must be 1..9"),
        (lambda d: d["vote_cards"][3].update(influence=0), "influence must be 1..9"),
        (lambda d: d["donation_cards"][3].update(amount=20), "different amounts"),
        (lambda d: d["donation_cards"][3].update(source="guessed"), "source must be one of"),
        (lambda d: d["donation_cards"][3].update(id="V99"), "id must look like D01"),
        (lambda d: d["vote_cards"][0].update(id="V00"), "reserved"),
        (lambda d: d["vote_cards"][0].update(label=""), "label"),
        (lambda d: d["parties"].pop(), "parties"),
        (lambda d: d["parties"][1].update(source=None), "source must be one of"),
    ],
)
def test_bad_content_is_refused(change: Any, words: str) -> None:
    with pytest.raises(ContentError, match=words.replace(".", r"\.")):
        parse_content(broken(change))


# --- codec ----------------------------------------------------------------------------------------


def test_options_round_trip_and_defaults() -> None:
    message = game_pb2.GameOptions(players=3)
    message.stimmvieh.SetInParent()
    assert GAME.options_from_proto(message) == StimmviehOptions(3)  # campaigns 0 means 1
    options = StimmviehOptions(4, True, 2, 3, "Hay for all!", "V03")
    out = game_pb2.GameOptions()
    GAME.options_to_proto(options, out)
    assert GAME.options_from_proto(out) == options


@pytest.mark.parametrize(
    ("fields", "players", "reason"),
    [
        ({}, 5, "BAD_PLAYER_COUNT"),
        ({}, 0, "BAD_PLAYER_COUNT"),
        ({"moderator": True, "moderator_seat": 3}, 3, "BAD_MODERATOR_SEAT"),
        ({"campaigns": 10}, 4, "BAD_CAMPAIGNS"),
        ({"campaigns": -1}, 4, "BAD_CAMPAIGNS"),
        ({"custom_vote_card": {"slogan": "x", "replaces_card_id": "V42"}}, 4, "BAD_CUSTOM_VOTE_CARD"),
        ({"custom_vote_card": {"slogan": "y" * 61, "replaces_card_id": "V02"}}, 4, "BAD_CUSTOM_VOTE_CARD"),
    ],
)
def test_options_from_proto_rejects(fields: dict[str, Any], players: int, reason: str) -> None:
    message = game_pb2.GameOptions(players=players, stimmvieh=stimmvieh_pb2.StimmviehOptions(**fields))
    with pytest.raises(InvalidOptionsError) as caught:
        GAME.options_from_proto(message)
    assert caught.value.reason == reason


def test_moves_round_trip_and_malformed_moves() -> None:
    for move in (ChooseTopCandidates((9, 1, 5, 3)), PlayPolitician(4, "D07"), PlayPolitician(2, "")):
        message = game_pb2.Move()
        GAME.move_to_proto(move, message)
        assert GAME.move_from_proto(message) == move
    for message, reason in (
        (game_pb2.Move(), "EMPTY_MOVE"),
        (game_pb2.Move(stimmvieh=stimmvieh_pb2.StimmviehMove()), "EMPTY_MOVE"),
        (game_pb2.Move(stimmvieh={"choose_top_candidates": {"influences": [1, 2, 3]}}), "BAD_TOP_CANDIDATES"),
        (game_pb2.Move(stimmvieh={"choose_top_candidates": {"influences": [1, 2, 3, 3]}}), "BAD_TOP_CANDIDATES"),
        (game_pb2.Move(stimmvieh={"play_politician": {"influence": 0}}), "BAD_INFLUENCE"),
    ):
        with pytest.raises(MalformedMoveError) as caught:
            GAME.move_from_proto(message)
        assert caught.value.reason == reason


def test_every_event_converts() -> None:
    cards = deck()
    card = cards["V05"]
    result = CampaignResult(0, 50, 9, True, 200, 400, 1, 5)
    payloads = [
        CampaignStarted(2, (cards["D01"],), card, None),
        TopCandidatesChosen(1, (1, 2, 3, 4)),
        TopCandidatesRevealed((RevealedTopCandidates(0, (1, 2, 3, 4), 10),)),
        StartPlayerChosen(2, "TIE_FLIP", (TieFlip(1, 5), TieFlip(2, 7)), 2),
        PoliticianPlayed(3, 7, False, card, 1),
        DisplayRefilled(card, None),
        AngelusCardPassed(0),
        ElectionNight(CampaignRecord(1, (result,))),
    ]
    kinds = []
    for payload in payloads:
        message = game_pb2.Event()
        GAME.event_to_proto(payload, message)
        kinds.append(message.stimmvieh.WhichOneof("kind"))
    assert kinds == [
        "campaign_started", "top_candidates_chosen", "top_candidates_revealed", "start_player_chosen",
        "politician_played", "display_refilled", "angelus_card_passed", "election_night",
    ]
    message = game_pb2.Event()
    GAME.event_to_proto(AngelusCardPassed(0), message)
    assert message.stimmvieh.HasField("angelus_card_passed") and message.stimmvieh.angelus_card_passed.seat == 0
    message = game_pb2.Event()
    GAME.event_to_proto(PoliticianPlayed(3, 1, True, None, 0), message)
    assert not message.stimmvieh.politician_played.HasField("taken")


def test_view_proto_fields() -> None:
    rng = Rng(b"view")
    state = GAME.setup(StimmviehOptions(3, moderator=True, moderator_seat=2), rng)
    out = game_pb2.GameView()
    GAME.view_to_proto(GAME.view(state, 0), out)
    view = out.stimmvieh
    assert view.phase == stimmvieh_pb2.STIMMVIEH_PHASE_CHOOSING_TOP_CANDIDATES
    assert view.moderator_seat == 2 and not view.HasField("current_party")
    assert len(view.display) == 4 and all(c.type == stimmvieh_pb2.STIMMVIEH_CARD_TYPE_DONATION for c in view.display)
    assert view.vote_stack_count == 17 and view.donation_stack_count == 20
    assert view.vote_stack_top.card_id == state.vote_stack[0]
    assert [p.HasField("seat") for p in view.parties] == [True, True, True, False]
    assert view.parties[0].votes.count == 0 and view.parties[0].votes.HasField("total")
    assert all(c.kind == DONATION for c in (deck()[i] for i in state.display))


# --- storage --------------------------------------------------------------------------------------


def test_dump_is_canonical_and_round_trips() -> None:
    rng, chooser = Rng(b"store"), Rng(b"store-choose")
    state = GAME.setup(StimmviehOptions(3, campaigns=2, custom_slogan="Hay for all!", custom_replaces="V09"), rng)
    while not GAME.is_over(state):
        raw = GAME.dump_state(state)
        assert json.dumps(json.loads(raw), sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode() == raw
        assert GAME.load_state(raw) == state and GAME.dump_state(GAME.load_state(raw)) == raw
        seat = chooser.choice(sorted(GAME.to_act(state)))
        state, _ = GAME.apply(state, seat, chooser.choice(GAME.legal_moves(state, seat)), rng)
    assert GAME.load_state(GAME.dump_state(state)) == state
    with pytest.raises(ValueError):
        GAME.load_state(b"{}")
    with pytest.raises(ValueError):
        GAME.load_state(b"not json")
