"""The simulator's report: plain dataclasses, their JSON form and a terminal table.

The JSON form (``SimulationReport.to_dict``) is a stable schema documented
in ``docs/simulate.md``; ``SCHEMA`` and ``SCHEMA_VERSION`` name it. Fields
are only ever added within one schema version.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "SCHEMA",
    "SCHEMA_VERSION",
    "Declared",
    "EpochReport",
    "RankReport",
    "SimulationReport",
]

SCHEMA = "fairshard.simulate"
SCHEMA_VERSION = 1


@dataclass
class Declared:
    """What the sampler says it does, so checks know which deviations are intended.

    ``padding``/``dropped`` are upper bounds in items for one epoch (``None``:
    no bound); ``padding`` counts only the repeats that even out the ranks.
    ``replacement`` counts repeats drawn on purpose by sampling with
    replacement (``None``: unbounded, a foreign ``replacement=True``
    sampler), so that draws are never reported as padding. ``uneven``: ranks
    may take different step counts (evaluation); ``shuffle``: the order
    should change between epochs (``False`` when the sampler says
    ``shuffle=False``).
    """

    padding: int | None = 0
    dropped: int | None = 0
    uneven: bool = False
    shuffle: bool = True
    source: str = "nothing declared"
    replacement: int | None = 0


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
    coverage: float | None = None  # unique / dataset_size
    class_counts: list[int] | None = None
    order_change: float | None = None  # fraction of positions changed since last epoch
    batch_entropy: float | None = None  # mean class entropy (bits) per batch, given labels
    adjacent_correlation: float | None = None  # correlation of consecutive indices
    block_spread: float | None = None  # distinct blocks per SPREAD_SPAN consecutive reads

    @property
    def steps(self) -> int:
        """Steps this rank took: batches for batch samplers, else items."""
        return self.batches if self.batches is not None else self.yielded

    @property
    def len_matches(self) -> bool:
        """``len()`` equals what was yielded (batches for batch samplers)."""
        return self.length == self.steps

    @property
    def identical_order(self) -> bool:
        """Same order as the previous epoch (the forgotten ``set_epoch`` symptom)."""
        return self.order_change == 0.0 and self.unique > 1


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
    overlap_matrix: list[list[int]] = field(default_factory=list)
    declared: Declared = field(default_factory=Declared)

    @property
    def equal_steps(self) -> bool:
        """Every rank took the same number of steps (items or batches)."""
        return len({r.steps for r in self.ranks}) <= 1

    @property
    def duplicates(self) -> int:
        """Items yielded beyond the distinct ones (padding, replacement, overlap)."""
        return self.total_yielded - self.covered

    @property
    def identical_ranks(self) -> list[int]:
        """Ranks whose order equals their previous epoch's."""
        return [r.rank for r in self.ranks if r.identical_order]


@dataclass
class SimulationReport:
    """The result of :func:`fairshard.simulate`."""

    world_size: int
    epochs: list[EpochReport] = field(default_factory=list)
    #: Arguments that differ between ranks (e.g. ``seed``): name -> value per rank.
    per_rank: dict[str, list[Any]] = field(default_factory=dict)
    shares: list[list[NDArray[np.int64]]] = field(default_factory=list, repr=False)
    sampler: str = ""
    dataset_size: int | None = None
    num_classes: int | None = None
    set_epoch: bool = True
    warnings: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No invariant failed (see ``problems``)."""
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-serializable), without the raw shares; see docs/simulate.md."""
        epochs: list[dict[str, Any]] = []
        for epoch in self.epochs:
            ranks = []
            for r in epoch.ranks:
                entry = asdict(r)
                entry["steps"] = r.steps
                entry["len_matches"] = r.len_matches
                entry["identical_order"] = r.identical_order
                ranks.append(entry)
            epochs.append(
                {
                    "epoch": epoch.epoch,
                    "dataset_size": epoch.dataset_size,
                    "covered": epoch.covered,
                    "missing": epoch.missing,
                    "overlap": epoch.overlap,
                    "duplicates": epoch.duplicates,
                    "total_yielded": epoch.total_yielded,
                    "equal_steps": epoch.equal_steps,
                    "identical_ranks": epoch.identical_ranks,
                    "overlap_matrix": epoch.overlap_matrix,
                    "declared": asdict(epoch.declared),
                    "ranks": ranks,
                }
            )
        return {
            "schema": SCHEMA,
            "version": SCHEMA_VERSION,
            "sampler": self.sampler,
            "world_size": self.world_size,
            "dataset_size": self.dataset_size,
            "num_epochs": len(self.epochs),
            "num_classes": self.num_classes,
            "set_epoch": self.set_epoch,
            "per_rank": {key: [_plain(v) for v in values] for key, values in self.per_rank.items()},
            "ok": self.ok,
            "problems": list(self.problems),
            "warnings": list(self.warnings),
            "epochs": epochs,
        }

    def to_text(self) -> str:
        """A readable table per epoch, then problems and warnings."""
        lines: list[str] = []
        if self.sampler:
            lines.append(f"sampler: {self.sampler}")
        for key, values in self.per_rank.items():
            lines.append(f"per rank: {key} = {', '.join(repr(v) for v in values)} (ranks 0..)")
        for epoch in self.epochs:
            lines.extend(_epoch_lines(epoch, self.world_size))
        for warning in self.warnings:
            lines.append(f"warning: {warning}")
        if self.problems:
            lines.append("problems:")
            lines.extend(f"  - {p}" for p in self.problems)
        else:
            lines.append("all checks passed")
        return "\n".join(lines)


