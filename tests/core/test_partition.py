"""Partition invariants for every size, world size, layout and tail mode."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairshard import ConfigError, Partition

from ..strategies import layouts, sizes, tails, world_sizes


def shares(p: Partition) -> list[np.ndarray]:
    return [p.positions(r, 0, p.num_items(r)) for r in range(p.world_size)]


@given(total=sizes, world=world_sizes, layout=layouts, tail=tails)
def test_partition_invariants(total: int, world: int, layout: str, tail: str) -> None:
    p = Partition(total, world, layout, tail)  # type: ignore[arg-type]
    parts = shares(p)
    lengths = [len(s) for s in parts]
    allpos = np.concatenate(parts) if parts else np.empty(0, np.int64)
    assert all(((s >= 0) & (s < max(total, 1))).all() for s in parts)
    unique = np.unique(allpos)
    if tail == "uneven":
        assert max(lengths) - min(lengths) <= 1
        assert allpos.size == total and unique.size == total
    elif tail == "drop":
        assert len(set(lengths)) == 1
        assert unique.size == allpos.size  # no duplicates at all
        assert total - unique.size == p.num_dropped() <= world - 1
    else:
        assert len(set(lengths)) == 1
        assert unique.size == total  # covers everything
        assert allpos.size - total == p.num_padded() <= world - 1 or total == 0
    for r in range(world):
        assert p.num_items(r) == lengths[r]


@given(total=sizes, world=world_sizes, tail=tails, data=st.data())
def test_strided_steps_consume_a_prefix(
    total: int, world: int, tail: str, data: st.DataObject
) -> None:
    p = Partition(total, world, "strided", tail)  # type: ignore[arg-type]
    steps = data.draw(st.integers(0, p.num_items(world - 1)))
    taken = np.concatenate([p.positions(r, 0, min(steps, p.num_items(r))) for r in range(world)])
    taken = np.unique(taken[taken < total])
    assert taken.tolist() == list(range(p.consumed_after(steps)))


@given(total=st.integers(0, 5000), world=world_sizes, data=st.data())
def test_blocked_uneven_concatenation_is_order(total: int, world: int, data: st.DataObject) -> None:
    p = Partition(total, world, "blocked", "uneven")
    assert np.concatenate(shares(p)).tolist() == list(range(total))


def test_pad_matches_pytorch_wrap() -> None:
    p = Partition(3, 8, "strided", "pad")
    assert [p.positions(r, 0, 1).tolist() for r in range(8)] == [
        [0],
        [1],
        [2],
        [0],
        [1],
        [2],
        [0],
        [1],
    ]


def test_start_offsets_the_remainder() -> None:
    p = Partition(10, 3, "strided", "pad", start=6)
    assert [p.positions(r, 0, p.num_items(r)).tolist() for r in range(3)] == [
        [6, 9],
        [7, 6],
        [8, 7],
    ]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"total": -1, "world_size": 2}, "total must be >= 0"),
        ({"total": 5, "world_size": 0}, "world_size must be >= 1, got world_size=0"),
        ({"total": 5, "world_size": 2, "layout": "diagonal"}, "layout must be one of"),
        ({"total": 5, "world_size": 2, "tail": "wrap"}, "tail must be one of"),
        ({"total": 5, "world_size": 2, "start": 6}, "start must be between 0 and 5"),
    ],
)
def test_partition_rejects_bad_values(kwargs: dict, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        Partition(**kwargs)
