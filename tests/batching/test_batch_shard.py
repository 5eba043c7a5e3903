import itertools
import random
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from torch.utils.data import BatchSampler, RandomSampler

from fairshard import ConfigError, ConfigTypeError, DegenerateConfigWarning
from fairshard._batching.batch_shard import BatchShardSampler

from ..contract import SamplerContract


def _inner(n: int, batch_size: int = 4) -> BatchSampler:
    return BatchSampler(RandomSampler(range(n)), batch_size, drop_last=False)  # global torch RNG


class TestBatchShardEven(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> BatchShardSampler:
        return BatchShardSampler(_inner(96), num_replicas=world_size, rank=rank, **kw)  # 24 batches


@pytest.mark.filterwarnings("ignore:BatchShardSampler.*split evenly")
class TestBatchShardPadded(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> BatchShardSampler:
        return BatchShardSampler(_inner(50), num_replicas=world_size, rank=rank, seed=3, **kw)


@pytest.mark.filterwarnings("ignore:BatchShardSampler.*split evenly")
class TestBatchShardDropped(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> BatchShardSampler:
        return BatchShardSampler(_inner(50), num_replicas=world_size, rank=rank, tail="drop", **kw)


class EpochAware:
    """A batch sampler with set_epoch and the global numpy RNG."""

    def __init__(self, n: int) -> None:
        self.n, self.epochs = n, []  # type: ignore[var-annotated]

    def set_epoch(self, epoch: int) -> None:
        self.epochs.append(epoch)

    def __iter__(self) -> Iterator[list[int]]:
        order = np.random.permutation(self.n)
        for i in range(0, self.n, 3):
            yield order[i : i + 3].tolist()


def test_global_rng_inner_agrees_across_ranks_and_state_is_restored() -> None:
    torch.manual_seed(123)
    random.seed(1)
    np.random.seed(2)
    before = (torch.random.get_rng_state(), random.getstate(), np.random.get_state()[1].copy())
    shares = []
    for r in range(3):
        torch.manual_seed(r)  # every "process" has its own global RNG state
        np.random.seed(r)
        shares.append(list(BatchShardSampler(EpochAware(36), num_replicas=3, rank=r)))
    merged = sorted(i for share in shares for b in share for i in b)
    assert merged == list(range(36))  # disjoint and complete: ranks agreed on the batches
    torch.manual_seed(123)
    random.seed(1)
    np.random.seed(2)
    list(BatchShardSampler(_inner(40), num_replicas=2, rank=0))
    after = (torch.random.get_rng_state(), random.getstate(), np.random.get_state()[1])
    assert torch.equal(before[0], after[0]) and before[1] == after[1]
    assert np.array_equal(before[2], after[2])


def test_set_epoch_is_forwarded() -> None:
    inner = EpochAware(12)
    s = BatchShardSampler(inner, num_replicas=2, rank=0)
    s.set_epoch(4)
    list(s)
    assert inner.epochs == [4]


def test_pads_or_drops_and_says_which_once() -> None:
    s = BatchShardSampler(_inner(50), num_replicas=4, rank=0)  # 13 batches
    with pytest.warns(DegenerateConfigWarning, match="pads: the last step recycles 3 whole"):
        assert len(s) == 4
    assert s.num_padded_batches == 3 and s.num_dropped_batches == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s.set_epoch(1)
        assert len(s) == 4  # new epoch plan, warned once already
    d = BatchShardSampler(_inner(50), num_replicas=4, rank=3, tail="drop")
    with pytest.warns(DegenerateConfigWarning, match="drops the last 1 batch"):
        assert len(d) == 3 == len(list(d))
    assert d.num_dropped_batches == 1 and d.num_padded_batches == 0


@given(
    sizes=st.lists(st.integers(1, 5), min_size=1, max_size=40),
    world=st.integers(1, 6),
    tail=st.sampled_from(["pad", "drop"]),
)
def test_equal_steps_for_any_batch_list(sizes: list[int], world: int, tail: Any) -> None:
    bounds = np.cumsum([0, *sizes])
    batches = [list(range(a, b)) for a, b in itertools.pairwise(bounds.tolist())]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateConfigWarning)
        ranks = [
            BatchShardSampler(batches, num_replicas=world, rank=r, tail=tail) for r in range(world)
        ]
        if tail == "drop" and 0 < len(batches) < world:  # every rank would get 0 steps
            with pytest.raises(ConfigError, match="gives every rank 0 steps"):
                list(ranks[0])
            return
        shares = [list(s) for s in ranks]
        assert [len(s) for s in ranks] == [len(x) for x in shares]
    assert len({len(x) for x in shares}) == 1
    taken = [tuple(b) for x in shares for b in x]
    if tail == "drop":
        assert len(set(taken)) == len(taken) == (len(batches) // world) * world
    else:
        assert {tuple(b) for b in batches} == set(taken)


def test_bad_inputs() -> None:
    with pytest.raises(ConfigTypeError, match="batch_sampler must be an iterable of batches"):
        BatchShardSampler(5, num_replicas=1, rank=0)  # type: ignore[arg-type]
    with pytest.raises(ConfigTypeError, match="batch_sampler is an iterator"):
        BatchShardSampler(iter([[1]]), num_replicas=1, rank=0)
    with pytest.raises(ConfigTypeError, match=r"yielded \['a'\] as batch 1"):
        list(BatchShardSampler([[0], ["a"]], num_replicas=1, rank=0))
    with pytest.raises(ConfigError, match="empty batch at position 0"):
        list(BatchShardSampler([[]], num_replicas=1, rank=0))
    with pytest.warns(DegenerateConfigWarning, match="yielded no batch"):
        assert len(BatchShardSampler([], num_replicas=2, rank=0)) == 0


def test_negative_indices_in_an_inner_batch_are_refused() -> None:
    sampler = BatchShardSampler([[-1, 2]], num_replicas=1, rank=0)
    with pytest.raises(ConfigError, match="negative index -1 in batch 0"):
        list(sampler)


def test_a_negative_index_names_its_batch_across_chunks() -> None:
    many = [[i, i + 1] for i in range(0, 20_000, 2)]  # 20,000 indices: several chunks
    for at in (0, 4095, 9999):
        batches = [*many[:at], [3, -5, -6], *many[at:]]
        with pytest.raises(ConfigError, match=f"negative index -5 in batch {at};"):
            BatchShardSampler(batches, num_replicas=1, rank=0).plan(0)
    big = [list(range(10_000))] * 3  # each batch larger than a chunk
    assert BatchShardSampler(big, num_replicas=1, rank=0).plan(0).flat.tolist() == big[0] * 3
    with pytest.raises(ConfigError, match="negative index -1 in batch 3;"):
        BatchShardSampler([*big, [-1]], num_replicas=1, rank=0).plan(0)


class _FailsAfter:
    """Yields ``batches``, then raises ``error`` (the inner sampler's own failure)."""

    def __init__(self, batches: list[Any], error: Exception) -> None:
        self.batches, self.error = batches, error

    def __iter__(self) -> Iterator[Any]:
        yield from self.batches
        raise self.error


def test_an_earlier_negative_index_is_reported_before_a_later_error() -> None:
    first = [[0, 1], [2, -1], [3]]
    for later in ([[]], [["a"]], [[1.5]]):
        with pytest.raises(ConfigError, match="negative index -1 in batch 1;"):
            BatchShardSampler(first + later, num_replicas=1, rank=0).plan(0)
    inner = _FailsAfter(first, RuntimeError("inner sampler broke"))
    with pytest.raises(ConfigError, match="negative index -1 in batch 1;"):
        BatchShardSampler(inner, num_replicas=1, rank=0).plan(0)
    with pytest.raises(RuntimeError, match="inner sampler broke"):
        BatchShardSampler(
            _FailsAfter([[0, 1]], RuntimeError("inner sampler broke")), num_replicas=1, rank=0
        ).plan(0)


def test_batches_are_copied_as_they_come() -> None:
    class Reusing:
        """Yields one array, refilled for every batch (as a buffer-reusing sampler may)."""

        def __iter__(self) -> Iterator[np.ndarray]:
            buffer = np.zeros(3, dtype=np.int64)
            for start in range(0, 12, 3):
                buffer[:] = np.arange(start, start + 3)
                yield buffer

    plan = BatchShardSampler(Reusing(), num_replicas=1, rank=0).plan(0)
    assert plan.flat.tolist() == list(range(12)) and plan.offsets.tolist() == [0, 3, 6, 9, 12]
