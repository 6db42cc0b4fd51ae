"""`hustings verify` accepts every honest game, whatever its table went through.

Real games on a real replica (gRPC, the session's Redis), every kind at every player count it
allows, each with a variant where it has one, and the table's whole lifecycle: a seat left while
the game is open and taken again (in Wahlspiel by a party with another name and colour, after the
first had chosen theirs), server bots of every level added from the lobby, a seat that leaves
mid-game and returns, a bot's seat taken over, a seat whose time runs out (the clock is held and
moved on by the test, never slept through), a seat that never answers and turns absent, The Spin
Doctors' side moves made by seats that do not owe a decision, and the table's next game
(PlayAgain). The finished game is verified as a spectator and as every seat that has a token,
each with its own view and its own history, and once per kind through the `hustings verify`
command in a process of its own with the commitment kept from the creator's first answer.
"""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import Iterator

import pytest

from conftest import HeldClock, run
from hustings.client import Client, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2, spin_doctors_pb2, wahlspiel_pb2
from hustings.verify import verify_log
from service_helpers import replica_and_client, stimmvieh_options

CLI = [sys.executable, "-m", "hustings.cli"]
DECISION_S = 60
MAX_ROUNDS = 6000  # the driver's look-and-move rounds in one game
GAME_BOUND_S = 60.0
LEVELS = ("random", "greedy", "strong")
# Steps (counted in the driver's own moves) at which the table's lifecycle happens mid-game.
LEAVE_AT, TIMEOUT_AT, TAKEOVER_AT = 1, 4, 5
RETURN_AFTER = 3  # steps of the game after seat 0 left


def _options(kind: str, players: int, variant: dict[str, object]) -> game_pb2.GameOptions:
    if kind == "stimmvieh":
        custom = variant.pop("custom", None)
        options = stimmvieh_options(players, **variant)
        if custom:
            options.stimmvieh.custom_vote_card.slogan = "Ja!"
            options.stimmvieh.custom_vote_card.replaces_card_id = str(custom)
        return options
    options = game_pb2.GameOptions(players=players)
    if kind == "wahlspiel":
        options.wahlspiel.CopyFrom(wahlspiel_pb2.WahlspielOptions(**variant))  # type: ignore[arg-type]
    else:
        options.spin_doctors.CopyFrom(spin_doctors_pb2.SpinDoctorsOptions(**variant))  # type: ignore[arg-type]
    return options


# (kind, players, variant): every player count each kind allows.
TABLES = [
    ("stimmvieh", 3, {"campaigns": 2, "custom": "V03"}),
    ("stimmvieh", 4, {"moderator": True, "moderator_seat": 1}),
    ("wahlspiel", 2, {"gnomes": True}),
    ("wahlspiel", 3, {}),
    ("wahlspiel", 4, {"gnomes": True}),
    ("wahlspiel", 5, {"single_national_candidate": True}),
    ("wahlspiel", 6, {"gnomes": True, "single_national_candidate": True}),
    ("spin_doctors", 3, {"scandals_set_aside": True}),
    ("spin_doctors", 4, {}),
    ("spin_doctors", 5, {"scandals_set_aside": True}),
]


@dataclass
class Table:
    """One game as the test plays it: who holds which seat's token, and what happened."""

    game_id: str
    commitment: str
    tokens: dict[int, str]  # the seats the test plays (their current tokens)
    silent: int | None  # a seat that joined and never answers
    bots: list[int]
    done: set[str] = field(default_factory=set)  # lifecycle features that happened


async def _wait_for(client: Client, game_id: str, predicate, bound_s: float = 15.0) -> game_pb2.GameView:  # type: ignore[no-untyped-def]
    """The spectator's view once ``predicate`` holds of it (bounded polling)."""
    deadline = time.monotonic() + bound_s
    for _ in range(int(bound_s / 0.02) + 1):
        view = await client.view(game_id)
        if predicate(view) or time.monotonic() > deadline:
            return view
        await asyncio.sleep(0.02)
    return view


