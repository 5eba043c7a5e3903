"""``fairshard simulate``: every virtual rank's share of a DistributedSampler."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ._distributed import DistributedSampler
from ._simulate import SimulationReport, simulate

__all__ = ["register", "run"]


def register(sub: Any) -> None:
    """Add the ``simulate`` sub-command."""
    p: argparse.ArgumentParser = sub.add_parser(
        "simulate",
        help="show every rank's share of a sampler, without launching processes",
        description="Run a DistributedSampler for virtual ranks 0..W-1 in one process.",
    )
    p.add_argument("--dataset-size", "-n", type=int, required=True, help="number of samples")
    p.add_argument("--world-size", "-w", type=int, default=4, help="number of ranks (default 4)")
    p.add_argument("--epochs", type=int, default=1, help="epochs to run (default 1)")
    p.add_argument("--seed", type=int, default=0, help="root seed (default 0)")
    p.add_argument("--no-shuffle", action="store_true", help="keep dataset order")
    p.add_argument("--drop-last", action="store_true", help="drop the tail instead of padding")
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.add_argument("--check", action="store_true",
                   help="exit 1 when an invariant fails (missing samples, len mismatch)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the simulation described by ``args``; print it; return the exit code."""

    def make(rank: int, world: int) -> DistributedSampler:
        return DistributedSampler(
            args.dataset_size, world, rank, shuffle=not args.no_shuffle, seed=args.seed,
            drop_last=args.drop_last,
        )

    report = simulate(make, args.world_size, epochs=args.epochs, dataset_size=args.dataset_size)
    print(json.dumps(report.to_dict(), indent=2) if args.json else report.to_text())
    return 1 if args.check and problems(report, args.drop_last) else 0


def problems(report: SimulationReport, drop_last: bool) -> list[str]:
    """Invariant violations in ``report``, as sentences."""
    found: list[str] = []
    for epoch in report.epochs:
        if not epoch.equal_steps:
            found.append(f"epoch {epoch.epoch}: ranks take different numbers of steps")
        allowed = report.world_size - 1 if drop_last else 0
        if epoch.missing is not None and epoch.missing > allowed:
            found.append(f"epoch {epoch.epoch}: {epoch.missing} samples missing")
        found.extend(
            f"epoch {epoch.epoch}: rank {r.rank} len()={r.length} but yielded {r.yielded}"
            for r in epoch.ranks
            if not r.len_matches
        )
    return found
