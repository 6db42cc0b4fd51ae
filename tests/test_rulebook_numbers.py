"""The rulebooks' own numbers that no other test held, and the content files' provenance and
validation, for all three games.

Each test quotes the rulebook (``shared/rules/``) and uses its numbers, so that it fails if the
engine or the content strays from the book. The worked examples are played elsewhere
(``test_stimmvieh_rules.py``, ``test_wahlspiel_rules.py``, ``test_spin_doctors.py``,
``test_spin_doctors_printed.py``, ``test_spin_doctors_actions.py``); this file adds the component
counts, setup amounts and round schedule of The Spin Doctors, Wahlspiel's voter examples 1 and 3
and its player counts, Stimmvieh's box, and a malformed-content check run the same way over every
game. A strict xfail marks where the loader accepts what the book or the standard refuses.
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


DUPLICATE_NAMED = [
    p if p.values[0] == "stimmvieh" else pytest.param(
        *p.values, id=p.id,
        marks=pytest.mark.xfail(strict=True, reason="the duplicate-id message names the list, not the repeated id"),
    )
    for p in MALFORMED
]


@pytest.mark.parametrize(("kind", "key"), DUPLICATE_NAMED)
def test_a_duplicate_id_message_names_the_repeated_id(kind: str, key: str) -> None:
    repeated = raw(kind)[key][0]["id"]
    assert repeated in refused(kind, lambda d: d[key][1].update(id=repeated))


@pytest.mark.xfail(strict=True, reason="the loader accepts an entry with a field it does not know")
@pytest.mark.parametrize(("kind", "key"), [p.values for p in MALFORMED], ids=[p.id for p in MALFORMED])
def test_an_unknown_field_is_refused_naming_the_entry(kind: str, key: str) -> None:
    """A misspelt member (``influnce`` for ``influence``) must not load as if it were absent."""
    message = refused(kind, lambda d: d[key][1].update(colour_of_hat="red"))
    assert "colour_of_hat" in message


@pytest.mark.xfail(strict=True, reason="two Staffers (or ready-made Staffs) with the same id load")
@pytest.mark.parametrize("key", ["staffers", "ready_made_staffs"])
def test_spin_doctors_duplicate_staffer_and_staff_ids_are_refused(key: str) -> None:
    assert "unique" in refused("spin_doctors", lambda d: d[key][1].update(id=d[key][0]["id"]))


@pytest.mark.xfail(strict=True, reason="Stimmvieh's influence_range is not validated: the rules hold 1..9 in code")
@pytest.mark.parametrize("change", [
    pytest.param(lambda d: d["influence_range"].pop("source"), id="missing-mark"),
    pytest.param(lambda d: d["influence_range"].update(max=4), id="the-contents-list-1..4"),
])
def test_stimmvieh_influence_range_is_validated(change: Callable[[dict[str, Any]], None]) -> None:
    """CONTENT.md: the cards use 1..9 (``influence_range``), kept with the rules; a file saying
    1..4 (the contents list's misprint) or an unmarked range must not load beside rules of 1..9."""
    assert "influence_range" in refused("stimmvieh", change)


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


@pytest.mark.xfail(strict=True, reason="CONTENT.md does not say what becomes of the printed 35 + 15 vote stones")
def test_wahlspiel_the_vote_stone_supply_is_recorded() -> None:
    """The box holds "35 light vote stones, each worth 1 vote" and "15 dark vote stones, each
    worth 5 votes" (110 votes), and the rulebook is silent on running out; the content document
    must say whether the supply limits votes (and what happens then) or is taken as unlimited."""
    text = (pathlib.Path(content_module("wahlspiel").__file__).parent / "CONTENT.md").read_text("utf-8")
    assert "vote stone" in text.lower() and ("35" in text and "15" in text)


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
