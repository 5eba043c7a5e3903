"""torchdata's StatefulDataLoader checkpoints fairshard samplers mid-epoch.

The loader's ``state_dict()`` holds the sampler's own ``state_dict()``; a
fresh loader over a fresh sampler that loads it continues the epoch exactly:
the batches before the checkpoint plus the batches after it are the
uninterrupted epoch, with and without worker processes.

Every sampler family is one line in ``FACTORIES``; a family this fairshard
does not have yet is skipped, naming it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from torch.utils.data import BatchSampler, RandomSampler

import fairshard

torchdata = pytest.importorskip("torchdata.stateful_dataloader")
StatefulDataLoader = torchdata.StatefulDataLoader

# torchdata 0.11 touches torch's deprecated ``set_vital`` when it builds an iterator.
pytestmark = pytest.mark.filterwarnings("ignore:'set_vital' is deprecated:UserWarning")

N = 103
LABELS = np.arange(N) % 7 // 3  # three unequal classes
WEIGHTS = np.where(np.arange(N) % 5 == 0, 0.0, 1.0 + np.arange(N) % 3)  # some never drawn
LENGTHS = 1 + (np.arange(N) * 37) % 29

Factory = Callable[[int, int], Any]


def _public(name: str) -> Any:
    return getattr(fairshard, name)


#: (family, the fairshard names it needs, factory(rank, world_size) -> sampler)
FACTORIES: list[tuple[str, tuple[str, ...], Factory]] = [
    (
        "distributed",
        ("DistributedSampler",),
        lambda r, w: fairshard.DistributedSampler(N, w, r, seed=5),
    ),
    (
        "distributed-drop",
        ("DistributedSampler",),
        lambda r, w: fairshard.DistributedSampler(N, w, r, seed=5, drop_last=True),
    ),
    (
        "class-balanced",
        ("ClassBalancedSampler",),
        lambda r, w: _public("ClassBalancedSampler")(LABELS, num_replicas=w, rank=r, seed=5),
    ),
    (
        "hard-example",
        ("HardExampleSampler",),
        lambda r, w: _public("HardExampleSampler")(N, num_replicas=w, rank=r, seed=5),
    ),
    (
        "weighted",
        ("WeightedSampler",),
        lambda r, w: fairshard.WeightedSampler(WEIGHTS, num_replicas=w, rank=r, seed=5),
    ),
    (
        "weighted-no-replacement",
        ("WeightedSampler",),
        lambda r, w: fairshard.WeightedSampler(
            WEIGHTS, 60, replacement=False, num_replicas=w, rank=r, seed=5
        ),
    ),
    (
        "wrapped-random",
        ("ShardedSampler",),
        lambda r, w: fairshard.ShardedSampler(
            RandomSampler(range(N)), num_replicas=w, rank=r, seed=5
        ),
    ),
    (
        "class-batch",
        ("ClassBatchSampler",),
        lambda r, w: fairshard.ClassBatchSampler(LABELS, 2, num_replicas=w, rank=r, seed=5),
    ),
    (
        "length-bucket",
        ("LengthBucketBatchSampler",),
        lambda r, w: fairshard.LengthBucketBatchSampler(LENGTHS, 4, num_replicas=w, rank=r, seed=5),
    ),
    (
        "token-budget",
        ("TokenBudgetBatchSampler",),
        lambda r, w: fairshard.TokenBudgetBatchSampler(LENGTHS, 64, num_replicas=w, rank=r, seed=5),
    ),
    (
        "batch-shard",
        ("BatchShardSampler",),
        lambda r, w: fairshard.BatchShardSampler(
            BatchSampler(RandomSampler(range(N)), 13, False), num_replicas=w, rank=r, seed=5
        ),
    ),
]


class Indices:
    """A map-style dataset whose sample ``i`` is ``i`` (so batches show the order)."""

    def __len__(self) -> int:
        return N

    def __getitem__(self, i: int) -> int:
        return i


def _loader(sampler: Any, workers: int) -> Any:
    context = "fork" if workers else None
    if hasattr(sampler, "num_batches"):  # a batch sampler: it decides the batches
        return StatefulDataLoader(
            Indices(), batch_sampler=sampler, num_workers=workers, multiprocessing_context=context
        )
    return StatefulDataLoader(
        Indices(),
        batch_size=4,
        sampler=sampler,
        num_workers=workers,
        multiprocessing_context=context,
    )


def _family(entry: tuple[str, tuple[str, ...], Factory]) -> Factory:
    family, needs, factory = entry
    for name in needs:  # a dropped export fails here, never skips
        assert name in fairshard.__all__, f"the {family} family needs fairshard.{name}"
    return factory


def _batches(loader: Any, limit: int | None = None) -> list[list[int]]:
    out = []
    for batch in loader:
        out.append(batch.tolist())
        if limit is not None and len(out) == limit:
            break
    return out


@pytest.mark.timeout(120)
@pytest.mark.parametrize("workers", [0, 2])
@pytest.mark.parametrize("entry", FACTORIES, ids=[f[0] for f in FACTORIES])
def test_checkpoint_mid_epoch_restores_into_fresh_loader_and_sampler(
    entry: tuple[str, tuple[str, ...], Factory], workers: int
) -> None:
    make = _family(entry)
    epoch, rank, world = 1, 1, 2
    full_sampler = make(rank, world)
    full_sampler.set_epoch(epoch)
    uninterrupted = _batches(_loader(full_sampler, workers))
    if hasattr(full_sampler, "num_batches"):
        assert len(uninterrupted) == len(full_sampler)
    else:
        assert sum(map(len, uninterrupted)) == len(full_sampler)

    for cut in (1, len(uninterrupted) // 2, len(uninterrupted) - 1):
        first = make(rank, world)
        first.set_epoch(epoch)
        loader = _loader(first, workers)
        before = _batches(loader, cut)
        state = loader.state_dict()
        del loader
        second = make(rank, world)
        resumed = _loader(second, workers)
        resumed.load_state_dict(state)
        after = _batches(resumed)
        assert before + after == uninterrupted, f"cut after {cut} batches"


@pytest.mark.timeout(60)
def test_next_epoch_after_a_restored_one_is_the_next_epoch() -> None:
    """After finishing a restored epoch, set_epoch(e + 1) gives the normal next epoch."""
    make = _family(FACTORIES[0])
    ref = make(0, 2)
    ref.set_epoch(3)
    expected = list(ref)
    first = make(0, 2)
    first.set_epoch(2)
    loader = _loader(first, 0)
    _batches(loader, 3)
    second = make(0, 2)
    resumed = _loader(second, 0)
    resumed.load_state_dict(loader.state_dict())
    _batches(resumed)
    second.set_epoch(3)
    assert [i for b in _batches(resumed) for i in b] == expected
