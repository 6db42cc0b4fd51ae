"""One generic suite over every registered game: random games to the end for every player count
and variant the game declares, with the checks every game must pass (see STYLE.md, point 3).

No game is exempt. A game provides ``sample_options()`` (labelled option sets covering its player
counts and variants) and ``secret_twin(state, seat, rng)`` (a state differing only in that seat's
secrets and in what nobody sees) for the leak test, and ``secret_footprint(state, seat, move)``
(what the table sees of a secret decision) for the non-interference test. Beside the game's own
twin, the leak test uses a deck-keeping twin of its own for every game (tests/deck_keeping_twins.py),
and a leak planted in every game (tests/planted_leaks.py) must fail it.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest
from google.protobuf.message import Message

from deck_keeping_twins import KINDS as DECK_KEEPING_KINDS
from deck_keeping_twins import deck_keeping_twin, reveals_by_rules
from hustings.engine import EngineError, Game, MalformedMoveError, Rng, games, state_digest
from hustings.engine.errors import GameOverError
from hustings.service import visibility
from hustings.storage.v1 import storage_pb2
from hustings.v1 import game_pb2
from planted_leaks import PLANTS, LeakyGame

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
PLANTED_GAMES = 4  # random games in which a planted leak must be caught (two at most, so far)

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


def _view(game: Game[Any, Any, Any], state: Any, seat: int | None) -> game_pb2.GameView:
    out = game_pb2.GameView()
    game.view_to_proto(game.view(state, seat), out)
    return out


def _view_bytes(game: Game[Any, Any, Any], state: Any, seat: int | None) -> bytes:
    return _view(game, state, seat).SerializeToString(deterministic=True)


def _events_shown(game: Game[Any, Any, Any], events: list[Any], seat: int | None) -> list[game_pb2.Event]:
    shown = []
    for event in events:
        payload = event.for_seat(seat)
        if payload is not None:
            out = game_pb2.Event()
            game.event_to_proto(payload, out)
            shown.append(out)
    return shown


def _events_bytes(game: Game[Any, Any, Any], events: list[Any], seat: int | None) -> list[bytes]:
    return [event.SerializeToString(deterministic=True) for event in _events_shown(game, events, seat)]


def _values(messages: list[Message]) -> Counter[Any]:
    """Every scalar value in ``messages``, however deep, counted (card ids, amounts, names)."""
    counted: Counter[Any] = Counter()
    pending = list(messages)
    while pending:
        message = pending.pop()
        for field, value in message.ListFields():
            values = value if field.is_repeated else [value]
            if field.type == field.TYPE_MESSAGE:
                pending.extend(values)
            else:
                counted.update(values)
    return counted


def _changed(mine: list[Message], theirs: list[Message]) -> set[Any]:
    """The values that ``mine`` and ``theirs`` do not hold alike (in one and not the other, or
    more often in one)."""
    a, b = _values(mine), _values(theirs)
    return set((a - b) + (b - a))


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


@dataclass
class _LeakCounts:
    """How often the leak test's twins really differed from the state (so it is not vacuous):
    the game's own twins, and the deck-keeping twins compared byte for byte after a step."""

    differing: int = 0
    kept_decks: int = 0


