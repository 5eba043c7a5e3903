"""torchdata's StatefulDataLoader checkpoints PackingBatchSampler mid-epoch.

A fresh loader over a fresh sampler that loads the loader's state continues
the epoch exactly, with and without worker processes, with batches of rows
collated into varlen tensors.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch

from fairshard import PackedRows, PackingBatchSampler, collate_packed

from ..contract import assert_checkpoint_cuts_resume_exactly

torchdata = pytest.importorskip("torchdata.stateful_dataloader")
StatefulDataLoader = torchdata.StatefulDataLoader
pytestmark = pytest.mark.filterwarnings("ignore:'set_vital' is deprecated:UserWarning")

LENGTHS = [1 + (i * 37) % 29 for i in range(97)]


class Docs(torch.utils.data.Dataset[list[int]]):
    def __len__(self) -> int:
        return len(LENGTHS)

    def __getitem__(self, i: int) -> list[int]:
        return [i] * LENGTHS[i]


def packing_loader(workers: int) -> tuple[Any, Any]:
    sampler = PackingBatchSampler(LENGTHS, 64, 2, window=16, num_replicas=2, rank=1, seed=3)
    sampler.set_epoch(1)
    context = "fork" if workers else None
    loader = StatefulDataLoader(
        PackedRows(Docs()),
        batch_sampler=sampler,
        collate_fn=collate_packed,
        num_workers=workers,
        multiprocessing_context=context,
    )
    return sampler, loader


def ids(batch: Any) -> list[int]:
    return [int(v) for v in batch["input_ids"].tolist()]


@pytest.mark.timeout(120)
@pytest.mark.parametrize("workers", [0, 2])
def test_checkpoint_mid_epoch_resumes_exactly(workers: int) -> None:
    make = packing_loader
    sampler, loader = make(workers)
    full = [ids(b) for b in loader]
    assert len(full) == len(sampler)
    assert full == assert_checkpoint_cuts_resume_exactly(make, workers, ids)
