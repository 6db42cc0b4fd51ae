"""Promises of README.md, deploy/README.md and the proto comments that no other test held the
code to: the drain's setting and help, the deploy files' figures as deploy/README.md states
them, the background loops' log rate, the Redis keys a deployment keeps, the expiry that games
stored by 0.1.0 get, the replica-wide cap on unread stream bytes, and the public view fields
that the Wahlspiel and Spin Doctors views gained (who gave a verdict, the kinds of cards offered
and handed over, run-off voters, who has seen a face-down News card, the queued steps). Real
Redis, real replicas over gRPC, the engines' own random games."""

from __future__ import annotations

import argparse
import asyncio
import inspect
import pathlib
import re

import grpc
import pytest
import redis
import structlog
import yaml
from grpc_status import rpc_status

from conftest import run
from hustings.engine import Rng
from hustings.service.embedded_redis import EmbeddedRedis
from service_helpers import replica_and_client, sent_view
from hustings.v1 import game_pb2, wahlspiel_pb2

REPO = pathlib.Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text()
DEPLOY = REPO / "deploy"
DEPLOY_README = (DEPLOY / "README.md").read_text()


def _said(text: str) -> str:
    """``text`` with its line breaks and runs of spaces as single spaces."""
    return " ".join(text.split())


# ---------------------------------------------------------------- serve --drain-seconds