def _check_leaks(
    game: Game[Any, Any, Any], state: Any, options: Any, seat: int, move: Any, rng: Rng, salt: int, counts: _LeakCounts
) -> None:
    """Twins differing only in B's secrets (and in what nobody knows, such as deck order) look
    the same to every A != B before the step; after it, A's events are the same whenever A's view
    is. Where A's view after the step differs (a card drawn from a deck that the twin shuffled
    otherwise), A's events may differ only in values that A's view also shows differently, or
    that events shown to everybody or events that reveal (by the rules) show differently; and
    a deck-keeping twin (see ``_check_deck_keeping_twin``) must then show A the same."""
    viewers = _viewers(game, options)
    after, events = game.apply(state, seat, move, _copy(rng))
    before = {viewer: _view_bytes(game, state, viewer) for viewer in viewers}
    seen = {viewer: _seen(game, after, events, viewer) for viewer in viewers}
    for secret_owner in range(game.seat_count(options)):
        twin = game.secret_twin(state, secret_owner, Rng(b"twin", salt * 8 + secret_owner))
        counts.differing += game.dump_state(twin) != game.dump_state(state)
        twin_after, twin_events = game.apply(twin, seat, move, _copy(rng))
        public_changes: set[Any] | None = None
        drew_otherwise = False
        for viewer in viewers:
            if viewer == secret_owner:
                continue
            assert before[viewer] == _view_bytes(game, twin, viewer), f"seat {viewer} sees a secret of seat {secret_owner}"
            view, shown = seen[viewer]
            twin_view, twin_shown = _seen(game, twin_after, twin_events, viewer)
            drew_otherwise = drew_otherwise or view[1] != twin_view[1]
            if view[1] == twin_view[1]:
                assert [e for _, e in shown] == [e for _, e in twin_shown], f"events to seat {viewer} carry a secret of seat {secret_owner}"
            elif [e for _, e in shown] != [e for _, e in twin_shown]:
                if public_changes is None:
                    # What everybody is shown differently (a card turned up from a deck the twin
                    # shuffled otherwise) or what the rules reveal may differ in anybody's events;
                    # redacted forms and other private events may not.
                    public_changes = _changed(
                        _events_shown(game, [e for e in events if e.public or e.reveals], None),
                        _events_shown(game, [e for e in twin_events if e.public or e.reveals], None),
                    )
                unexplained = _changed([m for m, _ in shown], [m for m, _ in twin_shown]) - public_changes
                if unexplained:  # the views are larger: looked into only when needed
                    unexplained -= _changed([view[0]], [twin_view[0]])
                assert not unexplained, (
                    f"events to seat {viewer} carry a secret of seat {secret_owner}: {sorted(map(str, unexplained))[:6]}"
                )
        if drew_otherwise:
            step = (seat, move, after, events)
            counts.kept_decks += _check_deck_keeping_twin(game, state, options, secret_owner, step, rng, salt, (before, seen))


def _check_deck_keeping_twin(
    game: Game[Any, Any, Any],
    state: Any,
    options: Any,
    owner: int,
    step: tuple[int, Any, Any, list[Any]],
    rng: Rng,
    salt: int,
    shown: tuple[dict[int | None, bytes], dict[int | None, Any]],
) -> bool:
    """Where the game's own twin showed somebody other cards after the step (drawn from a deck
    it had shuffled otherwise), the difference let a secret copied into a public event pass. A
    twin that changes only ``owner``'s secrets and keeps every card the step draws where it was
    (tests/deck_keeping_twins.py) leaves nothing to excuse: every other seat and spectators
    receive the same view and events, byte for byte, unless the rules show them something of
    the changed secrets (revealing events that show them different things, or the end of the
    game), where what follows from it may differ and the game's own twin's check stands alone.
    ``step`` is (seat, move, the state after it, its events); ``shown`` what every viewer saw
    before it and is shown after it. True when some viewer's bytes were compared."""
    seat, move, after, events = step
    before, seen = shown
    kind = game.info.kind
    keeping = deck_keeping_twin(kind, state, owner, (seat, move), Rng(b"deck-keeping twin", salt * 8 + owner))
    if keeping is None or game.is_over(after) or not keeping.drew_alike(after):
        return False
    if game.dump_state(keeping.state) == game.dump_state(state):
        return False  # no secret of the seat to change
    twin_after, twin_events = game.apply(keeping.state, seat, move, _copy(rng))
    revealing = [e for e in events if reveals_by_rules(kind, e)], [e for e in twin_events if reveals_by_rules(kind, e)]
    compared = False
    for viewer in _viewers(game, options):
        if viewer == owner:
            continue
        assert before[viewer] == _view_bytes(game, keeping.state, viewer), (
            f"seat {viewer} sees a secret of seat {owner} (deck-keeping twin)"
        )
        if _events_bytes(game, revealing[0], viewer) != _events_bytes(game, revealing[1], viewer):
            continue  # the rules show this viewer the secrets changed
        view, mine = seen[viewer]
        twin_view, theirs = _seen(game, twin_after, twin_events, viewer)
        assert [e for _, e in mine] == [e for _, e in theirs], (
            f"events to seat {viewer} carry a secret of seat {owner} at a step that draws the same cards in a "
            f"deck-keeping twin: {sorted(map(str, _changed([m for m, _ in mine], [m for m, _ in theirs])))[:6]}"
        )
        assert view[1] == twin_view[1], (
            f"the view of seat {viewer} shows a secret of seat {owner} after a step that draws the same cards in a deck-keeping twin"
        )
        compared = True
    return compared


