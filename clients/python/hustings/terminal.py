"""Play a game in the terminal against random bots, through the public API like any front end.

The player follows the game over ``WatchGame``. Between prompts it tells what the others did, in
words and with their names (only what this seat may see: the stream is filtered for it). It
prompts only on the latest view: every queued update is taken before deciding, updates older
than this seat's own last move are never acted on, and the server is asked (``GetView``) whether
a newer version exists before the prompt is shown; if one does, the stream brings it first. Each
prompt names its version, so a transcript shows which view an answer was given on.
"""

from __future__ import annotations

import asyncio
import random
import sys
import threading
from typing import Awaitable, Callable, TextIO

import grpc

from hustings.bots import BotStats, RandomBot, play_seat
from hustings.client import Client, HustingsError, Joined, checked_display_name
from hustings.move_entry import AnswerError, Menu, move_text
from hustings.tables import fallback_tell, game_text, seat_name, wrap
from hustings.v1 import game_pb2, game_service_pb2

LEAVE_WITHIN_S = 5.0  # how long quitting waits to leave its seats (``_leave_unfinished``)

MAX_UPDATES = 50_000  # updates handled in one game; far above the longest game
MAX_ANSWERS = 1_000  # typed answers to one prompt before the player is taken to have left
IDLE_TIMEOUT_S = 120.0  # bots answer at once; this long without news means the game is stuck
MAX_RECONNECTS = 5
REFUSALS = (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.ABORTED, grpc.StatusCode.INVALID_ARGUMENT)

Ask = Callable[[str], Awaitable["str | None"]]


async def ask_line(prompt: str) -> str | None:
    """One line from standard input (None at its end), read without blocking the event loop.

    A daemon thread reads, so that leaving the game never waits for a line nobody types.
    """
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[str | None] = loop.create_future()

    def read() -> None:
        # Not input(prompt): on a terminal it writes the prompt to stderr, away from the table.
        sys.stdout.write(prompt)
        sys.stdout.flush()
        try:
            line: str | None = sys.stdin.readline()
        except (OSError, ValueError):
            line = ""
        line = line.rstrip("\r\n") if line else None
        if not loop.is_closed():
            loop.call_soon_threadsafe(lambda: answer.done() or answer.set_result(line))

    threading.Thread(target=read, name="terminal-input", daemon=True).start()
    return await answer


def render(view: game_pb2.GameView) -> str:
    """The caller's view as text: the version, the game's table, who is to act, the outcome."""
    lines = [f"--- {view.kind} {view.game_id} version {view.version} ---"]
    table = game_text(view).table(view)
    if table:
        lines.append(table)
    if view.to_act:
        lines.append("to act: " + ", ".join(seat_name(view, s) for s in view.to_act))
    if view.status == game_pb2.GAME_STATUS_FINISHED:
        lines.append("Game over.")
        for placing in view.outcome.placings:
            detail = f" ({placing.detail})" if placing.detail else ""  # as the README's example prints a placing
            lines.append(f"  {placing.rank}. {placing.name}: {placing.score}{detail}")
        lines.append(f"seed {view.seed}")
        if view.seed_nonce:  # games created before nonces were drawn commit to the seed alone
            lines.append(f"  nonce {view.seed_nonce}")
            lines.append(f"  (commitment {view.seed_commitment}: SHA-256 of the nonce and then the seed)")
        else:
            lines.append(f"  (commitment {view.seed_commitment}: SHA-256 of the seed)")
    return wrap(lines)


def tell_entry(entry: game_pb2.HistoryEntry, view: game_pb2.GameView) -> list[str]:
    """One step of the game in words, as lines prefixed with its version."""
    text = game_text(view)
    said = []
    for event in entry.events:
        body = event.WhichOneof("body")
        if body == "seat_taken":
            taken = event.seat_taken
            said.append(f"{taken.display_name} took seat {taken.seat}" + (" and the game began" if taken.game_started else ""))
            continue
        if body == "seat_changed":
            said.append(_seat_changed(event.seat_changed))
            continue
        sentence = text.tell(event, view) or fallback_tell(event, view)  # new kinds of event still get words
        if sentence:
            said.append(sentence)
    if not said and entry.HasField("seat"):  # a step without events of its own still happened
        who = seat_name(view, entry.seat)
        said.append(f"{who}: {move_text(entry.move)}" if entry.move.WhichOneof("game") else f"{who} made a secret choice")
    return [f"  v{entry.version}  {s[:1].upper()}{s[1:]}" for s in said]


