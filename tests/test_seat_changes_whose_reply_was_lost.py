"""LeaveGame and ReturnToGame carry no request id. When the reply to a leave's or a return's
commit is lost (the command ran in Redis, the connection closed before its answer came back), the
commits' connection resends it, and the resend meets the step it made: the version moved on. The
call then reloaded the game, found the seat already absent (or back), and answered its one and
only attempt FAILED_PRECONDITION ALREADY_ABSENT (NOT_ABSENT) for a change it had made, which the
clients pass on to the player, since they take those refusals as answers only after an attempt of
their own failed. Now the call finds its own step in the log and is answered as applied.

Real parts: a Redis server, a replica reaching it through a proxy that loses the reply to the first
commit carrying a marker (service_helpers.CommitReplyCutter), one gRPC attempt per call."""

from __future__ import annotations

import asyncio

from conftest import run
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2, game_service_pb2 as gs
from service_helpers import CommitReplyCutter, replica_and_client

MARKER = "Leaver-6c1f93ad"  # in every snapshot of the game once the seat is taken
TIMEOUT_S = 30.0
Change = game_pb2.SeatChanged.Change


def _changes(history: list[game_pb2.HistoryEntry], seat: int, change: int) -> int:
    """How many of ``seat``'s seat changes of kind ``change`` the history holds."""
    return sum(
        1 for h in history for e in h.events if e.HasField("seat_changed") and (e.seat_changed.seat, e.seat_changed.change) == (seat, change)
    )


def test_a_leave_and_a_return_whose_commit_reply_was_lost_are_answered_as_applied(redis_server: EmbeddedRedis) -> None:
    async def scenario() -> None:
        proxy = CommitReplyCutter(redis_server.port, MARKER.encode())
        proxy.cut = 1  # disarmed while the game is made: the joins' commits carry the marker too
        async with proxy.running(), replica_and_client(proxy.url) as (_replica, client):
            game_id = (await client.create_game("stimmvieh", 3)).game_id
            leaver = await client.join(game_id, MARKER)
            for name in ("Bo", "Cy"):
                await client.join(game_id, name)
            auth = (("authorization", f"Bearer {leaver.token}"),)
            for call, request, absent, change in [
                (client.stub.LeaveGame, gs.LeaveGameRequest(game_id=game_id), True, Change.CHANGE_LEFT),
                (client.stub.ReturnToGame, gs.ReturnToGameRequest(game_id=game_id), False, Change.CHANGE_RETURNED),
            ]:
                proxy.cut = 0  # the next commit's reply is lost
                answer = await asyncio.wait_for(call(request, metadata=auth), TIMEOUT_S)  # one attempt
                assert proxy.cut == 1, "the commit's reply was not cut: the case was not reached"
                assert answer.view.seats[leaver.seat].absent is absent
                view = await client.view(game_id)
                assert view.status == game_pb2.GAME_STATUS_ACTIVE
                assert view.seats[leaver.seat].absent is absent
                assert _changes(await client.history(game_id), leaver.seat, change) == 1, "the change was applied once"

    run(scenario(), TIMEOUT_S * 3)


def test_a_leave_of_an_open_game_whose_commit_reply_was_lost_is_answered_as_applied(redis_server: EmbeddedRedis) -> None:
    """Leaving an open game frees the seat and retires its token: the call that looked again
    after its resent commit found the token no longer any seat's, and was refused
    INVALID_SEAT_TOKEN for the leave it had made."""

    async def scenario() -> None:
        proxy = CommitReplyCutter(redis_server.port, MARKER.encode())
        proxy.cut = 1
        async with proxy.running(), replica_and_client(proxy.url) as (_replica, client):
            game_id = (await client.create_game("stimmvieh", 3)).game_id
            leaver = await client.join(game_id, MARKER)
            version = (await client.view(game_id)).version
            proxy.cut = 0
            auth = (("authorization", f"Bearer {leaver.token}"),)
            await asyncio.wait_for(client.stub.LeaveGame(gs.LeaveGameRequest(game_id=game_id), metadata=auth), TIMEOUT_S)
            assert proxy.cut == 1, "the commit's reply was not cut: the case was not reached"
            view = await client.view(game_id)
            assert view.status == game_pb2.GAME_STATUS_OPEN and not view.seats[leaver.seat].display_name
            assert view.version == version + 1  # an open game has no bot to decide meanwhile
            # What follows a commit followed it: the lobby lists the seat free at once.
            listed = {g.game_id: g for g in (await client.games(status=game_pb2.GAME_STATUS_OPEN, page_size=200)).games}
            assert not listed[game_id].seats[leaver.seat].display_name

    run(scenario(), TIMEOUT_S * 3)