def _seen(
    game: Game[Any, Any, Any], after: Any, events: list[Any], viewer: int | None
) -> tuple[tuple[game_pb2.GameView, bytes], list[tuple[game_pb2.Event, bytes]]]:
    """``viewer``'s view of ``after`` and the events it is shown, each as a message and its bytes."""
    view = _view(game, after, viewer)
    shown = _events_shown(game, events, viewer)
    return (view, view.SerializeToString(deterministic=True)), [(e, e.SerializeToString(deterministic=True)) for e in shown]


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


def _play(game: Game[Any, Any, Any], options: Any, seed: bytes, leak: bool) -> _LeakCounts:
    """One random game to the end with every check (and the leak test's when ``leak``); how
    often the leak test's twins differed."""
    rng = Rng(seed)
    chooser = Rng(b"choose:" + seed)
    state = game.setup(options, rng)
    log: list[tuple[int, Any]] = []
    digests = [state_digest(game, state)]
    pool: list[Any] = []
    viewers = _viewers(game, options)
    counts = _LeakCounts()
    for step in range(STEP_LIMIT):
        if game.is_over(state):
            break
        _check_step(game, state, options, rng, chooser, pool)
        seat = chooser.choice(sorted(game.to_act(state)))
        move = chooser.choice(game.legal_moves(state, seat))
        if leak:
            _check_leaks(game, state, options, seat, move, rng, step, counts)
            _check_secret_move(game, state, options, seat, move, rng, chooser)
        state, events = game.apply(state, seat, move, rng)
        for viewer in viewers:
            _events_bytes(game, events, viewer)
        log.append((seat, move))
        digests.append(state_digest(game, state))
    else:
        pytest.fail("the game did not end")
    assert counts.differing or not leak, "secret_twin never produced a different state"
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
    return counts


@pytest.mark.parametrize(("kind", "label", "options"), _cases())
def test_random_games_to_the_end(kind: str, label: str, options: Any) -> None:
    game = GAMES[kind]
    for number in range(GAMES_PER_SET_BY_KIND.get(kind, GAMES_PER_OPTION_SET)):
        _play(game, options, f"{kind}:{label}:{options!r}:{number}".encode(), leak=False)


@pytest.mark.parametrize(("kind", "label", "options"), _cases())
def test_leaks_in_random_games(kind: str, label: str, options: Any) -> None:
    game = GAMES[kind]
    kept_decks = 0
    for number in range(LEAK_GAMES_PER_SET_BY_KIND.get(kind, LEAK_GAMES_PER_OPTION_SET)):
        kept_decks += _play(game, options, f"leak:{kind}:{label}:{options!r}:{number}".encode(), leak=True).kept_decks
    assert kept_decks, "no deck-keeping twin was compared after a step that drew other cards for the game's own twin"


def test_every_game_has_a_deck_keeping_twin_and_a_planted_leak() -> None:
    assert set(DECK_KEEPING_KINDS) == set(GAMES) == set(PLANTS)


def _planted_cases() -> list[Any]:
    """The first option set of every player count of every game."""
    cases: dict[tuple[str, int], Any] = {}
    for kind, game in GAMES.items():
        for label, options in game.sample_options():
            players = game.seat_count(options)
            cases.setdefault((kind, players), pytest.param(kind, label, options, id=f"{kind}-{players}p-{label}"))
    return list(cases.values())


