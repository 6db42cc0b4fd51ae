"""Generated bad requests against a real server process: clean errors, no crash, no change.

Every RPC gets random bytes, messages of the wrong type, oversized fields and structured requests
with random values, with and without seat tokens. Each call is followed by a check that a
refused call left the target game's stored snapshot exactly as it was.
"""

from __future__ import annotations

import asyncio
import random
from typing import Iterator

import grpc
import pytest
import redis
from grpc_health.v1 import health_pb2, health_pb2_grpc
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import run, serve_process
from service_helpers import new_game
from hustings.client import Client
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.service.store import game_key
from hustings.v1 import game_pb2, game_service_pb2

SERVICE = "/hustings.v1.GameService/"
UNARY = ["ListGameKinds", "CreateGame", "JoinGame", "GetView", "SubmitMove", "GetHistory", "ListGames"]
STREAM = ["WatchGame"]
# Codes a refused request may get; INTERNAL or UNKNOWN would mean the server mishandled input.
CLEAN = {
    grpc.StatusCode.INVALID_ARGUMENT,
    grpc.StatusCode.NOT_FOUND,
    grpc.StatusCode.FAILED_PRECONDITION,
    grpc.StatusCode.UNAUTHENTICATED,
    grpc.StatusCode.PERMISSION_DENIED,
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    grpc.StatusCode.ABORTED,
    grpc.StatusCode.OUT_OF_RANGE,  # WatchGame from a version beyond the game
    grpc.StatusCode.DEADLINE_EXCEEDED,  # the client's own short deadline on streams
}
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


class Target:
    """A server process with one game in progress whose snapshot must not change on refusals."""

    def __init__(self, redis_server: EmbeddedRedis, port: int) -> None:
        self.address = f"127.0.0.1:{port}"
        self.channel = grpc.insecure_channel(self.address)
        self.redis = redis.Redis.from_url(redis_server.url)

        async def setup() -> list[object]:
            async with Client(f"127.0.0.1:{port}") as client:
                return await new_game(client, 4)  # type: ignore[return-value]

        self.seats = run(setup())
        self.game_id = self.seats[0].game_id  # type: ignore[attr-defined]
        self.tokens = [s.token for s in self.seats]  # type: ignore[attr-defined]

    def snapshot(self) -> bytes | None:
        return self.redis.hget(game_key(self.game_id), "snapshot")  # type: ignore[return-value]

    def call(self, method: str, body: bytes, token: str | None) -> grpc.StatusCode:
        """Send raw bytes to a method; the status code of the answer."""
        metadata = (("authorization", f"Bearer {token}"),) if token else ()
        try:
            if method in STREAM:
                stream = self.channel.unary_stream(SERVICE + method)
                for _update in stream(body, metadata=metadata, timeout=0.5):
                    break
            else:
                self.channel.unary_unary(SERVICE + method)(body, metadata=metadata, timeout=10)
        except grpc.RpcError as error:
            return error.code()  # type: ignore[no-any-return]
        return grpc.StatusCode.OK

    def check(self, method: str, body: bytes, token: str | None) -> None:
        before = self.snapshot()
        code = self.call(method, body, token)
        assert code == grpc.StatusCode.OK or code in CLEAN, (method, code)
        if code != grpc.StatusCode.OK:
            assert self.snapshot() == before, f"{method} was refused with {code} but changed the game"


