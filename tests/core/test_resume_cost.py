"""Resume is O(1) for the random-access plans: only positions after the resume point are evaluated.

Proved by counting the plan positions evaluated between ``load_state_dict``
and the first index, not by timing (docs/resume.md has the times, and the
families that pay a plan build instead).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import fairshard
from fairshard._core.state import seal

N = 10**7
WORLD = 8

O1_FAMILIES = {
    "distributed-lazy": lambda: fairshard.DistributedSampler(N, WORLD, 0),
    "distributed-unshuffled": lambda: fairshard.DistributedSampler(N, WORLD, 0, shuffle=False),
    "eval": lambda: fairshard.DistributedEvalSampler(N, WORLD, 0),
    "weighted-with-replacement": lambda: fairshard.WeightedSampler(
        np.ones(1000), N, num_replicas=WORLD, rank=0
    ),
    "class-balanced-with-replacement": lambda: fairshard.ClassBalancedSampler(
        np.arange(1000) % 7, num_samples=N, num_replicas=WORLD, rank=0
    ),
}


def _state_at(sampler: Any, steps: int) -> dict[str, Any]:
    state = sampler.state_dict()
    body = {k: v for k, v in state.items() if k not in ("format", "version", "checksum")}
    return seal({**body, "steps": steps})


@pytest.mark.parametrize("name", sorted(O1_FAMILIES))
def test_resume_evaluates_only_positions_after_the_resume_point(name: str) -> None:
    make = O1_FAMILIES[name]
    steps = len(make()) // 2
    fresh = make()
    fresh.load_state_dict(_state_at(make(), steps))
    plan = fresh.plan()
    evaluated: list[int] = []
    take = plan.take

    def counting_take(positions: np.ndarray) -> np.ndarray:
        evaluated.append(int(positions.size))
        return take(positions)

    plan.take = counting_take  # type: ignore[method-assign]
    first = next(iter(fresh))
    assert sum(evaluated) <= 256, f"{name}: {sum(evaluated)} positions evaluated"
    ref = make()
    assert first == int(ref.plan().take(ref.partition().positions(0, steps, steps + 1))[0])