@pytest.mark.parametrize(("kind", "label", "options"), _planted_cases())
def test_a_secret_planted_in_a_public_event_at_a_drawing_step_is_caught(kind: str, label: str, options: Any) -> None:
    """The leak test is itself tested: the game with a seat's secret copied into a public event
    wherever a step turns a card up from a deck (tests/planted_leaks.py), a step at which the
    game's own twin shows everybody other cards anyway, fails it within a few random games."""
    leaky = LeakyGame(GAMES[kind], PLANTS[kind])
    with pytest.raises(AssertionError, match="carry a secret of seat"):
        for number in range(PLANTED_GAMES):
            _play(leaky, options, f"planted:{kind}:{label}:{options!r}:{number}".encode(), leak=True)
    assert leaky.planted, "no step drew a card face up while a seat held a secret"


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
# entries with their events as filtered for them, and the same number of steps and versions,
# for as long as the rules keep the choice from them: through steps that reveal other secrets
# (The Spin Doctors reveal a News card at the start of every round), until what a revealing
# event shows them tells the choices apart, or the game ends.

NONINTERFERENCE_STATES = 200  # per game, spread over its option sets and kinds of secret
CHOICES_PER_STATE = 8  # the first two and last two listed, the rest at random
SEARCH_GAMES_PER_SET = 3  # random games per option set in which such states are found
WIDE_STEPS = 6  # steps after the secret one on which every sampled choice is followed
# Beyond those, two of the choices are followed until the rules reveal them (a Programme card
# chosen face down in The Spin Doctors, for some 200 steps), or the game ends: in the first
# state of each kind of secret decision and every DEEP_EVERY-th after it.
DEEP_EVERY = 8
LONG_RUN = (600, 16, 10, 16)  # the slow variant: states, choices per state, games per option set, DEEP_EVERY


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


@dataclass(frozen=True)
class _Received:
    """What GetView and WatchGame send a seat (or spectators) of an active game after one step,
    as GameHost._view builds it, less the fields taken from the stored game (id, kind, options,
    seats, table, seed commitment), which no move changes; and the step's history entry
    (GetHistory, WatchGame) as the service filters it for them."""

    head: bytes  # version, status, to_act, seat
    legal_moves: list[Any]  # as the engine lists them: every move round-trips through the codec
    view: Any  # the game's own view, put on the wire only when it is not equal to another's
    entry: bytes

    def view_bytes(self, game: Game[Any, Any, Any]) -> bytes:
        """The game's part of the view on the wire."""
        own = game_pb2.GameView()
        game.view_to_proto(self.view, own)
        return own.SerializeToString(deterministic=True)


def _received(game: Game[Any, Any, Any], state: Any, step: tuple[int, Any, list[Any]], version: int, viewers: list[int | None]) -> list[_Received]:
    """For each viewer, what it receives of one step, as the service stores the step
    (GameHost._advance) and filters it (visibility.entry_for)."""
    seat, move, events = step
    entry = storage_pb2.LogEntry(version=version, seat=seat, move_public=game.move_is_public(move))
    game.move_to_proto(move, entry.move)
    entry.events.extend(visibility.store_event(game, event, version, seat) for event in events)
    head = game_pb2.GameView(version=version, status=game_pb2.GAME_STATUS_ACTIVE)
    head.to_act.extend(sorted(game.to_act(state)))
    received = []
    for viewer in viewers:
        if viewer is None:
            head.ClearField("seat")
        else:
            head.seat = viewer
        received.append(
            _Received(
                head.SerializeToString(deterministic=True),
                [] if viewer is None else game.legal_moves(state, viewer),
                game.view(state, viewer),
                visibility.entry_for(entry, viewer, reveal_all=False).SerializeToString(deterministic=True),
            )
        )
    return received


def _same_view(game: Game[Any, Any, Any], mine: _Received, theirs: _Received) -> bool:
    """True when the two views are the same on the wire (equal views of the game are, at once)."""
    if mine.head != theirs.head or mine.legal_moves != theirs.legal_moves:
        return False
    return mine.view == theirs.view or mine.view_bytes(game) == theirs.view_bytes(game)


