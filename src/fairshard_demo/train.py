"""The per-rank training script of ``fairshard demo`` (run it under torchrun).

Trains a small MLP with DDP on the long-tailed digits once per method, and
every epoch all-gathers the items each rank saw so rank 0 can check them
against the sampler's plan (``coverage.check_coverage``). In the last epoch
it saves a mid-epoch checkpoint (sampler, model and optimizer state of rank
0, plus what every rank had seen so far). Launched again with
``--resume-from``, on any number of ranks, it finishes that epoch from the
checkpoint and checks the two stretches together cover the epoch.

Rank 0 writes its results as JSON and prints progress events, one JSON object
per line prefixed with ``PROGRESS_PREFIX``, which ``fairshard demo`` turns into
a progress display.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset

from fairshard import CoverageSegment, DistributedEvalSampler, Partition, check_coverage

from .data import NUM_CLASSES, DigitsSplit
from .methods import make_sampler

__all__ = ["PROGRESS_PREFIX", "main"]

PROGRESS_PREFIX = "@@fairshard-demo "
GATHER_TIMEOUT = 120.0


def all_gather_objects(obj: Any) -> list[Any]:
    """Every rank's ``obj``, in rank order (the group's timeout, set in main(), bounds the wait)."""
    out: list[Any] = [None] * dist.get_world_size()
    dist.all_gather_object(out, obj)
    return out


class Job:
    """One rank's view of the run: process group, device, data and settings."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.rank = dist.get_rank()
        self.world = dist.get_world_size()
        if torch.cuda.is_available():
            local = int(os.environ.get("LOCAL_RANK", "0"))
            torch.cuda.set_device(local)
            self.device = torch.device("cuda", local)
        else:
            self.device = torch.device("cpu")
        self.data = DigitsSplit.load(Path(args.data))
        y = self.data.train_y
        self.train = TensorDataset(
            torch.arange(len(y)), torch.from_numpy(self.data.train_x), torch.from_numpy(y)
        )
        self.output = Path(args.output)

    def event(self, **fields: Any) -> None:
        """Print a progress event (rank 0 only)."""
        if self.rank == 0:
            print(PROGRESS_PREFIX + json.dumps(fields), flush=True)

    def model(self) -> tuple[DistributedDataParallel, torch.optim.Optimizer]:
        """A fresh MLP (same initial weights on every rank) and its optimizer."""
        torch.manual_seed(self.args.seed)
        net = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, NUM_CLASSES))
        net = net.to(self.device)
        ids = [self.device.index] if self.device.type == "cuda" else None
        ddp = DistributedDataParallel(net, device_ids=ids)
        opt = torch.optim.SGD(ddp.parameters(), lr=self.args.lr, momentum=0.9)
        return ddp, opt

    def evaluate(self, model: nn.Module) -> dict[str, Any]:
        """Per-class recall and balanced accuracy on the balanced test split.

        Each rank predicts one contiguous block (``DistributedEvalSampler``);
        gathering the blocks in rank order restores the test set's order.
        """
        sampler = DistributedEvalSampler(len(self.data.test_y))
        block = torch.from_numpy(self.data.test_x[list(sampler)]).to(self.device)
        model.eval()
        with torch.no_grad():
            local = model(block).argmax(dim=1).cpu().tolist() if len(block) else []
        model.train()
        predicted = np.asarray(
            [p for part in all_gather_objects(local) for p in part],
            dtype=np.int64,
        )
        truth = self.data.test_y
        recall = [float(np.mean(predicted[truth == c] == c)) for c in range(NUM_CLASSES)]
        return {
            "per_class_recall": recall,
            "balanced_accuracy": float(np.mean(recall)),
            "accuracy": float(np.mean(predicted == truth)),
        }

    def class_mix(self, observed: Sequence[Sequence[int]]) -> list[list[int]]:
        """(world, classes) counts of the classes each rank saw."""
        y = self.data.train_y
        return [
            np.bincount(y[np.asarray(o, dtype=np.int64)], minlength=NUM_CLASSES).tolist()
            for o in observed
        ]


