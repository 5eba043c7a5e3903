"""A ramp-up resumed mid-ramp on another world size, under torchrun (gloo)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from .._launch import child_env, run_job
from . import steps_job

JOB = Path(steps_job.__file__)


@pytest.mark.distributed
def test_ramp_resumed_mid_ramp_on_another_world_size(tmp_path: Path) -> None:
    # Steps 0-4 on one process: the ramp is at 8 samples per step by then.
    single = steps_job.build(world=1, rank=0)
    stream = iter(single)  # type: ignore[call-overload]
    before = []
    for step in range(5):
        micro = single.accumulation_steps(step)  # type: ignore[attr-defined]
        before.append(sorted(next(stream) for _ in range(micro * steps_job.MICRO)))
    state = single.state_dict()  # type: ignore[attr-defined]
    assert state["steps"] == 4 * 4 + 8  # consumed samples, exactly
    (tmp_path / "state.json").write_text(json.dumps(state))
    # Steps 5-10 on two torchrun ranks, from that state.
    out = tmp_path / "after.json"
    cmd = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2"]
    cmd += [str(JOB), str(out), "6", str(tmp_path / "state.json")]
    done = run_job(cmd, env=child_env(), timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    after = json.loads(out.read_text())
    assert after["first"] == 5
    # the ramp 4,4,4,4 | 8,8 | 12,12 | 16 ... in micro-batches of 2 per rank
    assert after["accumulation"] == [2, 3, 3, 4, 4, 4]
    assert after["state"]["steps"] == state["steps"] + 8 + 2 * 12 + 3 * 16
    for step, got in enumerate(before + after["steps"]):
        view = single.indices_at(step)  # type: ignore[attr-defined]
        assert got == sorted(view.ranks[0]), f"step {step}"
        assert len(got) == view.global_batch_size
