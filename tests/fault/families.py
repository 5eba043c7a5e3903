"""Sampler families the fault harness knows: every sampler of the family catalog.

``REGISTRY`` holds one entry per sampler family of ``tests/catalog.py`` (a
family added there is under the harness too), plus ``VARIANTS``: tail
variants of ``DistributedSampler`` the harness checks as well. A family says
how to build the sampler of one rank from ``(dataset_size, world_size, rank,
seed)`` and what one epoch must contain -- its expected multiset of indices,
computed independently of the sampler where the family has a closed form
(the catalog's ``every_index_once``: every index once). The tail a segment of
the job declares (padding duplicates, dropped positions) is read from the
sampler's own partition by ``declared``; families whose tail works
differently override it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fairshard import DistributedSampler
from fairshard._core.plans import BatchPlan
from tests.catalog import Family as CatalogFamily
from tests.catalog import sampler_families
from tests.contract import plan_padding_items

__all__ = ["REGISTRY", "VARIANTS", "Family", "plan_multiset", "resolve"]

Build = Callable[[int, int, int, int], Any]


def plan_multiset(sampler: Any, epoch: int) -> Counter[int]:
    """The multiset of indices of ``sampler``'s global plan for ``epoch``.

    Generic fallback for families without a closed form: the plan is a pure
    function of (config, seed, epoch), so any rank on any world size gives
    the same answer.
    """
    plan = sampler.plan(epoch)
    items = plan.items(np.arange(len(plan), dtype=np.int64))
    out: Counter[int] = Counter()
    for item in items:
        if isinstance(item, list | tuple | np.ndarray):
            out.update(int(i) for i in item)
        else:
            out[int(item)] += 1
    return out


def partition_tail(sampler: Any) -> dict[str, int]:
    """Padding and drops the sampler's current partition declares, in dataset indices.

    The partition pads or drops plan *positions*; a position of a batch plan
    is a whole batch, so each position is weighted by its number of indices.
    """
    part = sampler.partition()
    plan = sampler.plan()
    taken = np.concatenate(
        [part.positions(r, 0, part.num_items(r)) for r in range(part.world_size)]
        + [np.empty(0, dtype=np.int64)]
    )
    counts = np.bincount(taken - part.start, minlength=part.remaining)
    if isinstance(plan, BatchPlan):
        sizes = plan.sizes()[part.start :]
    else:
        sizes = np.ones(part.remaining, dtype=np.int64)
    padded = int((sizes * np.maximum(counts - 1, 0)).sum())
    dropped = int(sizes[counts == 0].sum())
    return {"padded": padded + plan_padding_items(sampler), "dropped": dropped}


@dataclass(frozen=True)
class Family:
    """One sampler family under test.

    Attributes:
        name: Registry key (used on the command line).
        build: ``(dataset_size, world_size, rank, seed) -> sampler``.
        expected: ``(dataset_size, seed, epoch) -> Counter`` of the indices an
            epoch holds before tail handling; ``None`` uses the plan itself.
        declared: ``sampler -> {"padded": p, "dropped": d}`` for the segment
            the sampler is about to run.
        elastic: Whether states resume on a different world size.
        equal_steps: Whether every rank takes the same number of steps (not an
            ``uneven`` tail): the torchrun jobs run the ranks in lockstep.
    """

    name: str
    build: Build
    expected: Callable[[int, int, int], Counter[int]] | None = None
    declared: Callable[[Any], dict[str, int]] = field(default=partition_tail)
    elastic: bool = True
    equal_steps: bool = True

    def expected_epoch(self, dataset_size: int, seed: int, epoch: int) -> Counter[int]:
        """The multiset one epoch must consume, before declared padding/drops."""
        if self.expected is not None:
            return self.expected(dataset_size, seed, epoch)
        return plan_multiset(self.build(dataset_size, 1, 0, seed), epoch)


def _every_index_once(dataset_size: int, seed: int, epoch: int) -> Counter[int]:
    return Counter(range(dataset_size))


def _distributed(order: str, drop_last: bool) -> Build:
    def build(dataset_size: int, world_size: int, rank: int, seed: int) -> Any:
        return DistributedSampler(
            dataset_size, world_size, rank, seed=seed, drop_last=drop_last, order=order
        )

    return build


class _FlatRows:
    """A ``PackingBatchSampler`` whose batches of rows read as flat batches of indices.

    The harness records and replays flat batches; rows only group them.
    """

    def __init__(self, sampler: Any) -> None:
        self.sampler = sampler

    def __getattr__(self, name: str) -> Any:
        return getattr(self.sampler, name)

    def __len__(self) -> int:
        return len(self.sampler)

    def __iter__(self) -> Any:
        return ([i for row in batch for i in row] for batch in self.sampler)

    def plan(self, epoch: int | None = None) -> BatchPlan:
        packed = self.sampler.plan(epoch)
        return BatchPlan(packed.flat, packed.offsets)


def _from_catalog(entry: CatalogFamily) -> Family:
    """The harness family of catalog ``entry`` (packed rows read as flat batches)."""

    def build(n: int, world: int, rank: int, seed: int) -> Any:
        sampler = entry.make(n, rank, world, seed=seed)
        return _FlatRows(sampler) if entry.items == "rows" else sampler

    expected = _every_index_once if entry.every_index_once else None
    return Family(
        entry.name, build, expected, elastic=entry.elastic, equal_steps=entry.tail != "uneven"
    )


#: ``DistributedSampler`` in each order and tail, under the names of the measured tables
#: of docs/faults.md (the catalog has one padded lazy and one dropping torch entry).
VARIANTS: tuple[Family, ...] = (
    Family("distributed-pad-lazy", _distributed("lazy", False), _every_index_once),
    Family("distributed-drop-lazy", _distributed("lazy", True), _every_index_once),
    Family("distributed-pad-torch", _distributed("torch", False), _every_index_once),
    Family("distributed-drop-torch", _distributed("torch", True), _every_index_once),
)

REGISTRY: dict[str, Family] = {
    family.name: family for family in (*VARIANTS, *(_from_catalog(e) for e in sampler_families()))
}


def resolve(names: str) -> list[Family]:
    """``"all"`` or a comma-separated list of registry names."""
    if names == "all":
        return list(REGISTRY.values())
    unknown = [n for n in names.split(",") if n not in REGISTRY]
    if unknown:
        raise SystemExit(f"unknown families {unknown}; known: {sorted(REGISTRY)}")
    return [REGISTRY[n] for n in names.split(",")]