def _step(
    model: nn.Module,
    opt: torch.optim.Optimizer,
    sampler: Any,
    batch: Sequence[torch.Tensor],
    device: torch.device,
) -> tuple[list[int], float]:
    """One optimizer step; returns the batch's indices and summed loss."""
    idx, x, y = batch
    losses = nn.functional.cross_entropy(model(x.to(device)), y.to(device), reduction="none")
    opt.zero_grad()
    losses.mean().backward()  # type: ignore[no-untyped-call]
    opt.step()
    if hasattr(sampler, "record"):
        sampler.record(idx, losses.detach().cpu())
    indices: list[int] = idx.tolist()
    return indices, float(losses.detach().sum())


def _gather_epoch(seen: list[int], loss_sum: float) -> tuple[list[list[int]], float]:
    parts = all_gather_objects((seen, loss_sum))
    observed = [p[0] for p in parts]
    count = sum(len(o) for o in observed)
    return observed, sum(p[1] for p in parts) / max(count, 1)


def run_method(job: Job, method: str) -> dict[str, Any]:
    """Train with ``method`` for every epoch; checkpoint mid-way through the last."""
    args = job.args
    sampler = make_sampler(method, job.data.train_y, seed=args.seed, epochs=args.epochs)
    loader = DataLoader(job.train, batch_size=args.batch_size, sampler=sampler)
    model, opt = job.model()
    epochs: list[dict[str, Any]] = []
    class_mix: dict[str, list[list[int]]] = {}
    checkpointed = False
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        last = epoch == args.epochs - 1
        ckpt_after = len(loader) // 2 - 1 if last and len(loader) >= 2 else -1
        seen: list[int] = []
        loss_sum = 0.0
        for step, batch in enumerate(loader):
            indices, loss = _step(model, opt, sampler, batch, job.device)
            seen.extend(indices)
            loss_sum += loss
            if step == ckpt_after:
                save_checkpoint(job, method, sampler, model, opt, epoch, seen)
                checkpointed = True
        observed, mean_loss = _gather_epoch(seen, loss_sum)
        plan, part = sampler.plan(epoch), sampler.partition(epoch)
        verdict = check_coverage(plan, [CoverageSegment(part, observed)], len(job.train))
        scores = job.evaluate(model)
        if epoch == 0 or last:
            class_mix["first" if epoch == 0 else "last"] = job.class_mix(observed)
        if not last:
            verdict.pop("index_counts")
        epochs.append(
            {
                "epoch": epoch,
                "loss": mean_loss,
                "coverage": verdict,
                "balanced_accuracy": scores["balanced_accuracy"],
            }
        )
        job.event(
            kind="epoch",
            method=method,
            epoch=epoch,
            epochs=args.epochs,
            loss=mean_loss,
            balanced_accuracy=scores["balanced_accuracy"],
            coverage_ok=verdict["ok"],
        )
    return {
        "method": method,
        "world_size": job.world,
        "epochs": epochs,
        "final": scores,
        "class_mix": class_mix,
        "samples_per_epoch": len(plan),
        "checkpointed": checkpointed,
    }


def save_checkpoint(
    job: Job,
    method: str,
    sampler: Any,
    model: DistributedDataParallel,
    opt: torch.optim.Optimizer,
    epoch: int,
    seen: list[int],
) -> None:
    """Gather what every rank saw so far and save rank 0's states (a collective)."""
    observed = all_gather_objects(seen)
    if job.rank != 0:
        return
    folder = job.output / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    torch.save(
        {
            "method": method,
            "epoch": epoch,
            "world_size": job.world,
            "sampler": sampler.state_dict(),
            "model": model.module.state_dict(),
            "optimizer": opt.state_dict(),
            "observed": observed,
        },
        folder / f"{method}.pt",
    )
    job.event(kind="checkpoint", method=method, epoch=epoch, steps=len(seen))


