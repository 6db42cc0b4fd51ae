"""What the rules decide over seeded random games of one kind, as JSON on stdout: run as
``python content_trace.py KIND SEEDS MAX_STEPS`` in a fresh interpreter whose ``hustings`` package
is a copy with an edited content file (tests/content_copies.py), so that the rules read that
file at import as a server does.

For every option set the game samples and every seed, a game is played to its end by random
legal moves (the choice of seat and move drawn from ``random.Random(seed)`` by position in the
sorted seats and in the legal-move list, the game's chance from ``Rng``). Each step gives one
digest of what the rules decided: the seats to act, every legal move of each (its protobuf
bytes), the move chosen and the stored state after it (``dump_state``). A game that lets
parties be named at joining (``name_party``) first has some seats choose a colour from the
content's own list, so that the colours are played too. The outcome is kept without its names
and detail text (those are what players read); the names are printed apart. Also printed: the
content and rules versions this interpreter computed, where ``hustings`` was imported from, and
every spectator view and catalogue string, for the caller to see which labels were shown.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import random
import sys
from typing import Any

from hustings.engine import Rng, get_game
from hustings.engine.registry import get_catalogue
from hustings.v1 import game_pb2, game_service_pb2


def _move_bytes(game: Any, move: Any) -> bytes:
    message = game_pb2.Move()
    game.move_to_proto(move, message)
    return message.SerializeToString(deterministic=True)


def _named_parties(game: Any, options: Any, state: Any, choices: random.Random) -> Any:
    content = importlib.import_module(f"{type(game).__module__.rsplit('.', 1)[0]}.content").CONTENT
    free = list(content.party_colours)
    for seat in range(game.seat_count(options)):
        if choices.random() < 0.5:
            state = game.name_party(state, seat, "", free.pop(choices.randrange(len(free))))
    return state


def play(game: Any, options: Any, seed: int, max_steps: int) -> dict[str, Any]:
    """One random game: a digest per step, the outcome without names, and the names."""
    choices = random.Random(seed)
    rng = Rng(f"content-trace-{seed}".encode())
    state = game.setup(options, rng)
    if hasattr(game, "name_party"):
        state = _named_parties(game, options, state, choices)
    steps = [hashlib.sha256(game.dump_state(state)).hexdigest()[:16]]
    for _ in range(max_steps):
        if game.is_over(state):
            break
        digest = hashlib.sha256()
        acting = sorted(game.to_act(state))
        digest.update(repr(acting).encode())
        legal = {seat: game.legal_moves(state, seat) for seat in acting}
        for seat in acting:
            for move in legal[seat]:
                digest.update(_move_bytes(game, move))
            digest.update(b"|")
        seat = choices.choice(acting)
        move = choices.choice(legal[seat])
        state, events = game.apply(state, seat, move, rng)
        digest.update(_move_bytes(game, move) + game.dump_state(state))
        digest.update(str(len(events)).encode())
        steps.append(digest.hexdigest()[:16])
    assert game.is_over(state), "the game did not end within the step bound"
    outcome = game.outcome(state)
    view = game_pb2.GameView()
    game.view_to_proto(game.view(state, None), view)
    return {
        "steps": steps,
        "outcome": [[p.rank, p.seat, p.score, [list(r) for r in p.ranked_by]] for p in outcome.placings],
        "names": [[p.name, p.detail] for p in outcome.placings],
        "view": view.SerializeToString(deterministic=True).decode("utf-8", "replace"),
    }


def main() -> None:
    kind, seeds, max_steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    game = get_game(kind)
    catalogue = get_catalogue(kind)
    assert game is not None and catalogue is not None
    answer = game_service_pb2.GetGameKindResponse()
    catalogue.fill(answer)
    games = {
        f"{label}/{index}/{seed}": play(game, options, seed, max_steps)
        for index, (label, options) in enumerate(game.sample_options())
        for seed in range(seeds)
    }
    print(json.dumps({
        "imported_from": importlib.import_module(type(game).__module__).__file__,
        "content_version": catalogue.content_version,
        "rules_version": catalogue.rules_version,
        "catalogue": answer.SerializeToString(deterministic=True).decode("utf-8", "replace"),
        "games": games,
    }))


if __name__ == "__main__":
    main()
