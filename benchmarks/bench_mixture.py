"""Dataset mixtures side by side: build time, cost per draw, memory, worst prefix deviation.

Ten sources with skewed target proportions ``0.3, 0.2, 0.15, 0.1, 0.08,
0.07, 0.04, 0.03, 0.02, 0.01``; every cell runs in a fresh process
(``_harness.measure``), cells interleaved, ``--reps`` times (default 3);
times and memory are the median with the range over the reps. A second
table gives arbitrary float weights (log-normal), which ``MixtureSampler``
rounds to quotas of ``1 / 65536``: its bound then holds against the rounded
proportions, and the given floats drift away from them by at most
``draws / 65536`` samples. Reported per implementation:

* build: constructing the mixture for ``n`` draws (index arrays included
  where the implementation builds them);
* per draw: iterating all ``n`` draws, divided by ``n``;
* peak extra memory of build + iteration;
* worst prefix deviation: max over prefixes ``[0, p)`` and sources of
  ``|draws of s - p * proportion_s|`` on the first ``min(n, 10**6)`` draws,
  in samples (target: <= 1). Every implementation is seeded, so it is the
  same in every rep (the float-weights table, deviations only, runs once).

Anchors: Hugging Face ``datasets.interleave_datasets`` (probabilities,
``all_exhausted``), torchdata's ``MultiNodeWeightedSampler``
(``torchdata.nodes``), and the rule of Megatron-LM's blended index (the
source with the largest error next, ``helpers.cpp``), reimplemented here in
Python -- its deviation is the algorithm's, its time is not Megatron's C++.
MosaicML streaming does not install next to numpy >= 2.2 (it pins
``numpy<2.2``), so it is not measured.

Run: ``python benchmarks/bench_mixture.py [--quick] [--reps N]`` (a markdown table).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import bench_args, fmt_mem, fmt_time, run_cells, spread

SRC = str(Path(__file__).resolve().parents[1] / "src")
SOURCES = 10

_COMMON = f"""
import sys, time
sys.path.insert(0, {SRC!r})
import numpy as np
N = {{n}}
S = {SOURCES}
W = np.array({{weights}})
P = W / W.sum()
SIZES = np.maximum(1, np.round(P * N)).astype(np.int64)  # sources sized like their share

def deviation(sources):
    # Worst |count - p * target| over prefixes, chunked to keep memory flat.
    sources = np.asarray(sources[:10**6], dtype=np.int64)
    counts = np.zeros(S)
    worst = 0.0
    for lo in range(0, sources.size, 65536):
        chunk = sources[lo:lo + 65536]
        onehot = np.zeros((chunk.size, S))
        onehot[np.arange(chunk.size), chunk] = 1
        run = counts + onehot.cumsum(axis=0)
        p = np.arange(lo + 1, lo + chunk.size + 1)[:, None]
        worst = max(worst, float(np.abs(run - p * P).max()))
        counts = run[-1]
    return worst
"""

CASES: dict[str, tuple[str, str]] = {
    "fairshard MixtureSampler": (
        """
from fairshard import MixtureSampler
""",
        """
t0 = time.perf_counter()
s = MixtureSampler(SIZES.tolist(), W, num_samples=N, num_replicas=1, rank=0, seed=0)
plan = s.plan()
build = time.perf_counter() - t0
t0 = time.perf_counter()
count = 0
for _ in s:
    count += 1
per_draw = (time.perf_counter() - t0) / count
srcs = plan.sources(np.arange(min(N, 10**6), dtype=np.int64))
RESULT = [build, per_draw, deviation(srcs)]
""",
    ),
    "Megatron blended-index rule (Python reimpl.)": (
        "",
        """
t0 = time.perf_counter()
counts = np.zeros(S)
index = np.empty(N, dtype=np.int16)       # Megatron keeps these two arrays
sample = np.empty(N, dtype=np.int64)
pl = P.tolist()
cl = [0] * S
for i in range(N):
    x = max(i, 1)
    best, arg = -1e300, 0
    for s_ in range(S):
        e = pl[s_] * x - cl[s_]
        if e > best:
            best, arg = e, s_
    index[i] = arg
    sample[i] = cl[arg]
    cl[arg] += 1
build = time.perf_counter() - t0
t0 = time.perf_counter()
count = 0
for v in index.tolist():
    count += 1
per_draw = (time.perf_counter() - t0) / count
RESULT = [build, per_draw, deviation(index)]
""",
    ),
    "HF datasets interleave_datasets": (
        """