async def _seat_the_table(client: Client, kind: str, players: int, variant: dict[str, object]) -> Table:
    """Create the game and fill it: a seat taken, left while open and taken again; bots of each
    level from the lobby; a seat that will never answer (four players and more)."""
    settings = game_pb2.TableSettings(decision_seconds=DECISION_S, absent_after_timeouts=2, allow_takeover=True, bot_level="random")
    created = await client.create_game(kind, players, _options(kind, players, dict(variant)), table=settings)
    game_id, commitment = created.game_id, created.view.seed_commitment
    party = {"party_name": "Party of the Lakes", "party_colour": "blue"} if kind == "wahlspiel" else {}
    ada = await client.join(game_id, "Ada", seat=0, **party)  # type: ignore[arg-type]
    tokens = {0: ada.token}
    done = {"names and colours at join"} if party else set()
    # Seat 1 is taken, freed while the game is open and taken again by another (another party).
    if players >= 3:
        bo = await client.join(game_id, "Bo", seat=1, **({"party_name": "Mountain List", "party_colour": "green"} if party else {}))  # type: ignore[arg-type]
        await client.leave(game_id, bo.token)
        cy_party = {"party_name": "Mountain List", "party_colour": "red"} if party else {}
        tokens[1] = (await client.join(game_id, "Cy", seat=1, **cy_party)).token  # type: ignore[arg-type]
        done.add("open seat left and taken again")
    else:  # the one player left the open game and took a seat again
        await client.leave(game_id, ada.token)
        tokens[0] = (await client.join(game_id, "Ada", seat=0, party_name="Party of the Lakes", party_colour="black")).token
        done.add("open seat left and taken again")
    first_bot = 2 if players >= 3 else 1
    silent = players - 1 if players >= 4 else None
    bots = [seat for seat in range(first_bot, players) if seat != silent]
    for index, seat in enumerate(bots):
        await client.add_bot(game_id, seat=seat, level=LEVELS[index % len(LEVELS)])
        done.add(f"AddBot {LEVELS[index % len(LEVELS)]}")
    if silent is not None:
        await client.join(game_id, "Eve", seat=silent)
    return Table(game_id, commitment, tokens, silent, bots, done)


async def _play(replica, clock: HeldClock, client: Client, table: Table, rng: random.Random) -> game_pb2.GameView:  # type: ignore[no-untyped-def]
    """Random legal moves for the seats the test holds, the table's mid-game lifecycle at its
    steps, the held clock moved on when only the silent seat owes a decision, until the end."""
    game_id = table.game_id
    moves = 0
    left_at: int | None = None  # the version at which seat 0 left mid-game
    deadline = time.monotonic() + GAME_BOUND_S
    for _round in range(MAX_ROUNDS):
        assert time.monotonic() < deadline, f"game {game_id} did not end in {GAME_BOUND_S} s"
        view = await client.view(game_id)
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            return view
        # The mid-game lifecycle, once each, at the driver's own step counts.
        if moves >= LEAVE_AT and "left mid-game and returned" not in table.done and left_at is None:
            await client.leave(game_id, table.tokens[0])
            left_at = view.version
            continue
        if left_at is not None and view.version >= left_at + RETURN_AFTER and view.seats[0].absent:
            try:
                await client.return_to_game(game_id, table.tokens[0])
                table.done.add("left mid-game and returned")
            except HustingsError as error:
                assert error.reason in ("GAME_OVER", "GAME_NOT_ACTIVE"), error
            left_at = None
        if moves >= TAKEOVER_AT and table.bots and "takeover of a bot's seat" not in table.done:
            seat = table.bots.pop()
            taken = await client.take_over(game_id, seat, "Dee")
            table.tokens[seat] = taken.token
            table.done.add("takeover of a bot's seat")
        ours = [s for s in view.to_act if s in table.tokens and not view.seats[s].absent]
        if moves >= TIMEOUT_AT and "timeout" not in table.done and ours:
            # One of our seats lets its time run out: the clock is moved past its deadline.
            due = view.seats[ours[0]].deadline_unix_ms
            if due:
                clock.advance_to_ms(replica, due + 1)
                await replica.host.deadline_runner.run_once()
                after = await _wait_for(client, game_id, lambda v: v.seats[ours[0]].timeouts > 0 or v.status == game_pb2.GAME_STATUS_FINISHED)
                if after.seats[ours[0]].timeouts:
                    table.done.add("timeout")
                continue
        # Side moves by a seat of ours that owes nothing (The Spin Doctors' hand-overs and
        # offers to whoever owes the decision).
        idle = [s for s in table.tokens if s not in view.to_act and not view.seats[s].absent]
        if idle and view.kind == "spin_doctors" and rng.random() < 0.5:
            seat = rng.choice(idle)
            mine = await client.view(game_id, table.tokens[seat])
            if mine.legal_moves and await _move(client, game_id, table.tokens[seat], _pick(mine, rng), mine.version):
                table.done.add("side move by a seat owing nothing")
                continue
        if not ours:
            # The bots decide at once; whoever else owes a decision (the silent seat, an absent
            # seat whose stand-in is due a moment later) is reached by moving the clock on.
            waiting_on_time = any(s == table.silent or view.seats[s].absent for s in view.to_act)
            moved = view if waiting_on_time else await _wait_for(client, game_id, lambda v: v.version != view.version, 0.1)
            if moved.version == view.version:
                await _clock_on(replica, clock, moved, table)
            continue
        seat = rng.choice(ours)
        mine = await client.view(game_id, table.tokens[seat])
        if seat in mine.to_act and mine.legal_moves:
            if await _move(client, game_id, table.tokens[seat], _pick(mine, rng), mine.version):
                moves += 1
    raise AssertionError(f"game {game_id} did not end within {MAX_ROUNDS} rounds")


