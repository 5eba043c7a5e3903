"""Snapshots keep what repeats between states, and never seal a stale value.

``Sealer`` (what ``state_dict()`` seals with) keeps the config's bytes and
the hash of the state's prefix between calls; every state it seals must be
exactly what ``seal`` makes of the same fields, whatever changed between
calls: values, their types (``1``, ``1.0``, ``True``), the sign of a zero.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import fairshard as fs
from fairshard._core import state as S
from fairshard._distributed.digest import encode, memo_key

# Values that compare equal but encode differently, and their neighbours.
_TRICKY: list[Any] = [0, 0.0, -0.0, False, 1, 1.0, True, None, "1", [1], [1.0], [True], (1,)]
scalars = (
    st.sampled_from(_TRICKY)
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=4)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)
configs = st.dictionaries(st.sampled_from(["n", "a", "b"]), values, max_size=3)
states = st.tuples(
    configs,
    st.integers(0, 2),  # epoch
    st.sampled_from([{}, {"scores": "AAAA"}, {"scores": "AAAB"}, {"x": [1.0, -0.0]}]),
    st.integers(0, 3),  # start
    st.integers(0, 3),  # steps
)


def _plain_seal(config: Any, epoch: int, extra: Any, start: int, steps: int) -> dict[str, Any]:
    return S.seal(
        {
            S.K_KIND: "K",
            S.K_CONFIG: config,
            S.K_SEED: 7,
            S.K_EPOCH: epoch,
            S.K_START: start,
            S.K_STEPS: steps,
            S.K_WORLD: 4,
            S.K_RANK: 1,
            S.K_EXTRA: extra,
        }
    )


@settings(max_examples=150, deadline=None)
@given(st.lists(states, min_size=1, max_size=8))
def test_every_sealed_state_is_what_seal_makes(sequence: list[Any]) -> None:
    sealer = S.Sealer()
    for config, epoch, extra, start, steps in sequence + sequence[::-1]:
        expected = _plain_seal(config, epoch, extra, start, steps)
        kept = encode(extra) if extra else None  # as a family keeping its extra bytes passes them
        got = sealer.seal("K", config, 7, epoch, start, steps, 4, 1, extra, kept)
        assert got == expected or repr(got) == repr(expected)  # NaN != NaN
        assert got[S.K_CHECKSUM] == expected[S.K_CHECKSUM]
        assert list(got) == list(expected)


def test_equal_values_of_other_types_are_sealed_as_themselves() -> None:
    sealer = S.Sealer()
    for a in _TRICKY:
        for b in _TRICKY:
            for config in ({"n": a}, {"n": b}, {"n": [a, b]}, {"n": {"x": b}}):
                got = sealer.seal("K", config, 7, 0, 0, 1, 4, 1, {})
                assert got[S.K_CHECKSUM] == _plain_seal(config, 0, {}, 0, 1)[S.K_CHECKSUM]


@settings(max_examples=300, deadline=None)
@given(values, values)
def test_equal_memo_keys_mean_equal_bytes(a: Any, b: Any) -> None:
    key_a, key_b = memo_key(a), memo_key(b)
    if key_a is not None and key_a == key_b:
        assert encode(a) == encode(b)
    assert memo_key(a) is None or memo_key(a) == memo_key(copy.deepcopy(a)) or a != a


def _resealed(state: dict[str, Any]) -> str:
    """The checksum ``seal`` gives: over every field but the checksum and ``rank``."""
    return str(S.digest({k: v for k, v in state.items() if k not in (S.K_CHECKSUM, S.K_RANK)}))


def test_attribute_changes_reach_the_next_snapshot() -> None:
    labels = np.arange(40) % 4
    sampler = fs.ClassBalancedSampler(
        labels, num_replicas=2, rank=0, targets={0: 0.2, 1: 0.2, 2: 0.2, 3: 0.4}
    )
    first = sampler.state_dict()
    first[S.K_CONFIG]["targets"][0][1] = 99.0  # the caller edits its copy
    again = sampler.state_dict()
    assert again == sampler.state_dict() and again[S.K_CONFIG]["targets"][0][1] != 99.0
    sampler.classes[1] = 1.0  # equal to the old class 1, of another type
    changed = sampler.state_dict()
    assert changed[S.K_CONFIG]["classes"] != again[S.K_CONFIG]["classes"]
    assert changed[S.K_CONFIG]["targets"][1][0] == 1.0
    assert type(changed[S.K_CONFIG]["targets"][1][0]) is float
    for state in (again, changed):
        assert _resealed(state) == state[S.K_CHECKSUM]

    hard = fs.HardExampleSampler(10, num_replicas=2, rank=0)
    seen = set()
    for floor in (0.0, -0.0, 0, False, 0.0):  # equal values that encode differently
        hard.floor = floor
        state = hard.state_dict()
        assert repr(state[S.K_CONFIG]["floor"]) == repr(floor)
        assert _resealed(state) == state[S.K_CHECKSUM]
        seen.add(state[S.K_CHECKSUM])
    assert len(seen) == 4


def test_hard_example_scores_are_sealed_as_they_change() -> None:
    sampler = fs.HardExampleSampler(16, num_replicas=2, rank=0, seed=3)
    first = sampler.state_dict()
    assert sampler.state_dict() == first
    sampler.record(np.arange(8), np.linspace(0.0, 1.0, 8))
    sampler.set_epoch(1)
    second = sampler.state_dict()
    assert second[S.K_EXTRA] != first[S.K_EXTRA]
    assert _resealed(second) == second[S.K_CHECKSUM]
    clone = pickle.loads(pickle.dumps(sampler))  # the kept hash state does not travel
    assert clone.state_dict() == second == copy.deepcopy(sampler).state_dict()
    fresh = fs.HardExampleSampler(16, num_replicas=2, rank=0, seed=3)
    fresh.load_state_dict(second)
    assert fresh.state_dict() == second
