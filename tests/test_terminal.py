"""The terminal player: a whole Stimmvieh game typed through a pseudo-terminal, compact tables for
every game, events in words, and typed moves checked against the legal moves."""

from __future__ import annotations

import asyncio
import io
import random
import re

import pytest
from conftest import run, running_replica
from google.protobuf import text_format
from terminal_helpers import CLI, NUMBERED, TYPED_GROUP, PartsAnswerer, Transcript, first_value, menu_of, play_through_pty

from hustings.client import Client, Joined
from hustings.engine import Rng, get_game
from hustings.move_entry import AnswerError, Menu
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.tables import game_text
from hustings.terminal import TerminalPlayer, render, tell_entry
from hustings.v1 import game_pb2, stimmvieh_pb2, wahlspiel_pb2

SCREEN_LINES = 60  # a table, its header and "to act" fit on one screen
SCREEN_WIDTH = 120
SAMPLED_CHOICES = 12  # legal moves per view checked by the round trip (Spin Doctors lists hundreds)
REFUSALS = ("refused: ", "WRONG_PHASE", "ALREADY_CHOSEN", "NOT_YOUR_TURN", "STALE_VERSION", "Traceback")


# --- a whole Stimmvieh game through a pseudo-terminal -------------------------------------------
class StimmviehPlayer:
    """Types Stimmvieh moves as parts, with a few bad answers first to see them refused kindly."""

    BAD_CHOICES = ["6 7 8", "6 6 7 8", "6 7 8 10", "seven"]
    BAD_PLAY = "12 -"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.bad_choices = list(self.BAD_CHOICES)
        self.bad_play_left = 1

    def __call__(self, screen: str) -> str:
        menu = menu_of(screen)
        if "choose_top_candidates" in menu:
            if self.bad_choices:
                return self.bad_choices.pop(0)
            return " ".join(str(i) for i in reversed(sorted(self.rng.sample(range(1, 10), 4))))  # any order is fine
        if self.bad_play_left:
            self.bad_play_left -= 1
            return self.BAD_PLAY
        # A listed move by its parts ("7 D03"); a move of one part keeps its name ("play_politician 7"),
        # as a lone number would be read as a list number where the two could differ.
        options = [p if len(p.split()) == 2 else p.removeprefix("play_politician ") for _, p in NUMBERED.findall(menu)]
        for _kind, _fields, hint in TYPED_GROUP.findall(menu):
            for segment in hint.split(" | "):
                influence = first_value(segment)
                options += [f"{influence} {card}" for card in segment.rsplit(": ", 1)[1].split()]
        assert options, menu
        return self.rng.choice(options)


def _prompt_facts(out: Transcript, kind: str) -> list[tuple[int, int, int]]:
    """(prompt version, header version above it, newest version told before it) per prompt."""
    facts = []
    for version, at in out.prompts():
        before = out.text[:at]
        headers = re.findall(rf"^--- {kind} \S+ version (\d+) ---$", before, re.M)
        told = [int(v) for v in re.findall(r"^  v(\d+)  ", before, re.M)]
        facts.append((version, int(headers[-1]), max(told)))
    return facts


def _assert_only_latest_views(out: Transcript, kind: str) -> list[int]:
    """Each new prompt is on a newer version, the one its table shows, and the stream had told
    no newer step; a prompt repeats (same version) only after a bad answer. Returns the versions."""
    facts = _prompt_facts(out, kind)
    assert all(version == header == told for version, header, told in facts), facts
    versions = [v for v, _, _ in facts]
    assert all(a <= b for a, b in zip(versions, versions[1:])), versions
    repeats = sum(1 for a, b in zip(versions, versions[1:]) if a == b)
    assert repeats == len(re.findall(r"^  not a move: ", out.text, re.M))
    return versions


