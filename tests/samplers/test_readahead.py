"""``Readahead``: hints for the next windows of the locality order, in-process and in workers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from torch.utils.data import DataLoader, Dataset

import fairshard
from fairshard import ConfigTypeError, Readahead

RECORD = 16


def records(tmp_path: Path, n: int) -> Path:
    path = tmp_path / "records.bin"
    path.write_bytes(np.arange(n, dtype=np.int64).repeat(RECORD // 8).tobytes())
    return path


def covered(ranges: list[tuple[int, int]], index: int) -> bool:
    start = index * RECORD
    return any(o <= start and start + RECORD <= o + n for o, n in ranges)


class Records(Dataset[Any]):
    """Fixed-size records of a file, read with os.pread; returns (index, value, hints)."""

    def __init__(self, path: Path, n: int, readahead: Readahead) -> None:
        self.path, self.n, self.readahead = str(path), n, readahead

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: int) -> Any:
        hints = self.readahead.touch(index)
        with open(self.path, "rb") as f:
            f.seek(index * RECORD)
            value = int(np.frombuffer(f.read(RECORD), dtype=np.int64)[0])
        return index, value, hints


@pytest.mark.parametrize("world,rank", [(1, 0), (3, 2)])
def test_every_record_was_hinted_before_it_was_read_and_the_next_window_too(
    tmp_path: Path, world: int, rank: int
) -> None:
    n = 1000
    path = records(tmp_path, n)
    sampler = fairshard.DistributedSampler(
        n, world, rank, order="locality", block_size=10, window=4, seed=3
    )
    ra = Readahead(sampler, path, record_bytes=RECORD)
    hinted: list[tuple[int, int]] = []
    order = list(sampler)
    span = 40
    for k, i in enumerate(order):
        hinted += ra.touch(i)
        assert covered(hinted, i), f"item {k} (index {i}) read before any hint"
        if k % span == 0 and k + span < len(order) and len(order) - k > span * 2:
            upcoming = order[k + span : k + 2 * span]  # this rank's next window
            assert all(covered(hinted, j) for j in upcoming), "the next window was not hinted"
    ra.close()


def test_hints_follow_a_resumed_pass(tmp_path: Path) -> None:
    n = 600
    path = records(tmp_path, n)
    first = fairshard.DistributedSampler(n, 2, 0, order="locality", block_size=10, window=3)
    it = iter(first)
    for _ in range(100):
        next(it)
    state = json.loads(json.dumps(first.state_dict()))
    resumed = fairshard.DistributedSampler(n, 3, 1, order="locality", block_size=10, window=3)
    resumed.load_state_dict(state)
    ra = Readahead(resumed, path, record_bytes=RECORD)
    hinted: list[tuple[int, int]] = []
    for i in resumed:
        hinted += ra.touch(i)
        assert covered(hinted, i)


def test_in_dataloader_workers_the_hints_cover_every_record(tmp_path: Path) -> None:
    n = 400
    path = records(tmp_path, n)
    sampler = fairshard.DistributedSampler(n, 2, 1, order="locality", block_size=8, window=2)
    sampler.set_epoch(1)
    data = Records(path, n, Readahead(sampler, path, record_bytes=RECORD))
    loader = DataLoader(data, sampler=sampler, batch_size=8, num_workers=2, collate_fn=list)
    seen, hinted = [], []
    for batch in loader:
        for index, value, hints in batch:
            assert value == index
            seen.append(index)
            hinted += hints
    ref = fairshard.DistributedSampler(n, 2, 1, order="locality", block_size=8, window=2)
    ref.set_epoch(1)
    assert seen == list(ref)
    assert all(covered(hinted, i) for i in seen)


def test_readahead_needs_the_locality_order(tmp_path: Path) -> None:
    with pytest.raises(ConfigTypeError, match="order='locality'"):
        Readahead(fairshard.DistributedSampler(10, 1, 0), tmp_path / "x", record_bytes=4)
