"""Every script in examples/ runs under torchrun on 2 ranks with tiny settings."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import fairshard

from ._launch import child_env, failure_text

EXAMPLES = Path(__file__).parents[1] / "examples"

#: script -> (fairshard names it needs, extra arguments, a line rank 0 must print)
SCRIPTS: dict[str, tuple[tuple[str, ...], list[str], str]] = {
    "train_distributed.py": (
        ("DistributedSampler",),
        ["--checkpoint", "CKPT"],
        "epoch 1: 2 ranks x 100 samples, 200 distinct of 200",
    ),
    "train_balanced.py": (("ClassBalancedSampler", "LinearAnneal"), [], "epoch 1: class mix"),
    "train_hard_examples.py": (("HardExampleSampler", "IndexedDataset"), [], "epoch 1: "),
    "train_token_budget.py": (
        ("TokenBudgetBatchSampler",),
        ["--max-tokens", "256"],
        "epoch 1: steps per rank [",
    ),
    "stream_shards.py": (("ShardedIterable",), [], "epoch 1: 2 ranks x "),
    "train_mixture.py": (
        ("MixtureSampler",),
        [],
        "epoch 1: draws per source [100, 60, 40] (target [100.0, 60.0, 40.0])",
    ),
    "train_online_mixture.py": (
        ("OnlineMixtureSampler", "StepSampler"),
        [],
        "weights identical on 2 ranks: True",
    ),
    "train_packed.py": (
        ("PackingBatchSampler", "PackedRows", "collate_packed_padded"),
        [],
        "200 distinct of 200",
    ),
    "train_elastic.py": (
        ("init_elastic_process_group", "save_atomic"),
        [],
        "epoch 1: 200 distinct of 200 on 2 ranks, 200 consumed",
    ),
    "train_mesh.py": (
        ("DistributedSampler", "verify", "save_atomic"),
        ["--checkpoint", "CKPT"],
        "epoch 1: 2 data-parallel ranks x 100 samples, 200 distinct of 200; tp peers identical: "
        "True",
    ),
}
#: Scripts that need more than 2 ranks (a 2 x 2 mesh).
NPROC = {"train_mesh.py": 4}


@pytest.mark.distributed
@pytest.mark.timeout(200)
@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_example_runs_under_torchrun(script: str, tmp_path: Path) -> None:
    needs, extra, expected = SCRIPTS[script]
    mesh = importlib.util.find_spec("torch.distributed.device_mesh")
    if script == "train_mesh.py" and mesh is None:
        pytest.skip("DeviceMesh arrived in torch 2.2 (this torch is the declared floor, 2.1)")
    for name in needs:  # a dropped export fails here, never skips
        assert name in fairshard.__all__, f"{script} needs fairshard.{name}"
    ckpt = tmp_path / "state.pt"
    args = [str(ckpt) if a == "CKPT" else a for a in extra]
    env = child_env()
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        f"--nproc-per-node={NPROC.get(script, 2)}",
        str(EXAMPLES / script),
        "--epochs",
        "2",
        "--samples",
        "200",
        "--batch-size",
        "16",
        *args,
    ]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=180, cwd=tmp_path)
    assert proc.returncode == 0, failure_text(proc)
    assert expected in proc.stdout, proc.stdout
    if "CKPT" in extra:
        state = torch.load(ckpt, weights_only=True)["sampler"]
        for world in (3, 4, 1):  # another world size; for the mesh: dp=4 x tp=1, dp=1 x tp=4
            resumed = fairshard.DistributedSampler(200, world, 0, seed=0)
            resumed.load_state_dict(state)  # the mid-epoch state resumes there
            assert 0 < resumed.remaining < 200 // world + 1
