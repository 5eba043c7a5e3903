"""``rank=LOCAL_RANK`` with the global world size is refused; sub-groups and inspection are not.

The mistake is refused when the sampler starts its first pass (the process
reading that share as its own, having built no other rank's sampler); a
process that builds several ranks' samplers, as the simulator does, is
inspecting them. These tests set torchrun's environment by hand (no process
group); the real two-node run is in ``tests/families/test_multinode.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import fairshard
from fairshard import ConfigError
from fairshard._distributed import local_rank

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


@pytest.fixture(autouse=True)
def fresh_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test is a fresh process: no sampler of any rank built yet."""
    monkeypatch.setattr(local_rank, "_BUILT", {}, raising=False)


@pytest.fixture
def node1(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in NODE1_LOCAL0.items():
        monkeypatch.setenv(name, value)


def first_pass(sampler: Any) -> None:
    next(iter(sampler), None)


@pytest.mark.usefixtures("node1")
@pytest.mark.parametrize("name", sorted(BUILDERS))
@pytest.mark.parametrize("world", [None, 4])
def test_local_rank_with_the_global_world_is_refused(name: str, world: int | None) -> None:
    sampler = BUILDERS[name](num_replicas=world, rank=0)
    with pytest.raises(ConfigError, match="LOCAL_RANK") as info:
        first_pass(sampler)
    message = str(info.value)
    assert "global rank is 2" in message and "os.environ['RANK']" in message
    # The own global rank built beside it (a train sampler, and this as validation) is no alibi.
    BUILDERS[name](rank=2)
    with pytest.raises(ConfigError, match="LOCAL_RANK"):
        first_pass(sampler)


@pytest.mark.usefixtures("node1")
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_global_rank_sub_group_and_other_ranks_are_accepted(name: str) -> None:
    first_pass(BUILDERS[name](rank=2))  # the global rank
    first_pass(BUILDERS[name]())  # detected
    first_pass(BUILDERS[name](num_replicas=2, rank=0))  # a data-parallel group of 2 in 4
    first_pass(BUILDERS[name](num_replicas=4, rank=3))  # another rank's share, for inspection


@pytest.mark.usefixtures("node1")
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_every_ranks_sampler_built_to_inspect_is_accepted(name: str) -> None:
    """LOCAL_RANK's share is read beside the other ranks': the simulator's pattern."""
    samplers = [BUILDERS[name](num_replicas=4, rank=r) for r in range(4)]
    for sampler in samplers:
        first_pass(sampler)


ENVIRONMENTS = [(r, local, w) for w in (2, 4) for r in range(w) for local in range(2) if local <= r]


@pytest.mark.parametrize(("global_rank", "local", "world"), ENVIRONMENTS)
def test_the_rule_over_every_rank_of_small_jobs(
    monkeypatch: pytest.MonkeyPatch, global_rank: int, local: int, world: int
) -> None:
    """Every (RANK, LOCAL_RANK, WORLD_SIZE, rank, num_replicas): refused exactly for the mistake."""
    env = {"RANK": str(global_rank), "LOCAL_RANK": str(local), "WORLD_SIZE": str(world)}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    for replicas in (world, 2 * world, 1 if world > 1 else 2):
        for rank in range(replicas):
            monkeypatch.setattr(local_rank, "_BUILT", {}, raising=False)
            alone = fairshard.DistributedSampler(40, num_replicas=replicas, rank=rank)  # built
            mistake = rank == local != global_rank and replicas == world
            if mistake:
                with pytest.raises(ConfigError, match="LOCAL_RANK"):
                    first_pass(alone)
            else:
                first_pass(alone)
            # Inspection: every rank of that world built first, then read. Only a world
            # with no rank beside the one read and the global one (2 processes) cannot show it.
            every = [fairshard.DistributedSampler(40, replicas, r) for r in range(replicas)]
            for r, sampler in enumerate(every):
                alibi = set(range(replicas)) - {r, global_rank}
                if r == local != global_rank and replicas == world and not alibi:
                    with pytest.raises(ConfigError, match="LOCAL_RANK"):
                        first_pass(sampler)
                else:
                    first_pass(sampler)
            with local_rank.virtual_ranks():  # the simulator's ranks
                first_pass(fairshard.DistributedSampler(40, num_replicas=replicas, rank=rank))


@pytest.mark.parametrize(("global_rank", "local", "world"), ENVIRONMENTS)
def test_simulate_inside_a_job_exits_0(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    global_rank: int,
    local: int,
    world: int,
) -> None:
    from fairshard._cli.main import main

    env = {"RANK": str(global_rank), "LOCAL_RANK": str(local), "WORLD_SIZE": str(world)}
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    assert main(["simulate", "-n", "40", "-w", str(world), "-q"]) == 0, capsys.readouterr()


def test_single_node_and_no_job_are_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    first_pass(fairshard.DistributedSampler(40, num_replicas=4, rank=0))  # no job at all
    monkeypatch.setenv("LOCAL_RANK", "0")  # LOCAL_RANK alone says nothing of the world
    first_pass(fairshard.DistributedSampler(40, num_replicas=4, rank=0))
    for name, value in {"RANK": "1", "WORLD_SIZE": "2", "LOCAL_RANK": "1"}.items():
        monkeypatch.setenv(name, value)  # one node: local and global ranks agree
    first_pass(fairshard.DistributedSampler(40, rank=1))
    monkeypatch.setenv("LOCAL_RANK", "not-a-number")  # not ours to validate
    first_pass(fairshard.DistributedSampler(40, rank=1))
