"""The Redis store: one game = keys under the hash tag ``{game_id}``; every step is one Lua call.

Keys of a game (all in one Cluster slot):
- ``hustings:{id}:game``      hash: ``version`` and ``snapshot`` (a storage.v1.StoredGame)
- ``hustings:{id}:log``       stream: one entry per step, id ``<version>-0``, field ``e`` (LogEntry)
- ``hustings:{id}:requests``  hash: ``<seat>:<request_id>`` -> the version the request produced
Updates are announced on the channel ``hustings:{id}:updates`` (payload: the new version).
The lobby lives outside any game's slot, under its own hash tag: ``hustings:{lobby}:games``
(sorted set by creation time), ``hustings:{lobby}:summaries`` (GameSummary by game) and
``hustings:{lobby}:versions``; it is written after the commit, never with an older summary over a
newer one, and is only an index.
"""

from __future__ import annotations

import pathlib
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster

from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2

# The lobby's keys share one hash tag, so that its version-checked write is one script.
LOBBY_KEY = "hustings:{lobby}:games"
LOBBY_GAMES_KEY = "hustings:{lobby}:summaries"
LOBBY_VERSIONS_KEY = "hustings:{lobby}:versions"

CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}

_COMMIT_LUA = (pathlib.Path(__file__).parent / "lua" / "commit.lua").read_text()
_INDEX_LUA = (pathlib.Path(__file__).parent / "lua" / "index.lua").read_text()


def game_key(game_id: str) -> str:
    """The hash with the snapshot and version."""
    return f"hustings:{{{game_id}}}:game"


def log_key(game_id: str) -> str:
    """The append-only log stream."""
    return f"hustings:{{{game_id}}}:log"


def requests_key(game_id: str) -> str:
    """The request-id hash."""
    return f"hustings:{{{game_id}}}:requests"


def updates_channel(game_id: str) -> str:
    """The pub/sub channel announcing new versions."""
    return f"hustings:{{{game_id}}}:updates"


def game_id_of_channel(channel: str) -> str | None:
    """The game id in an updates channel name, or None."""
    start, end = channel.find("{"), channel.find("}")
    if start < 0 or end < start:
        return None
    return channel[start + 1 : end]


@dataclass(frozen=True)
class CommitResult:
    """The answer of the commit script."""

    status: str  # "OK", "CONFLICT" or "DUPLICATE"
    version: int
    snapshot: bytes = b""


class Store:
    """Async access to the games in one Redis deployment."""

    def __init__(self, client: "aioredis.Redis | RedisCluster") -> None:
        self.client = client
        self._commit = client.register_script(_COMMIT_LUA)
        self._index = client.register_script(_INDEX_LUA)

    @classmethod
    def from_url(cls, url: str) -> "Store":
        """A store over the Redis at ``url``.

        ``redis://[:password@]host:port/db``, ``rediss://`` (TLS) and ``unix://`` reach one server;
        ``redis+cluster://host:port`` and ``rediss+cluster://`` reach a Redis Cluster through any
        of its nodes.
        """
        scheme, sep, rest = url.partition("://")
        if sep and scheme in CLUSTER_SCHEMES:
            plain = CLUSTER_SCHEMES[scheme] + "://" + rest
            return cls(RedisCluster.from_url(plain, decode_responses=False))
        return cls(aioredis.Redis.from_url(url, decode_responses=False, health_check_interval=30))

    async def close(self) -> None:
        """Close the connection pool."""
        await self.client.aclose()

    async def load(self, game_id: str) -> storage_pb2.StoredGame | None:
        """The latest snapshot of a game, or None if it does not exist."""
        data = await self.client.hget(game_key(game_id), "snapshot")
        if data is None:
            return None
        stored = storage_pb2.StoredGame()
        stored.ParseFromString(data)
        return stored

    async def commit(
        self,
        stored: storage_pb2.StoredGame,
        base_version: int,
        entry: storage_pb2.LogEntry,
        request_field: str = "",
    ) -> CommitResult:
        """Write ``stored`` (at ``stored.version``) if the game is still at ``base_version``."""
        game_id = stored.game_id
        reply: list[Any] = await self._commit(
            keys=[game_key(game_id), log_key(game_id), requests_key(game_id)],
            args=[
                str(base_version),
                str(stored.version),
                stored.SerializeToString(),
                entry.SerializeToString(),
                request_field,
                updates_channel(game_id),
            ],
        )
        status = reply[0].decode()
        version = int(reply[1])
        snapshot = reply[2] if len(reply) > 2 else b""
        return CommitResult(status, version, snapshot)

    async def request_version(self, game_id: str, request_field: str) -> int | None:
        """The version a request id produced, if it was applied."""
        value = await self.client.hget(requests_key(game_id), request_field)
        return int(value) if value is not None else None

    async def log_entries(
        self, game_id: str, after_version: int = 0, up_to_version: int | None = None
    ) -> list[storage_pb2.LogEntry]:
        """Log entries with ``after_version < version <= up_to_version``, oldest first."""
        end = f"{up_to_version}-0" if up_to_version is not None else "+"
        raw = await self.client.xrange(log_key(game_id), min=f"({after_version}-0", max=end)
        entries = []
        for _id, fields in raw:
            entry = storage_pb2.LogEntry()
            entry.ParseFromString(fields[b"e"])
            entries.append(entry)
        return entries

    async def log_entry(self, game_id: str, version: int) -> storage_pb2.LogEntry | None:
        """The log entry of one version."""
        raw = await self.client.xrange(log_key(game_id), min=f"{version}-0", max=f"{version}-0")
        if not raw:
            return None
        entry = storage_pb2.LogEntry()
        entry.ParseFromString(raw[0][1][b"e"])
        return entry

    async def index(self, summary: game_pb2.GameSummary) -> None:
        """Record a game's summary in the lobby, unless a newer one is there already."""
        await self._index(
            keys=[LOBBY_KEY, LOBBY_GAMES_KEY, LOBBY_VERSIONS_KEY],
            args=[summary.game_id, summary.created_at, summary.version, summary.SerializeToString()],
        )

    async def lobby(self, offset: int, count: int) -> list[game_pb2.GameSummary]:
        """Lobby summaries, newest first."""
        ids = await self.client.zrevrange(LOBBY_KEY, offset, offset + count - 1)
        if not ids:
            return []
        raw = await self.client.hmget(LOBBY_GAMES_KEY, ids)
        summaries = []
        for data in raw:
            if data is not None:
                summary = game_pb2.GameSummary()
                summary.ParseFromString(data)
                summaries.append(summary)
        return summaries
