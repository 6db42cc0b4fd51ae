"""What one client can do to other clients or to the deployment through the public API, found by
reading it as an attacker would, each with the check that keeps it out.

- Fields a gRPC request carries that the proto does not define were kept: a game's options and
  table settings with them went into its snapshot (rewritten on every step) and into every view
  of the game, and a move with them into the log that every seat reads.
- A Wahlspiel party name padded past its 60 characters with spaces or line breaks (which the
  check let through, stripped) went into the log's ``seat_taken`` event as sent.
- A malformed game id was written as sent into every log line of its call: a WatchGame refused
  for it logged 60 kB a line.
- A Stimmvieh move naming a card that does not exist was refused with the id in the message: 60
  kB of it over gRPC made the status too large for the client, which saw RESOURCE_EXHAUSTED
  without a reason instead of INVALID_ARGUMENT UNKNOWN_CARD.
- Health ``Watch`` streams were held for any service name, however long, and outside every cap
  on streams: one connection held 1,000 of them with 100 kB names, 380 MB of the replica.
  Reflection streams were outside the caps too.
- Over REST only the RPCs counted towards an address's rate of calls: the OpenAPI document
  (277 kB), the browser client's files and unknown routes did not, and one address pulled the
  document 2,000 times a second (565 MB/s) from a replica that answers it 300 RPCs a second.
- A ListGames page counted as one call however many games it listed, and a REST answer as one
  call however much JSON it took to write: a REST page of 200 games takes about 14 ms of a
  replica (its JSON most of it), so one address asking for such pages kept a replica's loop busy
  (68 pages a second, a whole core) without reaching its rate.
- An event stream's first update was counted by its steps only, not by the JSON written for it
  (a catch-up of 601 small steps, 105 kB of JSON, counted as 7 calls; now 19).
- Reflection requests took nothing of the address's rate: one address asked for GameService's
  descriptors (51 kB an answer) 1,783 times a second on 8 streams, a whole core and 91 MB/s.
"""

from __future__ import annotations

import asyncio
from typing import Any, Iterator

import grpc
import pytest
import requests

from conftest import free_ports, run, serve_process
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from hustings.service.limits import RENDERED_BYTES_PER_CALL
from hustings.service.logs import MALFORMED_GAME_ID
from hustings.service.rest import READY_PATH
from hustings.v1 import game_pb2, game_service_pb2 as gs, game_service_pb2_grpc as gsg
from rest_helpers import LiveRest
from service_helpers import replica_and_client
from test_watchers import reason_of

