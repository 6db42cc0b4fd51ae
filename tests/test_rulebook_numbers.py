"""The rulebooks' own numbers that no other test held, and the content files' provenance and
validation, for all three games.

Each test quotes the rulebook (``shared/rules/``) and uses its numbers, so that it fails if the
engine or the content strays from the book. The worked examples are played elsewhere
(``test_stimmvieh_rules.py``, ``test_wahlspiel_rules.py``, ``test_spin_doctors.py``,
``test_spin_doctors_printed.py``, ``test_spin_doctors_actions.py``); this file adds the component
counts, setup amounts and round schedule of The Spin Doctors, Wahlspiel's voter examples 1 and 3
and its player counts, Stimmvieh's box, and a malformed-content check run the same way over every
game: a missing mark, a wrong count, a repeated id (named) and a member the loader does not know
(named, with its section and entry) are refused.
"""

from __future__ import annotations

import importlib
import json
import pathlib
from dataclasses import replace
from importlib import resources
from typing import Any, Callable

import pytest

from hustings.engine import Rng, get_game
from hustings.engine.spin_doctors import rules as spin_rules
from hustings.engine.spin_doctors.content import CONTENT as SPIN
from hustings.engine.spin_doctors.model import SpinDoctorsOptions
from hustings.engine.stimmvieh import GAME as STIMMVIEH, StimmviehOptions
from hustings.engine.wahlspiel import GAME as WAHLSPIEL, WahlspielOptions
from hustings.engine.wahlspiel.content import CONTENT as WAHL
from hustings.engine.wahlspiel.model import VOTING, Candidate, CastVoter
from hustings.engine.wahlspiel.table import change_votes

KINDS = ("stimmvieh", "wahlspiel", "spin_doctors")
SOURCES = {"printed", "derived", "designed"}


def raw(kind: str) -> dict[str, Any]:
    """The shipped content file of ``kind``, decoded (a fresh copy: tests edit copies only)."""
    return json.loads(resources.files(f"hustings.engine.{kind}").joinpath("content.json").read_text("utf-8"))


def content_module(kind: str) -> Any:
    return importlib.import_module(f"hustings.engine.{kind}.content")


# --- every entry says where it comes from ----------------------------------------------------------