SEAT_CHANGES = {
    "CHANGE_LEFT": "{name} left; a bot plays the seat until they return",
    "CHANGE_RETURNED": "{name} is back",
    "CHANGE_TIMED_OUT": "{name} ran out of time; a bot decided",
    "CHANGE_ABSENT": "{name} timed out too often and is absent; a bot plays the seat",
    "CHANGE_TAKEN_OVER": "{name} took over seat {seat}",
    "CHANGE_BOT_ADDED": "{name}, a bot, took seat {seat}",
}


def _seat_changed(change: game_pb2.SeatChanged) -> str:
    name = change.display_name or f"seat {change.seat}"
    template = SEAT_CHANGES.get(game_pb2.SeatChanged.Change.Name(change.change), "{name}'s seat changed")
    return template.format(name=name, seat=change.seat)


class TerminalPlayer:
    """One seat played by a person at a terminal."""

    def __init__(self, client: Client, me: Joined, name: str, out: TextIO, ask: Ask) -> None:
        self.client = client
        self.me = me
        self.name = name
        self.out = out
        self.ask = ask
        self.latest = me.view
        self.told_upto = 0

    def write(self, text: str) -> None:
        """Show ``text`` at once."""
        print(text, file=self.out, flush=True)

    async def _follow(self, updates: "asyncio.Queue[game_service_pb2.WatchGameResponse | BaseException | None]") -> None:
        """Put every update of the stream on the queue; None when the game is over.

        A stream that ends or breaks before the game does is resumed after the last version
        seen (a replica stopping, a server that closes quiet streams), a few times at most.
        """
        seen = 0
        for _ in range(MAX_RECONNECTS):
            try:
                async for update in self.client.watch(self.me.game_id, self.me.token, from_version=seen):
                    seen = update.version
                    await updates.put(update)
                    if update.view.status == game_pb2.GAME_STATUS_FINISHED:
                        await updates.put(None)
                        return
                await asyncio.sleep(0.2)
            except HustingsError as error:
                if error.code not in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED):
                    await updates.put(error)
                    return
                await asyncio.sleep(0.2)
            except BaseException as error:  # noqa: BLE001 - handed to the player's loop, which raises it
                await updates.put(error)
                raise
        await updates.put(HustingsError(grpc.StatusCode.UNAVAILABLE, "STREAM_LOST", "the game's stream ended too often"))

    def _take(self, item: "game_service_pb2.WatchGameResponse | BaseException | None") -> None:
        if item is None:  # the game is over; its last update came just before
            return
        if isinstance(item, BaseException):
            raise item
        newer = item.view.version >= self.latest.version
        names = item.view if newer else self.latest
        for entry in item.entries:
            if entry.version > self.told_upto:
                for line in tell_entry(entry, names):
                    self.write(line)
                self.told_upto = entry.version
        if newer:
            self.latest = item.view

    async def run(self) -> int:
        """Play until the game ends (0), the player quits (0) or the game stalls (1)."""
        updates: asyncio.Queue[game_service_pb2.WatchGameResponse | BaseException | None] = asyncio.Queue()
        follower = asyncio.create_task(self._follow(updates))
        moved_at = 0  # views older than our own last move are stale: we already acted on them
        look_now = False
        try:
            for _ in range(MAX_UPDATES):
                if not look_now:
                    try:
                        self._take(await asyncio.wait_for(updates.get(), IDLE_TIMEOUT_S))
                    except asyncio.TimeoutError:
                        self.write(f"Nothing happened for {IDLE_TIMEOUT_S:.0f} s; leaving game {self.me.game_id}.")
                        return 1
                while not updates.empty():  # only the newest view counts
                    self._take(updates.get_nowait())
                look_now = False
                view = self.latest
                if view.status == game_pb2.GAME_STATUS_FINISHED:
                    self.write(render(view))
                    return 0
                if view.version < moved_at or self.me.seat not in view.to_act or not view.legal_moves:
                    continue
                current = await self.client.view(self.me.game_id, self.me.token)
                if current.version > view.version:
                    continue  # the stream has newer steps to tell first
                answer = await self._prompt(view)
                if answer is None:
                    return 0
                if answer > 0:
                    moved_at = answer
                else:  # refused: the table changed under the answer; look again at the newest view
                    current = await self.client.view(self.me.game_id, self.me.token)
                    if current.version >= self.latest.version:
                        self.latest = current
                    look_now = True
            self.write("The game went on longer than any game can; leaving.")
            return 1
        finally:
            follower.cancel()
            await asyncio.gather(follower, return_exceptions=True)

    async def _prompt(self, view: game_pb2.GameView) -> int | None:
        """Ask for a move on ``view``; its new version, 0 when refused, None when the player quits."""
        menu = Menu(view.legal_moves, game_text(view).labeller(view))
        self.write(render(view))
        how = "type a number, or a move's parts as shown" if menu.numbered else "type a move's parts as shown"
        self.write(f"Your legal moves ({how}):")
        for line in menu.lines():
            self.write(line)
        for _ in range(MAX_ANSWERS):
            answer = await self.ask(f"{self.name}, your move at version {view.version} (q quits): ")
            if answer is None or answer.strip().lower() in ("q", "quit"):
                return None
            try:
                move = menu.parse(answer)
            except AnswerError as error:
                self.write(f"  not a move: {error}")
                continue
            try:
                response = await self.client.move(self.me.game_id, self.me.token, move)
            except HustingsError as error:
                if error.code not in REFUSALS:
                    raise
                self.write(f"  refused: {error.reason}: {error.message}")
                return 0
            return int(response.version)
        self.write(f"  {MAX_ANSWERS} answers that were not moves: leaving the game")
        return None


