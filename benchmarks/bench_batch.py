"""Batch samplers: padding, step balance (also under attention cost), plan time and memory.

Lengths are log-normal (mean log 5, sigma 0.8, rounded, clipped to [1, 4096]:
median ~150 tokens, a long tail), 8 ranks, labels uniform over 1000 classes.

* quality: padding waste (padding / real tokens) and step imbalance (mean
  over steps of max / mean cost over the 8 ranks of one step), under the
  padded-token cost and under the attention-aware cost
  ``bs * L + 0.001 * bs * L**2`` of HF's ``BatchRebalanceSampler``;
* plan time and peak extra memory of one epoch, each cell a fresh process,
  interleaved, ``--reps`` times: fairshard at 1e7 items (the target: <= 1 s
  and <= 2x the input arrays), and fairshard beside its peers (HF
  ``LengthGroupedSampler`` / ``BatchRebalanceSampler``, lhotse
  ``DynamicBucketingSampler``, pytorch-metric-learning ``MPerClassSampler``)
  at 1e6 items, where the peers finish.

    python benchmarks/bench_batch.py [--quick] [--reps N]
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from _harness import bench_args, fmt_mem, fmt_time, run_cells, table

from fairshard import (
    AttentionCost,
    LengthBucketBatchSampler,
    TokenBudgetBatchSampler,
    step_imbalance,
)

SRC = str(Path(__file__).resolve().parents[1] / "src")
WORLD = 8
BATCH_SIZE = 32
MAX_TOKENS = 16384
HF_COEF = 0.001  # transformers' BatchRebalanceSampler.QUADRATIC_COST_COEF


def lognormal_lengths(n: int, seed: int = 0) -> np.ndarray:
    raw = np.random.default_rng(seed).lognormal(5.0, 0.8, n)
    return np.clip(np.rint(raw), 1, 4096).astype(np.int64)


def _costs(lengths: np.ndarray, batches: list[np.ndarray], coef: float) -> np.ndarray:
    model = AttentionCost(coef)
    return np.array([model(lengths[b]) for b in batches], dtype=np.float64)


def _plan_batches(sampler: object) -> list[np.ndarray]:
    plan = sampler.plan()  # type: ignore[attr-defined]
    return [plan.batch(i) for i in range(len(plan))]


def _hf_steps(lengths: np.ndarray, coef: float) -> tuple[float, float, float]:
    """HF BatchRebalanceSampler on 8 ranks: (waste, imbalance padded, imbalance attention)."""
    from transformers.trainer_pt_utils import BatchRebalanceSampler

    per_rank = [
        [
            np.asarray(b)
            for b in BatchRebalanceSampler(lengths.tolist(), BATCH_SIZE * WORLD, WORLD, 1, rank=r)
        ]
        for r in range(WORLD)
    ]
    steps = min(len(p) for p in per_rank)
    flat = [per_rank[r][s] for s in range(steps) for r in range(WORLD)]  # strided order
    padded, attention = _costs(lengths, flat, 0.0), _costs(lengths, flat, coef)
    real = sum(float(lengths[b].sum()) for b in flat)
    return padded.sum() / real - 1, step_imbalance(padded, WORLD), step_imbalance(attention, WORLD)


def quality_rows(n: int) -> list[list[str]]:
    lengths = lognormal_lengths(n)
    rng = np.random.default_rng(1)
    random_batches = np.array_split(rng.permutation(n), -(-n // BATCH_SIZE))
    rows = []

    def add(name: str, batches: list[np.ndarray]) -> None:
        padded, attention = _costs(lengths, batches, 0.0), _costs(lengths, batches, HF_COEF)
        waste = padded.sum() / sum(float(lengths[b].sum()) for b in batches) - 1
        rows.append(
            [
                name,
                f"{waste:.3f}",
                f"{step_imbalance(padded, WORLD):.3f}",
                f"{step_imbalance(attention, WORLD):.3f}",
            ]
        )

    add(f"random batches of {BATCH_SIZE}", random_batches)
    common = {"num_replicas": WORLD, "rank": 0}
    add(
        f"fairshard LengthBucketBatchSampler({BATCH_SIZE})",
        _plan_batches(LengthBucketBatchSampler(lengths, BATCH_SIZE, **common)),
    )
    add(
        f"fairshard TokenBudgetBatchSampler({MAX_TOKENS})",
        _plan_batches(TokenBudgetBatchSampler(lengths, MAX_TOKENS, **common)),
    )
    budget = AttentionCost(HF_COEF)(np.array([512] * BATCH_SIZE))
    add(
        f"fairshard TokenBudgetBatchSampler({budget:.0f}, cost=AttentionCost({HF_COEF}))",
        _plan_batches(
            TokenBudgetBatchSampler(lengths, budget, cost=AttentionCost(HF_COEF), **common)
        ),
    )
    if importlib.util.find_spec("transformers") is not None:
        waste, pad_imb, att_imb = _hf_steps(lengths, HF_COEF)
        rows.append(
            [
                f"HF BatchRebalanceSampler({BATCH_SIZE} per rank)",
                f"{waste:.3f}",
                f"{pad_imb:.3f}",
                f"{att_imb:.3f}",
            ]
        )
    return rows


_SETUP = f"""
import sys
sys.path.insert(0, {SRC!r})
import numpy as np
raw = np.random.default_rng(0).lognormal(5.0, 0.8, {{n}})
lengths = np.clip(np.rint(raw), 1, 4096).astype(np.int64)
labels = np.random.default_rng(1).integers(0, 1000, {{n}})
import fairshard
"""

OURS = {
    "LengthBucketBatchSampler(32)": "fairshard.LengthBucketBatchSampler(lengths, 32, "
    "num_replicas=8, rank=0).plan(0)",
    "TokenBudgetBatchSampler(16384)": "fairshard.TokenBudgetBatchSampler(lengths, 16384, "
    "num_replicas=8, rank=0).plan(0)",
    "ClassBatchSampler(P=16 x K=4, stop)": "fairshard.ClassBatchSampler(labels, 4, "
    "classes_per_batch=16, num_replicas=8, rank=0).plan(0)",
    "ClassBatchSampler(all x K=1, recycle)": "fairshard.ClassBatchSampler(labels, 1, "
    "policy='recycle', num_replicas=8, rank=0).plan(0)",
    "BatchShardSampler(BatchSampler(32))": "fairshard.BatchShardSampler(__import__('torch')"
    ".utils.data.BatchSampler(range(len(lengths)), 32, False), num_replicas=8, rank=0).plan(0)",
}

PEERS = {
    "transformers": {
        "HF LengthGroupedSampler(32)": (
            "from transformers.trainer_pt_utils import LengthGroupedSampler\n",
            "list(LengthGroupedSampler(32, lengths=lengths.tolist()))",
        ),
        "HF BatchRebalanceSampler(32 x 8)": (
            "from transformers.trainer_pt_utils import BatchRebalanceSampler\n",
            "list(BatchRebalanceSampler(lengths.tolist(), 256, 8, 1, rank=0))",
        ),
    },
    "lhotse": {
        "lhotse DynamicBucketingSampler": (
            "from lhotse import CutSet\nfrom lhotse.testing.dummies import dummy_cut\n"
            "from lhotse.dataset import DynamicBucketingSampler\n"
            "cuts = CutSet.from_cuts(dummy_cut(i, duration=float(d) / 100) "
            "for i, d in enumerate(lengths))\n",
            "list(DynamicBucketingSampler(cuts, max_duration=163.84, world_size=8, rank=0))",
        ),
    },
    "pytorch_metric_learning": {
        "pml MPerClassSampler(m=4, batch 64)": (
            "from pytorch_metric_learning.samplers import MPerClassSampler\n",
            "list(MPerClassSampler(labels, 4, batch_size=64, length_before_new_iter=len(labels)))",
        ),
    },
}


def plan_cells(n: int, peers: bool) -> dict[str, tuple[str, str]]:
    """The plan cells at ``n`` items: (setup, body) for ``run_cells`` (also bench_check's)."""
    setup = _SETUP.format(n=n)
    bodies = {name: ("", body) for name, body in OURS.items()}
    if peers:
        for module, entries in PEERS.items():
            if importlib.util.find_spec(module) is None:
                continue
            bodies.update(entries)
    cells = {}
    for name, (imports, body) in bodies.items():
        # Warm up on 50,000 items first, so lazy imports and first-call caches
        # are not counted as the plan's time or memory.
        warm = (
            "_full = (lengths, labels)\nlengths, labels = lengths[:50000], labels[:50000]\n"
            f"{imports}exec({body!r})\nlengths, labels = _full\n"
        )
        cells[name] = (setup + warm + imports, body)
    return cells


def plan_rows(n: int, reps: int, peers: bool) -> list[list[str]]:
    got = run_cells(plan_cells(n, peers), reps, timeout=900)
    input_mib = n * 8 / 2**20  # one int64 array: lengths (or labels)
    rows = []
    for name, ms in got.items():
        ok = sorted(m.peak_extra_mib for m in ms if m.ok)
        rel = f"{ok[len(ok) // 2] / input_mib:.2f}x" if ok else "n/a"
        rows.append([name, f"{n:.0e}", fmt_time(ms), fmt_mem(ms), rel])
    return rows


def main(argv: list[str] | None = None) -> int:
    args = bench_args(__doc__, argv)
    n_quality = 10**5 if args.quick else 10**6
    n_plan, n_peers = (10**5, 10**5) if args.quick else (10**7, 10**6)
    print(f"### Batch quality: log-normal lengths, {n_quality:.0e} items, {WORLD} ranks\n")
    print(
        table(
            [
                "batching",
                "padding / real tokens",
                "step imbalance (padded tokens)",
                f"step imbalance (bs*L + {HF_COEF}*bs*L^2)",
            ],
            quality_rows(n_quality),
        ),
        flush=True,
    )
    header = [
        "sampler",
        "items",
        "build + plan one epoch",
        "peak extra",
        "peak / one int64 input array",
    ]
    print(f"\n### Build and plan one epoch: fairshard at {n_plan:.0e} items\n")
    print(table(header, plan_rows(n_plan, args.reps, peers=False)), flush=True)
    print(f"\n### Build and plan one epoch: fairshard and its peers at {n_peers:.0e} items\n")
    print(table(header, plan_rows(n_peers, args.reps, peers=True)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
