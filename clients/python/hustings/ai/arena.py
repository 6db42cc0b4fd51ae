"""``hustings arena``: bots of any level play each other in-process (no server), seats rotating
from game to game so that no bot always sits first.

It prints one line per bot (win share with a 95% Wilson interval, mean placing, seconds per
decision) and, last, one JSON line with the same figures under ``"bots"``. A shared first place
counts as that share of a win, so the bots' win shares add up to 1 unless a non-seat (Stimmvieh's
Angelus) wins.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Sequence

from hustings.ai.levels import LEVELS, EngineBot, decide, make_bot
from hustings.ai.search import Budget
from hustings.engine import Game, Rng, get_game

STEP_LIMIT = 50_000
Z95 = 1.959963984540054


def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default); (0, 1) without trials."""
    if trials <= 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class BotRecord:
    """One entry of ``--bots``: its wins, placings and decision times over the games."""

    bot: str
    wins: float = 0.0
    places: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)

    def summary(self, games: int) -> dict[str, Any]:
        """The figures of the JSON line."""
        low, high = wilson(self.wins, games)
        return {
            "bot": self.bot,
            "win_share": round(self.wins / games, 4) if games else 0.0,
            "ci95": [round(low, 4), round(high, 4)],
            "mean_place": round(statistics.fmean(self.places), 3) if self.places else None,
            "s_per_decision": round(statistics.fmean(self.seconds), 5) if self.seconds else 0.0,
            "median_s_per_decision": round(statistics.median(self.seconds), 5) if self.seconds else 0.0,
            "decisions": len(self.seconds),
        }


def options_for(game: Game[Any, Any, Any], players: int) -> Any:
    """The game's plainest option set for ``players`` seats (the first the game offers)."""
    for _, options in game.sample_options():
        if game.seat_count(options) == players:
            return options
    raise ValueError(f"{game.info.kind} is played by {game.info.min_players} to {game.info.max_players} players")


def play_game(game: Game[Any, Any, Any], options: Any, bots: Sequence[EngineBot], records: Sequence[BotRecord], seed: bytes) -> None:
    """One game with ``bots[i]`` in seat i, its figures added to ``records[i]``."""
    rng = Rng(seed)
    state = game.setup(options, rng)
    for step in range(STEP_LIMIT):
        acting = game.to_act(state)
        if not acting:
            break
        seat = min(acting)
        started = time.perf_counter()
        move = decide(game, state, seat, bots[seat], Rng(seed + b"/bot", step * 1_000_003))
        records[seat].seconds.append(time.perf_counter() - started)
        state, _ = game.apply(state, seat, move, rng)
    outcome = game.outcome(state)
    if outcome is None:
        raise RuntimeError(f"a {game.info.kind} game did not end within {STEP_LIMIT} steps")
    firsts = [p.seat for p in outcome.placings if p.rank == 1]
    for placing in outcome.placings:
        if placing.seat is None:
            continue
        records[placing.seat].places.append(placing.rank)
        if placing.rank == 1:
            records[placing.seat].wins += 1.0 / len(firsts)


def run_arena(kind: str, players: int, levels: Sequence[str], games: int, seed: int, budget: Budget,
              progress: bool = False) -> dict[str, Any]:
    """Play ``games`` games and return the summary (the JSON line's content)."""
    game = get_game(kind)
    if game is None:
        raise ValueError(f"unknown game kind {kind!r}")
    if len(levels) != players:
        raise ValueError(f"--bots names {len(levels)} bots for {players} players")
    options = options_for(game, players)
    records = [BotRecord(level) for level in levels]
    bots = [make_bot(level, budget) for level in levels]
    started = time.perf_counter()
    for number in range(games):
        # Seats rotate: bot i sits in seat (i + number) mod players.
        order = [(i - number) % players for i in range(players)]
        seated_records = [records[i] for i in order]
        play_game(game, options, [bots[i] for i in order], seated_records, f"arena/{seed}/{number}".encode())
        if progress:
            shares = ", ".join(f"{r.bot} {r.wins:g}" for r in records)
            print(f"game {number + 1}/{games}: wins {shares}", flush=True)
    return {
        "kind": kind,
        "players": players,
        "games": games,
        "seed": seed,
        "budget": {"iterations": budget.iterations, "seconds": budget.seconds},
        "seconds": round(time.perf_counter() - started, 2),
        "bots": [record.summary(games) for record in records],
    }


def _levels(text: str) -> list[str]:
    """--bots: bot levels, comma-separated, each one of LEVELS."""
    levels = [level.strip() for level in text.split(",") if level.strip()]
    unknown = sorted(set(levels) - set(LEVELS))
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown bot level {', '.join(unknown)}: one of {', '.join(LEVELS)}")
    if not levels:
        raise argparse.ArgumentTypeError(f"name one level per seat, of {', '.join(LEVELS)}")
    return levels


def add_parser(sub: Any, kinds: Sequence[str]) -> None:
    """The ``arena`` subcommand of ``hustings``."""
    from hustings.cli import _at_least_one, _positive

    # "%%": argparse formats every help text with %, so a bare "95% i" broke `hustings --help`.
    arena = sub.add_parser("arena", help="bots of any level play each other in-process (no server): win shares with 95%% intervals")
    arena.add_argument("--kind", choices=list(kinds), default=kinds[0], help="game kind: %(choices)s (default %(default)s)")
    arena.add_argument("--players", type=int, default=4, help="seats per game (default %(default)s)")
    arena.add_argument("--bots", type=_levels, default="strong,random,random,random", help=f"one level per seat, comma-separated, of {', '.join(LEVELS)} (default %(default)s)")
    arena.add_argument("--games", type=_at_least_one, default=20, help="games to play (default %(default)s)")
    arena.add_argument("--seed", type=int, default=1, help="seed of the games' chance and the bots' choices (default %(default)s)")
    arena.add_argument("--iterations", type=_at_least_one, default=Budget().iterations, help="strong bot: playouts per decision at most (default %(default)s)")
    arena.add_argument("--seconds", type=_positive, default=Budget().seconds, help="strong bot: seconds per decision at most (default %(default)s)")
    arena.add_argument("--progress", action="store_true", help="print a line after each game")


def problem(args: argparse.Namespace) -> str | None:
    """Why parsed ``args`` make no arena (None when they make one)."""
    game = get_game(args.kind)
    if game is None:
        return f"unknown game kind {args.kind!r}"
    try:
        options_for(game, args.players)
    except ValueError as error:
        return f"--players {args.players}: {error}"
    if len(args.bots) != args.players:
        return f"--bots names {len(args.bots)} bots for {args.players} players: one per seat"
    return None


def command(args: argparse.Namespace) -> int:
    """Run the arena for parsed ``args`` (checked by ``problem``) and print the figures, the JSON
    line last."""
    summary = run_arena(args.kind, args.players, args.bots, args.games, args.seed, Budget(args.iterations, args.seconds), args.progress)
    for index, bot in enumerate(summary["bots"]):
        low, high = bot["ci95"]
        print(f"{index}: {bot['bot']:<7} wins {bot['win_share']:.1%} (95% CI {low:.1%}-{high:.1%}), "
              f"mean place {bot['mean_place']}, {bot['s_per_decision']:.4f} s per decision")
    print(json.dumps(summary), flush=True)
    return 0
