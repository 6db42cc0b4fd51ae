"""The Python client of hustings: typed async calls over the generated gRPC stubs.

    async with Client("127.0.0.1:50051") as client:
        game_id = (await client.create_game("stimmvieh", players=4)).game_id
        me = await client.join(game_id, "Ada")       # me.seat, me.token (secret)
        view = await client.view(game_id, me.token)

Errors raise ``HustingsError`` with the gRPC code and the machine-readable reason.

Every unary call retries itself (see ``RetryPolicy``): one request id is drawn per logical call
and sent again on every attempt, so a create, join or move whose answer was lost is answered on
retry as the first time and applied once. UNAVAILABLE and DEADLINE_EXCEEDED are retried with
backoff; a refusal that carries the server's retry hint (``google.rpc.RetryInfo``, as
RESOURCE_EXHAUSTED ``TOO_MANY_GAMES_CREATED`` and UNAVAILABLE ``STORE_UNAVAILABLE`` do) is
retried after at least the hinted delay,
with jitter on top, while the call's budget (``timeout_s``) allows, else raised at once with the
hint in ``HustingsError.retry_after_s``. Any other refusal (ABORTED on a stale version, an illegal
move, a RESOURCE_EXHAUSTED without a hint) is the caller's to handle.
The table calls without a request id (leave, return, add a bot, play again) are made safe to retry
by what they ask for: see their docstrings.
"""

from __future__ import annotations

import asyncio
import copy
import random
import time
import uuid
from dataclasses import dataclass
from typing import AsyncIterator, Awaitable, Callable, TypeVar

import grpc
from google.rpc import error_details_pb2, status_pb2

from hustings.v1 import game_pb2, game_service_pb2, game_service_pb2_grpc

DEFAULT_TIMEOUT_S = 30.0
# Unary calls a client sends at once on its channel; more wait here for one to end. A replica
# gives a connection 128 HTTP/2 streams (``--max-streams-per-connection``), of which its streams
# may take 96 and its calls always find these 32; a burst past the 128 is refused REFUSED_STREAM
# (UNAVAILABLE), and 200 moves at once on one channel lost 146 of them so.
CALLS_AT_ONCE = 32
# A channel option giving the channel a connection of its own: gRPC otherwise shares one among a
# process's channels to one address, and a replica caps the streams of a connection.
OWN_CONNECTION = (("grpc.use_local_subchannel_pool", 1),)

# The codes after which the same request may still succeed: the replica or the store could not
# answer (or the answer was lost), which says nothing about the request itself.
RETRY_CODES = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED})

# A hinted retry waits the hint plus up to this share of it more, drawn uniformly: clients refused
# together come back spread out, and none waits less than it was asked to.
HINT_JITTER = 0.25
# The shortest hinted wait, whatever the hint says: a hint of zero must not make the retries spin.
MIN_HINT_S = 0.01

T = TypeVar("T")

# How soon the channel tries to connect again after it lost its server. gRPC's default starts at
# 1 s and grows to 120 s, so a client of a replica that restarted would be refused UNAVAILABLE
# from the channel's memory of the outage for long after the replica is back, and its retries
# run out meanwhile. A server that is down costs such a channel a refused connection every
# 0.3 s at most.
CHANNEL_OPTIONS: tuple[tuple[str, int], ...] = (
    ("grpc.initial_reconnect_backoff_ms", 100),
    ("grpc.min_reconnect_backoff_ms", 100),
    ("grpc.max_reconnect_backoff_ms", 300),
)

# add_bot chooses a free seat again when a player took the one it chose; this many times at most.
MAX_SEAT_CHOICES = 3


