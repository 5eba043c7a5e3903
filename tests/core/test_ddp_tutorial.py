"""PyTorch's DDP tutorial (``multigpu_torchrun.py``) with a fairshard sampler, relaunched.

The tutorial's ``Trainer`` reads the batch size with a probe
``next(iter(train_data))`` at the start of every epoch, *before*
``set_epoch(epoch)``, and snapshots after an epoch (rank 0), with the
sampler's state added to the snapshot as docs/resume.md says. A relaunch
loads the snapshot and starts its epoch loop at ``EPOCHS_RUN``: the
tutorial stores the finished epoch there (its loop then re-announces it);
a corrected loop stores the next one. In 0.3 the state at the end of the
epoch resumed with nothing left of it, so the relaunch's probe met an
empty pass and raised ``StopIteration`` (after a warning naming the fix).
Now a state at the end of epoch ``e`` is the start of ``e + 1``: the probe
reads a batch, and each rank trains each epoch of its share exactly once
over the two launches, with either ``EPOCHS_RUN``.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
import torch
from torch.utils.data import DataLoader

import fairshard
from tests._dist import run_ranks

N, BATCH, SEED = 40, 4, 5


class _Tutorial:
    """The tutorial's ``Trainer``: the data parts, word for word where it matters."""

    def __init__(self, snapshot_path: Path, next_epoch: int) -> None:
        self.sampler = fairshard.DistributedSampler(N, seed=SEED)
        self.train_data = DataLoader(list(range(N)), batch_size=BATCH, sampler=self.sampler)
        self.snapshot_path, self.next_epoch = snapshot_path, next_epoch
        self.epochs_run = 0
        self.seen: dict[int, list[int]] = {}
        if snapshot_path.exists():
            self._load_snapshot()
        torch.distributed.barrier()  # DDP(model) here: a collective, before any snapshot

    def _load_snapshot(self) -> None:
        snapshot = torch.load(self.snapshot_path, weights_only=False)
        self.sampler.load_state_dict(snapshot["SAMPLER_STATE"])
        self.epochs_run = snapshot["EPOCHS_RUN"]

    def _run_epoch(self, epoch: int) -> None:
        b_sz = len(next(iter(self.train_data)))  # the probe, before set_epoch
        assert b_sz == BATCH
        self.train_data.sampler.set_epoch(epoch)
        for source in self.train_data:
            self.seen.setdefault(epoch, []).extend(source.tolist())

    def _save_snapshot(self, epoch: int) -> None:
        state = {"SAMPLER_STATE": self.sampler.state_dict(), "EPOCHS_RUN": epoch + self.next_epoch}
        torch.save(state, self.snapshot_path)

    def train(self, max_epochs: int) -> None:
        for epoch in range(self.epochs_run, max_epochs):
            self._run_epoch(epoch)
            if torch.distributed.get_rank() == 0:
                self._save_snapshot(epoch)
            torch.distributed.barrier()


def _launch(rank: int, world: int, folder: str, next_epoch: int, max_epochs: int) -> Any:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer = _Tutorial(Path(folder) / "snapshot.pt", next_epoch)
        try:
            trainer.train(max_epochs)
        except StopIteration:
            return "StopIteration"
    said = [
        str(w.message) for w in caught if issubclass(w.category, fairshard.DegenerateConfigWarning)
    ]
    return {"seen": trainer.seen, "warnings": said}


@pytest.mark.distributed
@pytest.mark.timeout(200)
@pytest.mark.parametrize("next_epoch", [0, 1], ids=["tutorial", "corrected"])
def test_relaunch_from_an_end_of_epoch_snapshot_trains_every_epoch_once(
    tmp_path: Path, next_epoch: int
) -> None:
    first = run_ranks(_launch, 2, str(tmp_path), next_epoch, 2, timeout=150)  # epochs 0, 1
    second = run_ranks(_launch, 2, str(tmp_path), next_epoch, 4, timeout=150)  # the relaunch
    for rank in range(2):
        assert second[rank] != "StopIteration", "the relaunch's probe met an empty pass"
        trained: dict[int, list[int]] = {}
        for launch in (first[rank], second[rank]):
            for epoch, ids in launch["seen"].items():
                trained.setdefault(int(epoch), []).extend(ids)
        for epoch in range(4):
            share = fairshard.DistributedSampler(N, 2, rank, seed=SEED)
            share.set_epoch(epoch)
            assert trained[epoch] == list(share), (rank, epoch)
        if next_epoch == 0:  # the re-announced epoch: its empty pass says why, once
            assert any(
                "yields nothing" in w and "set_epoch(2)" in w for w in second[rank]["warnings"]
            )