def _plain(value: Any) -> Any:
    """JSON-safe form of a per-rank argument."""
    if isinstance(value, bool | int | float | str) or value is None:
        return value
    return repr(value)


def _duplicate_lines(epoch: EpochReport) -> list[str]:
    """Say what the repeats are: declared padding, draws with replacement, or neither."""
    if not epoch.duplicates:
        return []
    declared = epoch.declared
    parts = []
    padding = min(epoch.duplicates, declared.padding or 0)
    if padding:
        parts.append(
            f"{padding} declared padding (the tail is padded by repeating samples from the "
            "head so every rank takes the same number of steps)"
        )
    rest = epoch.duplicates - padding
    if rest and (declared.replacement is None or declared.replacement > 0):
        drawn = rest if declared.replacement is None else min(rest, declared.replacement)
        parts.append(f"{drawn} drawn with replacement (by design, not padding)")
        rest -= drawn
    if rest:
        parts.append(f"{rest} not declared by the sampler")
    return [f"  duplicates: {'; '.join(parts)}"]


def _quality_lines(epoch: EpochReport) -> list[str]:
    """Order quality per rank: class entropy per batch, adjacent correlation, block spread."""

    def cell(value: float | None, spec: str) -> str:
        return "-" if value is None else format(value, spec)

    if not epoch.ranks or all(
        r.block_spread is None and r.batch_entropy is None for r in epoch.ranks
    ):
        return []
    lines = [
        "  order quality: class entropy per batch (bits), correlation of adjacent indices, "
        "distinct blocks per 4096 reads"
    ]
    for r in epoch.ranks:
        lines.append(
            f"  {r.rank:>4} {cell(r.batch_entropy, '.2f'):>6} "
            f"{cell(r.adjacent_correlation, '+.3f'):>7} {cell(r.block_spread, '.0f'):>6}"
        )
    return lines


def _steps_word(epoch: EpochReport) -> str:
    if epoch.equal_steps:
        return "yes"
    return "no (uneven by design)" if epoch.declared.uneven else "NO"


def _epoch_lines(epoch: EpochReport, world_size: int) -> list[str]:
    size = "?" if epoch.dataset_size is None else str(epoch.dataset_size)
    lines = [
        f"epoch {epoch.epoch}: dataset {size}, {world_size} ranks, covered {epoch.covered}, "
        f"missing {epoch.missing}, overlap {epoch.overlap}, duplicates {epoch.duplicates}, "
        f"equal steps {_steps_word(epoch)}"
    ]
    if epoch.identical_ranks:
        why = "forgotten set_epoch?" if epoch.declared.shuffle else "expected: no shuffling"
        lines.append(
            f"  identical order to epoch {epoch.epoch - 1} on ranks {epoch.identical_ranks} ({why})"
        )
    lines.append(
        f"  {'rank':>4} {'len()':>8} {'yielded':>8} {'batches':>8} {'unique':>8} "
        f"{'dups':>6} {'cover':>6} {'len ok':>6} {'changed':>7}  first"
    )
    for r in epoch.ranks:
        batches = "-" if r.batches is None else str(r.batches)
        cover = "-" if r.coverage is None else f"{r.coverage:.1%}"
        changed = "-" if r.order_change is None else f"{r.order_change:.0%}"
        first = ", ".join(str(i) for i in r.first)
        lines.append(
            f"  {r.rank:>4} {r.length:>8} {r.yielded:>8} {batches:>8} {r.unique:>8} "
            f"{r.duplicates:>6} {cover:>6} {'yes' if r.len_matches else 'NO':>6} "
            f"{changed:>7}  [{first}]"
        )
    lines.extend(_duplicate_lines(epoch))
    lines.extend(_quality_lines(epoch))
    if epoch.ranks and epoch.ranks[0].class_counts is not None:
        lines.append("  class counts per rank:")
        classes = len(epoch.ranks[0].class_counts)
        lines.append(f"  {'rank':>4} " + " ".join(f"{f'c{c}':>6}" for c in range(classes)))
        for r in epoch.ranks:
            counts = " ".join(f"{c:>6}" for c in r.class_counts or [])
            lines.append(f"  {r.rank:>4} {counts}")
    if world_size > 1 and epoch.overlap:
        lines.append("  pairwise overlap (distinct shared indices):")
        for rank, row in enumerate(epoch.overlap_matrix):
            cells = " ".join(f"{'-' if j == rank else v:>7}" for j, v in enumerate(row))
            lines.append(f"  {rank:>4} {cells}")
    return lines