# A field number no message of the API defines, sent as a length-delimited field.
UNKNOWN_FIELD = 999
PADDING_BYTES = 30_000
# Far above what a view or a step of these games carries without the padding (a few kB).
SMALL_BYTES = 8_000


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        low, value = value & 0x7F, value >> 7
        out.append(low | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _padded(message: Any, size: int = PADDING_BYTES) -> Any:
    """``message`` with ``size`` bytes in a field its type does not define, as a client built
    from another proto (or an attacker) would send it."""
    extra = _varint(UNKNOWN_FIELD << 3 | 2) + _varint(size) + b"x" * size
    padded = type(message)()
    padded.ParseFromString(message.SerializeToString() + extra)
    assert padded.ByteSize() > size  # the parser keeps what it does not know
    return padded


@pytest.fixture(scope="module")
def live(redis_server: Any) -> Iterator[LiveRest]:
    """One replica for the module's tests, gRPC and REST, without a rate of calls per address."""
    with LiveRest(redis_server.url) as served:
        yield served


def _channel(live: LiveRest) -> grpc.aio.Channel:
    """A gRPC channel to the module's replica (to be used in ``async with``)."""
    assert live.replica is not None
    return grpc.aio.insecure_channel(f"127.0.0.1:{live.replica.port}")


def _stored_bytes(live: LiveRest, game_id: str) -> int:
    """The bytes of a game's snapshot and log in Redis."""
    import redis

    client = redis.Redis.from_url(live.config.redis_url)
    try:
        total = 0
        for key in client.scan_iter(match=f"*{{{game_id}}}*", count=100):
            kind = client.type(key)
            if kind == b"hash":
                total += sum(len(v) for v in client.hvals(key))
            elif kind == b"stream":
                total += sum(len(k) + len(v) for _, fields in client.xrange(key) for k, v in fields.items())
            elif kind == b"string":
                total += int(client.strlen(key))
        return total
    finally:
        client.close()


async def _unknown_fields_game(live: LiveRest) -> tuple[str, int, int, int]:
    """A Stimmvieh game created with padded options and table, its three seats joined and one
    padded move made: (game id, a spectator's view bytes, a seat's view bytes, its history bytes)."""
    async with _channel(live) as channel:
        stub = gsg.GameServiceStub(channel)
        options = game_pb2.GameOptions(players=3)
        options.stimmvieh.SetInParent()
        table = game_pb2.TableSettings(decision_seconds=600)
        created = await stub.CreateGame(gs.CreateGameRequest(kind="stimmvieh", options=_padded(options), table=_padded(table)))
        game_id = created.game_id
        seats = [await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, display_name=name)) for name in ("Ada", "Bo", "Cy")]
        ada = (("authorization", f"Bearer {seats[0].seat_token}"),)
        view = (await stub.GetView(gs.GetViewRequest(game_id=game_id), metadata=ada)).view
        move = _padded(view.legal_moves[0])
        await stub.SubmitMove(gs.SubmitMoveRequest(game_id=game_id, move=move, request_id="padded-1"), metadata=ada)
        spectator = await stub.GetView(gs.GetViewRequest(game_id=game_id))
        seat_view = await stub.GetView(gs.GetViewRequest(game_id=game_id), metadata=ada)
        history = await stub.GetHistory(gs.GetHistoryRequest(game_id=game_id), metadata=ada)
        return game_id, spectator.ByteSize(), seat_view.ByteSize(), history.ByteSize()


def test_fields_a_grpc_request_does_not_define_are_neither_stored_nor_shown(live: LiveRest) -> None:
    game_id, spectator, seat, history = asyncio.run(asyncio.wait_for(_unknown_fields_game(live), 60))
    assert spectator < SMALL_BYTES, f"a spectator's view carries {spectator} bytes"
    assert seat < SMALL_BYTES, f"a seat's view carries {seat} bytes"
    assert history < SMALL_BYTES, f"the history carries {history} bytes"
    stored = _stored_bytes(live, game_id)
    assert 0 < stored < 2 * SMALL_BYTES, f"the game holds {stored} bytes of Redis"


async def _stimmvieh_turn(stub: gsg.GameServiceStub) -> tuple[str, Any, game_pb2.Move]:
    """A three-seat Stimmvieh game past its top candidates: (game id, the metadata of the seat
    to play, one of its legal moves)."""
    options = game_pb2.GameOptions(players=3)
    options.stimmvieh.SetInParent()
    game_id = (await stub.CreateGame(gs.CreateGameRequest(kind="stimmvieh", options=options))).game_id
    seats = [await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, display_name=n)) for n in ("Ada", "Bo", "Cy")]
    tokens = [(("authorization", f"Bearer {seat.seat_token}"),) for seat in seats]
    for number, token in enumerate(tokens):
        move = (await stub.GetView(gs.GetViewRequest(game_id=game_id), metadata=token)).view.legal_moves[0]
        await stub.SubmitMove(gs.SubmitMoveRequest(game_id=game_id, move=move, request_id=f"top-{number}"), metadata=token)
    for token in tokens:
        legal = (await stub.GetView(gs.GetViewRequest(game_id=game_id), metadata=token)).view.legal_moves
        if legal:
            return game_id, token, legal[0]
    raise AssertionError("nobody to play after the top candidates")


def test_a_move_naming_a_long_unknown_card_is_refused_with_its_reason(live: LiveRest) -> None:
    async def play() -> tuple[grpc.StatusCode, str, int]:
        async with _channel(live) as channel:
            stub = gsg.GameServiceStub(channel)
            game_id, token, move = await _stimmvieh_turn(stub)
            move.stimmvieh.play_politician.take_card_id = "Q" * 60_000
            try:
                await stub.SubmitMove(gs.SubmitMoveRequest(game_id=game_id, move=move, request_id="long-card"), metadata=token)
            except grpc.aio.AioRpcError as refusal:
                return refusal.code(), reason_of(refusal), len(refusal.details() or "")
            raise AssertionError("a card that does not exist was taken")

    code, reason, length = asyncio.run(asyncio.wait_for(play(), 60))
    assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_CARD")
    assert length < 200