def _revealed_to(game: Game[Any, Any, Any], events: list[Any], viewer: int | None) -> bytes:
    """What the events that the rules mark ``reveals`` show ``viewer``: the only part of a step
    by which branches may become different to it."""
    return b"".join(e.SerializeToString(deterministic=True) for e in _events_shown(game, [e for e in events if e.reveals], viewer))


def _continuations(
    game: Game[Any, Any, Any], states: dict[int, Any], knowing: set[int], pick: Rng
) -> tuple[int, dict[int, Any]] | None:
    """The next step of the live branches (``states``, by branch): a seat owing a decision in all
    of them, and its move in each. A seat whose listed moves are the same in every branch makes
    the same move in all; a seat that knows the secret (its owner, a confidant) whose listed moves
    differ makes the same public move in all, or in each a secret move that leaves the same
    footprint. None when no seat can go on (those that owe a decision are told the branches apart)."""
    branches = sorted(states)
    acting = frozenset.intersection(*(game.to_act(states[b]) for b in branches))
    options: list[tuple[int, list[Any] | list[dict[int, Any]]]] = []  # one move for all, or one per branch
    for seat in sorted(acting):
        listed = {b: game.legal_moves(states[b], seat) for b in branches}
        first = listed[branches[0]]
        if all(listed[b] == first for b in branches):
            options.append((seat, first))
            continue
        if seat not in knowing:
            continue
        public = set.intersection(*({m for m in listed[b] if game.move_is_public(m)} for b in branches))
        alike: dict[Any, dict[int, list[Any]]] = {}
        for b in branches:
            for move in listed[b]:
                if not game.move_is_public(move):
                    footprint = game.secret_footprint(states[b], seat, move)
                    if footprint.confidants <= knowing:
                        alike.setdefault(footprint, {}).setdefault(b, []).append(move)
        moves = [dict.fromkeys(branches, move) for move in first if move in public]
        moves += [{b: found[b][pick.below(len(found[b]))] for b in branches} for found in alike.values() if len(found) == len(branches)]
        if moves:
            options.append((seat, moves))
    if not options:
        return None
    seat, moves = options[pick.below(len(options))]
    move = moves[pick.below(len(moves))]
    return seat, move if isinstance(move, dict) else dict.fromkeys(branches, move)