def _serve_parser() -> argparse.ArgumentParser:
    from hustings.cli import _parser

    (sub,) = [a for a in _parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices["serve"]  # type: ignore[no-any-return]


def test_the_drain_is_set_by_its_variable_checked_and_named_in_serve_s_help(monkeypatch: pytest.MonkeyPatch) -> None:
    """README Graceful shutdown: "`--drain-seconds N` (`HUSTINGS_DRAIN_SECONDS`; 0 by default, at
    most 600) ... in-flight calls finish within 5 s (gRPC and REST/JSON alike: both faces stop
    together)";
    deploy/README.md: a flag wins over its
    variable, and a value the command line cannot read stops `serve` with exit status 2."""
    from hustings.cli import _parser
    from hustings.service import rest
    from hustings.service.replica import ReplicaConfig

    said = _said(README)
    assert "`--drain-seconds N` (`HUSTINGS_DRAIN_SECONDS`; 0 by default, at most 600)" in said
    assert "in-flight calls finish within 5 s (gRPC and REST/JSON alike: both faces stop together)" in said
    assert ReplicaConfig(redis_url="").grace_s == 5.0 and ReplicaConfig(redis_url="").drain_s == 0.0
    assert inspect.signature(rest.start_rest).parameters["grace_s"].default == 5.0

    monkeypatch.delenv("HUSTINGS_DRAIN_SECONDS", raising=False)
    assert _parser().parse_args(["serve"]).drain_seconds == 0
    monkeypatch.setenv("HUSTINGS_DRAIN_SECONDS", "6")
    assert _parser().parse_args(["serve"]).drain_seconds == 6.0
    assert _parser().parse_args(["serve", "--drain-seconds", "2"]).drain_seconds == 2.0  # the flag wins
    assert _parser().parse_args(["serve", "--drain-seconds", "600"]).drain_seconds == 600.0
    for bad in ("600.5", "-0.5", "six"):
        monkeypatch.setenv("HUSTINGS_DRAIN_SECONDS", bad)
        with pytest.raises(SystemExit) as refused:
            _parser().parse_args(["serve"])
        assert refused.value.code == 2, bad

    monkeypatch.delenv("HUSTINGS_DRAIN_SECONDS")
    help_text = _said(_serve_parser().format_help())
    assert "--drain-seconds" in help_text and "HUSTINGS_DRAIN_SECONDS" in help_text
    assert "NOT_SERVING" in help_text and "a second signal stops at once" in help_text and "0 to 600" in help_text


def test_every_flag_deploy_readme_names_is_an_option_of_serve() -> None:
    """deploy/README.md: "`hustings serve --help` lists every flag and variable"."""
    options = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", _serve_parser().format_help()))
    # Flags of the other tools it shows (docker compose's and kubectl's) and `hustings --version`.
    named = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", DEPLOY_README)) - {"--build", "--env-file", "--from-literal", "--cascade", "--version", "--rm", "--restart", "--image", "--env"}
    assert {"--drain-seconds", "--trusted-proxy", "--retention-days", "--redis-url"} <= named
    assert named <= options, sorted(named - options)


# ---------------------------------------------------------------- deploy/README.md's figures


def _seconds(text: str | int) -> float:
    return float(str(text).rstrip("s"))


def test_the_deploy_files_drain_as_long_as_deploy_readme_says() -> None:
    """deploy/README.md: "The compose file drains for 6 s (Envoy takes a replica out after two
    failed checks 2 s apart) and the Kubernetes manifest for 10 s (the readiness probe runs every
    2 s ...); both well within their grace periods (30 s)" and "lets in-flight calls finish within
    5 s (gRPC and REST/JSON alike: both faces stop together)": the drain and the stop fit the
    grace period. Each figure is the file's (tests/test_deploy.py checks how they fit together)."""
    from hustings.cli import _parser
    from hustings.service.replica import ReplicaConfig

    said = _said(DEPLOY_README)
    figures = re.search(
        r"The compose file drains for (\d+) s \(Envoy takes a replica out after (\w+) failed checks (\d+) s apart\) "
        r"and the Kubernetes manifest for (\d+) s \(the readiness probe runs every (\d+) s; .*?grace periods \((\d+) s\)",
        said,
    )
    assert figures, "deploy/README.md no longer states the drain's figures in these words"
    compose_drain, threshold, interval, k8s_drain, period, grace = figures.groups()
    assert "in-flight calls finish within 5 s (gRPC and REST/JSON alike: both faces stop together)" in said
    stopping_s = ReplicaConfig(redis_url="").grace_s
    assert float(k8s_drain) + stopping_s < float(grace) and float(compose_drain) + stopping_s < float(grace)

    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    replicas = {n: s for n, s in compose["services"].items() if n.startswith("hustings-")}
    assert len(replicas) == 3
    for name, service in replicas.items():
        assert _parser().parse_args(["serve", *service["command"]]).drain_seconds == float(compose_drain), name
        assert _seconds(service["stop_grace_period"]) == float(grace), name
    envoy = yaml.safe_load((DEPLOY / "envoy.yaml").read_text())
    clusters = envoy["static_resources"]["clusters"]
    assert len(clusters) == 2  # gRPC, and REST/JSON with /play: each takes a replica out alike
    for cluster in clusters:
        (check,) = cluster["health_checks"]
        assert (check["unhealthy_threshold"], _seconds(check["interval"])) == ({"two": 2}[threshold], float(interval)), cluster["name"]

    pod = next(d for d in yaml.safe_load_all((DEPLOY / "k8s" / "hustings.yaml").read_text()) if d and d["kind"] == "Deployment")
    spec = pod["spec"]["template"]["spec"]
    container = spec["containers"][0]
    assert _parser().parse_args(["serve", *container["args"]]).drain_seconds == float(k8s_drain)
    assert container["readinessProbe"]["periodSeconds"] == int(period)
    assert spec["terminationGracePeriodSeconds"] == int(grace)


# ---------------------------------------------------------------- background loops' log lines


def test_background_loops_log_a_failed_round_once_in_10_s_for_each_cause() -> None:
    """README Health: "the background loops (deadlines, lobby repair, clock, secret check) log a
    failed round once in 10 s for each cause, likewise counted". Forty failed rounds in a row (ten
    seconds of the deadline runner's polls) make one line for each cause, and each of the four
    loops logs its failures through that one rule."""
    from hustings.service import background
    from hustings.service.clock import SharedClock
    from hustings.service.deadlines import DeadlineRunner
    from hustings.service.lobby import LobbyRepair
    from hustings.service.server_secret import SecretGuard

    assert "log a failed round once in 10 s for each cause" in _said(README)
    assert background.FAILURE_LOG_EVERY_S == 10.0
    for loop in (DeadlineRunner, LobbyRepair, SharedClock, SecretGuard):
        assert issubclass(loop, background.BackgroundLoop), loop
    loop = background.BackgroundLoop()
    logger = structlog.get_logger("hustings.test")
    with structlog.testing.capture_logs() as lines:
        for _ in range(40):
            loop.failed(logger, "deadline_poll_failed", ConnectionError("Redis is away"))
            loop.failed(logger, "deadline_poll_failed", TimeoutError("Redis is slow"))
    assert [(line["event"], line["cause"], line["alike_not_logged"]) for line in lines] == [
        ("deadline_poll_failed", "ConnectionError", 0),
        ("deadline_poll_failed", "TimeoutError", 0),
    ]
    assert all("Redis is" not in str(line) for line in lines)  # the cause's class, never its text


# ---------------------------------------------------------------- what a deployment keeps in Redis


def _named_keys() -> list[re.Pattern[str]]:
    """The keys deploy/README.md's Upgrades names, as patterns: `{id}` a game id, `{d0}` to
    `{d15}` a deadline bucket, `{k0}` to `{k15}` a kept-games bucket, `…` anything."""
    section = DEPLOY_README.split("## Upgrades", 1)[1].split("**From 0.1.0**", 1)[0]
    patterns = []
    for name in set(re.findall(r"`(hustings:[^`]+)`", section)):
        pattern = re.escape(name).replace(re.escape("{id}"), r"\{g[0-9a-f]+\}").replace(re.escape("…"), ".+")
        pattern = re.sub(r"\\\{d(0|15)\\\}", r"\\{d([0-9]|1[0-5])\\}", pattern)
        pattern = re.sub(r"\\\{k(0|15)\\\}", r"\\{k([0-9]|1[0-5])\\}", pattern)
        patterns.append(re.compile(pattern))
    return patterns


def test_every_key_a_replica_writes_is_one_deploy_readme_names(tmp_path: pathlib.Path) -> None:
    """deploy/README.md Upgrades: "Everything a deployment keeps is in Redis", and it names what
    that is. Games created with a request id, joined, played on a clock (deadlines, presence),
    left and listed in the lobby through a repair pass leave only keys it names."""
    from hustings.client import Client
    from hustings.service.lobby import LobbyRepair
    from hustings.service.store import Store

    patterns = _named_keys()
    assert len(patterns) >= 10, patterns
    server = EmbeddedRedis(tmp_path / "redis", appendonly=False).start()

    async def scenario() -> None:
        async with replica_and_client(server.url) as (_replica, client):
            assert isinstance(client, Client)
            table = game_pb2.TableSettings(decision_seconds=60)
            game_id = (await client.create_game("stimmvieh", players=3, table=table, request_id="docs-keys-create-0001")).game_id
            seats = [await client.join(game_id, name) for name in ("Ada", "Bo", "Cy")]
            view = await client.view(game_id, seats[0].token)
            await client.move(game_id, seats[0].token, view.legal_moves[0])
            await client.leave(game_id, seats[1].token)
            other = (await client.create_game("wahlspiel", players=3)).game_id
            await client.join(other, "Di")
            store = Store.from_url(server.url)
            try:
                await LobbyRepair(store).repair_once()
            finally:
                await store.close()
            assert len((await client.games()).games) == 2

    try:
        run(scenario(), 60)
        with redis.Redis.from_url(server.url) as raw:
            keys = sorted(key.decode() for key in raw.scan_iter(count=1000))
    finally:
        server.stop()
    assert any(":presence" in key for key in keys) and any(key.startswith("hustings:deadlines:") for key in keys), keys
    unnamed = [key for key in keys if not any(p.fullmatch(key) for p in patterns)]
    assert not unnamed, unnamed


def test_a_game_stored_by_0_1_0_gets_the_retention_expiry_at_its_first_step_or_from_the_lobby_repair(tmp_path: pathlib.Path) -> None:
    """deploy/README.md From 0.1.0: "0.1.0 set no expiry on a game's keys. A game that takes a
    step after the upgrade gets the `--retention-days` expiry from it. One that takes none
    (finished under 0.1.0, or left open or in play by its players) is given one by the lobby
    repair, within one walk over the lobby (1,000 entries a pass): the retention time from then,
    or a day to find its players for an open game"."""
    from test_upgrade_from_0_1_0 import _load_export, _tokens
    from hustings.service.store import game_key, log_key, requests_key

    said = _said(DEPLOY_README)
    assert "A game that takes a step after the upgrade gets the `--retention-days` expiry from it" in said
    assert "is given one by the lobby repair, within one walk over the lobby (1,000 entries a pass)" in said
    retention_s = 2 * 24 * 3600
    with EmbeddedRedis(tmp_path / "redis", appendonly=False) as server:
        names = _load_export(server.url)
        playing, finished, waiting = names["stimmvieh-play"], names["spin-end"], names["wahlspiel-open"]
        left = names["wahlspiel-play"]

        async def scenario() -> int:
            async with replica_and_client(server.url, retention_s=retention_s) as (replica, client):
                await client.view(finished)
                tokens = _tokens(names, "stimmvieh-play")
                view = await client.view(playing)
                seat = min(view.to_act)
                mine = await client.view(playing, tokens[seat])
                await client.move(playing, tokens[seat], mine.legal_moves[0], expected_version=mine.version)
                with redis.Redis.from_url(server.url) as raw:
                    assert raw.ttl(game_key(finished)) == -1  # a view gives none
                    stepped = raw.ttl(game_key(playing))
                await asyncio.sleep(1.1)  # the step's expiry counts down: the repair must leave it alone
                await replica.host.lobby_repair.repair_once()
                return stepped

        with redis.Redis.from_url(server.url) as raw:
            assert {raw.ttl(key(playing)) for key in (game_key, log_key, requests_key)} == {-1}  # as 0.1.0 left them
            stepped = run(scenario(), 60)
            assert isinstance(stepped, int) and retention_s - 60 <= stepped <= retention_s
            for key in (game_key, log_key, requests_key):
                assert retention_s - 60 <= raw.ttl(key(playing)) < stepped, key.__name__
                assert retention_s - 60 <= raw.ttl(key(finished)) <= retention_s, key.__name__
                assert retention_s - 60 <= raw.ttl(key(left)) <= retention_s, key.__name__
                assert raw.ttl(key(waiting)) == -2 or 24 * 3600 - 60 <= raw.ttl(key(waiting)) <= 24 * 3600, key.__name__
            assert raw.ttl(game_key(waiting)) > 0
            game_keys = list(raw.scan_iter("hustings:{g*"))
            assert len(game_keys) >= 20 and not [key for key in game_keys if raw.ttl(key) == -1]  # none kept for ever


# ---------------------------------------------------------------- unread stream bytes, replica-wide


def test_unread_updates_past_the_replica_s_cap_end_their_streams_too_many_unread_bytes(redis_server: EmbeddedRedis) -> None:
    """README Limits: an update of 8 KiB or more "counts ... towards 16 MiB of unread updates per
    client address and 256 MiB per replica; one past either is not sent and ends its stream with
    `TOO_MANY_UNREAD_BYTES_FOR_ADDRESS` or `TOO_MANY_UNREAD_BYTES`". With the replica's cap at two
    catch-ups and the address's far above, of five streams that never read, two hold theirs and
    three end RESOURCE_EXHAUSTED TOO_MANY_UNREAD_BYTES (tests/test_review_crowd.py checks the
    address's cap)."""
    from test_review_crowd import _call_reason, limited_with_long_game, streams_never_read
    from hustings.service.replica import SOLE_CLIENT
    from hustings.service.unread import COUNTED_BYTES, DEFAULT_MAX_UNREAD_BYTES, DEFAULT_MAX_UNREAD_BYTES_PER_ADDRESS

    said = _said(README)
    assert "towards 16 MiB of unread updates per client address (and per IPv6 site) and 256 MiB per replica" in said
    assert "An update of 8 KiB or more" in said
    assert (COUNTED_BYTES, DEFAULT_MAX_UNREAD_BYTES_PER_ADDRESS, DEFAULT_MAX_UNREAD_BYTES) == (8 << 10, 16 << 20, 256 << 20)
    held, streams = 2, 5

    async def scenario() -> None:
        async with limited_with_long_game(redis_server.url, 700, **SOLE_CLIENT) as (limited, game_id, _version):

            def cap(size: int) -> None:
                limited.limits.unread.max_bytes = held * size + size // 2
                limited.limits.unread.max_per_address = 100 * size

            async with streams_never_read(limited, game_id, streams, cap) as (_size, calls, codes):
                assert codes == [grpc.StatusCode.RESOURCE_EXHAUSTED] * (streams - held), codes
                reasons = {_call_reason(await rpc_status.aio.from_call(call)) for call in calls if call.done()}
                assert reasons == {"TOO_MANY_UNREAD_BYTES"}, reasons

    run(scenario(), timeout_s=90)


# ---------------------------------------------------------------- the views' new public fields


def _random_states(game: object, options: object, seed: bytes, limit: int = 3000) -> list[object]:
    """Every state of one random game of ``game`` (its engine, no server), the last included."""
    rng = Rng(seed)
    state = game.setup(options, rng)  # type: ignore[attr-defined]
    states = [state]
    for _ in range(limit):
        if game.is_over(state):  # type: ignore[attr-defined]
            return states
        acting = sorted(game.to_act(state))  # type: ignore[attr-defined]
        seat = acting[rng.below(len(acting))]
        moves = game.legal_moves(state, seat)  # type: ignore[attr-defined]
        state, _ = game.apply(state, seat, moves[rng.below(len(moves))], rng)  # type: ignore[attr-defined]
        states.append(state)
    raise AssertionError("a random game did not end")


def test_wahlspiel_views_show_verdict_judges_card_kinds_and_run_off_voters_as_the_proto_says() -> None:
    """proto/hustings/v1/wahlspiel.proto: `verdict_judges` "While the ballot is open: the judge of
    every verdict given so far, in the order given ... A judge decides the candidates in the order
    of politician_ids"; `give_kinds` "The kind of each card offered, in the order it was put in";
    `handed_kinds` "The kind of each card handed over so far, in the order handed";
    `voter_sent_parties` "The decided parties that sent a voter"; `closing_party` "The party whose
    piece reached the goal last". Every view, of every seat and a spectator, along random games of
    every option set."""
    from hustings.engine.wahlspiel.game import GAME

    seen = {"ballot": 0, "offer": 0, "handed": 0, "runoff": 0}
    voter, event = wahlspiel_pb2.WAHLSPIEL_CARD_KIND_VOTER, wahlspiel_pb2.WAHLSPIEL_CARD_KIND_EVENT
    for label, options in GAME.sample_options():
        for version, state in enumerate(_random_states(GAME, options, f"docs-{label}-{options.players}".encode())):
            for seat in [None, *range(options.players)]:
                view = sent_view(GAME, state, options, seat, version=version).wahlspiel
                partner_seats = {view.coalition.party, view.coalition.partner} if view.HasField("coalition") else set()
                if view.step == wahlspiel_pb2.WAHLSPIEL_STEP_BALLOT and view.HasField("ballot"):
                    ballot = view.ballot
                    seen["ballot"] += bool(ballot.verdict_judges)
                    assert len(ballot.verdict_judges) == len(_given_verdicts(state)), (label, version)
                    assert set(ballot.verdict_judges) <= set(ballot.judges)
                    assert all(list(ballot.verdict_judges).count(j) <= len(ballot.politician_ids) for j in ballot.judges)
                    if seat is not None and seat in ballot.judges:
                        mine = [v.politician_id for v in ballot.verdicts if v.judge == seat]
                        assert mine == list(ballot.politician_ids[: len(mine)]), (label, version, seat)
                        assert len(mine) == list(ballot.verdict_judges).count(seat)
                if view.HasField("coalition"):
                    coalition = view.coalition
                    for offer in (coalition.pending, coalition.draft):
                        kinds = list(offer.give_kinds)
                        seen["offer"] += bool(kinds)
                        assert (kinds.count(voter), kinds.count(event)) == (offer.give_voter_count, offer.give_event_count)
                        assert len(kinds) == offer.give_voter_count + offer.give_event_count
                        if seat in partner_seats:
                            assert [c.kind for c in offer.give_cards] == kinds, (label, version, seat)
                    assert len(coalition.handed_kinds) == coalition.handed_count
                    seen["handed"] += bool(coalition.handed_kinds)
                    if seat in partner_seats:
                        assert [c.kind for c in coalition.handed_cards] == list(coalition.handed_kinds)
                    else:
                        assert not coalition.handed_cards
                if view.HasField("runoff"):
                    runoff = view.runoff
                    seen["runoff"] += 1
                    assert set(runoff.voter_sent_parties) <= set(runoff.decided_parties) <= set(runoff.parties)
                    assert 0 <= runoff.closing_party < options.players
                    if seat is not None and seat in runoff.decided_parties:
                        assert (seat in runoff.voter_sent_parties) == bool(runoff.sent_card.card_id), (label, version, seat)
    assert all(seen.values()), f"the random games reached too little: {seen}"


def _given_verdicts(state: object) -> list[object]:
    ballot = state.ballot  # type: ignore[attr-defined]
    return list(ballot.verdicts) if ballot is not None else []


def test_spin_doctors_views_show_who_saw_the_news_and_the_queued_steps_as_the_proto_says() -> None:
    """proto/hustings/v1/spin_doctors.proto: `news_seen_by` "For each Red field of the News track,
    the seat that has seen the card lying face down on it ..., or -1"; `board_index` "The Staffer
    on the board the step is about (its index in board_staffers ...), or -1"; `handed_over` "True
    when the player, owing a decision, has handed over Budget points since it began to owe it";
    `poll_changes_made` "0 until it makes the first ..., 1 after it, 2 after the second ... and
    for the rest of the game"; `queued` public, the same for every viewer but the cards a step
    holds. Every view, of every seat and a spectator, along random games of every option set."""
    from hustings.engine.spin_doctors import GAME
    from hustings.engine.spin_doctors.content import CONTENT

    seen = {"news_seen": 0, "board_index": 0, "handed_over": 0, "poll_1": 0, "queued": 0}
    # Media Influence (News arranged face down) comes up in one random game of three or so.
    for label, options, game in [(label, options, n) for label, options in GAME.sample_options() for n in range(3)]:
        made = [0] * options.players
        for version, state in enumerate(_random_states(GAME, options, f"docs-{label}-{options.players}-{game}".encode())):
            to_act = GAME.to_act(state)
            queued = None
            for seat in [None, *range(options.players)]:
                view = sent_view(GAME, state, options, seat, version=version).spin_doctors
                assert len(view.news_seen_by) == CONTENT.red_news_fields
                for field, seer in enumerate(view.news_seen_by):
                    assert -1 <= seer < options.players
                    if seer >= 0:
                        seen["news_seen"] += 1
                        assert view.news_face_down[field], (label, version, field)
                        assert bool(view.news[field]) == (seat == seer), (label, version, field, seat)
                for step in [view.pending, *view.queued] if view.HasField("pending") else list(view.queued):
                    assert -1 <= step.board_index < len(view.board_staffers), (label, version, step)
                    seen["board_index"] += step.board_index >= 0
                    if step.seat != seat:
                        assert not step.cards, (label, version, seat)  # another seat's cards
                shape = [(s.kind, s.seat, s.board_index) for s in view.queued]
                assert queued is None or shape == queued, (label, version, seat)
                queued = shape
                seen["queued"] += bool(shape)
                for index, player in enumerate(view.players):
                    if player.handed_over:
                        seen["handed_over"] += 1
                        assert index in to_act, (label, version, index)
                    assert 0 <= player.poll_changes_made <= 2
                    if seat is None:
                        assert player.poll_changes_made >= made[index], (label, version, index)
                        made[index] = player.poll_changes_made
                        seen["poll_1"] += player.poll_changes_made == 1
    assert all(seen.values()), f"the random games reached too little: {seen}"


# ---------------------------------------------------------------- engine bots over the network


def test_a_network_bot_never_sends_a_move_the_view_does_not_list() -> None:
    """README Write your own bot: with `hustings.ai.network.NetworkBot(your_bot)`, "a move the view
    does not list is never sent": an engine bot that answers with a move the rules would refuse
    (all of a Budget it does not have, handed over) makes NetworkBot raise ValueError instead of
    returning it; the same bot answering with a listed move is sent as the view lists it."""
    from hustings.ai.network import NetworkBot
    from hustings.engine.spin_doctors import GAME
    from hustings.engine.spin_doctors.model import HandBudget

    assert "a move the view does not list is never sent" in _said(README)
    options = dict(GAME.sample_options())["base"]
    state = GAME.setup(options, Rng(b"docs-network"))
    view = sent_view(GAME, state, options, 0, version=3)
    assert view.legal_moves

    class Overspending:
        level = "overspending"

        def choose(self, game: object, observation: object, seat: int, rng: Rng) -> object:
            return HandBudget(seat=(seat + 1) % options.players, amount=10_000)

    class FirstListed:
        level = "first"

        def choose(self, game: object, observation: object, seat: int, rng: Rng) -> object:
            return game.legal_moves(observation, seat)[0]  # type: ignore[attr-defined]

    with pytest.raises(ValueError, match="does not list"):
        NetworkBot(Overspending(), seed=b"x").choose(view)  # type: ignore[arg-type]
    assert NetworkBot(FirstListed(), seed=b"x").choose(view) == view.legal_moves[0]  # type: ignore[arg-type]
