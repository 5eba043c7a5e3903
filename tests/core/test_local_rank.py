"""``rank=LOCAL_RANK`` with the global world size is refused; sub-groups are not.

These tests set torchrun's environment by hand (no process group); the real
two-node run is in ``tests/families/test_multinode.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

import fairshard
from fairshard import ConfigError

#: node 1 of 2 nodes x 2 processes, local rank 0
NODE1_LOCAL0 = {"RANK": "2", "WORLD_SIZE": "4", "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "2"}

BUILDERS = {
    "DistributedSampler": lambda **kw: fairshard.DistributedSampler(40, **kw),
    "WeightedSampler": lambda **kw: fairshard.WeightedSampler(np.ones(40), **kw),
    "ClassBalancedSampler": lambda **kw: fairshard.ClassBalancedSampler(np.arange(40) % 3, **kw),
    "HardExampleSampler": lambda **kw: fairshard.HardExampleSampler(40, **kw),
    "ClassBatchSampler": lambda **kw: fairshard.ClassBatchSampler(np.arange(40) % 3, 2, **kw),
    "LengthBucketBatchSampler": lambda **kw: fairshard.LengthBucketBatchSampler(
        1 + np.arange(40) % 7, 4, **kw
    ),
    "TokenBudgetBatchSampler": lambda **kw: fairshard.TokenBudgetBatchSampler(
        1 + np.arange(40) % 7, 16, **kw
    ),
    "ShardedIterable": lambda **kw: fairshard.ShardedIterable(range(40), **kw),
}


@pytest.fixture
def node1(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in NODE1_LOCAL0.items():
        monkeypatch.setenv(name, value)


@pytest.mark.usefixtures("node1")
@pytest.mark.parametrize("name", sorted(BUILDERS))
@pytest.mark.parametrize("world", [None, 4])
def test_local_rank_with_the_global_world_is_refused(name: str, world: int | None) -> None:
    with pytest.raises(ConfigError, match="LOCAL_RANK") as info:
        BUILDERS[name](num_replicas=world, rank=0)
    message = str(info.value)
    assert "global rank is 2" in message and "os.environ['RANK']" in message


@pytest.mark.usefixtures("node1")
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_global_rank_sub_group_and_other_ranks_are_accepted(name: str) -> None:
    BUILDERS[name](rank=2)  # the global rank
    BUILDERS[name]()  # detected
    BUILDERS[name](num_replicas=2, rank=0)  # a data-parallel group of 2 inside the world of 4
    BUILDERS[name](num_replicas=4, rank=3)  # another rank's share, for inspection


def test_single_node_and_no_job_are_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    fairshard.DistributedSampler(40, num_replicas=4, rank=0)  # no job at all
    monkeypatch.setenv("LOCAL_RANK", "0")  # LOCAL_RANK alone says nothing of the world
    fairshard.DistributedSampler(40, num_replicas=4, rank=0)
    for name, value in {"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "1"}.items():
        monkeypatch.setenv(name, value)  # one node: local and global ranks agree
    fairshard.DistributedSampler(40, rank=1)
    monkeypatch.setenv("LOCAL_RANK", "not-a-number")  # not ours to validate
    fairshard.DistributedSampler(40, rank=1)
