"""An example bot over the network, for bot authors to copy: a seat played through the public
gRPC API with ``hustings.client`` (the generated stubs underneath), whatever the game kind.

Run it against your own server (``hustings serve``, or with no ``--server`` an embedded one):

    python -m hustings.ai.example_bot --kind stimmvieh --players 4            # you + 3 server bots
    python -m hustings.ai.example_bot --server 127.0.0.1:50051 --game GAME_ID  # join an open game

It prints one JSON line when the game is over: game id, seat, whether it finished, its rank.

What a bot may rely on:
- Every view lists the seat's legal moves, fully enumerated (``view.legal_moves``): choosing one
  of them is always legal, so a bot needs no rules of its own. Change ``choose`` to play better,
  or play an engine bot of the arena (``--engine-bot strong``; ``hustings.ai.network``).
- A seat acts when it is in ``view.to_act``; a few games also list moves that may be made at any
  time to seats that owe nothing (they are optional: this bot makes them only when it owes a move).
- Moves are idempotent under their request id: one id per decision, sent unchanged on every
  retry, so an answer lost in transit is simply asked again (``Client.move`` does this; when even
  its retries fail, this bot keeps the decision, move and id, and sends it again unchanged once
  it is connected again and the table is still at that version).
- ``expected_version`` makes a move made on an old view fail with ABORTED instead of landing on
  a table that changed; the stream then brings the newer view.
- A seat whose time ran out too often in a row (or that left) is absent: its server-side bot
  then makes each of its decisions at once, ahead of anything this bot sends. The view says so
  (``view.seats[seat].absent``), and this bot calls ReturnToGame to decide for itself again.
- A move or a return refused RESOURCE_EXHAUSTED is sent again after the server's retry hint, on
  the same stream; a return refused GAME_OVER (the game ended first) ends the bot with the final
  view; any other refusal (INTERNAL, say) ends it with the reason, and exit status 1.
- A stream (WatchGame) may break (a replica restarts, a proxy times out) or go silent: resume it
  from one version before the last one seen, on any replica; no update is lost, and the first
  update carries the current view. With several ``--server`` addresses (replicas of one store,
  comma-separated) each reconnection goes to the next one, after a pause drawn at random (so that
  the bots a replica's death cut off together do not all come back in the same instant), longer
  after each stream in a row that brought nothing, and no shorter than the server's retry hint.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
from dataclasses import dataclass, field
from typing import AsyncIterator, Callable, Sequence, TypeVar

import grpc

from hustings.client import Client, HustingsError, Joined, RetryPolicy, checked_display_name, hinted_pause_s, new_request_id
from hustings.stopping import until_stopped
from hustings.v1 import game_pb2

# Codes after which watching again (on this or another replica) may get further.
RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.INTERNAL,
             grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.UNKNOWN, grpc.StatusCode.CANCELLED)
# Errors of a move that say no replica answered it: the bot watches again and sends it again.
UNANSWERED = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNKNOWN, grpc.StatusCode.CANCELLED)
# Refusals of a move that only say the table moved on, or that the move is no longer ours.
MOVED_ON = (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION)
# Streams opened in a row while the game stands still: every break or silence costs one, and the
# game moving on (its version advancing) starts the count again, however long the others take.
MAX_WATCHES = 50
MAX_DECISIONS = 10_000
# The pause before watching again is drawn from zero up to a cap: RECONNECT_PAUSE_S after a stream
# that brought an update, doubled for each stream in a row that brought none, up to RECONNECT_MAX_S.
RECONNECT_PAUSE_S = 0.5
RECONNECT_MAX_S = 4.0
QUIET_S = 10.0  # a stream silent this long is given up and opened again
# A move (or a return to an absent seat) refused RESOURCE_EXHAUSTED (a limit such as the
# address's rate of calls, past what the client's own retries wait for) is sent again, unchanged,
# after the server's retry hint (or a growing pause without one), this many times in a row at
# most; the stream is not broken by it. Any other refusal (INTERNAL, say) ends the bot with its
# reason, but for those that say the table moved on (a move) or the seat is back (a return).
MAX_MOVE_PACES = 20
Update = TypeVar("Update")


def choose(view: game_pb2.GameView, rng: random.Random) -> game_pb2.Move:
    """The decision: one of the listed legal moves. This one picks at random; yours can look at
    ``view`` (the table as your seat sees it, in the game's field of the view) and do better."""
    return rng.choice(list(view.legal_moves))


@dataclass
class Decision:
    """One decision: the move chosen at a version, and the request id that every attempt carries."""

    version: int
    move: game_pb2.Move
    request_id: str = field(default_factory=new_request_id)


class Refused(Exception):
    """A move, or a return to an absent seat, refused for good: the bot ends with its reason
    rather than watch again."""

    def __init__(self, call: str, version: int, refusal: HustingsError) -> None:
        super().__init__(f"{call} at version {version} refused: {refusal.code.name} {refusal.reason}: {refusal.message}")
        self.call = call
        self.version = version
        self.refusal = refusal


MoveRefused = Refused  # the name this exception had when only a move could end the bot


@dataclass
class Played:
    """What playing a seat came to."""

    view: game_pb2.GameView  # the last view: the final one when the game is over
    watched_from: list[int] = field(default_factory=list)  # each stream's from_version, the first included
    decided: list[int] = field(default_factory=list)  # the version each applied decision reached
    returned: list[int] = field(default_factory=list)  # the version at which each return to an absent seat was asked


async def play(
    clients: Sequence[Client],
    joined: Joined,
    rng: random.Random,
    log: Callable[[str], None] = lambda line: None,
    decide: Callable[[game_pb2.GameView], game_pb2.Move] | None = None,
) -> Played:
    """Play ``joined``'s seat until the game is over, following the game on ``clients[0]``'s
    server and on the next one after each break; each decision is ``choose``'s, or ``decide``'s
    when given (an engine bot's: ``hustings.ai.network.NetworkBot(...).choose``)."""
    played = Played(game_pb2.GameView())
    seen = 0
    decided_at = -1  # the version our last move produced: older views are already answered
    pending: Decision | None = None  # a decision whose answer we have not had yet
    standing = 0  # streams opened since the game last moved on
    fruitless = 0  # streams in a row that brought no update (refused, or broken before one)
    watch = -1
    while standing < MAX_WATCHES and len(played.decided) < MAX_DECISIONS:
        watch += 1
        standing += 1
        client = clients[watch % len(clients)]
        from_version = max(0, seen - 1)  # one version back, so that the first update carries the current view
        played.watched_from.append(from_version)
        log(f"watching {joined.game_id} after version {from_version} at {client.address}")
        hint: float | None = None
        fruitless += 1
        try:
            async for update in _quiet_guard(client.watch(joined.game_id, joined.token, from_version)):
                fruitless = 0
                view = update.view
                if view.version > seen:
                    seen, standing = view.version, 0  # the game moved on: this stream counts no more
                played.view = view
                if view.status == game_pb2.GAME_STATUS_FINISHED:
                    return played
                if view.version < decided_at:
                    continue  # already answered: our own step is ahead of this view
                if _absent(view, joined.seat):
                    # Our seat's bot decides at once while we are away: come back first.
                    log(f"seat {joined.seat} absent at version {view.version}: returning")
                    for paced in range(MAX_MOVE_PACES + 1):
                        try:
                            back = await client.return_to_game(joined.game_id, joined.token)
                            decided_at = back.view.version
                            played.returned.append(view.version)
                        except HustingsError as refused:
                            if refused.code in UNANSWERED:
                                raise  # the server did not answer: watch again, and return again if still absent
                            if refused.code == grpc.StatusCode.RESOURCE_EXHAUSTED and paced < MAX_MOVE_PACES:
                                log(f"return at version {view.version} refused: {refused.reason}; asking again")
                                await asyncio.sleep(reconnect_pause_s(paced, refused.retry_after_s, _PAUSES))
                                continue
                            if refused.reason == "GAME_OVER":
                                # The game ended before the return reached it: its final view.
                                played.view = await client.view(joined.game_id, joined.token)
                                if played.view.status == game_pb2.GAME_STATUS_FINISHED:
                                    return played
                            if refused.reason != "NOT_ABSENT":  # NOT_ABSENT: back already, by another program of the seat
                                raise Refused("return", view.version, refused) from None
                        break
                    continue  # the return is a step of its own: the stream brings the view after it
                if joined.seat not in view.to_act or not view.legal_moves:
                    continue
                # One decision per version; the same one again (move and id) if its answer was lost.
                if pending is None or pending.version != view.version:
                    pending = Decision(view.version, _decision(view, rng, decide, log))
                for paced in range(MAX_MOVE_PACES + 1):
                    try:
                        answer = await client.move(joined.game_id, joined.token, pending.move,
                                                   expected_version=pending.version, request_id=pending.request_id)
                        decided_at = answer.version
                        played.decided.append(answer.version)
                    except HustingsError as refused:
                        if refused.code in UNANSWERED:
                            raise  # the server did not answer (the client's retries included): watch again, keep the decision
                        if refused.code == grpc.StatusCode.RESOURCE_EXHAUSTED and paced < MAX_MOVE_PACES:
                            # A limit asks us to slow down: the same decision (move and id) again
                            # after the server's hint, or a growing pause without one.
                            log(f"move at version {pending.version} refused: {refused.reason}; sending it again")
                            await asyncio.sleep(reconnect_pause_s(paced, refused.retry_after_s, _PAUSES))
                            continue
                        if refused.code not in MOVED_ON:
                            raise Refused("move", pending.version, refused) from None
                        # The stream brings the newer view: expected at tables where several decide at once.
                        log(f"move at version {pending.version} refused: {refused.reason}; the table moved on, deciding on its next view")
                    break
                pending = None
            log(f"stream ended or went quiet at version {seen}")
        except HustingsError as broken:
            if broken.code not in RETRYABLE:
                raise
            log(f"stream broken at version {seen}: {broken.code.name} {broken.reason}")
            hint = broken.retry_after_s
        await asyncio.sleep(reconnect_pause_s(fruitless, hint, _PAUSES))
    played.view = await clients[0].view(joined.game_id, joined.token)
    return played


def reconnect_pause_s(fruitless: int, retry_after_s: float | None, rng: random.Random) -> float:
    """The pause before watching again after ``fruitless`` streams in a row that brought no update:
    drawn from zero up to a cap that doubles with each of them (full jitter, as ``Client``'s own
    retries), and no shorter than the server's retry hint when the refusal carried one."""
    pause = RetryPolicy(first_backoff_s=RECONNECT_PAUSE_S, max_backoff_s=RECONNECT_MAX_S).backoff_s(fruitless, rng)
    return pause if retry_after_s is None else max(pause, hinted_pause_s(retry_after_s, rng))


# Apart from the seeded generator of the choices, so that --seed replays them however the
# connection fares.
_PAUSES = random.Random()


def _decision(
    view: game_pb2.GameView,
    rng: random.Random,
    decide: Callable[[game_pb2.GameView], game_pb2.Move] | None,
    log: Callable[[str], None],
) -> game_pb2.Move:
    """``decide``'s move, or ``choose``'s: also when ``decide`` cannot read the view (an engine
    bot of a build older than the server's, say), so that the seat plays on rather than time out."""
    if decide is None:
        return choose(view, rng)
    try:
        return decide(view)
    except ValueError as unreadable:
        log(f"the engine bot cannot use the view at version {view.version} ({unreadable}); choosing among the listed moves")
        return choose(view, rng)


def _absent(view: game_pb2.GameView, seat: int) -> bool:
    """True when ``seat`` is absent in a running game, so that its server-side bot decides."""
    return view.status == game_pb2.GAME_STATUS_ACTIVE and any(s.seat == seat and s.absent for s in view.seats)


async def _quiet_guard(stream: AsyncIterator[Update]) -> AsyncIterator[Update]:
    """The stream's updates, ending it (to be reopened) when it stays silent too long."""
    try:
        while True:
            try:
                async with asyncio.timeout(QUIET_S):
                    update = await anext(stream)
            except (StopAsyncIteration, TimeoutError):
                return
            yield update
    finally:
        await stream.aclose()  # type: ignore[attr-defined]


async def main(args: argparse.Namespace) -> int:
    """Join (or create, with server-side bots in the other seats) and play one game."""
    rng = random.Random(args.seed)
    from hustings.service.replica import server_at  # without --server: an embedded server of our own

    def log(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    try:
        checked_display_name(args.name)  # before any table is made: a refused name leaves none behind
    except HustingsError as refused:
        log(str(refused))
        return 1
    async with server_at(args.server) as address, contextlib.AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(Client(a.strip())) for a in address.split(",")]
        game_id = args.game
        try:
            if not game_id:
                table = game_pb2.TableSettings(bot_seats=range(1, args.players), bot_level=args.bot_level)
                game_id = (await clients[0].create_game(args.kind, args.players, table=table)).game_id
                log(f"created {args.kind} game {game_id} with server-side bots in seats 1 to {args.players - 1}")
            joined = await clients[0].join(game_id, args.name)
        except HustingsError as refused:  # the table or the seat refused (GAME_FULL, GAME_NOT_FOUND, ...)
            log(str(refused))
            return 1
        decide = None
        if args.engine_bot:  # an engine bot of the arena, deciding from the views it is sent
            from hustings.ai import make_bot
            from hustings.ai.network import NetworkBot

            seed = None if args.seed is None else f"example-bot/{args.seed}".encode()
            decide = NetworkBot(make_bot(args.engine_bot), seed).choose
        try:
            final = (await play(clients, joined, rng, log, decide)).view
        except Refused as refused:
            log(str(refused))
            return 1
        placing = next((p for p in final.outcome.placings if p.HasField("seat") and p.seat == joined.seat), None)
        print(json.dumps({"game_id": game_id, "seat": joined.seat, "finished": final.status == game_pb2.GAME_STATUS_FINISHED,
                          "rank": placing.rank if placing else None}))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m hustings.ai.example_bot", description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default="", help="gRPC address, or several replicas' comma-separated; empty: start an embedded server")
    parser.add_argument("--game", default="", help="join this game; empty: create one")
    parser.add_argument("--kind", default="stimmvieh", help="kind of a created game (default %(default)s)")
    parser.add_argument("--players", type=int, default=4, help="seats of a created game (default %(default)s)")
    parser.add_argument("--bot-level", default="", help="level of the server-side bots in a created game: random (the default), greedy, strong")
    parser.add_argument("--name", default="Example bot", help="display name (default %(default)s)")
    parser.add_argument("--seed", type=int, default=None, help="seed of this bot's choices")
    parser.add_argument("--engine-bot", default="", choices=("", "random", "greedy", "strong"),
                        help="decide with the engine bot of this level (as in the arena), from each view rebuilt into a state; default: choose()")
    return parser


if __name__ == "__main__":
    # SIGTERM or SIGHUP (a closed terminal) ends it as Ctrl-C does: its embedded server stops too.
    raise SystemExit(asyncio.run(until_stopped(main(_parser().parse_args()))))
