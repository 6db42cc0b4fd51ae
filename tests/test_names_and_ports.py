"""This release's own changes held at their edges, against real parts (a real Redis, a real
replica over gRPC):

- Names: a server bot's name is recognised without the characters that show nothing and with
  its blanks trimmed and collapsed: "Bot (strong) " + a variation selector (or a Hangul filler)
  shows as "Bot (strong)" and sat. (The page folds names alike: tests/test_play_names.py.)
- The listen-address check refuses a port of digits that ``int`` does not read ("²") in one
  line, as any port outside 0-65535; it ended ``serve`` in a traceback from the check itself.
"""

from __future__ import annotations

import grpc
import pytest

from conftest import run
from hustings.client import HustingsError
from hustings.service.replica import Replica, ReplicaConfig, StartupError
from hustings.v1 import game_pb2
from service_helpers import replica_and_client, stimmvieh_options

# A server bot's name followed by a blank and a character that shows nothing: the page shows
# "Bot (strong)" (HTML drops the trailing blank, the selector and filler draw nothing), and the
# double space collapses to one.
BOT_LOOKALIKES = {
    "space-and-variation-selector": "Bot (strong) \ufe0f",
    "space-and-hangul-filler": "Bot (random) \u3164",
    "space-and-blank-braille": "Bot (greedy) \u2800",
    "double-space": "Bot  (strong)",
}


@pytest.mark.parametrize("name", list(BOT_LOOKALIKES.values()), ids=list(BOT_LOOKALIKES))
def test_a_display_name_may_not_pass_for_a_server_bot_through_blanks(redis_server: object, name: str) -> None:
    """proto JoinGameRequest.display_name: "not a server bot's name ("Bot (random)", however
    written)"; CHANGELOG: "A server bot's name is recognised without the characters that show
    nothing". Over gRPC, each of these names is refused BAD_DISPLAY_NAME and no seat is taken."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):  # type: ignore[attr-defined]
            created = await client.create_game("stimmvieh", 3, stimmvieh_options(3))
            refused: HustingsError | None = None
            try:
                await client.join(created.game_id, name)
            except HustingsError as error:
                refused = error
            view = await client.view(created.game_id)
            taken = [seat.display_name for seat in view.seats if seat.display_name]
            assert refused is not None, f"{ascii(name)} sat as {ascii(taken)}"
            assert refused.code == grpc.StatusCode.INVALID_ARGUMENT and refused.reason == "BAD_DISPLAY_NAME", refused
            assert taken == []
            assert view.status == game_pb2.GAME_STATUS_OPEN

    run(scenario(), 60)


@pytest.mark.parametrize("face", ["address", "http_address", "metrics_address"])
def test_a_port_of_other_digits_stops_the_replica_with_one_line(face: str) -> None:
    """deploy/README: a setting that cannot work stops `serve` at start with one line, never a
    traceback; CHANGELOG: a listen address whose port is outside 0-65535 stops `serve` with one
    line. `serve` prints a StartupError as that line; any other exception is a traceback. The
    check runs before Redis is reached, so no Redis is needed."""
    config = {"address": "127.0.0.1:0", face: "127.0.0.1:\u00b2"}
    replica = Replica(ReplicaConfig(redis_url="redis://127.0.0.1:1/0", **config))  # type: ignore[arg-type]

    async def scenario() -> None:
        with pytest.raises(StartupError):
            await replica.start()

    run(scenario(), 20)
