"""One generic suite over every registered game: random games to the end for every player count
and variant the game declares, with the checks every game must pass (see STYLE.md, point 3).

No game is exempt. A game provides ``sample_options()`` (labelled option sets covering its player
counts and variants) and ``secret_twin(state, seat, rng)`` (a state differing only in that seat's
secrets and in what nobody sees) for the leak test, and ``secret_footprint(state, seat, move)``
(what the table sees of a secret decision) for the non-interference test.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Callable

import pytest

from hustings.engine import EngineError, Game, MalformedMoveError, Rng, games, state_digest
from hustings.engine.errors import GameOverError
from hustings.service import visibility
from hustings.storage.v1 import storage_pb2
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
LISTED_LIMIT = 160  # longer lists (a Spin Doctors Staff: 924) are checked on a sample of this size

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


def _sample(moves: list[Any], limit: int, chooser: Rng) -> list[Any]:
    """``moves`` if there are at most ``limit``, else the first and last few and a random rest."""
    if len(moves) <= limit:
        return moves
    edge = limit // 4
    middle = moves[edge:-edge]
    chooser.shuffle(middle)
    return moves[:edge] + middle[: limit - 2 * edge] + moves[-edge:]


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
        for move in _sample(listed, LISTED_LIMIT, chooser):
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


# --- non-interference -------------------------------------------------------------------------
# Whichever legal secret choice a seat makes, among those the table cannot tell apart (equal
# ``secret_footprint``), every other seat and every spectator receives the same from the
# service: the view as GetView and WatchGame send it (its legal moves included), the history
# entries with their events as filtered for them, and the same number of steps and versions
# until the rules reveal the choice (an event marked ``reveals``, or the end of the game).

NONINTERFERENCE_STATES = 200  # per game, spread over its option sets and kinds of secret
CHOICES_PER_STATE = 8  # the first two and last two listed, the rest at random
SEARCH_GAMES_PER_SET = 3  # random games per option set in which such states are found
LONG_RUN = (1000, 24, 15)  # the slow variant: states, choices per state, games per option set
CONTINUATION_STEPS = 6  # the others' moves after the secret one, unless it is revealed sooner


@dataclass(frozen=True)
class _SecretPoint:
    """A reachable state where ``seat`` owes a secret decision with ``choices`` that look alike."""

    options: Any
    state: Any
    rng: Rng
    seat: int
    choices: list[Any]
    label: str  # the option set and the kind of decision, to spread the checks over both


def _secret_points(game: Game[Any, Any, Any], options: Any, label: str, seed: bytes) -> list[_SecretPoint]:
    """Every state of one random game where some seat owes a secret decision, with one class of
    its alike choices (chosen at random where it has several)."""
    rng = Rng(seed)
    chooser = Rng(b"choose:" + seed)
    state = game.setup(options, rng)
    points = []
    for _ in range(STEP_LIMIT):
        if game.is_over(state):
            break
        acting = sorted(game.to_act(state))
        for seat in acting:
            alike: dict[Any, list[Any]] = {}
            for move in game.legal_moves(state, seat):
                if not game.move_is_public(move):
                    alike.setdefault(game.secret_footprint(state, seat, move), []).append(move)
            classes = [moves for moves in alike.values() if len(moves) > 1]
            if classes:
                choices = chooser.choice(classes)
                points.append(_SecretPoint(options, state, _copy(rng), seat, choices, f"{label}:{type(choices[0]).__name__}"))
        seat = chooser.choice(acting)
        state, _ = game.apply(state, seat, chooser.choice(game.legal_moves(state, seat)), rng)
    return points


Encoder = Callable[[Any], bytes]


def _move_encoder(game: Game[Any, Any, Any]) -> Encoder:
    """A move as one entry of GameView.legal_moves on the wire (repeated fields concatenate),
    encoded once per distinct move. Games list the same move objects step after step (924 Staffs),
    so the first object of each value is also found by its id, without hashing the value."""
    by_id: dict[int, tuple[Any, bytes]] = {}
    by_value: dict[Any, bytes] = {}

    def encode(move: Any) -> bytes:
        known = by_id.get(id(move))
        if known is not None and known[0] is move:
            return known[1]
        data = by_value.get(move)
        if data is None:
            view = game_pb2.GameView()
            game.move_to_proto(move, view.legal_moves.add())
            data = by_value[move] = view.SerializeToString(deterministic=True)
            by_id[id(move)] = (move, data)  # ``by_value`` keeps this object, so its id stays its own
        return data

    return encode


def _client_view(game: Game[Any, Any, Any], state: Any, seat: int | None, version: int, encode: Encoder) -> bytes:
    """What GetView and WatchGame send ``seat`` (None: a spectator) of an active game, as
    GameHost._view builds it, less the fields taken from the stored game (id, kind, options, seats,
    table, seed commitment), which no move changes."""
    head = game_pb2.GameView(version=version, status=game_pb2.GAME_STATUS_ACTIVE)
    head.to_act.extend(sorted(game.to_act(state)))
    parts = [head.SerializeToString(deterministic=True)]
    if seat is not None:
        parts.append(game_pb2.GameView(seat=seat).SerializeToString(deterministic=True))
        parts += [encode(move) for move in game.legal_moves(state, seat)]
    own = game_pb2.GameView()
    game.view_to_proto(game.view(state, seat), own)
    parts.append(own.SerializeToString(deterministic=True))
    return b"".join(parts)


def _received(
    game: Game[Any, Any, Any], state: Any, step: tuple[int, Any, list[Any]], version: int, viewers: list[int | None], encode: Encoder
) -> list[tuple[bytes, bytes]]:
    """For each viewer, the view and the history entry (GetHistory, WatchGame) of one step, as the
    service stores the step (GameHost._advance) and filters it (visibility.entry_for)."""
    seat, move, events = step
    entry = storage_pb2.LogEntry(version=version, seat=seat, move_public=game.move_is_public(move))
    game.move_to_proto(move, entry.move)
    entry.events.extend(visibility.store_event(game, event, version, seat) for event in events)
    return [
        (
            _client_view(game, state, viewer, version, encode),
            visibility.entry_for(entry, viewer, reveal_all=False).SerializeToString(deterministic=True),
        )
        for viewer in viewers
    ]


def _check_secret_choice(game: Game[Any, Any, Any], point: _SecretPoint, number: int, tries: int, encode: Encoder) -> bool:
    """Non-interference at one point, for ``tries`` of its alike choices, each the first step of a
    branch. The branches go on in lock step with the same moves of the other seats (picked from
    their listed moves, the same in every branch while their views are) until the choice is
    revealed, the seats that know it are the only ones to act (a confidant may act while its
    listed moves are the same in every branch), or CONTINUATION_STEPS. At every step before the
    reveal, every other seat and spectators must receive the same in every branch, and the reveal
    must come at the same step. True when some step before the reveal was compared."""
    footprint = game.secret_footprint(point.state, point.seat, point.choices[0])
    viewers = [v for v in _viewers(game, point.options) if v != point.seat and v not in footprint.confidants]
    choices = _sample(point.choices, tries, Rng(b"choices", number))
    pick = Rng(b"continue", number)
    states, rngs = [point.state] * len(choices), [_copy(point.rng) for _ in choices]
    seat, moves = point.seat, list(choices)
    for step in range(CONTINUATION_STEPS + 1):
        where = f"{step} step(s) after the choice ({point.label}, state {number})"
        steps = [game.apply(state, seat, move, rng) for state, move, rng in zip(states, moves, rngs)]
        states = [state for state, _ in steps]
        revealed = [game.is_over(state) or any(event.reveals for event in events) for state, events in steps]
        assert len(set(revealed)) == 1, f"{choices[0]} and {choices[revealed.index(not revealed[0])]} of seat {point.seat} are revealed at different steps ({where})"
        if revealed[0]:
            return step > 0
        received = [_received(game, state, (seat, move, events), step + 2, viewers, encode) for (state, events), move in zip(steps, moves)]
        for choice, theirs in zip(choices[1:], received[1:]):
            for viewer, mine, other in zip(viewers, received[0], theirs):
                who = "spectators" if viewer is None else f"seat {viewer}"
                assert mine[0] == other[0], f"{who} can tell {choices[0]} from {choice} of seat {point.seat} by the view {where}"
                assert mine[1] == other[1], f"{who} can tell {choices[0]} from {choice} of seat {point.seat} by the history {where}"
        movers = []
        for other_seat in sorted(game.to_act(states[0]) - {point.seat}):
            listed = [game.legal_moves(state, other_seat) for state in states]
            if all(moves_here == listed[0] for moves_here in listed):
                movers.append((other_seat, listed[0]))
        if not movers:
            return True
        seat, listed_here = movers[pick.below(len(movers))]
        moves = [listed_here[pick.below(len(listed_here))]] * len(choices)
    return True


def _check_non_interference(kind: str, states: int, tries: int, search_games: int, salt: str) -> None:
    """Non-interference in ``states`` states of random games of ``kind`` (over every option set
    and every kind of secret decision in turn), ``tries`` alike choices in each."""
    game = GAMES[kind]
    buckets: dict[str, list[_SecretPoint]] = {}
    for index, (label, options) in enumerate(game.sample_options()):
        for number in range(search_games):
            seed = f"{salt}:{kind}:{index}:{number}".encode()
            for point in _secret_points(game, options, f"{index}-{label}", seed):
                buckets.setdefault(point.label, []).append(point)
    assert buckets, "random games never reached a secret decision with alike choices"
    shuffler = Rng(f"secret-order:{kind}".encode())
    for points in buckets.values():
        shuffler.shuffle(points)
    # Round robin over the buckets: every option set and every kind of secret decision early on.
    order = [p for group in itertools.zip_longest(*(buckets[k] for k in sorted(buckets))) for p in group if p is not None]
    encode = _move_encoder(game)
    checked: dict[str, int] = {}
    for number, point in enumerate(order):
        if sum(checked.values()) >= states:
            break
        if _check_secret_choice(game, point, number, tries, encode):
            decision = point.label.rsplit(":", 1)[1]
            checked[decision] = checked.get(decision, 0) + 1
    assert sum(checked.values()) >= states, f"only {checked} states could be checked"


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_secret_choices_leave_no_trace(kind: str) -> None:
    _check_non_interference(kind, NONINTERFERENCE_STATES, CHOICES_PER_STATE, SEARCH_GAMES_PER_SET, "secret")


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(GAMES))
def test_secret_choices_leave_no_trace_in_more_states(kind: str) -> None:
    _check_non_interference(kind, *LONG_RUN, "secret-long")