import datasets
datasets.disable_progress_bars()
from datasets import Dataset, interleave_datasets
parts = [Dataset.from_dict({"src": [k] * int(SIZES[k])}) for k in range(S)]
""",
        """
t0 = time.perf_counter()
mixed = interleave_datasets(parts, probabilities=P.tolist(), seed=0,
                            stopping_strategy="all_exhausted")
build = time.perf_counter() - t0
t0 = time.perf_counter()
srcs = []
for batch in mixed.select(range(min(len(mixed), N))).iter(batch_size=4096):
    srcs.extend(batch["src"])
per_draw = (time.perf_counter() - t0) / len(srcs)
RESULT = [build, per_draw, deviation(np.array(srcs))]
""",
    ),
    "torchdata MultiNodeWeightedSampler": (
        """
from torchdata.nodes import IterableWrapper, MultiNodeWeightedSampler
import itertools
""",
        """
t0 = time.perf_counter()
nodes = {str(k): IterableWrapper(itertools.repeat(k)) for k in range(S)}
node = MultiNodeWeightedSampler(nodes, {str(k): float(P[k]) for k in range(S)}, seed=0)
build = time.perf_counter() - t0
t0 = time.perf_counter()
srcs = [next(node) for _ in range(N)]
per_draw = (time.perf_counter() - t0) / N
RESULT = [build, per_draw, deviation(np.array(srcs))]
""",
    ),
}


DECIMALS = [0.3, 0.2, 0.15, 0.1, 0.08, 0.07, 0.04, 0.03, 0.02, 0.01]
LOGNORMAL = [
    round(float(v), 6) for v in __import__("numpy").random.default_rng(0).lognormal(0, 1.5, SOURCES)
]

_FLOATS = """
from fairshard import MixtureSampler
s = MixtureSampler(SIZES.tolist(), W, num_samples=N, num_replicas=1, rank=0, seed=0)
srcs = s.plan().sources(np.arange(min(N, 10**6), dtype=np.int64))
given = deviation(srcs)
P = s.proportions()
RESULT = [deviation(srcs), given]
"""


def mixture_cells(n: int, names: list[str]) -> dict[str, tuple[str, str]]:
    """The implementations' cells at ``n`` draws: (setup, body) for ``run_cells``."""
    common = _COMMON.format(n=n, weights=DECIMALS)
    return {name: (common + CASES[name][0], CASES[name][1]) for name in names}


def rows(n: int, names: list[str], reps: int) -> list[str]:
    got = run_cells(mixture_cells(n, names), reps, timeout=900)
    out = []
    for name, ms in got.items():
        good = [m for m in ms if m.ok and isinstance(m.result, list)]
        if good:
            # The deviation is a function of the seeded draws: the same in every rep.
            dev = good[0].result[2]
            build = spread([m.result[0] for m in good], ".3f", " s")
            per_draw = spread([m.result[1] * 1e9 for m in good], ".0f", " ns")
            out.append(f"| {name} | {n:.0e} | {build} | {per_draw} | {fmt_mem(good)} | {dev:.3f} |")
        else:
            out.append(f"| {name} | {n:.0e} | {fmt_time(ms)} | - | - | - |")
    return out


def float_rows(n: int) -> list[str]:
    cells = {"floats": (_COMMON.format(n=n, weights=LOGNORMAL), _FLOATS)}
    (m,) = run_cells(cells, 1, timeout=900)["floats"]  # deviations only: deterministic
    if not (m.ok and isinstance(m.result, list)):
        return [f"| {n:.0e} | {m.status} | - |"]
    return [f"| {n:.0e} | {m.result[0]:.3f} | {m.result[1]:.3f} |"]


def run(quick: bool, reps: int = 3) -> str:
    everyone = list(CASES)
    small, large = (10**5, 10**6) if quick else (10**6, 10**7)
    lines = [
        f"### Mixtures of {SOURCES} sources (proportions 0.3 ... 0.01)",
        "",
        "| implementation | draws | build | per draw | peak extra memory "
        "| worst prefix deviation |",
        "|---|---|---|---|---|---|",
        *rows(small, everyone, reps),
        *rows(large, ["fairshard MixtureSampler", "HF datasets interleave_datasets"], reps),
        "",
        "Worst prefix deviation in samples over the first 1e6 draws (target <= 1).",
        "",
        "### MixtureSampler with float weights (log-normal, rounded to 1/65536)",
        "",
        "| draws | deviation vs rounded proportions | vs the given floats |",
        "|---|---|---|",
        *float_rows(small),
    ]
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    return bench_args(__doc__, argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    print(run(args.quick, args.reps))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
