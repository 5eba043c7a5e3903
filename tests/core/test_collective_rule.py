"""fairshard talks only to the group a sampler's world is (``world.talks_to_group``).

On 2 real gloo ranks with a short group timeout, rank 0 uses samplers built
for one process (``num_replicas=1``) in every way that could communicate --
``seed=None``, ``FAIRSHARD_VERIFY=1``, ``verify``, the hard-example sync,
``ShardedSampler(check=True)``, ``gather_in_order``, ``ExactMetrics`` --
while rank 1 is already waiting in the *user's* ``all_gather_object``. Had
fairshard made any collective, it would have paired with the user's (rank 1
receiving fairshard's payload) or blocked until the group timeout. Both
ranks must instead receive exactly the user's payloads.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
import torch
import torch.distributed as dist
from torch.utils.data import RandomSampler

from fairshard import (
    ConfigError,
    DistributedSampler,
    ExactMetrics,
    HardExampleSampler,
    RankMismatchError,
    ShardedSampler,
    gather_in_order,
    verify,
)

from .._dist import run_ranks


def _alone(rank: int) -> dict[str, Any]:
    """Rank 0 evaluating alone: every fairshard feature that can communicate."""
    out: dict[str, Any] = {}
    s = DistributedSampler(7, num_replicas=1, rank=0, seed=None)
    out["seed"] = s.seed
    os.environ["FAIRSHARD_VERIFY"] = "1"
    try:
        out["order"] = list(s)
    finally:
        del os.environ["FAIRSHARD_VERIFY"]
    out["verify"] = verify(s)["world_size"]
    hard = HardExampleSampler(10, num_replicas=1, rank=0)
    hard.record([1, 2], [3.0, 4.0])
    hard.set_epoch(1)
    out["scores"] = int((~torch.isnan(torch.as_tensor(hard.scores()))).sum())
    out["sharded"] = len(list(ShardedSampler(RandomSampler(range(6)), num_replicas=1, check=True)))
    ev = DistributedSampler(5, num_replicas=1, rank=0, shuffle=False)
    out["gather"] = gather_in_order(torch.arange(5) * 10, ev).tolist()
    metrics = ExactMetrics(2, sampler=ev)
    metrics.update(torch.tensor([0, 1, 1, 0, 1]), torch.tensor([0, 1, 0, 0, 1]))
    out["metrics"] = metrics.compute().num_samples
    return out


def _scenario(rank: int, world_size: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if rank == 0:
        out.update(_alone(rank))
    payloads: list[Any] = [None] * world_size
    dist.all_gather_object(payloads, f"user payload of rank {rank}")
    out["user"] = payloads
    # A sampler of another world: verify refuses locally on every rank, no collective.
    try:
        verify(DistributedSampler(9, num_replicas=3, rank=rank))
        out["other_world"] = "no error"
    except RankMismatchError as exc:
        out["other_world"] = str(exc)
    inner = RandomSampler(range(6))
    try:
        list(ShardedSampler(inner, num_replicas=3, rank=rank, check=True))
        out["sharded_other_world"] = "no error"
    except ConfigError as exc:
        out["sharded_other_world"] = str(exc)
    again: list[Any] = [None] * world_size
    dist.all_gather_object(again, rank * 11)
    out["again"] = again
    return out


@pytest.mark.distributed
def test_single_process_samplers_in_a_two_rank_group_make_no_collective() -> None:
    results = run_ranks(_scenario, 2, timeout=150, pg_timeout=15)
    expected = ["user payload of rank 0", "user payload of rank 1"]
    for out in results:
        assert out["user"] == expected
        assert out["again"] == [0, 11]
        assert "num_replicas=3 but the process group has 2 ranks" in out["other_world"]
        assert "num_replicas=3 ranks, but the process group has 2" in out["sharded_other_world"]
    alone = results[0]
    assert alone["seed"] == 0  # nothing to agree on: the fixed default, no broadcast
    assert sorted(alone["order"]) == list(range(7))
    assert alone["verify"] == 1
    assert alone["scores"] == 2  # the records were applied locally
    assert alone["sharded"] == 6
    assert alone["gather"] == [0, 10, 20, 30, 40]
    assert alone["metrics"] == 5
