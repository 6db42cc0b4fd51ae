"""The search core shared by every game: determinized Monte Carlo search over a seat's
information set (information-set MCTS with its tree cut at the seat's own decision).

Each iteration draws a fresh determinization of what the seat knows, picks one of the seat's
legal moves by UCB1 (the statistics are kept per move across determinizations, which is what
makes this a search over the information set rather than over one guessed table), applies it,
plays on with a cheap rollout policy for every seat up to a depth limit, and scores the result
with the kind's heuristic (``heuristics.leaf_reward``). The budget is a number of iterations and a
time limit, whichever runs out first.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable

from hustings.ai.heuristics import leaf_reward, margin
from hustings.engine import Game, Rng
from hustings.engine.base import sampler

Policy = Callable[[Game[Any, Any, Any], Any, int, list[Any], Rng], Any]


@dataclass(frozen=True)
class Budget:
    """How much one decision may cost: ``iterations`` determinized playouts, at most ``seconds``."""

    iterations: int = 400
    seconds: float = 1.0


@dataclass(frozen=True)
class Tuning:
    """Per-kind search settings: how deep a playout goes, and how many of a long move list the
    search considers (the rest never looked better than these to the one-ply heuristic)."""

    depth: int = 40
    width: int = 16
    exploration: float = 0.7
    paired: bool = False
    """Try every move on each drawn table (common random numbers) instead of UCB1: the moves'
    differences then show through the noise of what the drawn tables hide, at the price of
    fewer tables per decision."""
    greedy_rollout: float | None = None
    """Play the rollout with the heuristic's one-ply choice for every seat, a random move with
    this probability (None: random moves throughout)."""
    rollout_sample: int = 8
    """Moves the greedy rollout weighs at most per step (a random few of a long list)."""
    by_margin: bool = False
    """Score a playout by the heuristic's lead (``heuristics.margin``) instead of the squashed
    rank-and-lead reward: finer, and what the greedy bot maximises."""
    ranked: int = 200
    """Moves the one-ply ranking (the greedy bot's decision, the search's first cut) weighs at
    most: the first ones listed (the game lists sensible choices first), or with ``spread`` as
    many spread evenly over the whole list. It bounds the time of a decision, which a server bot
    must end well before its thinking floor (``service/seats.py``): past the floor, when the
    decision is made public tells the table how long the hidden hand's list of moves was."""
    spread: bool = False


TUNING: dict[str, Tuning] = {
    "stimmvieh": Tuning(depth=60, width=24),  # a whole campaign is about 40 steps: play it out
    # Wahlspiel: 8 random steps judged by UCB1 won 45% against random bots but 15% against greedy
    # ones; the moves judged paired on the drawn tables, as in The Spin Doctors, do better, and
    # judged by the heuristic's lead (what the greedy bot maximises) better than by the squashed
    # rank-and-lead reward, whose rank half hides a lead's growth. A move costs the ranking five to
    # eight times a Spin Doctors Staff's (its step and its heuristic: 180-290 us against 36 us),
    # and a Sensation field lists every way to play each event card in the hand (122 for two cards
    # naming several candidates, 150-300 for a hand of ten or more), which took 22-72 ms to weigh
    # where the 200 Staffs weighed of the Spin Doctors' opening take 7 ms: so at most 32, spread
    # over every card's ways rather than the first cards' alone.
    "wahlspiel": Tuning(depth=0, width=12, paired=True, by_margin=True, ranked=32, spread=True),
    # The Spin Doctors: random play even a few steps on buries a move's worth (a random seat hands
    # its Budget away); the heuristic judges each move on the drawn tables directly, paired.
    "spin_doctors": Tuning(depth=0, width=12, paired=True),
}


def random_policy(game: Game[Any, Any, Any], state: Any, seat: int, moves: list[Any], rng: Rng) -> Any:
    """The rollout policy: any legal move, uniformly."""
    return moves[rng.below(len(moves))]


def greedy_policy(epsilon: float, sample: int) -> Policy:
    """A rollout policy: the move after which the heuristic likes the actor's lead best among a
    random ``sample`` of the legal moves, or any move with probability ``epsilon``."""

    def policy(game: Game[Any, Any, Any], state: Any, seat: int, moves: list[Any], rng: Rng) -> Any:
        if len(moves) == 1 or rng.below(1000) < epsilon * 1000:
            return moves[rng.below(len(moves))]
        if len(moves) > sample:
            picked = list(range(len(moves)))
            rng.shuffle(picked)
            candidates = [moves[i] for i in sorted(picked[:sample])]
        else:
            candidates = moves
        best, best_value = candidates[0], -math.inf
        for move in candidates:
            after, _ = game.apply(state, seat, move, Rng(rng.seed, rng.counter))
            value = margin(game, after, seat)
            if value > best_value:
                best, best_value = move, value
        return best

    return policy


