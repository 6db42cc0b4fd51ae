"""What a newcomer met on the README's path: the image's build context, ``/play/``, the command
line's errors, and the terminal player's wording."""

from __future__ import annotations

import pathlib
import re
import socket
import subprocess
import sys
import tomllib
from typing import Iterator

import grpc
import pytest
import yaml

from hustings import cli
from hustings.client import HustingsError
from hustings.service import replica
from hustings.service.embedded_redis import EmbeddedRedis
from hustings.table_spin_doctors import tell as spin_doctors_tell
from hustings.table_stimmvieh import stimmvieh_table, tell as stimmvieh_tell
from hustings.table_wahlspiel import tell as wahlspiel_tell, wahlspiel_table
from hustings.terminal import render
from hustings.v1 import game_pb2, spin_doctors_pb2, stimmvieh_pb2, wahlspiel_pb2
from rest_helpers import LiveRest

REPO = pathlib.Path(__file__).resolve().parent.parent
COMMAND_TIMEOUT_S = 60


# --- the image's build context -------------------------------------------------------------------


def _pattern_regex(pattern: str) -> re.Pattern[str]:
    """A .dockerignore pattern as Docker reads it (Go's filepath.Match, with ``**`` for any
    number of folders, none included)."""
    out, i = "", 0
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif c == "*":
            out, i = out + "[^/]*", i + 1
        elif c == "?":
            out, i = out + "[^/]", i + 1
        elif c == "[":
            end = pattern.index("]", i + 1)
            body = pattern[i + 1 : end]
            out, i = out + "[" + ("^" + body[1:] if body.startswith("^") else body) + "]", end + 1
        elif c == "\\":
            out, i = out + re.escape(pattern[i + 1]), i + 2
        else:
            out, i = out + re.escape(c), i + 1
    return re.compile(out)


def _dockerignore() -> list[tuple[bool, re.Pattern[str]]]:
    """(excludes, pattern) of each line of the repository's .dockerignore, in order."""
    rules = []
    for line in (REPO / ".dockerignore").read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        keep = line.startswith("!")
        pattern = line[1:].strip() if keep else line
        rules.append((not keep, _pattern_regex(pattern.strip("/"))))
    return rules


def _left_out(path: str, rules: list[tuple[bool, re.Pattern[str]]]) -> bool:
    """Whether the build context leaves ``path`` out: the last rule matching it or a folder
    above it decides."""
    parts = path.split("/")
    verdict = False
    for excludes, regex in rules:
        if any(regex.fullmatch("/".join(parts[:n])) for n in range(1, len(parts) + 1)):
            verdict = excludes
    return verdict


def test_build_context_is_the_root_where_the_dockerignore_lies() -> None:
    """Both ways of building read the root's .dockerignore: `docker build -f deploy/Dockerfile .`
    and compose's context `..` are the repository root, and no Dockerfile-specific ignore file
    (which Docker would read instead) exists."""
    compose = yaml.safe_load((REPO / "deploy" / "compose.yaml").read_text())
    build = compose["x-replica"]["build"]
    assert (REPO / "deploy" / build["context"]).resolve() == REPO and build["dockerfile"] == "deploy/Dockerfile"
    assert "docker build -f deploy/Dockerfile -t hustings ." in (REPO / "deploy" / "Dockerfile").read_text()
    assert not (REPO / "deploy" / "Dockerfile.dockerignore").exists()


def test_image_leaves_out_the_data_folder_and_the_developers_files() -> None:
    rules = _dockerignore()
    data_dirs = {str(cli.DEFAULT_DATA_DIR), str(replica.DEFAULT_DATA_DIR)}  # the command's default, and the library's
    secret_bearing = [f"{prefix}{d}/{name}" for d in data_dirs for prefix in ("", "clients/python/") for name in ("secret", "appendonly.aof", "dump.rdb")]
    others = [
        ".git/config", ".venv/bin/python", "clients/typescript/node_modules/protobufjs/index.js",
        "clients/typescript/dist/index.js", "clients/typescript/src/gen/hustings/v1/game_pb.ts",
        "hustings.egg-info/PKG-INFO", "service/__pycache__/rest.cpython-311.pyc", ".pytest_cache/README.md",
        ".hypothesis/examples/x",
    ]
    kept = [path for path in secret_bearing + others if not _left_out(path, rules)]
    assert not kept, f"the image would hold {kept}"


