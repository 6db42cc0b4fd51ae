"""How a player is shown to the others at a table: the name of a seat (JoinGame, TakeOverSeat) and
of a Wahlspiel party is in every seat's and spectator's view, log and lobby, so it may not draw
over the table nor pass its player off as someone else (``engine/names.py``).

- Marks stacked on one letter are capped whatever their combining class: a mark of class 0
  between them (U+034F COMBINING GRAPHEME JOINER, which shows nothing) no longer starts the count
  again, nor do Thai MAITAIKHU (U+0E47, class 0) pile up on one consonant. In /play such names
  drew a column of marks up over the table's summary, the seats and the log.
- A Wahlspiel party name (up to 60 characters, shown on the board, the parties and every
  coalition) is held to the same cap.
- A server bot's name is refused once folded (NFKC, case) without the characters that show
  nothing: "Bot (strong)" with a grapheme joiner or a variation selector added passed for the bot.
- Two players may sit at one table under one name (several copies of one bot commonly do): the
  page then shows each such seat with its number (tests/test_play_names.py).
"""

from __future__ import annotations

import unicodedata
from typing import Any, Iterator

import pytest

from rest_helpers import LiveRest

# Marks of combining class 0 between accents of class 230: each run of two passes the cap, the
# joiner (invisible) starts the count again, and all 24 accents stack over the Z.
JOINED_STACK = "Z" + "\u0301\u0301\u034f" * 12
# THAI CHARACTER MAITAIKHU has combining class 0: 38 of them on one consonant stack upwards.
THAI_STACK = "\u0e2a" + "\u0e47" * 38
# Names of people, each with marks on a letter as their scripts write them: they must stay names.
VIETNAMESE = unicodedata.normalize("NFD", "Nguyễn Thị Bệ")  # two marks of non-zero class on one letter
THAI = "\u0e2a\u0e21\u0e28\u0e31\u0e01\u0e14\u0e34\u0e4c"  # สมศักดิ์: a vowel and a sign on one letter
TIBETAN = "\u0f66\u0f92\u0fb2\u0f74\u0f56"  # སྒྲུབ: two subjoined letters and a vowel under one


@pytest.fixture(scope="module")
def live(redis_server: Any) -> Iterator[LiveRest]:
    """One replica for the module's tests, gRPC and REST, without a rate of calls per address."""
    with LiveRest(redis_server.url) as served:
        yield served


def _game(live: LiveRest, kind: str = "stimmvieh", players: int = 3, table: dict[str, Any] | None = None) -> str:
    body: dict[str, Any] = {"kind": kind, "options": {"players": players}}
    if table:
        body["table"] = table
    return str(live.ok("POST", "/v1/games", body)["gameId"])


def _refused(live: LiveRest, game_id: str, body: dict[str, Any]) -> tuple[int, str]:
    """(HTTP status, reason) of a JoinGame (200 and "" when it took a seat)."""
    answer = live.call("POST", f"/v1/games/{game_id}:join", body)
    if answer.status_code == 200:
        return 200, ""
    return answer.status_code, answer.json().get("details", [{}])[0].get("reason", "")


def _taken(live: LiveRest, game_id: str) -> list[str]:
    """The display names of the game's taken seats."""
    view = live.ok("GET", f"/v1/games/{game_id}/view")["view"]
    return [seat["displayName"] for seat in view["seats"] if seat.get("taken")]


def test_a_display_name_may_not_stack_marks_behind_marks_of_class_zero(live: LiveRest) -> None:
    game_id = _game(live)
    for name in (JOINED_STACK, THAI_STACK):
        assert _refused(live, game_id, {"displayName": name}) == (400, "BAD_DISPLAY_NAME"), ascii(name[:8])
    assert _taken(live, game_id) == []
    for name in (VIETNAMESE, THAI, TIBETAN):
        assert _refused(live, game_id, {"displayName": name}) == (200, ""), ascii(name)
    assert _taken(live, game_id) == [VIETNAMESE, THAI, TIBETAN]


def test_a_party_name_may_not_stack_marks(live: LiveRest) -> None:
    game_id = _game(live, "wahlspiel")
    stacked = "Fat Party" + "\u0336\u0334\u0335" * 10  # 30 marks on the y, 39 characters in all
    for party in (stacked, "Fat " + JOINED_STACK):
        assert _refused(live, game_id, {"displayName": "Ada", "partyName": party}) == (400, "BAD_PARTY_NAME"), ascii(party[:12])
    assert _taken(live, game_id) == []
    joined = live.ok("POST", f"/v1/games/{game_id}:join", {"displayName": "Ada", "partyName": "Partei " + VIETNAMESE})
    assert joined["view"]["wahlspiel"]["parties"][0]["name"] == "Partei " + VIETNAMESE