def test_play_stimmvieh_to_the_end_with_typed_parts_and_never_on_a_stale_view() -> None:
    out = play_through_pty([*CLI, "play", "--players", "3", "--name", "Ada"], StimmviehPlayer(random.Random(7)))
    assert out.returncode == 0, out.text[-3000:] + out.stderr[-2000:]
    assert "Game over." in out.text and "seed " in out.text
    for word in REFUSALS:
        assert word not in out.text, word
    # Bad answers are explained and asked again on the same view; good ones are typed parts.
    refusals = re.findall(r"^  not a move: (.*)$", out.text, re.M)
    assert len(refusals) == len(StimmviehPlayer.BAD_CHOICES) + 1, refusals
    assert refusals[0] == "choose 4 influences; you typed 3"
    assert refusals[1] == "each influence may be chosen only once"
    assert refusals[2].startswith("'10' is not a possible influence now; possible: 1, 2, 3")
    assert refusals[3].startswith("'seven' is not a possible influence now")
    assert refusals[4].startswith("'12' is not a possible influence now")
    picked_from_a_list = [a for a in out.answers if re.fullmatch(r"\[?\d+\]?", a)]
    assert not picked_from_a_list and re.fullmatch(r"\d \d \d \d", out.answers[4]), out.answers
    # Never on a stale view.
    versions = _assert_only_latest_views(out, "stimmvieh")
    distinct = sorted(set(versions))
    assert len(distinct) >= 9 + 1  # nine politicians of one's own party after one choice
    choices = [v for v, at in out.prompts() if "choose_top_candidates" in menu_of(out.text[:at])]
    assert len(set(choices)) == 1  # the simultaneous choice is asked once, never again from queued updates
    # The others' moves are told in words, with their names.
    assert re.search(r"^  v\d+  Free Pasture Party \(Bot 1\) played politician \d", out.text, re.M)
    assert re.search(r"^  v\d+  .*\(Bot 2\) chose top candidates \(face down\)$", out.text, re.M)
    assert re.search(r"^  v\d+  Top candidates revealed: ", out.text, re.M)


def test_play_spin_doctors_to_the_end_in_the_terminal() -> None:
    argv = [*CLI, "play", "--kind", "spin_doctors", "--players", "3", "--name", "Ada"]
    out = play_through_pty(argv, PartsAnswerer(random.Random(11)), max_answers=1500)
    assert out.returncode == 0, out.text[-3000:] + out.stderr[-2000:]
    assert "Game over." in out.text
    for word in REFUSALS:
        assert word not in out.text, word
    _assert_only_latest_views(out, "spin_doctors")
    screens = [screen.split("Your legal moves")[0] for screen in out.text.split("--- spin_doctors ")[1:]]
    assert max(len(screen.splitlines()) for screen in screens) <= SCREEN_LINES
    assert re.search(r"^  v\d+  Bot 1 played (a Staffer|Candidate) on ", out.text, re.M)


def test_no_second_prompt_from_updates_queued_during_a_simultaneous_choice(redis_server: EmbeddedRedis) -> None:
    """The others choose while this seat's prompt waits; their updates queue up behind it. After
    answering, the player must not prompt again on those queued views (the choice is made)."""

    async def main() -> None:
        async with running_replica(redis_server.url) as replica:
            address = f"127.0.0.1:{replica.port}"  # type: ignore[attr-defined]
            async with Client(address) as client:
                created = await client.create_game("stimmvieh", 3)
                me, bo, cy = [await client.join(created.game_id, name) for name in ("Ada", "Bo", "Cy")]
                screen = io.StringIO()
                prompts: list[str] = []

                async def ask(prompt: str) -> str | None:
                    prompts.append(prompt)
                    if len(prompts) == 1:
                        for other in (bo, cy):  # both choose while Ada is still thinking
                            await client.move(created.game_id, other.token, (await client.view(created.game_id, other.token)).legal_moves[0])
                        await asyncio.sleep(0.3)  # their updates reach Ada's stream and wait in its queue
                        return "9 8 7 6"
                    return None  # leave at the next prompt

                player = TerminalPlayer(client, me, "Ada", screen, ask)
                leave = asyncio.create_task(_leave_when_the_campaign_needs_the_others(client, created.game_id, me, bo, cy))
                try:
                    assert await asyncio.wait_for(player.run(), 60) == 0
                finally:
                    leave.cancel()
                text = screen.getvalue()
                assert "refused: " not in text and "not a move" not in text, text
                assert len(prompts) == 2, prompts
                first, second = (int(re.search(r"version (\d+)", p).group(1)) for p in prompts)  # type: ignore[union-attr]
                assert first == 4 and second >= 7  # 5, 6: the others' choices; 7: Ada's
                second_menu = text[text.rfind("Your legal moves") :]
                assert "play_politician" in second_menu and "choose_top_candidates" not in second_menu
                assert re.search(r"^  v5  .*\(Bo\) chose top candidates \(face down\)$", text, re.M)

    run(main())


