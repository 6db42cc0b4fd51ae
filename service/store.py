"""The Redis store: one game = keys under the hash tag ``{game_id}``; every step is one Lua call.

Keys of a game (all in one Cluster slot):
- ``hustings:{id}:game``      hash: ``version``, ``status`` and ``snapshot`` (a storage.v1.StoredGame)
- ``hustings:{id}:log``       stream: one entry per step, id ``<version>-0``, field ``e`` (LogEntry)
- ``hustings:{id}:requests``  hash: keyed hash of ``(scope, request_id)`` -> ``"<version> <fingerprint>"``
Updates are announced on the channel ``hustings:{id}:updates`` (payload: the new version).
A CreateGame request id is kept (as a keyed hash) in ``hustings:create:{<hash>}`` -> ``"<game id>
<fingerprint>"`` for a day, so that a retry finds its game although game ids are random.
The lobby lives outside any game's slot, under its own hash tag: ``hustings:{lobby}:games``
(sorted set by creation time), ``hustings:{lobby}:summaries`` (GameSummary by game),
``hustings:{lobby}:versions`` and ``hustings:{lobby}:live`` (games not finished, to repair), and
the filter sets ``hustings:{lobby}:filter:kind:<kind>``, ``…:filter:status:<n>`` and
``…:filter:kind:<kind>:status:<n>`` (each game's lobby position at score 0, so in lobby order),
from which a filtered ListGames reads only the games that match, and ``hustings:{lobby}:filed-kinds``
(the kinds filed there, a handful, which the lobby repair's sweep reads rather than search the
keyspace for filter sets; ``…:filed-kinds:walk``: how far a search of the keyspace for sets filed
before that set was kept has gone, ``done`` once it went round). It is only an index: never
written with an older summary over a newer one, and repaired from the games themselves
(``service/lobby.py``), since on Redis Cluster no script can write a game and the lobby together.
"""

from __future__ import annotations

import asyncio
import contextlib
import pathlib
import re
import secrets
import urllib.parse
from dataclasses import dataclass
from typing import Any, Awaitable, Iterator

import redis.asyncio as aioredis
import structlog
from redis.asyncio.cluster import ClusterPipeline, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, RedisClusterException, ResponseError

from hustings.service.lane import Lane
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2

# The lobby's keys share one hash tag, so that its version-checked write is one script.
LOBBY_KEY = "hustings:{lobby}:games"
LOBBY_GAMES_KEY = "hustings:{lobby}:summaries"
LOBBY_VERSIONS_KEY = "hustings:{lobby}:versions"
LOBBY_LIVE_KEY = "hustings:{lobby}:live"
LOBBY_FILTER_PREFIX = "hustings:{lobby}:filter:"
# The kinds ever filed in the filter sets (``lua/index.lua`` and ``Store.refile`` add theirs; the
# search of the keyspace adds those it finds), and the state of that search, shared by the
# replicas: "<run id of the Redis process searched> <its cursor>" while it goes on,
# ``FILTER_WALK_DONE`` once it has gone round.
LOBBY_KINDS_KEY = "hustings:{lobby}:filed-kinds"
FILTER_WALK_KEY = "hustings:{lobby}:filed-kinds:walk"
FILTER_WALK_DONE = b"done"
# The statuses a game is filed under, in the order the lobby scripts take their sets.
FILED_STATUSES = (game_pb2.GAME_STATUS_OPEN, game_pb2.GAME_STATUS_ACTIVE, game_pb2.GAME_STATUS_FINISHED)
# What a kind may look like to name a filter set (registered kinds do; a client's string that
# does not never reaches a key name).
FILED_KIND_RE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
# Keys one step of the search for the lobby's filter sets looks at (``Store.lobby_filter_keys``):
# a SCAN of that many keys of the keyspace of the server, or of the Cluster node that serves the
# lobby's slot.
FILTER_KEYS_STEP = 1000
REFILE_CHUNK = 250  # entries per refile script: each call holds Redis for well under a millisecond
CREATE_REQUEST_TTL_S = 24 * 3600
MAX_KEPT_KEYS = 4096  # games whose commit keys a store keeps made (about 2 MB at most)

SERVER_SCHEMES = ("redis", "rediss", "unix")
CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}

_COMMIT_LUA = (pathlib.Path(__file__).parent / "lua" / "commit.lua").read_text()
_INDEX_LUA = (pathlib.Path(__file__).parent / "lua" / "index.lua").read_text()
_REFILE_LUA = (pathlib.Path(__file__).parent / "lua" / "refile.lua").read_text()
_UNINDEX_LUA = (pathlib.Path(__file__).parent / "lua" / "unindex.lua").read_text()
_LOBBY_AFTER_LUA = (pathlib.Path(__file__).parent / "lua" / "lobby_after.lua").read_text()
_FIELDS_LUA = (pathlib.Path(__file__).parent / "lua" / "fields.lua").read_text()
_PRESENCE_LUA = (pathlib.Path(__file__).parent / "lua" / "presence.lua").read_text()
_KEEP_LUA = (pathlib.Path(__file__).parent / "lua" / "keep.lua").read_text()
# Hashes read by one call of the fields script: its run holds Redis about 0.1 ms per 200.
FIELDS_BATCH = 500
# How long a finished game keeps its request ids (the rest of it is kept the retention time), as
# CreateGame's are kept: long past any retry.
FINISHED_REQUEST_IDS_S = CREATE_REQUEST_TTL_S

