"""A rolling upgrade from the build before this round's changes (commit ab7cc41) to this tree:
replicas of both serve one Redis at once, and a call retried after its answer was lost may reach
either. A replica of the earlier build runs in a child process from ``git archive`` of that
commit (its own ``PYTHONPATH``, nothing installed), one of this tree in-process; a Redis of the
module's own, real gRPC.

- A JoinGame that landed on the earlier build with a Wahlspiel party name this tree refuses
  (a word mixing scripts) is answered with the seat it took and its token when retried on this
  tree; it was refused ``BAD_PARTY_NAME``, and the seat was taken by nobody who held its token.
- A retried join whose name or colour reads as taken is answered from its record, and lobby page
  tokens of either build page on with the other.
"""

from __future__ import annotations

import contextlib
import io
import pathlib
import subprocess
import tarfile
from typing import Iterator

import grpc
import pytest

from conftest import run, serve_process
from hustings.client import Client, HustingsError
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.v1 import game_pb2, game_service_pb2
from service_helpers import replica_and_client, stimmvieh_options

EARLIER = "ab7cc41"
REPO = pathlib.Path(__file__).resolve().parent.parent
# "Grünе Liste" with a Cyrillic е: the earlier build takes it, this one refuses it BAD_PARTY_NAME.
MIXED_SCRIPTS = "Grün\u0435 Liste"


def _earlier_build(root: pathlib.Path) -> pathlib.Path:
    """The ``hustings`` package of commit ``EARLIER`` laid out as installed, under ``root``
    (the folder to put first on ``PYTHONPATH``)."""
    try:
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", "--format=tar", EARLIER, "clients/python/hustings", "engine", "service"],
            check=True,
            capture_output=True,
            timeout=60,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as failure:
        pytest.skip(f"commit {EARLIER} is not in this checkout: {failure}")
    source = root / "source"
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(source, filter="data")
    package = root / "build" / "hustings"
    package.parent.mkdir(parents=True)
    (source / "clients" / "python" / "hustings").rename(package)
    (source / "engine").rename(package / "engine")
    (source / "service").rename(package / "service")
    return package.parent


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EmbeddedRedis]:
    """A Redis of the module's own, so that its lobby holds only this module's games."""
    launched = EmbeddedRedis(tmp_path_factory.mktemp("upgrade2-redis"), appendonly=False).start()
    try:
        yield launched
    finally:
        launched.stop()


@pytest.fixture(scope="module")
def earlier_port(store: EmbeddedRedis, tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """The gRPC port of a replica of the earlier build serving ``store``."""
    build = _earlier_build(tmp_path_factory.mktemp("earlier"))
    with contextlib.ExitStack() as stack:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("PYTHONPATH", str(build))
            patch.setenv("PYTHONDONTWRITEBYTECODE", "1")
            _process, port = stack.enter_context(serve_process("--redis-url", store.url))
        yield port


async def _wahlspiel(client: Client) -> str:
    request = game_service_pb2.CreateGameRequest(kind="wahlspiel", options=game_pb2.GameOptions(players=3))
    return str((await client.stub.CreateGame(request)).game_id)


def test_a_join_landed_on_the_earlier_build_is_answered_with_its_seat_when_retried_on_this_one(
    store: EmbeddedRedis, earlier_port: int
) -> None:
    async def scenario() -> None:
        async with Client(f"127.0.0.1:{earlier_port}") as earlier, replica_and_client(store.url) as (_, this):
            game_id = await _wahlspiel(this)
            request_id = "join-across-releases-0123456789abcdef"
            # The first attempt lands on the earlier build (its answer lost on the way back) ...
            first = await earlier.join(game_id, "Ada", request_id=request_id, party_name=MIXED_SCRIPTS)
            # ... and the client sends it again, as every call may be, to a replica of this build.
            try:
                again = await this.join(game_id, "Ada", request_id=request_id, party_name=MIXED_SCRIPTS)
            except HustingsError as refused:
                raise AssertionError(f"the retry was refused {refused.code.name} {refused.reason}") from None
            assert (again.seat, again.token) == (first.seat, first.token)
            assert [s.taken for s in (await this.view(game_id)).seats] == [True, False, False]

    run(scenario(), 30)


def test_retried_joins_and_lobby_page_tokens_carry_across_the_two_builds(store: EmbeddedRedis, earlier_port: int) -> None:
    async def walk(clients: tuple[Client, ...], size: int, **only: object) -> list[str]:
        seen: list[str] = []
        token = ""
        for i in range(40):
            page = await clients[i % len(clients)].games(page_size=size, page_token=token, **only)  # type: ignore[arg-type]
            seen += [g.game_id for g in page.games]
            if not page.next_page_token:
                return seen
            token = page.next_page_token
        raise AssertionError("the pages did not end")

    async def scenario() -> None:
        async with Client(f"127.0.0.1:{earlier_port}") as earlier, replica_and_client(store.url) as (_, this):
            # A join landed on the earlier build whose name and colour read as taken at the next
            # free seat: this build answers its retry from its record.
            game_id = await _wahlspiel(this)
            request_id = "join-taken-across-releases-0123456789"
            first = await earlier.join(game_id, "Ada", request_id=request_id, party_name="Grüne Liste", party_colour="blue")
            again = await this.join(game_id, "Ada", request_id=request_id, party_name="Grüne Liste", party_colour="blue")
            assert (again.seat, again.token) == (first.seat, first.token)
            with pytest.raises(HustingsError) as taken:
                await this.join(game_id, "Bo", party_name="grüne  liste")
            assert (taken.value.code, taken.value.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "PARTY_NAME_TAKEN")

            # Lobby pages: either build's token pages on with the other, over open, started and
            # unlisted tables, as one build alone pages.
            for i in range(9):
                by = (earlier, this)[i % 2]
                table = game_pb2.TableSettings(unlisted=i % 4 == 0)
                created = await by.create_game("stimmvieh", 3, stimmvieh_options(3), table=table)
                if i % 3 == 0:
                    for seat in range(3):
                        await by.join(created.game_id, f"P{seat}")
            for size in (1, 2, 4):
                for only in ({}, {"kind": "stimmvieh"}, {"status": game_pb2.GAME_STATUS_OPEN}):
                    alone = await walk((this,), size, **only)
                    assert alone == await walk((earlier,), size, **only), (size, only)
                    assert alone == await walk((earlier, this), size, **only), (size, only)
                    assert alone == await walk((this, earlier), size, **only), (size, only)

    run(scenario(), 60)
