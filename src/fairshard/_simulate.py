"""Run a sampler for virtual ranks 0..W-1 in one process and check the shares.

The simulator builds one sampler per virtual rank through a factory
``make(rank, world_size)``, iterates each for the requested epochs and
reports, per epoch: per-rank ``len()`` against items actually yielded,
unique items and duplicates, coverage of the dataset and overlap between
ranks. Batch samplers are flattened (their batch counts are reported too).
The same report backs ``make demo``, the CLI and the tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._errors import ConfigTypeError, check_int

__all__ = ["EpochReport", "RankReport", "SimulationReport", "flatten_items", "simulate"]

SamplerFactory = Callable[[int, int], Any]


@dataclass
class RankReport:
    """What one virtual rank saw in one epoch."""

    rank: int
    length: int  # len(sampler) before the pass
    yielded: int  # items (indices) actually yielded
    batches: int | None  # batches yielded, for batch samplers
    unique: int
    duplicates: int  # yielded - unique
    first: list[int]

    @property
    def len_matches(self) -> bool:
        """``len()`` equals what was yielded (batches for batch samplers)."""
        return self.length == (self.batches if self.batches is not None else self.yielded)


@dataclass
class EpochReport:
    """All ranks of one epoch."""

    epoch: int
    dataset_size: int | None
    ranks: list[RankReport]
    covered: int  # distinct indices seen by any rank
    missing: int | None  # dataset indices no rank saw
    overlap: int  # distinct indices seen by more than one rank
    total_yielded: int

    @property
    def equal_steps(self) -> bool:
        """Every rank yielded the same number of steps (items or batches)."""
        steps = {r.batches if r.batches is not None else r.yielded for r in self.ranks}
        return len(steps) <= 1


@dataclass
class SimulationReport:
    """The result of :func:`simulate`."""

    world_size: int
    epochs: list[EpochReport] = field(default_factory=list)
    shares: list[list[NDArray[np.int64]]] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-serializable), without the raw shares."""
        out: dict[str, Any] = {"world_size": self.world_size, "epochs": []}
        for epoch in self.epochs:
            entry = asdict(epoch)
            entry["equal_steps"] = epoch.equal_steps
            for rank_entry, rank in zip(entry["ranks"], epoch.ranks, strict=True):
                rank_entry["len_matches"] = rank.len_matches
            out["epochs"].append(entry)
        return out

    def to_text(self) -> str:
        """A readable table per epoch."""
        lines: list[str] = []
        for epoch in self.epochs:
            size = "?" if epoch.dataset_size is None else str(epoch.dataset_size)
            lines.append(
                f"epoch {epoch.epoch}: dataset {size}, {self.world_size} ranks, "
                f"covered {epoch.covered}, missing {epoch.missing}, overlap {epoch.overlap}, "
                f"equal steps {'yes' if epoch.equal_steps else 'NO'}"
            )
            lines.append(
                f"  {'rank':>4} {'len()':>8} {'yielded':>8} {'batches':>8} {'unique':>8} "
                f"{'dups':>6} {'len ok':>6}  first"
            )
            for r in epoch.ranks:
                batches = "-" if r.batches is None else str(r.batches)
                first = ", ".join(str(i) for i in r.first)
                lines.append(
                    f"  {r.rank:>4} {r.length:>8} {r.yielded:>8} {batches:>8} {r.unique:>8} "
                    f"{r.duplicates:>6} {'yes' if r.len_matches else 'NO':>6}  [{first}]"
                )
        return "\n".join(lines)


def flatten_items(items: Iterable[Any]) -> tuple[NDArray[np.int64], int | None]:
    """Flatten what a sampler yielded: ints, or batches (lists) of ints.

    Returns:
        The indices as an int64 array, and the number of batches (``None``
        when the sampler yields single indices).
    """
    values = list(items)
    if values and isinstance(values[0], Sequence | np.ndarray) and not isinstance(values[0], str):
        flat = [int(i) for batch in values for i in batch]
        return np.asarray(flat, dtype=np.int64), len(values)
    return np.asarray([int(i) for i in values], dtype=np.int64), None


def simulate(
    make: SamplerFactory,
    world_size: int,
    *,
    epochs: int = 1,
    dataset_size: int | None = None,
    first: int = 8,
) -> SimulationReport:
    """Run ``make(rank, world_size)`` for every virtual rank and check the shares.

    Args:
        make: Builds the sampler of one rank.
        world_size: Number of virtual ranks.
        epochs: Epochs to run (``set_epoch(e)`` is called when the sampler has it).
        dataset_size: Dataset length, for coverage (``missing``).
        first: How many first indices to report per rank.

    Example:
        >>> from fairshard import DistributedSampler
        >>> rep = simulate(lambda r, w: DistributedSampler(10, w, r), 4, dataset_size=10)
        >>> [r.yielded for r in rep.epochs[0].ranks], rep.epochs[0].missing
        ([3, 3, 3, 3], 0)
    """
    if not callable(make):
        raise ConfigTypeError(
            f"make must be a callable make(rank, world_size) -> sampler, got "
            f"make={make!r} of type {type(make).__name__}"
        )
    world_size = check_int("world_size", world_size, minimum=1)
    epochs = check_int("epochs", epochs, minimum=1)
    first = check_int("first", first, minimum=0)
    if dataset_size is not None:
        dataset_size = check_int("dataset_size", dataset_size, minimum=0)
    samplers = [make(rank, world_size) for rank in range(world_size)]
    report = SimulationReport(world_size)
    for epoch in range(epochs):
        ranks: list[RankReport] = []
        shares: list[NDArray[np.int64]] = []
        for rank, sampler in enumerate(samplers):
            if hasattr(sampler, "set_epoch"):
                sampler.set_epoch(epoch)
            length = len(sampler)
            flat, batches = flatten_items(iter(sampler))
            unique = int(np.unique(flat).size)
            ranks.append(
                RankReport(rank, length, int(flat.size), batches, unique, int(flat.size) - unique,
                           flat[:first].tolist())
            )
            shares.append(flat)
        report.shares.append(shares)
        report.epochs.append(_epoch_report(epoch, dataset_size, ranks, shares))
    return report


def _epoch_report(
    epoch: int, dataset_size: int | None, ranks: list[RankReport], shares: list[NDArray[np.int64]]
) -> EpochReport:
    uniques = [np.unique(s) for s in shares]
    merged = np.concatenate(uniques) if uniques else np.empty(0, dtype=np.int64)
    distinct, owners = np.unique(merged, return_counts=True)
    missing = None
    if dataset_size is not None:
        inside = distinct[(distinct >= 0) & (distinct < dataset_size)]
        missing = dataset_size - int(inside.size)
    return EpochReport(
        epoch=epoch,
        dataset_size=dataset_size,
        ranks=ranks,
        covered=int(distinct.size),
        missing=missing,
        overlap=int((owners > 1).sum()),
        total_yielded=sum(r.yielded for r in ranks),
    )
