"""The table lifecycle across the whole API, driven by a model: random sequences of CreateGame
(every kind, listed and unlisted, with and without a bot seat), JoinGame, LeaveGame,
ReturnToGame, SubmitMove (legal, stale, out of turn, after the end), PlayAgain, GetView and
ListGames pages, and retries of each request id on the other replica, against one real Redis and
two real replicas (real gRPC). After every step the model's promises are checked: versions only
grow and a refused call leaves a game as it was; a retry answers as the first attempt and changes
nothing; both replicas show one game alike; each seat sees its own hidden cards and nobody
else's; the lobby lists a listed game and never an unlisted one, at its exact version and status;
a finished game refuses moves GAME_OVER."""

from __future__ import annotations

import asyncio
import contextlib
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Iterator

import grpc
import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from service_helpers import replica_and_client
from hustings.client import ONE_ATTEMPT, Client, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import SOLE_CLIENT
from hustings.v1 import game_pb2, game_service_pb2

OPEN, ACTIVE, FINISHED = game_pb2.GAME_STATUS_OPEN, game_pb2.GAME_STATUS_ACTIVE, game_pb2.GAME_STATUS_FINISHED
KINDS = [("stimmvieh", 3), ("spin_doctors", 3), ("wahlspiel", 2), ("wahlspiel", 3)]
MAX_TABLES = 5
CALL_TIMEOUT_S = 20.0
PLAY_OUT_MOVES = 600
PLAY_OUT_S = 15.0
LOBBY_PAGES = 60


class Loop:
    """An event loop on a thread of its own, so that the replicas go on between the steps of the
    (synchronous) state machine: their deadline runners play the bot seats meanwhile."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def __call__(self, coro: Awaitable[Any], timeout_s: float = CALL_TIMEOUT_S) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout_s)  # type: ignore[arg-type]

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


@dataclass
class World:
    """Two replicas of one Redis, a client of each (one attempt per call: the test retries)."""

    run: Loop
    clients: list[Client]


@pytest.fixture(scope="module")
def world(redis_server: EmbeddedRedis) -> Iterator[World]:
    loop = Loop()
    stack = contextlib.AsyncExitStack()

    async def start() -> list[Client]:
        clients = []
        for _ in range(2):
            _, client = await stack.enter_async_context(replica_and_client(redis_server.url, **SOLE_CLIENT))
            clients.append(client.with_retry(ONE_ATTEMPT, timeout_s=CALL_TIMEOUT_S))
        return clients

    try:
        yield World(loop, loop(start(), 60))
    finally:
        loop(stack.aclose(), 60)
        loop.close()


async def outcome(call: Awaitable[Any]) -> tuple[Any, HustingsError | None]:
    """The answer of a call, or its refusal."""
    try:
        return await call, None
    except HustingsError as error:
        return None, error


def hidden_hands(view: game_pb2.GameView) -> dict[int, tuple[int, int]]:
    """Per seat: (cards of its hidden hand this view shows, how many it holds), for each kind's
    hand that only its seat may see (Stimmvieh backbenchers, Spin Doctors staff, Wahlspiel
    voter and event cards)."""
    hands: dict[int, tuple[int, int]] = {}
    part = view.WhichOneof("game")
    if view.kind == "stimmvieh" and part == "stimmvieh":
        for party in view.stimmvieh.parties:
            if party.HasField("seat"):
                hands[party.seat] = (len(party.backbenchers), party.backbencher_count)
    elif view.kind == "spin_doctors" and part == "spin_doctors":
        for player in view.spin_doctors.players:
            hands[player.seat] = (len(player.staff), player.staff_count)
    elif view.kind == "wahlspiel" and part == "wahlspiel":
        for party in view.wahlspiel.parties:
            hands[party.party] = (len(party.voters) + len(party.events), party.voter_count + party.event_count)
    return hands


@dataclass
class Table:
    """What the model knows of one game."""

    game_id: str
    kind: str
    players: int
    unlisted: bool
    bots: tuple[int, ...]
    version: int = 1
    status: int = OPEN
    tokens: dict[int, str] = field(default_factory=dict)
    absent: set[int] = field(default_factory=set)
    next_game: str = ""
    a_move: game_pb2.Move | None = None  # a legal move seen once: well formed for its kind
    left: set[int] = field(default_factory=set)  # seats of an open game left once (their joins retried)

    def quiet(self) -> bool:
        """Nothing but the test's own calls changes the game (no bot plays in it)."""
        if self.status == FINISHED or self.status == OPEN:
            return True
        return not self.bots and not self.absent


