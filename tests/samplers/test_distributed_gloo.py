"""Real gloo ranks: what each rank iterates equals the single-process simulation,
and a job stopped on 4 ranks and resumed on 3 covers the epoch exactly once."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
import torch.distributed as dist

from fairshard import DistributedSampler, simulate

from .._dist import run_ranks

N = 1003
STEPS = 40

pytestmark = [pytest.mark.distributed, pytest.mark.timeout(240)]


def first_job(rank: int, world: int) -> dict[str, Any]:
    shared = DistributedSampler(N, seed=None)  # detected rank/world; seed agreed via rank 0
    shared.set_epoch(2)
    gathered: list[Any] = [None] * world
    dist.all_gather_object(gathered, list(shared))
    job = DistributedSampler(N, seed=11)
    job.set_epoch(3)
    it = iter(job)
    consumed = [next(it) for _ in range(STEPS)]
    return {
        "seed": shared.seed,
        "gathered": gathered,
        "consumed": consumed,
        "state": job.state_dict(),
        "world": (job.rank, job.num_replicas),
    }


def resumed_job(rank: int, world: int, state: dict[str, Any]) -> list[int]:
    job = DistributedSampler(N, seed=11)
    job.load_state_dict(state)
    return list(job)


def test_ranks_match_simulation_and_elastic_resume() -> None:
    first = run_ranks(first_job, 4)
    assert [r["world"] for r in first] == [(i, 4) for i in range(4)]
    seed = first[0]["seed"]
    assert {r["seed"] for r in first} == {seed}  # seed=None: every rank uses rank 0's
    sim = simulate(lambda r, w: DistributedSampler(N, w, r, seed=seed), 4, epochs=3)
    expected = [share.tolist() for share in sim.shares[2]]
    for r in first:
        assert r["gathered"] == expected

    state = first[0]["state"]
    assert state["world_size"] == 4 and state["steps"] == STEPS
    rest = run_ranks(resumed_job, 3, state)
    seen = Counter(i for r in first for i in r["consumed"]) + Counter(
        i for share in rest for i in share
    )
    # Exactly once: 1003 samples; the only duplicates are declared padding of the
    # 3-rank partition of the remaining 1003 - 160 = 843 positions (843 % 3 == 0: none).
    assert sorted(seen) == list(range(N))
    assert set(seen.values()) == {1}
    assert len({len(share) for share in rest}) == 1


def migrated_job(rank: int, world: int, state: dict[str, Any]) -> list[int]:
    """Resume on data that lost items 0..29 and gained 100: the declared change."""
    from fairshard import DataChange

    job = DistributedSampler(N - 30 + 100, seed=11)  # rank and world from the process group
    job.load_state_dict(state, migrate=DataChange(N, removed=range(30), appended=100))
    return [int(i) for i in job]


def test_resume_on_changed_data_on_real_ranks() -> None:
    """Stopped on 4 ranks, resumed on 3 after the data changed: consumed stay consumed."""
    from fairshard import DataChange

    first = run_ranks(first_job, 4)
    state = first[0]["state"]
    change = DataChange(N, removed=range(30), appended=100)
    rest = run_ranks(migrated_job, 3, state)
    assert len({len(share) for share in rest}) == 1  # equal steps
    consumed = Counter(
        int(i) for r in first for i in change.new_index(r["consumed"]).tolist() if i >= 0
    )
    seen = consumed + Counter(i for share in rest for i in share)
    # Every new item once: the kept ones consumed before or taken now, the 100 new ones now;
    # the removed ones nowhere. 160 consumed positions leave 843 old, 1003 - 30 + 100 = 1073.
    assert sorted(seen) == list(range(change.new_size))
    padded = sum(len(share) for share in rest) - (change.new_size - sum(consumed.values()))
    assert padded < 3 and sum(seen.values()) == change.new_size + padded
