"""A batch sampler passed as ``sampler=`` instead of ``batch_sampler=`` fails loudly.

``DataLoader(ds, sampler=batch_sampler, batch_size=B)`` wraps it in a
``BatchSampler`` that groups ``B`` whole batches into one step; before the
check nothing failed. Every fairshard batch sampler, every loader that
batches an index sampler (torch's and torchdata's), with and without workers.
"""

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from torch.utils.data import BatchSampler, DataLoader, SequentialSampler, TensorDataset
from torchdata.stateful_dataloader import StatefulDataLoader

from fairshard import (
    BatchShardSampler,
    ClassBatchSampler,
    ConfigError,
    LengthBucketBatchSampler,
    TokenBudgetBatchSampler,
)

N = 120
DATA = TensorDataset(torch.arange(N))
LABELS = np.repeat([0, 1, 2], [80, 20, 20])
LENGTHS = np.random.default_rng(0).integers(1, 50, N)

FAMILIES: dict[str, Callable[[], Any]] = {
    "class-batch": lambda: ClassBatchSampler(LABELS, {0: 12, 1: 2, 2: 2}, num_replicas=1, rank=0),
    "length-bucket": lambda: LengthBucketBatchSampler(LENGTHS, 8, num_replicas=1, rank=0),
    "token-budget": lambda: TokenBudgetBatchSampler(LENGTHS, 200, num_replicas=1, rank=0),
    "batch-shard": lambda: BatchShardSampler(
        BatchSampler(SequentialSampler(range(N)), 8, drop_last=False), num_replicas=1, rank=0
    ),
}
LOADERS: dict[str, Callable[..., Any]] = {
    "torch": DataLoader,
    "torchdata": StatefulDataLoader,
}

pytestmark = pytest.mark.filterwarnings("ignore:'set_vital' is deprecated")


# torchdata's worker iterator, when its __init__ raises, fails again in __del__
# (an "Exception ignored" message of its own); the error under test is raised first.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("family", sorted(FAMILIES))
@pytest.mark.parametrize("loader", sorted(LOADERS))
@pytest.mark.parametrize("num_workers", [0, 2])
def test_sampler_keyword_raises_naming_batch_sampler(
    family: str, loader: str, num_workers: int
) -> None:
    sampler = FAMILIES[family]()
    make = LOADERS[loader]
    bad = make(DATA, sampler=sampler, batch_size=4, num_workers=num_workers)
    with pytest.raises(ConfigError, match=r"yields whole batches.*batch_sampler=sampler"):
        next(iter(bad))
    good = make(DATA, batch_sampler=FAMILIES[family](), num_workers=num_workers)
    seen = [batch[0].tolist() for batch in good]
    assert seen == [list(b) for b in FAMILIES[family]()]


@pytest.mark.parametrize("drop_last", [False, True])
def test_wrapping_in_torch_batch_sampler_raises(drop_last: bool) -> None:
    wrapped = BatchSampler(FAMILIES["class-batch"](), 3, drop_last=drop_last)
    with pytest.raises(ConfigError, match=r"BatchSampler\(batch_size=3\) is iterating it"):
        next(iter(wrapped))


def test_bulk_loading_without_automatic_batching_is_allowed() -> None:
    # batch_size=None hands each batch to the dataset as one list: a legitimate use.
    loader = DataLoader(DATA, sampler=FAMILIES["class-batch"](), batch_size=None)
    first = next(iter(loader))[0]
    assert first.shape == (16,)


def test_direct_iteration_is_unaffected() -> None:
    sampler = FAMILIES["class-batch"]()
    assert len(list(sampler)) == len(sampler) == 6  # class 0 runs out: 80 // 12 batches
