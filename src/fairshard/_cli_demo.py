"""``fairshard demo``: the main job (a simulation report for now)."""

from __future__ import annotations

import argparse
import functools
from typing import Any

from ._distributed import DistributedSampler
from ._simulate import simulate

__all__ = ["register", "run"]


def register(sub: Any) -> None:
    """Add the ``demo`` sub-command."""
    p: argparse.ArgumentParser = sub.add_parser(
        "demo", help="show what fairshard does on a 1003-sample dataset and 4 ranks"
    )
    p.add_argument("--dataset-size", type=int, default=1003)
    p.add_argument("--world-size", type=int, default=4)
    p.set_defaults(func=run)


def _make(n: int, drop_last: bool, rank: int, world: int) -> DistributedSampler:
    return DistributedSampler(n, world, rank, drop_last=drop_last)


def run(args: argparse.Namespace) -> int:
    """Simulate the dataset on the ranks with padding and with drop_last."""
    for drop_last in (False, True):
        report = simulate(
            functools.partial(_make, args.dataset_size, drop_last),
            args.world_size,
            epochs=2,
            dataset_size=args.dataset_size,
        )
        print(f"== DistributedSampler(drop_last={drop_last})")
        print(report.to_text())
        print()
    return 0
