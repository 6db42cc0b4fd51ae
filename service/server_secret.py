"""The server secret shared by every replica, and what is derived from it.

The secret keys three things: the stored form of request ids (a keyed hash, so whoever reads Redis
or its files cannot replay a request id, nor test guesses against it without the key) and the seat
token of a JoinGame made with a request id (derived from the request, so every attempt of one
join, on any replica and however many overlap, hands out the same token while only its hash is
stored), and the id of the game PlayAgain starts after a finished one (so every call about that
game names one next game, and nothing needs to be written to say which).

Where the secret comes from, first match wins: ``--secret-file`` / ``HUSTINGS_SECRET_FILE``; the
``HUSTINGS_SECRET`` environment variable; for the embedded Redis, a file ``secret`` (mode 0600)
in its data folder; otherwise a secret kept in Redis itself (created once by whichever replica
starts first). The last one keeps the replicas consistent with no setup, but then reading Redis
gives the key too: deployments should pass a secret of their own.

Replicas with different secrets would disagree on every stored request id and join token (a
join retried on another replica would take a second seat), so :class:`SecretGuard` keeps a keyed
check value of the secret in Redis, without an expiry (until Redis loses its data or a replica
replaces it): a replica started with another secret refuses to start (``SecretMismatch``),
whenever it starts. The value once lapsed 30 s after the last replica stopped, and a fleet
started again later with another secret (a compose run without its ``.env``) took it silently:
every retry from before answered as a new request. To change the secret, stop every replica and
start one with ``replace=True`` (``hustings serve --replace-secret``), then the others.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import os
import pathlib
import secrets

import structlog

from hustings.service.background import BackgroundLoop

log = structlog.get_logger("hustings.secret")

SECRET_BYTES = 32
REDIS_SECRET_KEY = "hustings:server-secret"
CHECK_KEY = "hustings:server-secret-check"
CHECK_EVERY_S = 10.0
# How often a replica whose secret is kept in Redis puts it back should Redis have lost it.
PUT_BACK_EVERY_S = 1.0

# KEYS[1] the check key; ARGV[1] this replica's check value. Sets the value when none is kept
# (a new Redis, or one that lost its data), and keeps ours for good (releases before this one gave
# it a 30-s expiry); returns the value kept (ours unless another secret is in use).
_CLAIM = """
local kept = redis.call('GET', KEYS[1])
if not kept then
  redis.call('SET', KEYS[1], ARGV[1])
  return ARGV[1]
end
if kept == ARGV[1] then
  redis.call('PERSIST', KEYS[1])
end
return kept
"""


class SecretError(ValueError):
    """A server secret that cannot be used (no such file, too short): ``serve`` stops with the
    message, one line, exit status 2."""


class SecretMismatch(RuntimeError):
    """Another replica on this Redis uses a different server secret."""


_MISMATCH = (
    "this Redis's games are kept under a different server secret (its replicas', running or not): give every"
    " replica the same --secret-file / HUSTINGS_SECRET (to change it, stop them all, then start one with --replace-secret)"
)


def read_or_create_file(path: pathlib.Path) -> bytes:
    """The secret kept in ``path`` (hex), created with mode 0600 if it does not exist."""
    try:
        return _parse(path.read_text())
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    value = secrets.token_bytes(SECRET_BYTES)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process made it first: use theirs
        return _parse(path.read_text())
    with os.fdopen(fd, "w") as handle:
        handle.write(value.hex() + "\n")
    return value


def from_text(text: str) -> bytes:
    """A secret given as text (``HUSTINGS_SECRET``): its UTF-8 bytes, at least 16 of them. Unlike
    a secret file's, 64 hex digits here are 64 bytes, not the 32 they spell."""
    value = text.strip().encode()
    if len(value) < 16:
        raise SecretError("the server secret in HUSTINGS_SECRET must be at least 16 characters")
    return value


def _parse(text: str) -> bytes:
    text = text.strip()
    try:
        value = bytes.fromhex(text)
    except ValueError:
        value = text.encode()
    if len(value) < 16:
        raise SecretError("the server secret file holds fewer than 16 bytes")
    return value


