"""What one player can do to the others at its table with its own seat tokens, within every
per-client limit: each test plays the griefer against a real replica (real Redis, real gRPC,
real HTTP) and checks that the others' game, clocks and view of who is who stay theirs."""

from __future__ import annotations

import asyncio
import json
import pathlib
import shutil
import subprocess
import time

import pytest

from conftest import run
from hustings.client import HustingsError
from hustings.service import seats
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2
from rest_helpers import LiveRest
from service_helpers import replica_and_client


def test_leaving_mid_decision_does_not_spare_the_bank_the_time_used(redis_server: EmbeddedRedis) -> None:
    """On a chess clock (``bank_seconds``) the time a seat spends on a decision comes off its bank,
    so that the bank bounds how long the seat can hold the table over the whole game. A seat that
    spends time on a decision and then leaves has its bot make the decision, and the time used
    before the leave must come off the bank all the same; otherwise leave (and return) once per
    decision and each decision may take a whole bank, and the table waits without bound."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):
            table = game_pb2.TableSettings(bank_seconds=20, bot_seats=[1, 2])
            game_id = (await client.create_game("stimmvieh", 3, table=table)).game_id
            staller = await client.join(game_id, "Staller")
            view = await client.view(game_id, staller.token)
            for _ in range(100):  # until the bot seats have chosen their top candidates
                if list(view.to_act) == [0]:
                    break
                await asyncio.sleep(0.05)
                view = await client.view(game_id, staller.token)
            assert list(view.to_act) == [0] and view.seats[0].bank_ms == 20_000, "the staller alone owes a decision, bank full"
            held_s = 1.5
            began = time.monotonic()
            await asyncio.sleep(held_s)  # the table waits for the staller
            await client.leave(game_id, staller.token)
            for _ in range(100):  # until the staller's bot has made the decision
                view = await client.view(game_id, staller.token)
                if view.stimmvieh.parties[0].top_candidates_chosen:
                    break
                await asyncio.sleep(0.05)
            assert view.stimmvieh.parties[0].top_candidates_chosen, "the absent seat's bot made the decision"
            held_ms = int((time.monotonic() - began) * 1000)
            back = (await client.return_to_game(game_id, staller.token)).view
            assert back.seats[0].bank_ms <= 20_000 - int(held_s * 1000) + 100, (
                f"the table waited {held_ms} ms for the staller's decision, and its bank still holds"
                f" {back.seats[0].bank_ms} ms of 20000"
            )

    run(scenario(), 30)


def test_one_seats_leaves_and_returns_do_not_use_up_the_others_returns(
    redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Leaving and returning are bounded per game (MAX_ACTIVE_GAME_SEAT_CHANGES_UP_TO, 20,000
    steps; 60 here so that the test is short), and one seat owing nothing may spend the whole of
    it alone (one client at 300 calls a second: about 70 s). Then another player whose seat went
    absent meanwhile (it left for a moment, or its clock ran out twice) can never come back: its
    bot plays the rest of the game for it. One seat's changes must leave the others theirs."""
    monkeypatch.setattr(seats, "MAX_ACTIVE_GAME_SEAT_CHANGES_UP_TO", 60, raising=False)

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):
            game_id = (await client.create_game("wahlspiel", 3)).game_id
            players = [await client.join(game_id, name) for name in ("Ada", "Bo", "Griefer")]
            ada, griefer = players[0], players[2]
            await client.leave(game_id, ada.token)  # Ada steps away; her bot plays meanwhile
            for _ in range(60):  # two steps each: past the game's bound unless the griefer's own stops them
                try:
                    await client.leave(game_id, griefer.token)
                    await client.return_to_game(game_id, griefer.token)
                except HustingsError as error:
                    assert error.reason == "TOO_MANY_SEAT_CHANGES", error
                    break
            view = await client.view(game_id)
            assert view.status == game_pb2.GAME_STATUS_ACTIVE and view.seats[0].absent
            assert view.version >= seats.MAX_ACTIVE_GAME_SEAT_CHANGES_UP_TO, "the griefer took the game to the bound"
            try:
                back = (await client.return_to_game(game_id, ada.token)).view
            except HustingsError as error:
                pytest.fail(f"Ada cannot come back to her seat after another seat's leaves and returns: {error.reason}")
            assert not back.seats[0].absent

    run(scenario(), 60)


