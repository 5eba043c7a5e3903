"""Check what ranks saw against what the sampler's plan promises.

Each rank records the items its sampler yielded; rank 0 gathers them and
calls ``check_coverage`` with the plan and the partition(s) they came from.
A *segment* is one stretch of an epoch on one world size: an uninterrupted
epoch is one segment; an epoch checkpointed on 4 ranks and resumed on 3 is
two. The verdict says whether

* every rank's items are the plan's items at that rank's positions (so all
  ranks derived the same plan and none strayed from its share);
* every plan position was taken exactly once, apart from the padding the
  partition declares (so shares are disjoint and nothing is lost);
* every rank took the same number of items (unequal steps hang DDP).

It also counts dataset indices, which for a permutation plan gives the
headline "every sample exactly once (plus declared padding)".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._core.partition import Partition
from .._core.plans import Plan, flatten_items

__all__ = ["CoverageSegment", "check_coverage", "exactly_once"]


@dataclass(frozen=True)
class CoverageSegment:
    """What every rank saw of one partition, from local item ``begin`` on.

    Attributes:
        partition: The partition the ranks iterated.
        observed: One list per rank (rank order) of the items it yielded.
        begin: Local index of each rank's first observed item (non-zero when
            the segment continues a resumed pass on the same world size).
    """

    partition: Partition
    observed: Sequence[Sequence[Any]]
    begin: int = 0


def check_coverage(
    plan: Plan, segments: Sequence[CoverageSegment], dataset_size: int
) -> dict[str, Any]:
    """The verdict on one epoch (see the module docstring), as plain values.

    Args:
        plan: The epoch's plan, as every rank should have computed it.
        segments: The stretches of the epoch, in order.
        dataset_size: Number of samples in the dataset.

    Returns:
        A dict with ``ok`` (bool), ``exactly_once`` (bool: every dataset index
        seen, repeats only as declared padding -- meaningful for permutation
        plans) and the counts behind them.
    """
    total = len(plan)
    taken = np.zeros(total, dtype=np.int64)  # (total,) times each plan position was taken
    strays: list[int] = []
    unequal = False
    padding = 0
    items_seen: list[NDArray[np.int64]] = []
    for seg in segments:
        lengths = {len(obs) for obs in seg.observed}
        unequal |= len(lengths) > 1
        full = all(
            seg.begin + len(obs) == seg.partition.num_items(r) for r, obs in enumerate(seg.observed)
        )
        padding += seg.partition.num_padded() if full else 0
        for rank, obs in enumerate(seg.observed):
            positions = seg.partition.positions(rank, seg.begin, seg.begin + len(obs))
            if plan.items(positions) != list(obs):
                strays.append(rank)
            np.add.at(taken, positions, 1)
            items_seen.append(flatten_items(list(obs))[0])
    seen = np.concatenate(items_seen) if items_seen else np.zeros(0, dtype=np.int64)
    index_counts = np.bincount(seen, minlength=dataset_size)  # (dataset_size,)
    missing = int(np.count_nonzero(taken == 0))
    repeated = int((taken[taken > 1] - 1).sum())
    verdict: dict[str, Any] = {
        "ok": not strays and not unequal and missing == 0 and repeated == padding,
        "ranks_off_plan": sorted(set(strays)),
        "equal_steps": not unequal,
        "plan_positions": total,
        "positions_missing": missing,
        "positions_repeated": repeated,
        "declared_padding": padding,
        "items_seen": int(seen.size),
        "distinct_indices": int(np.count_nonzero(index_counts)),
        "dataset_size": dataset_size,
        "index_counts": index_counts.tolist(),
    }
    verdict["exactly_once"] = exactly_once(verdict)
    return verdict


def exactly_once(verdict: dict[str, Any]) -> bool:
    """For a permutation plan: every dataset index seen, repeats only as declared padding."""
    counts = np.asarray(verdict["index_counts"], dtype=np.int64)
    repeats = int((counts[counts > 1] - 1).sum())
    return bool(np.all(counts >= 1)) and repeats == verdict["declared_padding"]