DEFAULT_MAX_CONNECTIONS = 64  # per replica; watchers share reads, so few are busy at once
DEFAULT_POOL_TIMEOUT_S = 10.0  # below the 15 s server deadline of a unary call
# How long one command may wait for Redis's answer: a pause of a few seconds (a fork for a
# snapshot, a failover) is waited out rather than failing every command in flight.
SOCKET_TIMEOUT_S = 10.0
# The oldest Redis the store's commands run on: the deadline index moves a game's look only
# earlier or only later (ZADD LT / GT, Redis 6.2). An older server is refused at start, in one
# line, rather than failing the first table with a clock.
MIN_REDIS_VERSION = (6, 2)
# A command whose pooled connection turns out to be closed (Redis restarted, a proxy or a
# failover dropped it) is sent once more, at once, on a new connection, as the lane does for
# commits; without it every connection idle through a Redis restart failed one call afterwards.
# Only a lost connection: a command that timed out may have run, and is not sent again.
RECONNECT_RETRIES = 1
CLUSTER_PIPELINE_HEADROOM = 8
# A lease's holder gives it back, and only its own: a lease that ran out and was taken by another
# replica (or set by hand to hold the work off) is left alone.
_RELEASE_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class RedisTooOld(RuntimeError):
    """The Redis server is older than ``MIN_REDIS_VERSION``."""


def redis_version(text: str) -> tuple[int, ...]:
    """A ``redis_version`` as INFO reports it ("7.2.4"), as numbers to compare."""
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


