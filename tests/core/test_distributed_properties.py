"""Property tests of DistributedSampler over sizes, world sizes, tails, layouts, shuffle."""

from __future__ import annotations

import warnings
from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairshard import ConfigError, DegenerateConfigWarning, DistributedSampler

from ..strategies import epochs, layouts, seeds, sizes, tails, world_sizes


def build(n: int, world: int, rank: int, **kw: object) -> DistributedSampler:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateConfigWarning)  # n == 0 warns; tested below
        return DistributedSampler(n, world, rank, **kw)  # type: ignore[arg-type]


@given(
    n=sizes,
    world=world_sizes,
    layout=layouts,
    tail=tails,
    shuffle=st.booleans(),
    seed=seeds,
    epoch=epochs,
)
def test_shares_are_equal_disjoint_and_cover(
    n: int, world: int, layout: str, tail: str, shuffle: bool, seed: int, epoch: int
) -> None:
    if tail == "drop" and 0 < n < world:
        with pytest.raises(ConfigError, match="gives every rank 0 samples"):
            build(n, world, 0, layout=layout, tail=tail, shuffle=shuffle, seed=seed)
        return
    samplers = [
        build(n, world, r, layout=layout, tail=tail, shuffle=shuffle, seed=seed)
        for r in range(world)
    ]
    items = []
    for s in samplers:
        s.set_epoch(epoch)
        share = list(s)
        assert len(share) == len(s)  # exact len()
        items.append(share)
    lengths = [len(x) for x in items]
    counts = Counter(i for share in items for i in share)
    assert all(0 <= i < n for i in counts)
    padded = samplers[0].partition().num_padded()
    if tail == "uneven":
        assert max(lengths) - min(lengths) <= 1
        assert sorted(counts) == list(range(n)) and set(counts.values()) <= {1}
    elif tail == "drop":
        assert len(set(lengths)) == 1
        assert set(counts.values()) <= {1} and n - len(counts) <= world - 1
    else:
        assert len(set(lengths)) == 1
        assert sorted(counts) == list(range(n))
        assert sum(counts.values()) - n == padded  # duplicates only from declared padding


@given(n=st.integers(0, 20_000), seed=seeds, epoch=epochs, shuffle=st.booleans())
def test_order_is_a_bijection_and_deterministic(
    n: int, seed: int, epoch: int, shuffle: bool
) -> None:
    a, b = build(n, 1, 0, seed=seed, shuffle=shuffle), build(n, 1, 0, seed=seed, shuffle=shuffle)
    a.set_epoch(epoch)
    b.set_epoch(epoch)
    order = list(a)
    assert sorted(order) == list(range(n))
    assert order == list(b)


@given(n=st.integers(50, 100_000), seed=seeds, epoch=st.integers(0, 10_000))
def test_different_epochs_give_different_orders(n: int, seed: int, epoch: int) -> None:
    s = build(n, 1, 0, seed=seed)
    s.set_epoch(epoch)
    first = np.array(list(s))
    s.set_epoch(epoch + 1)
    second = np.array(list(s))
    assert (first != second).mean() > 0.5


def test_seed_and_epoch_do_not_alias() -> None:
    """Unlike ``seed + epoch``: seed 0 at epoch 1 is not seed 1 at epoch 0."""
    a, b = build(1000, 1, 0, seed=0), build(1000, 1, 0, seed=1)
    a.set_epoch(1)
    assert list(a) != list(b)


def test_empty_dataset_warns() -> None:
    with pytest.warns(DegenerateConfigWarning, match="empty"):
        s = DistributedSampler(0, 2, 0)
    assert list(s) == [] and len(s) == 0


def test_pytorch_attributes() -> None:
    s = DistributedSampler(1003, 4, 3, drop_last=True)
    assert (s.num_samples, s.total_size, s.num_replicas, s.rank, s.drop_last) == (
        250,
        1000,
        4,
        3,
        True,
    )