async def _leave_when_the_campaign_needs_the_others(client: Client, game_id: str, *seats: Joined) -> None:
    """Plays Bo's and Cy's campaign turns (first legal move) so that Ada's turn comes, bounded."""
    for _ in range(200):
        view = await client.view(game_id)
        acting = [s for s in seats[1:] if s.seat in view.to_act]
        phase_choosing = view.stimmvieh.phase == stimmvieh_pb2.STIMMVIEH_PHASE_CHOOSING_TOP_CANDIDATES
        if acting and not phase_choosing:
            mine = await client.view(game_id, acting[0].token)
            if mine.legal_moves:
                await client.move(game_id, acting[0].token, mine.legal_moves[0])
                continue
        await asyncio.sleep(0.05)


# --- tables and words for every game ------------------------------------------------------------
async def _game_midway(address: str, kind: str, players: int, moves: int, seed: int) -> tuple[Client, list[Joined]]:
    """A game of ``kind`` played ``moves`` random legal steps in, seats named Ada, Bo, Cy…"""
    client = Client(address)
    created = await client.create_game(kind, players, seed=f"{seed:064x}")  # the same game every run
    names = ["Ada", "Bo", "Cy", "Di", "Ed", "Flo"]
    seats = [await client.join(created.game_id, names[i]) for i in range(players)]
    rng = random.Random(seed)
    for _ in range(moves):
        view = await client.view(created.game_id)
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            break
        seat = rng.choice(list(view.to_act))
        mine = await client.view(created.game_id, seats[seat].token)
        await client.move(created.game_id, seats[seat].token, rng.choice(list(mine.legal_moves)))
    return client, seats


def _check_screen(view: game_pb2.GameView) -> str:
    screen = render(view)
    lines = screen.splitlines()
    assert len(lines) <= SCREEN_LINES, screen
    assert max(len(line) for line in lines) <= SCREEN_WIDTH, screen
    dump = text_format.MessageToString(getattr(view, view.WhichOneof("game") or "")).splitlines()
    assert len(lines) * 4 < len(dump)  # the protobuf dump it replaces is many screens long
    return screen


@pytest.mark.parametrize("players,moves", [(3, 60), (6, 90)])
def test_wahlspiel_table_is_a_screenful_with_the_key_facts(redis_server: EmbeddedRedis, players: int, moves: int) -> None:
    async def main() -> None:
        async with running_replica(redis_server.url) as replica:
            client, seats = await _game_midway(f"127.0.0.1:{replica.port}", "wahlspiel", players, moves, seed=players)  # type: ignore[attr-defined]
            async with client:
                view = await client.view(seats[0].game_id, seats[0].token)
                screen = _check_screen(view)
                w = view.wahlspiel
                assert f"Round {w.round} (" in screen
                for party in w.parties:
                    assert party.name in screen and f"{party.money} francs" in screen
                for candidate in w.candidates:
                    assert candidate.name in screen
                    assert re.search(rf"{candidate.votes} {'vote ' if candidate.votes == 1 else 'votes'}  {candidate.politician_id} ", screen)
                mine = w.parties[0]
                for card in list(mine.voters) + list(mine.events):
                    assert card.card_id in screen
                for other in w.parties[1:]:  # the others' hands stay theirs
                    assert other.voter_count == 0 or "Your voters" not in screen or other.name not in screen.split("Your voters")[1]
                _check_words(await client.history(seats[0].game_id, seats[0].token), view)

    run(main())


