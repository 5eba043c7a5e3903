"""Batch samplers on a realistic length distribution: padding, step balance, plan time.

Lengths are log-normal (mean log 5, sigma 0.8, rounded, clipped to [1, 4096]:
median ~150 tokens, a long tail), 8 ranks. Reported:

* padding waste = padding tokens / real tokens, for random batches of the
  same batch size against ``LengthBucketBatchSampler`` and
  ``TokenBudgetBatchSampler`` (target: ours <= 1/3 of random's);
* per-step cost imbalance = mean over steps of (max cost over the 8 ranks /
  mean), for our plan order against a naive round-robin assignment of the
  same batches in a shuffled order (target: ours <= 1.10);
* time to plan one epoch of 1e7 items, each in a fresh process.

Run as a script (``python benchmarks/cases_batch.py [--quick]``) or call
``run(quick)``; both return a markdown table.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from _harness import fmt_mib, fmt_seconds, measure

from fairshard._batching.cost_balance import step_imbalance
from fairshard._batching.length_bucket import LengthBucketBatchSampler
from fairshard._batching.token_budget import TokenBudgetBatchSampler

WORLD = 8
BATCH_SIZE = 32
MAX_TOKENS = 16384


def lognormal_lengths(n: int, seed: int = 0) -> np.ndarray:
    raw = np.random.default_rng(seed).lognormal(5.0, 0.8, n)
    return np.clip(np.rint(raw), 1, 4096).astype(np.int64)


def padded_cost(lengths: np.ndarray, batches: list[np.ndarray]) -> np.ndarray:
    return np.array([lengths[b].max() * b.size for b in batches], dtype=np.float64)


def _plan_batches(sampler: object) -> list[np.ndarray]:
    plan = sampler.plan()  # type: ignore[attr-defined]
    return [plan.batch(i) for i in range(len(plan))]


def quality_rows(n: int) -> list[str]:
    lengths = lognormal_lengths(n)
    real = float(lengths.sum())
    rng = np.random.default_rng(1)
    random_batches = np.array_split(rng.permutation(n), -(-n // BATCH_SIZE))
    random_waste = padded_cost(lengths, random_batches).sum() / real - 1
    rows = [
        f"| random batches of {BATCH_SIZE} | {random_waste:.3f} | 1.00x | "
        f"{step_imbalance(padded_cost(lengths, random_batches), WORLD):.3f} | - | - |"
    ]
    samplers = {
        f"LengthBucketBatchSampler({BATCH_SIZE})": LengthBucketBatchSampler(
            lengths, BATCH_SIZE, num_replicas=WORLD, rank=0
        ),
        f"TokenBudgetBatchSampler({MAX_TOKENS})": TokenBudgetBatchSampler(
            lengths, MAX_TOKENS, num_replicas=WORLD, rank=0
        ),
    }
    for name, sampler in samplers.items():
        batches = _plan_batches(sampler)
        costs = padded_cost(lengths, batches)
        waste = costs.sum() / real - 1
        naive = costs[np.random.default_rng(2).permutation(costs.size)]  # round-robin, shuffled
        rows.append(
            f"| {name} | {waste:.4f} | {waste / random_waste:.3f}x | "
            f"{step_imbalance(naive, WORLD):.3f} | {step_imbalance(costs, WORLD):.4f} | "
            f"{step_imbalance(costs, 7):.4f} |"
        )
    return rows


_SETUP = """
import sys
sys.path.insert(0, {src!r})
import numpy as np
from fairshard._batching.length_bucket import LengthBucketBatchSampler
from fairshard._batching.token_budget import TokenBudgetBatchSampler
from fairshard._batching.class_batch import ClassBatchSampler
raw = np.random.default_rng(0).lognormal(5.0, 0.8, {n})
lengths = np.clip(np.rint(raw), 1, 4096).astype(np.int64)
labels = np.random.default_rng(1).integers(0, 1000, {n})
sampler = {make}
"""
_BODY = "plan = sampler.plan(0)\nRESULT = len(plan)"


def timing_rows(n: int) -> list[str]:
    src = str(Path(__file__).resolve().parents[1] / "src")
    makes = {
        "LengthBucketBatchSampler": f"LengthBucketBatchSampler(lengths, {BATCH_SIZE}, "
        "num_replicas=8, rank=0)",
        "TokenBudgetBatchSampler": f"TokenBudgetBatchSampler(lengths, {MAX_TOKENS}, "
        "num_replicas=8, rank=0)",
        "ClassBatchSampler (1000 classes, P=16 x K=4, stop)": (
            "ClassBatchSampler(labels, 4, classes_per_batch=16, num_replicas=8, rank=0)"
        ),
        "ClassBatchSampler (1000 classes, all x K=1, recycle)": (
            "ClassBatchSampler(labels, 1, policy='recycle', num_replicas=8, rank=0)"
        ),
    }
    rows = []
    for name, make in makes.items():
        m = measure(_SETUP.format(src=src, n=n, make=make), _BODY, timeout=600)
        batches = m.result if m.ok else "-"
        rows.append(f"| {name} | {n:.0e} | {batches} | {fmt_seconds(m)} | {fmt_mib(m)} |")
    return rows


def run(quick: bool) -> str:
    n_quality = 10**5 if quick else 10**6
    n_timing = 10**5 if quick else 10**7
    lines = [
        f"### Batch samplers: log-normal lengths, {n_quality:.0e} items, {WORLD} ranks",
        "",
        "| batching | padding / real tokens | vs random | step imbalance, naive "
        "round-robin (W=8) | ours (W=8) | ours (W=7) |",
        "|---|---|---|---|---|---|",
        *quality_rows(n_quality),
        "",
        "Step imbalance: mean over steps of max/mean batch cost (padded tokens) across ranks.",
        "",
        f"### Time to plan one epoch ({n_timing:.0e} items)",
        "",
        "| sampler | items | batches | plan time | peak extra memory |",
        "|---|---|---|---|---|",
        *timing_rows(n_timing),
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print(run(quick="--quick" in sys.argv[1:]))
