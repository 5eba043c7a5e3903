"""torchft: replica groups SIGKILLed and joining under the lighthouse, every epoch exactly once.

The jobs run in the torchft venv (``make venv-torchft``): ``torchft_lighthouse``,
one torchrun per replica group, gloo on CPU (``tests/fault/torchft_job.py``).
Each test skips, saying how to build the venv, when it is absent.
"""

from __future__ import annotations

import numpy as np
import pytest

import fairshard
from fairshard import ConfigError, StateDictError
from fairshard._core.redeal import first_deal, redeal
from fairshard.integrations.torchft import ReplicaGroupSampler
from tests.catalog import sampler_families
from tests.fault.torchft_job import run_job, torchft_missing

needs_torchft = pytest.mark.skipif(torchft_missing() is not None, reason=str(torchft_missing()))

#: One family of each kind: index, weighted, batch.
NORMAL = "distributed,weighted,length-bucket"
#: Every catalog family with equal steps (the evaluation sampler's ``uneven`` tail has none).
EVERY = ",".join(e.name for e in sampler_families() if e.tail != "uneven")


def _check(result: object) -> None:
    assert result.ok, "\n".join(result.problems)  # type: ignore[attr-defined]
    assert result.lost == 0 and result.unexplained == 0  # type: ignore[attr-defined]
    assert result.healed >= 1  # the joiner took model and cursor from a live peer
    assert result.recover_s is not None  # the survivors committed after the kill
    assert result.redone > 0  # the failed step's items were dealt again


@needs_torchft
@pytest.mark.distributed
@pytest.mark.timeout(150)
def test_a_killed_group_and_a_late_joiner_train_every_sample_once() -> None:
    """2 groups of 1 process, group 1 SIGKILLed mid-epoch, group 2 joins later."""
    _check(run_job(NORMAL, groups=2, procs=1, dataset_size=48, die_at=3, join_at=6))


@needs_torchft
@pytest.mark.distributed
@pytest.mark.timeout(150)
def test_a_joiner_slower_than_the_survivors_run_still_joins_live_groups() -> None:
    """The joiner waits 6 s before its Manager; the survivors need about 3 s for the job.

    A loaded machine did this to the test above once: the joiner found every
    survivor gone, trained the job again alone from step 0, and the replay
    read that as repeats. The survivors now hold until the joiner's Manager is
    up, and the replay says when a joiner never healed from a live group.
    """
    result = run_job("distributed", groups=2, procs=1, dataset_size=48, join_delay_s=6.0)
    _check(result)
    assert result.join_s is not None


@needs_torchft
@pytest.mark.distributed
@pytest.mark.timeout(150)
def test_a_first_group_slower_to_start_than_the_killed_one_still_trains_with_it() -> None:
    """Group 0 builds its Manager 3 s late; group 1 dies at its third step.

    A loaded machine did this once: group 1 trained three steps alone and died,
    and group 0 trained them again. The first groups now wait for each
    other's Managers before their first quorum.
    """
    _check(run_job("distributed", groups=2, procs=1, dataset_size=48, first_delay_s=3.0))


@needs_torchft
@pytest.mark.distributed
@pytest.mark.matrix
@pytest.mark.timeout(300)
@pytest.mark.parametrize(("groups", "procs"), [(3, 2), (2, 1)])
def test_every_family_through_a_kill_and_a_join(groups: int, procs: int) -> None:
    _check(
        run_job(EVERY, groups=groups, procs=procs, dataset_size=60, die_at=4, join_at=8, seed=11)
    )


def test_the_sampler_refuses_what_would_break_equal_steps_or_the_deal() -> None:
    ev = fairshard.DistributedEvalSampler(10, num_replicas=1, rank=0)
    with pytest.raises(ConfigError, match="tail must be 'pad' or 'drop'"):
        ReplicaGroupSampler(ev, None, group_rank=0, group_world_size=1)
    two = fairshard.DistributedSampler(10, num_replicas=2, rank=0)
    with pytest.raises(ConfigError, match="num_replicas=1, rank=0"):
        ReplicaGroupSampler(two, None, group_rank=0, group_world_size=1)
    with pytest.raises(ConfigError, match="fairshard sampler"):
        ReplicaGroupSampler(range(10), None)  # type: ignore[arg-type]
    one = fairshard.DistributedSampler(10, num_replicas=1, rank=0)
    with pytest.raises(ConfigError, match="group_rank"):
        ReplicaGroupSampler(one, None, group_rank=2, group_world_size=2)


def test_a_cursor_from_another_configuration_is_refused() -> None:
    a = ReplicaGroupSampler(
        fairshard.DistributedSampler(10, num_replicas=1, rank=0, seed=1), None,
        group_rank=0, group_world_size=1,
    )  # fmt: skip
    b = ReplicaGroupSampler(
        fairshard.DistributedSampler(10, num_replicas=1, rank=0, seed=2), None,
        group_rank=0, group_world_size=1,
    )  # fmt: skip
    with pytest.raises(StateDictError, match=r"state\['seed'\]=1 but this sampler has seed=2"):
        b.load_state_dict(a.state_dict())
    c = ReplicaGroupSampler(
        fairshard.DistributedSampler(10, num_replicas=1, rank=0, seed=1), None,
        group_rank=0, group_world_size=2,
    )  # fmt: skip
    with pytest.raises(StateDictError, match="slots_per_group"):
        c.load_state_dict(a.state_dict())
    with pytest.raises(StateDictError, match="ReplicaGroupSampler.state_dict"):
        a.load_state_dict({"kind": "other"})
    a.load_state_dict(a.state_dict())  # its own round trips


def test_the_deal_is_the_pure_re_deal_of_the_quorum_history() -> None:
    """The cursor a peer sends (a history) gives the deal the pure functions give."""
    sampler = ReplicaGroupSampler(
        fairshard.DistributedSampler(40, num_replicas=1, rank=0, seed=3), None,
        group_rank=1, group_world_size=2, items_per_rank=3,
    )  # fmt: skip
    state = sampler.state_dict()
    state["history"] = [[3, 0], [2, 1], [3, 2]]  # 3 groups; one leaves after 1 step; one joins
    sampler.load_state_dict(state)
    deal = first_deal(40, range(3), 6)
    deal = redeal(deal, dict.fromkeys(range(3), 1), range(2))
    deal = redeal(deal, dict.fromkeys(range(2), 1), range(3))
    got = sampler._replay()
    assert got.groups == deal.groups and np.array_equal(got.pool, deal.pool)
    assert got.pool.tolist() == list(range(18 + 12, 40))  # 18 read by 3 groups, 12 by 2
    assert (got.num_steps, got.num_padded()) == (1, 8)  # 10 left on 18 slots: 1 step, 8 padded