def test_image_keeps_everything_the_dockerfile_needs() -> None:
    """Every COPY source, and everything `pip install .` reads: pyproject.toml, the readme and
    licence it names, each package's folder and its package data (the Python stubs and the
    OpenAPI document are committed, not generated in the image)."""
    rules = _dockerignore()
    dockerfile = (REPO / "deploy" / "Dockerfile").read_text()
    copies = re.findall(r"^(?:COPY|ADD)\s+(?:--\S+\s+)*(.+?)\s+\S+$", dockerfile, re.MULTILINE)
    assert copies, "the Dockerfile copies nothing"
    needed = [source.strip("./") for line in copies for source in line.split()]
    needed = [path for path in needed if path]
    assert 'RUN pip install --no-cache-dir .' in dockerfile  # what the list below stands for
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    needed += ["pyproject.toml", project["project"]["readme"], *project["project"]["license-files"]]
    setuptools = project["tool"]["setuptools"]
    folders = {package: pathlib.Path(folder) for package, folder in setuptools["package-dir"].items()}
    for package in setuptools["packages"]:
        top = max((p for p in folders if package == p or package.startswith(p + ".")), key=len)
        folder = folders[top].joinpath(*package[len(top):].split(".")[1:])
        needed += [path.relative_to(REPO).as_posix() for path in (REPO / folder).glob("*.py")]
        for pattern in setuptools["package-data"].get(package, []):
            needed += [path.relative_to(REPO).as_posix() for path in (REPO / folder).glob(pattern)]
    assert all((REPO / path).exists() for path in needed), [p for p in needed if not (REPO / p).exists()]
    assert len(needed) > 50
    assert not [path for path in needed if _left_out(path, rules)]


def test_the_dockerignore_reader_follows_dockers_rules() -> None:
    """The reader above, on patterns whose meaning Docker documents: it can say yes and no."""
    rules = [(True, _pattern_regex("**/*.go")), (True, _pattern_regex("temp?")), (False, _pattern_regex("keep.go"))]
    assert _left_out("a/b/x.go", rules) and _left_out("x.go", rules) and _left_out("temp1/y", rules)
    assert not _left_out("keep.go", rules) and not _left_out("temp12", rules) and not _left_out("a/x.py", rules)


# --- /play/ ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def live(redis_server: EmbeddedRedis) -> Iterator[LiveRest]:
    with LiveRest(redis_server.url) as served:
        yield served


def test_play_with_a_trailing_slash_leads_to_the_client(live: LiveRest) -> None:
    page = live.call("GET", "/play")
    assert page.status_code == 200 and "<html" in page.text
    answer = live.call("GET", "/play/?lang=en", allow_redirects=False)
    assert answer.status_code in (301, 302, 307, 308), (answer.status_code, answer.text)
    assert answer.headers["Location"] == "/play?lang=en"
    followed = live.call("GET", "/play/")
    assert followed.status_code == 200 and followed.text == page.text
    assert live.call("GET", "/play/app.js").status_code == 200  # the client's files are still served


def test_a_refused_static_folder_is_permission_denied(live: LiveRest) -> None:
    """A folder of the client (no index is shown) is refused as 403 PERMISSION_DENIED, not 403
    with INVALID_ARGUMENT's code."""
    answer = live.call("GET", "/play/games/")
    assert answer.status_code == 403
    status = answer.json()
    assert status["code"] == grpc.StatusCode.PERMISSION_DENIED.value[0]
    assert status["details"][0]["reason"] == "HTTP_ERROR" and status["message"] == "Forbidden"


# --- the command line -----------------------------------------------------------------------------


def _hustings(*args: str) -> subprocess.CompletedProcess[str]:
    """The ``hustings`` command in a process of its own (it points logging at its stderr)."""
    command = [sys.executable, "-c", "import sys; from hustings.cli import main; sys.exit(main())", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S, cwd=REPO)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_refusal_without_a_reason_shows_no_empty_one() -> None:
    assert str(HustingsError(grpc.StatusCode.UNAVAILABLE, "", "failed to connect")) == "UNAVAILABLE: failed to connect"
    assert str(HustingsError(grpc.StatusCode.NOT_FOUND, "GAME_NOT_FOUND", "no such game")) == "NOT_FOUND GAME_NOT_FOUND: no such game"
    assert str(HustingsError(grpc.StatusCode.CANCELLED, "CLIENT_GONE", "")) == "CANCELLED CLIENT_GONE"


def test_verify_against_a_server_that_is_down() -> None:
    done = _hustings("verify", "some-game", "--server", f"127.0.0.1:{_closed_port()}")
    assert done.returncode == 2
    assert done.stderr.startswith("hustings: UNAVAILABLE: "), done.stderr
    assert " :" not in done.stderr