def entries(data: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every content entry: each object member of the file and each object in a list member."""
    found: list[tuple[str, dict[str, Any]]] = []
    for key, value in data.items():
        if isinstance(value, dict):
            found.append((key, value))
        elif isinstance(value, list):
            found += [(f"{key}[{i}]", item) for i, item in enumerate(value) if isinstance(item, dict)]
    return found


@pytest.mark.parametrize("kind", KINDS)
def test_every_content_entry_is_marked_printed_derived_or_designed(kind: str) -> None:
    found = entries(raw(kind))
    assert len(found) > 20
    unmarked = [where for where, entry in found if entry.get("source") not in SOURCES]
    assert unmarked == []


@pytest.mark.parametrize("kind", KINDS)
def test_a_printed_entry_carries_a_note_or_is_self_evident(kind: str) -> None:
    """A printed entry on a card or a board says where in the book it stands (every printed card
    of Stimmvieh and Wahlspiel's example voters do); designed ones need no note."""
    data = raw(kind)
    cards = {"stimmvieh": ("vote_cards", "donation_cards"), "wahlspiel": ("voters", "symbols"), "spin_doctors": ()}[kind]
    silent = [e.get("id") for key in cards for e in data[key] if e["source"] == "printed" and not e.get("note")]
    assert silent == []


# --- a malformed content file is refused, naming the entry -------------------------------------------


def refused(kind: str, change: Callable[[dict[str, Any]], None]) -> str:
    """The message with which ``kind``'s loader refuses a copy of its file edited by ``change``."""
    module = content_module(kind)
    data = raw(kind)
    change(data)
    with pytest.raises(module.ContentError) as caught:
        module.parse_content(data)
    return str(caught.value)


MALFORMED: list[Any] = [
    # (kind, list member, what the edit does) -- the second entry of the list is edited.
    pytest.param("stimmvieh", "vote_cards", id="stimmvieh-vote_cards"),
    pytest.param("stimmvieh", "donation_cards", id="stimmvieh-donation_cards"),
    pytest.param("wahlspiel", "politicians", id="wahlspiel-politicians"),
    pytest.param("wahlspiel", "voters", id="wahlspiel-voters"),
    pytest.param("wahlspiel", "events", id="wahlspiel-events"),
    pytest.param("spin_doctors", "turnout_cards", id="spin_doctors-turnout_cards"),
    pytest.param("spin_doctors", "topic_cards", id="spin_doctors-topic_cards"),
    pytest.param("spin_doctors", "news_cards", id="spin_doctors-news_cards"),
]


@pytest.mark.parametrize(("kind", "key"), [p.values for p in MALFORMED], ids=[p.id for p in MALFORMED])
def test_a_missing_mark_is_refused_naming_the_entry(kind: str, key: str) -> None:
    message = refused(kind, lambda d: d[key][1].pop("source"))
    assert "source must be one of" in message
    assert "#2" in message or raw(kind)[key][1]["id"] in message  # the entry, by place or id


@pytest.mark.parametrize(("kind", "key"), [p.values for p in MALFORMED], ids=[p.id for p in MALFORMED])
def test_a_wrong_count_is_refused(kind: str, key: str) -> None:
    printed = len(raw(kind)[key])
    message = refused(kind, lambda d: d[key].pop())
    assert str(printed) in message and key.split("_")[0] in message


@pytest.mark.parametrize(("kind", "key"), [p.values for p in MALFORMED], ids=[p.id for p in MALFORMED])
def test_a_duplicate_id_is_refused(kind: str, key: str) -> None:
    message = refused(kind, lambda d: d[key][1].update(id=d[key][0]["id"]))
    assert "unique" in message


@pytest.mark.parametrize(("kind", "key"), [p.values for p in MALFORMED], ids=[p.id for p in MALFORMED])
def test_a_duplicate_id_message_names_the_repeated_id(kind: str, key: str) -> None:
    repeated = raw(kind)[key][0]["id"]
    assert repeated in refused(kind, lambda d: d[key][1].update(id=repeated))


def sections(kind: str) -> list[tuple[str, str]]:
    """(kind, section) for every section of ``kind``'s file that holds entries: an object, or a
    list of objects."""
    data = raw(kind)
    return [
        (kind, key) for key, value in data.items()
        if isinstance(value, dict) or (isinstance(value, list) and value and all(isinstance(e, dict) for e in value))
    ]


ID_LISTS = [
    (kind, key) for kind in KINDS for key, value in raw(kind).items()
    if isinstance(value, list) and value and all(isinstance(e, dict) and "id" in e for e in value)
]


@pytest.mark.parametrize(("kind", "key"), ID_LISTS, ids=[f"{kind}-{key}" for kind, key in ID_LISTS])
def test_every_list_with_ids_refuses_a_repeated_one_naming_it(kind: str, key: str) -> None:
    """Every list whose entries have ids (cards, Staffers, ready-made Staffs, symbols, topics ...):
    a repeated id is refused, and the message names the list and the id."""
    repeated = raw(kind)[key][0]["id"]
    message = refused(kind, lambda d: d[key][-1].update(id=repeated))
    assert "unique" in message and key in message and f"repeated: {repeated}" in message


def test_id_lists_cover_every_game() -> None:
    assert {kind for kind, _ in ID_LISTS} == set(KINDS)
    assert {("spin_doctors", "staffers"), ("spin_doctors", "ready_made_staffs"), ("wahlspiel", "symbols")} <= set(ID_LISTS)


@pytest.mark.parametrize(("kind", "key"), [p.values for p in MALFORMED], ids=[p.id for p in MALFORMED])
def test_an_unknown_field_is_refused_naming_the_entry(kind: str, key: str) -> None:
    """A misspelt member (``influnce`` for ``influence``) must not load as if it were absent."""
    message = refused(kind, lambda d: d[key][1].update(colour_of_hat="red"))
    assert "colour_of_hat" in message
    assert f"{key} {raw(kind)[key][1]['id']}:" in message  # the section and the entry


ALL_SECTIONS = [pair for kind in KINDS for pair in sections(kind)]


@pytest.mark.parametrize(("kind", "key"), ALL_SECTIONS, ids=[f"{kind}-{key}" for kind, key in ALL_SECTIONS])
def test_a_misspelt_member_is_refused_in_every_section(kind: str, key: str) -> None:
    """Every section, its object or the last entry of its list: a member misspelt (its first
    member besides id, source and note, else its id, less its last letter) is refused, naming the
    section, the entry and the misspelt member, before the loader misses the member it stands for."""
    value = raw(kind)[key]
    entry = value if isinstance(value, dict) else value[-1]
    member = next((m for m in entry if m not in ("id", "source", "note")), "id")  # occupations hold only ids
    misspelt = member[:-1]
    assert misspelt not in entry

    def change(data: dict[str, Any]) -> None:
        target = data[key] if isinstance(data[key], dict) else data[key][-1]
        target[misspelt] = target.pop(member)

    message = refused(kind, change)
    assert f"unknown field {misspelt!r}" in message and message.startswith(key)
    if isinstance(value, list):
        named = entry["id"] if "id" in entry and member != "id" else f"#{len(value)}"  # by id, else place
        assert message.startswith(f"{key} {named}:")


def test_sections_cover_every_game() -> None:
    assert {kind for kind, _ in ALL_SECTIONS} == set(KINDS) and len(ALL_SECTIONS) > 30


@pytest.mark.parametrize("kind", KINDS)
def test_an_unknown_section_is_refused(kind: str) -> None:
    """A misspelt section (``vote_card`` beside ``vote_cards``) would load as if absent."""
    assert "unknown section 'vote_card'" in refused(kind, lambda d: d.update(vote_card=[]))


def test_a_wahlspiel_condition_refuses_an_unknown_member() -> None:
    """A card's condition: ``symbol`` for ``symbols`` would make the card back every candidate."""
    voter = next(v for v in raw("wahlspiel")["voters"] if "symbols" in v["condition"])

    def change(data: dict[str, Any]) -> None:
        target = next(v for v in data["voters"] if v["id"] == voter["id"])
        target["condition"]["symbol"] = target["condition"].pop("symbols")

    message = refused("wahlspiel", change)
    assert f"voter {voter['id']} condition: unknown field 'symbol'" in message


@pytest.mark.parametrize("key", ["staffers", "ready_made_staffs"])
def test_spin_doctors_duplicate_staffer_and_staff_ids_are_refused(key: str) -> None:
    repeated = raw("spin_doctors")[key][0]["id"]
    message = refused("spin_doctors", lambda d: d[key][1].update(id=repeated))
    assert f"{key}: ids must be unique; repeated: {repeated}" in message


@pytest.mark.parametrize("change", [
    pytest.param(lambda d: d["influence_range"].pop("source"), id="missing-mark"),
    pytest.param(lambda d: d["influence_range"].update(max=4), id="the-contents-list-1..4"),
    pytest.param(lambda d: d["influence_range"].update(min=0), id="from-0"),
    pytest.param(lambda d: d["influence_range"].update(max=9.0), id="not-an-integer"),
    pytest.param(lambda d: d.pop("influence_range"), id="missing"),
])
def test_stimmvieh_influence_range_is_validated(change: Callable[[dict[str, Any]], None]) -> None:
    """CONTENT.md: the cards use 1..9 (``influence_range``), kept with the rules; a file saying
    1..4 (the contents list's misprint) or an unmarked range must not load beside rules of 1..9."""
    assert "influence_range" in refused("stimmvieh", change)


@pytest.mark.parametrize("field, value", [("topic", "economy"), ("group", "families"), ("turnout_change", 2)])
def test_spin_doctors_a_scandal_with_a_news_cards_field_is_refused(field: str, value: object) -> None:
    """A Scandal names a colour and nothing else; a topic, group or turnout change beside it was
    loaded and ignored."""

    def change(data: dict[str, Any]) -> None:
        next(e for e in data["news_cards"] if "scandal" in e)[field] = value

    assert f"a Scandal has no {field}" in refused("spin_doctors", change)


@pytest.mark.parametrize("count", [9, 11, 0])
def test_spin_doctors_topic_cards_on_board_is_one_per_locality(count: int) -> None:
    """Setup: "Draw 10 cards and place them at random, one on each Topic card field" (printed),
    one field on each of the ten Localities; the catalogue shows the figure, which was never checked."""
    assert "topic_cards_on_board must be 10" in refused("spin_doctors", lambda d: d["start"].update(topic_cards_on_board=count))


def test_a_shipped_content_file_is_never_edited_by_these_tests() -> None:
    for kind in KINDS:
        assert content_module(kind).parse_content(raw(kind)) is not None


# --- Stimmvieh: the box -------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4])
def test_stimmvieh_box_four_parties_of_nine_and_four_donations_face_up(players: int) -> None:
    """"Politicians from 4 parties with influence values from 1 through 9"; "17 vote cards";
    "24 donation cards"; "Place the four topmost donation cards face up"; "a game lasts nine
    rounds" (everyone plays all nine politicians); 3 or 4 players."""
    assert (STIMMVIEH.info.min_players, STIMMVIEH.info.max_players) == (3, 4)
    state = STIMMVIEH.setup(StimmviehOptions(players), Rng(b"box"))
    assert len(state.parties) == 4
    for party in state.parties:
        assert sorted(party.chosen + party.hand(False)) == list(range(1, 10))
    assert len(state.display) == 4 and all(card.startswith("D") for card in state.display)
    assert len(state.vote_stack) == 17 and len(state.donation_stack) == 24 - 4


# --- Wahlspiel: examples 1 and 3, the box ---------------------------------------------------------------


def wahl_table(candidates: tuple[Candidate, ...], voters: tuple[str, ...]) -> Any:
    """A four-player game at party 0's voting field, with ``candidates`` standing (each owned by
    its party) and ``voters`` in party 0's hand."""
    state = WAHLSPIEL.setup(WahlspielOptions(4), Rng(b"rulebook"))
    standing = {c.politician for c in candidates}
    parties = []
    for i, party in enumerate(state.parties):
        own = [p for p in party.politicians if p not in standing] + [c.politician for c in candidates if c.party == i]
        party = replace(party, politicians=tuple(sorted(own)))
        parties.append(replace(party, voters=tuple(sorted(voters))) if i == 0 else party)
    return replace(state, step=VOTING, current=0, candidates=candidates, parties=tuple(parties))


def first(test: Callable[[Any], bool], skip: tuple[str, ...] = ()) -> str:
    return next(p for p, politician in sorted(WAHL.politicians.items()) if test(politician) and p not in skip)


def test_wahlspiel_example_1_more_objectivity_one_vote_each_any_party() -> None:
    """Example 1: "votes for more objectivity". All candidates with the matching symbol (a grid
    pattern) receive one vote each. The party affiliation of the candidates plays no role."""
    assert WAHL.voters["V001"].text == "votes for more objectivity"
    icons = {s["id"]: s["icon"] for s in raw("wahlspiel")["symbols"]}
    assert (icons["objectivity"], icons["art"], icons["homeland"]) == ("grid", "square frame", "Swiss cross")
    ours = first(lambda p: "objectivity" in p.symbols)
    theirs = first(lambda p: "objectivity" in p.symbols, (ours,))
    neither = first(lambda p: "objectivity" not in p.symbols)
    state = wahl_table((Candidate(ours, 0, 2), Candidate(theirs, 3), Candidate(neither, 1)), ("V001",))
    after, _ = WAHLSPIEL.apply(state, 0, CastVoter("V001"), Rng(b"example-1"))
    assert {c.politician: c.votes for c in after.candidates} == {ours: 3, theirs: 1, neither: 0}


def test_wahlspiel_example_3_votes_for_smokers() -> None:
    """Example 3: a voter card without a symbol, "votes for smokers": all candidates who clearly
    show themselves on the picture as smokers receive one vote each ("my Ernst Tanner smokes
    secretly" is excluded)."""
    card = WAHL.voters["V091"]
    assert card.text == "votes for smokers" and not card.condition.symbols and not card.opinion
    smoker = first(lambda p: "smoker" in p.traits)
    tanner = first(lambda p: p.name == "Ernst Tanner")
    state = wahl_table((Candidate(smoker, 2), Candidate(tanner, 1)), ("V091",))
    after, _ = WAHLSPIEL.apply(state, 0, CastVoter("V091"), Rng(b"example-3"))
    assert {c.politician: c.votes for c in after.candidates} == {smoker: 1, tanner: 0}


def test_wahlspiel_six_pieces_and_the_three_player_note() -> None:
    """"6 coloured game pieces": at most six parties; "In a game for three players, deal 10,000
    francs per player ... and admit three candidates each in the cantonal council election"."""
    assert WAHLSPIEL.info.max_players == 6 == len(raw("wahlspiel")["parties"])
    assert [e.seats for e in WAHL.elections] == [5, 3, 1]
    assert WAHL.start_money_three_players == 10000 and WAHL.start_money == 6000


def test_wahlspiel_the_vote_stone_supply_is_recorded() -> None:
    """The box holds "35 light vote stones, each worth 1 vote" and "15 dark vote stones, each
    worth 5 votes" (110 votes), and the rulebook is silent on running out; the content document
    says, as a designed choice, that the supply limits no votes."""
    text = (pathlib.Path(content_module("wahlspiel").__file__).parent / "CONTENT.md").read_text("utf-8")
    entry = next(item for item in text.split("\n- ") if item.startswith("**Vote stones**"))
    assert "35 light vote stones" in entry and "15 dark" in entry and "110" in entry
    assert "(designed;" in entry and "not a limit" in entry and "keeps no stone supply" in entry


def test_wahlspiel_votes_count_beyond_the_vote_stones() -> None:
    """The choice recorded above, played: the candidates in the race already hold all 110 votes
    the stones can show, and a voter still gives every matching candidate its vote; an event's
    votes (``change_votes``, through which the goal's two stones also go) likewise count in full."""
    ours = first(lambda p: "objectivity" in p.symbols)
    theirs = first(lambda p: "objectivity" in p.symbols, (ours,))
    state = wahl_table((Candidate(ours, 0, 59), Candidate(theirs, 3, 51)), ("V001",))
    assert sum(c.votes for c in state.candidates) == 35 * 1 + 15 * 5
    after, _ = WAHLSPIEL.apply(state, 0, CastVoter("V001"), Rng(b"beyond-the-stones"))
    assert {c.politician: c.votes for c in after.candidates} == {ours: 60, theirs: 52}
    events: list[Any] = []
    again = change_votes(after, theirs, 3, "EVENT", events)
    assert {c.politician: c.votes for c in again.candidates} == {ours: 60, theirs: 55}  # 115 in all


# --- The Spin Doctors: components, setup, rounds ---------------------------------------------------------


def test_spin_doctors_components() -> None:
    """"65 Staffers (13 cards for each colour)", "20 Turnout cards", "36 Topic cards", "41 News
    cards", "60 Campaign Programme cards (12 cards for each colour)", "4 Turnout markers", "20 Vote
    markers (4 markers for each colour)"; one Scandal per player's colour; five player columns on
    the score sheet; the Staffer order 0 Candidate .. 12 Youth Wing."""
    colours = len(SPIN.colours)
    assert colours == 5 and (len(SPIN.staffers), len(SPIN.staffers) * colours) == (13, 65)
    assert (len(SPIN.turnout_cards), len(SPIN.topic_cards), len(SPIN.news_cards)) == (20, 36, 41)
    assert (len(SPIN.programme_cards), len(SPIN.programme_cards) * colours) == (12, 60)
    assert len(SPIN.groups) == 4 and len(SPIN.groups) * colours == 20
    assert sorted(c.scandal for c in SPIN.news_cards.values() if c.is_scandal) == list(range(colours))
    assert (SPIN.staffers[0].name, SPIN.staffers[12].name) == ("Candidate", "Youth Wing")
    game = get_game("spin_doctors")
    assert (game.info.min_players, game.info.max_players) == (3, 5)


def test_spin_doctors_programme_cards_are_3_plus_or_0_2_with_the_printed_results() -> None:
    """"It will always be either 3+ or 0-2"; the results printed in the examples are +6, +3 and
    -3, and the final scoring example has a 3+ card fulfilled (+6) and 0-2 cards (+3, -3)."""
    cards = SPIN.programme_cards.values()
    assert {c.condition for c in cards} == {"3+", "0-2"}
    # ``penalty`` is the Votes subtracted: the printed -3.
    assert {(c.condition, c.reward, -c.penalty) for c in cards} == {("3+", 6, -3), ("0-2", 3, -3)}
    for topic in range(len(SPIN.topics)):
        assert sorted(c.condition for c in cards if c.topic == topic) == ["0-2", "3+"]


@pytest.mark.parametrize("players", [3, 4, 5])
def test_spin_doctors_setup_amounts(players: int) -> None:
    """Setup: "5 Budget tokens with a value of 1 and 2 Budget tokens with a value of 5", "30
    Support tokens"; "draw 10 [Turnout] cards and place them ... one on each Turnout field", "Draw
    10 [Topic] cards", "Draw 3 [News] cards ... on the Red News card fields", every Vote marker on 0; each Staff is "7 Staffers, including the
    Candidate" and "3 Campaign Programme cards"."""
    state = spin_rules.setup(SpinDoctorsOptions(players), Rng(b"setup"))
    assert all(p.budget == 5 * 1 + 2 * 5 and p.supply == 30 and p.votes == [0, 0, 0, 0] for p in state.seats)
    assert len(state.spots) == 10 and len({s.turnout_card for s in state.spots}) == 10
    assert len({s.topic_card for s in state.spots}) == 10 and len(state.topic_deck) == 36 - 10
    red = state.news[: SPIN.red_news_fields]
    assert SPIN.red_news_fields == 3 and all(red) and not any(state.news[3:])
    assert len(state.news_deck) == 41 - 3
    assert (SPIN.staff_size, SPIN.programme_size) == (7, 3)


def test_spin_doctors_round_counter() -> None:
    """"In the first round each player plays 3 Staffers"; "A Poll always takes place at the end of
    the 3rd round. An Election takes place in round 6 (4-5 players) or round 7 (3 players)"."""
    assert SPIN.staffers_per_round[0] == 3
    assert SPIN.poll_round == 3
    assert SPIN.election_round == {3: 7, 4: 6, 5: 6}
    assert len(SPIN.staffers_per_round) == 7


def test_spin_doctors_resolution_order_fields_and_localities() -> None:
    """"Resolve each field in ascending order (from the Media field [1] to the Southern Region
    field [6])"; "in the Northern Region the Activity stack of Szczecin comes first, then the
    Activity stack of the Tricity"; Łódź and Warszawa are Central, Poznań and Bydgoszcz Western."""
    assert SPIN.field_names[0] == "Media" or "media" in SPIN.field_names[0].lower()
    regions = [name.split()[0] for name in SPIN.field_names[1:]]
    assert regions == ["Northern", "Central", "Western", "Eastern", "Southern"]
    by_id = {loc.id: loc for loc in SPIN.localities}
    assert SPIN.localities_of(2) == (by_id["szczecin"].index, by_id["trojmiasto"].index)
    assert by_id["lodz"].field == by_id["warszawa"].field == 3
    assert by_id["poznan"].field == by_id["bydgoszcz"].field == 4
    assert by_id["krakow"].field == 5
