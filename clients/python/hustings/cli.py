"""The ``hustings`` command: serve, bots, play, verify."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import pathlib
import signal
import sys
from typing import Any, Callable, NoReturn, Sequence

from hustings.service.defaults import CALL_ROOM_PER_CONNECTION, DEFAULT_ADDRESS, DEFAULT_DATA_DIR, DEFAULT_MAX_STREAMS_PER_CONNECTION
from hustings.stopping import until_stopped

DEFAULT_HTTP_ADDRESS = "127.0.0.1:8080"
LOG_LEVELS = ("debug", "info", "warning", "error", "critical")  # as hustings.service.logs.LEVELS


def _version() -> str:
    """The installed distribution's version."""
    from importlib import metadata

    try:
        return metadata.version("hustings")
    except metadata.PackageNotFoundError:
        return "unknown"


def _kinds() -> list[str]:
    """Every registered game kind, for ``--kind`` choices."""
    from hustings.engine import games

    return sorted(games())


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: the usage block would bury the reason."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


MIN_REDIS_CONNECTIONS = 3  # the update subscription, the commits' lane, and one for the rest


def _whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None


def _redis_connections(text: str) -> int:
    """--redis-max-connections: a whole number of at least MIN_REDIS_CONNECTIONS."""
    value = _whole_number(text)
    if value < MIN_REDIS_CONNECTIONS:
        raise argparse.ArgumentTypeError(
            f"at least {MIN_REDIS_CONNECTIONS}: one is held by the update subscription, one by the commits' lane"
        )
    return value


def _folder(text: str) -> str:
    """A folder named on the command line: not empty (the current folder would be taken)."""
    if not str(text).strip():
        raise argparse.ArgumentTypeError("name a folder (empty is the current folder, which serve would make private)")
    return str(text)


def _at_least_one(text: str) -> int:
    """A whole number of at least 1 (a limit of 0 would refuse everything)."""
    value = _whole_number(text)
    if value < 1:
        raise argparse.ArgumentTypeError("at least 1")
    return value


def _zero_or_more_int(text: str) -> int:
    """A whole number of 0 or more (0: the limit it names is off)."""
    value = _whole_number(text)
    if value < 0:
        raise argparse.ArgumentTypeError("0 or more")
    return value


def _more_than_call_room(text: str) -> int:
    """Streams of a gRPC connection: more than the room kept for its calls."""
    value = _whole_number(text)
    if value <= CALL_ROOM_PER_CONNECTION:
        raise argparse.ArgumentTypeError(f"more than {CALL_ROOM_PER_CONNECTION} (the streams kept for calls)")
    return value


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None


def _positive(text: str) -> float:
    """A number above 0."""
    value = _number(text)
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError("a number above 0")
    return value


def _zero_or_more(text: str) -> float:
    """A number of 0 or more (NaN and infinity are not)."""
    value = _number(text)
    if not 0 <= value < float("inf"):
        raise argparse.ArgumentTypeError("a number of 0 or more")
    return value


MAX_PORT = 65_535


def _base_port(text: str) -> int:
    """--base-port: 0 (free ports) or a TCP port."""
    value = _whole_number(text)
    if not 0 <= value <= MAX_PORT:
        raise argparse.ArgumentTypeError(f"0 (free ports) or a port from 1 to {MAX_PORT:,}")
    return value


# --retention-days at most: a century. Past about 1e11 days the expiry overflows what Redis takes,
# and every finished game's commit would fail.
MAX_RETENTION_DAYS = 36_500


def _retention_days(text: str) -> float:
    """--retention-days: a number above 0, at most MAX_RETENTION_DAYS."""
    value = _positive(text)
    if value > MAX_RETENTION_DAYS:
        raise argparse.ArgumentTypeError(f"at most {MAX_RETENTION_DAYS:,} (a century)")
    return value


# --drain-seconds at most: ten minutes, well past any balancer's health-check period.
MAX_DRAIN_SECONDS = 600.0