async def from_redis(client: object, replace: bool = False) -> bytes:
    """The secret kept in Redis, created by the first replica that asks (SET NX).

    ``SecretMismatch``, writing nothing, when Redis keeps no secret while a check value is held
    (unless ``replace``): the games are keyed under a secret of the replicas' own, so one drawn
    now would only be refused by the check and left behind in Redis (a replica keeping its secret
    in Redis puts the secret back before it claims the check value)."""
    stored = await client.get(REDIS_SECRET_KEY)  # type: ignore[attr-defined]
    if stored is None:
        if not replace and await client.exists(CHECK_KEY):  # type: ignore[attr-defined]
            raise SecretMismatch(_MISMATCH)
        candidate = secrets.token_bytes(SECRET_BYTES).hex()
        await client.set(REDIS_SECRET_KEY, candidate, nx=True)  # type: ignore[attr-defined]
        stored = await client.get(REDIS_SECRET_KEY)  # type: ignore[attr-defined]
    log.warning("server_secret_in_redis", hint="pass --secret-file so that reading Redis does not give the key")
    return _parse(stored.decode() if isinstance(stored, bytes) else str(stored))


class Keys:
    """Keyed hashes and derived tokens under one server secret."""

    def __init__(self, secret: bytes) -> None:
        self.replace(secret)

    def replace(self, secret: bytes) -> None:
        """Key everything under ``secret`` from now on (a replica adopting the secret Redis keeps)."""
        # HMAC-SHA256 keyed once: every move asks for a request key, and copying the keyed state
        # costs two thirds of hmac.digest, which derives the key's pads again on every call.
        self._keyed = hmac.new(secret, digestmod=hashlib.sha256)

    def _mac(self, *parts: str) -> bytes:
        """HMAC-SHA256 of the parts joined by NUL under the secret."""
        mac = self._keyed.copy()
        mac.update("\x00".join(parts).encode())
        return mac.digest()

    def request_key(self, scope: str, request_id: str) -> str:
        """The stored form of a request id in ``scope`` (e.g. a game and seat): a keyed hash."""
        return self._mac("request", scope, request_id)[:20].hex()

    def client_mark(self, client: str) -> bytes:
        """A keyed hash of a client address (``client_limits.client_of``) kept with the tables
        it creates: it tells the creator's joins from others' without keeping the address."""
        return self._mac("client", client)[:16]

    def check_value(self) -> str:
        """A keyed value that tells whether two replicas hold the same secret, and nothing of it."""
        return self._mac("secret-check")[:16].hex()

    def join_token(self, game_id: str, request_id: str) -> str:
        """The seat token of a JoinGame request: the same for every attempt of that request."""
        return base64.urlsafe_b64encode(self._mac("join-token", game_id, request_id)).rstrip(b"=").decode()

    def next_game_id(self, game_id: str, nonce: bytes) -> str:
        """The id of the game PlayAgain starts after ``game_id`` (``nonce``: the seed nonce drawn
        at that game's creation): "g" and 24 hex digits, as a created game's, derived so that
        every call about one finished game, on any replica, names the same next game without
        writing anything, and nobody without the secret can tell it from a random one or compute
        it. The nonce tells apart two games made under one id (a next game made again after it
        expired), so that each leads on to a game of its own."""
        return "g" + self._mac("play-again", game_id, nonce.hex())[:12].hex()


def fingerprint(*parts: bytes) -> str:
    """A digest of a request's content, to tell a retry from a request id reused for another request."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()[:32]


# The digest of a move's fingerprint after its first part (b"move"): every move takes a copy
# rather than hashing that part again.
_MOVE_PART = hashlib.sha256(len(b"move").to_bytes(8, "big") + b"move")


def move_fingerprint(move: bytes) -> str:
    """``fingerprint(b"move", move)`` of a SubmitMove's serialised move."""
    digest = _MOVE_PART.copy()
    digest.update(len(move).to_bytes(8, "big"))
    digest.update(move)
    return digest.hexdigest()[:32]


def resolve(secret_file: str, embedded_data_dir: pathlib.Path | None) -> bytes | None:
    """The secret a ``hustings serve`` uses, or None to keep it in Redis (see the module doc)."""
    if secret_file:
        path = pathlib.Path(secret_file)
        if not path.is_file():
            raise SecretError(f"no secret file at {secret_file}")
        return _parse(path.read_text())
    if os.environ.get("HUSTINGS_SECRET"):
        return from_text(os.environ["HUSTINGS_SECRET"])
    if embedded_data_dir is not None:
        return read_or_create_file(embedded_data_dir / "secret")
    return None