def test_a_display_name_may_not_pass_for_a_server_bot_through_letters_of_another_script(live: LiveRest) -> None:
    """A player may not sit under a server bot's name: "Bot (strong)" passed a player off as the
    server's bot, and is refused BAD_DISPLAY_NAME. With a Cyrillic o
    (U+043E) or a (U+0430) for the Latin one the name reads the same on every page and in the
    lobby, beside the real bot's, yet it is taken; the page adds "(bot)" only where the name
    does not already say so."""
    game_id = live.ok("POST", "/v1/games", {"kind": "stimmvieh", "options": {"players": 4}})["gameId"]
    live.ok("POST", f"/v1/games/{game_id}:addBot", {})
    seated = []
    for name in ("B\u043et (random)", "Bot (r\u0430ndom)", "\u0392ot (strong)"):  # Cyrillic o, Cyrillic a, Greek Beta
        answer = live.call("POST", f"/v1/games/{game_id}:join", {"displayName": name})
        if answer.status_code == 200:
            seated.append(ascii(name))
    view = live.ok("GET", f"/v1/games/{game_id}/view")["view"]
    shown = [(seat["displayName"], bool(seat.get("bot"))) for seat in view["seats"] if seat.get("taken")]
    assert not seated, f"players sat as {seated} beside the server's bot: {ascii(shown)}"


SEAT_LABELS = """
const { seatLabels } = await import(process.argv[2]);
console.log(JSON.stringify(seatLabels(JSON.parse(process.argv[3]))));
"""


def test_the_page_tells_apart_seats_whose_names_differ_only_in_letters_of_another_script(tmp_path: pathlib.Path) -> None:
    """The server seats two players under one name, and /play tells such seats apart by their
    numbers (``seatLabels`` in service/static/play/dom.js), "so that one player never passes for
    another". A name spelt with a Cyrillic A (U+0410) or a Greek Omicron (U+039F) for the Latin
    letter reads the same, yet gets no number: a newcomer sits as "\u0410da" beside Ada, and the
    table, the log and the coalition offers show two Adas with nothing to tell them apart."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is needed to check the /play modules")
    dom = pathlib.Path(__file__).resolve().parent.parent / "service" / "static" / "play" / "dom.js"
    seats = [{"displayName": "Ada"}, {"seat": 1, "displayName": "\u0410da"}, {"seat": 2, "displayName": "Otto"},
             {"seat": 3, "displayName": "\u039ftto"}, {"seat": 4, "displayName": "Cy"}]
    script = tmp_path / "labels.mjs"
    script.write_text(SEAT_LABELS)
    done = subprocess.run([node, str(script), dom.as_uri(), json.dumps(seats)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    labels = json.loads(done.stdout.strip().splitlines()[-1])
    assert labels == {"0": "Ada (seat 0)", "1": "\u0410da (seat 1)", "2": "Otto (seat 2)", "3": "\u039ftto (seat 3)", "4": "Cy"}, ascii(labels)


LOOKALIKES_OF_THE_PAGE = """
const { LOOKALIKES } = await import(process.argv[2]);
console.log(JSON.stringify(LOOKALIKES));
"""


def test_the_page_reads_look_alike_letters_as_the_server_does(tmp_path: pathlib.Path) -> None:
    """/play's table of letters that read as Latin ones is the server's (engine/names.py)."""
    from hustings.engine import names

    node = shutil.which("node")
    if node is None:
        pytest.fail("Node.js is needed to check the /play modules")
    dom = pathlib.Path(__file__).resolve().parent.parent / "service" / "static" / "play" / "dom.js"
    script = tmp_path / "lookalikes.mjs"
    script.write_text(LOOKALIKES_OF_THE_PAGE)
    done = subprocess.run([node, str(script), dom.as_uri()], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    page = json.loads(done.stdout.strip().splitlines()[-1])
    assert page == "".join(letter + latin for letter, latin in names.LOOKALIKES.items())
