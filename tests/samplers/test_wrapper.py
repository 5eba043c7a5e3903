import os
import random
import re
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
import torch
from torch.utils.data import BatchSampler, RandomSampler, Sampler, WeightedRandomSampler

import fairshard
from fairshard import ConfigError, ConfigTypeError, RankMismatchError
from fairshard._samplers.sharded import ShardedSampler

from .._dist import run_ranks
from ..contract import SamplerContract


class ShuffleSampler(Sampler[int]):
    """Shuffles with the global ``random`` module, as much user code does."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.epochs: list[int] = []

    def set_epoch(self, epoch: int) -> None:
        self.epochs.append(epoch)

    def __iter__(self) -> Iterator[int]:
        order = list(range(self.n))
        random.shuffle(order)
        return iter(order)

    def __len__(self) -> int:
        return self.n


class NumpySampler(ShuffleSampler):
    def __iter__(self) -> Iterator[int]:
        return iter(np.random.permutation(self.n).tolist())


class RankDependentSampler(ShuffleSampler):
    def __iter__(self) -> Iterator[int]:
        order = list(range(self.n))
        random.Random(int(os.environ.get("RANK", "0")) // 2).shuffle(order)
        return iter(order)


class TestWrappedRandomShuffle(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> ShardedSampler:
        return ShardedSampler(ShuffleSampler(203), num_replicas=world_size, rank=rank, **kw)


class TestWrappedTorchWeighted(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> ShardedSampler:
        inner = WeightedRandomSampler([0.1, 2.0, 0.5, 0.0, 1.0] * 20, 150)
        return ShardedSampler(inner, num_replicas=world_size, rank=rank, seed=3, tail="drop", **kw)


class TestWrappedNumpyBlocked(SamplerContract):
    def make(self, rank: int, world_size: int, **kw: Any) -> ShardedSampler:
        return ShardedSampler(
            NumpySampler(101),
            num_replicas=world_size,
            rank=rank,
            layout="blocked",
            tail="uneven",
            **kw,
        )


@pytest.mark.parametrize("inner", [ShuffleSampler(50), NumpySampler(50), RandomSampler(range(50))])
def test_global_rngs_are_seeded_and_restored(inner: Any) -> None:
    random.seed(1)
    np.random.seed(1)
    torch.manual_seed(1)
    expected = (random.random(), np.random.random(), torch.rand(1).item())
    random.seed(1)
    np.random.seed(1)
    torch.manual_seed(1)
    orders = [list(ShardedSampler(inner, num_replicas=1, rank=0, seed=s)) for s in (4, 4, 5)]
    assert (random.random(), np.random.random(), torch.rand(1).item()) == expected
    assert orders[0] == orders[1] != orders[2]
    assert sorted(orders[0]) == list(range(50))


def test_set_epoch_is_forwarded_and_changes_the_order() -> None:
    inner = ShuffleSampler(30)
    s = ShardedSampler(inner, num_replicas=2, rank=0)
    first = list(s)
    s.set_epoch(4)
    assert list(s) != first and inner.epochs == [0, 4]


def test_bad_inner_samplers() -> None:
    with pytest.raises(ConfigTypeError, match="must be iterable and define __len__"):
        ShardedSampler(iter(range(3)), num_replicas=1, rank=0)

    class Liar(ShuffleSampler):
        def __len__(self) -> int:
            return self.n + 1

    with pytest.raises(ConfigError, match="len\\(\\) is 6 but it yielded 5 indices in epoch 0"):
        list(ShardedSampler(Liar(5), num_replicas=1, rank=0))
    with pytest.raises(ConfigTypeError, match="yielded 'a' \\(str\\)"):
        list(ShardedSampler(["a", "b"], num_replicas=1, rank=0))
    with pytest.raises(ConfigTypeError, match="yielded sequences"):
        list(ShardedSampler([[0, 1], [2, 3]], num_replicas=1, rank=0))
    with pytest.raises(ConfigTypeError, match="check must be a bool"):
        ShardedSampler([0], check=1, num_replicas=1, rank=0)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("items", "error", "match"),
    [
        ([1.7, 0.2, 2.9], ConfigTypeError, r"yielded 1\.7 \(float\) at position 0"),
        ([0, 1, True], ConfigTypeError, r"yielded True \(bool\) at position 2"),
        (  # numpy's own repr and type name (np.True_ and bool under numpy 2)
            [0, np.bool_(True)],
            ConfigTypeError,
            rf"yielded {re.escape(repr(np.True_))} \({type(np.True_).__name__}\) at position 1",
        ),
        ([2, 0, "1"], ConfigTypeError, r"yielded '1' \(str\) at position 2"),
        (
            [0, torch.tensor(1.0)],
            ConfigTypeError,
            r"yielded tensor\(1\.\) \(Tensor\) at position 1",
        ),
        ([0, 1, 2**63], ConfigError, r"yielded 9223372036854775808 at position 2, outside"),
        ([0, -1, 2**63], ConfigError, r"yielded -1 at position 1, outside \[0, 2\*\*63\)"),
        ([3, 0, -5], ConfigError, r"yielded -5 at position 2, outside"),
        (
            [np.uint64(2**63), 0],
            ConfigError,
            rf"yielded {re.escape(repr(np.uint64(2**63)))} at position 0",
        ),
    ],
)
def test_inner_items_must_be_ints_in_range(items: list[Any], error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        list(ShardedSampler(items, num_replicas=1, rank=0))


def test_inner_items_of_any_int_type_are_kept_exactly() -> None:
    items = [np.int32(2), 0, torch.tensor(3), np.uint64(1), torch.tensor(4, dtype=torch.int16)]
    s = ShardedSampler(items, num_replicas=1, rank=0, tail="uneven")
    assert list(s) == [2, 0, 3, 1, 4]
    big = np.random.default_rng(0).permutation(200_000).tolist()
    assert list(ShardedSampler(big, num_replicas=1, rank=0)) == big


def test_inner_run_leaves_cuda_generators_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    def reseed(seed: int) -> None:
        raise AssertionError(f"the caller's CUDA generators were reseeded with {seed}")

    torch.manual_seed(123)  # the caller's CPU stream ...
    expected = torch.rand(3)
    torch.manual_seed(123)
    monkeypatch.setattr(torch.cuda, "manual_seed_all", reseed)
    monkeypatch.setattr(torch.cuda, "manual_seed", reseed)
    order = list(ShardedSampler(RandomSampler(range(20)), num_replicas=1, rank=0))
    assert sorted(order) == list(range(20))
    assert torch.equal(torch.rand(3), expected)  # ... is restored afterwards


def _wrapped_on_four_ranks(rank: int, world: int) -> dict[str, Any]:
    random.seed(rank)  # the usual mistake: each rank's global RNG differs
    shares = []
    for epoch in (0, 1):
        s = ShardedSampler(ShuffleSampler(103), check=True, seed=11)
        s.set_epoch(epoch)
        shares.append(list(s))
    try:
        list(ShardedSampler(RankDependentSampler(40), check=True))
        error = ""
    except RankMismatchError as exc:
        error = str(exc)
    return {"shares": shares, "error": error}


@pytest.mark.distributed
def test_four_gloo_ranks_disjoint_covering_and_check() -> None:
    results = run_ranks(_wrapped_on_four_ranks, 4, timeout=180)
    for epoch in (0, 1):
        shares = [r["shares"][epoch] for r in results]
        assert {len(x) for x in shares} == {26}
        flat = [i for x in shares for i in x]
        assert set(flat) == set(range(103)) and len(flat) - 103 == 1  # one declared pad
    assert results[0]["shares"][0] != results[0]["shares"][1]
    for r in results:
        assert "ranks [0, 1]" in r["error"] and "ranks [2, 3]" in r["error"]


def test_bad_item_past_the_first_chunk_is_named_at_its_position() -> None:
    class Inner(torch.utils.data.Sampler[int]):
        def __len__(self) -> int:
            return 70_003

        def __iter__(self) -> Iterator[int]:
            yield from range(70_001)
            yield 1.5  # type: ignore[misc]
            yield 3

    with pytest.raises(fairshard.ConfigTypeError, match="at position 70001"):
        list(fairshard.ShardedSampler(Inner(), num_replicas=2, rank=0))


def test_wrapped_order_is_int32_where_it_fits() -> None:
    inner = torch.utils.data.SequentialSampler(range(1000))
    sampler = fairshard.ShardedSampler(inner, num_replicas=2, rank=0)
    assert sampler.plan().order.dtype == np.int32  # 4 bytes per index
    assert list(sampler) == list(range(0, 1000, 2))


def test_a_wrapped_fairshard_sampler_is_recorded_under_its_defining_module() -> None:
    """States record the inner class by the path they always had, not by its public path.

    Public classes name their public path in ``__module__`` (``fairshard``);
    a state saved before that named the defining module, and must keep loading.
    """
    inner = fairshard.DistributedSampler(20, 1, 0, seed=1)
    wrapped = ShardedSampler(inner, num_replicas=2, rank=0)
    assert wrapped.state_dict()["config"]["sampler"] == (
        "fairshard._samplers.distributed.DistributedSampler"
    )
    batches = fairshard.BatchShardSampler(
        fairshard.ClassBatchSampler(np.arange(20) % 2, 2, num_replicas=1, rank=0),
        num_replicas=2,
        rank=0,
    )
    assert batches.state_dict()["config"]["batch_sampler"] == (
        "fairshard._batching.class_batch.ClassBatchSampler"
    )
    torch_inner = BatchSampler(range(8), 2, False)
    user = fairshard.BatchShardSampler(torch_inner, num_replicas=2, rank=0)
    assert user.state_dict()["config"]["batch_sampler"] == "torch.utils.data.sampler.BatchSampler"