async def play_in_terminal(
    address: str,
    kind: str,
    players: int,
    name: str,
    *,
    out: TextIO | None = None,
    ask: Ask = ask_line,
    bot_seed: int | None = None,
    lasting: bool = True,
) -> int:
    """Create a game, take seat 0, fill the other seats with random bots, and play until it ends.

    ``lasting``: whether the server outlives this call (``hustings play --server``); ``play``'s own
    embedded server, and every game on it, stops with it."""
    out = out or sys.stdout
    rng = random.Random(bot_seed)
    checked_display_name(name)  # before the table is made: a refused name leaves none behind
    async with Client(address) as client:
        created = await client.create_game(kind, players)
        me = await client.join(created.game_id, name)
        stats = BotStats()
        # Every seat is taken before any bot starts following the game.
        seated = [await client.join(created.game_id, f"Bot {i}") for i in range(1, players)]
        bots = [asyncio.create_task(play_seat(client, j, RandomBot(random.Random(rng.getrandbits(64))), stats)) for j in seated]
        print(f"You are {name}, seat {me.seat}, in {kind} game {created.game_id}.", file=out, flush=True)
        # Kept now, it lets ``hustings verify`` check the game without taking the server's word.
        print(f"Its seed commitment: {me.view.seed_commitment}", file=out, flush=True)
        if not lasting:
            print(
                "This game lives in play's own server and ends with it; to keep it (for hustings verify),"
                " play on your server: hustings play --server 127.0.0.1:50051",
                file=out,
                flush=True,
            )
        try:
            return await TerminalPlayer(client, me, name, out, ask).run()
        finally:
            for task in bots:
                task.cancel()
            await asyncio.gather(*bots, return_exceptions=True)
            if lasting:
                await _leave_unfinished(client, [me, *seated], out)


async def _leave_unfinished(client: Client, seats: list[Joined], out: TextIO) -> None:
    """Leave every seat of a game left before its end (``q``, Ctrl-C), so that the table's own
    bots play it out: its seats' bots here stop with the program, and a game left so on a
    server that goes on stood still in its lobby, its turn owed, for as long as it was kept.
    Best effort, within LEAVE_WITHIN_S: the server may be gone too."""
    if not seats:
        return
    try:
        async with asyncio.timeout(LEAVE_WITHIN_S):
            view = await client.view(seats[0].game_id)
            if view.status == game_pb2.GAME_STATUS_FINISHED:
                return
            for seat in seats:
                try:
                    await client.leave(seat.game_id, seat.token)
                except HustingsError:
                    pass  # absent already (its time ran out), or the game ended meanwhile
    except (HustingsError, TimeoutError):
        return
    print(f"Left game {seats[0].game_id} before its end: the table's bots play it out.", file=out, flush=True)