def _drain_seconds(text: str) -> float:
    """--drain-seconds: a number from 0 to MAX_DRAIN_SECONDS."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value <= MAX_DRAIN_SECONDS:
        raise argparse.ArgumentTypeError(f"from 0 to {MAX_DRAIN_SECONDS:g}")
    return value


def _percent(text: str, zero: bool = False) -> float:
    """--new-games-until-percent: a number above 0, at most 100 (``zero``: or 0)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (0 <= value if zero else 0 < value) or not value <= 100:
        raise argparse.ArgumentTypeError("0 to 100" if zero else "above 0, at most 100")
    return value


def _percent_or_never(text: str) -> float:
    """--make-room-from-percent: 0 (never) to 100."""
    return _percent(text, zero=True)


def _cidr(text: str) -> str:
    """--trusted-proxy: an address range such as 10.0.0.0/8 or fd00::/8 (or one address)."""
    import ipaddress

    try:
        ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an address range (CIDR): {text!r}") from None
    return text.strip()


COMMITMENT_HEX_DIGITS = 64  # a SHA-256, as views show the seed commitment


def _listen_address(face: str) -> Callable[[str], str]:
    """A listen address flag's type: HOST:PORT with a port from 0 to 65535 ('' for a face that
    is off, a gRPC ``unix:`` path), refused before anything starts (a bad one was refused only
    once the embedded Redis had started, with status 1 and no flag named)."""

    def parse(text: str) -> str:
        from hustings.service.replica import StartupError, check_listen_address

        try:
            check_listen_address(face, text)
        except StartupError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
        return text

    return parse


def _commitment(text: str) -> str:
    """--commitment: a seed commitment, 64 hex digits, in the lower case views show it in (so
    that one copied in capitals still compares equal)."""
    digits = text.strip().lower()
    if len(digits) != COMMITMENT_HEX_DIGITS or any(c not in "0123456789abcdef" for c in digits):
        raise argparse.ArgumentTypeError(f"a seed commitment is {COMMITMENT_HEX_DIGITS} hex digits (SHA-256), not {text[:80]!r}")
    return digits


# How a container or a unit file sets `serve` without flags (deploy/Dockerfile does so).
SERVE_ENVIRONMENT = (
    "environment: HUSTINGS_ADDRESS, HUSTINGS_HTTP_ADDRESS, HUSTINGS_METRICS_ADDRESS, HUSTINGS_REDIS_URL, "
    "HUSTINGS_DATA_DIR, HUSTINGS_RETENTION_DAYS, HUSTINGS_DRAIN_SECONDS and HUSTINGS_SECRET_FILE are the defaults of the options "
    "of the same names (a flag wins); HUSTINGS_SECRET is the server secret itself; a variable set empty is as if unset"
)


