"""Each game's catalogue against its content file, entry by entry: nothing missing, nothing extra,
every value and provenance as the file says. The file is read here on its own, not through the
engine, so a catalogue that drifted from the data fails."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

from hustings.engine.base import content_version
from hustings.engine.registry import get_catalogue
from hustings.v1 import catalogue_pb2, game_service_pb2, spin_doctors_catalogue_pb2 as sd, spin_doctors_pb2, stimmvieh_pb2
from hustings.v1 import wahlspiel_catalogue_pb2 as wc, wahlspiel_pb2

ENGINE = pathlib.Path(__file__).resolve().parent.parent / "engine"
PROVENANCE = {
    "printed": catalogue_pb2.PROVENANCE_PRINTED,
    "derived": catalogue_pb2.PROVENANCE_DERIVED,
    "designed": catalogue_pb2.PROVENANCE_DESIGNED,
}


def content(kind: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((ENGINE / kind / "content.json").read_text(encoding="utf-8"))
    return data


def catalogue(kind: str) -> Any:
    answer = game_service_pb2.GetGameKindResponse()
    found = get_catalogue(kind)
    assert found is not None
    found.fill(answer)
    return getattr(answer, kind)


def same_source(source: catalogue_pb2.ContentSource, entry: dict[str, Any]) -> None:
    assert source.provenance == PROVENANCE[entry["source"]], entry
    assert source.note == entry.get("note", ""), entry


@pytest.mark.parametrize("kind", ["stimmvieh", "wahlspiel", "spin_doctors"])
def test_content_version_is_the_digest_of_the_file(kind: str) -> None:
    data = content(kind)
    found = get_catalogue(kind)
    assert found is not None and found.content_version == content_version(data)
    changed = json.loads(json.dumps(data))
    changed["about"] += " "
    assert content_version(changed) != found.content_version  # any edit makes a new version


def test_stimmvieh_catalogue_is_the_content() -> None:
    data, cat = content("stimmvieh"), catalogue("stimmvieh")
    assert [(p.party, p.name) for p in cat.parties] == [(e["party"], e["name"]) for e in data["parties"]]
    for party, entry in zip(cat.parties, data["parties"]):
        same_source(party.source, entry)
    assert cat.angelus_name == data["angelus"]["name"]
    same_source(cat.angelus_source, data["angelus"])
    low, high = data["influence_range"]["min"], data["influence_range"]["max"]
    assert list(cat.politician_influences) == list(range(low, high + 1))
    same_source(cat.influence_source, data["influence_range"])
    for listed, key, card_type in (
        (cat.vote_cards, "vote_cards", stimmvieh_pb2.STIMMVIEH_CARD_TYPE_VOTE),
        (cat.donation_cards, "donation_cards", stimmvieh_pb2.STIMMVIEH_CARD_TYPE_DONATION),
    ):
        assert [c.card_id for c in listed] == [e["id"] for e in data[key]]
        for card, entry in zip(listed, data[key]):
            assert (card.type, card.amount, card.influence, card.label) == (card_type, entry["amount"], entry["influence"], entry["label"])
            same_source(card.source, entry)
    assert (len(cat.vote_cards), len(cat.donation_cards)) == (17, 24)
    assert cat.custom_vote_card_id not in {c.card_id for c in [*cat.vote_cards, *cat.donation_cards]}


def _condition(condition: Any, entry: dict[str, Any] | None) -> None:
    entry = entry or {}
    assert condition.sex == entry.get("sex", "")
    assert (condition.age_min, condition.age_max) == (entry.get("age_min", 0), entry.get("age_max", 0))
    assert list(condition.occupations) == entry.get("occupations", [])
    assert list(condition.traits) == entry.get("traits", [])
    assert list(condition.symbols) == entry.get("symbols", [])


def test_wahlspiel_catalogue_is_the_content() -> None:
    data, cat = content("wahlspiel"), catalogue("wahlspiel")
    money = data["money"]
    assert (cat.money.start, cat.money.start_three_players, cat.money.voter_price, cat.money.event_price) == (
        money["start"], money["start_three_players"], money["voter_price"], money["event_price"]
    )
    same_source(cat.money.source, money)
    kinds = [entry["kind"] for entry in data["board"]]
    assert [(e.round, wahlspiel_pb2.WahlspielFieldKind.Name(e.goal), e.goal_position, e.seats, e.pay) for e in cat.elections] == [
        (n, f"WAHLSPIEL_FIELD_KIND_{entry['goal'].upper()}", kinds.index(entry["goal"]), entry["seats"], entry["pay"])
        for n, entry in enumerate(data["elections"], 1)
    ]
    assert [(p.party, p.name, p.colour) for p in cat.parties] == [(e["party"], e["name"], e["colour"]) for e in data["parties"]]
    assert [(s.id, s.icon) for s in cat.symbols] == [(e["id"], e["icon"]) for e in data["symbols"]]
    assert [(t.id, t.meaning) for t in cat.traits] == [(e["id"], e["meaning"]) for e in data["traits"]]
    assert [o.id for o in cat.occupations] == [e["id"] for e in data["occupations"]]
    assert [(f.position, wahlspiel_pb2.WahlspielFieldKind.Name(f.kind), f.prize_voters, f.prize_events) for f in cat.board] == [
        (i, f"WAHLSPIEL_FIELD_KIND_{e['kind'].upper()}", e.get("prize_voters", 0), e.get("prize_events", 0))
        for i, e in enumerate(data["board"])
    ]
    for listed, key in ((cat.elections, "elections"), (cat.parties, "parties"), (cat.symbols, "symbols"), (cat.traits, "traits"),
                        (cat.occupations, "occupations"), (cat.board, "board"), (cat.politicians, "politicians"),
                        (cat.voters, "voters"), (cat.events, "events")):
        assert len(listed) == len(data[key])
        for item, entry in zip(listed, data[key]):
            same_source(item.source, entry)
    for item, entry in zip(cat.politicians, data["politicians"]):
        p = item.politician
        assert (p.politician_id, p.name, p.sex, p.age, p.occupation) == (entry["id"], entry["name"], entry["sex"], entry["age"], entry["occupation"])
        assert sorted(p.traits) == sorted(entry.get("traits", [])) and list(p.symbols) == entry["symbols"]
    assert [v.card_id for v in cat.voters] == [e["id"] for e in data["voters"]]
    for voter, entry in zip(cat.voters, data["voters"]):
        assert (voter.text, voter.opinion) == (entry["text"], entry.get("opinion", ""))
        _condition(voter.condition, entry["condition"])
    assert [e.card_id for e in cat.events] == [e["id"] for e in data["events"]]
    for event, entry in zip(cat.events, data["events"]):
        target = {"candidates": "CANDIDATES", "every": "EVERY", "own": "OWN_PARTY", "party": "PARTY"}[entry["target"]]
        assert event.target == getattr(wc, f"WAHLSPIEL_EVENT_TARGET_{target}")
        assert (event.text, event.count, event.votes, event.money) == (entry["text"], entry.get("count", 0), entry.get("votes", 0), entry.get("money", 0))
        assert (event.halve, event.lose_all, event.withdraw) == (entry.get("halve", False), entry.get("lose_all", False), entry.get("withdraw", False))
        _condition(event.condition, entry.get("condition"))
    assert (len(cat.politicians), len(cat.voters), len(cat.events)) == (45, 125, 90)


def test_spin_doctors_catalogue_is_the_content() -> None:
    data, cat = content("spin_doctors"), catalogue("spin_doctors")
    named = {"voter_groups": cat.voter_groups, "topics": cat.topics, "colours": cat.colours, "voter_traits": cat.voter_traits}
    for key, listed in named.items():
        assert [(x.id, x.name) for x in listed] == [(e["id"], e["name"]) for e in data[key]], key
    index = {key: {e["id"]: i for i, e in enumerate(data[key])} for key in ("voter_groups", "topics", "colours", "fields")}
    assert [(f.field, f.id, f.name, sd.SpinDoctorsFieldKind.Name(f.kind)) for f in cat.fields] == [
        (e["field"], e["id"], e["name"], f"SPIN_DOCTORS_FIELD_KIND_{e['kind'].upper()}") for e in data["fields"]
    ]
    assert [(x.locality, x.id, x.name, x.field, list(x.votes)) for x in cat.localities] == [
        (e["locality"], e["id"], e["name"], index["fields"][e["region"]] + 1, e["votes"]) for e in data["localities"]
    ]
    assert (cat.news_track.red_fields, cat.news_track.blue_fields) == (data["news_track"]["red_fields"], data["news_track"]["blue_fields"])
    rounds = data["round_counter"]
    assert list(cat.round_counter.staffers_per_round) == rounds["staffers_per_round"]
    assert cat.round_counter.poll_round == rounds["poll_round"]
    assert {e.players: e.round for e in cat.round_counter.election_rounds} == {int(k): v for k, v in rounds["election_round"].items()}
    start = data["start"]
    assert (cat.start.budget, cat.start.support_tokens, cat.start.staff_size, cat.start.programme_size,
            cat.start.topic_cards_on_board, cat.start.turnout_marker_sum) == tuple(
        start[k] for k in ("budget", "support_tokens", "staff_size", "programme_size", "topic_cards_on_board", "turnout_marker_sum"))
    for single, key in ((cat.news_track, "news_track"), (cat.round_counter, "round_counter"), (cat.start, "start")):
        same_source(single.source, data[key])
    assert [c.card_id for c in cat.turnout_cards] == [e["id"] for e in data["turnout_cards"]]
    for card, e in zip(cat.turnout_cards, data["turnout_cards"]):
        assert (card.trait, card.voter_group, card.funding, card.fields) == (e["trait"], index["voter_groups"][e["group"]], e["funding"], e["fields"])
        assert [[a.from_field, a.to_field] for a in card.arrows] == e["arrows"]
        pointed, leaving = {b for _, b in e["arrows"]}, {a for a, _ in e["arrows"]}
        assert list(card.lowest_fields) == [f for f in range(e["fields"]) if f not in pointed]
        assert list(card.top_fields) == [f for f in range(e["fields"]) if f not in leaving]
    assert [(c.card_id, c.topic, c.red_fields, c.white_fields) for c in cat.topic_cards] == [
        (e["id"], index["topics"][e["topic"]], e["red_fields"], e["white_fields"]) for e in data["topic_cards"]
    ]
    assert [c.card_id for c in cat.news_cards] == [e["id"] for e in data["news_cards"]]
    for card, e in zip(cat.news_cards, data["news_cards"]):
        if "scandal" in e:
            assert card.HasField("scandal_colour") and card.scandal_colour == index["colours"][e["scandal"]]
            assert not card.HasField("topic") and not card.HasField("voter_group")
        else:
            assert not card.HasField("scandal_colour")
            assert (card.topic, card.voter_group, card.turnout_change) == (index["topics"][e["topic"]], index["voter_groups"][e["group"]], e["turnout_change"])
    condition = {"3+": sd.SPIN_DOCTORS_PROGRAMME_CONDITION_THREE_OR_MORE, "0-2": sd.SPIN_DOCTORS_PROGRAMME_CONDITION_ZERO_TO_TWO}
    assert [(c.card_id, c.topic, c.condition, c.reward, c.penalty) for c in cat.programme_cards] == [
        (e["id"], index["topics"][e["topic"]], condition[e["condition"]], e["reward"], e["penalty"]) for e in data["programme_cards"]
    ]
    place = {"media": "MEDIA", "region": "REGION", "both": "ANY"}
    assert [(a.action, a.name, sd.SpinDoctorsActionPlace.Name(a.place), a.red, a.text) for a in cat.actions] == [
        (e["id"], e["name"], f"SPIN_DOCTORS_ACTION_PLACE_{place[e['field']]}", e["colour"] == "red", e["text"]) for e in data["actions"]
    ]
    for action, e in zip(cat.actions, data["actions"]):
        assert action.target != sd.SPIN_DOCTORS_ACTION_TARGET_UNSPECIFIED
        # The target names real fields of the move that carries it.
        assert set(action.act_fields) <= set(spin_doctors_pb2.SpinDoctorsAct.DESCRIPTOR.fields_by_name)
        assert bool(action.act_fields) == (e["target"] != "none")
    for staffer, e in zip(cat.staffers, data["staffers"], strict=True):
        assert (staffer.staffer, staffer.id, staffer.name, staffer.basic_cost) == (e["order"], e["id"], e["name"], e["basic_cost"])
        assert (list(staffer.basic_actions), list(staffer.special_actions)) == (e["basic"], e["special"])
        assert (staffer.special_cost if staffer.HasField("special_cost") else None) == e.get("special_cost")
    assert [(s.staff, sorted(s.staffers), s.text) for s in cat.ready_made_staffs] == [
        (e["id"], sorted(e["staffers"]), e["text"]) for e in data["ready_made_staffs"]
    ]
    lists = ("voter_groups", "topics", "colours", "voter_traits", "fields", "localities", "turnout_cards", "topic_cards",
             "news_cards", "programme_cards", "actions", "staffers", "ready_made_staffs")
    for key in lists:
        listed = getattr(cat, key)
        assert len(listed) == len(data[key]), key
        for item, entry in zip(listed, data[key]):
            same_source(item.source, entry)
    assert (len(cat.staffers), len(cat.localities), len(cat.turnout_cards), len(cat.topic_cards)) == (13, 10, 20, 36)
