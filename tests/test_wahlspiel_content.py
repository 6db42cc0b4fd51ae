"""The Wahlspiel content data: counts, sources, the printed facts, and validation that bites."""

from __future__ import annotations

import copy
import json
from importlib import resources
from typing import Any, Callable

import pytest

from hustings.engine.wahlspiel.content import CONTENT, ContentError, parse_content

RAW: dict[str, Any] = json.loads(resources.files("hustings.engine.wahlspiel").joinpath("content.json").read_text("utf-8"))


def test_the_box_holds_the_printed_numbers_of_cards() -> None:
    assert (len(CONTENT.politicians), len(CONTENT.voters), len(CONTENT.events)) == (45, 125, 90)
    assert (CONTENT.start_money, CONTENT.start_money_three_players) == (6000, 10000)
    assert (CONTENT.voter_price, CONTENT.event_price) == (1000, 2000)
    assert [(e.seats, e.pay) for e in CONTENT.elections] == [(5, 5000), (3, 8000), (1, 0)]


def test_every_entry_says_where_it_comes_from() -> None:
    for key in ("symbols", "traits", "occupations", "board", "politicians", "voters", "events", "parties", "elections"):
        assert all(entry["source"] in ("printed", "derived", "designed") for entry in RAW[key]), key
    printed_voters = {v["text"] for v in RAW["voters"] if v["source"] == "printed"}
    assert {"votes for more objectivity", "votes for art and homeland", "votes for smokers",
            "votes for men who radiate authority"} <= printed_voters


def test_the_printed_symbols_and_examples_are_there() -> None:
    assert {"objectivity", "art", "homeland"} <= set(CONTENT.symbols)
    assert all(len(p.symbols) == 5 for p in CONTENT.politicians.values())
    tanner = next(p for p in CONTENT.politicians.values() if p.name == "Ernst Tanner")
    assert "smoker" not in tanner.traits  # "my Ernst Tanner smokes secretly" is to be excluded
    kinds = {v.condition.symbols and "symbol" or v.opinion and "opinion" or "trait" for v in CONTENT.voters.values()}
    assert kinds == {"symbol", "trait", "opinion"}
    assert any(len(v.condition.symbols) == 2 for v in CONTENT.voters.values())
    events = CONTENT.events.values()
    assert any(e.halve for e in events) and any(e.count == 2 for e in events) and any(e.money < 0 for e in events)
    assert any(e.money > 0 for e in events) and any(e.votes < 0 for e in events) and any(e.votes > 0 for e in events)


def test_the_board_runs_from_start_through_the_three_goals() -> None:
    kinds = [f.kind for f in CONTENT.board]
    assert kinds[0] == "start" and kinds[-1] == "bundesrat"
    assert [kinds[i] for i in CONTENT.goal_positions] == ["kantonsrat", "nationalrat", "bundesrat"]
    prizes = {(f.prize_voters, f.prize_events) for f in CONTENT.board if f.kind == "prize"}
    assert prizes <= {(1, 0), (2, 0), (0, 1)}  # printed: 1 event or 1-2 voters


def _broken(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    data = copy.deepcopy(RAW)
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["politicians"].pop(), "politicians: expected 45"),
        (lambda d: d["voters"][0].update(source="guessed"), "source must be one of"),
        (lambda d: d["politicians"][0].update(symbols=["art", "homeland"]), "exactly 5 interest symbols"),
        (lambda d: d["voters"][0].update(condition={"symbols": ["weather"]}), "symbols"),
        (lambda d: d["events"][0].update(target="everyone"), "target must be one of"),
        (lambda d: d["board"].pop(), "BUNDESRAT last"),
        (lambda d: d["board"].__setitem__(3, {"kind": "prize", "prize_voters": 3, "source": "designed"}), "prize_voters"),
        (lambda d: d["symbols"].pop(0), "objectivity"),
    ],
)
def test_broken_content_is_refused_with_a_clear_message(change: Callable[[dict[str, Any]], None], message: str) -> None:
    with pytest.raises(ContentError, match=message):
        parse_content(_broken(change))