def _env(name: str, default: str) -> str:
    """A serve option's default from the environment. Empty is unset, for every variable (a
    compose file's or a Secret's empty value): an empty HUSTINGS_DATA_DIR was the current folder,
    made private with everything in it; an empty number refused to start; an empty
    HUSTINGS_HTTP_ADDRESS turned the REST face off unasked (the flag ``--http-address ''`` does)."""
    return os.environ.get(name) or default


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="hustings", description="A game-state service for election board games.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    kinds = _kinds()
    kind_help = "game kind: %(choices)s (default %(default)s)"

    serve = sub.add_parser("serve", help="run a replica of the service", epilog=SERVE_ENVIRONMENT)
    serve.add_argument("--address", type=_listen_address("gRPC"), default=_env("HUSTINGS_ADDRESS", DEFAULT_ADDRESS), help="gRPC listen address (default %(default)s)")
    serve.add_argument("--http-address", type=_listen_address("REST/JSON"), default=_env("HUSTINGS_HTTP_ADDRESS", DEFAULT_HTTP_ADDRESS), help="REST/JSON and the browser client at /play (default %(default)s; '' turns it off)")
    serve.add_argument("--metrics-address", type=_listen_address("metrics"), default=_env("HUSTINGS_METRICS_ADDRESS", ""), help="Prometheus /metrics listen address, e.g. 127.0.0.1:9464 (off when empty)")
    serve.add_argument("--redis-url", default=_env("HUSTINGS_REDIS_URL", ""), help="external Redis; without it an embedded Redis is started")
    serve.add_argument("--data-dir", type=_folder, default=_env("HUSTINGS_DATA_DIR", DEFAULT_DATA_DIR), help="folder of the embedded Redis, relative to the current directory (default %(default)s); made 0700, its files 0600")
    serve.add_argument("--allow-client-seed", action="store_true", help="accept seeds chosen by clients (tests, tournaments, research)")
    serve.add_argument(
        "--retention-days",
        type=_retention_days,
        default=_env("HUSTINGS_RETENTION_DAYS", "30"),  # a text default goes through the type too
        help="how long finished games are kept before all their keys expire, in days, above 0 and at most 36,500 (default %(default)s)",
    )
    serve.add_argument(
        "--drain-seconds",
        type=_drain_seconds,
        default=_env("HUSTINGS_DRAIN_SECONDS", "0"),
        help="on SIGTERM or SIGINT, report NOT_SERVING (gRPC health, /readyz) and go on serving every call and "
        "stream for this long before stopping, so that balancers polling the health send nothing new first; "
        "a second signal stops at once (0 to 600, default %(default)s)",
    )
    serve.add_argument(
        "--secret-file",
        default=_env("HUSTINGS_SECRET_FILE", ""),
        help="the server secret shared by every replica (keys request-id hashes and join tokens); "
        "default: $HUSTINGS_SECRET, else a 'secret' file in the embedded Redis's data folder, else kept in Redis",
    )
    serve.add_argument(
        "--replace-secret",
        action="store_true",
        help="start even though Redis's games are keyed under another server secret, and make this replica's the one "
        "in use (stop every replica first; replicas still running with the other turn NOT_SERVING); what was derived "
        "under the old one no longer matches",
    )
    serve.add_argument("--log-level", default="info", type=str.lower, choices=LOG_LEVELS, help="least severe log lines written (default %(default)s)")
    serve.add_argument("--benchmark-floor", action="store_true", help="also serve the loadtest's floor call")
    serve.add_argument("--redis-max-connections", type=_redis_connections, default=64, help="Redis connections of this replica; commands wait for a free one (default %(default)s)")
    serve.add_argument("--max-watchers", type=_at_least_one, default=10_000, help="WatchGame streams on this replica (default %(default)s)")
    serve.add_argument("--max-streams-per-client", type=_at_least_one, default=1_000, help="streams of one client: a gRPC connection, or an address for SSE (default %(default)s)")
    serve.add_argument("--max-streams-per-address", type=_at_least_one, default=2_000, help="streams of one client address over all its connections, gRPC and SSE together (default %(default)s: a fifth of the default --max-watchers, so that four busy addresses leave streams to everyone else)")
    serve.add_argument("--max-streams-per-seat", type=_at_least_one, default=32, help="streams with one seat token (default %(default)s)")
    serve.add_argument("--max-streams-per-game", type=_at_least_one, default=64, help="streams of one game from one client address: each step of a game is written to every stream of it (default %(default)s)")
    serve.add_argument("--max-streams-per-connection", type=_more_than_call_room, default=DEFAULT_MAX_STREAMS_PER_CONNECTION, help=f"HTTP/2 streams a gRPC connection may have open at once, calls and streams together; of them {CALL_ROOM_PER_CONNECTION} are kept for calls (default %(default)s: a connection's streams reset at once queue in the replica's one event loop)")
    serve.add_argument("--max-http-connections", type=_at_least_one, default=10_000, help="open HTTP connections of the REST face on this replica; lowered to half the open-files limit less 256 (default %(default)s)")
    serve.add_argument("--max-http-connections-per-address", type=_at_least_one, default=2_500, help="open HTTP connections from one client address: its event streams and calls beside them; a trusted proxy is not capped (default %(default)s)")
    serve.add_argument("--http-connections-per-address-per-second", type=_positive, default=None, help="new HTTP connections one client address may open per second, sustained, and twice as many at once; past it a new one is closed at once; a trusted proxy is exempt (default: twice --calls-per-client-per-second, so that a client opening a connection per call meets its call rate's 429 first)")
    serve.add_argument("--max-calls-per-client", type=_at_least_one, default=512, help="unary calls in flight from one client address (default %(default)s)")
    serve.add_argument("--calls-per-client-per-second", type=_positive, default=300.0, help="unary calls one client address may make per second, sustained, gRPC and REST together (default %(default)s: a tenth to a third of what a replica answers)")
    serve.add_argument("--call-burst", type=_at_least_one, default=600, help="unary calls one client address may make at once (default %(default)s)")
    serve.add_argument("--creates-per-client-per-minute", type=_positive, default=60.0, help="games one client address may create per minute, sustained (default %(default)s)")
    serve.add_argument("--create-burst", type=_at_least_one, default=120, help="games one client address may create at once (default %(default)s)")
    serve.add_argument("--open-tables-per-client", type=_zero_or_more_int, default=50, help="listed tables one client address keeps waiting for players at once on this replica (TOO_MANY_OPEN_TABLES past it; unlisted tables are not counted); 0 for no such limit (default %(default)s)")
    serve.add_argument("--seats-per-client", type=_zero_or_more_int, default=12, help="seats one client address holds at once at listed tables other addresses made, in games not finished, on this replica (TOO_MANY_SEATS_HELD past it; its own tables and unlisted ones are not counted); 0 for no such limit (default %(default)s)")
    serve.add_argument("--clients-per-ipv6-site", type=_zero_or_more_int, default=16, help="the IPv6 /64s of one /48 (a site) together get this many client addresses' call rate, creations and new HTTP connections, besides each one's own, hold no more streams than one address (its /64 holding the most gives way to another) and no more unread updates or listed tables waiting than four; 0 for no such limit (default %(default)s)")
    serve.add_argument(
        "--new-games-until-percent",
        type=_percent,
        default=90.0,
        help="refuse CreateGame (STORE_NEARLY_FULL) while Redis uses this share of its maxmemory or more, "
        "keeping the rest for the games in play; above 0, at most 100 (default %(default)s; nothing is refused "
        "where Redis has no maxmemory)",
    )
    serve.add_argument(
        "--make-room-from-percent",
        type=_percent_or_never,
        default=85.0,
        help="while Redis uses this share of its maxmemory or more, remove the games played least recently before "
        "their retention ends: finished ones an hour after their end, games in play a day after their last step; "
        "0 to 100, 0 never (default %(default)s; nothing is removed where Redis has no maxmemory)",
    )
    serve.add_argument("--unattended-decisions-per-second", type=_positive, default=100.0, help="decisions this replica makes per second at tables nobody is at (every seat a bot's, absent or timed out), all together; a greedy bot's decision counts as three, a strong one's as 20 (default %(default)s)")
    serve.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        type=_cidr,
        metavar="CIDR",
        help="a proxy whose requests are counted by the last address of their x-forwarded-for (repeatable; default none)",
    )

    bots = sub.add_parser("bots", help="play full games between random bots through a server")
    bots.add_argument("--kind", default="stimmvieh", choices=kinds, help=kind_help)
    bots.add_argument("--games", type=_at_least_one, default=10, help="games to play (default %(default)s)")
    bots.add_argument("--players", type=int, default=4, help="seats per game, all bots (default %(default)s)")
    bots.add_argument("--server", default="", help="address of a running server; without it an embedded one is started")
    bots.add_argument("--concurrency", type=_at_least_one, default=8, help="games played at once (default %(default)s)")
    bots.add_argument("--seed", type=int, default=None, help="seed of the bots' choices (default: a new one each run)")
    bots.add_argument("--absent-seats", type=int, default=0, help="seats per game that are joined but never answer: the server decides for them (needs --move-seconds; default %(default)s)")
    bots.add_argument("--move-seconds", type=int, default=0, help="seconds per decision on every table (default %(default)s: no clock)")

    play = sub.add_parser("play", help="play a game in the terminal against bots")
    play.add_argument("--kind", default="stimmvieh", choices=kinds, help=kind_help)
    play.add_argument("--players", type=int, default=4, help="seats in the game: you and bots (default %(default)s)")
    play.add_argument("--name", default="You", help="your display name (default %(default)s)")
    play.add_argument("--server", default="", help="address of a running server; without it an embedded one is started")

    load = sub.add_parser("loadtest", help="measure SubmitMove through several replicas against a floor call")
    load.add_argument("--replicas", type=_at_least_one, default=3, help="replica processes started (default %(default)s)")
    load.add_argument("--clients", type=_at_least_one, default=16, help="concurrent clients, each with one move in flight (default %(default)s)")
    load.add_argument("--seconds", type=_zero_or_more, default=15.0, help="length of each phase (floor, then moves); 0 skips both (default %(default)s)")
    load.add_argument("--kind", default="stimmvieh", choices=kinds, help=kind_help)
    load.add_argument("--players", type=int, default=4, help="seats per game (default %(default)s)")
    load.add_argument("--redis-url", default="", help="external Redis; without it an embedded one is started, without an append-only file unless --aof asks for one")
    load.add_argument("--aof", choices=("no", "everysec", "always"), default="no", help="the embedded Redis's append-only file: no (default), or fsynced everysec as 'hustings serve' runs it, or always")
    load.add_argument("--base-port", type=_base_port, default=0, help="fixed ports: the embedded Redis on P, the replicas on P+1, P+2, ... (default: free ones)")
    load.add_argument("--routing", choices=("game", "random"), default="game", help="moves of a game to one replica (a balancer hashing x-hustings-game) or to any (default %(default)s)")
    load.add_argument("--watchers", type=int, default=1_000, help="WatchGame streams held in the watcher phase, 0 skips it (default %(default)s)")
    load.add_argument("--watch-games", type=int, default=0, help="games the streams watch (default: one per 10 streams)")
    load.add_argument("--watch-moves-per-s", type=float, default=500.0, help="moves per second, spread over the watched games, while the streams are held (default %(default)s)")
    load.add_argument("--watch-seconds", type=float, default=5.0, help="length of the watcher phase's moves (default %(default)s)")
    load.add_argument("--watch-processes", type=int, default=3, help="client processes reading the streams (default %(default)s)")

    clocks = sub.add_parser("clockbench", help="measure what table clocks cost: moves/s with clocks on and off, and applying due deadlines")
    clocks.add_argument("--clients", type=_at_least_one, default=8, help="concurrent clients playing games (default %(default)s)")
    clocks.add_argument("--seconds", type=_positive, default=10.0, help="length of each throughput phase (default %(default)s)")
    clocks.add_argument("--due-games", type=_at_least_one, default=10_000, help="games whose first deadlines fall due together (default %(default)s)")
    clocks.add_argument("--redis-url", default="", help="external Redis; without it an embedded one is started")

    verify = sub.add_parser("verify", help="replay a finished game from its seed and check it")
    verify.add_argument("game_id", help="the id CreateGame answered (also in the lobby, ListGames)")
    verify.add_argument("--server", default=DEFAULT_ADDRESS, help="gRPC address of a server holding the game (default %(default)s)")
    verify.add_argument("--commitment", type=_commitment, default=None, help="the seed commitment you recorded when the game began, 64 hex digits (any early view shows it)")
    from hustings.ai import arena

    arena.add_parser(sub, kinds)
    _describe(sub)
    return parser