@dataclass
class Sent:
    """A request sent once, its first answer, and the game it went to (for its retry)."""

    method: str
    request: Any
    token: str | None
    replica: int
    answer: bytes
    table: Table


class Lifecycle(RuleBasedStateMachine):
    world: World

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[Table] = []
        self.sent: list[Sent] = []
        self.names = 0
        self.created = 0

    # -- helpers ---------------------------------------------------------------------------

    def call(self, replica: int, method: str, request: Any, token: str | None = None) -> tuple[Any, HustingsError | None]:
        client = self.world.clients[replica]
        result = self.world.run(outcome(client._call(method, request, token)))
        if method != "GetView" and method != "ListGames":
            event(f"{method}: {result[1].reason if result[1] else 'ok'}")
        return result

    def view(self, table: Table, token: str | None = None, replica: int = 0) -> game_pb2.GameView:
        answer, error = self.call(replica, "GetView", game_service_pb2.GetViewRequest(game_id=table.game_id), token)
        assert error is None, f"GetView of {table.game_id}: {error}"
        return answer.view

    def table(self, index: int) -> Table:
        return self.tables[index % len(self.tables)]

    def seen(self, table: Table, view: game_pb2.GameView) -> None:
        """A view read now: the version never goes back, a finished game stays finished."""
        assert view.version >= table.version, f"version went back: {view.version} after {table.version}"
        if table.status == FINISHED:
            assert view.status == FINISHED, "a finished game is in play again"
        table.version, table.status = view.version, view.status

    def settled(self, table: Table) -> None:
        """Read the game after a call of the test: in a quiet game its version is the model's."""
        self.seen(table, self.view(table))

    def refused_unchanged(self, table: Table, before: int, what: str) -> None:
        if table.quiet():
            after = self.view(table)
            assert after.version == before, f"{what} was refused but the version moved {before} -> {after.version}"

    def record(self, method: str, request: Any, token: str | None, replica: int, answer: Any, table: Table) -> None:
        self.sent.append(Sent(method, request, token, replica, answer.SerializeToString(deterministic=True), table))

    def add(self, table: Table) -> None:
        self.tables.append(table)

    def name(self) -> str:
        self.names += 1
        return f"Player {self.names}"

    # -- rules -----------------------------------------------------------------------------

    @initialize(kind=st.sampled_from(KINDS), unlisted=st.booleans(), bot=st.booleans(), replica=st.integers(0, 1))
    def first_table(self, kind: tuple[str, int], unlisted: bool, bot: bool, replica: int) -> None:
        self.create(kind, unlisted, bot, replica)

    @precondition(lambda self: self.created < MAX_TABLES)
    @rule(kind=st.sampled_from(KINDS), unlisted=st.booleans(), bot=st.booleans(), replica=st.integers(0, 1))
    def create(self, kind: tuple[str, int], unlisted: bool, bot: bool, replica: int) -> None:
        name, players = kind
        table_settings = game_pb2.TableSettings(unlisted=unlisted)
        if bot:
            table_settings.bot_seats.append(players - 1)
            table_settings.bot_level = "random"
        request = game_service_pb2.CreateGameRequest(
            kind=name, options=game_pb2.GameOptions(players=players), request_id=f"create-{time.time_ns()}-{id(self)}-model"
        )
        request.table.CopyFrom(table_settings)
        answer, error = self.call(replica, "CreateGame", request)
        assert error is None, error
        self.created += 1
        table = Table(answer.game_id, name, players, unlisted, tuple(table_settings.bot_seats))
        view = self.view(table, replica=1 - replica)
        assert view.status == OPEN and view.table.unlisted == unlisted
        table.version = view.version
        self.add(table)
        self.record("CreateGame", request, None, replica, answer, table)

    @precondition(lambda self: self.created > 0)
    @rule(index=st.integers(0, 99), replica=st.integers(0, 1), pick=st.one_of(st.none(), st.integers(0, 5)))
    def join(self, index: int, replica: int, pick: int | None) -> None:
        self._join(self.table(index), replica, pick)

    @precondition(lambda self: self.created > 0)
    @rule(index=st.integers(0, 99), replica=st.integers(0, 1))
    def fill(self, index: int, replica: int) -> None:
        """Every free seat joined, from both replicas in turn: the game starts."""
        table = self.table(index)
        for turn in range(table.players):
            if len(table.tokens) + len(table.bots) >= table.players or table.status != OPEN:
                return
            self._join(table, (replica + turn) % 2, None)

    def _join(self, table: Table, replica: int, pick: int | None) -> None:
        before = self.view(table, replica=replica)
        self.seen(table, before)
        request = game_service_pb2.JoinGameRequest(
            game_id=table.game_id, display_name=self.name(), request_id=f"join-{time.time_ns()}-model-request"
        )
        if pick is not None:
            request.seat = pick % table.players
        free = [s.seat for s in before.seats if not s.taken]
        answer, error = self.call(replica, "JoinGame", request)
        can = before.status == OPEN and (request.seat in free if pick is not None else bool(free))
        if can:
            assert error is None, f"join of a free seat refused: {error}"
            table.tokens[answer.seat] = answer.seat_token
            assert answer.view.seat == answer.seat
            self.record("JoinGame", request, None, replica, answer, table)
            self.settled(table)
        else:
            assert error is not None, f"join taken where it could not be: seat {answer.seat}"
            self.refused_unchanged(table, before.version, f"JoinGame ({error.reason})")

    @precondition(lambda self: self.created > 0)
    @rule(index=st.integers(0, 99), replica=st.integers(0, 1), pick=st.integers(0, 5))
    def leave(self, index: int, replica: int, pick: int) -> None:
        table = self.table(index)
        if not table.tokens:
            return
        seat = sorted(table.tokens)[pick % len(table.tokens)]
        before = self.view(table)
        self.seen(table, before)
        answer, error = self.call(replica, "LeaveGame", game_service_pb2.LeaveGameRequest(game_id=table.game_id), table.tokens[seat])
        if before.status == OPEN:
            assert error is None, error
            del table.tokens[seat]
            table.left.add(seat)
        elif before.status == ACTIVE and seat not in table.absent:
            assert error is None, error
            table.absent.add(seat)
        else:
            assert error is not None, f"leave of seat {seat} taken in status {before.status}"
            self.refused_unchanged(table, before.version, f"LeaveGame ({error.reason})")
        self.settled(table)

    @precondition(lambda self: self.created > 0)
    @rule(index=st.integers(0, 99), replica=st.integers(0, 1))
    def return_to_seat(self, index: int, replica: int) -> None:
        table = self.table(index)
        if not table.absent:
            return
        seat = min(table.absent)
        before = self.view(table)
        self.seen(table, before)
        answer, error = self.call(replica, "ReturnToGame", game_service_pb2.ReturnToGameRequest(game_id=table.game_id), table.tokens[seat])
        if before.status == ACTIVE:
            # The game may have ended meanwhile, its bot playing for the seat: GAME_OVER.
            assert error is None or error.reason == "GAME_OVER", error
            table.absent.discard(seat)
        else:
            assert error is not None, "a return to a seat of a finished game taken"
            self.refused_unchanged(table, before.version, f"ReturnToGame ({error.reason})")
        self.settled(table)

    def _to_act(self, table: Table, replica: int) -> tuple[int, game_pb2.GameView] | None:
        view = self.view(table, replica=replica)
        self.seen(table, view)
        mine = [s for s in view.to_act if s in table.tokens]
        if view.status != ACTIVE or not mine:
            return None
        seat = min(mine)
        return seat, self.view(table, table.tokens[seat], replica)

    @precondition(lambda self: self.created > 0)
    @rule(index=st.integers(0, 99), replica=st.integers(0, 1), choice=st.integers(0, 10**6))
    def move(self, index: int, replica: int, choice: int) -> None:
        table = self.table(index)
        found = self._to_act(table, replica)
        if found is None:
            return
        seat, mine = found
        if not mine.legal_moves:
            return
        table.a_move = mine.legal_moves[0]
        request = game_service_pb2.SubmitMoveRequest(
            game_id=table.game_id, expected_version=mine.version, request_id=f"move-{time.time_ns()}-model-request"
        )
        request.move.CopyFrom(mine.legal_moves[choice % len(mine.legal_moves)])
        answer, error = self.call(1 - replica, "SubmitMove", request, table.tokens[seat])
        if error is not None:
            # Only a bot moving first, or the seat's own clock, can stand in the way.
            assert not table.quiet() and error.reason in ("STALE_VERSION", "NOT_YOUR_TURN"), error
            return
        assert answer.version > mine.version
        table.absent.discard(seat)
        self.record("SubmitMove", request, table.tokens[seat], 1 - replica, answer, table)
        self.settled(table)

    @precondition(lambda self: self.created > 0)
    @rule(index=st.integers(0, 99), replica=st.integers(0, 1))
    def stale_move(self, index: int, replica: int) -> None:
        table = self.table(index)
        found = self._to_act(table, replica)
        if found is None or not found[1].legal_moves:
            return
        seat, mine = found
        request = game_service_pb2.SubmitMoveRequest(
            game_id=table.game_id, expected_version=mine.version - 1, request_id=f"stale-{time.time_ns()}-model-request"
        )
        request.move.CopyFrom(mine.legal_moves[0])
        _, error = self.call(replica, "SubmitMove", request, table.tokens[seat])
        assert error is not None and error.code == grpc.StatusCode.ABORTED and error.reason == "STALE_VERSION", error
        self.refused_unchanged(table, mine.version, "a stale move")

    @precondition(lambda self: self.created > 0)
    @rule(index=st.integers(0, 99), replica=st.integers(0, 1))
    def out_of_turn_move(self, index: int, replica: int) -> None:
        table = self.table(index)
        view = self.view(table, replica=replica)
        self.seen(table, view)
        if view.status == OPEN or not table.tokens:
            return
        waiting = [s for s in table.tokens if s not in view.to_act]
        acting = [s for s in table.tokens if s in view.to_act]
        seat = (waiting or acting)[0]
        # A move some seat may make, sent by a seat that may not make it now.
        donor = view.to_act[0] if view.to_act else None
        move = game_pb2.Move()
        if donor is not None and donor in table.tokens:
            legal = self.view(table, table.tokens[donor], replica).legal_moves
            if legal:
                move.CopyFrom(legal[0])
        if not move.ByteSize():
            if table.a_move is None:
                return
            move.CopyFrom(table.a_move)
        if view.status == ACTIVE and seat in view.to_act:
            return
        request = game_service_pb2.SubmitMoveRequest(game_id=table.game_id, request_id=f"oot-{time.time_ns()}-model-request")
        request.move.CopyFrom(move)
        _, error = self.call(1 - replica, "SubmitMove", request, table.tokens[seat])
        assert error is not None, "a move out of turn was applied"
        if view.status == FINISHED:
            assert error.code == grpc.StatusCode.FAILED_PRECONDITION and error.reason == "GAME_OVER", error
        else:
            assert error.code in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.INVALID_ARGUMENT), error
        self.refused_unchanged(table, view.version, f"a move out of turn ({error.reason})")

    @precondition(lambda self: self.created > 0)
    @rule(index=st.integers(0, 99), choice=st.integers(0, 10**6))
    def play_out(self, index: int, choice: int) -> None:
        """Legal moves of the seats the test holds, from both replicas, until the game ends."""
        table = self.table(index)
        self.fill(index, choice % 2)
        self._play_out(table, choice)
        event(f"play out: {table.kind} {['open', 'in play', 'finished'][table.status - 1]}")

    def _play_out(self, table: Table, choice: int) -> None:
        deadline = time.monotonic() + PLAY_OUT_S
        for step in range(PLAY_OUT_MOVES):
            assert time.monotonic() < deadline, "the game did not end in time"
            found = self._to_act(table, step % 2)
            if table.status != ACTIVE:
                return
            if found is None:
                assert not table.quiet(), "a game in play where no seat is to act"
                self.world.run(asyncio.sleep(0.02))
                continue
            seat, mine = found
            if not mine.legal_moves:
                assert not table.quiet(), f"seat {seat} is to act with no legal move"
                self.world.run(asyncio.sleep(0.02))
                continue
            move = mine.legal_moves[(choice + step) % len(mine.legal_moves)]
            table.a_move = move
            answer, error = self.world.run(
                outcome(self.world.clients[1 - step % 2].move(table.game_id, table.tokens[seat], move, expected_version=mine.version))
            )
            if error is not None:
                assert not table.quiet() and error.reason in ("STALE_VERSION", "NOT_YOUR_TURN"), error
            else:
                table.absent.discard(seat)

    @precondition(lambda self: self.created > 0)
    @rule(index=st.integers(0, 99), replica=st.integers(0, 1))
    def play_again(self, index: int, replica: int) -> None:
        table = self.table(index)
        if table.status != FINISHED or not table.tokens:
            return
        answers = set()
        for seat in sorted(table.tokens)[:2]:
            for r in (replica, 1 - replica):
                answer, error = self.call(r, "PlayAgain", game_service_pb2.PlayAgainRequest(game_id=table.game_id), table.tokens[seat])
                assert error is None, error
                answers.add(answer.game_id)
        assert len(answers) == 1, f"one finished game, several next games: {answers}"
        next_id = answers.pop()
        assert not table.next_game or table.next_game == next_id
        if not table.next_game and len(self.tables) < MAX_TABLES + 2:
            table.next_game = next_id
            nxt = Table(next_id, table.kind, table.players, table.unlisted, table.bots)
            view = self.view(nxt)
            assert view.status == OPEN and view.table.unlisted == table.unlisted
            assert [s.seat for s in view.seats if s.taken] == list(table.bots)
            nxt.version = view.version
            self.add(nxt)
        table.next_game = next_id

    @precondition(lambda self: self.created > 0)
    @rule(pick=st.integers(0, 10**6))
    def retry(self, pick: int) -> None:
        """The same request sent again to the other replica: the first answer, nothing changed."""
        sent = self.sent[pick % len(self.sent)]
        table = sent.table
        before = self.view(table)
        self.seen(table, before)
        answer, error = self.call(1 - sent.replica, sent.method, sent.request, sent.token)
        if sent.method == "CreateGame":
            assert error is None, error
            assert answer.game_id == game_service_pb2.CreateGameResponse.FromString(sent.answer).game_id
        elif sent.method == "JoinGame":
            first = game_service_pb2.JoinGameResponse.FromString(sent.answer)
            if before.status == FINISHED and error is not None:
                # A finished game takes no join, retried or not (tests/test_retries.py).
                assert error.reason == "GAME_OVER", error
                return self.refused_unchanged(table, before.version, "a retried join of a finished game")
            if first.seat in table.left and error is not None:
                # The seat was left since: the retry must not take it back (README, Tables).
                assert error.reason == "SEAT_TOKEN_REPLACED", error
                return self.refused_unchanged(table, before.version, "a retried join of a seat left since")
            assert error is None, f"a retried join refused: {error}"
            assert (answer.seat, answer.seat_token) == (first.seat, first.seat_token)
        else:
            first = game_service_pb2.SubmitMoveResponse.FromString(sent.answer)
            assert error is None, f"a retried move refused: {error}"
            assert answer.version == first.version and list(answer.events) == list(first.events), "a retried move answered otherwise"
        self.refused_unchanged(table, before.version, f"a retried {sent.method}")

    # -- invariants ------------------------------------------------------------------------

    @invariant()
    def replicas_agree_and_hands_stay_hidden(self) -> None:
        for table in self.tables:
            views = [self.view(table, replica=r) for r in (0, 1)]
            for view in views:
                self.seen(table, view)
            if table.quiet():
                a, b = views
                assert a.version == b.version == table.version
                assert [(s.taken, s.display_name, s.bot, s.absent) for s in a.seats] == [
                    (s.taken, s.display_name, s.bot, s.absent) for s in b.seats
                ], "the replicas show the seats otherwise"
                assert {s.seat for s in a.seats if s.taken} == set(table.tokens) | set(table.bots)
                assert {s.seat for s in a.seats if s.absent} == table.absent
            if views[-1].status != ACTIVE:
                continue  # an open game shows no hand yet; a finished one may show all
            for seat, hand in hidden_hands(views[-1]).items():
                assert hand[0] == 0, f"a spectator sees seat {seat}'s hidden cards"
            for seat, token in table.tokens.items():
                mine = self.view(table, token, replica=seat % 2)
                assert mine.seat == seat
                if mine.status != ACTIVE:
                    continue
                for other, (shown, held) in hidden_hands(mine).items():
                    if other == seat:
                        assert shown == held, f"seat {seat} does not see its own {held} hidden cards"
                        event(f"own hidden cards seen: {table.kind} {'some' if held else 'none'}")
                    else:
                        assert shown == 0, f"seat {seat} sees seat {other}'s hidden cards"

    @invariant()
    def lobby_lists_the_listed(self) -> None:
        if not self.tables:
            return
        wanted = {t.game_id: t for t in self.tables}
        listed: dict[str, Any] = {}
        token = ""
        size = 1 + len(self.tables) % 4
        for _ in range(LOBBY_PAGES):
            answer, error = self.call(len(listed) % 2, "ListGames", game_service_pb2.ListGamesRequest(page_size=size, page_token=token))
            assert error is None, error
            for summary in answer.games:
                assert summary.game_id not in listed, f"{summary.game_id} listed twice"
                listed[summary.game_id] = summary
            token = answer.next_page_token
            if not token or all(g in listed or wanted[g].unlisted for g in wanted):
                break
        for game_id, table in wanted.items():
            if table.unlisted:
                assert game_id not in listed, "an unlisted table is in the lobby"
                continue
            assert game_id in listed, f"listed {game_id} ({table.kind}, status {table.status}) is not in the lobby"
            if table.quiet():
                summary = listed[game_id]
                view = self.view(table)
                assert (summary.version, summary.status) == (view.version, view.status), "the lobby's line is behind"

    @invariant()
    def filtered_lobby_pages_hold_what_they_say(self) -> None:
        """A page filtered by status shows games of that status only; one filtered by kind shows
        every listed game of that kind (a game is filed under its kind before it is made)."""
        for status in (OPEN, ACTIVE, FINISHED):
            answer, error = self.call(status % 2, "ListGames", game_service_pb2.ListGamesRequest(status=status, page_size=20))
            assert error is None, error
            wrong = [(g.game_id, g.status) for g in answer.games if g.status != status]
            assert not wrong, f"a page of status {status} lists {wrong}"
        for kind in sorted({t.kind for t in self.tables if not t.unlisted}):
            wanted = {t.game_id for t in self.tables if t.kind == kind and not t.unlisted}
            seen: set[str] = set()
            token = ""
            for _ in range(LOBBY_PAGES):
                answer, error = self.call(0, "ListGames", game_service_pb2.ListGamesRequest(kind=kind, page_size=5, page_token=token))
                assert error is None, error
                assert all(g.kind == kind for g in answer.games)
                seen |= {g.game_id for g in answer.games}
                token = answer.next_page_token
                if not token or wanted <= seen:
                    break
            assert wanted <= seen, f"{sorted(wanted - seen)} missing from the {kind} lobby"


@pytest.fixture(scope="module", autouse=True)
def machine_world(world: World) -> None:
    Lifecycle.world = world


# 20 sequences of up to 25 steps take 8-35 s on 2 cores; LIFECYCLE_EXAMPLES and LIFECYCLE_STEPS
# explore further by hand (120 of 40 took 3.5 minutes).
TestTableLifecycle = Lifecycle.TestCase
TestTableLifecycle.pytestmark = [pytest.mark.slow]
TestTableLifecycle.settings = settings(
    max_examples=int(os.environ.get("LIFECYCLE_EXAMPLES", 20)),
    stateful_step_count=int(os.environ.get("LIFECYCLE_STEPS", 25)),
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
