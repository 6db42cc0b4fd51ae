"""One generic suite over every registered game: random games to the end for every player count
and variant the game declares, with the checks every game must pass (see STYLE.md, point 3).

No game is exempt. A game provides ``sample_options()`` (labelled option sets covering its player
counts and variants) and ``secret_twin(state, seat, rng)`` (a state differing only in that seat's
secrets and in what nobody sees) for the leak test.
"""

from __future__ import annotations

from typing import Any

import pytest

from hustings.engine import EngineError, Game, MalformedMoveError, Rng, games, state_digest
from hustings.engine.errors import GameOverError
from hustings.v1 import game_pb2

EXEMPT: frozenset[str] = frozenset()  # stays empty
GAMES_PER_OPTION_SET = 17  # 12 Stimmvieh option sets: 204 games
LEAK_GAMES_PER_OPTION_SET = 5  # the leak test's twins are costlier; a few full games per set
# Long games play fewer here; their own property tests play the rest (the Spin Doctors: 100 per
# player count in tests/test_spin_doctors_games.py). Every game still runs every check below.
GAMES_PER_SET_BY_KIND = {"spin_doctors": 5}
LEAK_GAMES_PER_SET_BY_KIND = {"spin_doctors": 1, "wahlspiel": 1}
UNLISTED_SAMPLES = 4
STEP_LIMIT = 5000

GAMES = {kind: game for kind, game in games().items() if kind not in EXEMPT}


def _cases() -> list[Any]:
    cases = []
    for kind, game in GAMES.items():
        for index, (label, options) in enumerate(game.sample_options()):
            players = game.seat_count(options)
            cases.append(pytest.param(kind, label, options, id=f"{kind}-{players}p-{label}-{index}"))
    return cases


def _copy(rng: Rng) -> Rng:
    return Rng(rng.seed, rng.counter)


def _view_bytes(game: Game[Any, Any, Any], state: Any, seat: int | None) -> bytes:
    out = game_pb2.GameView()
    game.view_to_proto(game.view(state, seat), out)
    return out.SerializeToString(deterministic=True)


def _events_bytes(game: Game[Any, Any, Any], events: list[Any], seat: int | None) -> list[bytes]:
    shown = []
    for event in events:
        payload = event.for_seat(seat)
        if payload is not None:
            out = game_pb2.Event()
            game.event_to_proto(payload, out)
            shown.append(out.SerializeToString(deterministic=True))
    return shown


def _viewers(game: Game[Any, Any, Any], options: Any) -> list[int | None]:
    return [*range(game.seat_count(options)), None]


def test_exemption_list_is_empty() -> None:
    assert not EXEMPT
    assert GAMES, "no game registered"


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_sample_options_cover_player_counts_and_variants(kind: str) -> None:
    game = GAMES[kind]
    samples = game.sample_options()
    counts = {game.seat_count(options) for _, options in samples}
    assert counts == set(range(game.info.min_players, game.info.max_players + 1))
    labels = {name for label, _ in samples for name in label.split("+")}
    assert {v.name for v in game.info.variants} <= labels
    for _, options in samples:
        message = game_pb2.GameOptions()
        game.options_to_proto(options, message)
        assert game.options_from_proto(message) == options


def _check_step(game: Game[Any, Any, Any], state: Any, options: Any, rng: Rng, chooser: Rng, pool: list[Any]) -> None:
    """Everything that must hold in a state that is not over."""
    before = game.dump_state(state)
    acting = game.to_act(state)
    assert acting, "nobody to act although the game is not over"
    assert game.outcome(state) is None
    for seat in range(game.seat_count(options)):
        listed = game.legal_moves(state, seat)
        if seat not in acting:
            # Only moves the rules allow at any time (The Spin Doctors' hand-overs of Budget):
            # each is accepted and leaves the turn where it was; nothing else is.
            for move in listed:
                after, _ = game.apply(state, seat, move, _copy(rng))
                assert game.to_act(after) == acting
            listed_set = set(listed)
            unlisted = [m for m in pool if m not in listed_set]
            if unlisted:
                with pytest.raises(EngineError):
                    game.apply(state, seat, chooser.choice(unlisted), _copy(rng))
            continue
        assert listed, f"seat {seat} must act but has no legal move"
        for move in listed:
            game.apply(state, seat, move, _copy(rng))  # every listed move is accepted
            message = game_pb2.Move()
            game.move_to_proto(move, message)
            assert game.move_from_proto(message) == move
        listed_set = set(listed)
        unlisted = [m for m in pool if m not in listed_set]
        for _ in range(min(UNLISTED_SAMPLES, len(unlisted))):
            with pytest.raises(EngineError):
                game.apply(state, seat, chooser.choice(unlisted), _copy(rng))
        with pytest.raises(EngineError):
            game.apply(state, seat, object(), _copy(rng))
        for move in listed[:3]:
            if move not in pool:
                pool.append(move)
    with pytest.raises(MalformedMoveError):
        game.move_from_proto(game_pb2.Move())
    assert game.dump_state(state) == before, "a rejected move changed the state"
    assert game.dump_state(game.load_state(before)) == before
    for seat in _viewers(game, options):
        _view_bytes(game, state, seat)