@pytest.mark.parametrize("players,moves", [(3, 120), (5, 200)])
def test_spin_doctors_table_is_a_screenful_with_the_key_facts(redis_server: EmbeddedRedis, players: int, moves: int) -> None:
    async def main() -> None:
        async with running_replica(redis_server.url) as replica:
            client, seats = await _game_midway(f"127.0.0.1:{replica.port}", "spin_doctors", players, moves, seed=players)  # type: ignore[attr-defined]
            async with client:
                view = await client.view(seats[0].game_id, seats[0].token)
                screen = _check_screen(view)
                s = view.spin_doctors
                assert f"Round {s.round}, " in screen
                for name in ["Szczecin", "Katowice", "Young Voters", "Iron Electorate"]:
                    assert name in screen
                for player in s.players:
                    assert f"budget {player.budget}, supply {player.supply}" in screen
                staff = list(s.players[0].staff)
                assert staff and "Candidate" in screen  # the viewer's own Staff by name
                for locality in s.localities:
                    assert locality.turnout_card in screen and locality.topic_card in screen
                _check_words(await client.history(seats[0].game_id, seats[0].token), view)

    run(main())


def test_stimmvieh_table_and_words(redis_server: EmbeddedRedis) -> None:
    async def main() -> None:
        async with running_replica(redis_server.url) as replica:
            client, seats = await _game_midway(f"127.0.0.1:{replica.port}", "stimmvieh", 4, 20, seed=4)  # type: ignore[attr-defined]
            async with client:
                view = await client.view(seats[0].game_id, seats[0].token)
                screen = _check_screen(view)
                for party in view.stimmvieh.parties:
                    assert party.name in screen
                assert str(list(view.stimmvieh.parties[0].backbenchers)) in screen
                played = [list(p.played) for p in view.stimmvieh.parties if p.played]
                assert played and all(f"played {p}" in screen for p in played)  # public: each party's plays
                _check_words(await client.history(seats[0].game_id, seats[0].token), view)

    run(main())


def _check_words(history: list[game_pb2.HistoryEntry], view: game_pb2.GameView) -> None:
    """Every step of the history is told in sentences that name players, never a raw proto."""
    told = [line for entry in history for line in tell_entry(entry, view)]
    events = sum(len(entry.events) or entry.HasField("seat") for entry in history)  # a step without events gets a line
    assert len(told) == events, (len(told), events)
    tell = game_text(view).tell
    untold = {str(e).split("{")[0] for entry in history for e in entry.events if e.WhichOneof("body") == view.kind and tell(e, view) is None}
    assert not untold  # every kind of event met has its own sentence, not the field-by-field fallback
    text = "\n".join(told)
    assert "Bo" in text and ("You" in text or "you" in text)
    assert "{" not in text and "None" not in text and "seat_taken" not in text


# --- typed moves ----------------------------------------------------------------------------------
def _legal_moves(kind: str, players: int, steps: int, seed: int) -> list[game_pb2.Move]:
    """The legal moves of the first seat to act after ``steps`` random steps of an engine game."""
    game = get_game(kind)
    assert game is not None
    rng, chooser = Rng(b"typed%d" % seed), random.Random(seed)
    state = game.setup(game.options_from_proto(game_pb2.GameOptions(players=players)), rng)
    for _ in range(steps):
        if game.is_over(state):
            return []
        seat = chooser.choice(sorted(game.to_act(state)))
        state, _ = game.apply(state, seat, chooser.choice(game.legal_moves(state, seat)), rng)
    if game.is_over(state):
        return []
    seat = min(game.to_act(state))
    moves = []
    for move in game.legal_moves(state, seat):
        out = game_pb2.Move()
        game.move_to_proto(move, out)
        moves.append(out)
    return moves


