"""fairshard vs PyTorch's samplers, measured in the same run.

Every cell runs in a fresh child process (benchmarks/_harness.py), so peak
memory is per case. Times on shared machines are noise; the ratios between
two cells of one run are what count.

    python benchmarks/bench_samplers.py            # full: n = 1e6 .. 1e9
    python benchmarks/bench_samplers.py --quick    # seconds: n = 1e5, 1e6

Cases (rank 0 of 8, shuffle=True unless stated):
  epoch   one full per-rank epoch, consumed without storing it
  resume  from a state in the middle of the epoch to the first index
  yield   shuffle=False epoch vs iterating np.arange(m).tolist() of the same length
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import Measurement, fmt_mib, fmt_seconds, measure, ratio

WORLD = 8
MEMORY_LIMIT_GIB = 16.0  # a runaway allocation raises MemoryError instead of swapping

SETUP = """
from collections import deque
from itertools import islice
import numpy as np
import torch.utils.data as tud
import fairshard
"""


def epoch_row(n: int) -> list[str]:
    theirs = measure(
        SETUP,
        f"deque(tud.DistributedSampler(range({n}), {WORLD}, 0), maxlen=0)",
        memory_limit_gib=MEMORY_LIMIT_GIB,
    )
    ours = measure(
        SETUP,
        f"deque(fairshard.DistributedSampler({n}, {WORLD}, 0), maxlen=0)",
        memory_limit_gib=MEMORY_LIMIT_GIB,
    )
    return [
        f"{n:.0e}",
        fmt_seconds(theirs),
        fmt_seconds(ours),
        ratio(theirs, ours),
        fmt_mib(theirs),
        fmt_mib(ours),
    ]


def resume_row(n: int) -> list[str]:
    half = n // WORLD // 2
    theirs = measure(
        SETUP + f"s = tud.DistributedSampler(range({n}), {WORLD}, 0)\n",
        f"RESULT = next(islice(iter(s), {half}, None))",
        memory_limit_gib=MEMORY_LIMIT_GIB,
    )
    setup = (
        SETUP
        + f"""
src = fairshard.DistributedSampler({n}, {WORLD}, 0)
it = iter(src); next(it)
from fairshard._core.state import seal
st = {{k: v for k, v in src.state_dict().items() if k not in ("format", "version", "checksum")}}
state = seal({{**st, "steps": {half}}})
s = fairshard.DistributedSampler({n}, {WORLD}, 0)
"""
    )
    ours = measure(
        setup, "s.load_state_dict(state); RESULT = next(iter(s))", memory_limit_gib=MEMORY_LIMIT_GIB
    )
    ms = f"{ours.seconds * 1e3:.3f} ms" if ours.ok else ours.status
    return [f"{n:.0e}", fmt_seconds(theirs), ms, ratio(theirs, ours)]


def yield_row(n: int) -> list[str]:
    m = -(-n // WORLD)
    base = measure(SETUP, f"deque(np.arange({m}).tolist(), maxlen=0)")
    plain = measure(
        SETUP, f"deque(fairshard.DistributedSampler({n}, {WORLD}, 0, shuffle=False), maxlen=0)"
    )
    shuffled = measure(SETUP, f"deque(fairshard.DistributedSampler({n}, {WORLD}, 0), maxlen=0)")

    def rel(x: Measurement) -> str:
        return f"{x.seconds / base.seconds:.2f}x" if x.ok and base.ok else "n/a"

    return [
        f"{n:.0e}",
        fmt_seconds(base),
        fmt_seconds(plain),
        rel(plain),
        fmt_seconds(shuffled),
        rel(shuffled),
    ]


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, runs in seconds")
    parser.add_argument(
        "--only",
        choices=["core", "weighted", "batch"],
        action="append",
        help="run only these groups (repeatable)",
    )
    args = parser.parse_args(argv)
    groups = args.only or ["core", "weighted", "batch"]
    sizes = [10**5, 10**6] if args.quick else [10**6, 10**7, 10**8, 10**9]
    if "core" in groups:
        print(f"## DistributedSampler, full per-rank epoch (rank 0 of {WORLD})\n")
        print(
            table(
                [
                    "n",
                    "torch time",
                    "fairshard time",
                    "speed-up",
                    "torch peak extra",
                    "fairshard peak extra",
                ],
                [epoch_row(n) for n in sizes],
            ),
            flush=True,
        )
        print(f"\n## Resume in the middle of the epoch (rank 0 of {WORLD}, to the first index)\n")
        print(
            table(
                ["n", "torch (skip)", "fairshard (load_state_dict)", "speed-up"],
                [resume_row(n) for n in sizes if n <= 10**8],
            ),
            flush=True,
        )
        print("\n## Yield cost vs iterating np.arange(m).tolist() (m = per-rank count)\n")
        print(
            table(
                [
                    "n",
                    "arange.tolist",
                    "fairshard shuffle=False",
                    "ratio",
                    "fairshard shuffle=True",
                    "ratio",
                ],
                [yield_row(n) for n in sizes[:3]],
            ),
            flush=True,
        )
    for group in ("weighted", "batch"):
        if group in groups:
            try:
                module = importlib.import_module(f"cases_{group}")
            except ModuleNotFoundError:
                continue
            print()
            print(module.run(args.quick), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
