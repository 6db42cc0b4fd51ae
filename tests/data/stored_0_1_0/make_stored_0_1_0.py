"""Make ``keys.jsonl``: games stored in Redis by a release 0.1.0 replica (see README.md here).

Run with hustings 0.1.0 installed (not this tree), against an empty Redis that nothing else uses:
    python make_stored_0_1_0.py redis://127.0.0.1:PORT/0 keys.jsonl
It plays through the 0.1.0 API on an in-process replica, then writes every key of that Redis.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import random
import sys

import redis

from hustings.client import Client
from hustings.service.replica import Replica, ReplicaConfig
from hustings.v1 import game_pb2

MAX_STEPS = 3000
# (name, kind, players, options, seed, how far): "open" leaves a seat free, "play:N" makes N
# moves, "end" plays to the end; "ballot" stops inside a Wahlspiel ballot after one verdict.
GAMES = [
    ("stimmvieh-open", "stimmvieh", 4, {}, "upgrade-s-open", "open"),
    ("stimmvieh-play", "stimmvieh", 4, {}, "upgrade-s-play", "play:9"),
    ("stimmvieh-end", "stimmvieh", 3, {"moderator": True}, "upgrade-s-end", "end"),
    ("wahlspiel-open", "wahlspiel", 3, {}, "upgrade-w-open", "open"),
    ("wahlspiel-play", "wahlspiel", 4, {}, "upgrade-w-play", "ballot"),
    ("wahlspiel-end", "wahlspiel", 4, {"gnomes": True}, "upgrade-w-end", "end"),
    ("spin-open", "spin_doctors", 3, {}, "upgrade-d-open", "open"),
    ("spin-play", "spin_doctors", 4, {}, "upgrade-d-play", "play:12"),
    ("spin-end", "spin_doctors", 3, {"scandals_set_aside": True}, "upgrade-d-end", "end"),
]


def options_of(kind: str, players: int, extra: dict[str, object]) -> game_pb2.GameOptions:
    options = game_pb2.GameOptions(players=players)
    getattr(options, kind).SetInParent()
    for name, value in extra.items():
        setattr(getattr(options, kind), name, value)
    return options


async def play(client: Client, game_id: str, tokens: list[str], how: str, rng: random.Random) -> None:
    moves = int(how.split(":")[1]) if how.startswith("play:") else MAX_STEPS
    for _ in range(moves):
        view = await client.view(game_id)
        if view.status == game_pb2.GAME_STATUS_FINISHED:
            return
        if how == "ballot" and view.wahlspiel.HasField("ballot") and len(view.wahlspiel.ballot.verdicts) == 1:
            return
        seat = sorted(view.to_act)[0]
        mine = await client.view(game_id, tokens[seat])
        await client.move(game_id, tokens[seat], rng.choice(list(mine.legal_moves)), expected_version=mine.version)
    if how == "end" or how == "ballot":
        raise AssertionError(f"{game_id}: {how} not reached")


async def make(url: str) -> dict[str, str]:
    replica = await Replica(ReplicaConfig(redis_url=url, address="127.0.0.1:0", allow_client_seed=True, grace_s=1.0)).start()
    names = {}
    try:
        async with Client(f"127.0.0.1:{replica.port}") as client:
            for name, kind, players, extra, seed, how in GAMES:
                rng = random.Random(name)
                created = await client.create_game(kind, players, options_of(kind, players, extra), seed=hashlib.sha256(seed.encode()).hexdigest())
                game_id = created.game_id
                names[name] = game_id
                seated = players - 1 if how == "open" else players
                tokens = [(await client.join(game_id, f"Player {i}")).token for i in range(seated)]
                if how != "open":
                    await play(client, game_id, tokens, how, rng)
                names[name + ":commitment"] = created.view.seed_commitment
                names[name + ":tokens"] = ",".join(tokens)
    finally:
        await replica.stop()
    return names


def dump(url: str) -> list[dict[str, object]]:
    """Every key of the Redis, sorted, in a form JSON can hold."""

    def text(raw: bytes) -> object:
        try:
            decoded = raw.decode()
            if decoded.isprintable():
                return decoded
        except UnicodeDecodeError:
            pass
        return {"base64": base64.b64encode(raw).decode()}

    r = redis.Redis.from_url(url)
    rows: list[dict[str, object]] = []
    for key in sorted(r.keys("*")):
        kind = r.type(key).decode()
        row: dict[str, object] = {"key": key.decode(), "type": kind}
        if kind == "string":
            row["value"] = text(r.get(key))
        elif kind == "hash":
            row["value"] = {k.decode(): text(v) for k, v in sorted(r.hgetall(key).items())}
        elif kind == "zset":
            row["value"] = [[m.decode(), s] for m, s in r.zrange(key, 0, -1, withscores=True)]
        elif kind == "stream":
            row["value"] = [[i.decode(), {k.decode(): text(v) for k, v in f.items()}] for i, f in r.xrange(key)]
        else:
            raise AssertionError(f"{key!r}: unexpected type {kind}")
        ttl = r.pttl(key)
        if ttl >= 0:
            row["pttl"] = ttl
        rows.append(row)
    return rows


def main() -> None:
    url, out = sys.argv[1], sys.argv[2]
    names = asyncio.run(make(url))
    with open(out, "w") as f:
        f.write(json.dumps({"games": names}) + "\n")
        for row in dump(url):
            f.write(json.dumps(row) + "\n")


if __name__ == "__main__":
    main()