def test_a_retry_of_a_padded_move_is_the_same_request(live: LiveRest) -> None:
    """What the server does not know is not part of the request: a retry that pads the move
    differently gets the first answer, not REQUEST_ID_REUSED."""

    async def play() -> tuple[int, int]:
        async with _channel(live) as channel:
            stub = gsg.GameServiceStub(channel)
            options = game_pb2.GameOptions(players=3)
            options.stimmvieh.SetInParent()
            game_id = (await stub.CreateGame(gs.CreateGameRequest(kind="stimmvieh", options=options))).game_id
            seats = [await stub.JoinGame(gs.JoinGameRequest(game_id=game_id, display_name=n)) for n in ("Ada", "Bo", "Cy")]
            ada = (("authorization", f"Bearer {seats[0].seat_token}"),)
            move = (await stub.GetView(gs.GetViewRequest(game_id=game_id), metadata=ada)).view.legal_moves[0]
            first = await stub.SubmitMove(gs.SubmitMoveRequest(game_id=game_id, move=_padded(move, 10), request_id="pad-a"), metadata=ada)
            again = await stub.SubmitMove(gs.SubmitMoveRequest(game_id=game_id, move=_padded(move, 20), request_id="pad-a"), metadata=ada)
            return first.version, again.version

    first, again = asyncio.run(asyncio.wait_for(play(), 60))
    assert first == again


@pytest.mark.parametrize("padding", [" " * 60_000, "\n\n", "\u2028", "\t" * 40], ids=["spaces", "line-feeds", "line-separator", "tabs"])
def test_a_party_name_padded_past_its_60_characters_is_refused(live: LiveRest, padding: str) -> None:
    game_id = live.ok("POST", "/v1/games", {"kind": "wahlspiel", "options": {"players": 3}})["gameId"]
    body = '{"displayName": "Ada", "partyName": "Fat Party' + padding.replace("\n", "\\n").replace("\t", "\\t") + '"}'
    refused = live.call("POST", f"/v1/games/{game_id}:join", body.encode())
    assert refused.status_code == 400, (refused.status_code, refused.text[:200])
    assert refused.json()["details"][0]["reason"] == "BAD_PARTY_NAME"
    history = live.ok("GET", f"/v1/games/{game_id}/history")
    assert [e for e in history["entries"] if e["events"]] == []  # nobody joined
    joined = live.ok("POST", f"/v1/games/{game_id}:join", {"displayName": "Ada", "partyName": " Fat Party "})
    assert joined["view"]["wahlspiel"]["parties"][0]["name"] == "Fat Party"


def test_a_malformed_game_id_is_not_logged_as_sent(redis_server: Any) -> None:
    """Streams refused for a game id that is none (60 kB of one over gRPC, a terminal's escape
    sequence over REST) log that they ended, without the id; a well-formed one is logged."""
    long_id = "Z" * 60_000
    (http_port,) = free_ports(1)
    with serve_process("--redis-url", redis_server.url, "--http-address", f"127.0.0.1:{http_port}") as (process, port):

        async def watch(game_id: str) -> grpc.StatusCode:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                try:
                    async for _update in gsg.GameServiceStub(channel).WatchGame(gs.WatchGameRequest(game_id=game_id)):
                        pass
                except grpc.aio.AioRpcError as refusal:
                    return refusal.code()
            return grpc.StatusCode.OK

        assert asyncio.run(asyncio.wait_for(watch(long_id), 30)) == grpc.StatusCode.INVALID_ARGUMENT
        assert asyncio.run(asyncio.wait_for(watch("g-well-formed"), 30)) == grpc.StatusCode.NOT_FOUND
        refused = requests.get(f"http://127.0.0.1:{http_port}/v1/games/%1b[2J%1b[31mowned:watch", timeout=30)
        assert refused.status_code == 400
    lines = process.log_text.splitlines()  # type: ignore[attr-defined]
    ended = [line for line in lines if "stream_ended" in line]
    assert len(ended) == 3, ended
    assert max(len(line) for line in lines) < 1_000
    assert sum(f'"game_id": "{MALFORMED_GAME_ID}"' in line for line in ended) == 2
    assert any('"game_id": "g-well-formed"' in line for line in ended)
    assert not any(long_id[:100] in line or "owned" in line for line in lines)