def test_stimmvieh_top_candidates_are_typed_as_four_parts() -> None:
    moves = _legal_moves("stimmvieh", 4, 0, 1)
    menu = Menu(moves)
    assert len(moves) == 126 and not menu.numbered  # no numbered list of every combination
    assert "\n".join(menu.lines()).count("\n") < 3
    for typed in ["6 7 8 9", "9 8 7 6", "6,7,8,9", "choose_top_candidates 6 7 8 9", "choose 9 6 8 7"]:
        assert list(menu.parse(typed).stimmvieh.choose_top_candidates.influences) == [6, 7, 8, 9], typed
    bad = {
        "": "type a move",
        "6 7 8": "choose 4 influences; you typed 3",
        "6 7 8 9 1": "choose 4 influences; you typed 5",
        "6 6 7 8": "each influence may be chosen only once",
        "0 7 8 9": "'0' is not a possible influence now; possible: 1, 2, 3, 4, 5, 6, 7, 8, 9",
        "a b c d": "'a' is not a possible influence",
        "play_politician 7": "'play_politician' is not a possible influence",
        "[2]": "there is no move [2]: no move is numbered here; type a move's parts as shown",
    }
    for typed, message in bad.items():
        with pytest.raises(AnswerError) as error:
            menu.parse(typed)
        assert str(error.value).startswith(message), (typed, str(error.value))


def test_stimmvieh_play_politician_parts_and_numbers() -> None:
    moves = _legal_moves("stimmvieh", 4, 4, 2)  # everyone chose; the campaign is on
    menu = Menu(moves)
    plays = [(m.stimmvieh.play_politician.influence, m.stimmvieh.play_politician.take_card_id) for m in moves]
    influence, card = plays[-1]
    assert menu.parse(f"{influence} {card}") == moves[-1]
    assert menu.parse(f"{influence} {card.lower()}") == moves[-1]  # ids in any case
    if menu.numbered:
        assert menu.parse("1") == menu.numbered[0].move
        with pytest.raises(AnswerError, match=r"there is no move \[99\]; the numbers go from 1 to"):
            menu.parse("99")
    cards_of = {i: {c for j, c in plays if j == i} for i, _ in plays}
    other = next((c for i, cs in cards_of.items() for c in cs if c and c not in cards_of[influence]), None)
    if other is not None:  # a card another politician may take, but not this one
        with pytest.raises(AnswerError, match=rf"not legal now; with that influence: play_politician {influence} "):
            menu.parse(f"{influence} {other}")
    with pytest.raises(AnswerError, match=r"takes 2 part\(s\) \(influence, take card\); you typed 3"):
        menu.parse(f"{influence} {card} {card}")
    # A legal influence without its card: the card is what is missing, not a legal influence.
    with pytest.raises(AnswerError, match=rf"play_politician with influence {influence} needs its take card too: play_politician {influence} "):
        menu.parse(f"play_politician {influence}")