def weighed(tuning: Tuning, count: int) -> range | list[int]:
    """The indices, in order, of the moves of a list of ``count`` that the one-ply ranking weighs
    (``Tuning.ranked``)."""
    if count <= tuning.ranked:
        return range(count)
    if not tuning.spread:
        return range(tuning.ranked)
    return [index * count // tuning.ranked for index in range(tuning.ranked)]


def one_ply(game: Game[Any, Any, Any], state: Any, seat: int, moves: list[Any], rng: Rng) -> list[tuple[float, int]]:
    """(heuristic margin after the move, index) for the moves the kind's tuning weighs
    (``weighed``), best first; ties keep the game's own order (it lists sensible choices first)."""
    ranked = []
    for index in weighed(TUNING.get(game.info.kind, Tuning()), len(moves)):
        after, _ = game.apply(state, seat, moves[index], Rng(rng.seed, rng.counter))
        ranked.append((margin(game, after, seat), index))
    ranked.sort(key=lambda pair: (-pair[0], pair[1]))
    return ranked


def playout(game: Game[Any, Any, Any], state: Any, seat: int, depth: int, rng: Rng, policy: Policy = random_policy,
            by_margin: bool = False) -> float:
    """Play on from ``state`` for at most ``depth`` steps and score it for ``seat``."""
    for _ in range(depth):
        acting = game.to_act(state)
        if not acting:
            break
        actor = min(acting)
        moves = game.legal_moves(state, actor)
        state, _ = game.apply(state, actor, policy(game, state, actor, moves, rng), rng)
    return margin(game, state, seat) if by_margin else leaf_reward(game, state, seat)


def rollout_policy(tuning: Tuning) -> Policy:
    """The policy of ``tuning``'s playouts."""
    if tuning.greedy_rollout is None:
        return random_policy
    return greedy_policy(tuning.greedy_rollout, tuning.rollout_sample)


@dataclass
class SearchReport:
    """What a search did: iterations run, seconds spent, and the visits of the chosen move."""

    iterations: int = 0
    seconds: float = 0.0
    visits: int = 0


def search(game: Game[Any, Any, Any], observation: Any, seat: int, rng: Rng, budget: Budget) -> tuple[Any, SearchReport]:
    """The move of ``seat`` that scored best over determinizations of ``observation`` (a state
    that carries only what the seat knows: ``hustings.engine.base.observe``)."""
    started = time.perf_counter()
    moves = game.legal_moves(observation, seat)
    report = SearchReport()
    if len(moves) == 1:
        return moves[0], report
    tuning = TUNING.get(game.info.kind, Tuning())
    if len(moves) > tuning.width:
        ranked = one_ply(game, observation, seat, moves, rng)
        moves = [moves[i] for _, i in ranked[: tuning.width]]
    if tuning.paired:
        return _paired(game, observation, seat, rng, moves, tuning, deadline=started + budget.seconds,
                       rounds=max(1, budget.iterations // len(moves)), report=report, started=started)
    sample = sampler(game)
    policy = rollout_policy(tuning)
    visits = [0] * len(moves)
    totals = [0.0] * len(moves)
    deadline = started + budget.seconds
    for iteration in range(budget.iterations):
        if iteration and _would_overrun(started, iteration, deadline):
            break  # out of time: the moves not yet tried keep no visits and lose
        if iteration < len(moves):
            choice = iteration
        else:
            log_n = math.log(iteration)
            choice = max(
                range(len(moves)),
                key=lambda i: totals[i] / visits[i] + tuning.exploration * math.sqrt(log_n / visits[i]),
            )
        world = sample(observation, seat, Rng(rng.seed + b"/world", rng.counter + iteration))
        chance = Rng(rng.seed + b"/chance", rng.counter + iteration)
        after, _ = game.apply(world, seat, moves[choice], chance)
        reward = playout(game, after, seat, tuning.depth, chance, policy, tuning.by_margin)
        visits[choice] += 1
        totals[choice] += reward
        report.iterations += 1
    best = max(range(len(moves)), key=lambda i: (visits[i], totals[i]))
    report.seconds = time.perf_counter() - started
    report.visits = visits[best]
    return moves[best], report


def _would_overrun(started: float, done: int, deadline: float) -> bool:
    """True if one more step, as long as the ``done`` ones took on average, would end past the
    deadline: stopping only once past it would overrun the budget by a step every decision."""
    now = time.perf_counter()
    return now + (now - started) / done > deadline


def _paired(game: Game[Any, Any, Any], observation: Any, seat: int, rng: Rng, moves: list[Any], tuning: Tuning,
            deadline: float, rounds: int, report: SearchReport, started: float) -> tuple[Any, SearchReport]:
    """Rounds of one drawn table each, on which every move is tried with the same chance: the
    move with the best total wins, equal ones drawn at random."""
    sample = sampler(game)
    policy = rollout_policy(tuning)
    totals = [0.0] * len(moves)
    for number in range(rounds):
        if number and _would_overrun(started, number, deadline):
            break
        world = sample(observation, seat, Rng(rng.seed + b"/world", rng.counter + number))
        for index, move in enumerate(moves):
            chance = Rng(rng.seed + b"/chance", rng.counter + number)
            after, _ = game.apply(world, seat, move, chance)
            totals[index] += playout(game, after, seat, tuning.depth, chance, policy, tuning.by_margin)
            report.iterations += 1
    top = max(totals)
    # Equal moves (every Staff before the game looks alike to the heuristic) are drawn at
    # random, as the greedy bot does: always the first listed would make the bot predictable.
    tied = [i for i, total in enumerate(totals) if total >= top - 1e-9]
    best = tied[rng.below(len(tied))]
    report.seconds = time.perf_counter() - started
    report.visits = report.iterations // len(moves)
    return moves[best], report