def test_verify_refuses_a_commitment_that_is_not_hex_before_any_call() -> None:
    """A usage error (exit 2, argparse's line), not the failed call to a server that is down."""
    done = _hustings("verify", "some-game", "--server", f"127.0.0.1:{_closed_port()}", "--commitment", "zz")
    assert done.returncode == 2
    assert "error: argument --commitment" in done.stderr and "64 hex digits" in done.stderr, done.stderr
    assert "UNAVAILABLE" not in done.stderr


@pytest.mark.parametrize("commitment", ["ab" * 31, "ab" * 33, "g" * 64, "", "ab" * 31 + "a "])
def test_verify_refuses_a_commitment_that_is_not_64_hex_digits(commitment: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli._parser().parse_args(["verify", "g1", "--commitment", commitment])
    assert exited.value.code == 2
    assert "error: argument --commitment: a seed commitment is 64 hex digits" in capsys.readouterr().err


def test_verify_takes_a_commitment_of_64_hex_digits_in_either_case() -> None:
    args = cli._parser().parse_args(["verify", "g1", "--commitment", "AB" * 32])
    assert args.commitment == "ab" * 32  # as the server writes it, so that the two compare equal


# --- the terminal player's wording ----------------------------------------------------------------


def _stimmvieh_view(count: int, points: int) -> game_pb2.GameView:
    view = game_pb2.GameView(kind="stimmvieh", game_id="g1", version=9, seat=0)
    view.seats.add(seat=0, display_name="Ada")
    party = view.stimmvieh.parties.add(party=1, name="Party A", seat=0, backbencher_count=count)
    party.votes.count = count
    party.donations.count = count
    record = view.stimmvieh.campaign_results.add(campaign=1)
    record.results.add(rank=1, party=1, votes=65, final_donations=30, points=points)
    return view


@pytest.mark.parametrize("count,card_words", [(1, "1 card"), (2, "2 cards"), (0, "0 cards")])
def test_stimmvieh_counts_agree_with_their_number(count: int, card_words: str) -> None:
    view = _stimmvieh_view(count, count)
    table = stimmvieh_table(view)
    assert f"votes: {card_words}, top" in table and f"backbenchers {card_words}" in table
    assert table.endswith(f"65k votes, 30 k€, {card_words.replace('card', 'point')}")
    night = stimmvieh_pb2.StimmviehEvent()
    night.election_night.campaign = 1
    night.election_night.results.add(rank=1, party=1, votes=65, final_donations=30, points=count)
    said = stimmvieh_tell(game_pb2.Event(stimmvieh=night), view)
    assert said is not None and said.endswith(card_words.replace("card", "point"))


def test_wahlspiel_counts_agree_with_their_number() -> None:
    view = game_pb2.GameView(kind="wahlspiel", game_id="g1", version=9, seat=0)
    w = view.wahlspiel
    w.voter_stack_count, w.event_stack_count, w.round = 1, 1, 1
    w.board.add(kind=wahlspiel_pb2.WAHLSPIEL_FIELD_KIND_START)
    w.parties.add(party=0, name="Red", money=1000, voter_count=1, event_count=1, trades=1)
    table = wahlspiel_table(view)
    assert "Stacks: 1 voter, 1 event" in table and "1 voter, 1 event; 1 trade" in table
    event = wahlspiel_pb2.WahlspielEvent()
    event.cards_drawn.party, event.cards_drawn.voter_count, event.cards_drawn.event_count, event.cards_drawn.cost = 0, 1, 1, 1000
    assert wahlspiel_tell(game_pb2.Event(wahlspiel=event), view) == "you took 1 voter and 1 event for 1000 francs"
    event = wahlspiel_pb2.WahlspielEvent()
    event.votes_changed.politician_id, event.votes_changed.delta, event.votes_changed.votes = "P01", 1, 3
    assert wahlspiel_tell(game_pb2.Event(wahlspiel=event), view) == "P01 gains 1 vote, now 3"


@pytest.mark.parametrize("amount,budget", [(1, "1 Budget point"), (5, "5 Budget points")])
def test_spin_doctors_counts_agree_with_their_number(amount: int, budget: str) -> None:
    view = game_pb2.GameView(kind="spin_doctors", game_id="g1", version=9, seat=0)
    view.seats.add(seat=1, display_name="Bartek")
    view.seats.add(seat=2, display_name="Cy")
    kinds = spin_doctors_pb2.SpinDoctorsEventKind
    said = {}
    for kind in ("BUDGET_HANDED", "OFFER_KEPT", "OFFER_RETURNED", "SPEECH_VOTE", "BLACKMAIL_ANSWERED"):
        event = game_pb2.Event()
        event.spin_doctors.kind = kinds.Value(f"SPIN_DOCTORS_EVENT_KIND_{kind}")
        event.spin_doctors.seat, event.spin_doctors.other_seat = 1, 2
        event.spin_doctors.amount = amount
        event.spin_doctors.voter_group = -1
        said[kind] = spin_doctors_tell(event, view)
    points = budget.replace("Budget ", "")
    assert said["BUDGET_HANDED"] == f"Bartek handed {budget} to Cy"
    assert said["OFFER_KEPT"] is not None and said["OFFER_KEPT"].endswith(f" and got Bartek's {points}")
    assert said["OFFER_RETURNED"] is not None and said["OFFER_RETURNED"].endswith(f": Bartek got back the {points}")
    assert said["SPEECH_VOTE"] is not None and said["SPEECH_VOTE"].startswith(f"Bartek gains {points.replace('point', 'vote')} of")
    assert said["BLACKMAIL_ANSWERED"] == f"Bartek paid {points} to Cy"


@pytest.mark.parametrize("kind,yours,theirs", [
    ("SPEECH_VOTE", "you gain 2 votes", "Bartek gains 2 votes"),
    ("LOCALITY_VOTES", "you gain 2 votes", "Bartek gains 2 votes"),
    ("PUSHED_OFF_WHITE", "you gain 1 vote", "Bartek gains 1 vote"),
    ("VOTES_LOST_TO_TRAIT", "you lose 2 votes", "Bartek loses 2 votes"),
    ("FAVOURITE", "you become the Favourite", "Bartek becomes the Favourite"),
    ("OFFER_MADE", "you offer 2 Budget points", "Bartek offers 2 Budget points"),
])
def test_spin_doctors_verbs_agree_with_you(kind: str, yours: str, theirs: str) -> None:
    """The viewer's own seat is "you", and its verb agrees: "you gain", not "you gains"."""
    event = game_pb2.Event()
    event.spin_doctors.kind = spin_doctors_pb2.SpinDoctorsEventKind.Value(f"SPIN_DOCTORS_EVENT_KIND_{kind}")
    event.spin_doctors.seat, event.spin_doctors.other_seat = 1, 2
    event.spin_doctors.amount, event.spin_doctors.voter_group, event.spin_doctors.locality = 2, 0, 0
    for viewer, start in ((1, yours), (0, theirs)):
        view = game_pb2.GameView(kind="spin_doctors", game_id="g1", version=9, seat=viewer)
        view.seats.add(seat=1, display_name="Bartek")
        view.seats.add(seat=2, display_name="Cy")
        said = spin_doctors_tell(event, view)
        assert said is not None and said.startswith(start), (viewer, said)


def test_final_placings_read_like_the_python_example() -> None:
    """`610 (65k votes, 305k€)`, as the README's example prints a placing; no empty brackets."""
    view = game_pb2.GameView(kind="stimmvieh", game_id="g1", version=41, status=game_pb2.GAME_STATUS_FINISHED, seed="00")
    view.outcome.placings.add(rank=1, name="Party A", score=610, detail="65k votes, 305k€")
    view.outcome.placings.add(rank=2, name="Party B", score=12)
    screen = render(view)
    assert "  1. Party A: 610 (65k votes, 305k€)\n" in screen
    assert "  2. Party B: 12\n" in screen


def test_doubled_donations_read_the_same_in_the_table_and_the_final_placing() -> None:
    """The rulebook's counting example (Karin 340 k€ doubled to 680 k€): the campaign's line in
    the terminal table said "680 k€ doubled" and the final placing "340k€ doubled" for the same
    party. The table now says what was doubled and what it came to; the placing's detail keeps
    the words of every release, which `hustings verify` compares with its replay."""
    from dataclasses import replace

    from hustings.engine import Rng, get_game
    from hustings.engine.stimmvieh import StimmviehOptions
    from hustings.engine.stimmvieh.scoring import election_night, outcome_of
    from test_stimmvieh_rules import donation, vote_cards as votes

    record = election_night(1, [
        (votes("V15", "V16", "V07", "V05"), donation(340)), (votes("V17", "V12", "V09", "V03"), donation(430)),
        (votes("V13", "V11", "V08", "V06"), donation(370)), (votes("V14"), donation(780)),
    ])
    state = get_game("stimmvieh").setup(StimmviehOptions(4), Rng(b"doubled"))
    placings = {p.seat: p for p in outcome_of(replace(state, campaign_results=(record,))).placings}
    assert placings[0].detail == "105k votes, 340k€ doubled" and placings[0].score == 680
    assert placings[1].detail == "90k votes, 430k€"
    view = _stimmvieh_view(1, 1)
    result = view.stimmvieh.campaign_results[0].results[0]
    result.doubled, result.donations, result.final_donations = True, 340, 680
    assert stimmvieh_table(view).endswith("65k votes, 340 k€ doubled to 680 k€, 1 point")