def test_health_and_reflection_streams_count_as_streams_of_their_address(redis_server: Any) -> None:
    """A health watch takes no service name longer than any service's; health watches and
    reflection streams share the address's cap with its WatchGame streams."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, max_streams_per_address=3) as (replica, client):
            async with grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}") as channel:
                health = health_pb2_grpc.HealthStub(channel)
                long_name = health.Watch(health_pb2.HealthCheckRequest(service="s" * 300))
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await asyncio.wait_for(long_name.read(), 10)
                assert (refused.value.code(), reason_of(refused.value)) == (grpc.StatusCode.INVALID_ARGUMENT, "BAD_SERVICE_NAME")
                reflecting = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo()
                await reflecting.write(reflection_pb2.ServerReflectionRequest(list_services=""))
                listed = await asyncio.wait_for(reflecting.read(), 10)
                assert "hustings.v1.GameService" in [s.name for s in listed.list_services_response.service]
                watches = [health.Watch(health_pb2.HealthCheckRequest(service="")) for _ in range(2)]
                for watch in watches:
                    first = await asyncio.wait_for(watch.read(), 10)
                    assert first.status == health_pb2.HealthCheckResponse.SERVING
                over = health.Watch(health_pb2.HealthCheckRequest(service=""))
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await asyncio.wait_for(over.read(), 10)
                assert reason_of(refused.value) == "TOO_MANY_STREAMS_FOR_ADDRESS"
                reflecting_over = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo()
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await reflecting_over.write(reflection_pb2.ServerReflectionRequest(list_services=""))
                    await asyncio.wait_for(reflecting_over.read(), 10)
                assert reason_of(refused.value) == "TOO_MANY_STREAMS_FOR_ADDRESS"
                game_id = (await client.create_game("stimmvieh", players=3)).game_id
                game_watch = gsg.GameServiceStub(channel).WatchGame(gs.WatchGameRequest(game_id=game_id))
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await asyncio.wait_for(game_watch.read(), 10)
                assert reason_of(refused.value) == "TOO_MANY_STREAMS_FOR_ADDRESS"  # one cap for both
                reflecting.cancel()
                for _attempt in range(50):  # the cancelled watch's place comes back once it has ended
                    again = health.Watch(health_pb2.HealthCheckRequest(service=""))
                    try:
                        assert (await asyncio.wait_for(again.read(), 10)).status == health_pb2.HealthCheckResponse.SERVING
                        break
                    except grpc.aio.AioRpcError:
                        await asyncio.sleep(0.05)
                else:
                    raise AssertionError("a health watch's place was not given back")
                again.cancel()
                for watch in watches:
                    watch.cancel()

    asyncio.run(asyncio.wait_for(scenario(), 60))


def test_requests_beside_the_rpcs_count_towards_the_rate_of_calls(redis_server: Any) -> None:
    """The OpenAPI document, /play and its files, and a route that does not exist each take a
    call of the address's rate, as an RPC does: past its burst they are 429 CALL_RATE_EXCEEDED
    with Retry-After. Another address is not held back, and /readyz is never refused."""

    async def scenario() -> None:
        config = {"http_address": "127.0.0.1:0", "calls_per_client_per_second": 0.01, "call_burst": 4}
        async with replica_and_client(redis_server.url, **config) as (replica, _client):
            base = f"http://127.0.0.1:{replica.http_port}"

            def get(path: str, source: str = "127.0.0.1") -> requests.Response:
                session = requests.Session()
                session.mount("http://", _SourceAdapter(source))
                try:
                    return session.get(base + path, timeout=30)
                finally:
                    session.close()

            paths = ["/openapi.json", "/play", "/play/app.js", "/no-such-route", "/play/no-such-file.js"]
            answers = [await asyncio.to_thread(get, path) for path in paths]
            assert [a.status_code for a in answers[:4]] == [200, 200, 200, 404]
            refused = answers[4]
            assert refused.status_code == 429, (refused.status_code, refused.text[:200])
            assert refused.json()["details"][0]["reason"] == "CALL_RATE_EXCEEDED"
            assert int(refused.headers["Retry-After"]) >= 1
            assert (await asyncio.to_thread(get, "/v1/kinds")).status_code == 429  # one rate for all
            assert (await asyncio.to_thread(get, "/openapi.json", "127.0.0.2")).status_code == 200
            # A balancer's probe from the spent address is still answered, as gRPC health's Check.
            for _ in range(3):
                ready = await asyncio.to_thread(get, READY_PATH)
                assert (ready.status_code, ready.json()) == (200, {"status": "SERVING"})
            assert (await asyncio.to_thread(get, "/openapi.json")).status_code == 429

    asyncio.run(asyncio.wait_for(scenario(), 60))


class _SourceAdapter(requests.adapters.HTTPAdapter):
    """Connections from a chosen loopback address, so that a test speaks as another client."""

    def __init__(self, source: str) -> None:
        self.source = source
        super().__init__()

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        kwargs["source_address"] = (self.source, 0)
        super().init_poolmanager(*args, **kwargs)


def test_a_long_lobby_page_counts_as_more_calls(redis_server: Any) -> None:
    """A ListGames page counts one call more per STEPS_PER_CALL games it lists, and over REST
    one more per RENDERED_BYTES_PER_CALL of JSON it writes: with a burst of 4, a page of one game
    and a gRPC page of 200 (3 calls) use it up; a REST page of 200 (about 100 kB) is one call
    and 14 more, so the next page is refused."""

    async def scenario() -> None:
        config = {"http_address": "127.0.0.1:0", "calls_per_client_per_second": 0.01, "call_burst": 4}
        async with replica_and_client(redis_server.url, **config) as (replica, _client):
            options = game_pb2.GameOptions(players=3)
            options.stimmvieh.SetInParent()
            for _ in range(200):  # made by the host itself: no call of the test's address
                await replica.host.create_game(gs.CreateGameRequest(kind="stimmvieh", options=options))
            async with grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}") as channel:
                stub = gsg.GameServiceStub(channel)
                assert len((await stub.ListGames(gs.ListGamesRequest(page_size=1))).games) == 1
                assert len((await stub.ListGames(gs.ListGamesRequest(page_size=200))).games) == 200
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await stub.ListGames(gs.ListGamesRequest(page_size=1))
            assert reason_of(refused.value) == "CALL_RATE_EXCEEDED"

            def rest_pages() -> list[int]:  # over REST, from another address
                session = requests.Session()
                session.mount("http://", _SourceAdapter("127.0.0.2"))
                try:
                    url = f"http://127.0.0.1:{replica.http_port}/v1/games?pageSize="
                    return [session.get(url + size, timeout=30).status_code for size in ("200", "1")]
                finally:
                    session.close()

            assert await asyncio.to_thread(rest_pages) == [200, 429]

    asyncio.run(asyncio.wait_for(scenario(), 60))


def test_each_reflection_request_counts_as_a_call(redis_server: Any) -> None:
    """Every request on a reflection stream takes a call of its address's rate: past the burst
    the stream ends RESOURCE_EXHAUSTED CALL_RATE_EXCEEDED."""

    async def scenario() -> None:
        async with replica_and_client(redis_server.url, calls_per_client_per_second=0.01, call_burst=3) as (replica, _client):
            async with grpc.aio.insecure_channel(f"127.0.0.1:{replica.port}") as channel:
                stream = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo()
                for _ in range(3):
                    await stream.write(reflection_pb2.ServerReflectionRequest(file_containing_symbol="hustings.v1.GameService"))
                    answer = await asyncio.wait_for(stream.read(), 10)
                    assert answer.file_descriptor_response.file_descriptor_proto
                with pytest.raises(grpc.aio.AioRpcError) as refused:
                    await stream.write(reflection_pb2.ServerReflectionRequest(list_services=""))
                    await asyncio.wait_for(stream.read(), 10)
            assert (refused.value.code(), reason_of(refused.value)) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "CALL_RATE_EXCEEDED")

    asyncio.run(asyncio.wait_for(scenario(), 60))


def test_an_event_streams_catch_up_counts_the_json_it_writes(redis_server: Any) -> None:
    """The first update of an event stream from version 0 of a 601-step game (about 105 kB of
    JSON) counts as the calls its steps make (7) and one more per RENDERED_BYTES_PER_CALL it
    writes (12): with a burst of 12 the address's next call is refused."""

    async def scenario() -> None:
        config = {"http_address": "127.0.0.1:0", "calls_per_client_per_second": 0.01, "call_burst": 12}
        async with replica_and_client(redis_server.url, **config) as (replica, _client):
            options = game_pb2.GameOptions(players=3)
            options.stimmvieh.SetInParent()
            host = replica.host
            game_id = (await host.create_game(gs.CreateGameRequest(kind="stimmvieh", options=options))).game_id
            for number in range(300):  # joins and leaves by the host itself: no call of the test's address
                joined = await host.join_game(gs.JoinGameRequest(game_id=game_id, display_name=f"Player {number}"))
                await host.leave_game(game_id, joined.seat_token)
            base = f"http://127.0.0.1:{replica.http_port}"

            def catch_up_then_call() -> tuple[int, int]:
                """(the first update's bytes, the status of the address's next call)."""
                with requests.get(f"{base}/v1/games/{game_id}:watch?fromVersion=0", stream=True, timeout=30) as events:
                    lines = events.iter_lines()
                    first = next(lines)
                    while not first.startswith(b"data:"):  # the first update, then close
                        first = next(lines)
                return len(first), requests.get(f"{base}/v1/kinds", timeout=30).status_code

            size, status = await asyncio.to_thread(catch_up_then_call)
            assert size > 5 * RENDERED_BYTES_PER_CALL  # more than the burst left after the steps' 7 calls
            assert status == 429

    asyncio.run(asyncio.wait_for(scenario(), 60))


