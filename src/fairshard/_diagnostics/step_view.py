"""Which samples were in global step N, on which rank: ``fairshard simulate --step``.

O(1) in the step: the sampler is built for one virtual rank, wrapped in a
``StepSampler`` and asked ``indices_at(step)`` -- nothing is replayed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._core.base import PlannedSampler
from .._core.endless import StepSampler
from .._core.steps import BatchSchedule, StepIndices
from .._errors import ConfigTypeError
from .spec import SamplerSpec

__all__ = ["step_report", "step_text"]


def step_report(
    name: str,
    world_size: int,
    step: int,
    *,
    global_batch_size: int,
    micro_batch_size: int = 1,
    skip: Sequence[tuple[int, int]] = (),
    kwargs: dict[str, Any] | None = None,
    dataset_size: int | None = None,
    labels: NDArray[np.int64] | None = None,
    weights: NDArray[np.float64] | None = None,
    lengths: NDArray[np.int64] | None = None,
) -> StepIndices:
    """Every rank's items in ``step`` of the endless stream of sampler ``name``."""
    spec = SamplerSpec(
        name, dict(kwargs or {}), dataset_size, labels, weights=weights, lengths=lengths
    )
    sampler = spec.make(0, world_size)
    if not isinstance(sampler, PlannedSampler):
        raise ConfigTypeError(
            f"--step needs a fairshard sampler with a plan, got {type(sampler).__name__}"
        )
    steps = StepSampler(
        sampler,
        micro_batch_size=micro_batch_size,
        schedule=BatchSchedule.constant(global_batch_size),
        skip=skip,
    )
    return steps.indices_at(step)


def step_text(view: StepIndices, first: int) -> str:
    """A short human report of one step."""
    lines = [
        f"step {view.step}: samples [{view.first_sample}, "
        f"{view.first_sample + view.global_batch_size}) of the stream, "
        f"global batch {view.global_batch_size}"
    ]
    for rank, (items, epochs) in enumerate(zip(view.ranks, view.epochs, strict=True)):
        shown = items if first <= 0 else items[:first]
        more = "" if len(shown) == len(items) else f" ... ({len(items)} in all)"
        span = sorted(set(epochs))
        lines.append(f"  rank {rank}: {shown}{more}  epoch {','.join(map(str, span))}")
    return "\n".join(lines)
