"""A Wahlspiel ballot on a matter of opinion is a show of hands: "the majority of the other
players decides" (the rulebook). Every judge gives its verdicts secretly (nobody sees another's
hand before showing their own); when the last verdict is in, every hand is shown at once with the
result, and the table sees them until the next decision. Bots judge from their seat's view."""

from __future__ import annotations

from dataclasses import replace

import pytest

from hustings.engine import EngineError, Rng
from hustings.engine.base import observe
from hustings.engine.wahlspiel import GAME, WahlspielState
from hustings.engine.wahlspiel.model import BALLOT, BallotDecided, Candidate, CastVoter, Judge, Judged, Verdict
from hustings.ai.levels import decide, make_bot
from hustings.ai.search import Budget
from test_wahlspiel_rules import find, table, votes


def _ballot() -> tuple[WahlspielState, str, str]:
    """Four parties; party 0 casts "radiates authority" on two men: judges 1, 2 and 3."""
    man_a, man_b = find(lambda p: p.sex == "m", 2)
    (woman,) = find(lambda p: p.sex == "f")
    state = table(4, candidates=(Candidate(man_a, 1), Candidate(man_b, 2), Candidate(woman, 3)), hands={0: (("V120", "V001"), ())})
    state, _ = GAME.apply(state, 0, CastVoter("V120"), Rng(b"cast"))
    assert state.step == BALLOT and GAME.to_act(state) == frozenset({1, 2, 3})
    return state, man_a, man_b


def test_the_last_verdict_shows_every_hand_at_once_with_the_result() -> None:
    state, man_a, man_b = _ballot()
    rng = Rng(b"hands")
    given = {1: (True, False), 2: (True, True), 3: (False, False)}
    for judge, (on_a, on_b) in given.items():
        for politician, verdict in ((man_a, on_a), (man_b, on_b)):
            last = judge == 3 and politician == man_b
            state, events = GAME.apply(state, judge, Judge(politician, verdict), rng)
            if last:
                break
            (event,) = events
            assert event.for_seat(judge) == Judged(judge, politician, verdict)
            for other in (0, 1, 2, 3, None):
                if other != judge:  # a hand given, nothing of it shown
                    assert event.for_seat(other) == Judged(judge, "", False) and not event.reveals
            shown = {seat: GAME.view(state, seat).ballot for seat in (0, 1, 2, 3, None)}
            assert all(b is not None and all(v.judge == seat for v in b.verdicts) for seat, b in shown.items())
            # A verdict is given once: a second one on the same candidate is refused, changing nothing.
            with pytest.raises(EngineError) as again:
                GAME.apply(state, judge, Judge(politician, not verdict), rng)
            assert again.value.reason in ("ILLEGAL_MOVE", "NOT_YOUR_TURN")
    hands = [Verdict(j, man_a, a) for j, (a, _) in given.items()] + [Verdict(j, man_b, b) for j, (_, b) in given.items()]
    own, *revealed = [e for e in events if isinstance(e.payload, Judged)]
    assert own.visible_to == frozenset({3}) and own.for_seat(None) == Judged(3, "", False)
    assert [e.for_seat(None) for e in revealed] == [Judged(v.judge, v.politician, v.verdict) for v in hands]
    assert all(e.public and e.reveals for e in revealed)
    assert [e.payload for e in events if isinstance(e.payload, BallotDecided)] == [BallotDecided("V120", (man_a,))]
    assert votes(state)[man_a] == 1 and votes(state)[man_b] == 0  # 2 of 3 for A; 1 of 3 for B
    for seat in (0, 1, 2, 3, None):  # the hands stay shown to all until the next decision
        seen = GAME.view(state, seat).ballot
        assert seen is not None and list(seen.verdicts) == hands
    state, _ = GAME.apply(state, 0, GAME.legal_moves(state, 0)[-1], rng)
    assert GAME.view(state, None).ballot is None


def test_a_bot_judges_from_what_its_seat_sees() -> None:
    state, man_a, _ = _ballot()
    after = {verdict: GAME.apply(state, 1, Judge(man_a, verdict), Rng(b"judge"))[0] for verdict in (True, False)}
    assert observe(GAME, after[True], 2) == observe(GAME, after[False], 2), "judge 2's bot would see judge 1's hand"
    for bot in (make_bot("greedy"), make_bot("strong", Budget(30, 0.5))):
        chosen = {verdict: decide(GAME, after[verdict], 2, bot, Rng(b"bot")) for verdict in (True, False)}
        assert chosen[True] == chosen[False] and isinstance(chosen[True], Judge)


def test_a_snapshot_stored_before_shown_hands_were_kept_loads() -> None:
    state, man_a, man_b = _ballot()
    rng = Rng(b"stored")
    for judge in (1, 2, 3):
        for politician in (man_a, man_b):
            state, _ = GAME.apply(state, judge, Judge(politician, judge != 3), rng)
    assert state.revealed_ballot is not None
    stored = GAME.dump_state(state)
    assert GAME.dump_state(GAME.load_state(stored)) == stored
    assert b'"revealed_ballot":{' in stored
    # Unset, the field is not written: the bytes (and digests) are those written before it existed.
    before = GAME.dump_state(replace(state, revealed_ballot=None))
    assert b"revealed_ballot" not in before
    loaded = GAME.load_state(before)
    assert loaded.revealed_ballot is None and GAME.dump_state(loaded) == before
