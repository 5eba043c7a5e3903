"""torchdata's StatefulDataLoader checkpoints MixtureSampler mid-epoch.

A fresh loader over a fresh sampler that loads the loader's state continues
the epoch exactly, with and without worker processes.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from torch.utils.data import ConcatDataset

from fairshard import MixtureSampler

from ..contract import assert_checkpoint_cuts_resume_exactly

torchdata = pytest.importorskip("torchdata.stateful_dataloader")
StatefulDataLoader = torchdata.StatefulDataLoader
pytestmark = pytest.mark.filterwarnings("ignore:'set_vital' is deprecated:UserWarning")

PARTS = [list(range(0, 60)), list(range(1000, 1025)), list(range(2000, 2009))]


def mixture_loader(workers: int) -> tuple[Any, Any]:
    sampler = MixtureSampler(PARTS, [0.5, 0.3, 0.2], num_samples=150, num_replicas=2, rank=1)
    sampler.set_epoch(1)
    context = "fork" if workers else None
    loader = StatefulDataLoader(
        ConcatDataset(PARTS),
        sampler=sampler,
        batch_size=4,
        num_workers=workers,
        multiprocessing_context=context,
    )
    return sampler, loader


def ids(batch: Any) -> list[int]:
    return [int(v) for v in batch.tolist()]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("workers", [0, 2])
def test_checkpoint_mid_epoch_resumes_exactly(workers: int) -> None:
    make = mixture_loader
    sampler, loader = make(workers)
    full = [ids(b) for b in loader]
    assert len(full) == -(-len(sampler) // 4)
    assert full == assert_checkpoint_cuts_resume_exactly(make, workers, ids)
    drawn = np.array([i for b in full for i in b])
    assert set(drawn.tolist()) <= {i for part in PARTS for i in part}