SIDE_MOVES = ("offer_deal", "decline_offer", "withdraw_offer", "hand_budget")


def _pick(view: game_pb2.GameView, rng: random.Random) -> game_pb2.Move:
    """A random legal move; in The Spin Doctors a side move (offers, their answers, hand-overs)
    half the time there is one, so that every game makes and answers offers."""
    legal = list(view.legal_moves)
    if view.kind == "spin_doctors" and rng.random() < 0.5:
        side = [m for m in legal if m.spin_doctors.WhichOneof("kind") in SIDE_MOVES]
        if side:
            return rng.choice(side)
    return rng.choice(legal)


async def _clock_on(replica, clock: HeldClock, view: game_pb2.GameView, table: Table | None) -> None:  # type: ignore[no-untyped-def]
    """Move the held clock past the earliest deadline of the seats to act, and let the deadline
    runner decide for them."""
    due = [view.seats[s].deadline_unix_ms for s in view.to_act if view.seats[s].deadline_unix_ms]
    if not due:
        return
    if table is not None and table.silent in view.to_act and not view.seats[table.silent].absent:
        table.done.add("silent seat timed out")
    if min(due) >= replica.host._now_ms():
        clock.advance_to_ms(replica, min(due) + 1)
    await replica.host.deadline_runner.run_once()


async def _move(client: Client, game_id: str, token: str, move: game_pb2.Move, version: int) -> bool:
    """Submit ``move`` at ``version``; False when a bot's step got there first."""
    try:
        await client.move(game_id, token, move, expected_version=version)
    except HustingsError as error:
        if error.reason in ("STALE_VERSION", "GAME_OVER", "GAME_NOT_ACTIVE", "TIME_RUN_OUT"):
            return False
        raise
    return True


def _verify_everyone(final_views: dict[int | None, game_pb2.GameView], histories: dict[int | None, list[game_pb2.HistoryEntry]], commitment: str) -> dict[int | None, str]:
    """Every viewer's verdict that is not ok (seat None: the spectator)."""
    refused = {}
    for who, view in final_views.items():
        report = verify_log(view, histories[who], commitment)
        if not report.ok:
            refused[who] = f"{report.message} (at {report.failed_at_version})"
    return refused


async def _views_and_histories(client: Client, game_id: str, tokens: dict[int, str]) -> tuple[dict, dict]:  # type: ignore[type-arg]
    views: dict[int | None, game_pb2.GameView] = {None: await client.view(game_id)}
    histories: dict[int | None, list[game_pb2.HistoryEntry]] = {None: await client.history(game_id)}
    for seat, token in tokens.items():
        views[seat] = await client.view(game_id, token)
        histories[seat] = await client.history(game_id, token, page_size=37)  # several pages
    return views, histories


