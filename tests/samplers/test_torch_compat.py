"""fairshard's index samplers are PyTorch ``DistributedSampler``\\ s, attributes included."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
import torch.utils.data as tud

import fairshard
from fairshard import ConfigTypeError, DistributedEvalSampler, DistributedSampler

INDEX_SAMPLERS: dict[str, Any] = {
    "DistributedSampler": lambda: DistributedSampler(10, 3, 1),
    "DistributedEvalSampler": lambda: DistributedEvalSampler(10, 3, 1),
    "WeightedSampler": lambda: fairshard.WeightedSampler([1.0] * 10, num_replicas=3, rank=1),
    "ClassBalancedSampler": lambda: fairshard.ClassBalancedSampler(
        [0, 1] * 5, num_replicas=3, rank=1
    ),
    "HardExampleSampler": lambda: fairshard.HardExampleSampler(10, num_replicas=3, rank=1),
    "ShardedSampler": lambda: fairshard.ShardedSampler(
        tud.RandomSampler(range(10)), num_replicas=3, rank=1
    ),
    "MixtureSampler": lambda: fairshard.MixtureSampler(
        [6, 4], weights=[0.5, 0.5], num_replicas=3, rank=1
    ),
    "OnlineMixtureSampler": lambda: fairshard.OnlineMixtureSampler(
        [6, 4], weights=[0.5, 0.5], num_replicas=3, rank=1
    ),
}
BATCH_SAMPLERS = [
    fairshard.LengthBucketBatchSampler,
    fairshard.TokenBudgetBatchSampler,
    fairshard.ClassBatchSampler,
    fairshard.BatchShardSampler,
    fairshard.PackingBatchSampler,
    fairshard.ShapeBucketBatchSampler,
    fairshard.KeyBatchSampler,
]


def test_every_index_family_is_covered() -> None:
    index_families = {
        name
        for name in fairshard.__all__
        if name.endswith("Sampler") and issubclass(getattr(fairshard, name), tud.Sampler)
    } - {cls.__name__ for cls in BATCH_SAMPLERS}
    # StepSampler deals any family's plan by steps: a torch Sampler, not a drop-in for
    # DistributedSampler (its items are a step's share, addressed by consumed samples).
    assert index_families - {"StepSampler"} == set(INDEX_SAMPLERS)


@pytest.mark.parametrize("name", sorted(INDEX_SAMPLERS))
def test_index_samplers_pass_the_isinstance_check_frameworks_make(name: str) -> None:
    sampler = INDEX_SAMPLERS[name]()
    assert isinstance(sampler, tud.DistributedSampler)
    assert isinstance(sampler, tud.distributed.DistributedSampler)  # Lightning's import
    # PyTorch's attributes exist and mean what they mean there.
    assert (sampler.num_replicas, sampler.rank, sampler.epoch) == (3, 1, 0)
    assert sampler.seed == 0 and isinstance(sampler.shuffle, bool)
    assert sampler.drop_last is False
    assert len(sampler.dataset) == 10
    assert sampler.total_size == (10 if sampler.tail == "uneven" else 12)
    mro = [c for c in type(sampler).__mro__ if c is not tud.DistributedSampler]
    own = "num_samples" in vars(sampler) or any("num_samples" in vars(c) for c in mro)
    if not own:  # weighted and mixture: draws over all ranks
        assert sampler.num_samples == len(sampler) == len(list(sampler))
    sampler.set_epoch(4)  # the fairshard method, not PyTorch's
    assert sampler.epoch == 4 and sampler._fresh


@pytest.mark.parametrize("name", sorted(INDEX_SAMPLERS))
def test_index_samplers_pass_torchdatas_stateful_check(name: str) -> None:
    stateful = pytest.importorskip("torchdata.stateful_dataloader").Stateful
    assert isinstance(INDEX_SAMPLERS[name](), stateful)


@pytest.mark.parametrize("cls", BATCH_SAMPLERS)
def test_batch_samplers_do_not_claim_to_be_index_samplers(cls: type) -> None:
    assert not issubclass(cls, tud.DistributedSampler)


@pytest.mark.parametrize(
    ("n", "world", "drop_last", "shuffle"),
    [(10, 3, False, True), (10, 3, True, False), (12, 4, False, False), (7, 1, True, True)],
)
def test_attributes_equal_pytorchs(n: int, world: int, drop_last: bool, shuffle: bool) -> None:
    for rank in range(world):
        ours = DistributedSampler(range(n), world, rank, shuffle, 7, drop_last, order="torch")
        theirs = tud.DistributedSampler(range(n), world, rank, shuffle, 7, drop_last)
        for name in ("num_replicas", "rank", "epoch", "shuffle", "seed", "drop_last"):
            assert getattr(ours, name) == getattr(theirs, name), name
        assert (ours.num_samples, ours.total_size) == (theirs.num_samples, theirs.total_size)
        assert ours.dataset == theirs.dataset
        assert list(ours) == list(theirs) and len(ours) == len(theirs)


def test_an_int_dataset_is_a_sized_range() -> None:
    assert DistributedSampler(5, 1, 0).dataset == range(5)


@pytest.mark.parametrize(
    ("shuffle", "drop_last"),
    [(1, 0), (0, 1), (np.True_, np.False_), (np.bool_(False), np.bool_(True)), (True, False)],
)
def test_switches_accept_what_pytorch_accepts(shuffle: Any, drop_last: Any) -> None:
    ours = DistributedSampler(10, 3, 0, shuffle, 0, drop_last)
    theirs = tud.DistributedSampler(range(10), 3, 0, shuffle, 0, drop_last)
    assert ours.shuffle is bool(shuffle) and ours.drop_last is bool(drop_last)
    assert len(ours) == len(theirs)
    assert (list(ours) == list(range(0, 10, 3))[: len(ours)]) == (not shuffle)


@pytest.mark.parametrize(
    ("value", "hint"),
    [
        ("False", "of type str"),
        (None, "of type NoneType"),
        (0.0, "of type float"),
        (42, "did you mean seed=42?"),
        (torch.tensor(True), "of type Tensor"),
    ],
)
def test_meaningless_switches_are_refused(value: Any, hint: str) -> None:
    for name in ("shuffle", "drop_last"):
        with pytest.raises(ConfigTypeError, match=rf"{name} must be a bool \(or 0/1\)") as info:
            DistributedSampler(10, 3, 0, **{name: value})
        assert hint in str(info.value)


def test_where_pytorch_is_strict_fairshard_is_strict_too() -> None:
    for value in (1, np.True_):
        with pytest.raises(ValueError):  # PyTorch: "replacement should be a boolean value"
            tud.WeightedRandomSampler([1.0, 2.0], 2, replacement=value)
        with pytest.raises(ConfigTypeError, match="replacement must be a bool"):
            fairshard.WeightedSampler([1.0, 2.0], replacement=value, num_replicas=1)
