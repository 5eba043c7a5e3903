"""``save_atomic`` / ``write_atomic``: the old file or the new one, never half.

The kill-mid-checkpoint case under real SIGKILLs is in the fault harness
(``mid-checkpoint`` phase); here the same hook raises instead.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

import fairshard
from fairshard._distributed.checkpoint import write_atomic


class Died(Exception):
    pass


def die() -> None:
    raise Died


def test_interrupted_write_leaves_the_previous_file(tmp_path: Path) -> None:
    target = tmp_path / "ckpt.json"
    write_atomic(target, b"old")
    with pytest.raises(Died):
        write_atomic(target, b"new", before_replace=die)
    assert target.read_bytes() == b"old"
    write_atomic(target, b"new")
    assert target.read_bytes() == b"new"


def test_save_atomic_round_trips_a_sampler_state(tmp_path: Path) -> None:
    sampler = fairshard.DistributedSampler(20, num_replicas=4, rank=0, seed=3)
    sampler.set_epoch(1)
    stream = iter(sampler)
    next(stream)
    path = tmp_path / "new" / "dir" / "ckpt.pt"  # directories are created
    fairshard.save_atomic({"sampler": sampler.state_dict(), "step": 1}, path)
    loaded = torch.load(path, weights_only=True)
    resumed = fairshard.DistributedSampler(20, num_replicas=2, rank=1, seed=3)
    resumed.load_state_dict(loaded["sampler"])  # another world size
    assert loaded["step"] == 1 and resumed.remaining == (20 - 4) // 2
    assert len(resumed) == 1 + (20 - 4) // 2  # the epoch's: the step taken, and the rest
    assert [p.name for p in path.parent.iterdir()] == ["ckpt.pt"]  # no temporary left
