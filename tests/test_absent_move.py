"""A move from an absent seat brings its player back (README Tables).

An absent seat's bot decides for it; a player who comes back and moves is at the table again,
as ReturnToGame would say: the same step records CHANGE_RETURNED, the seat's next decisions are
its player's (on the table's clock), and the lobby shows the seat present. Before, the move was
applied and the seat stayed absent, so its bot went on playing the player's next turns.
"""

from __future__ import annotations

import asyncio
import pathlib
import time

from conftest import run
from service_helpers import choose_top_candidates
from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.replica import SOLE_CLIENT, Replica, ReplicaConfig
from hustings.v1 import game_pb2

Change = game_pb2.SeatChanged.Change
# Tables nobody is at get this many decisions a second: the first comes at once, the next one
# not within the test, so that the absent seat owes its decision until its player makes it.
SLOW_UNATTENDED = 0.001


def test_a_move_from_an_absent_seat_returns_it(tmp_path: pathlib.Path) -> None:
    async def scenario(server: EmbeddedRedis) -> None:
        config = ReplicaConfig(redis_url=server.url, address="127.0.0.1:0", grace_s=1.0,
                               **{**SOLE_CLIENT, "unattended_decisions_per_second": SLOW_UNATTENDED})
        replica = await Replica(config).start()
        try:
            async with Client(f"127.0.0.1:{replica.port}") as client:
                game_id = (await client.create_game("stimmvieh", players=3)).game_id
                seats = [await client.join(game_id, name) for name in ("Ada", "Bo", "Cy")]
                # Ada and Bo make their opening choice and leave; Cy leaves owing hers, so the
                # table has nobody at it: her bot chooses (the budget's first decision), and the
                # campaign's first decision then waits for the budget.
                for seat in seats[:2]:
                    await client.move(game_id, seat.token, choose_top_candidates(1, 2, 3, 4))
                for seat in seats:
                    left = (await client.leave(game_id, seat.token)).view.version
                deadline = time.monotonic() + 20
                view = await client.view(game_id)
                while view.version == left and time.monotonic() < deadline:  # bounded: 20 s
                    await asyncio.sleep(0.05)
                    view = await client.view(game_id)
                assert view.version == left + 1 and view.to_act, (left, view.version, view.to_act)  # Cy's bot chose
                (mover,) = [seats[s] for s in view.to_act[:1]]
                mine = await client.view(game_id, mover.token)
                assert mine.seats[mover.seat].absent and mine.legal_moves

                answer = await client.move(game_id, mover.token, mine.legal_moves[0], mine.version)

                assert answer.version == mine.version + 1
                first = answer.events[0].seat_changed
                assert (first.seat, first.change, first.display_name) == (mover.seat, Change.CHANGE_RETURNED, mover.view.seats[mover.seat].display_name)
                after = await client.view(game_id, mover.token)
                assert not after.seats[mover.seat].absent
                assert [s.absent for s in after.seats] == [s != mover.seat for s in range(3)]
                (entry,) = [h for h in await client.history(game_id) if h.version == answer.version]
                assert entry.seat == mover.seat and entry.events[0].seat_changed.change == Change.CHANGE_RETURNED
                (listed,) = (await client.games()).games
                assert [s.absent for s in listed.seats] == [s != mover.seat for s in range(3)]  # the lobby too
        finally:
            await replica.stop()

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server), 60)
