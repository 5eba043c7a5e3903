"""What a sampler declares, and the invariants the simulator checks against it.

A check fails only beyond what the sampler declares: padding (``pad`` tail,
PyTorch's ``drop_last=False``) may repeat up to the declared number of items,
draws with replacement may repeat what the plan repeats (reported as such,
never as padding),
a ``drop`` tail may leave out the declared number, evaluation samplers may
take uneven steps, and ``shuffle=False`` keeps the order across epochs.

Declarations are read from, in order:

* a fairshard sampler: its plan and partition (exact counts);
* PyTorch's ``DistributedSampler``: ``drop_last``/``total_size``;
* a sampler with ``replacement=True``: no bound on repeats drawn or misses;
* anything else: nothing declared (every deviation is reported).

A ``BatchSampler`` around any of these adds its own ``drop_last`` tail.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .report import Declared, SimulationReport

__all__ = ["MIN_IDENTICAL_ITEMS", "declared_for", "find_problems", "inner_sampler"]

#: Identical order between epochs is a problem once the identical ranks hold
#: this many items together; fewer can repeat by chance.
MIN_IDENTICAL_ITEMS = 8


def inner_sampler(sampler: Any) -> Any:
    """The index sampler inside a ``BatchSampler`` (else the sampler itself)."""
    from torch.utils.data import BatchSampler

    return sampler.sampler if isinstance(sampler, BatchSampler) else sampler


def _epochs_differ(sampler: Any, epoch: int) -> bool:
    """Whether the sampler's order changes with the epoch.

    Samplers with a ``shuffle`` switch say so; for the others (weighted draws,
    wrappers of arbitrary samplers) the plans of two epochs are compared: a
    wrapped ``SequentialSampler`` legitimately repeats its order.
    """
    shuffle = getattr(sampler, "shuffle", None)
    if isinstance(shuffle, bool):
        return shuffle
    head = min(len(sampler.plan(epoch)), 256)
    positions = np.arange(head, dtype=np.int64)
    return bool(sampler.plan(epoch).items(positions) != sampler.plan(epoch + 1).items(positions))


def _fairshard(sampler: Any, n: int | None, epoch: int) -> Declared:
    from .._core.partition import Partition
    from .._core.plans import BatchPlan

    plan = sampler.plan(epoch)
    total = len(plan)
    batched = isinstance(plan, BatchPlan)
    sizes = plan.sizes() if batched else np.ones(total, dtype=np.int64)
    part = Partition(total, sampler.num_replicas, sampler.layout, sampler.tail)
    # pad wraps to the head, possibly several times when total < world size
    padded = int(sizes[np.arange(part.num_padded()) % total].sum()) if total else 0
    dropped = int(sizes[total - part.num_dropped() :].sum()) if part.num_dropped() else 0
    items = plan.items(np.arange(total, dtype=np.int64))
    flat = np.asarray(
        [i for batch in items for i in batch] if sizes.size and batched else items,
        dtype=np.int64,
    )
    distinct = np.unique(flat)
    if n is not None:
        distinct = distinct[(distinct >= 0) & (distinct < n)]
        never_planned = n - int(distinct.size)
    else:
        never_planned = 0
    repeated_in_plan = int(flat.size) - int(distinct.size)
    return Declared(
        padding=padded,
        dropped=dropped + never_planned,
        uneven=sampler.tail == "uneven",
        shuffle=_epochs_differ(sampler, epoch),
        source=f"{sampler.kind} plan and partition (tail={sampler.tail!r})",
        replacement=repeated_in_plan,
    )


def _foreign(sampler: Any, n: int | None) -> Declared:
    shuffle = getattr(sampler, "shuffle", True)
    shuffle = bool(shuffle) if isinstance(shuffle, bool) else True
    if getattr(sampler, "replacement", False) is True:
        return Declared(0, None, False, shuffle, "replacement=True", replacement=None)
    total_size = getattr(sampler, "total_size", None)
    drop_last = getattr(sampler, "drop_last", None)
    if n is not None and isinstance(total_size, int) and isinstance(drop_last, bool):
        if drop_last:
            return Declared(0, n - total_size, False, shuffle, "drop_last=True")
        return Declared(total_size - n, 0, False, shuffle, "drop_last=False (pads)")
    return Declared(0, 0, False, shuffle, "nothing declared")


def declared_for(samplers: Sequence[Any], n: int | None, epoch: int) -> Declared:
    """The declaration of rank 0's sampler for ``epoch``, plus ``BatchSampler`` drops."""
    from torch.utils.data import BatchSampler

    outer = samplers[0]
    inner = inner_sampler(outer)
    if hasattr(inner, "plan") and hasattr(inner, "partition") and hasattr(inner, "tail"):
        declared = _fairshard(inner, n, inner.epoch)  # the epoch it actually ran
    else:
        declared = _foreign(inner, n)
    if isinstance(outer, BatchSampler) and outer.drop_last and declared.dropped is not None:
        declared.dropped += sum(len(inner_sampler(s)) % outer.batch_size for s in samplers)
        declared.source += f"; BatchSampler(drop_last=True, batch_size={outer.batch_size})"
    return declared


