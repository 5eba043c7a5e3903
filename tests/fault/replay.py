"""Replay the ledgers of a fault-injected job and count what was lost or repeated.

Generations are ordered by ``(launch, gen)``. Each generation ``i`` after the
first resumed from a checkpoint at global step ``resume[i]``, and every one
of its ranks recorded that step in its ``start`` record. The commit rule:

* entries of generation ``i`` with ``step <= resume[i + 1]`` are committed --
  the next generation continued after them;
* entries with a larger step were done after the last checkpoint and before
  the kill: the *redo window*, counted separately (the job does them again);
* the last generation commits everything, and every one of its ranks must
  have recorded ``done``.

Then, per epoch, the committed indices must equal the family's expected
multiset plus exactly the padding duplicates, minus exactly the dropped
positions, that the segment which finished the epoch declared.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fault.families import Family
from tests.fault.ledger import read_ledgers

__all__ = ["EpochResult", "ReplayResult", "replay", "replay_records"]

Gen = tuple[int, int]


@dataclass
class EpochResult:
    """What the committed ledger entries of one epoch add up to."""

    epoch: int
    consumed: int
    padded: int
    dropped: int
    lost: int  # expected indices missing minus the declared drops (0 when exact)
    repeated: int  # duplicates minus the declared padding (0 when exact)
    foreign: int  # indices that are not in the expected multiset at all


@dataclass
class ReplayResult:
    """The whole job: per-epoch results, kills, redo window, problems."""

    epochs: list[EpochResult] = field(default_factory=list)
    generations: int = 0
    kills: int = 0
    halts: int = 0
    redo: int = 0  # indices consumed in redo windows
    problems: list[str] = field(default_factory=list)

    @property
    def lost(self) -> int:
        """Samples lost over all epochs (a shortfall of declared drops counts too)."""
        return sum(abs(e.lost) for e in self.epochs)

    @property
    def repeated(self) -> int:
        """Samples repeated beyond declared padding (and foreign ones) over all epochs."""
        return sum(abs(e.repeated) + e.foreign for e in self.epochs)

    @property
    def ok(self) -> bool:
        """Nothing lost, nothing repeated, no structural problem."""
        return not self.problems and self.lost == 0 and self.repeated == 0


def _resume_points(by_gen: dict[Gen, list[dict[str, Any]]], result: ReplayResult) -> dict[Gen, int]:
    points: dict[Gen, int] = {}
    for gen, records in by_gen.items():
        starts = {r["resume_step"] for r in records if r["t"] == "start"}
        if len(starts) != 1:
            result.problems.append(f"generation {gen}: ranks resumed from steps {sorted(starts)}")
        points[gen] = min(starts) if starts else 0
    return points


def replay_records(
    records: list[dict[str, Any]], family: Family, dataset_size: int, seed: int, epochs: int
) -> ReplayResult:
    """Apply the commit rule to ledger records and check every epoch."""
    result = ReplayResult()
    by_gen: dict[Gen, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        by_gen[(record["launch"], record["gen"])].append(record)
    order = sorted(by_gen)
    result.generations = len(order)
    if not order:
        result.problems.append("no ledger records")
        return result
    resume = _resume_points(by_gen, result)
    seen: dict[int, Counter[int]] = defaultdict(Counter)
    tails: dict[int, dict[str, int]] = {}
    for i, gen in enumerate(order):
        limit = resume[order[i + 1]] if i + 1 < len(order) else None
        if limit is not None and limit < resume[gen]:
            result.problems.append(f"generation {order[i + 1]} resumed before generation {gen}")
        for r in sorted(by_gen[gen], key=lambda r: (r.get("step", -1), r["rank"])):
            committed = limit is None or r.get("step", -1) <= limit
            if r["t"] == "kill":
                result.kills += 1
            elif r["t"] == "halt":
                result.halts += 1
            elif r["t"] == "segment" and committed and r["rank"] == 0:
                tails[r["epoch"]] = {"padded": r["padded"], "dropped": r["dropped"]}
            elif r["t"] == "items" and committed:
                seen[r["epoch"]].update(r["indices"])
            elif r["t"] == "items":
                result.redo += len(r["indices"])
    last = by_gen[order[-1]]
    ranks = {r["rank"] for r in last if r["t"] == "start"}
    done = {r["rank"] for r in last if r["t"] == "done"}
    if not ranks or done != ranks:
        result.problems.append(
            f"last generation {order[-1]}: ranks {sorted(ranks - done)} never finished"
        )
    for epoch in range(epochs):
        expected = family.expected_epoch(dataset_size, seed, epoch)
        tail = tails.get(epoch, {"padded": 0, "dropped": 0})
        got = seen.get(epoch, Counter())
        missing = sum((expected - got).values())
        extra_counter = got - expected
        foreign = sum(c for i, c in extra_counter.items() if i not in expected)
        extra = sum(extra_counter.values()) - foreign
        result.epochs.append(
            EpochResult(
                epoch=epoch,
                consumed=sum(got.values()),
                padded=tail["padded"],
                dropped=tail["dropped"],
                lost=missing - tail["dropped"],
                repeated=extra - tail["padded"],
                foreign=foreign,
            )
        )
    return result


def replay(
    run_dir: Path, family: Family, dataset_size: int, seed: int, epochs: int
) -> ReplayResult:
    """Replay the ledgers under ``run_dir/ledgers``."""
    return replay_records(
        list(read_ledgers(run_dir / "ledgers")), family, dataset_size, seed, epochs
    )