class HustingsError(Exception):
    """A refused call: ``code`` (grpc.StatusCode), ``reason`` (e.g. "NOT_YOUR_TURN"), message,
    and ``retry_after_s``: the server's retry hint in seconds (``google.rpc.RetryInfo``), or None
    when the refusal carries none."""

    def __init__(self, code: grpc.StatusCode, reason: str, message: str, retry_after_s: float | None = None) -> None:
        super().__init__(f"{code.name} {reason}: {message}")
        self.code = code
        self.reason = reason
        self.message = message
        self.retry_after_s = retry_after_s

    def __str__(self) -> str:
        """``CODE REASON: message``, leaving out a part the refusal lacks (a call that never
        reached a server has no reason)."""
        head = " ".join(part for part in (self.code.name, self.reason) if part)
        return f"{head}: {self.message}" if self.message else head

    @classmethod
    def from_rpc_error(cls, error: grpc.aio.AioRpcError) -> "HustingsError":
        """Parse the google.rpc.Status details of a failed call: ErrorInfo and RetryInfo."""
        reason, retry_after_s = "", None
        for key, value in error.trailing_metadata() or ():
            if key == "grpc-status-details-bin":
                status = status_pb2.Status()
                status.ParseFromString(value)
                for detail in status.details:
                    info, hint = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
                    if detail.Unpack(info):
                        reason = info.reason
                    elif detail.Unpack(hint):
                        retry_after_s = hint.retry_delay.seconds + hint.retry_delay.nanos / 1e9
        return cls(error.code(), reason, error.details() or "", retry_after_s)


@dataclass(frozen=True)
class RetryPolicy:
    """How one logical call is retried: bounded attempts, each with its own deadline, apart by
    exponential backoff with full jitter (a pause drawn uniformly from zero to the cap, so that
    clients refused together do not come back together). The whole call is also bounded by the
    client's ``timeout_s``.

    A refusal with the server's retry hint is retried after the hint (see ``hinted_pause_s``)
    and is not counted in ``max_attempts``: the server paces those retries, and the budget bounds
    them. A policy of one attempt (``ONE_ATTEMPT``) never retries, hinted or not."""

    max_attempts: int = 6
    attempt_timeout_s: float = 10.0
    first_backoff_s: float = 0.05
    max_backoff_s: float = 2.0
    multiplier: float = 2.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1 or self.attempt_timeout_s <= 0 or self.first_backoff_s < 0:
            raise ValueError("a retry policy needs at least one attempt and a positive attempt timeout")

    def backoff_s(self, retry: int, rng: random.Random) -> float:
        """The pause before retry number ``retry`` (0 for the first retry)."""
        cap = min(self.max_backoff_s, self.first_backoff_s * self.multiplier**retry)
        return rng.uniform(0.0, cap)


ONE_ATTEMPT = RetryPolicy(max_attempts=1)


def hinted_pause_s(retry_after_s: float, rng: random.Random) -> float:
    """The pause before retrying a refusal hinted ``retry_after_s``: at least the hint (and
    ``MIN_HINT_S``), plus up to ``HINT_JITTER`` of it more. The jitter is a share of the hint,
    not the policy's growing backoff, so that a client refused many times is as likely to come
    first as one refused once."""
    hint = max(MIN_HINT_S, retry_after_s)
    return hint + rng.uniform(0.0, HINT_JITTER * hint)


def checked_display_name(name: str) -> str:
    """``name`` as JoinGame takes it, or the refusal JoinGame would give (HustingsError
    INVALID_ARGUMENT ``BAD_DISPLAY_NAME``), without a call: a program that makes a table for its
    player checks the name first, so that a refused name leaves no open table behind. The
    server's own check (this release's rules) decides in the end."""
    from hustings.service.errors import ServiceError
    from hustings.service.seats import display_name

    try:
        return display_name(name)
    except ServiceError as refused:
        raise HustingsError(refused.code, refused.reason, str(refused)) from None


def new_request_id() -> str:
    """A fresh request id for one logical call (random, so that nobody can guess a join's)."""
    return uuid.uuid4().hex


