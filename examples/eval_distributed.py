"""Distributed evaluation whose printed metric equals the single-process metric.

Run on two CPU processes (gloo), or on one, and get the same numbers:

    torchrun --standalone --nproc-per-node 2 examples/eval_distributed.py
    python examples/eval_distributed.py

The data (1003 samples, 5 classes) and the tiny model are synthetic and
seeded, so nothing is downloaded. For contrast, the script also prints what
the common recipe -- PyTorch's padded ``DistributedSampler`` plus an
all-reduce of correct/total -- reports on the same model: with 1003 samples
on 2 ranks one sample is scored twice.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from typing import Any

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

import fairshard

NUM_SAMPLES, NUM_FEATURES, NUM_CLASSES, BATCH_SIZE = 1003, 16, 5, 64


def make_dataset() -> TensorDataset:
    """Seeded synthetic data: (index, features, label) per sample."""
    g = torch.Generator().manual_seed(0)
    x = torch.randn(NUM_SAMPLES, NUM_FEATURES, generator=g, dtype=torch.float64)
    y = torch.randint(0, NUM_CLASSES, (NUM_SAMPLES,), generator=g)
    x[:, :NUM_CLASSES] += 2.5 * torch.nn.functional.one_hot(y, NUM_CLASSES)  # learnable signal
    return TensorDataset(torch.arange(NUM_SAMPLES), x, y)


def make_model() -> torch.nn.Module:
    """A fixed tiny linear classifier (seeded weights, no training needed)."""
    g = torch.Generator().manual_seed(1)
    model = torch.nn.Linear(NUM_FEATURES, NUM_CLASSES, dtype=torch.float64)
    with torch.no_grad():
        model.weight.copy_(torch.randn(model.weight.shape, generator=g, dtype=torch.float64))
        model.weight[:, :NUM_CLASSES] += 3 * torch.eye(NUM_CLASSES, dtype=torch.float64)
        model.bias.zero_()
    return model.eval()


def digest(preds: torch.Tensor) -> str:
    return hashlib.sha256(preds.to(torch.int64).numpy().tobytes()).hexdigest()[:16]


def report(metrics: fairshard.ClassificationMetrics, preds: torch.Tensor) -> dict[str, Any]:
    return {
        "num_samples": metrics.num_samples,
        "accuracy": metrics.accuracy,
        "balanced_accuracy": metrics.balanced_accuracy,
        "recall": metrics.recall.tolist(),
        "predictions_sha256": digest(preds),
    }


@torch.no_grad()
def single_process_reference() -> dict[str, Any]:
    """The metric computed on the whole dataset in one process, without fairshard's helpers."""
    _, x, y = make_dataset().tensors
    preds = make_model()(x).argmax(1)
    confusion = np.zeros((NUM_CLASSES, NUM_CLASSES), dtype=np.int64)
    np.add.at(confusion, (y.numpy(), preds.numpy()), 1)
    return report(fairshard.ClassificationMetrics(confusion), preds)


@torch.no_grad()
def evaluate_distributed() -> dict[str, Any] | None:
    """Evaluate on this rank's share; the result comes back on rank 0 only."""
    dataset, model = make_dataset(), make_model()
    sampler = fairshard.DistributedEvalSampler(dataset)  # every sample once, no padding
    metrics = fairshard.ExactMetrics(NUM_CLASSES, sampler=sampler)
    local_preds = []
    for index, x, y in DataLoader(dataset, batch_size=BATCH_SIZE, sampler=sampler):
        logits = model(x)
        metrics.update(logits, y, indices=index)  # no collective inside the loop
        local_preds.append(logits.argmax(1))
    # Collectives only after the loop: ranks with fewer batches cannot deadlock.
    result = metrics.compute(timeout=60)
    preds = torch.cat(local_preds) if local_preds else torch.empty(0, dtype=torch.int64)
    all_preds = fairshard.gather_in_order(preds, sampler, dst=0, timeout=60)
    return None if all_preds is None else report(result, all_preds)


@torch.no_grad()
def torch_padded_accuracy() -> float:
    """The common recipe, for contrast: padded DistributedSampler + all-reduced counts."""
    dataset, model = make_dataset(), make_model()
    sampler = DistributedSampler(dataset, shuffle=False)  # noqa: FS109 (the contrast shown)
    counts = torch.zeros(2, dtype=torch.int64)
    for _, x, y in DataLoader(dataset, batch_size=BATCH_SIZE, sampler=sampler):
        counts += torch.tensor([int((model(x).argmax(1) == y).sum()), len(y)])
    dist.all_reduce(counts)
    return int(counts[0]) / int(counts[1])


def main() -> None:
    distributed = "WORLD_SIZE" in os.environ
    if distributed:
        dist.init_process_group("gloo")
    out = evaluate_distributed()
    padded = torch_padded_accuracy() if distributed else None
    if out is not None:
        out["world_size"] = dist.get_world_size() if distributed else 1
        out["torch_padded_accuracy"] = padded
        print(
            f"accuracy {out['accuracy']:.6f} (balanced {out['balanced_accuracy']:.6f}) on "
            f"{out['num_samples']} samples, {out['world_size']} process(es)"
            + (
                ""
                if padded is None
                else f"; PyTorch's padded DistributedSampler reports {padded:.6f}"
            )
        )
        print(json.dumps(out), flush=True)
    if distributed:
        # On torch before 2.9, tearing gloo down right after a collective of the
        # script's own (the all_reduce above) can deadlock: a worker thread still
        # freeing its tensors needs the GIL that the teardown holds. A short sleep
        # lets it finish (see examples/_common.py: finish).
        time.sleep(0.1)
        dist.destroy_process_group()
        # Skip interpreter finalization, which can race with torch's gloo threads
        # and abort a finished job (see examples/_common.py: finish).
        sys.stdout.flush()
        os._exit(0)


if __name__ == "__main__":
    main()
