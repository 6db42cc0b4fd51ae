"""``limits.Tally``: counts by key that know a key counted the most, checked against plain
counting over random sequences of ups and downs."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from hustings.service.limits import Tally

KEYS = st.sampled_from(["a", "b", "c", "d"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.booleans(), KEYS), max_size=60))
def test_a_tally_counts_as_plain_counting_does_and_knows_the_heaviest(steps: list[tuple[bool, str]]) -> None:
    tally, plain = Tally(), {}
    for up, key in steps:
        if up:
            tally.up(key)
            plain[key] = plain.get(key, 0) + 1
        elif plain.get(key):
            tally.down(key)
            plain[key] -= 1
            if not plain[key]:
                del plain[key]
        assert tally.counts == plain
        assert tally.total == sum(plain.values())
        heaviest = tally.heaviest()
        if plain:
            assert heaviest is not None and heaviest[1] == max(plain.values()) == plain[heaviest[0]]
        else:
            assert heaviest is None