async def retrying(
    attempt: Callable[[int, float], Awaitable[T]],
    policy: RetryPolicy,
    budget_s: float,
    rng: random.Random | None = None,
) -> T:
    """Run ``attempt(number, timeout_s)`` until it answers, retrying on ``RETRY_CODES`` and on
    refusals that carry a retry hint.

    ``attempt`` raises ``HustingsError``; it must send the same request every time (the same
    request id), which is what makes a retry safe. Gives up with the last error after
    ``policy.max_attempts`` attempts refused with ``RETRY_CODES``, or at once when the next
    pause (a hinted one included) would overrun ``budget_s``. Hinted retries are bounded by
    the budget alone, each at least ``MIN_HINT_S`` apart.
    """
    rng = rng or random.Random()
    deadline = time.monotonic() + budget_s
    number = failures = 0
    while True:
        remaining = deadline - time.monotonic()
        try:
            return await attempt(number, max(0.001, min(policy.attempt_timeout_s, remaining)))
        except HustingsError as error:
            if policy.max_attempts == 1:
                raise
            if error.retry_after_s is not None:
                # A hinted refusal is retried no sooner than the server asked, paced by the
                # server rather than counted among the backoff attempts.
                pause = hinted_pause_s(error.retry_after_s, rng)
            elif error.code in RETRY_CODES and failures < policy.max_attempts - 1:
                pause = policy.backoff_s(failures, rng)
                failures += 1
            else:
                raise
            if time.monotonic() + pause >= deadline:
                raise
            await asyncio.sleep(pause)
        number += 1


def _metadata(token: str | None, game_id: str = "") -> tuple[tuple[str, str], ...]:
    # x-hustings-game lets a balancer keep a game on one replica (its state stays cached there).
    game = (("x-hustings-game", game_id),) if game_id else ()
    return ((("authorization", f"Bearer {token}"),) if token else ()) + game


@dataclass
class Joined:
    """A seat taken in a game."""

    game_id: str
    seat: int
    token: str
    view: game_pb2.GameView


