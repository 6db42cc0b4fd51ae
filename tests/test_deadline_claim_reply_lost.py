"""A claim of the deadline index whose reply was lost. The claim script leases the due games to
the replica; when its reply does not come back (the connection closed after the script ran),
redis-py sends it once more, and the script found nothing due: the games had its lease. Nobody
applied them until the lease ran out, and a one-second clock timed out 10-11 s late. The script now
answers what holds its lease, what it leased before included, so the resend gets the games.

Real parts: a Redis server, a replica reaching it through a loopback proxy that closes the
connection instead of passing on the reply to the first claim (service_helpers.CommitReplyCutter,
its marker the claim script's EVALSHA)."""

from __future__ import annotations

import asyncio
import hashlib
import time

from conftest import run
from hustings.service import deadlines
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2
from service_helpers import CommitReplyCutter, replica_and_client

CLAIM = b"EVALSHA\r\n$40\r\n" + hashlib.sha1(deadlines._CLAIM_LUA.encode()).hexdigest().encode()
LATE_S = deadlines.LEASE_MS / 2000  # half a lease: a claim that waited out its lease is later


def test_a_claim_whose_reply_was_lost_still_applies_its_games_on_time(own_redis: EmbeddedRedis) -> None:
    async def scenario() -> None:
        proxy = CommitReplyCutter(own_redis.port, CLAIM)
        async with proxy.running(), replica_and_client(proxy.url) as (_replica, client):
            table = game_pb2.TableSettings(decision_seconds=1)
            game_id = (await client.create_game("stimmvieh", 3, table=table)).game_id
            for name in ("Ada", "Bo", "Cy"):
                await client.join(game_id, name)
            view = await client.view(game_id)
            deadline_ms = min(s.deadline_unix_ms for s in view.seats if s.deadline_unix_ms)
            timed_out_at = None
            for _ in range(300):  # bounded: 0.05 s apart, 15 s at most
                now = await client.view(game_id)
                if now.version > view.version:
                    timed_out_at = time.time()
                    break
                await asyncio.sleep(0.05)
            assert proxy.cut == 1, "no claim's reply was cut: the case was not reached"
            assert timed_out_at is not None, "the timeout never landed"
            late_s = timed_out_at - deadline_ms / 1000
            assert late_s < LATE_S, f"the timeout landed {late_s:.2f} s after its deadline"

    run(scenario(), 60)


class _AnswerLostOnce(deadlines.DeadlineIndex):
    """The index, whose first claim runs in Redis and then fails as a connection lost before its
    answer does when redis-py's one resend fails too."""

    lost = 0

    async def claim(self, now: int, most: int = deadlines.CLAIM_BATCH, lease: int | None = None, again: bool = False) -> tuple[list[str], int]:
        games, lease = await super().claim(now, most, lease, again)
        if not self.lost:
            self.lost = len(games)
            raise ConnectionError("the answer was lost")
        return games, lease


def test_a_poll_after_a_claim_that_got_no_answer_claims_its_games_again(own_redis: EmbeddedRedis) -> None:
    """The next poll makes the claim again under its lease, over every bucket: the games it
    leased (no longer due) are claimed with the ones due since, not left to wait out the lease."""
    from hustings.service.store import Store
    from service_helpers import held_runner

    async def scenario() -> None:
        store = Store.from_url(own_redis.url)
        hold = asyncio.Event()
        calls: list[str] = []
        try:
            index = _AnswerLostOnce(store.client)
            runner = held_runner(index, calls, hold)
            now = deadlines.now_ms()
            games = [f"lost-claim-{n}" for n in range(40)]
            for game_id in games:
                await index.schedule(game_id, now - 1000)
            try:
                await runner.poll()
            except ConnectionError:
                pass
            assert index.lost == len(games) and calls == []  # leased, and nobody told
            await index.schedule("due-since", now - 500)
            started = await runner.poll()
            await asyncio.sleep(0.05)
            assert sorted(calls) == sorted([*games, "due-since"]), calls
            hold.set()
            await asyncio.gather(*started)
        finally:
            await store.close()

    run(scenario(), 60)


def test_a_claim_sent_again_answers_all_it_leased_and_no_more_than_asked(own_redis: EmbeddedRedis) -> None:
    """Six games due in one bucket, claims of two: a claim sent again answers the two it leased,
    not two more (leased too, and then left to wait out the lease); another claim (its own lease)
    takes the next two; leases of one moment differ."""
    from hustings.service.store import Store

    async def scenario() -> None:
        store = Store.from_url(own_redis.url)
        try:
            index = deadlines.DeadlineIndex(store.client)
            now = deadlines.now_ms()
            bucket = deadlines.bucket_key("backlog-0")
            games = [g for g in (f"backlog-{n}" for n in range(400)) if deadlines.bucket_key(g) == bucket][:6]
            assert len(games) == 6
            for game_id in games:
                await index.schedule(game_id, now - 1000)
            first, lease = await index.claim(now, 2)
            resent, _ = await index.claim(now, 2, lease)
            again, _ = await index.claim(now, 2, lease, again=True)
            assert len(first) == 2 and sorted(resent) == sorted(first) == sorted(again), (first, resent, again)
            other, other_lease = await index.claim(now, 2)
            assert len(other) == 2 and not set(other) & set(first) and other_lease != lease
            # Leases of one moment spread over a second to the fraction of a millisecond: a
            # thousand of them nearly all differ (as whole milliseconds, about 630 would).
            assert len({deadlines.new_lease(now) for _ in range(1000)}) >= 990
        finally:
            await store.close()

    run(scenario(), 60)
