"""HF accelerate with a fairshard sampler, on 2 CPU processes under torchrun.

``Accelerator.prepare(loader)`` always shards a map-style DataLoader again on
more than one process, so the documented way is to prepare the model and
optimizer only and iterate the fairshard DataLoader directly.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import fairshard
from fairshard import DistributedSampler

pytest.importorskip("accelerate")

SCRIPT = Path(__file__).parent / "scripts" / "accelerate_job.py"
N = 40


def _run(tmp_path: Path) -> list[dict[str, Any]]:
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "PYTHONPATH": os.pathsep.join(
            [str(Path(fairshard.__file__).parents[1]), os.environ.get("PYTHONPATH", "")]
        ),
    }
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_PORT", "MASTER_ADDR"):
        env.pop(name, None)
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
def test_prepare_model_only_keeps_fairshard_shares_and_prepared_loader_is_flagged(
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
    # Passing the loader to prepare() shards each share again: half the data is lost.
    wrong = set(ranks[0]["wrong"]) | set(ranks[1]["wrong"])
    assert len(wrong) <= N // 2 + 4
    for r in ranks:
        assert "Do not pass this DataLoader to accelerator.prepare" in r["check"]