def resume_method(job: Job, method: str) -> dict[str, Any]:
    """Finish the checkpointed epoch of ``method`` on this world size and check it."""
    # The checkpoint is this demo's own file, written by save_checkpoint.
    ckpt = torch.load(job.output / "checkpoints" / f"{method}.pt", weights_only=False)
    args = job.args
    sampler = make_sampler(method, job.data.train_y, seed=args.seed, epochs=args.epochs)
    sampler.load_state_dict(ckpt["sampler"])
    model, opt = job.model()
    model.module.load_state_dict(ckpt["model"])
    opt.load_state_dict(ckpt["optimizer"])
    epoch = int(ckpt["epoch"])
    part = sampler.partition(epoch)
    begin = part.num_items(job.rank) - sampler.remaining
    loader = DataLoader(job.train, batch_size=args.batch_size, sampler=sampler)
    seen: list[int] = []
    loss_sum = 0.0
    for batch in loader:
        indices, loss = _step(model, opt, sampler, batch, job.device)
        seen.extend(indices)
        loss_sum += loss
    observed, _ = _gather_epoch(seen, loss_sum)
    before: list[list[int]] = ckpt["observed"]
    saved = Partition(
        len(sampler.plan(epoch)), int(ckpt["world_size"]), sampler.layout, sampler.tail
    )
    segments = [CoverageSegment(saved, before), CoverageSegment(part, observed, begin=begin)]
    verdict = check_coverage(sampler.plan(epoch), segments, len(job.train))
    scores = job.evaluate(model)
    job.event(kind="resume", method=method, epoch=epoch, coverage_ok=verdict["ok"])
    return {
        "method": method,
        "epoch": epoch,
        "saved_world_size": int(ckpt["world_size"]),
        "world_size": job.world,
        "steps_before": len(before[0]),
        "steps_after": len(observed[0]),
        "coverage": verdict,
        "final": scores,
    }


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The script's options (``fairshard demo`` passes them)."""
    p = argparse.ArgumentParser(prog="python -m fairshard_demo.train")
    p.add_argument("--data", required=True, help="the .npz split written by fairshard demo")
    p.add_argument("--output", required=True, help="folder for results and checkpoints")
    p.add_argument("--methods", required=True, help="comma-separated methods")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--batch-size", type=int, default=16, help="per rank")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument(
        "--resume",
        action="store_true",
        help="finish the checkpointed epochs instead of training from scratch",
    )
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of every rank."""
    args = parse_args(argv)
    backend = "nccl" if torch.cuda.is_available() else "gloo"
    dist.init_process_group(backend, timeout=timedelta(seconds=GATHER_TIMEOUT))
    try:
        torch.set_num_threads(1)
        job = Job(args)
        methods = [m for m in args.methods.split(",") if m]
        run = resume_method if args.resume else run_method
        results = {}
        for method in methods:
            job.event(kind="start", method=method, resume=args.resume)
            results[method] = run(job, method)
        if job.rank == 0:
            name = "resume.json" if args.resume else "train.json"
            payload = {"backend": backend, "world_size": job.world, "methods": results}
            (job.output / name).write_text(json.dumps(payload))
        dist.barrier()  # no rank tears down gloo while a peer still talks to it
        # torch < 2.9: let gloo free the all_gather_object tensors before the
        # teardown, which would otherwise wait on it forever (docs/faults.md)
        time.sleep(0.1)
    finally:
        dist.destroy_process_group()
    return 0


def _exit_now(code: int) -> None:
    """Exit without interpreter finalization.

    On CPU/gloo, torch's background threads can race with finalization and
    abort a job that already finished cleanly ("terminate called without an
    active exception"); everything is written and flushed before this point.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    _exit_now(main())
