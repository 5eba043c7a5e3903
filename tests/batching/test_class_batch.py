from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairshard import ConfigError, ConfigTypeError
from fairshard._batching.class_batch import ClassBatchSampler

from ..contract import SamplerContract, flat

LABELS = np.random.default_rng(4).integers(0, 6, 600)
NAMES = [["ant", "bee", "cow", "doe", "elk"][i % 5] for i in range(403)]


class TestClassBatchFixedStop(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> ClassBatchSampler:
        return ClassBatchSampler(LABELS, 2, num_replicas=world_size, rank=rank, **kw)


class TestClassBatchPKRecycleStrings(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> ClassBatchSampler:
        return ClassBatchSampler(
            NAMES,
            3,
            classes_per_batch=3,
            policy="recycle",
            num_replicas=world_size,
            rank=rank,
            seed=5,
            **kw,
        )


class TestClassBatchMappingDrop(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> ClassBatchSampler:
        return ClassBatchSampler(
            LABELS,
            {0: 3, 4: 2},
            policy="recycle",
            num_batches=41,
            num_replicas=world_size,
            rank=rank,
            tail="drop",
            **kw,
        )


labels_st = st.lists(st.integers(0, 5), min_size=1, max_size=200)


@given(
    labels=labels_st,
    k=st.integers(1, 4),
    p=st.one_of(st.none(), st.integers(1, 3)),
    policy=st.sampled_from(["stop", "recycle"]),
    world=st.integers(1, 5),
    tail=st.sampled_from(["pad", "drop"]),
    seed=st.integers(0, 1000),
)
def test_exact_composition_no_repeats_len_matches(
    labels: list[int], k: int, p: int | None, policy: Any, world: int, tail: Any, seed: int
) -> None:
    counts = Counter(labels)
    usable = sorted(counts)
    if min(counts.values()) < k or (p is not None and p > len(usable)):
        with pytest.raises(ConfigError):
            ClassBatchSampler(labels, k, classes_per_batch=p, policy=policy, num_replicas=1, rank=0)
        return
    ranks = [
        ClassBatchSampler(
            labels,
            k,
            classes_per_batch=p,
            policy=policy,
            num_replicas=world,
            rank=r,
            seed=seed,
            tail=tail,
        )
        for r in range(world)
    ]
    plan = ranks[0].plan()
    batches = plan.items(np.arange(len(plan)))
    assert batches
    if tail == "drop" and 0 < len(plan) < world:  # every rank would get 0 steps
        with pytest.raises(ConfigError, match="gives every rank 0 steps"):
            len(ranks[0])
        return
    for b in batches:
        mix = Counter(labels[i] for i in b)
        assert set(mix.values()) == {k}
        assert len(mix) == (len(usable) if p is None else p)
        assert len(set(b)) == len(b)  # never one sample twice in a batch
    if policy == "stop":
        items = flat(batches)
        assert len(items) == len(set(items))  # no index repeats within the epoch
        if p is None:
            assert len(batches) == min(c // k for c in counts.values())
    else:
        expected = max(-(-c // k) for c in counts.values()) if p is None else None
        if expected is not None:
            assert len(batches) == expected
    shares = [list(s) for s in ranks]
    assert len({len(s) for s in shares}) == 1
    assert [len(s) for s in ranks] == [len(x) for x in shares]


def test_recycle_uses_every_sample_of_the_largest_class_once() -> None:
    labels = [0] * 10 + [1] * 3
    s = ClassBatchSampler(labels, 2, policy="recycle", num_replicas=1, rank=0)
    batches = list(s)
    assert len(batches) == 5
    big = [i for b in batches for i in b if labels[i] == 0]
    assert sorted(big) == list(range(10))


def test_num_batches_and_pk_defaults() -> None:
    s = ClassBatchSampler(
        LABELS, 2, classes_per_batch=3, policy="recycle", num_batches=7, num_replicas=1, rank=0
    )
    assert len(s) == 7 == len(list(s))
    d = ClassBatchSampler(LABELS, 2, classes_per_batch=3, policy="recycle", num_replicas=1, rank=0)
    assert len(d) == -(-LABELS.size // 6)


def test_pk_stop_uses_most_of_the_data() -> None:
    s = ClassBatchSampler(LABELS, 4, classes_per_batch=2, num_replicas=1, rank=0)
    used = len(flat(s))
    assert used >= LABELS.size - 6 * 4 * 2


def test_tensor_and_string_labels() -> None:
    import torch

    s = ClassBatchSampler(torch.tensor(LABELS), 1, num_replicas=2, rank=0, seed=3)
    t = ClassBatchSampler(LABELS.tolist(), 1, num_replicas=2, rank=0, seed=3)
    assert list(s) == list(t)
    u = ClassBatchSampler(np.array(NAMES), {"ant": 2, "elk": 1}, num_replicas=1, rank=0)
    assert all(sorted(NAMES[i] for i in b) == ["ant", "ant", "elk"] for b in u)


@pytest.mark.parametrize(
    ("labels", "spc", "kwargs", "error", "match"),
    [
        (
            [0, 0, 1],
            2,
            {},
            ConfigError,
            r"class 1 has 1 sample\(s\) but samples_per_class asks for 2 per batch",
        ),
        (["a", "a", "b"], {"b": 3}, {}, ConfigError, r"class 'b' has 1 sample\(s\).*asks for 3"),
        ([0, 1], {7: 1}, {}, ConfigError, "samples_per_class names class 7, which no label has"),
        ([0, 1], {0: 0}, {}, ConfigError, r"samples_per_class\[0\] must be >= 1"),
        ([0, 1], {}, {}, ConfigError, "empty mapping"),
        ([0, 1], 0, {}, ConfigError, "samples_per_class must be >= 1"),
        ([0, 1], 1.5, {}, ConfigTypeError, "samples_per_class must be an int"),
        (
            [0, 1],
            1,
            {"classes_per_batch": 3},
            ConfigError,
            "classes_per_batch must be between 1 and 2",
        ),
        ([0, 1], 1, {"policy": "cycle"}, ConfigError, "policy must be one of"),
        ([0, 1], 1, {"num_batches": 5}, ConfigError, "num_batches=5 sets the epoch length"),
        (
            [0, 1],
            1,
            {"policy": "recycle", "num_batches": 0},
            ConfigError,
            "num_batches must be >= 1",
        ),
        (
            [0.5, 1.0],
            1,
            {},
            ConfigTypeError,
            r"labels must be all ints or all strings, got labels\[0\]=0.5 \(float\)",
        ),
        (
            np.array([0.5, 1.0]),
            1,
            {},
            ConfigTypeError,
            "labels must hold ints or strings, got dtype",
        ),
        ([0, "a"], 1, {}, ConfigTypeError, r"labels must be all ints or all strings.*labels\[1\]"),
        ([True, False], 1, {}, ConfigTypeError, "labels must be all ints or all strings"),
        ([[0, 1]], 1, {}, ConfigError, r"labels must be 1-D.*shape \(1, 2\)"),
        ([], 1, {}, ConfigError, "labels is empty"),
        ("abc", 1, {}, ConfigTypeError, "labels must be a 1-D sequence"),
    ],
)
def test_bad_inputs(labels: Any, spc: Any, kwargs: dict[str, Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        ClassBatchSampler(labels, spc, num_replicas=1, rank=0, **kwargs)


# ------------------------------------------------------- the tutorials' recipe
TAIL = np.repeat([0, 1, 2], [600, 70, 90])


def test_fixed_class_recipe_12_2_2_on_two_ranks() -> None:
    """12 of class 0, 2 of class 1, 2 of class 2 per batch of 16: exact, disjoint, len() exact."""
    shares = []
    for rank in range(2):
        s = ClassBatchSampler(TAIL, {0: 12, 1: 2, 2: 2}, batch_size=16, num_replicas=2, rank=rank)
        assert s.batch_size == 16
        batches = list(s)
        assert len(batches) == len(s) == 18  # 70 // 2 = 35 batches: ceil(35 / 2), 1 padded
        for batch in batches:
            assert len(batch) == 16
            assert np.bincount(TAIL[batch], minlength=3).tolist() == [12, 2, 2]
        shares.append(batches)
    every = [i for share in shares for batch in share for i in batch]
    assert len(every) - len(set(every)) == 16  # the one declared padded batch


@pytest.mark.parametrize(
    ("spc", "kwargs", "size"),
    [
        ({0: 12, 1: 2, 2: 2}, {"batch_size": 16}, 16),
        (4, {"batch_size": 12}, 12),
        (4, {"classes_per_batch": 2, "batch_size": 8}, 8),
        ({0: 3, 1: 2}, {"classes_per_batch": 2, "batch_size": 5}, 5),
        ({0: 3, 1: 2, 2: 2}, {"classes_per_batch": 2}, None),  # sizes vary: no batch_size
    ],
)
def test_batch_size_that_adds_up_is_accepted(spc: Any, kwargs: dict[str, Any], size: Any) -> None:
    assert ClassBatchSampler(TAIL, spc, num_replicas=1, rank=0, **kwargs).batch_size == size


@pytest.mark.parametrize(
    ("spc", "kwargs", "match"),
    [
        (
            {0: 12, 1: 2, 2: 2},
            {"batch_size": 32},
            r"batch_size=32 but samples_per_class gives 16 per batch "
            r"\(12 \(0\) \+ 2 \(1\) \+ 2 \(2\)\); make the per-class counts add up",
        ),
        (
            4,
            {"batch_size": 8},
            r"gives 12 per batch .*pass classes_per_batch=2, or drop batch_size",
        ),
        (
            {0: 3, 1: 2, 2: 2},
            {"classes_per_batch": 2, "batch_size": 5},
            r"batch_size=5 but with classes_per_batch=2 .* varies with the classes drawn",
        ),
        ({0: 12}, {"batch_size": 0}, r"batch_size must be >= 1, got batch_size=0"),
        ({0: 12}, {"batch_size": 12.0}, r"batch_size must be an int"),
    ],
)
def test_batch_size_that_does_not_add_up_is_an_error(
    spc: Any, kwargs: dict[str, Any], match: str
) -> None:
    with pytest.raises((ConfigError, ConfigTypeError), match=match):
        ClassBatchSampler(TAIL, spc, num_replicas=1, rank=0, **kwargs)


@pytest.mark.parametrize(
    ("counts", "match"),
    [
        ({0: 12, 1: 2, 2: 2}, r"ClassBatchSampler\(labels, \{0: 12, 1: 2, 2: 2\}, batch_size=16\)"),
        (4, r"batch_size=16\) .* or ClassBatchSampler\(labels, 4, classes_per_batch=16\)"),
    ],
)
def test_a_third_positional_argument_shows_the_call_with_names(counts: Any, match: str) -> None:
    labels = np.arange(300) % 3
    with pytest.raises(ConfigTypeError, match=match):
        ClassBatchSampler(labels, counts, 16)  # type: ignore[misc]  # what a recipe reader types
    assert len(list(ClassBatchSampler(labels, {0: 12, 1: 2, 2: 2}, batch_size=16))) > 0
