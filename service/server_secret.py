"""The server secret shared by every replica, and what is derived from it.

The secret keys two things: the stored form of request ids (a keyed hash, so whoever reads Redis
or its files cannot replay a request id, nor test guesses against it without the key) and the seat
token of a JoinGame made with a request id (derived from the request, so every attempt of one
join, on any replica and however many overlap, hands out the same token while only its hash is
stored).

Where the secret comes from, first match wins: ``--secret-file`` / ``HUSTINGS_SECRET_FILE``; the
``HUSTINGS_SECRET`` environment variable; for the embedded Redis, a file ``secret`` (mode 0600)
in its data folder; otherwise a secret kept in Redis itself (created once by whichever replica
starts first). The last one keeps the replicas consistent with no setup, but then reading Redis
gives the key too: deployments should pass a secret of their own.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import pathlib
import secrets

import structlog

log = structlog.get_logger("hustings.secret")

SECRET_BYTES = 32
REDIS_SECRET_KEY = "hustings:server-secret"


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
    """A secret given as text (environment variable): its UTF-8 bytes, at least 16 of them."""
    value = text.strip().encode()
    if len(value) < 16:
        raise ValueError("the server secret must be at least 16 characters")
    return value


def _parse(text: str) -> bytes:
    text = text.strip()
    try:
        value = bytes.fromhex(text)
    except ValueError:
        value = text.encode()
    if len(value) < 16:
        raise ValueError("the server secret file holds fewer than 16 bytes")
    return value


async def from_redis(client: object) -> bytes:
    """The secret kept in Redis, created by the first replica that asks (SET NX)."""
    candidate = secrets.token_bytes(SECRET_BYTES).hex()
    await client.set(REDIS_SECRET_KEY, candidate, nx=True)  # type: ignore[attr-defined]
    stored = await client.get(REDIS_SECRET_KEY)  # type: ignore[attr-defined]
    log.warning("server_secret_in_redis", hint="pass --secret-file so that reading Redis does not give the key")
    return _parse(stored.decode() if isinstance(stored, bytes) else str(stored))


class Keys:
    """Keyed hashes and derived tokens under one server secret."""

    def __init__(self, secret: bytes) -> None:
        self._secret = secret

    def _mac(self, *parts: str) -> bytes:
        message = "\x00".join(parts).encode()
        return hmac.new(self._secret, message, hashlib.sha256).digest()

    def request_key(self, scope: str, request_id: str) -> str:
        """The stored form of a request id in ``scope`` (e.g. a game and seat): a keyed hash."""
        return self._mac("request", scope, request_id)[:20].hex()

    def join_token(self, game_id: str, request_id: str) -> str:
        """The seat token of a JoinGame request: the same for every attempt of that request."""
        return base64.urlsafe_b64encode(self._mac("join-token", game_id, request_id)).rstrip(b"=").decode()


def fingerprint(*parts: bytes) -> str:
    """A digest of a request's content, to tell a retry from a request id reused for another request."""
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()[:32]


def resolve(secret_file: str, embedded_data_dir: pathlib.Path | None) -> bytes | None:
    """The secret a ``hustings serve`` uses, or None to keep it in Redis (see the module doc)."""
    if secret_file:
        path = pathlib.Path(secret_file)
        if not path.is_file():
            raise ValueError(f"no secret file at {secret_file}")
        return _parse(path.read_text())
    if os.environ.get("HUSTINGS_SECRET"):
        return from_text(os.environ["HUSTINGS_SECRET"])
    if embedded_data_dir is not None:
        return read_or_create_file(embedded_data_dir / "secret")
    return None