def test_several_kinds_of_move_need_the_kind_and_small_ones_are_numbered() -> None:
    # The Spin Doctors lists Budget handovers beside the decision owed; Wahlspiel mixes kinds too.
    candidates = [("spin_doctors", 3, steps) for steps in range(0, 60, 3)] + [("wahlspiel", 3, steps) for steps in range(0, 400, 7)]
    for kind, players, steps in candidates:
        moves = _legal_moves(kind, players, steps, 3)
        if not moves:
            continue
        menu = Menu(moves)
        if len(menu.groups) > 1 and menu.typed:
            break
    else:
        pytest.fail("no view with several kinds of move and a large one")
    kinds = [g.kind for g in menu.groups]
    with pytest.raises(AnswerError, match="is not a move here; start with one of: " + re.escape(", ".join(kinds))):
        menu.parse("bogus 1 2")
    large = menu.typed[0]
    choice = large.choices[len(large.choices) // 2]
    assert menu.parse(menu.typed_parts(choice)) == choice.move
    # Its parts alone, as the menu's example shows them, make that move when no other kind fits.
    parts = menu.typed_parts(choice).split(" ", 1)[1]
    others = [g for g in menu.groups if g is not large]
    if not any(_fits(menu, g, parts) for g in others):
        assert menu.parse(parts) == choice.move
    lines = menu.lines()
    assert any(line.startswith(f"  {large.kind} ") for line in lines)
    assert all(len(line) <= 420 for line in lines)


@pytest.mark.parametrize("kind,players", [("stimmvieh", 3), ("wahlspiel", 4), ("spin_doctors", 3)])
def test_every_legal_move_round_trips_through_its_typed_parts(kind: str, players: int) -> None:
    """parse(typed_parts(move)) == move, for every legal move of seats along random games."""
    game = get_game(kind)
    assert game is not None
    rng, chooser = Rng(b"round-trip"), random.Random(5)
    state = game.setup(game.options_from_proto(game_pb2.GameOptions(players=players)), rng)
    checked = 0
    for _ in range(300):
        if game.is_over(state):
            break
        for seat in sorted(game.to_act(state)):
            moves = []
            for move in game.legal_moves(state, seat):
                out = game_pb2.Move()
                game.move_to_proto(move, out)
                moves.append(out)
            menu = Menu(moves)
            choices = [choice for group in menu.groups for choice in group.choices]
            for choice in chooser.sample(choices, min(len(choices), SAMPLED_CHOICES)):
                assert menu.parse(menu.typed_parts(choice)) == choice.move, menu.typed_parts(choice)
                checked += 1
            for number, choice in enumerate(menu.numbered, 1):
                assert menu.parse(f"[{number}]") == choice.move
                try:  # a lone number is the listed move, unless it could also be a move's one part
                    assert menu.parse(str(number)) == choice.move
                except AnswerError as error:
                    assert str(error).startswith(f"{number} may mean move [{number}] ("), str(error)
        seat = chooser.choice(sorted(game.to_act(state)))
        state, _ = game.apply(state, seat, chooser.choice(game.legal_moves(state, seat)), rng)
    assert checked > 200


def test_seat_changes_are_told_with_the_name() -> None:
    entry = game_pb2.HistoryEntry(version=9)
    for change in game_pb2.SeatChanged.Change.values()[1:]:
        event = entry.events.add()
        event.seat_changed.seat, event.seat_changed.change, event.seat_changed.display_name = 2, change, "Bo"
    lines = tell_entry(entry, game_pb2.GameView())
    assert len(lines) == len(game_pb2.SeatChanged.Change.values()) - 1
    assert all(line.startswith("  v9  Bo") for line in lines) and len(set(lines)) == len(lines), lines


def test_a_step_without_events_is_still_told() -> None:
    view = game_pb2.GameView(seats=[game_pb2.Seat(seat=1, display_name="Bo", taken=True)])
    passed = game_pb2.HistoryEntry(version=9, seat=1)
    getattr(passed.move.wahlspiel, "pass").SetInParent()
    secret = game_pb2.HistoryEntry(version=10, seat=1)  # the move is not shown to this seat
    assert tell_entry(passed, view) == ["  v9  Bo: pass"]
    assert tell_entry(secret, view) == ["  v10  Bo made a secret choice"]


def test_a_wahlspiel_offer_is_told_as_its_bundle() -> None:
    """Coalition offers are bundles: the terminal tells every card, count and franc of one."""
    from hustings.table_wahlspiel import _offer
    from hustings.v1 import wahlspiel_pb2

    offer = wahlspiel_pb2.WahlspielOffer(give_money=2000, ask_voter_count=2, ask_money=1000)
    offer.give_cards.add(card_id="V012")
    offer.give_cards.add(card_id="E044")
    assert _offer(offer) == "V012, E044, 2000 francs for 2 voter cards, 1000 francs"
    hidden = wahlspiel_pb2.WahlspielOffer(give_voter_count=1, give_event_count=3, ask_event_count=1)
    assert _offer(hidden) == "1 voter card, 3 event cards for 1 event card"
    assert _offer(wahlspiel_pb2.WahlspielOffer()) == "nothing for nothing"


def test_a_hidden_wahlspiel_verdict_is_told_as_given_not_as_a_no() -> None:
    """While a show of hands is open the other seats get a verdict without its candidate: the
    terminal says a verdict was given, and tells a shown one in full."""
    from hustings.table_wahlspiel import tell as tell_wahlspiel

    view = game_pb2.GameView(kind="wahlspiel")
    for seat in range(3):
        view.seats.add(seat=seat, display_name=f"Player {seat}", taken=True)
    hidden = game_pb2.Event()
    hidden.wahlspiel.judged.judge = 1
    assert tell_wahlspiel(hidden, view) == "Player 1 has given a verdict"
    shown = game_pb2.Event()
    shown.wahlspiel.judged.CopyFrom(wahlspiel_pb2.WahlspielVerdict(judge=1, politician_id="P01", verdict=True))
    told = tell_wahlspiel(shown, view)
    assert told is not None and told.startswith("Player 1 judged ") and told.endswith(": yes")


def test_a_player_who_answers_nothing_but_bad_moves_leaves_after_max_answers(
    redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README: "A bad answer is explained and asked again (a thousand times at most; then it
    leaves)". With the bound at 5: five answers that are no move are each explained, then the
    player is told it leaves, and is asked nothing more (it left silently before)."""
    from hustings import terminal

    assert terminal.MAX_ANSWERS == 1_000
    monkeypatch.setattr(terminal, "MAX_ANSWERS", 5)

    async def main() -> None:
        async with running_replica(redis_server.url) as replica:
            async with Client(f"127.0.0.1:{replica.port}") as client:  # type: ignore[attr-defined]
                created = await client.create_game("stimmvieh", 3)
                me = await client.join(created.game_id, "Ada")
                for name in ("Bo", "Cy"):
                    await client.join(created.game_id, name)
                screen = io.StringIO()
                prompts: list[str] = []

                async def ask(prompt: str) -> str | None:
                    prompts.append(prompt)
                    return "no such move" if len(prompts) <= 10 else None

                player = TerminalPlayer(client, me, "Ada", screen, ask)
                await asyncio.wait_for(player.run(), 60)
                text = screen.getvalue()
                assert len(prompts) == 5, prompts
                assert text.count("not a move") == 5, text
                assert "5 answers that were not moves: leaving the game" in text, text

    run(main())


def test_counts_in_a_typed_group_are_listed_by_value() -> None:
    """Wahlspiel's purchases of 0 to 14 voters were listed as text, "0, 1, 10, 11, ..., 2, 3"."""
    moves = []
    for count in range(15):
        move = game_pb2.Move()
        move.wahlspiel.buy_voters.count = count
        moves.append(move)
    assert Menu(moves).lines()[1].strip() == "count: " + ", ".join(str(n) for n in range(15))


def _fits(menu: Menu, group: Any, parts: str) -> bool:
    """Whether ``parts`` make a move of ``group`` of ``menu``."""
    try:
        menu._match(group, parts.split())
    except AnswerError:
        return False
    return True


def test_spin_doctors_staff_parts_alone_choose_the_staff() -> None:
    """`hustings play`'s menu shows a Staff as its parts ("e.g. 7 8 9 10 11 12") beside the
    hand-overs; typed so, without the move's name, they choose that Staff (they were refused
    "not a move here")."""
    moves = _legal_moves("spin_doctors", 3, 0, 3)
    menu = Menu(moves)
    assert {g.kind for g in menu.groups} >= {"choose_staff", "hand_budget"}
    staff = next(g for g in menu.groups if g.kind == "choose_staff")
    choice = staff.choices[7]
    parts = menu.typed_parts(choice).removeprefix("choose_staff ")
    assert menu.parse(parts) == choice.move
    with pytest.raises(AnswerError, match="is not a move here"):
        menu.parse("bogus 1 2")