async def _verify_command(port: int, game_id: str, commitment: str) -> tuple[int, dict[str, object]]:
    done = await asyncio.to_thread(
        subprocess.run,
        [*CLI, "verify", game_id, "--server", f"127.0.0.1:{port}", "--commitment", commitment],
        capture_output=True,
        timeout=60,
    )
    lines = [line for line in done.stdout.decode().splitlines() if line.startswith("{")]
    assert lines, done.stderr.decode()[-2000:]
    return done.returncode, json.loads(lines[-1])


def _moves_made(history: list[game_pb2.HistoryEntry]) -> set[str]:
    """The kinds of moves in ``history`` (e.g. hand_budget), and The Spin Doctors' offer events."""
    made = set()
    for entry in history:
        if entry.HasField("move"):
            kind = entry.move.WhichOneof("game")
            made.add(str(getattr(entry.move, kind).WhichOneof("kind")))
        for event in entry.events:
            if event.HasField("spin_doctors") and "OFFER" in (name := spin_doctors_pb2.SpinDoctorsEventKind.Name(event.spin_doctors.kind)):
                made.add(name.removeprefix("SPIN_DOCTORS_EVENT_KIND_"))
    return made


async def _play_again(replica, clock: HeldClock, client: Client, table: Table) -> None:  # type: ignore[no-untyped-def]
    """The table's next game: its seats taken again, then left (their bots finish it), verified
    as the spectator and as every seat."""
    answer = await client.play_again(table.game_id, next(iter(table.tokens.values())))
    view = await client.view(answer.game_id)
    commitment = view.seed_commitment
    tokens = {}
    for seat in view.seats:
        if not seat.taken:
            tokens[seat.seat] = (await client.join(answer.game_id, f"Again {seat.seat}", seat=seat.seat)).token
    for token in tokens.values():
        await client.leave(answer.game_id, token)
    deadline = time.monotonic() + GAME_BOUND_S
    for _round in range(MAX_ROUNDS):
        view = await client.view(answer.game_id)
        if view.status == game_pb2.GAME_STATUS_FINISHED or time.monotonic() > deadline:
            break
        await _clock_on(replica, clock, view, None)  # every seat is absent: its stand-in is due
    views, histories = await _views_and_histories(client, answer.game_id, tokens)
    assert views[None].status == game_pb2.GAME_STATUS_FINISHED
    assert _verify_everyone(views, histories, commitment) == {}


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """A Redis of this module's own: the held clock's jumps would make the clocked games other
    tests leave in the session's Redis due for these replicas, and these games' strong and
    absent seats due for theirs."""
    with EmbeddedRedis(tmp_path_factory.mktemp("verify-redis"), appendonly=False) as server:
        yield server


@pytest.mark.parametrize("kind,players,variant", TABLES, ids=[f"{k}-{p}" for k, p, _ in TABLES])
def test_an_honest_game_verifies_for_every_viewer(redis_server: EmbeddedRedis, kind: str, players: int, variant: dict[str, object]) -> None:
    clock = HeldClock()

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, local_clock=clock) as (replica, client):
            table = await _seat_the_table(client, kind, players, variant)
            final = await _play(replica, clock, client, table, random.Random(f"{kind}-{players}"))
            assert final.status == game_pb2.GAME_STATUS_FINISHED
            views, histories = await _views_and_histories(client, table.game_id, table.tokens)
            assert _verify_everyone(views, histories, table.commitment) == {}
            assert {"left mid-game and returned", "takeover of a bot's seat", "timeout"} <= table.done, table.done
            if players == max(p for k, p, _ in TABLES if k == kind):
                status, report = await _verify_command(replica.port, table.game_id, table.commitment)
                assert status == 0 and report["verified"] is True, report
                await _play_again(replica, clock, client, table)
            if kind == "spin_doctors":  # side moves beside the decisions (coalition offers come as the bots play)
                assert "hand_budget" in _moves_made(histories[None])

    run(scenario(), 120)
