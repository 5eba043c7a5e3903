"""``Readahead``: hints for the next windows of the locality order, in-process and in workers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from torch.utils.data import DataLoader, Dataset

import fairshard
from fairshard import ConfigError, ConfigTypeError, Readahead

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


class Read(Dataset[Any]):
    """Records through ``Readahead.read``; returns (index, value)."""

    def __init__(self, n: int, readahead: Readahead) -> None:
        self.n, self.readahead = n, readahead

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: int) -> Any:
        return index, int(np.frombuffer(self.readahead.read(index), dtype=np.int64)[0])


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 300),
    block=st.integers(1, 17),
    window=st.integers(1, 5),
    keep=st.none() | st.integers(1, 6),
    header=st.integers(0, 3),
    world=st.integers(1, 3),
    seed=st.integers(0, 2**31),
)
def test_read_returns_every_record_s_own_bytes_in_any_order(
    tmp_path_factory: pytest.TempPathFactory,
    n: int,
    block: int,
    window: int,
    keep: int | None,
    header: int,
    world: int,
    seed: int,
) -> None:
    path = tmp_path_factory.mktemp("read") / "records.bin"
    path.write_bytes(bytes(header * RECORD) + np.arange(n, dtype=np.int64).repeat(2).tobytes())
    sampler = fairshard.DistributedSampler(
        n, world, world - 1, order="locality", block_size=block, window=window, seed=seed
    )
    ra = Readahead(
        sampler, path, record_bytes=RECORD, header_bytes=header * RECORD, keep_blocks=keep
    )
    # the plan's order, then every index in reverse (blocks dropped and read again)
    for i in [*sampler, *range(n - 1, -1, -1)]:
        got = ra.read(i)
        assert len(got) == RECORD and int(np.frombuffer(got, dtype=np.int64)[0]) == i
        assert len(ra._blocks) <= (window if keep is None else keep)
    ra.close()


def test_read_reads_each_block_once_in_the_plan_order(tmp_path: Path) -> None:
    n = 1000
    path = records(tmp_path, n)
    sampler = fairshard.DistributedSampler(n, 2, 0, order="locality", block_size=10, window=4)
    ra = Readahead(sampler, path, record_bytes=RECORD)
    reads: list[int] = []
    real = ra._read_block

    def counted(index: int) -> bytes:
        reads.append(index // 10)
        return real(index)

    ra._read_block = counted  # type: ignore[method-assign]
    order = list(sampler)
    for i in order:
        ra.read(i)
    assert sorted(reads) == sorted({i // 10 for i in order})  # every block once, no more


def test_read_in_dataloader_workers(tmp_path: Path) -> None:
    n = 400
    path = records(tmp_path, n)
    sampler = fairshard.DistributedSampler(n, 2, 1, order="locality", block_size=8, window=2)
    sampler.set_epoch(1)
    loader = DataLoader(
        Read(n, Readahead(sampler, path, record_bytes=RECORD)),
        sampler=sampler,
        batch_size=8,
        num_workers=2,
        collate_fn=list,
    )
    got = [pair for batch in loader for pair in batch]
    assert all(value == index for index, value in got)
    ref = fairshard.DistributedSampler(n, 2, 1, order="locality", block_size=8, window=2)
    ref.set_epoch(1)
    assert [index for index, _ in got] == list(ref)


def test_read_refuses_an_index_outside_and_a_file_too_short(tmp_path: Path) -> None:
    path = records(tmp_path, 50)
    sampler = fairshard.DistributedSampler(100, 1, 0, order="locality", block_size=10)
    ra = Readahead(sampler, path, record_bytes=RECORD)
    with pytest.raises(IndexError, match="index 100 outside the dataset of 100 records"):
        ra.read(100)
    with pytest.raises(OSError, match="ends inside block 7 .*record_bytes or header_bytes"):
        ra.read(75)
    with pytest.raises(ConfigError, match="keep_blocks"):
        Readahead(sampler, path, record_bytes=RECORD, keep_blocks=0)
