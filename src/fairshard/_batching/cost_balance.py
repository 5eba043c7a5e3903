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

from .._errors import ConfigError, check_int

__all__ = [
    "DEFAULT_BALANCE_RUN",
    "balanced_order",
    "check_balance_run",
    "step_imbalance",
    "step_ratios",
]

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


def step_ratios(
    costs_in_order: NDArray[np.float64] | NDArray[np.int64],
    world_size: int,
    *,
    tail: str | None = None,
) -> NDArray[np.float64]:
    """(steps,) (max cost over ranks) / (mean cost over ranks) of every step.

    Step ``s`` is the strided window ``[s*W, s*W + W)`` of the plan. The
    final partial step, when ``W`` does not divide the batch count, is what
    the sampler's ``tail`` makes of it: ``None`` or ``"drop"`` leave it out;
    ``"pad"`` completes it with batches from the head of the plan, as the
    sampler recycles them; ``"uneven"`` keeps it with the ranks that have a
    batch (the others wait for the slowest: their cost counts as 0).

    Args:
        costs_in_order: (num_batches,) batch costs in plan order.
        world_size: Number of ranks ``W``.
        tail: ``None``, ``"pad"``, ``"drop"`` or ``"uneven"``.

    Example:
        >>> step_ratios(np.array([1, 1, 3, 1, 9]), 2, tail="pad").tolist()
        [1.0, 1.5, 1.8]
    """
    w = check_int("world_size", world_size, minimum=1)
    if tail not in (None, "pad", "drop", "uneven"):
        raise ConfigError(
            f"tail must be None, 'pad', 'drop' or 'uneven' (the sampler's tail), got tail={tail!r}"
        )
    costs = np.asarray(costs_in_order, dtype=np.float64)
    n = costs.shape[0]
    full = n // w
    if n % w and tail == "pad" and n:
        costs = np.concatenate([costs, costs[np.arange(w - n % w) % n]])  # recycled head
    elif n % w and tail == "uneven":
        costs = np.concatenate([costs, np.zeros(w - n % w)])
    steps = costs.shape[0] // w if tail in ("pad", "uneven") else full
    windows = costs[: steps * w].reshape(steps, w)
    mean = windows.mean(axis=1)
    ratios: NDArray[np.float64] = np.divide(
        windows.max(axis=1), mean, out=np.ones(steps), where=mean > 0
    )
    return ratios


def step_imbalance(
    costs_in_order: NDArray[np.float64] | NDArray[np.int64],
    world_size: int,
    *,
    tail: str | None = None,
    worst: bool = False,
) -> float:
    """Mean (or, with ``worst=True``, max) over steps of (max cost over ranks) / (mean cost).

    1.0 means every rank of every step gets the same cost. By default a
    final partial step is left out; pass the sampler's ``tail`` to count it
    as the sampler runs it (``step_ratios``). The mean can hide one slow
    step -- on 8 ranks the final step, completed with recycled batches, is
    the usual one -- so report the worst beside it.

    Args:
        costs_in_order: (num_batches,) batch costs in plan order.
        world_size: Number of ranks ``W``.
        tail: ``None``, ``"pad"``, ``"drop"`` or ``"uneven"`` (see ``step_ratios``).
        worst: The worst step instead of the mean.

    Example:
        >>> import numpy as np
        >>> step_imbalance(np.array([1, 1, 3, 1]), 2)
        1.25
        >>> step_imbalance(np.array([1, 1, 3, 1, 9]), 2, tail="pad", worst=True)
        1.8
    """
    ratios = step_ratios(costs_in_order, world_size, tail=tail)
    if ratios.size == 0:
        return 1.0
    return float(ratios.max() if worst else ratios.mean())
