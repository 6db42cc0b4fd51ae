"""Counter-based randomness: every draw is derived from (seed, counter), so state stores two numbers.

Draw ``n`` is the first 8 bytes of SHA-256(seed || n) read as a big-endian integer; integers
below a bound come from rejection sampling, so shuffles are exactly uniform. Anyone holding the
seed can recompute every draw of a game. At creation a game publishes only a commitment to its
seed, salted with a nonce of its own (``seed_commitment``); it reveals both at the end.
"""

from __future__ import annotations

import hashlib
from typing import MutableSequence, TypeVar

T = TypeVar("T")

_DRAW_BITS = 64
_DRAW_SPAN = 1 << _DRAW_BITS


class Rng:
    """A deterministic generator positioned at ``counter`` in the stream of ``seed``."""

    __slots__ = ("seed", "counter")

    def __init__(self, seed: bytes, counter: int = 0) -> None:
        if not seed:
            raise ValueError("seed must not be empty")
        self.seed = bytes(seed)
        self.counter = counter

    def _draw(self) -> int:
        digest = hashlib.sha256(self.seed + self.counter.to_bytes(8, "big")).digest()
        self.counter += 1
        return int.from_bytes(digest[:8], "big")

    def below(self, bound: int) -> int:
        """A uniform integer in ``[0, bound)``."""
        if bound <= 0:
            raise ValueError("bound must be positive")
        limit = _DRAW_SPAN - (_DRAW_SPAN % bound)
        while True:
            value = self._draw()
            if value < limit:
                return value % bound

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle ``items`` in place (Fisher-Yates)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def choice(self, items: "list[T] | tuple[T, ...]") -> T:
        """One element of a non-empty sequence, uniformly."""
        return items[self.below(len(items))]


SEED_NONCE_BYTES = 32
"""The length of the nonce a game's seed commitment is salted with."""


def seed_commitment(seed: bytes, nonce: bytes = b"") -> str:
    """The public commitment to a seed: SHA-256(nonce || seed), hex.

    The nonce (``SEED_NONCE_BYTES`` random bytes per game, revealed with the seed) keeps a guessed
    seed from being checked against the commitment, and gives two games dealt from one seed
    different commitments. Without a nonce (games stored before there was one) this is
    SHA-256(seed), the commitment those games published.
    """
    if nonce and len(nonce) != SEED_NONCE_BYTES:
        # A fixed length fixes where the nonce ends and the seed begins: no other split of the
        # same bytes matches the commitment.
        raise ValueError(f"a seed nonce is {SEED_NONCE_BYTES} bytes")
    return hashlib.sha256(nonce + seed).hexdigest()