class Client:
    """An async client; one channel, any number of seats (pass the seat token per call).

    ``timeout_s`` bounds each logical call, retries included; ``retry`` says how it is retried.
    """

    def __init__(
        self,
        address: str,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        retry: RetryPolicy = RetryPolicy(),
        own_connection: bool = False,
    ) -> None:
        self.address = address
        self.timeout_s = timeout_s
        self.retry = retry
        self.rng = random.Random()
        options = CHANNEL_OPTIONS + (OWN_CONNECTION if own_connection else ())
        self.channel = grpc.aio.insecure_channel(address, options=options)
        self.stub = game_service_pb2_grpc.GameServiceStub(self.channel)
        self._at_once = asyncio.Semaphore(CALLS_AT_ONCE)  # shared by ``with_retry``'s copies

    async def __aenter__(self) -> "Client":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the channel."""
        await self.channel.close()

    def with_retry(self, retry: RetryPolicy, timeout_s: float | None = None) -> "Client":
        """This client's channel under another retry policy (``ONE_ATTEMPT``: no retries, for a
        caller that retries elsewhere itself). Closing either closes the shared channel."""
        other = copy.copy(self)
        other.retry = retry
        if timeout_s is not None:
            other.timeout_s = timeout_s
        return other

    async def _call(
        self,
        method: str,
        request: object,
        token: str | None = None,
        *,
        settled: Callable[[HustingsError], Awaitable[object | None]] | None = None,
    ) -> object:
        """One logical call, retried under ``self.retry``.

        ``settled`` is for calls without a request id: when an attempt is refused after an
        earlier attempt may have been applied (it ended UNAVAILABLE or DEADLINE_EXCEEDED), it
        is asked whether the refusal only says that the earlier attempt did the job, and
        returns the answer to give then (None: the refusal stands).
        """
        metadata = _metadata(token, getattr(request, "game_id", ""))
        rpc = getattr(self.stub, method)
        possibly_applied = False

        async def attempt(_number: int, timeout_s: float) -> object:
            nonlocal possibly_applied
            began = time.monotonic()
            try:
                async with self._at_once:  # the wait for a place counts towards the attempt's time
                    return await rpc(request, metadata=metadata, timeout=max(0.001, timeout_s - (time.monotonic() - began)))
            except grpc.aio.AioRpcError as error:
                refused = HustingsError.from_rpc_error(error)
            if refused.code in RETRY_CODES:
                possibly_applied = True
            elif possibly_applied and settled is not None:
                answer = await settled(refused)
                if answer is not None:
                    return answer
            raise refused

        return await retrying(attempt, self.retry, self.timeout_s, self.rng)

    async def kinds(self) -> list[game_pb2.GameKind]:
        """The hosted game kinds."""
        response = await self._call("ListGameKinds", game_service_pb2.ListGameKindsRequest())
        return list(response.kinds)  # type: ignore[attr-defined]

    async def create_game(
        self,
        kind: str,
        players: int,
        options: game_pb2.GameOptions | None = None,
        seed: str = "",
        request_id: str | None = None,
        table: game_pb2.TableSettings | None = None,
    ) -> game_service_pb2.CreateGameResponse:
        """Create a game; ``options`` carries the kind's own options, ``table`` how the table
        runs (clocks, bot seats, takeover; none: no clock, no bots). Every attempt sends one
        request id (``request_id``, or a fresh one) with the same request, so a retry answers
        with the first game (the server refuses one id sent with other options or table)."""
        game_options = game_pb2.GameOptions()
        if options is not None:
            game_options.CopyFrom(options)
        game_options.players = players
        request = game_service_pb2.CreateGameRequest(
            kind=kind, options=game_options, seed=seed, request_id=request_id or new_request_id()
        )
        if table is not None:
            request.table.CopyFrom(table)
        return await self._call("CreateGame", request)  # type: ignore[return-value]

    async def join(
        self,
        game_id: str,
        display_name: str,
        seat: int | None = None,
        request_id: str | None = None,
        party_name: str = "",
        party_colour: str = "",
    ) -> Joined:
        """Take a seat (the lowest free one unless ``seat`` is given); in Wahlspiel the party may
        take ``party_name`` and ``party_colour``.

        Every attempt sends one request id (``request_id``, or a fresh one), so a retry takes the
        seat the first attempt took. The token returned is the one of the last answer, which is
        the one that works even on a server that reissues the token on every retry.
        """
        request = game_service_pb2.JoinGameRequest(
            game_id=game_id,
            display_name=display_name,
            request_id=request_id or new_request_id(),
            party_name=party_name,
            party_colour=party_colour,
        )
        if seat is not None:
            request.seat = seat
        response = await self._call("JoinGame", request)
        return Joined(game_id, response.seat, response.seat_token, response.view)  # type: ignore[attr-defined]

    async def view(self, game_id: str, token: str | None = None) -> game_pb2.GameView:
        """The caller's view (a spectator's without a token)."""
        response = await self._call("GetView", game_service_pb2.GetViewRequest(game_id=game_id), token)
        return response.view  # type: ignore[attr-defined]

    async def move(
        self,
        game_id: str,
        token: str,
        move: game_pb2.Move,
        expected_version: int | None = None,
        request_id: str | None = None,
    ) -> game_service_pb2.SubmitMoveResponse:
        """Submit a move once. Every attempt sends one request id (``request_id``, or a fresh
        one), so a retry returns the first answer and the move is applied once."""
        request = game_service_pb2.SubmitMoveRequest(game_id=game_id, request_id=request_id or new_request_id())
        request.move.CopyFrom(move)
        if expected_version is not None:
            request.expected_version = expected_version
        return await self._call("SubmitMove", request, token)  # type: ignore[return-value]

    async def leave(self, game_id: str, token: str) -> game_service_pb2.LeaveGameResponse:
        """Leave the seat of ``token``: in a running game the seat turns absent and its bot
        plays until ``return_to_game``; in an open game the seat is freed and the token stops
        working.

        LeaveGame carries no request id. A retry after an attempt whose answer was lost is
        refused ALREADY_ABSENT when that attempt was applied; the client takes that refusal as
        the answer and returns the seat's current view. (An open game's freed seat cannot be
        told from a wrong token: that retry stays refused UNAUTHENTICATED INVALID_SEAT_TOKEN.)
        """

        async def settled(refused: HustingsError) -> object | None:
            if refused.reason != "ALREADY_ABSENT":
                return None
            return game_service_pb2.LeaveGameResponse(view=await self.view(game_id, token))

        request = game_service_pb2.LeaveGameRequest(game_id=game_id)
        return await self._call("LeaveGame", request, token, settled=settled)  # type: ignore[return-value]

    async def return_to_game(self, game_id: str, token: str) -> game_service_pb2.ReturnToGameResponse:
        """Come back to the absent seat of ``token`` (after leaving or timing out too often):
        its bot stops and the seat decides for itself again.

        ReturnToGame carries no request id. A retry after an attempt whose answer was lost is
        refused NOT_ABSENT when that attempt was applied; the client takes that refusal as the
        answer and returns the seat's current view.
        """

        async def settled(refused: HustingsError) -> object | None:
            if refused.reason != "NOT_ABSENT":
                return None
            return game_service_pb2.ReturnToGameResponse(view=await self.view(game_id, token))

        request = game_service_pb2.ReturnToGameRequest(game_id=game_id)
        return await self._call("ReturnToGame", request, token, settled=settled)  # type: ignore[return-value]

    async def take_over(
        self, game_id: str, seat: int, display_name: str, request_id: str | None = None
    ) -> Joined:
        """Take over an absent seat (or a bot's) as a new player, where the table allows it
        (``allow_takeover``); the seat gets a fresh token and the old one stops working.

        Every attempt sends one request id (``request_id``, or a fresh one), so a retry gets
        the seat token the first attempt got; keep the id as secret as the token.
        """
        request = game_service_pb2.TakeOverSeatRequest(
            game_id=game_id, seat=seat, display_name=display_name, request_id=request_id or new_request_id()
        )
        response = await self._call("TakeOverSeat", request)
        return Joined(game_id, response.seat, response.seat_token, response.view)  # type: ignore[attr-defined]

    async def add_bot(
        self, game_id: str, seat: int | None = None, level: str = "", token: str | None = None
    ) -> game_service_pb2.AddBotResponse:
        """Fill a free seat of an open game with a server-side bot (``level`` "" for the table's
        level); the lowest free seat unless ``seat`` is given. At a listed table only a player
        seated at it (``token``, a seat token of the game) or the client address that made it
        may (else PERMISSION_DENIED ``NOT_AT_THE_TABLE``).

        AddBot carries no request id, and a blind retry of an attempt whose answer was lost
        could seat a second bot. So every attempt names one seat: without ``seat`` the client
        reads the game first and asks for its lowest free seat (choosing again, a few times,
        when a player takes that seat first). A retry after a lost answer is then refused
        SEAT_TAKEN (or GAME_FULL when the bot filled the game) if the lost attempt was applied;
        when the game shows a bot in that seat the client returns it as the answer.
        """
        for _choice in range(MAX_SEAT_CHOICES):
            wanted = seat
            if wanted is None:
                free = [s.seat for s in (await self.view(game_id)).seats if not s.taken]
                if not free:
                    # Nothing to pin: ask once for any seat and let the server say why not.
                    request = game_service_pb2.AddBotRequest(game_id=game_id, level=level)
                    return await self.with_retry(ONE_ATTEMPT)._call("AddBot", request, token)  # type: ignore[return-value]
                wanted = free[0]
            try:
                return await self._add_bot_to(game_id, wanted, level, token)
            except HustingsError as error:
                if seat is not None or error.reason != "SEAT_TAKEN":
                    raise
                # A player took the seat we chose between our look and the bot: choose again.
        raise HustingsError(grpc.StatusCode.ABORTED, "TOO_MUCH_CONTENTION", "free seats were taken while choosing one")

    async def play_again(self, game_id: str, token: str) -> game_service_pb2.PlayAgainResponse:
        """Start the next game at the table of the finished game ``game_id`` (``token``: a seat
        token of it): the same kind, options and table, its bots seated, a seed the server
        draws. Every call about one finished game, from any of its seats, answers with the same
        next game, so the call is safe to retry. Nobody is seated in it but its bots: join it
        with ``join(response.game_id, name, seat=...)``."""
        request = game_service_pb2.PlayAgainRequest(game_id=game_id)
        return await self._call("PlayAgain", request, token)  # type: ignore[return-value]

    async def _add_bot_to(self, game_id: str, seat: int, level: str, token: str | None = None) -> game_service_pb2.AddBotResponse:
        async def settled(refused: HustingsError) -> object | None:
            if refused.reason not in ("SEAT_TAKEN", "GAME_FULL"):
                return None
            view = await self.view(game_id)
            if seat < len(view.seats) and view.seats[seat].bot:
                return game_service_pb2.AddBotResponse(seat=seat, view=view)
            return None

        request = game_service_pb2.AddBotRequest(game_id=game_id, seat=seat, level=level)
        return await self._call("AddBot", request, token, settled=settled)  # type: ignore[return-value]

    async def history_page(
        self, game_id: str, token: str | None = None, after_version: int = 0, page_size: int = 0
    ) -> game_service_pb2.GetHistoryResponse:
        """One page of the caller's history: the steps after ``after_version``, at most
        ``page_size`` of them (0: the server's default); go on from its ``next_after_version``
        while that is not 0."""
        request = game_service_pb2.GetHistoryRequest(game_id=game_id, after_version=after_version, page_size=page_size)
        return await self._call("GetHistory", request, token)  # type: ignore[return-value]

    async def history(self, game_id: str, token: str | None = None, page_size: int = 0) -> list[game_pb2.HistoryEntry]:
        """The caller's whole history of the game, read page by page, up to the version the first
        page was read at.

        When the game ends part-way through, the walk starts again from the first step (once:
        a finished game stays finished), so that the answer is all filtered or all revealed."""
        for _ in range(2):
            first = await self.history_page(game_id, token, 0, page_size)
            entries, page, after = list(first.entries), first, 0
            # The walk stops at the first page's version (later pages may be read at later
            # versions: their extra steps are dropped) and only ever moves forward.
            while after < page.next_after_version < first.version and page.revealed == first.revealed:
                after = page.next_after_version
                page = await self.history_page(game_id, token, after, page_size)
                entries.extend(page.entries)
            if page.revealed == first.revealed:
                return [entry for entry in entries if entry.version <= first.version]
        raise AssertionError("unreachable: a finished game's pages are all revealed")

    async def games(self, kind: str = "", status: int = 0, page_size: int = 50, page_token: str = "") -> game_service_pb2.ListGamesResponse:
        """One page of the lobby."""
        request = game_service_pb2.ListGamesRequest(kind=kind, status=status, page_size=page_size, page_token=page_token)  # type: ignore[arg-type]
        return await self._call("ListGames", request)  # type: ignore[return-value]

    async def watch(self, game_id: str, token: str | None = None, from_version: int = 0) -> AsyncIterator[game_service_pb2.WatchGameResponse]:
        """Updates after ``from_version``, live; ends when the game is over.

        A stream is not retried here: when it breaks, watch again from the last version seen
        (``hustings.bots.play_seat`` does so, on another replica)."""
        request = game_service_pb2.WatchGameRequest(game_id=game_id, from_version=from_version)
        call = self.stub.WatchGame(request, metadata=_metadata(token, game_id))
        try:
            async for update in call:
                yield update
        except grpc.aio.AioRpcError as error:
            raise HustingsError.from_rpc_error(error) from None
        finally:
            call.cancel()