class SecretGuard(BackgroundLoop):
    """Keeps this replica's check value in Redis while it runs (see the module doc)."""

    task_name = "hustings-secret-guard"

    def __init__(self, client: object, keys: Keys, kept_in_redis: bytes | None = None, replace: bool = False) -> None:
        super().__init__()
        self._client = client
        self._replace = replace  # take the check value at start, whatever secret it names
        self._keys = keys
        self._value = keys.check_value()
        # The secret, when it is the one kept in Redis. A Redis that comes back empty (no
        # persistence, a new server at the address) is given it again at once (every
        # ``PUT_BACK_EVERY_S``), or a replica started then would draw another and refuse to start
        # (``SecretMismatch``). One that started in the moment before (it drew another secret
        # and took the check value) is followed: nothing stored under the old secret came back.
        self._secret_text = None if kept_in_redis is None else kept_in_redis.hex()
        # Whether the check value in Redis is this replica's: while another secret holds it (the
        # value lapsed while Redis was away, and a replica with another secret took it), the
        # replica's health is NOT_SERVING (``readiness.StoreReadiness``), or both secrets would
        # serve side by side and a join retried on the other replica take a second seat.
        self.agrees = True

    async def _claim(self) -> bool:
        if self._secret_text is not None:
            await self._client.set(REDIS_SECRET_KEY, self._secret_text, nx=True)  # type: ignore[attr-defined]
        kept = await self._client.eval(_CLAIM, 1, CHECK_KEY, self._value)  # type: ignore[attr-defined]
        kept_text = kept.decode() if isinstance(kept, bytes) else str(kept)
        if kept_text != self._value and self._secret_text is not None:
            return await self._adopt(kept_text)
        return kept_text == self._value

    async def _adopt(self, kept_check: str) -> bool:
        """Take the secret Redis keeps when the replicas serving now hold it (its check value is
        the one in Redis): this replica's, also kept in Redis, was lost with Redis's data."""
        stored = await self._client.get(REDIS_SECRET_KEY)  # type: ignore[attr-defined]
        if stored is None:
            return False
        text = stored.decode() if isinstance(stored, bytes) else str(stored)
        secret = _parse(text)
        if Keys(secret).check_value() != kept_check:
            return False
        self._keys.replace(secret)
        self._value, self._secret_text = kept_check, text
        log.warning("server_secret_adopted", hint="Redis came back without the secret it kept; the one stored since is used")
        return True

    async def check(self) -> None:
        """Claim the check value at start; ``SecretMismatch`` when another secret is in use
        (unless ``replace``: then this replica's secret replaces it, and replicas still running
        with the other one turn NOT_SERVING at their next round)."""
        if self._replace:
            replaced = await self._client.set(CHECK_KEY, self._value, get=True)  # type: ignore[attr-defined]
            if replaced is not None and (replaced.decode() if isinstance(replaced, bytes) else str(replaced)) != self._value:
                log.warning(
                    "server_secret_replaced",
                    hint="what was derived under the old secret no longer matches: retries sent before, next games of tables finished before, tables' makers",
                )
        if not await self._claim():
            raise SecretMismatch(_MISMATCH)

    async def _run(self) -> None:
        every_s = min(CHECK_EVERY_S, PUT_BACK_EVERY_S) if self._secret_text is not None else CHECK_EVERY_S
        while not self._stopping:
            await asyncio.sleep(every_s)
            try:
                agrees = await self._claim()
                if not agrees:
                    # Every round (a second, for a secret kept in Redis) for as long as it lasts:
                    # once every FAILURE_LOG_EVERY_S, counting the others, as failed rounds are.
                    left_out = self._failures.due("mismatch")
                    if left_out is not None:
                        log.error(
                            "server_secret_mismatch", hint="replicas on this Redis use different secrets", health="NOT_SERVING",
                            alike_not_logged=left_out,
                        )
                elif not self.agrees:
                    log.info("server_secret_agreed", health="SERVING")
                self.agrees = agrees
            except Exception as error:  # Redis briefly away: the next round tries again
                self.failed(log, "server_secret_check_failed", error)
