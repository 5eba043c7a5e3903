"""Weighted sampling: fairshard.WeightedSampler vs torch's WeightedRandomSampler.

Rows (each measured in a fresh child process by ``_harness.measure``):

* a full epoch with replacement (``num_samples == len(weights)``), iterated
  as a DataLoader would, for both samplers at 2**24 weights (the largest
  torch accepts); ours is timed as construction + epoch, and the epoch alone
  (what later epochs cost: the alias table is built once);
* 1e8 weights: torch refuses (its error is shown), ours builds and draws a
  full epoch; peak extra memory is compared with the weights array.

Run: ``python benchmarks/cases_weighted.py`` (``--quick`` for small sizes).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import Measurement, fmt_mib, fmt_seconds, measure

_SRC = str(Path(__file__).resolve().parent.parent / "src")

_SETUP = """
import sys, collections, time
sys.path.insert(0, {src!r})
import numpy as np, torch
N = {n}
weights = np.random.default_rng(0).random(N)
weights_t = torch.from_numpy(weights)
from torch.utils.data import WeightedRandomSampler
from fairshard import WeightedSampler
"""

_TORCH = """
s = WeightedRandomSampler(weights_t, N, replacement=True)
collections.deque(iter(s), maxlen=0)
"""

_OURS = """
t0 = time.perf_counter()
s = WeightedSampler(weights, num_replicas=1, rank=0)
built = time.perf_counter() - t0
t0 = time.perf_counter()
collections.deque(iter(s), maxlen=0)
RESULT = {{"build": built, "epoch": time.perf_counter() - t0, "len": len(s)}}
"""


def _ours_epoch(m: Measurement) -> str:
    if not m.ok or not isinstance(m.result, dict):
        return m.status
    return f"{m.result['epoch']:.3f} s"


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.1f}x" if b > 0 else "n/a"


def run(quick: bool) -> str:
    """Measure the weighted cases and return a markdown table."""
    n_cmp = 1 << (16 if quick else 24)
    n_big = 10**6 if quick else 10**8
    setup_cmp = _SETUP.format(src=_SRC, n=n_cmp)
    setup_big = _SETUP.format(src=_SRC, n=n_big)
    theirs = measure(setup_cmp, _TORCH)
    ours = measure(setup_cmp, _OURS.format())
    theirs_big = measure(setup_big, _TORCH)
    ours_big = measure(setup_big, _OURS.format())
    weights_mib = n_big * 8 / 2**20

    lines = [
        "| case | sampler | time (build + epoch) | epoch only | peak extra RSS | "
        "torch time / ours |",
        "|---|---|---|---|---|---|",
    ]
    total_ratio = "n/a"
    epoch_ratio = "n/a"
    if theirs.ok and ours.ok and isinstance(ours.result, dict):
        total_ratio = _ratio(theirs.seconds, ours.seconds)
        epoch_ratio = _ratio(theirs.seconds, float(ours.result["epoch"]))
    lines.append(
        f"| {n_cmp:,} weights, {n_cmp:,} draws | torch WeightedRandomSampler | "
        f"{fmt_seconds(theirs)} | {fmt_seconds(theirs)} | {fmt_mib(theirs)} | 1.0x |"
    )
    lines.append(
        f"| {n_cmp:,} weights, {n_cmp:,} draws | fairshard WeightedSampler | "
        f"{fmt_seconds(ours)} | {_ours_epoch(ours)} | {fmt_mib(ours)} | "
        f"{total_ratio} (epoch only: {epoch_ratio}) |"
    )
    lines.append(
        f"| {n_big:,} weights, {n_big:,} draws | torch WeightedRandomSampler | "
        f"{fmt_seconds(theirs_big)} | - | {fmt_mib(theirs_big)} | - |"
    )
    memory = "n/a"
    if ours_big.ok:
        memory = f"{ours_big.peak_extra_mib / weights_mib:.2f}x the weights ({weights_mib:.0f} MiB)"
    lines.append(
        f"| {n_big:,} weights, {n_big:,} draws | fairshard WeightedSampler | "
        f"{fmt_seconds(ours_big)} | {_ours_epoch(ours_big)} | {fmt_mib(ours_big)} | "
        f"memory {memory} |"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    print(run(quick="--quick" in sys.argv[1:]))