@pytest.fixture(scope="module")
def target(redis_server: EmbeddedRedis) -> Iterator[Target]:
    with serve_process("--redis-url", redis_server.url) as (process, port):
        target = Target(redis_server, port)
        yield target
        health = health_pb2_grpc.HealthStub(target.channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        assert process.poll() is None, "the server died"
        target.channel.close()
        target.redis.close()


def _token(target: Target, choice: int, junk: str) -> str | None:
    return [None, junk, *target.tokens][choice % (2 + len(target.tokens))]


@FUZZ
@given(method=st.sampled_from(UNARY + STREAM), body=st.binary(max_size=600), who=st.integers(0, 5), junk=st.text(max_size=40))
def test_random_bytes_get_clean_errors(target: Target, method: str, body: bytes, who: int, junk: str) -> None:
    token = _token(target, who, junk)
    if token is not None and not token.isascii() or (token and not token.isprintable()):
        token = "junk"
    target.check(method, body, token)


@FUZZ
@given(method=st.sampled_from(UNARY + STREAM), other=st.sampled_from(UNARY), who=st.integers(0, 5))
def test_messages_of_the_wrong_type(target: Target, method: str, other: str, who: int) -> None:
    message = getattr(game_service_pb2, f"{other}Request")(**({"game_id": target.game_id} if other not in ("ListGameKinds", "CreateGame", "ListGames") else {}))
    target.check(method, message.SerializeToString(), _token(target, who, "x"))


def _text() -> st.SearchStrategy[str]:
    return st.one_of(st.text(max_size=80), st.sampled_from(["", "{x}", "g" + "0" * 24, "V01", "D24", "V00"]))


@FUZZ
@given(
    game=st.one_of(_text(), st.just("")),
    use_real=st.booleans(),
    request_id=_text(),
    influences=st.lists(st.integers(-(2**31), 2**31 - 1), max_size=12),
    influence=st.integers(-(2**31), 2**31 - 1),
    card=_text(),
    expected=st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1)),
    kind=st.sampled_from(["choose", "play", "empty"]),
    who=st.integers(0, 5),
)
def test_structured_moves_with_random_values(
    target: Target, game: str, use_real: bool, request_id: str, influences: list[int], influence: int,
    card: str, expected: int | None, kind: str, who: int,
) -> None:
    request = game_service_pb2.SubmitMoveRequest(game_id=target.game_id if use_real else game, request_id=request_id)
    if kind == "choose":
        request.move.stimmvieh.choose_top_candidates.influences.extend(influences)
    elif kind == "play":
        request.move.stimmvieh.play_politician.influence = influence
        request.move.stimmvieh.play_politician.take_card_id = card
    if expected is not None:
        request.expected_version = expected
    target.check("SubmitMove", request.SerializeToString(), _token(target, who, "x"))


@FUZZ
@given(
    name=_text(), seat=st.one_of(st.none(), st.integers(-(2**31), 2**31 - 1)), players=st.integers(-5, 40),
    campaigns=st.integers(-3, 30), moderator=st.booleans(), moderator_seat=st.integers(-3, 8), slogan=_text(), replaces=_text(),
    seed=_text(), page_size=st.integers(-5, 500), page_token=_text(), from_version=st.integers(-(2**63), 2**63 - 1),
)
def test_structured_requests_for_every_other_rpc(
    target: Target, name: str, seat: int | None, players: int, campaigns: int, moderator: bool, moderator_seat: int,
    slogan: str, replaces: str, seed: str, page_size: int, page_token: str, from_version: int,
) -> None:
    options = game_pb2.GameOptions(players=players)
    options.stimmvieh.campaigns = campaigns
    options.stimmvieh.moderator = moderator
    options.stimmvieh.moderator_seat = moderator_seat
    options.stimmvieh.custom_vote_card.slogan = slogan
    options.stimmvieh.custom_vote_card.replaces_card_id = replaces
    create = game_service_pb2.CreateGameRequest(kind=random.choice(["stimmvieh", name]), options=options, seed=seed)
    join = game_service_pb2.JoinGameRequest(game_id=random.choice([target.game_id, name]), display_name=name)
    if seat is not None:
        join.seat = seat
    listing = game_service_pb2.ListGamesRequest(kind=name, page_size=page_size, page_token=page_token)
    watch = game_service_pb2.WatchGameRequest(game_id=target.game_id, from_version=from_version)
    for method, message in (("CreateGame", create), ("JoinGame", join), ("ListGames", listing), ("WatchGame", watch)):
        target.check(method, message.SerializeToString(), None)


def test_oversized_requests_are_resource_exhausted(target: Target) -> None:
    huge = game_service_pb2.JoinGameRequest(game_id=target.game_id, display_name="x" * (2 << 20))
    before = target.snapshot()
    assert target.call("JoinGame", huge.SerializeToString(), None) == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert target.snapshot() == before


def test_concurrent_garbage_does_not_disturb_a_game(target: Target) -> None:
    rng = random.Random(99)

    async def garbage(port_channel: grpc.aio.Channel) -> None:
        for _ in range(100):
            method = rng.choice(UNARY)
            try:
                await port_channel.unary_unary(SERVICE + method)(rng.randbytes(rng.randrange(200)), timeout=10)
            except grpc.aio.AioRpcError as error:
                assert error.code() in CLEAN, (method, error.code())

    async def scenario() -> None:
        async with grpc.aio.insecure_channel(target.address) as channel:
            before = target.snapshot()
            await asyncio.gather(*(garbage(channel) for _ in range(4)))
            assert target.snapshot() == before

    run(scenario())
