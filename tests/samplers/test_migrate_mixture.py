"""A mixture resumed after its sources or weights changed: ``migrate=MixtureChange(...)``.

Each kept source continues its walk exactly where the saved epoch left it
(what it drew before plus what the rest draws is the uninterrupted walk of
its permutations), removed sources are never drawn, appended ones are,
every rank takes equal steps and ``len()`` is exact; a state inside the
migrated epoch resumes exactly without ``migrate``.
"""

from __future__ import annotations

import warnings
from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairshard import (
    ConfigError,
    FairshardWarning,
    MixtureChange,
    MixtureSampler,
    OnlineMixtureSampler,
    Partition,
    StateDictError,
)

from ..contract import quiet as _quiet


def _local(plan: Any, positions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(source, index within the source) of plan positions."""
    source = plan.sources(positions)
    return source, plan.take(positions) - plan.offsets[source]


mixtures = st.integers(2, 4).flatmap(
    lambda s: st.tuples(
        st.lists(st.integers(1, 25), min_size=s, max_size=s),
        st.lists(st.integers(1, 5), min_size=s, max_size=s),
        st.sets(st.integers(0, s - 1), max_size=s - 1).map(sorted),
        st.lists(st.integers(1, 20), max_size=2),
    )
)


@settings(max_examples=40, deadline=None)
@given(
    mix=mixtures,
    stopping=st.sampled_from(["upsample", "first_exhausted", "all_exhausted"]),
    world=st.integers(1, 3),
    new_world=st.integers(1, 4),
    frac=st.floats(0, 1),
)
def test_kept_sources_continue_their_walk_removed_never_drawn_equal_steps(
    mix: tuple[list[int], list[int], list[int], list[int]],
    stopping: str,
    world: int,
    new_world: int,
    frac: float,
) -> None:
    sizes, weights, removed, added = mix
    num = {"num_samples": 2 * sum(sizes)} if stopping == "upsample" else {}
    kw: dict[str, Any] = {"seed": 9, "stopping": stopping, **num}
    old = [
        _quiet(MixtureSampler, sizes, weights, num_replicas=world, rank=r, **kw)
        for r in range(world)
    ]
    steps = int(frac * len(old[0]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FairshardWarning)
        for s in old:
            it = iter(s)
            [next(it) for _ in range(steps)]
    state = old[0].state_dict()
    change = MixtureChange(sizes, removed=removed, appended=len(added))
    keep = [i for i in range(len(sizes)) if i not in removed]
    new_sizes = [sizes[i] for i in keep] + added
    new_weights = [w + 1 for i, w in enumerate(weights) if i not in removed] + [2] * len(added)
    new_kw = {**kw, **({"num_samples": 2 * sum(new_sizes)} if num else {})}
    resumed = [
        _quiet(MixtureSampler, new_sizes, new_weights, num_replicas=new_world, rank=r, **new_kw)
        for r in range(new_world)
    ]
    for s in resumed:
        s.load_state_dict(state, migrate=change)
    epoch = state["epoch"]
    rest = resumed[0].plan(epoch)
    if Partition(len(rest), new_world).max_items == 0:
        assert all(s.epoch == epoch + 1 for s in resumed)
        return
    shares = [_quiet(list, s) for s in resumed]
    assert len({len(x) for x in shares}) == 1  # equal steps
    assert [len(x) for x in shares] == [len(s) for s in resumed]  # len() exact
    got = {int(i) for x in shares for i in x}
    assert got == set(rest.take(np.arange(len(rest))).tolist())  # the rest, whole (pad tail)
    # Each kept source: its draws before the stop plus the rest's are its uninterrupted walk.
    plain = old[0].plan(epoch)  # the old mixture's plan (the walks of the old sources)
    consumed = len(plain) if steps >= len(old[0]) else min(steps * world, len(plain))
    if consumed == 0:  # nothing taken: the epoch is the new mixture's plain one
        fresh = _quiet(MixtureSampler, new_sizes, new_weights, num_replicas=1, rank=0, **new_kw)
        assert rest.take(np.arange(len(rest))).tolist() == list(
            fresh.plan(epoch).take(np.arange(len(rest)))
        )
        return
    before_src, before_local = _local(plain, np.arange(consumed))
    rest_src, rest_local = _local(rest, np.arange(len(rest)))
    for new, was in enumerate(keep):
        drawn = int((before_src == was).sum()) + int((rest_src == new).sum())
        walk = plain.items_of(np.full(drawn, was), np.arange(drawn)) - plain.offsets[was]
        mine = Counter(before_local[before_src == was].tolist())
        mine.update(rest_local[rest_src == new].tolist())
        assert mine == Counter(walk.tolist())
    if stopping != "upsample":  # the first pass of a kept source never repeats an item
        for new, was in enumerate(keep):
            seen = before_local[before_src == was].tolist() + rest_local[rest_src == new].tolist()
            first_pass = seen[: sizes[was]]
            assert len(set(first_pass)) == len(first_pass)


def _saved(weights: Any = (3, 2, 1)) -> dict[str, Any]:
    ranks = [
        MixtureSampler([30, 20, 10], weights, num_replicas=2, rank=r, seed=1) for r in range(2)
    ]
    for s in ranks:
        it = iter(s)
        [next(it) for _ in range(9)]
    return ranks[0].state_dict()


def test_weights_alone_changed_and_a_state_inside_resumes_exactly() -> None:
    state = _saved()
    change = MixtureChange([30, 20, 10])  # the same sources, new weights
    ref = [
        MixtureSampler([30, 20, 10], [1, 1, 1], num_replicas=3, rank=r, seed=1) for r in range(3)
    ]
    for s in ref:
        s.load_state_dict(state, migrate=change)
    its = [iter(s) for s in ref]
    [[next(it) for _ in range(5)] for it in its]
    mid = ref[0].state_dict()
    assert mid["extra"]["migrated"]["consumed"] == [9, 6, 3]  # the draws of each source
    cont = [list(it) for it in its]
    again = [
        MixtureSampler([30, 20, 10], [1, 1, 1], num_replicas=3, rank=r, seed=1) for r in range(3)
    ]
    for s in again:
        s.load_state_dict(mid)
    assert [list(s) for s in again] == cont
    plan = ref[0].plan(0)
    counts = np.bincount(plan.sources(np.arange(len(plan))), minlength=3)
    assert len(plan) == 60 - 18 and abs(counts - 14).max() <= 1  # the new, equal weights


def test_refusals_name_the_fix() -> None:
    state = _saved()
    with pytest.raises(
        StateDictError, match=r"changed size.*migrate=MixtureChange\(\[30, 20, 10\]"
    ):
        MixtureSampler([30, 20, 10, 5], num_replicas=2, rank=0, seed=1).load_state_dict(state)
    grown = MixtureSampler([30, 25, 10], [3, 2, 1], num_replicas=2, rank=0, seed=1)
    with pytest.raises(ConfigError, match=r"source 1 \(old source 1\) had 20 items .*appended=1"):
        grown.load_state_dict(state, migrate=MixtureChange([30, 20, 10]))
    with pytest.raises(ConfigError, match=r"declares old_sizes=\[30, 20, 11\]"):
        grown.load_state_dict(state, migrate=MixtureChange([30, 20, 11], appended=0))
    with pytest.raises(ConfigError, match=r"leads to 4 sources .* has 3"):
        grown.load_state_dict(state, migrate=MixtureChange([30, 20, 10], appended=1))
    with pytest.raises(ConfigError, match=r"migrate must be a fairshard.MixtureChange"):
        from fairshard import DataChange

        grown.load_state_dict(state, migrate=DataChange(60))
    curriculum = _saved(lambda e: [3, 2, 1])
    other = MixtureSampler([30, 20, 10], [1, 1, 1], num_replicas=2, rank=0, seed=1)
    with pytest.raises(ConfigError, match=r"callable epoch -> weights"):
        other.load_state_dict(curriculum, migrate=MixtureChange([30, 20, 10]))
    online = OnlineMixtureSampler([30, 20, 10], num_replicas=2, rank=0, seed=1)
    with pytest.raises(ConfigError, match=r"weights move within an epoch"):
        online.load_state_dict(online.state_dict(), migrate=MixtureChange([30, 20, 10]))
