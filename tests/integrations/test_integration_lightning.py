"""Lightning Trainer (CPU, 2 DDP processes) with a fairshard sampler.

With ``use_distributed_sampler=False`` each rank sees its disjoint share and
the epoch covers the dataset. With Lightning's default (``True``) Lightning
wraps the sampler in ``DistributedSamplerWrapper`` and every rank sees only
half of its share; ``check_lightning`` detects it and says what to change.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from torch.utils.data import DataLoader

import fairshard
from fairshard import ConfigError, DistributedSampler
from fairshard.integrations import check_lightning

fabric_distributed = pytest.importorskip("lightning.fabric.utilities.distributed")

SCRIPT = Path(__file__).parent / "scripts" / "lightning_job.py"
N = 50


def _run_job(tmp_path: Path, mode: str) -> list[dict[str, Any]]:
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "1",
        "PYTHONPATH": os.pathsep.join(
            [str(Path(fairshard.__file__).parents[1]), os.environ.get("PYTHONPATH", "")]
        ),
    }
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_PORT"):
        env.pop(name, None)
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path), mode],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(2)]


@pytest.mark.distributed
@pytest.mark.timeout(200)
def test_two_ddp_processes_see_disjoint_shares_with_use_distributed_sampler_false(
    tmp_path: Path,
) -> None:
    ranks = _run_job(tmp_path, "correct")
    assert [r["check"] for r in ranks] == ["ok", "ok"]
    for epoch in ("0", "1"):
        shares = [r["seen"][epoch] for r in ranks]
        expected = []
        for rank in range(2):
            sampler = DistributedSampler(N, 2, rank, seed=3)
            sampler.set_epoch(int(epoch))
            expected.append(list(sampler))
        assert shares == expected  # Lightning called set_epoch on our sampler
        assert not set(shares[0]) & set(shares[1])
        assert sorted(shares[0] + shares[1]) == list(range(N))
    assert ranks[0]["seen"]["0"] != ranks[0]["seen"]["1"]


@pytest.mark.distributed
@pytest.mark.timeout(200)
def test_forgetting_the_flag_halves_each_share_and_check_lightning_says_so(
    tmp_path: Path,
) -> None:
    ranks = _run_job(tmp_path, "forgot")
    for r in ranks:
        assert "use_distributed_sampler=False" in r["check"]
        assert "DistributedSamplerWrapper" in r["check"]
    union = set(ranks[0]["seen"]["0"]) | set(ranks[1]["seen"]["0"])
    assert len(union) < 0.7 * N  # about half of the dataset was used in the epoch


def _trainer(loader: DataLoader[Any], world: int = 2, rank: int = 0) -> Any:
    return SimpleNamespace(train_dataloader=loader, world_size=world, global_rank=rank)


def test_check_lightning_in_process() -> None:
    data = list(range(N))
    sampler = DistributedSampler(N, 2, 0)
    check_lightning(_trainer(DataLoader(data, sampler=sampler)))  # as built: fine
    wrapped = fabric_distributed.DistributedSamplerWrapper(sampler, num_replicas=2, rank=0)
    with pytest.raises(ConfigError, match="use_distributed_sampler=False"):
        check_lightning(_trainer(DataLoader(data, sampler=wrapped)))
    lonely = DistributedSampler(N, 1, 0)  # built before the processes existed
    with pytest.raises(
        ConfigError,
        match=r"num_replicas=1, rank=0 but the trainer runs "
        r"world_size=2",
    ):
        check_lightning(_trainer(DataLoader(data, sampler=lonely)))
    check_lightning(_trainer(DataLoader(data)))  # not a fairshard sampler: not checked
    check_lightning(SimpleNamespace(train_dataloader=None, world_size=2, global_rank=0))