def _check_secret_choice(game: Game[Any, Any, Any], point: _SecretPoint, number: int, tries: int, deep: bool) -> bool:
    """Non-interference at one point, for ``tries`` of its alike choices, each the first step of a
    branch. The branches go on in lock step (see ``_continuations``) for as long as some seat or
    spectator that is not told the secret cannot tell some of them apart: all of them for
    WIDE_STEPS steps, then (when ``deep``) two of them until the end of the game. At every step,
    branches that a viewer could not tell apart before must give it the same view and history
    entry, unless what the step's revealing events show it differs (then it tells those apart
    from then on), and the rules must reveal at the same step in all of them. True when some step
    compared two branches."""
    footprint = game.secret_footprint(point.state, point.seat, point.choices[0])
    knowing = {point.seat, *footprint.confidants}
    viewers = [v for v in _viewers(game, point.options) if v not in knowing]
    choices = _sample(point.choices, tries, Rng(b"choices", number))
    pick = Rng(b"continue", number)
    states = dict(enumerate([point.state] * len(choices)))
    rngs = [_copy(point.rng) for _ in choices]
    # For each viewer, the classes of branches it has not told apart: all alike at first.
    alike: dict[int | None, list[list[int]]] = {viewer: [list(states)] for viewer in viewers}
    seat, moves = point.seat, dict(enumerate(choices))
    compared = False
    for step in range(STEP_LIMIT):  # the game ends sooner
        where = f"{step} step(s) after the choice ({point.label}, state {number})"
        steps = {b: game.apply(states[b], seat, moves[b], rngs[b]) for b in states}
        states = {b: state for b, (state, _) in steps.items()}
        # Each viewer's classes, split by what the step's revealing events show it.
        split: dict[int | None, list[list[int]]] = {}
        for viewer, classes in alike.items():
            split[viewer] = []
            for group in classes:
                revealed = {b: any(e.reveals for e in steps[b][1]) for b in group}
                assert len(set(revealed.values())) == 1, f"{choices[group[0]]} and {choices[next(b for b in group if revealed[b] != revealed[group[0]])]} of seat {point.seat} are revealed at different steps ({where})"
                shown: dict[bytes, list[int]] = {}
                for b in group:
                    shown.setdefault(_revealed_to(game, steps[b][1], viewer) if revealed[b] else b"", []).append(b)
                split[viewer] += [same for same in shown.values() if len(same) > 1]
        alike = {viewer: classes for viewer, classes in split.items() if classes}
        over = {b: game.is_over(state) for b, state in states.items()}
        if any(over.values()):  # the end reveals everything, at the same step in branches alike
            for classes in alike.values():
                for group in classes:
                    other = next((b for b in group if over[b] != over[group[0]]), None)
                    assert other is None, f"{choices[group[0]]} and {choices[other]} of seat {point.seat} end the game at different steps ({where})"
            return compared
        watching = list(alike)
        needed = sorted({b for classes in alike.values() for group in classes for b in group})
        received = {b: dict(zip(watching, _received(game, states[b], (seat, moves[b], steps[b][1]), step + 2, watching))) for b in needed}
        for viewer, classes in alike.items():
            who = "spectators" if viewer is None else f"seat {viewer}"
            for same in classes:
                mine = received[same[0]][viewer]
                for b in same[1:]:
                    assert _same_view(game, mine, received[b][viewer]), f"{who} can tell {choices[same[0]]} from {choices[b]} of seat {point.seat} by the view {where}"
                    assert mine.entry == received[b][viewer].entry, f"{who} can tell {choices[same[0]]} from {choices[b]} of seat {point.seat} by the history {where}"
                compared = True
        if step == WIDE_STEPS:
            if not deep:
                return compared
            # Two branches still alike to some viewer go on; the others stop here.
            pair = set(next((group[:2] for classes in alike.values() for group in classes), []))
            alike = {viewer: [sorted(pair)] if any(pair <= set(group) for group in classes) else [] for viewer, classes in alike.items()}
        live = {b for classes in alike.values() for group in classes for b in group}
        if not live:
            return compared  # every branch is told apart from every other: nothing is secret now
        states = {b: states[b] for b in sorted(live)}
        following = _continuations(game, states, knowing, pick)
        if following is None:
            return compared
        seat, moves = following
    return compared


def _check_non_interference(kind: str, states: int, tries: int, search_games: int, deep_every: int, salt: str) -> None:
    """Non-interference in ``states`` states of random games of ``kind`` (over every option set
    and every kind of secret decision in turn), ``tries`` alike choices in each, the first state of
    each kind of decision and every ``deep_every``-th after it followed until the rules reveal the
    choice."""
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
    checked: dict[str, int] = {}
    tried: Counter[str] = Counter()
    for number, point in enumerate(order):
        if sum(checked.values()) >= states:
            break
        decision = point.label.rsplit(":", 1)[1]
        tried[decision] += 1
        if _check_secret_choice(game, point, number, tries, deep=(tried[decision] - 1) % deep_every == 0):
            checked[decision] = checked.get(decision, 0) + 1
    assert sum(checked.values()) >= states, f"only {checked} states could be checked"


@pytest.mark.parametrize("kind", sorted(GAMES))
def test_secret_choices_leave_no_trace(kind: str) -> None:
    _check_non_interference(kind, NONINTERFERENCE_STATES, CHOICES_PER_STATE, SEARCH_GAMES_PER_SET, DEEP_EVERY, "secret")


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(GAMES))
def test_secret_choices_leave_no_trace_in_more_states(kind: str) -> None:
    _check_non_interference(kind, *LONG_RUN, "secret-long")