def _causes(report: SimulationReport) -> list[str]:
    """Name the configuration behind overlap and misses: arguments that differ by rank."""
    lines = []
    for key, values in report.per_rank.items():
        shown = ", ".join(repr(v) for v in values)
        if key == "seed":
            lines.append(
                f"cause: seeds differ across ranks (seed = {shown} on ranks 0..): each rank "
                "shuffles differently, so shares overlap and samples are missed; give every "
                "rank the same seed"
            )
        else:
            lines.append(
                f"cause: {key} differs across ranks ({key} = {shown}): ranks build different "
                "samplers; give every rank the same value"
            )
    return lines


def find_problems(report: SimulationReport) -> list[str]:
    """Every invariant the report violates, as one sentence each; causes first."""
    found: list[str] = []
    for epoch in report.epochs:
        tag = f"epoch {epoch.epoch}"
        declared = epoch.declared
        found.extend(
            f"{tag}: rank {r.rank} len()={r.length} but yielded {r.steps} "
            f"{'batches' if r.batches is not None else 'items'}"
            for r in epoch.ranks
            if not r.len_matches
        )
        if not epoch.equal_steps and not declared.uneven:
            steps = sorted({r.steps for r in epoch.ranks})
            found.append(
                f"{tag}: ranks take different numbers of steps {steps}; DDP hangs at the "
                "first step one rank does not take"
            )
        allowed = (
            None
            if declared.padding is None or declared.replacement is None
            else declared.padding + declared.replacement
        )
        if allowed is not None and epoch.duplicates > allowed:
            drawn = f" and {declared.replacement} drawn with replacement" * bool(
                declared.replacement
            )
            found.append(
                f"{tag}: {epoch.duplicates} repeated items (overlap {epoch.overlap} indices "
                f"between ranks) but only {declared.padding} declared as padding{drawn}"
            )
        if (
            declared.dropped is not None
            and epoch.missing is not None
            and epoch.missing > declared.dropped
        ):
            found.append(
                f"{tag}: {epoch.missing} samples never yielded but only {declared.dropped} "
                "declared as dropped"
            )
        same = sum(epoch.ranks[r].yielded for r in epoch.identical_ranks)
        if same >= MIN_IDENTICAL_ITEMS and declared.shuffle:
            hint = "" if report.set_epoch else " (set_epoch was not called: --no-set-epoch)"
            found.append(
                f"{tag}: identical order to epoch {epoch.epoch - 1} on ranks "
                f"{epoch.identical_ranks}{hint}; call sampler.set_epoch(epoch) every epoch"
            )
    return (_causes(report) + found) if found else found