def _check_leaks(game: Game[Any, Any, Any], state: Any, options: Any, seat: int, move: Any, rng: Rng, salt: int) -> int:
    """Twins differing only in B's secrets look the same to every A != B, before and after the
    step; and whenever A's view after the step is the same, so are A's events. Returns how many
    twins really differed from ``state`` (so the check is not vacuous)."""
    viewers = _viewers(game, options)
    differing = 0
    for secret_owner in range(game.seat_count(options)):
        twin = game.secret_twin(state, secret_owner, Rng(b"twin", salt * 8 + secret_owner))
        differing += game.dump_state(twin) != game.dump_state(state)
        after, events = game.apply(state, seat, move, _copy(rng))
        twin_after, twin_events = game.apply(twin, seat, move, _copy(rng))
        for viewer in viewers:
            if viewer == secret_owner:
                continue
            assert _view_bytes(game, state, viewer) == _view_bytes(game, twin, viewer), (
                f"seat {viewer} sees a secret of seat {secret_owner}"
            )
            if _view_bytes(game, after, viewer) == _view_bytes(game, twin_after, viewer):
                assert _events_bytes(game, events, viewer) == _events_bytes(game, twin_events, viewer), (
                    f"events to seat {viewer} carry a secret of seat {secret_owner}"
                )
    return differing


def _check_secret_move(game: Game[Any, Any, Any], state: Any, options: Any, seat: int, move: Any, rng: Rng, chooser: Rng) -> None:
    """A secret decision: another choice of the same seat must look the same to everybody else
    (events and view), unless the step itself reveals it (then the views differ too)."""
    others = [m for m in game.legal_moves(state, seat) if m != move]
    if game.move_is_public(move) or not others:
        return
    other = chooser.choice(others)
    after, events = game.apply(state, seat, move, _copy(rng))
    other_after, other_events = game.apply(state, seat, other, _copy(rng))
    for viewer in _viewers(game, options):
        if viewer != seat and _view_bytes(game, after, viewer) == _view_bytes(game, other_after, viewer):
            assert _events_bytes(game, events, viewer) == _events_bytes(game, other_events, viewer), (
                f"events to seat {viewer} reveal the secret decision of seat {seat}"
            )


def _play(game: Game[Any, Any, Any], options: Any, seed: bytes, leak: bool) -> None:
    rng = Rng(seed)
    chooser = Rng(b"choose:" + seed)
    state = game.setup(options, rng)
    log: list[tuple[int, Any]] = []
    digests = [state_digest(game, state)]
    pool: list[Any] = []
    viewers = _viewers(game, options)
    differing_twins = 0
    for step in range(STEP_LIMIT):
        if game.is_over(state):
            break
        _check_step(game, state, options, rng, chooser, pool)
        seat = chooser.choice(sorted(game.to_act(state)))
        move = chooser.choice(game.legal_moves(state, seat))
        if leak:
            differing_twins += _check_leaks(game, state, options, seat, move, rng, step)
            _check_secret_move(game, state, options, seat, move, rng, chooser)
        state, events = game.apply(state, seat, move, rng)
        for viewer in viewers:
            _events_bytes(game, events, viewer)
        log.append((seat, move))
        digests.append(state_digest(game, state))
    else:
        pytest.fail("the game did not end")
    assert differing_twins or not leak, "secret_twin never produced a different state"
    assert game.to_act(state) == frozenset()
    assert all(game.legal_moves(state, s) == [] for s in range(game.seat_count(options)))
    with pytest.raises(GameOverError):
        game.apply(state, 0, pool[0], _copy(rng))
    outcome = game.outcome(state)
    assert outcome is not None and outcome.placings
    seats = [p.seat for p in outcome.placings if p.seat is not None]
    assert sorted(seats) == list(range(game.seat_count(options)))
    ranks = [p.rank for p in outcome.placings]
    assert ranks == sorted(ranks) and ranks[0] == 1
    for viewer in viewers:
        _view_bytes(game, state, viewer)
    # Replaying the seed and the log reproduces every state.
    replay_rng = Rng(seed)
    replay = game.setup(options, replay_rng)
    assert state_digest(game, replay) == digests[0]
    for (seat, move), digest in zip(log, digests[1:]):
        replay, _ = game.apply(replay, seat, move, replay_rng)
        assert state_digest(game, replay) == digest


@pytest.mark.parametrize(("kind", "label", "options"), _cases())
def test_random_games_to_the_end(kind: str, label: str, options: Any) -> None:
    game = GAMES[kind]
    for number in range(GAMES_PER_SET_BY_KIND.get(kind, GAMES_PER_OPTION_SET)):
        _play(game, options, f"{kind}:{label}:{options!r}:{number}".encode(), leak=False)


@pytest.mark.parametrize(("kind", "label", "options"), _cases())
def test_leaks_in_random_games(kind: str, label: str, options: Any) -> None:
    game = GAMES[kind]
    for number in range(LEAK_GAMES_PER_SET_BY_KIND.get(kind, LEAK_GAMES_PER_OPTION_SET)):
        _play(game, options, f"leak:{kind}:{label}:{options!r}:{number}".encode(), leak=True)


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_bad_options_are_rejected(kind: str) -> None:
    game = GAMES[kind]
    for players in (game.info.min_players - 1, game.info.max_players + 1, 0, -1):
        message = game_pb2.GameOptions(players=players)
        with pytest.raises(EngineError):
            game.options_from_proto(message)