def _describe(sub: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Open every ``hustings COMMAND --help`` with the line that ``hustings --help`` lists the
    command by, so that a command's own help says what it does."""
    for listed in sub._choices_actions:  # argparse keeps the listed line only here
        command = sub.choices[listed.dest]
        if command.description is None:
            command.description = (listed.help or "").replace("%%", "%")  # a description is not %-formatted


def _server(address: str, log_level: str = "warning") -> "contextlib.AbstractAsyncContextManager[str]":
    """``address``, or an embedded replica and Redis of our own when it is empty."""
    from hustings.service.replica import server_at

    return server_at(address, log_level)


def _loopback_only(address: str) -> bool:
    """Whether a gRPC listen address takes calls from this machine only (a loopback address, a
    unix socket, localhost)."""
    import ipaddress

    if address.startswith("unix:"):
        return True
    host = address.rpartition(":")[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _warn_if_serving_the_network(log: Any, *addresses: str) -> None:
    """Warn that games kept in an embedded Redis are this replica's alone when it takes calls
    from other machines (on any of its faces' ``addresses``; an empty one is a face turned off):
    a container or a pod whose Redis URL came out empty (a Secret's empty value) served,
    healthy, a store of its own that no other replica saw."""
    if not all(_loopback_only(address) for address in addresses if address):
        log.warning(
            "embedded_redis_serving_the_network",
            hint="this replica keeps its games in its own embedded Redis, which no other replica sees; "
            "give --redis-url (HUSTINGS_REDIS_URL) for replicas that share games",
        )


async def _serve(args: argparse.Namespace) -> int:
    from hustings.service import logs
    from hustings.service import server_secret
    from hustings.service.replica import ReplicaConfig, serve_forever, start_embedded_redis
    from hustings.service.rest_connections import HttpSettings, raise_open_files_limit

    logs.configure(args.log_level)
    import structlog

    log = structlog.get_logger("hustings")
    open_files = raise_open_files_limit()  # a descriptor per connection: the usual 1,024 is too few
    embedded = None
    redis_url = args.redis_url
    if not redis_url:
        embedded = start_embedded_redis(pathlib.Path(args.data_dir))
        redis_url = embedded.url
        # The URL may carry a generated password: log where the data is, not how to reach it.
        log.info("embedded_redis_started", data_dir=str(embedded.data_dir), unix_socket=redis_url.startswith("unix://"))
        _warn_if_serving_the_network(log, args.address, args.http_address)
    stop, hurry = asyncio.Event(), asyncio.Event()

    def signalled() -> None:
        # The first signal stops the replica (after its drain); a second one cuts the drain short.
        (hurry if stop.is_set() else stop).set()

    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, signalled)
    try:
        config = ReplicaConfig(
            redis_url=redis_url,
            address=args.address,
            allow_client_seed=args.allow_client_seed,
            http_address=args.http_address,
            http=HttpSettings(args.max_http_connections, args.max_http_connections_per_address, args.http_connections_per_address_per_second),
            metrics_address=args.metrics_address,
            benchmark_floor=args.benchmark_floor,
            redis_max_connections=args.redis_max_connections,
            max_watchers=args.max_watchers,
            max_streams_per_client=args.max_streams_per_client,
            max_streams_per_address=args.max_streams_per_address,
            max_streams_per_seat=args.max_streams_per_seat,
            max_streams_per_game=args.max_streams_per_game,
            max_streams_per_connection=args.max_streams_per_connection,
            max_calls_per_client=args.max_calls_per_client,
            calls_per_client_per_second=args.calls_per_client_per_second,
            call_burst=args.call_burst,
            creates_per_client_per_minute=args.creates_per_client_per_minute,
            create_burst=args.create_burst,
            open_tables_per_client=args.open_tables_per_client,
            seats_per_client=args.seats_per_client,
            clients_per_ipv6_site=args.clients_per_ipv6_site,
            unattended_decisions_per_second=args.unattended_decisions_per_second,
            new_games_until_percent=args.new_games_until_percent,
            make_room_from_percent=args.make_room_from_percent,
            trusted_proxies=tuple(args.trusted_proxy),
            retention_s=max(1, int(args.retention_days * 24 * 3600)),
            drain_s=args.drain_seconds,
            secret=server_secret.resolve(args.secret_file, embedded.data_dir if embedded is not None else None),
            replace_secret=args.replace_secret,
        )
        from hustings.service import collector

        collector.settle()  # after the imports, before the first stream
        trimming = asyncio.ensure_future(collector.trim_memory())

        def serving(replica: Any) -> None:
            # Said once the replica serves: Redis reached, its faces listening.
            log.info("serving", version=_version(), address=args.address, port=replica.port, open_files_limit=open_files)

        try:
            await serve_forever(config, stop, hurry, serving)
        finally:
            trimming.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await trimming
    finally:
        if embedded is not None:
            embedded.stop()
    return 0


async def _bots(args: argparse.Namespace) -> int:
    from hustings.bots import run_bots, table_problem

    problem = table_problem(args.players, args.absent_seats, args.move_seconds)
    if problem is not None:
        print(f"hustings bots: error: {problem}", file=sys.stderr)
        return 2
    async with _server(args.server) as address:
        summary = await run_bots(
            address, args.kind, args.games, args.players, concurrency=args.concurrency, seed=args.seed,
            absent_seats=args.absent_seats, move_seconds=args.move_seconds,
        )
    print(json.dumps(summary), flush=True)
    if args.server and summary["games_finished"] == 0 and summary["error_reasons"].get("UNAVAILABLE"):
        # The summary alone said {"UNAVAILABLE": 1}: say where nothing answered.
        print(f"hustings bots: no server answered at {args.server} (UNAVAILABLE); is `hustings serve` running there?", file=sys.stderr)
    return 0 if summary["errors"] == 0 and summary["games_finished"] == args.games else 1


async def _play(args: argparse.Namespace) -> int:
    from hustings.terminal import play_in_terminal

    # The embedded server's warnings would land between the table and the prompt: errors only.
    async with _server(args.server, log_level="error") as address:
        return await play_in_terminal(address, args.kind, args.players, args.name, lasting=bool(args.server))


async def _loadtest(args: argparse.Namespace) -> int:
    from hustings.loadtest import LoadtestError, loadtest
    from hustings.loadtest_watch import WatchPlan

    try:
        watch = WatchPlan(args.watchers, args.watch_games or max(1, args.watchers // 10), args.watch_moves_per_s, args.watch_seconds, args.watch_processes)
        summary = await loadtest(
            args.replicas, args.clients, args.seconds, args.kind, args.players, args.redis_url, args.routing, watch, args.aof, args.base_port
        )
    except LoadtestError as error:
        print(f"hustings: {error}", file=sys.stderr)
        return 1
    print(json.dumps(summary), flush=True)
    return 0 if summary["errors"] == 0 else 1


async def _clockbench(args: argparse.Namespace) -> int:
    from hustings.clockbench import run_clockbench
    from hustings.service import logs

    logs.configure("error")
    summary = await run_clockbench(args.redis_url, args.clients, args.seconds, args.due_games)
    print(json.dumps(summary), flush=True)
    return 0 if summary["due_games_not_done"] == 0 else 1


async def _verify(args: argparse.Namespace) -> int:
    from hustings.client import Client
    from hustings.verify import verify_log

    async with Client(args.server) as client:
        view = await client.view(args.game_id)
        entries = await client.history(args.game_id)
    report = verify_log(view, entries, args.commitment)
    print(json.dumps({**report.as_dict(), "commitment_from": "caller" if args.commitment else "server"}), flush=True)
    return 0 if report.ok else 1


def _problem(args: argparse.Namespace) -> str | None:
    """Why flags that each parsed do not go together (None when they do)."""
    if args.command == "loadtest" and args.base_port and args.base_port + args.replicas > MAX_PORT:
        return f"--base-port {args.base_port} leaves no room for {args.replicas} replicas on the ports after it (at most {MAX_PORT:,})"
    if args.command == "arena":
        from hustings.ai.arena import problem

        return problem(args)
    if args.command in ("bots", "play", "loadtest"):
        from hustings.engine import games

        info = games()[args.kind].info
        if not info.min_players <= args.players <= info.max_players:
            return f"--players must be {info.min_players} to {info.max_players} for {args.kind}"
    return None


# Commands that start processes of their own (an embedded Redis, replicas) and stop them when
# they end: SIGTERM and SIGHUP end them as Ctrl-C does, through their cleanup (``stopping``).
STOPPED_BY_SIGNALS = ("bots", "loadtest", "clockbench", "play")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``hustings`` command."""
    args = _parser().parse_args(argv)
    problem = _problem(args)
    if problem is not None:
        print(f"hustings {args.command}: error: {problem} (see hustings {args.command} --help)", file=sys.stderr)
        return 2
    if args.command == "arena":
        from hustings.ai.arena import command as arena

        try:
            # Played in this thread, outside any event loop: Ctrl-C interrupts it at once.
            return arena(args)
        except KeyboardInterrupt:
            return 130
    command = {"serve": _serve, "bots": _bots, "play": _play, "loadtest": _loadtest, "clockbench": _clockbench, "verify": _verify}[args.command]
    work = command(args)
    try:
        return asyncio.run(until_stopped(work) if args.command in STOPPED_BY_SIGNALS else work)
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # noqa: BLE001 - the command line shows a clean message
        from hustings.client import HustingsError
        from hustings.service.embedded_redis import EmbeddedRedisError
        from hustings.service.replica import StartupError
        from hustings.service.server_secret import SecretError, SecretMismatch
        from hustings.service.store import RedisTooOld

        if isinstance(error, (HustingsError, SecretError)):
            print(f"hustings: {error}", file=sys.stderr)
            return 2
        if isinstance(error, (EmbeddedRedisError, SecretMismatch, RedisTooOld, StartupError)):
            print(f"hustings: {error}", file=sys.stderr)
            return 1
        raise


if __name__ == "__main__":
    sys.exit(main())
