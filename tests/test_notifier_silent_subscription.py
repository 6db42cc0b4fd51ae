"""A replica's pub/sub subscription whose connection goes silent: its packets stop without a reset
(a NAT or firewall that forgot it, a peer half gone), the socket stays open, nothing comes. The
replica's streams then learned of each step only by their POLL_S sweep, about a second late, for as
long as the connection lasted, with no sign of it. The notifier now pings a subscription that has
heard nothing for PROBE_EVERY_S and makes it again when no answer comes within PROBE_ANSWER_S.

Real parts: a Redis server, a replica reaching it through a loopback proxy that can silence the
subscription's connection, another replica reaching Redis directly, gRPC streams and moves."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
import structlog.testing

from conftest import REPO, run
from hustings.service import notifier, watch
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store import updates_channel
from service_helpers import RedisProxy, new_game, replica_and_client

# The probe's figures here: pinged after 0.3 s of silence, made again after 1 s more without an
# answer (on a machine busy with other tests, a ping can wait a few hundred ms for its answer).
PROBE_EVERY_S = 0.3
PROBE_ANSWER_S = 1.0


class SubscriptionSilencer(RedisProxy):
    """Notes every connection that subscribes; ``silence`` makes those there now silent."""

    def __init__(self, target_port: int) -> None:
        super().__init__(target_port)
        self.subscribing: list[dict[str, Any]] = []

    async def request(self, data: bytes, connection: dict[str, Any]) -> None:
        if b"SUBSCRIBE" in data.upper() and connection not in self.subscribing:
            self.subscribing.append(connection)

    def silence(self) -> None:
        for connection in self.subscribing:
            connection["silent"] = True

    def silent(self, connection: dict[str, Any]) -> bool:
        return bool(connection.get("silent"))


def test_a_silent_subscription_is_made_again_and_streams_hear_steps_at_once(
    redis_server: EmbeddedRedis, monkeypatch: pytest.MonkeyPatch
) -> None:
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert "subscription that has heard nothing for 5 s is pinged, and made again when no answer comes within 5 s more" in readme
    assert (notifier.PROBE_EVERY_S, notifier.PROBE_ANSWER_S) == (5.0, 5.0)
    monkeypatch.setattr(notifier, "PROBE_EVERY_S", PROBE_EVERY_S)
    monkeypatch.setattr(notifier, "PROBE_ANSWER_S", PROBE_ANSWER_S)
    assert watch.POLL_S >= 2.0  # what a silent subscription's streams fell back on

    async def scenario() -> None:
        proxy = SubscriptionSilencer(redis_server.port)
        async with (
            proxy.running(),
            replica_and_client(proxy.url) as (_watched, watcher),
            replica_and_client(redis_server.url) as (_mover, mover),
        ):
            seats = await new_game(mover, 3)
            game_id = seats[0].game_id
            stream = watcher.watch(game_id)
            await asyncio.wait_for(stream.__anext__(), 10)  # the catch-up: the stream is there
            # Its subscription is made beside the catch-up's read, and under a full suite's load
            # may reach Redis after it (bounded wait).
            subscribed_by = time.monotonic() + 10
            while not proxy.subscribing and time.monotonic() < subscribed_by:
                await asyncio.sleep(0.01)
            before = len(proxy.subscribing)
            assert before >= 1, "the stream's game was never subscribed to"
            with structlog.testing.capture_logs() as logged:
                proxy.silence()
                silenced = time.monotonic()
                while len(proxy.subscribing) == before and time.monotonic() - silenced < watch.POLL_S * 3:  # bounded: 6 s
                    await asyncio.sleep(0.05)  # pinged, unanswered, made again (after its half-second pause)
            assert len(proxy.subscribing) > before, "the silent subscription was never made again"
            # README: "(`notifier_reconnecting` in the log)", once for the one silenced subscription.
            assert [line["log_level"] for line in logged if line["event"] == "notifier_reconnecting"] == ["warning"]
            await asyncio.sleep(0.2)  # the new subscription takes hold
            delays = []
            for _ in range(4):  # bounded: four moves, each heard within POLL_S or the test fails
                view = await mover.view(game_id)
                seat = min(view.to_act)
                mine = await mover.view(game_id, seats[seat].token)
                sent = time.monotonic()
                await mover.move(game_id, seats[seat].token, mine.legal_moves[0], expected_version=mine.version)
                while True:
                    update = await asyncio.wait_for(stream.__anext__(), watch.POLL_S * 2)
                    if update.version > mine.version:
                        break
                delays.append(time.monotonic() - sent)
                await asyncio.sleep(0.3)
            assert sorted(delays)[len(delays) // 2] < 0.25, delays  # the sweep alone: about a second
            await stream.aclose()

    run(scenario(), 60)


def test_a_redis_away_is_one_reconnecting_line_per_ten_seconds_not_two_a_second(own_redis: EmbeddedRedis) -> None:
    """The subscription tries again every half second while Redis is away; it wrote a warning
    each time (7,200 lines an hour of an outage, per replica). Now one line per cause every 10 s,
    as the background loops write theirs, counting those left out."""
    import redis.asyncio

    from hustings.service.notifier import Notifier

    async def scenario() -> list[dict[str, object]]:
        client = redis.asyncio.Redis.from_url(own_redis.url, socket_connect_timeout=0.2, socket_timeout=0.5)
        notifier = Notifier(client)
        with notifier.waiter("g" + "0" * 24):
            await notifier.start()
            for _ in range(100):  # bounded: 5 s for the subscription to be made
                if await client.pubsub_numsub(updates_channel("g" + "0" * 24)) != [(updates_channel("g" + "0" * 24).encode(), 0)]:
                    break
                await asyncio.sleep(0.05)
            with structlog.testing.capture_logs() as logged:
                own_redis.kill()
                await asyncio.sleep(2.5)  # four or five tries
                await notifier.stop()
        await client.aclose()
        return logged

    lines = [line for line in asyncio.run(scenario()) if line["event"] == "notifier_reconnecting"]
    assert len(lines) == 1 and lines[0]["log_level"] == "warning" and lines[0]["alike_not_logged"] == 0, lines
