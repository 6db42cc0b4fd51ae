"""An example bot over the network, for bot authors to copy: a seat played through the public
gRPC API with ``hustings.client`` (the generated stubs underneath), whatever the game kind.

Run it against your own server (``hustings serve``, or with no ``--server`` an embedded one):

    python -m hustings.ai.example_bot --kind stimmvieh --players 4            # you + 3 server bots
    python -m hustings.ai.example_bot --server 127.0.0.1:50051 --game GAME_ID  # join an open game

What a bot may rely on:
- Every view lists the seat's legal moves, fully enumerated (``view.legal_moves``): choosing one
  of them is always legal, so a bot needs no rules of its own. Change ``choose`` to play better.
- A seat acts when it is in ``view.to_act``; a few games also list moves that may be made at any
  time to seats that owe nothing (they are optional: this bot makes them only when it owes a move).
- Moves are idempotent under their request id: one id per decision, sent unchanged on every
  retry, so an answer lost in transit is simply asked again (``Client.move`` does this).
- ``expected_version`` makes a move made on an old view fail with ABORTED instead of landing on
  a table that changed; the bot then reads the view again.
- A stream (WatchGame) may break (a replica restarts, a proxy times out): resume it from the last
  version seen; no update is lost, and the first update carries the current view.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
from typing import AsyncIterator

import grpc

from hustings.client import Client, HustingsError, Joined, new_request_id
from hustings.v1 import game_pb2

RETRYABLE = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.INTERNAL,
             grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.UNKNOWN, grpc.StatusCode.CANCELLED)
MAX_RECONNECTS = 50
MAX_DECISIONS = 10_000
RECONNECT_PAUSE_S = 0.5
QUIET_S = 10.0  # a stream silent this long is given up and opened again


def choose(view: game_pb2.GameView, rng: random.Random) -> game_pb2.Move:
    """The decision: one of the listed legal moves. This one picks at random; yours can look at
    ``view`` (the table as your seat sees it, in the game's field of the view) and do better."""
    return rng.choice(list(view.legal_moves))


async def play(client: Client, joined: Joined, rng: random.Random) -> game_pb2.GameView:
    """Play ``joined``'s seat until the game is over; returns the final view."""
    seen = 0
    decided_at = -1  # the version our last move produced: older views are already answered
    reconnects = decisions = 0
    while reconnects <= MAX_RECONNECTS and decisions < MAX_DECISIONS:
        try:
            # From one version back, so that the first update carries the current view.
            async for update in _quiet_guard(client.watch(joined.game_id, joined.token, max(0, seen - 1))):
                view = update.view
                seen = max(seen, view.version)
                if view.status == game_pb2.GAME_STATUS_FINISHED:
                    return view
                if view.version < decided_at or joined.seat not in view.to_act or not view.legal_moves:
                    continue
                decisions += 1
                request_id = new_request_id()  # one id for this decision, reused by every retry
                try:
                    answer = await client.move(joined.game_id, joined.token, choose(view, rng),
                                               expected_version=view.version, request_id=request_id)
                    decided_at = answer.version
                except HustingsError as refused:
                    if refused.code not in (grpc.StatusCode.ABORTED, grpc.StatusCode.FAILED_PRECONDITION):
                        raise
                    # The table moved on (or the move is no longer ours to make): the stream
                    # brings the newer view.
        except HustingsError as broken:
            if broken.code not in RETRYABLE:
                raise
        reconnects += 1
        await asyncio.sleep(RECONNECT_PAUSE_S)
    return await client.view(joined.game_id, joined.token)


async def _quiet_guard(stream: AsyncIterator[object]) -> AsyncIterator[object]:
    """The stream's updates, ending it (to be reopened) when it stays silent too long."""
    try:
        while True:
            try:
                async with asyncio.timeout(QUIET_S):
                    update = await stream.__anext__()  # type: ignore[attr-defined]
            except (StopAsyncIteration, TimeoutError):
                return
            yield update
    finally:
        await stream.aclose()  # type: ignore[attr-defined]


async def main(args: argparse.Namespace) -> int:
    """Join (or create, with server-side bots in the other seats) and play one game."""
    rng = random.Random(args.seed)
    from hustings.service.replica import server_at  # without --server: an embedded server of our own

    async with server_at(args.server) as address, Client(address) as client:
        game_id = args.game
        if not game_id:
            table = game_pb2.TableSettings(bot_seats=range(1, args.players), bot_level=args.bot_level)
            game_id = (await client.create_game(args.kind, args.players, table=table)).game_id
        joined = await client.join(game_id, args.name)
        final = await play(client, joined, rng)
        placing = next((p for p in final.outcome.placings if p.HasField("seat") and p.seat == joined.seat), None)
        print(json.dumps({"game_id": game_id, "seat": joined.seat, "finished": final.status == game_pb2.GAME_STATUS_FINISHED,
                          "rank": placing.rank if placing else None}))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m hustings.ai.example_bot", description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", default="", help="gRPC address; empty: start an embedded server")
    parser.add_argument("--game", default="", help="join this game; empty: create one")
    parser.add_argument("--kind", default="stimmvieh", help="kind of a created game (default %(default)s)")
    parser.add_argument("--players", type=int, default=4, help="seats of a created game (default %(default)s)")
    parser.add_argument("--bot-level", default="", help="level of the server-side bots in a created game (random, greedy, strong)")
    parser.add_argument("--name", default="Example bot", help="display name (default %(default)s)")
    parser.add_argument("--seed", type=int, default=None, help="seed of this bot's choices")
    return parser


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main(_parser().parse_args())))