def test_a_display_name_may_not_stack_marks_or_pass_for_a_server_bot(redis_server: Any) -> None:
    """Every seat and spectator sees a player's name. Forty combining marks on one letter drew
    over the whole table, and a player named "Bot (strong)" passed for the server's bot; both are
    INVALID_ARGUMENT BAD_DISPLAY_NAME now, on JoinGame and TakeOverSeat alike, and change nothing.
    Two marks on a letter (Vietnamese) and one (a decomposed "Zoë") are names as before."""
    import unicodedata

    from hustings.client import ONE_ATTEMPT, HustingsError

    zalgo = "Z" + "\u0336\u0334\u0335" * 5
    vietnamese = unicodedata.normalize("NFD", "Nguyễn Thị Bệ")
    zoe = unicodedata.normalize("NFD", "Zoë")

    async def scenario() -> None:
        async with replica_and_client(redis_server.url) as (_replica, client):
            once = client.with_retry(ONE_ATTEMPT)
            table = game_pb2.TableSettings(allow_takeover=True)
            game_id = (await once.create_game("stimmvieh", 3, table=table)).game_id
            for name in (zalgo, "Bot (strong)", "bot (RANDOM)", " Bot (greedy) ", "Ｂｏｔ (strong)"):
                with pytest.raises(HustingsError) as refused:
                    await once.join(game_id, name)
                assert refused.value.reason == "BAD_DISPLAY_NAME", name
            view = await once.view(game_id)
            assert not any(seat.taken for seat in view.seats)  # nothing changed
            seats = [await once.join(game_id, name) for name in (vietnamese, zoe, "Bots (strong) fan")]
            assert [s.view.seats[s.seat].display_name for s in seats] == [vietnamese, zoe, "Bots (strong) fan"]
            await once.leave(game_id, seats[0].token)  # the seat is absent: a newcomer may take it over
            with pytest.raises(HustingsError) as refused_takeover:
                await once.take_over(game_id, 0, "Bot (random)")
            assert refused_takeover.value.reason == "BAD_DISPLAY_NAME"
            taken = await once.take_over(game_id, 0, "Ada")
            assert taken.seat == 0

    run(scenario(), timeout_s=60)
