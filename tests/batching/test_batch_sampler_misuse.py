"""A batch sampler passed as ``sampler=`` instead of ``batch_sampler=`` fails loudly.

``DataLoader(ds, sampler=batch_sampler, batch_size=B)`` wraps it in a
``BatchSampler`` that groups ``B`` whole batches into one step; before the
check nothing failed. Every batch family of the catalog (``tests/catalog.py``),
every loader that batches an index sampler (torch's and torchdata's), with
and without workers.
"""

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
from torch.utils.data import BatchSampler, DataLoader, TensorDataset
from torchdata.stateful_dataloader import StatefulDataLoader

from fairshard import ClassBatchSampler, ConfigError
from tests.catalog import CATALOG, batch_families, loader_parts, make_loader
from tests.contract import flat

N = 120
DATA = TensorDataset(torch.arange(N))
LABELS = np.repeat([0, 1, 2], [80, 20, 20])
LENGTHS = np.random.default_rng(0).integers(1, 50, N)

BATCH_FAMILIES = sorted(f.name for f in batch_families())


def _class_batch() -> ClassBatchSampler:
    return ClassBatchSampler(LABELS, {0: 12, 1: 2, 2: 2}, num_replicas=1, rank=0)


LOADERS: dict[str, Callable[..., Any]] = {
    "torch": DataLoader,
    "torchdata": StatefulDataLoader,
}

pytestmark = pytest.mark.filterwarnings("ignore:'set_vital' is deprecated")


# torchdata's worker iterator, when its __init__ raises, fails again in __del__
# (an "Exception ignored" message of its own); the error under test is raised first.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize("family", BATCH_FAMILIES)
@pytest.mark.parametrize("loader", sorted(LOADERS))
@pytest.mark.parametrize("num_workers", [0, 2])
def test_sampler_keyword_raises_naming_batch_sampler(
    family: str, loader: str, num_workers: int
) -> None:
    entry = CATALOG[family]
    dataset, _, ids = loader_parts(entry, N, 4)
    make = LOADERS[loader]
    bad = make(dataset, sampler=entry.make(N, 0, 1), batch_size=4, num_workers=num_workers)
    with pytest.raises(ConfigError, match=r"yields whole batches.*batch_sampler=sampler"):
        next(iter(bad))
    good = make_loader(entry, entry.make(N, 0, 1), N, loader_class=make, workers=num_workers)
    seen = [ids(batch) for batch in good]
    assert seen == [flat([b]) for b in entry.make(N, 0, 1)]


@pytest.mark.parametrize("drop_last", [False, True])
def test_wrapping_in_torch_batch_sampler_raises(drop_last: bool) -> None:
    wrapped = BatchSampler(_class_batch(), 3, drop_last=drop_last)
    with pytest.raises(ConfigError, match=r"BatchSampler\(batch_size=3\) is iterating it"):
        next(iter(wrapped))


def test_bulk_loading_without_automatic_batching_is_allowed() -> None:
    # batch_size=None hands each batch to the dataset as one list: a legitimate use.
    loader = DataLoader(DATA, sampler=_class_batch(), batch_size=None)
    first = next(iter(loader))[0]
    assert first.shape == (16,)


def test_direct_iteration_is_unaffected() -> None:
    sampler = _class_batch()
    assert len(list(sampler)) == len(sampler) == 6  # class 0 runs out: 80 // 12 batches
