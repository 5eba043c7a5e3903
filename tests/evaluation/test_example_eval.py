"""examples/eval_distributed.py under torchrun prints the single-process metric."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from types import ModuleType

import pytest

from .._launch import run_job

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "eval_distributed.py"


def load_example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("eval_distributed", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.distributed
def test_torchrun_two_processes_print_the_single_process_metric() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "OMP_NUM_THREADS": "1"}
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
        env.pop(name, None)
    done = run_job(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            "--nproc-per-node",
            "2",
            str(SCRIPT),
        ],
        env=env,
        cwd=ROOT,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert len(lines) == 1, done.stdout  # printed by rank 0 only
    printed = json.loads(lines[0])
    reference = load_example().single_process_reference()
    assert printed["world_size"] == 2
    for key, value in reference.items():
        assert printed[key] == value, key  # exact: same floats, same predictions
    assert printed["num_samples"] == 1003
    assert printed["torch_padded_accuracy"] != printed["accuracy"]  # the padding shows
