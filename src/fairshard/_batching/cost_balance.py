"""Compute-balanced batch order: the batches of one step cost about the same.

Under DDP every step ends with an all-reduce, so the step takes as long as
its most expensive batch. Length-based batching makes batch costs differ by
an order of magnitude (a batch of 32 short sentences against one of 32 long
ones); if the batches a step hands to the ranks are drawn at random, most
ranks wait for the slowest one at every step.

NOTE (why runs, not a world-size-aware assignment): the plan must not depend
on the world size -- that is what lets a job saved on 8 ranks resume on 6.
So instead of assigning batches to ranks, ``balanced_order`` orders the whole
batch sequence so that *any* window of ``W`` consecutive positions holds
batches of similar cost; under the strided layout step ``s`` is exactly the
window ``[s*W, s*W + W)``. Batches are sorted by cost (random tie-break), cut
into runs of ``run`` neighbours in that order, each run keeps its sorted order
(ascending or descending at random), and the order of the runs is shuffled.
A window lying inside one run holds cost-rank neighbours; only windows that
straddle two runs mix cost levels. The full runs come first and start at
multiples of ``run``, so when ``W`` divides ``run`` no window straddles at
all: the default run of 384 batches (``2**7 * 3``) is divisible by every
power of two up to 128 and by 3, 6, 12, 24, 48, 96. For other world sizes
about ``W / run`` of the steps straddle. The short remainder run (the
cheapest batches) is placed last so it cannot shift the alignment.

The price is randomness of batch order: consecutive steps see batches of
similar length for ``run / W`` steps. Batch *contents* still change every
epoch, and the run order is reshuffled every epoch; pass ``balance_run=None``
for a uniformly shuffled batch order instead.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from .._errors import check_int

__all__ = ["DEFAULT_BALANCE_RUN", "balanced_order", "check_balance_run", "step_imbalance"]

#: Default number of consecutive batches of similar cost (``2**7 * 3``).
DEFAULT_BALANCE_RUN = 384


def check_balance_run(balance_run: object) -> int | None:
    """Validate the ``balance_run`` argument (``None`` turns balancing off)."""
    if balance_run is None:
        return None
    return check_int(
        "balance_run",
        balance_run,
        minimum=1,
        fix="use a multiple of your world size, or None for a plain shuffled batch order",
    )


def balanced_order(
    costs: NDArray[np.float64] | NDArray[np.int64],
    rng: np.random.Generator,
    run: int | None = DEFAULT_BALANCE_RUN,
) -> NDArray[np.int64]:
    """A batch order whose windows of consecutive batches have similar cost.

    Args:
        costs: (num_batches,) cost of each batch.
        rng: The plan's generator (a pure function of seed and epoch).
        run: Batches per run of cost neighbours; ``None`` returns a uniform
            random permutation instead.

    Returns:
        (num_batches,) int64 permutation: position ``j`` holds batch ``order[j]``.

    Example:
        >>> import numpy as np
        >>> costs = np.array([1, 9, 1, 9, 1, 9, 1, 9])
        >>> order = balanced_order(costs, np.random.default_rng(0), run=4)
        >>> [sorted(set(costs[order[i : i + 4]].tolist())) for i in (0, 4)] in (
        ...     [[1], [9]], [[9], [1]])
        True
    """
    n = int(costs.shape[0])
    if run is None or n <= 1:
        return rng.permutation(n).astype(np.int64)
    tie = rng.permutation(n)
    by_cost = tie[np.argsort(costs[tie], kind="stable")]  # (n,) ascending cost
    remainder = n % run
    head, body = by_cost[:remainder], by_cost[remainder:]  # cheapest `remainder` go last
    full = body.reshape(-1, run)  # (num_runs, run)
    flip = rng.random(full.shape[0]) < 0.5
    full[flip] = full[flip, ::-1]
    full = full[rng.permutation(full.shape[0])]
    if rng.random() < 0.5:
        head = head[::-1]
    return np.concatenate([full.reshape(-1), head]).astype(np.int64)


def step_imbalance(
    costs_in_order: NDArray[np.float64] | NDArray[np.int64], world_size: int
) -> float:
    """Mean over steps of (max cost over ranks) / (mean cost over ranks).

    Step ``s`` is the strided window ``[s*W, s*W + W)`` of the plan; a final
    partial step is ignored (under ``pad`` it is completed from the head).
    1.0 means every rank of every step gets the same cost.

    Args:
        costs_in_order: (num_batches,) batch costs in plan order.
        world_size: Number of ranks ``W``.

    Example:
        >>> import numpy as np
        >>> step_imbalance(np.array([1, 1, 3, 1]), 2)
        1.25
    """
    w = check_int("world_size", world_size, minimum=1)
    steps = costs_in_order.shape[0] // w
    if steps == 0:
        return 1.0
    windows = np.asarray(costs_in_order[: steps * w], dtype=np.float64).reshape(steps, w)
    mean = windows.mean(axis=1)
    ratio = np.divide(windows.max(axis=1), mean, out=np.ones(steps), where=mean > 0)
    return float(ratio.mean())
