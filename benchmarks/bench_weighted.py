"""WeightedSampler vs torch's WeightedRandomSampler, with and without replacement.

Each cell is a fresh process (build + one full epoch of rank 0, consumed as a
DataLoader would), interleaved, ``--reps`` times; median (range) and ratios
per rep. torch refuses more than 2**24 weights, so at 1e8 only fairshard
runs; its peak extra memory is compared with the weights array (8 bytes per
weight). Without replacement every rank builds the whole Efraimidis-Spirakis
order (the build cannot shrink with W; the epoch it then yields does).

    python benchmarks/bench_weighted.py [--quick] [--reps N]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import bench_args, fmt_mem, fmt_ratio, fmt_time, run_cells, table

SRC = str(Path(__file__).resolve().parents[1] / "src")

_SETUP = f"""
import sys, collections
sys.path.insert(0, {SRC!r})
import numpy as np, torch
weights = np.random.default_rng(0).random({{n}})
weights_t = torch.from_numpy(weights)
from torch.utils.data import WeightedRandomSampler
from fairshard import WeightedSampler
"""
_TORCH = "collections.deque(WeightedRandomSampler(weights_t, {n}, replacement={r}), maxlen=0)"
_OURS = (
    "collections.deque(WeightedSampler(weights, {n}, replacement={r}, num_replicas={w}, rank=0),"
    " maxlen=0)"
)


def compare_cells(n: int, replacement: bool) -> dict[str, tuple[str, str]]:
    """torch's and fairshard's cell at ``n`` weights (also bench_check's)."""
    setup = _SETUP.format(n=n)
    return {
        "torch": (setup, _TORCH.format(n=n, r=replacement)),
        "fairshard": (setup, _OURS.format(n=n, r=replacement, w=1)),
    }


def compare(sizes: list[int], replacement: bool, reps: int) -> list[list[str]]:
    rows = []
    for n in sizes:
        got = run_cells(compare_cells(n, replacement), reps)
        rows.append(
            [
                f"{n:,}",
                str(replacement),
                fmt_time(got["torch"]),
                fmt_time(got["fairshard"]),
                fmt_ratio(got["torch"], got["fairshard"]),
                fmt_mem(got["torch"]),
                fmt_mem(got["fairshard"]),
            ]
        )
    return rows


def large_cells(n: int, worlds: list[int]) -> dict[str, tuple[str, str]]:
    """fairshard's cells at ``n`` weights, ``"replacement/W"`` each (also bench_check's)."""
    setup = _SETUP.format(n=n)
    return {f"{r}/{w}": (setup, _OURS.format(n=n, r=r, w=w)) for r in (True, False) for w in worlds}


def large(n: int, worlds: list[int], reps: int) -> list[list[str]]:
    got = run_cells(large_cells(n, worlds), reps)
    weights_mib = n * 8 / 2**20
    rows = []
    for name, ms in got.items():
        r, w = name.split("/")
        ok = [m.peak_extra_mib for m in ms if m.ok]
        ratio = f"{sorted(ok)[len(ok) // 2] / weights_mib:.2f}x" if ok else "n/a"
        rows.append([f"{n:,}", r, w, fmt_time(ms), fmt_mem(ms), ratio])
    return rows


def main(argv: list[str] | None = None) -> int:
    args = bench_args(__doc__, argv)
    sizes = [10**5, 1 << 18] if args.quick else [10**6, 1 << 24]
    n_big = 10**6 if args.quick else 10**8
    print("### WeightedSampler vs WeightedRandomSampler (one process, build + epoch)\n")
    rows = compare(sizes, True, args.reps) + compare(sizes, False, args.reps)
    print(
        table(
            [
                "weights",
                "replacement",
                "torch",
                "fairshard",
                "torch / fairshard",
                "torch peak extra",
                "fairshard peak extra",
            ],
            rows,
        ),
        flush=True,
    )
    print(f"\n### WeightedSampler at {n_big:.0e} weights (torch refuses > 2**24), rank 0 of W\n")
    print(
        table(
            ["weights", "replacement", "W", "build + epoch", "peak extra", "peak / weights"],
            large(n_big, [1, 8], args.reps),
        ),
        flush=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
