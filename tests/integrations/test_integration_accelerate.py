"""HF accelerate with fairshard samplers, on 2 CPU processes under torchrun.

``Accelerator.prepare(loader)`` shards every map-style DataLoader again on
more than one process, whatever its sampler (accelerate makes no check a
sampler could pass). So: prepare the model and optimizer and iterate the
fairshard DataLoader directly (every rank: exactly its share); a prepared
loader around a multi-rank fairshard sampler raises on its first batch
instead of losing half of each share; a sampler built for one process may
be prepared, and then accelerate shards it and drives its ``set_epoch``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fairshard import ConfigError, DistributedSampler

from .._launch import child_env

pytest.importorskip("accelerate")

SCRIPT = Path(__file__).parent / "scripts" / "accelerate_job.py"
N = 40


def _run(tmp_path: Path) -> list[dict[str, Any]]:
    env = child_env()
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc-per-node=2",
        str(SCRIPT),
        str(tmp_path),
    ]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=180, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]


@pytest.mark.distributed
@pytest.mark.timeout(200)
def test_accelerate_model_only_keeps_shares_and_a_prepared_loader_refuses(
    tmp_path: Path,
) -> None:
    ranks = _run(tmp_path)
    assert [r["world"] for r in ranks] == [2, 2]
    for epoch in range(2):
        shares = [r["right"][epoch] for r in ranks]
        expected = []
        for rank in range(2):
            sampler = DistributedSampler(N, 2, rank, seed=4)
            sampler.set_epoch(epoch)
            expected.append(list(sampler))
        assert shares == expected
        assert sorted(shares[0] + shares[1]) == list(range(N))
    for r in ranks:
        # Preparing the loader would shard each share again: refused, loudly, at once.
        assert "wrapped this DataLoader in BatchSamplerShard" in r["refused"]
        assert "Do not pass this DataLoader to accelerator.prepare" in r["refused"]
        assert "Do not pass this DataLoader to accelerator.prepare" in r["check"]
    # One-process sampler, prepared: accelerate shards it; every epoch covers the data
    # once, in a new order, because accelerate called set_epoch.
    for epoch in range(2):
        shares = [r["global"][epoch] for r in ranks]
        assert sorted(shares[0] + shares[1]) == list(range(N))
    assert ranks[0]["global"][0] != ranks[0]["global"][1]
    assert [r["global_epoch"] for r in ranks] == [1, 1]


def test_the_guard_sees_accelerates_wrappers_in_process() -> None:
    from accelerate.data_loader import BatchSamplerShard
    from torch.utils.data import BatchSampler, DataLoader

    for workers in (0, 2):
        sampler = DistributedSampler(N, 2, 0)
        shard = BatchSamplerShard(BatchSampler(sampler, 4, False), num_processes=2)
        with pytest.raises(ConfigError, match="wrapped this DataLoader in BatchSamplerShard"):
            next(iter(DataLoader(list(range(N)), batch_sampler=shard, num_workers=workers)))
    alone = DistributedSampler(N, 1, 0, seed=4)
    shard = BatchSamplerShard(BatchSampler(alone, 4, False), num_processes=2, process_index=1)
    assert len([i for b in shard for i in b]) == N // 2
    single = BatchSamplerShard(BatchSampler(DistributedSampler(N, 2, 0), 4, False))
    assert sorted(i for b in single for i in b) == sorted(DistributedSampler(N, 2, 0))
