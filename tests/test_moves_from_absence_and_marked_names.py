"""A player who comes back by moving from an absent seat pays the bank for the decision's time,
as ReturnToGame and then the move does (a decision's time is capped at the player's own deadline,
not at the bot's, which an absent seat has stored: due at once); and a server bot's name written
with a Latin letter that carries a mark ("Bọt (random)") is refused, a name being read in its
letters with their accents and dots dropped (engine/names.py ``letters``). Each runs against a
real replica on a Redis of its own.
"""

from __future__ import annotations

import asyncio
import pathlib

import pytest

from conftest import HeldClock, run
from hustings.client import HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2
from service_helpers import choose_top_candidates, replica_and_client, stimmvieh_options

POLLS = 200  # 0.02 s apart: bounded waits
# Tables nobody is at get this many decisions a second: the first comes at once, the next one
# not within the test, so that an absent seat owes its decision until its player makes it.
SLOW_UNATTENDED = 0.001


def test_a_move_from_an_absent_seat_pays_its_bank_for_the_decisions_time(tmp_path: pathlib.Path) -> None:
    """A table of a 100 s bank. Three players make their opening choice or leave owing it, so the
    table has nobody at it: Cy's bot chooses, and the campaign's first decision then waits for the
    replica's budget for such tables. Its seat's player thinks 30 s and moves from the absent seat,
    which brings it back (as ReturnToGame would) and makes the decision. Its bank should pay the
    30 s, as it does when the player calls ReturnToGame first: the decision keeps the clock it
    began with. It pays 0.1 s, the time to its bot's deadline (one pace after it began)."""
    clock = HeldClock()
    bank_s, thought_ms = 100, 30_000

    async def scenario(url: str) -> None:
        async with replica_and_client(url, local_clock=clock, unattended_decisions_per_second=SLOW_UNATTENDED) as (replica, client):
            settings = game_pb2.TableSettings(bank_seconds=bank_s, bot_level="random")
            game_id = (await client.create_game("stimmvieh", 3, stimmvieh_options(3), table=settings)).game_id
            seats = [await client.join(game_id, name) for name in ("Ada", "Bo", "Cy")]
            for seat in seats[:2]:
                await client.move(game_id, seat.token, choose_top_candidates(1, 2, 3, 4))
            for seat in seats:
                left = (await client.leave(game_id, seat.token)).view.version
            clock.advance_to_ms(replica, replica.host._now_ms() + 200)  # past the pace of a table of bots alone
            view = await client.view(game_id)
            for _ in range(POLLS):  # Cy's bot chooses: the budget's first decision
                if view.version > left:
                    break
                await asyncio.sleep(0.02)
                view = await client.view(game_id)
            assert view.version == left + 1 and len(view.to_act) == 1, (left, view.version, view.to_act)
            await replica.host.deadline_runner.stop()  # nothing else decides: the player does
            mover = seats[view.to_act[0]]
            mine = await client.view(game_id, mover.token)
            assert mine.seats[mover.seat].absent and mine.legal_moves
            bank_before = mine.seats[mover.seat].bank_ms

            clock.advance_to_ms(replica, replica.host._now_ms() + thought_ms)
            answer = await client.move(game_id, mover.token, mine.legal_moves[0], mine.version)
            assert answer.events[0].seat_changed.change == game_pb2.SeatChanged.CHANGE_RETURNED
            after = await client.view(game_id, mover.token)
            paid = bank_before - after.seats[mover.seat].bank_ms
            assert paid >= thought_ms, f"the decision took {thought_ms} ms of its player's and the bank paid {paid} ms"

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url), 60)


@pytest.mark.parametrize("name", ["Bọt (random)", "Bot (randọm)", "Bot (stróng)", "Bot (greedẏ)"])
def test_a_bot_name_with_marked_letters_is_refused(tmp_path: pathlib.Path, name: str) -> None:
    """A player joins a table with a random bot as "Bọt (random)" (a dot below the o): every seat
    and spectator reads it as the bot's name, and /play shows both without seat numbers (its
    names compare marks as written). "B0t (random)" and "Bоt (random)" in Cyrillic are refused;
    a mark on a Latin letter passes."""

    async def scenario(url: str) -> None:
        async with replica_and_client(url) as (_replica, client):
            settings = game_pb2.TableSettings(bot_seats=[1], bot_level="random")
            game_id = (await client.create_game("stimmvieh", 3, stimmvieh_options(3), table=settings)).game_id
            try:
                await client.join(game_id, name)
            except HustingsError as error:
                assert error.reason == "BAD_DISPLAY_NAME"
            else:
                view = await client.view(game_id)
                raise AssertionError(f"{name!r} sat beside {[s.display_name for s in view.seats if s.display_name]}")

    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        run(scenario(server.url), 30)
