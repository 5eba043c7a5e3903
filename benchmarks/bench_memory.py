"""Memory per family: what one rank holds to build and start an epoch.

For each family at ``n`` items (1e7; ``--quick``: 1e5), rank 0 of 8: build
the sampler, plan epoch 0 and take the first index, in a fresh process; the
peak extra resident memory is divided by ``n`` (bytes per item). The inputs
(lengths, labels, weights: one 8-byte array) are made before and not counted.
Lazy orders cost a constant; materialized plans cost bytes per item, which is
what "memory does not grow with the dataset" does *not* cover.

    python benchmarks/bench_memory.py [--quick] [--reps N]
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import bench_args, fmt_mem, inputs, run_cells, table

SRC = str(Path(__file__).resolve().parents[1] / "src")

_SETUP = f"""
import sys
sys.path.insert(0, {SRC!r})
import numpy as np, torch
import fairshard as fs
N = {{n}}
{inputs()}W = dict(num_replicas=8, rank=0)
"""

FAMILIES = {
    "DistributedSampler (lazy order)": "fs.DistributedSampler(N, **W)",
    'DistributedSampler(order="torch")': 'fs.DistributedSampler(N, order="torch", **W)',
    "DistributedEvalSampler": "fs.DistributedEvalSampler(N, **W)",
    "WeightedSampler(replacement=True)": "fs.WeightedSampler(weights, **W)",
    "WeightedSampler(replacement=False)": "fs.WeightedSampler(weights, replacement=False, **W)",
    "ClassBalancedSampler(replacement=True)": "fs.ClassBalancedSampler(labels, **W)",
    "ClassBalancedSampler(replacement=False)": (
        "fs.ClassBalancedSampler(labels, replacement=False, num_samples=N // 2, **W)"
    ),
    "HardExampleSampler": "fs.HardExampleSampler(N, **W)",
    "ShardedSampler(RandomSampler)": (
        "fs.ShardedSampler(torch.utils.data.RandomSampler(range(N)), **W)"
    ),
    "LengthBucketBatchSampler(32)": "fs.LengthBucketBatchSampler(lengths, 32, **W)",
    "TokenBudgetBatchSampler(16384)": "fs.TokenBudgetBatchSampler(lengths, 16384, **W)",
    "ClassBatchSampler(P=16 x K=4)": "fs.ClassBatchSampler(labels, 4, classes_per_batch=16, **W)",
    "BatchShardSampler(BatchSampler(32))": (
        "fs.BatchShardSampler(torch.utils.data.BatchSampler(range(N), 32, False), **W)"
    ),
}


def _resolve(make: str) -> str:
    """Setup code that resolves the family's lazy import (``fs.X``) before the measure.

    ``import fairshard`` imports no family; the first use of one imports its
    modules (about 3.5 MiB of code and tables for any family). That is paid
    once per process, not per item, so it stays out of the measured body as
    it stays out of bench_samplers' and bench_streams' timed ones.
    """
    return "".join(f"_ = fs.{name}\n" for name in dict.fromkeys(re.findall(r"fs\.(\w+)", make)))


def main(argv: list[str] | None = None) -> int:
    args = bench_args(__doc__, argv)
    n = 10**5 if args.quick else 10**7
    setup = _SETUP.format(n=n)
    cells = {
        name: (setup + _resolve(make), f"s = {make}\nRESULT = next(iter(s))")
        for name, make in FAMILIES.items()
    }
    got = run_cells(cells, args.reps, timeout=900)
    rows = []
    for name, ms in got.items():
        ok = sorted(m.peak_extra_mib for m in ms if m.ok)
        per_item = f"{ok[len(ok) // 2] * 2**20 / n:.1f}" if ok else "n/a"
        rows.append([name, fmt_mem(ms), per_item])
    print(f"### Memory per family: build + plan + first index, {n:.0e} items, rank 0 of 8\n")
    print(table(["family", "peak extra, median (range)", "bytes per item"], rows), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
