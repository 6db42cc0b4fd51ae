"""A seat's legal moves in its view, written from kept bytes.

Written move by move (``move_to_proto`` into ``view.legal_moves.add()``), a view's legal moves
cost about 2 µs a move in protobuf's calls from Python: 2.3 ms for the 945 Staffs of The Spin
Doctors' opening choice, paid by every seat's view (GetView, JoinGame, each seated WatchGame
update) on every step of that phase. Two things are kept instead:

- Each move's part of a view's wire form, by the move's value (moves are frozen values): the
  bytes of a ``GameView`` holding only that move, written once by the plain path. In protobuf's
  wire format a message's bytes followed by another's are the bytes of their merge, and a
  repeated field's entries are appended in order, so a seat's list is these parts joined and
  merged into the view with one ``MergeFromString``: the view's bytes are the plain path's to
  the byte, at an eighth of the cost for that long list (a short one's cost is mostly
  ``legal_moves`` itself).
- A seat's joined list while its state is the same object: the views of one step share the
  state's decoding (the host's cache), and a state is never changed once made. The key is the
  state's identity *and* the seat, so no seat is given another seat's list; the entry holds a
  weak reference to its state and is used only while that reference still gives the very state
  asked about, so a state made later at a freed state's address never gets the freed one's
  list, and a kept list keeps no state alive (a state that cannot be referenced weakly gets its
  lists written every time). A view of a state already listed costs a twentieth to a
  thirtieth of the plain path: what is left is protobuf's parse of the list.

Both are bounded (``KEPT_MOVES`` parts per game, ``KEPT_LISTS`` lists and ``KEPT_LIST_BYTES``
of them) and, when full, let go of everything at once, as ``engine/jsontext.py``'s memos do:
clearing is atomic, so views may be built on several threads.
"""

from __future__ import annotations

import weakref
from typing import Any

from hustings.engine import Seat
from hustings.v1 import game_pb2

KEPT_MOVES = 16384
"""Move parts kept per game. Whole random games meet a few hundred (Stimmvieh) to a few thousand
(The Spin Doctors' deals and actions, Wahlspiel's events and trades) distinct moves; a part costs
about 0.2 kB with its dict slot, so at most about 3 MB per game."""

KEPT_LISTS = 1024
"""Seats' lists kept (one per state and seat): with ``KEPT_LIST_BYTES``, at most about 4.3 MB
(each entry's key, weak reference and dict slot cost about 0.3 kB beside its bytes)."""

KEPT_LIST_BYTES = 4 << 20
"""Bytes of kept lists, at most: a list is 0.2 kB in the middle of a game and 14 kB at The Spin
Doctors' Staff choice, so this bound, not ``KEPT_LISTS``, holds when many such lists are kept."""


class LegalMoveLists:
    """The kept parts and lists of one replica (``LEGAL_MOVE_LISTS``); see the module's doc."""

    def __init__(self, moves: int = KEPT_MOVES, lists: int = KEPT_LISTS, list_bytes: int = KEPT_LIST_BYTES) -> None:
        self.max_moves, self.max_lists, self.max_list_bytes = moves, lists, list_bytes
        self._parts: dict[str, dict[Any, bytes]] = {}  # by game kind, then by move
        self._lists: dict[tuple[int, Seat], tuple[weakref.ref[Any], bytes]] = {}  # by (id(state), seat)
        self._list_bytes = 0

    def fill(self, game: Any, state: Any, seat: Seat, view: game_pb2.GameView) -> None:
        """Append ``seat``'s legal moves in ``state`` to ``view.legal_moves``: the same bytes as
        ``game.move_to_proto(move, view.legal_moves.add())`` for each move in turn."""
        key = (id(state), seat)
        found = self._lists.get(key)
        if found is not None and found[0]() is state:
            view.MergeFromString(found[1])
            return
        data = self.written(game, game.legal_moves(state, seat))
        view.MergeFromString(data)
        if not data or len(data) > self.max_list_bytes:  # nothing to keep, or more than may be kept
            return
        try:
            state_ref = weakref.ref(state)
        except TypeError:
            return
        if len(self._lists) >= self.max_lists or self._list_bytes + len(data) > self.max_list_bytes:
            self._lists.clear()
            self._list_bytes = 0
        replaced = self._lists.get(key)  # a list of a state gone since, at the same address
        if replaced is not None:
            self._list_bytes -= len(replaced[1])
        self._lists[key] = (state_ref, data)
        self._list_bytes += len(data)

    def written(self, game: Any, moves: list[Any]) -> bytes:
        """The wire form of a ``GameView`` holding only ``moves`` as its legal moves."""
        parts = self._parts.get(game.info.kind)
        if parts is None:
            parts = self._parts.setdefault(game.info.kind, {})
        # Moves equal in Python are written alike: a codec writes a move's fields, and where
        # equality mixes kinds (1 == True) protobuf writes a bool field's 1 as True (an int
        # field refuses True, which no engine lists).
        try:
            found = list(map(parts.get, moves))
        except TypeError:  # a move that is not hashable: written the plain way, not kept
            return b"".join(_part(game, move) for move in moves)
        if None in found:
            for i, move in enumerate(moves):
                if found[i] is None:
                    found[i] = self._kept_part(game, parts, move)
        return b"".join(found)  # type: ignore[arg-type]  # every None was replaced

    def _kept_part(self, game: Any, parts: dict[Any, bytes], move: Any) -> bytes:
        data = _part(game, move)
        if len(parts) >= self.max_moves:
            parts.clear()
        parts[move] = data
        return data

    def kept(self) -> tuple[int, int, int]:
        """What is kept now: (move parts of every game, lists, bytes of lists)."""
        return sum(len(p) for p in self._parts.values()), len(self._lists), self._list_bytes


def _part(game: Any, move: Any) -> bytes:
    """One move's part of a view's wire form, written the plain way."""
    holder = game_pb2.GameView()
    game.move_to_proto(move, holder.legal_moves.add())
    return holder.SerializeToString()


LEGAL_MOVE_LISTS = LegalMoveLists()
"""The replica's kept parts and lists, shared by every view it builds."""


def fill_legal_moves(game: Any, state: Any, seat: Seat, view: game_pb2.GameView) -> None:
    """Append ``seat``'s legal moves in ``state`` to ``view.legal_moves``, from the replica's
    kept bytes (``LEGAL_MOVE_LISTS``): the same bytes as the plain path, move by move."""
    LEGAL_MOVE_LISTS.fill(game, state, seat, view)