class BoundedCluster(RedisCluster):
    """A Redis Cluster client whose commands wait for one of ``command_slots`` slots.

    RedisCluster has no blocking pool: once a node's connections are all busy it raises
    MaxConnectionsError at once. The slots bound the commands in flight (so a node never needs
    more connections than there are slots) and make the excess wait, as BlockingConnectionPool
    does for a single server.
    """

    def __init__(self, *args: Any, command_slots: int, pool_timeout_s: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._command_slots = asyncio.Semaphore(command_slots)
        self._pool_timeout_s = pool_timeout_s

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        """Run one command once a slot is free (ConnectionError after the pool timeout)."""
        try:
            async with asyncio.timeout(self._pool_timeout_s):
                await self._command_slots.acquire()
        except TimeoutError:
            raise RedisConnectionError("No connection available.") from None
        try:
            with _cluster_away():
                return await super().execute_command(*args, **kwargs)
        finally:
            self._command_slots.release()

    async def info(self, section: str | None = None, *args: str, **kwargs: Any) -> Any:  # type: ignore[override]
        """INFO of every primary, by node ({node: answer}): a Cluster's memory and version are
        its nodes', and redis-py asks only its default node (the one the URL names), so that the
        store's room and the version check read one shard of several."""
        kwargs.setdefault("target_nodes", RedisCluster.PRIMARIES)
        return await super().info(section, *args, **kwargs)

    def pipeline(self, transaction: Any = None, shard_hint: Any = None) -> "ClusterPipeline":
        """A pipeline whose failure to reach the Cluster is a ConnectionError too."""
        if shard_hint:
            return super().pipeline(transaction, shard_hint)  # refused, as RedisCluster refuses it
        return _BoundedPipeline(self, transaction)


class _BoundedPipeline(ClusterPipeline):
    async def execute(self, *args: Any, **kwargs: Any) -> Any:
        with _cluster_away():
            return await super().execute(*args, **kwargs)


@contextlib.contextmanager
def _cluster_away() -> Iterator[None]:
    """redis-py's errors of a Cluster it cannot reach (``RedisClusterException``: no node
    answers, the slots are not covered) as the ConnectionError a single server's absence
    raises. They are no RedisError: with a whole Cluster away, every call was INTERNAL with a
    traceback logged, not UNAVAILABLE ``STORE_UNAVAILABLE``, ``serve`` stopped with a traceback,
    and the deadline runner's task ended for good, so that no clock or bot decided again."""
    try:
        yield
    except RedisClusterException as error:
        raise RedisConnectionError(f"the Redis Cluster cannot be reached: {error}") from None


def game_key(game_id: str) -> str:
    """The hash with the snapshot and version."""
    return f"hustings:{{{game_id}}}:game"


def log_key(game_id: str) -> str:
    """The append-only log stream."""
    return f"hustings:{{{game_id}}}:log"


def requests_key(game_id: str) -> str:
    """The request-id hash."""
    return f"hustings:{{{game_id}}}:requests"


def presence_key(game_id: str) -> str:
    """The hash of when each seat was last seen (ms since the epoch)."""
    return f"hustings:{{{game_id}}}:presence"


def create_request_key(request_key: str) -> str:
    """Where a CreateGame request id (as a keyed hash) records the game it made."""
    return f"hustings:create:{{{request_key}}}"


def create_made_key(request_key: str) -> str:
    """Set once the game a CreateGame request id reserved was made (same slot as its record): a
    retry that finds that game gone is told so, instead of making another under its id. A key
    of its own, so that replicas of earlier releases read the record as they always did."""
    return f"hustings:create:{{{request_key}}}:made"


def updates_channel(game_id: str) -> str:
    """The pub/sub channel announcing new versions."""
    return f"hustings:{{{game_id}}}:updates"


def lobby_filter_key(kind: str = "", status: int = 0) -> str:
    """The filter set of the games of a kind, of a status, or of both (see ``filterable``)."""
    parts = ([f"kind:{kind}"] if kind else []) + ([f"status:{status}"] if status else [])
    return LOBBY_FILTER_PREFIX + ":".join(parts)


def filterable(kind: str, status: int) -> bool:
    """Whether games of ``kind`` and ``status`` ("" and 0: any) can be filed at all; a filter
    that is not names no game."""
    return (not kind or bool(FILED_KIND_RE.fullmatch(kind))) and (not status or status in FILED_STATUSES)


def kind_filter_keys(kind: str) -> list[str]:
    """A kind's filter set, then its sets by status (in ``FILED_STATUSES`` order)."""
    return [lobby_filter_key(kind)] + [lobby_filter_key(kind, s) for s in FILED_STATUSES]


_STATUS_KEYS = [lobby_filter_key("", s) for s in FILED_STATUSES]


def kind_of_filter_key(key: str) -> str:
    """The kind whose filter set ``key`` is ("" for a status's set, or a key of no filter set)."""
    if not key.startswith(LOBBY_FILTER_PREFIX + "kind:"):
        return ""
    kind = key[len(LOBBY_FILTER_PREFIX + "kind:") :].partition(":")[0]
    return kind if FILED_KIND_RE.fullmatch(kind) else ""


def lobby_position(created_at: int, game_id: str) -> str:
    """A game's place in the lobby as the filter sets hold it: its creation time (12 digits) and
    its id, so that byte order is the lobby sorted set's order (score, then member)."""
    return f"{created_at:012d}:{game_id}"


def game_id_of_position(position: str) -> str:
    """The game id of a lobby position."""
    return position.partition(":")[2]


def game_id_of_channel(channel: str) -> str | None:
    """The game id in an updates channel name, or None."""
    start, end = channel.find("{"), channel.find("}")
    if start < 0 or end < start:
        return None
    return channel[start + 1 : end]


@dataclass(frozen=True)
class Recorded:
    """What a request id recorded: the version its step made and the fingerprint of the request."""

    version: int
    fingerprint: str

    @classmethod
    def parse(cls, value: bytes | str) -> "Recorded":
        """Parse ``"<version> <fingerprint>"``."""
        text = value.decode() if isinstance(value, bytes) else value
        version, _, fingerprint = text.partition(" ")
        return cls(int(version), fingerprint)


# Not frozen: a frozen dataclass sets each field through object.__setattr__, which costs every
# step three times what the plain assignments of a slotted one do.
@dataclass(slots=True)
class CommitResult:
    """The answer of the commit script."""

    status: str  # "OK", "CONFLICT" or "DUPLICATE"
    version: int
    snapshot: bytes = b""
    recorded: Recorded | None = None  # with DUPLICATE: what the request id recorded first


def index_call(summary: game_pb2.GameSummary, made: bool = False) -> tuple[list[str], list[str | int | bytes]]:
    """The keys and arguments of ``lua/index.lua`` that file ``summary`` in the lobby (``made``:
    ``Store.index``'s)."""
    kind_keys = kind_filter_keys(summary.kind)
    keys = [
        LOBBY_KEY, LOBBY_GAMES_KEY, LOBBY_VERSIONS_KEY, LOBBY_LIVE_KEY, kind_keys[0], *_STATUS_KEYS, *kind_keys[1:], LOBBY_KINDS_KEY
    ]
    args: list[str | int | bytes] = [
        summary.game_id,
        summary.created_at,
        summary.version,
        summary.SerializeToString(),
        "1" if summary.status == game_pb2.GAME_STATUS_FINISHED else "0",
        lobby_position(summary.created_at, summary.game_id),
        summary.status,
        "1" if made else "0",
        summary.kind,
    ]
    return keys, args


class Store:
    """Async access to the games in one Redis deployment."""

    def __init__(self, client: "aioredis.Redis | RedisCluster") -> None:
        self.client = client
        # Commits ride one pipelined connection (service/lane.py); a Cluster spreads them over
        # its shards through its own client instead.
        self.lane = Lane(client) if isinstance(client, aioredis.Redis) else None
        self._commit = client.register_script(_COMMIT_LUA)
        self._keys_by_game: dict[str, tuple[bytes, bytes, bytes, bytes, bytes]] = {}
        self._index = client.register_script(_INDEX_LUA)
        self._refile = client.register_script(_REFILE_LUA)
        self._unindex = client.register_script(_UNINDEX_LUA)
        self._lobby_after = client.register_script(_LOBBY_AFTER_LUA)
        self._fields = client.register_script(_FIELDS_LUA)
        self._presence = client.register_script(_PRESENCE_LUA)
        self._keep = client.register_script(_KEEP_LUA)
        self._release = client.register_script(_RELEASE_LUA)

    @classmethod
    def from_url(
        cls, url: str, max_connections: int = DEFAULT_MAX_CONNECTIONS, pool_timeout_s: float = DEFAULT_POOL_TIMEOUT_S
    ) -> "Store":
        """A store over the Redis at ``url`` with at most ``max_connections`` connections.

        ``redis://[:password@]host:port/db``, ``rediss://`` (TLS) and ``unix://`` reach one server;
        ``redis+cluster://host:port`` and ``rediss+cluster://`` reach a Redis Cluster through any
        of its nodes. A command that finds every connection busy waits up to ``pool_timeout_s``
        for one (then fails as a ``redis.ConnectionError``, which callers answer as UNAVAILABLE)
        instead of failing at once, so a burst queues rather than breaks.
        """
        if urllib.parse.urlsplit(url).scheme.lower() not in (*SERVER_SCHEMES, *CLUSTER_SCHEMES):
            *others, last = (f"{scheme}://" for scheme in (*SERVER_SCHEMES, *CLUSTER_SCHEMES))
            raise ValueError(f"the Redis URL must begin with {', '.join(others)} or {last}")
        scheme, sep, rest = url.partition("://")
        scheme = scheme.lower()
        cluster = bool(sep) and scheme in CLUSTER_SCHEMES
        if max_connections < (2 if cluster else 3):
            held = "one is held by the update subscription" + ("" if cluster else ", one by the commits' lane")
            raise ValueError(f"max_connections must be at least {2 if cluster else 3} ({held})")
        if cluster:
            plain = CLUSTER_SCHEMES[scheme] + "://" + rest
            return cls(
                BoundedCluster.from_url(
                    plain,
                    decode_responses=False,
                    # Pipelines take connections beside the command slots: leave them room.
                    max_connections=max_connections + CLUSTER_PIPELINE_HEADROOM,
                    command_slots=max_connections,
                    pool_timeout_s=pool_timeout_s,
                    socket_timeout=SOCKET_TIMEOUT_S,
                )
            )
        pool = aioredis.BlockingConnectionPool.from_url(
            url,
            max_connections=max_connections,
            timeout=pool_timeout_s,
            socket_timeout=SOCKET_TIMEOUT_S,
            decode_responses=False,
            health_check_interval=30,
            retry=Retry(NoBackoff(), RECONNECT_RETRIES, supported_errors=(RedisConnectionError,)),
        )
        return cls(aioredis.Redis.from_pool(pool))

    async def close(self) -> None:
        """Close the client and its connection pool."""
        if self.lane is not None:
            await self.lane.close()
        await self.client.aclose()

    async def load(self, game_id: str) -> storage_pb2.StoredGame | None:
        """The latest snapshot of a game, or None if it does not exist."""
        data = await self.client.hget(game_key(game_id), "snapshot")
        if data is None:
            return None
        stored = storage_pb2.StoredGame()
        stored.ParseFromString(data)
        return stored

    async def logged_after_commits(self, game_id: str, version: int) -> bytes | None:
        """The log entry of ``version`` as stored (its bytes; None when there is none), read
        after every commit this replica has sent so far was run: on the lane, behind them; on a
        Cluster, where commits take the client's pool, a plain read that may come before one
        still on its way."""
        key, at = log_key(game_id), f"{version}-0"
        if self.lane is not None:
            raw = await self.lane.call("XRANGE", key, at, at)
            return bytes(raw[0][1][1]) if raw else None
        found = await self.client.xrange(key, min=at, max=at)
        return found[0][1][b"e"] if found else None

    async def commit(
        self,
        stored: storage_pb2.StoredGame,
        base_version: int,
        entry: storage_pb2.LogEntry,
        request_key: str = "",
        fingerprint: str = "",
        expire_s: int | None = None,
        present: tuple[int, int] | None = None,
        listed: bool = True,
    ) -> CommitResult:
        """Write ``stored`` (at ``stored.version``) if the game is still at ``base_version`` and
        ``request_key`` (a keyed hash of a request id) has not been used in this game yet.

        ``expire_s``: the game's keys then expire after that many seconds; 0 keeps them for
        ever; None leaves their expiry as it is. ``present``: (seat, ms since the epoch) to note
        in the game's presence hash with the step (``service/presence.py``). ``listed``: the step
        changes what the lobby lists of the game (``lobby.listing_changed``); plain moves do not,
        and the lobby repair then leaves the game's entry alone.

        A step that finishes the game keeps its request ids at most
        ``FINISHED_REQUEST_IDS_S`` of ``expire_s``: a retry comes within seconds, and no move of
        a finished game is applied, twice or once. They were a fifth of what a finished game
        played by clients keeps (81-89 bytes a move)."""
        game, log, requests, presence, updates = self._commit_keys(stored.game_id)
        requests_s = b""
        if expire_s and stored.status == game_pb2.GAME_STATUS_FINISHED and expire_s > FINISHED_REQUEST_IDS_S:
            requests_s = b"%d" % FINISHED_REQUEST_IDS_S
        reply: list[Any] = await self._evalsha_commit(
            b"4",
            game,
            log,
            requests,
            presence,
            b"%d" % base_version,
            b"%d" % stored.version,
            stored.SerializeToString(),
            entry.SerializeToString(),
            request_key.encode(),
            updates,
            fingerprint.encode(),
            b"%d" % stored.status,
            b"" if expire_s is None else b"%d" % expire_s,
            b"" if present is None else b"%d" % present[0],
            b"" if present is None else b"%d" % present[1],
            b"1" if listed else b"",
            requests_s,
            b"1" if base_version == 0 and stored.table.unlisted else b"",
        )
        status = reply[0].decode()
        if status == "DUPLICATE":
            recorded = Recorded.parse(reply[1])
            return CommitResult(status, recorded.version, recorded=recorded)
        version = int(reply[1])
        snapshot = reply[2] if len(reply) > 2 else b""
        return CommitResult(status, version, snapshot)

    def _commit_keys(self, game_id: str) -> tuple[bytes, bytes, bytes, bytes, bytes]:
        """A game's keys and channel as the commit script takes them, made once per game: every
        step of the game needs the same five, and formatting them costs more than the lookup."""
        keys = self._keys_by_game.get(game_id)
        if keys is None:
            if len(self._keys_by_game) >= MAX_KEPT_KEYS:
                self._keys_by_game.clear()  # a bound, not a cache policy: the next steps make them again
            keys = self._keys_by_game[game_id] = (
                game_key(game_id).encode(),
                log_key(game_id).encode(),
                requests_key(game_id).encode(),
                presence_key(game_id).encode(),
                updates_channel(game_id).encode(),
            )
        return keys

    async def _evalsha_commit(self, *args: bytes) -> Any:
        """Run the commit script by its hash, with arguments already in bytes, on the lane:
        every step makes this call, and redis-py's script object and pool cost more than the
        command itself."""
        try:
            return await self._call("EVALSHA", self._commit.sha, *args)
        except NoScriptError:
            # A Redis that lost its scripts (a restart, a failover) learns the script again.
            await self.client.script_load(_COMMIT_LUA)
            return await self._call("EVALSHA", self._commit.sha, *args)

    def _call(self, *command: Any) -> Awaitable[Any]:
        """``command`` on the lane, or through the client where there is none (a Cluster)."""
        if self.lane is not None:
            return self.lane.call(*command)
        return self.client.execute_command(*command)

    async def round_trip(self, key: str) -> bytes | None:
        """GET ``key`` the way a commit reaches Redis: the benchmark floor's one round trip."""
        return await self._call("GET", key)

    async def version_of(self, game_id: str) -> int:
        """The current version of a game; 0 when it does not exist."""
        value = await self.client.hget(game_key(game_id), "version")
        return int(value) if value is not None else 0

    async def recorded(self, game_id: str, request_key: str) -> Recorded | None:
        """What a request id (as its keyed hash) recorded in a game, if its step was applied."""
        value = await self.client.hget(requests_key(game_id), request_key)
        return Recorded.parse(value) if value is not None else None

    async def reserve_create(self, request_key: str, game_id: str, fingerprint: str) -> tuple[str, str]:
        """Record that a CreateGame request makes ``game_id``, unless an attempt of it came first;
        returns the (game id, fingerprint) recorded for the request."""
        key = create_request_key(request_key)
        value = f"{game_id} {fingerprint}"
        if await self.client.set(key, value, nx=True, ex=CREATE_REQUEST_TTL_S):
            return game_id, fingerprint
        first = await self.client.get(key)
        if first is None:  # expired between the two calls: take it now
            await self.client.set(key, value, ex=CREATE_REQUEST_TTL_S)
            return game_id, fingerprint
        return _recorded_create(first)

    async def note_create_made(self, request_key: str, game_id: str) -> None:
        """The game ``game_id`` a CreateGame request id reserved was made (``create_made_key``)."""
        await self.client.set(create_made_key(request_key), game_id, ex=CREATE_REQUEST_TTL_S)

    async def create_made(self, request_key: str, game_id: str) -> bool:
        """Whether the game ``game_id`` a CreateGame request id reserved was made (it may be gone
        since). The note names its game: a retry may renew it past the request's record, and a
        request id sent again after that reserves another game, which no note says was made."""
        return await self.client.get(create_made_key(request_key)) == game_id.encode()

    async def recorded_create(self, request_key: str) -> tuple[str, str] | None:
        """The (game id, fingerprint) a CreateGame request id recorded, or None; reads only."""
        first = await self.client.get(create_request_key(request_key))
        return _recorded_create(first) if first is not None else None

    async def _game_fields(self, game_ids: list[str], fields: list[str]) -> list[list[bytes | None]]:
        """``fields`` of each game's hash, in the order of ``game_ids``: one script call per
        ``FIELDS_BATCH`` games on one server, one pipeline (a round trip per shard) on a Cluster."""
        if self.lane is None:
            async with self.client.pipeline(transaction=False) as pipe:
                for game_id in game_ids:
                    pipe.hmget(game_key(game_id), fields)
                return list(await pipe.execute())
        width = len(fields)
        rows: list[list[bytes | None]] = []
        for start in range(0, len(game_ids), FIELDS_BATCH):
            keys = [game_key(game_id) for game_id in game_ids[start : start + FIELDS_BATCH]]
            flat = await self._fields(keys=keys, args=fields)
            rows += [flat[i : i + width] for i in range(0, len(flat), width)]
        return rows

    async def check_server(self) -> None:
        """Refuse a Redis older than ``MIN_REDIS_VERSION`` (every node of a Cluster): RedisTooOld.
        A server that does not let this user run INFO (an ACL, a managed service) is taken as
        it is, with a warning: its first command it cannot run will say so."""
        try:
            info = await self.client.info("server")
        except ResponseError as refused:
            structlog.get_logger("hustings.store").warning("redis_version_unknown", cause=type(refused).__name__)
            return
        found = [info] if "redis_version" in info else [v for v in info.values() if isinstance(v, dict)]
        for node in found:
            version = str(node.get("redis_version", "0"))
            if redis_version(version) < MIN_REDIS_VERSION:
                wanted = ".".join(map(str, MIN_REDIS_VERSION))
                raise RedisTooOld(f"hustings needs Redis {wanted} or newer; the server at the Redis URL is {version}")

    async def note_presence(self, seen: dict[str, dict[int, int]], keep_s: int) -> None:
        """Note when seats were seen ({game id: {seat: ms}}) in the games that still exist; a
        presence hash that this makes takes what is left of its game's expiry (``keep_s`` for a
        game without one), one that a game's step made keeps the game's own (``presence.lua``):
        ``FIELDS_BATCH`` games a script call on one server, pipelines (a round trip per shard
        each) on a Cluster."""
        items = list(seen.items())
        if self.lane is None:
            async with self.client.pipeline(transaction=False) as pipe:
                for game_id, _ in items:
                    pipe.pttl(game_key(game_id))
                    pipe.ttl(presence_key(game_id))
                answers = await pipe.execute()
            # The game's existence is read a round trip before the write: a game removed in
            # between may get a hash, kept no longer than the game's expiry was.
            async with self.client.pipeline(transaction=False) as pipe:
                for (game_id, seats), left, ttl in zip(items, answers[0::2], answers[1::2]):
                    if left == -2:
                        continue  # no such game
                    pipe.hset(presence_key(game_id), mapping={str(seat): at for seat, at in seats.items()})
                    if ttl < 0:
                        pipe.pexpire(presence_key(game_id), left if left > 0 else keep_s * 1000)
                await pipe.execute()
            return
        for start in range(0, len(items), FIELDS_BATCH):
            keys: list[str] = []
            args: list[int | str] = [keep_s]
            for game_id, seats in items[start : start + FIELDS_BATCH]:
                keys += [presence_key(game_id), game_key(game_id)]
                args.append(len(seats))
                for seat, at in seats.items():
                    args += [seat, at]
            await self._presence(keys=keys, args=args)

    async def heads(self, game_ids: list[str]) -> dict[str, tuple[int, int]]:
        """The current (version, status) of each existing game (``_game_fields``)."""
        if not game_ids:
            return {}
        heads = {}
        for game_id, (version, status) in zip(game_ids, await self._game_fields(game_ids, ["version", "status"])):
            if version is not None:
                heads[game_id] = (int(version), int(status) if status is not None else 0)
        return heads

    async def lobby_heads(self, game_ids: list[str], unlisted: set[str] | None = None) -> dict[str, tuple[int, int]]:
        """The current (version, status) of each existing game the lobby may list: a game whose
        hash is marked unlisted (by its creating commit) is left out as if it did not exist, so
        that an entry a replica of an earlier release wrote for it is never shown, and is dropped
        by the lobby repair (``listing_heads`` without the listing's version). Such games' ids
        are added to ``unlisted`` when it is given."""
        listing = await self.listing_heads(game_ids, unlisted)
        return {game_id: (version, status) for game_id, (version, status, _listed) in listing.items()}

    async def listing_heads(
        self, game_ids: list[str], unlisted: set[str] | None = None
    ) -> dict[str, tuple[int, int, int | None]]:
        """The (version, status, listed) of each existing game the lobby may list (a game whose
        hash is marked unlisted is left out, its id added to ``unlisted`` when it is given):
        ``listed`` is the version of its last step that changed its lobby listing (None for a
        game whose steps were all committed by an earlier release, which did not note it)."""
        if not game_ids:
            return {}
        heads = {}
        fields = await self._game_fields(game_ids, ["version", "status", "listed", "unlisted"])
        for game_id, (version, status, listed, marked) in zip(game_ids, fields):
            if version is None:
                continue
            if marked is None:
                heads[game_id] = (int(version), int(status or 0), int(listed) if listed is not None else None)
            elif unlisted is not None:
                unlisted.add(game_id)
        return heads

    async def log_entries(
        self, game_id: str, after_version: int = 0, up_to_version: int | None = None, count: int | None = None
    ) -> list[storage_pb2.LogEntry]:
        """Log entries with ``after_version < version <= up_to_version``, oldest first; only the
        first ``count`` of them when it is given (Redis reads no more than that)."""
        end = f"{up_to_version}-0" if up_to_version is not None else "+"
        raw = await self.client.xrange(log_key(game_id), min=f"({after_version}-0", max=end, count=count)
        return [_log_entry(fields) for _id, fields in raw]

    async def history_page(
        self, game_id: str, after_version: int, count: int
    ) -> tuple[list[storage_pb2.LogEntry], storage_pb2.StoredGame | None]:
        """The first ``count`` log entries after ``after_version`` (oldest first), then the game's
        snapshot (None when it does not exist), in one round trip and in that order: a step
        writes its entry and its snapshot together, so every entry read is of a version the
        snapshot has reached."""
        log = log_key(game_id).encode()
        after, most = b"(%d-0" % after_version, b"%d" % count
        if self.lane is not None:
            # Queued in this order on the lane, so Redis runs them in this order.
            raw_log, data = await asyncio.gather(
                self.lane.call(b"XRANGE", log, after, b"+", b"COUNT", most),
                self.lane.call(b"HGET", game_key(game_id).encode(), b"snapshot"),
            )
            fields = [dict(zip(flat[::2], flat[1::2])) for _id, flat in raw_log]
        else:  # a Cluster: both keys are on one shard, whose connection runs them in order
            async with self.client.pipeline(transaction=False) as pipe:
                pipe.xrange(log, min=after, max="+", count=count)
                pipe.hget(game_key(game_id), "snapshot")
                parsed_log, data = await pipe.execute()
            fields = [f for _id, f in parsed_log]
        entries = [_log_entry(f) for f in fields]
        if data is None:
            return entries, None
        stored = storage_pb2.StoredGame()
        stored.ParseFromString(data)
        return entries, stored

    async def log_entry(self, game_id: str, version: int) -> storage_pb2.LogEntry | None:
        """The log entry of one version."""
        raw = await self.client.xrange(log_key(game_id), min=f"{version}-0", max=f"{version}-0")
        return _log_entry(raw[0][1]) if raw else None

    async def index(self, summary: game_pb2.GameSummary, made: bool = False) -> bool:
        """Record a game's summary in the lobby and file it under its kind and status, unless a
        newer summary is there already; True when it was written. ``made``: the summary of a game
        its commit has just made, which replaces an entry of another creation time whatever its
        version (another attempt's to make the game, or its namesake's), in one step, and leaves
        one of its own creation time as it is."""
        keys, args = index_call(summary, made)
        return bool(await self._index(keys=keys, args=args))

    async def unindex(self, game_id: str, kinds: "list[str] | tuple[str, ...]", position: str = "") -> None:
        """Drop a game from the lobby and from the filter sets of each of ``kinds`` and every
        status (it does not exist: its creation never committed, or it expired). ``position``:
        its lobby position, when it is known although the lobby sorted set may not hold it."""
        await self._unindex(keys=_unindex_keys(kinds), args=[game_id, position])

    async def unindex_many(self, gone: list[tuple[str, "tuple[str, ...]"]], positions: dict[str, str] | None = None) -> None:
        """``unindex`` each (game id, its kinds), in one pipelined round trip on one server (on a
        Cluster, whose client pipelines no scripts, one call each). ``positions``: the lobby
        positions known of some of them (``unindex``)."""
        positions = positions or {}
        if self.lane is None:
            for game_id, kinds in gone:
                await self.unindex(game_id, kinds, positions.get(game_id, ""))
            return
        if not gone:
            return
        # The script by its hash in a pipeline: loaded first, as a restarted Redis may have lost it.
        await self.client.script_load(_UNINDEX_LUA)
        async with self.client.pipeline(transaction=False) as pipe:
            for game_id, kinds in gone:
                keys = _unindex_keys(kinds)
                pipe.evalsha(self._unindex.sha, len(keys), *keys, game_id, positions.get(game_id, ""))
            await pipe.execute()

    async def give_expiry(self, games: list[tuple[str, int]]) -> int:
        """Give the keys of each (game id, seconds) whose hash has no expiry (a game stored by
        0.1.0, which set none) an expiry of its seconds; how many games were given one.
        ``FIELDS_BATCH`` games a script call on one server, a call per game on a Cluster (each
        game's keys are on one shard)."""
        batch = FIELDS_BATCH if self.lane is not None else 1
        given = 0
        for start in range(0, len(games), batch):
            chunk = games[start : start + batch]
            keys = [key(game_id) for game_id, _s in chunk for key in (game_key, log_key, requests_key, presence_key)]
            given += int(await self._keep(keys=keys, args=[seconds for _id, seconds in chunk]))
        return given

    async def refile(self, summaries: list[game_pb2.GameSummary]) -> int:
        """File lobby entries under their kind and status as their summaries say (each unless a
        newer summary has been written since it was read), their kinds added to the filed
        kinds (``LOBBY_KINDS_KEY``: entries written by a release that did not keep it); how many
        memberships changed."""
        changed = 0
        named = sorted({s.kind for s in summaries if FILED_KIND_RE.fullmatch(s.kind) and s.status in FILED_STATUSES})
        if named:
            # The kinds first: a kind's sets are never there unnamed by the set the sweep reads.
            await self.client.sadd(LOBBY_KINDS_KEY, *named)
        for start in range(0, len(summaries), REFILE_CHUNK):
            keys: list[str] = [LOBBY_VERSIONS_KEY, *_STATUS_KEYS]
            args: list[str | int | bytes] = []
            kinds: dict[str, int] = {}  # kind -> its place among this call's kinds
            for summary in summaries[start : start + REFILE_CHUNK]:
                if not (FILED_KIND_RE.fullmatch(summary.kind) and summary.status in FILED_STATUSES):
                    continue
                if summary.kind not in kinds:
                    kinds[summary.kind] = len(kinds)
                    keys += kind_filter_keys(summary.kind)
                position = lobby_position(summary.created_at, summary.game_id)
                args += [summary.game_id, summary.version, position, kinds[summary.kind], summary.status]
            if args:
                changed += int(await self._refile(keys=keys, args=args))
        return changed

    async def filed_newest_first(self, key: str, before: str, count: int) -> list[str]:
        """Up to ``count`` positions of a filter set, newest first, from just before the position
        ``before`` ("" from the newest)."""
        high = b"(" + before.encode() if before else b"+"
        return [p.decode() for p in await self.client.zrevrangebylex(key, high, b"-", start=0, num=count)]

    async def filed_oldest_first(self, key: str, after: str, count: int) -> list[str]:
        """Up to ``count`` positions of a filter set, oldest first, from just after ``after``."""
        low = b"(" + after.encode() if after else b"-"
        return [p.decode() for p in await self.client.zrangebylex(key, low, b"+", start=0, num=count)]

    async def lobby_entry(self, offset: int) -> tuple[str, int] | None:
        """The (game id, creation time) of the ``offset``-th lobby entry, newest first."""
        found = await self.client.zrevrange(LOBBY_KEY, offset, offset, withscores=True)
        return (found[0][0].decode(), int(found[0][1])) if found else None

    async def lobby_filter_keys(self, cursor: int) -> tuple[str, int, list[str]]:
        """One bounded step of a search for the filter sets in Redis, of whatever kind (a kind
        this build no longer plays included): the run id of the Redis process that answered,
        the cursor of the next step (0 once the search has gone round) and the keys it found. A
        SCAN step of ``FILTER_KEYS_STEP`` keys of the server's keyspace, or on a Cluster of the
        node's that serves the lobby's slot (every lobby key has its hash tag; the cursor is that
        node's). The slot holds the keys of the games whose ids hash to it too (about 2,400 at
        ten million games): a read of its first 1,000 keys, with no cursor past them, found no
        filter set once they came first. A cursor means anything only to the process that gave
        it (a process places keys in its hash table by a seed drawn as it starts): on one server
        the run id and the SCAN are read on one connection, so from one process."""
        match = LOBBY_FILTER_PREFIX + "*"
        if self.lane is None:
            with _cluster_away():  # the slot not covered (the Cluster away): a ConnectionError
                node = self.client.get_node_from_key(LOBBY_KEY)
            server = await self.client.info("server", target_nodes=node)
            cursors, found = await self.client.execute_command(
                "SCAN", cursor, "MATCH", match, "COUNT", FILTER_KEYS_STEP, target_nodes=node
            )
            cursor = next(iter(cursors.values()), 0) if isinstance(cursors, dict) else cursors
        else:
            async with self.client.pipeline(transaction=False) as pipe:
                pipe.info("server")
                pipe.scan(cursor, match=match, count=FILTER_KEYS_STEP)
                server, (cursor, found) = await pipe.execute()
        keys = [k.decode() if isinstance(k, bytes) else k for k in found]
        return str(server.get("run_id", "")), int(cursor), [k for k in keys if k.startswith(LOBBY_FILTER_PREFIX)]

    async def filed_kinds(self) -> tuple[set[str], bool]:
        """The kinds filed in the lobby's filter sets (``LOBBY_KINDS_KEY``), and whether the
        search of the keyspace for sets filed before that set was kept has gone round
        (``filter_walk_step``), in one round trip."""
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.smembers(LOBBY_KINDS_KEY)
            pipe.get(FILTER_WALK_KEY)
            members, walk = await pipe.execute()
        kinds = {k.decode() if isinstance(k, bytes) else k for k in members}
        return {k for k in kinds if FILED_KIND_RE.fullmatch(k)}, walk == FILTER_WALK_DONE

    async def filter_walk_step(self) -> bool:
        """One step (``lobby_filter_keys``) of the search of the keyspace for filter sets, from
        where the last step of any replica stopped, adding the kinds of the sets it finds to
        ``LOBBY_KINDS_KEY``; True once the search has gone round since that set was first kept
        (it is not searched again). Only sets filed by a release that did not keep the set of
        kinds can be missing from it. A search whose Redis process changed (a restart, a failover,
        the lobby's slot moved to another Cluster node) begins again: a SCAN cursor of another
        process passes over keys of this one's at random, and a search that went on from it
        would end with sets never found, for good."""
        state = await self.client.get(FILTER_WALK_KEY)
        if state == FILTER_WALK_DONE:
            return True
        process, _, at = (state or b"").decode().partition(" ")
        cursor = int(at) if at.isdigit() else 0
        answered, after, keys = await self.lobby_filter_keys(cursor)
        kinds = {kind_of_filter_key(k) for k in keys} - {""}
        if kinds:
            await self.client.sadd(LOBBY_KINDS_KEY, *sorted(kinds))
        if cursor and answered != process:
            # Another process's cursor (or one kept by a build that did not name the process):
            # what it found is kept, and the search begins again from this process's start.
            await self.client.set(FILTER_WALK_KEY, f"{answered} 0".encode())
            return False
        if not after and await self._lobby_slot_leaving():
            # Gone round while the lobby's slot moves to another node: the keys moved already
            # are on that one, out of this SCAN. The search begins again, and once the slot has
            # moved goes on with the other node (another process).
            await self.client.set(FILTER_WALK_KEY, f"{answered} 0".encode())
            return False
        await self.client.set(FILTER_WALK_KEY, FILTER_WALK_DONE if not after else f"{answered} {after}".encode())
        return not after

    async def _lobby_slot_leaving(self) -> bool:
        """Whether the Cluster node that serves the lobby's slot is moving it to another (a
        reshard under way: CLUSTER NODES marks it migrating); never on one server, nor where
        the command is refused."""
        if self.lane is not None:
            return False
        with _cluster_away():
            node = self.client.get_node_from_key(LOBBY_KEY)
        slot = self.client.keyslot(LOBBY_KEY)
        try:
            nodes = await self.client.execute_command("CLUSTER NODES", target_nodes=node)
        except ResponseError:  # a Cluster that does not answer it (some hosted ones): as before
            return False
        if isinstance(nodes, (bytes, str)):  # unparsed: the node's own line marks "[<slot>->-<node id>]"
            text = nodes.decode() if isinstance(nodes, bytes) else nodes
            return any("myself" in line and f"[{slot}->-" in line for line in text.splitlines())
        return any(
            str(move.get("slot")) == str(slot) and move.get("state") == "migrating"
            for about in nodes.values()
            if "myself" in str(about.get("flags", ""))
            for move in about.get("migrations", [])
        )

    async def in_lobby(self, game_ids: list[str]) -> list[bool]:
        """Whether each game has an entry in the lobby sorted set."""
        if not game_ids:
            return []
        return [score is not None for score in await self.client.zmscore(LOBBY_KEY, game_ids)]

    async def live_games(self, offset: int, count: int) -> list[tuple[str, int]]:
        """Unfinished games of the lobby with their indexed version, oldest first."""
        ids = await self.client.zrange(LOBBY_LIVE_KEY, offset, offset + count - 1)
        if not ids:
            return []
        versions = await self.client.hmget(LOBBY_VERSIONS_KEY, ids)
        return [(i.decode(), int(v or 0)) for i, v in zip(ids, versions)]

    async def take_lease(self, name: str, ttl_ms: int) -> str:
        """Take a short lease (for work one replica at a time should do), under a token of its
        own that ``release_lease`` takes; "" if taken."""
        token = secrets.token_hex(8)
        return token if await self.client.set(_lease_key(name), token, nx=True, px=ttl_ms) else ""

    async def release_lease(self, name: str, token: str) -> bool:
        """Give back a lease ``take_lease`` took, if it is still the one taken (it may have run
        out and been taken since); True when it was given back."""
        return bool(await self._release(keys=[_lease_key(name)], args=[token]))

    async def lobby_after(self, position: str, count: int) -> list[tuple[str, int]]:
        """Up to ``count`` (game id, creation time) entries of the lobby, newest first, from just
        after the lobby ``position`` ("" from the newest): ``lua/lobby_after.lua``."""
        if not position:
            found = await self.client.zrevrange(LOBBY_KEY, 0, count - 1, withscores=True)
            return [(game_id.decode(), int(score)) for game_id, score in found]
        created, _, game_id = position.partition(":")
        flat = await self._lobby_after(keys=[LOBBY_KEY], args=[int(created), game_id, count])
        return [(flat[i].decode(), int(flat[i + 1])) for i in range(0, len(flat), 2)]

    async def lobby_ids(self, offset: int, count: int) -> list[str]:
        """Game ids of the lobby, newest first."""
        return [i.decode() for i in await self.client.zrevrange(LOBBY_KEY, offset, offset + count - 1)]

    async def lobby(self, offset: int, count: int) -> list[game_pb2.GameSummary]:
        """Lobby summaries as indexed, newest first."""
        ids = await self.lobby_ids(offset, count)
        summaries = await self.lobby_summaries(ids)
        return [summaries[i] for i in ids if i in summaries]

    async def oldest_lobby_ids(self, count: int, offset: int = 0) -> list[str]:
        """Game ids of the lobby, oldest first, from the ``offset``-th."""
        return [i.decode() for i in await self.client.zrange(LOBBY_KEY, offset, offset + count - 1)]

    async def lobby_summaries(self, game_ids: list[str]) -> dict[str, game_pb2.GameSummary]:
        """The indexed summaries of some games, by game id (missing ones left out)."""
        if not game_ids:
            return {}
        raw = await self.client.hmget(LOBBY_GAMES_KEY, game_ids)
        summaries = {}
        for game_id, data in zip(game_ids, raw):
            if data is not None:
                summary = game_pb2.GameSummary()
                summary.ParseFromString(data)
                summaries[game_id] = summary
        return summaries


def _lease_key(name: str) -> str:
    """The key of a lease (``Store.take_lease``), in the lobby's slot."""
    return f"hustings:{{lobby}}:lock:{name}"


def _unindex_keys(kinds: "list[str] | tuple[str, ...]") -> list[str]:
    """The keys the unindex script takes for a game of one of ``kinds``."""
    keys = [LOBBY_KEY, LOBBY_GAMES_KEY, LOBBY_VERSIONS_KEY, LOBBY_LIVE_KEY, *_STATUS_KEYS]
    for kind in dict.fromkeys(kinds):
        if FILED_KIND_RE.fullmatch(kind):
            keys += kind_filter_keys(kind)
    return keys


def _log_entry(fields: dict[bytes, bytes]) -> storage_pb2.LogEntry:
    """The log entry a stream entry's fields hold."""
    entry = storage_pb2.LogEntry()
    entry.ParseFromString(fields[b"e"])
    return entry


def _recorded_create(value: bytes) -> tuple[str, str]:
    """The (game id, fingerprint) a CreateGame request id's key holds ("<game id> <fingerprint>")."""
    recorded_id, _, recorded_fingerprint = value.decode().partition(" ")
    return recorded_id, recorded_fingerprint