def test_a_display_name_may_not_pass_for_a_server_bot_through_an_invisible_character(live: LiveRest) -> None:
    game_id = _game(live)
    for name in ("Bot (strong)\u034f", "Bot\ufe0f (random)", "Bot (gr\u034feedy)"):
        assert _refused(live, game_id, {"displayName": name}) == (400, "BAD_DISPLAY_NAME"), ascii(name)
    assert _taken(live, game_id) == []


def test_a_name_must_show_something_and_may_carry_what_names_carry(live: LiveRest) -> None:
    """A name of fillers or blank patterns alone shows nothing, and is refused; an emoji with its
    variation selector, a keycap and a Burmese name (spacing marks beside non-spacing ones) sit."""
    game_id = _game(live, "wahlspiel", players=4)
    for name in ("\u3164", "\u3164\u3164 \u2800", "\u115f\u1160", "\u034f\ufe0f"):
        assert _refused(live, game_id, {"displayName": name}) == (400, "BAD_DISPLAY_NAME"), ascii(name)
    assert _refused(live, game_id, {"displayName": "Ada", "partyName": "\u3164\u3164"}) == (400, "BAD_PARTY_NAME")
    assert _taken(live, game_id) == []
    burmese = "\u1019\u103c\u1014\u103a\u1019\u102c"  # မြန်မာ
    for name in ("Ada \u2764\ufe0f", "1\ufe0f\u20e3 Bo", burmese):
        assert _refused(live, game_id, {"displayName": name}) == (200, ""), ascii(name)
    assert _taken(live, game_id) == ["Ada \u2764\ufe0f", "1\ufe0f\u20e3 Bo", burmese]


def test_the_same_name_twice_at_a_table_is_allowed(live: LiveRest) -> None:
    """Several copies of one bot commonly join a table under one name: the server seats them, and
    the page tells them apart by their seats' numbers."""
    game_id = _game(live)
    for _ in range(3):
        assert _refused(live, game_id, {"displayName": "Copy"}) == (200, "")
    assert _taken(live, game_id) == ["Copy", "Copy", "Copy"]


def test_a_word_may_not_mix_latin_letters_with_another_scripts_but_names_of_every_script_sit(live: LiveRest) -> None:
    """A word of Latin letters with one of another script passes for another name ("\u0410da" with a
    Cyrillic A beside Ada): refused. Words wholly of one script sit, and so do Japanese, Chinese
    and Korean names written with Latin letters beside their own, as that writing does."""
    game_id = _game(live, "wahlspiel", players=6)
    for name in ("\u0410da", "B\u043eb", "Z\u03bfe", "\u13aada", "\ua4d0ob", "Bo\u0585"):
        assert _refused(live, game_id, {"displayName": name}) == (400, "BAD_DISPLAY_NAME"), ascii(name)
    assert _taken(live, game_id) == []
    names = ["\u0412\u043b\u0430\u0434\u0438\u043c\u0438\u0440", "\u039d\u03af\u03ba\u03b7", "Tokyo\u6771\u4eac",
             "\u7530\u4e2d\u3055\u3093", "\uae40\ubbfcJun", "Zo\u00eb \u00c1d\u00e1m"]
    for name in names:  # Vladimir, Niki (Greek), Tokyo, Tanaka-san, Kim Min Jun, Zoë Ádám
        assert _refused(live, game_id, {"displayName": name}) == (200, ""), ascii(name)
    assert _taken(live, game_id) == names


def test_a_name_may_not_begin_as_a_bot_s_or_end_as_a_seat_number_however_written(live: LiveRest) -> None:
    """Read in its letters alone, a server bot's name is one ("Bot(random)", "B0t [rand0m].",
    "Bot (random) (seat 2)"), and a name may not end as the page's seat numbers do ("Ada (seat
    2)"): both passed for another seat. Names that only begin with "Bot" or hold "seat" sit."""
    game_id = _game(live, "wahlspiel", players=6)
    for name in ("Bot(random)", "B0t [rand0m].", "Bot ( strong )", "Bot (random) (seat 2)", "Ada (seat 2)", "Ada [Seat 12]!"):
        assert _refused(live, game_id, {"displayName": name}) == (400, "BAD_DISPLAY_NAME"), ascii(name)
    assert _taken(live, game_id) == []
    for name in ("Botany", "Bot", "Robot (strong)", "Seat 2 Ada"):
        assert _refused(live, game_id, {"displayName": name}) == (200, ""), ascii(name)
    assert _taken(live, game_id) == ["Botany", "Bot", "Robot (strong)", "Seat 2 Ada"]
