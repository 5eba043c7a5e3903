"""The training job the fault harness runs under torchrun (gloo, CPU).

Every rank builds its sampler from the family registry, resumes from the
last checkpoint if there is one, and for each step: takes a batch of indices,
records them in its ledger (fsync), joins an ``all_reduce`` (the stand-in for
DDP's gradient sync, which keeps ranks in lockstep) and, on rank 0 every
``--every`` steps and at each epoch's end, writes an atomic checkpoint of its
sampler ``state_dict`` and the global step.

Faults come from ``plan.json`` in the run directory: ``{"kills": [...]}``
entries ``{"launch", "gen", "rank", "step", "phase"}`` make that rank SIGKILL
itself at that point (``phase``: ``before-ledger``, ``after-ledger`` or, rank
0 only, ``mid-checkpoint`` between the temporary file and the rename);
``{"halts": [...]}`` entries ``{"launch", "gen", "step"}`` make rank 0 SIGKILL
the torchrun agent and itself -- the whole node is lost, and the controller
relaunches the job on fewer ranks.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import signal
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist

import fairshard
from tests.fault import checkpoint
from tests.fault.families import REGISTRY
from tests.fault.ledger import Ledger


def _args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--family", required=True, choices=sorted(REGISTRY))
    p.add_argument("--run-dir", type=Path, required=True)
    p.add_argument("--launch", type=int, required=True)
    p.add_argument("--dataset-size", type=int, default=53)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--every", type=int, default=3, help="checkpoint every k steps")
    p.add_argument("--batch-size", type=int, default=1)
    p.add_argument("--elastic", action="store_true", help="number generations job-wide")
    p.add_argument("--step-seconds", type=float, default=0.0, help="sleep per step")
    p.add_argument("--plain-init", action="store_true", help="init_process_group, for probes")
    return p.parse_args(argv)


class Faults:
    """The kill and halt points that apply to this rank of this generation."""

    def __init__(self, run_dir: Path, launch: int, gen: int, rank: int) -> None:
        plan_file = run_dir / "plan.json"
        plan: dict[str, Any] = json.loads(plan_file.read_text()) if plan_file.exists() else {}
        here = {"launch": launch, "gen": gen}
        self.kills = {
            (k["step"], k["phase"])
            for k in plan.get("kills", [])
            if {"launch": k["launch"], "gen": k["gen"]} == here and k["rank"] == rank
        }
        self.halts = {
            h["step"]
            for h in plan.get("halts", [])
            if {"launch": h["launch"], "gen": h["gen"]} == here and rank == 0
        }

    def maybe_kill(self, ledger: Ledger, step: int, phase: str) -> None:
        """SIGKILL this process if the plan says so (recorded first)."""
        if (step, phase) in self.kills:
            ledger.append("kill", step=step, phase=phase, pid=os.getpid())
            os.kill(os.getpid(), signal.SIGKILL)

    def maybe_halt(self, ledger: Ledger, step: int) -> None:
        """Lose the whole node: SIGKILL the torchrun agent, then this rank."""
        if step in self.halts:
            agent = os.getppid()
            cmdline = Path(f"/proc/{agent}/cmdline").read_bytes()
            if b"torch.distributed.run" not in cmdline:
                raise RuntimeError(f"parent {agent} is not the torchrun agent: {cmdline!r}")
            ledger.append("halt", step=step, pid=os.getpid())
            os.kill(agent, signal.SIGKILL)
            os.kill(os.getpid(), signal.SIGKILL)


def _generation(run_dir: Path) -> int:
    """The job-wide number of this rendezvous round (elastic mode).

    torchrun's ``TORCHELASTIC_RESTART_COUNT`` is per node agent: a node that
    joins later starts at 0 and a membership change restarts workers without
    counting. Rank 0 of each round therefore takes the next number from a
    file in the run directory and broadcasts it.
    """
    counter = run_dir / "generation"
    number = torch.zeros(1, dtype=torch.int64)
    if dist.get_rank() == 0:
        previous = int(counter.read_text()) if counter.exists() else -1
        tmp = run_dir / f".generation.{os.getpid()}.tmp"
        tmp.write_text(str(previous + 1))
        os.replace(tmp, counter)
        number[0] = previous + 1
    dist.broadcast(number, src=0)
    return int(number.item())


def _flat(batch: list[Any]) -> list[int]:
    """Indices of a slice of what the sampler yielded (ints, or batches of ints)."""
    out: list[int] = []
    for item in batch:
        if isinstance(item, list):
            out.extend(int(i) for i in item)
        else:
            out.append(int(item))
    return out


def main(argv: list[str] | None = None) -> int:
    """Run (or resume) the job; returns 0 when every epoch is done."""
    args = _args(argv)
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    if args.plain_init:  # what tests.fault.probe shows failing after restarts
        dist.init_process_group("gloo", timeout=timedelta(seconds=30))
    else:  # the recipe: a restarted generation never reads a dead one's addresses
        fairshard.init_elastic_process_group("gloo", timeout=30)
    if args.elastic:
        gen = _generation(args.run_dir)
    else:
        gen = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))
    family = REGISTRY[args.family]
    ledger = Ledger(args.run_dir / "ledgers", args.launch, gen, rank)
    faults = Faults(args.run_dir, args.launch, gen, rank)
    ckpt_dir = args.run_dir / "ckpt"
    saved = checkpoint.load(ckpt_dir)
    sampler = family.build(args.dataset_size, world, rank, args.seed)
    step, first_epoch, resuming = 0, 0, False
    if saved is not None:
        step = saved["step"]
        first_epoch = saved["epoch"] + 1 if saved["complete"] else saved["epoch"]
        resuming = not saved["complete"]
        if resuming:
            sampler.load_state_dict(saved["sampler"])
    ledger.append(
        "start",
        world=world,
        pid=os.getpid(),
        ppid=os.getppid(),
        resume_step=step,
        resume_epoch=first_epoch,
        checkpoint=saved is not None,
    )
    token = torch.zeros(1)
    for epoch in range(first_epoch, args.epochs):
        if not (resuming and epoch == first_epoch):
            sampler.set_epoch(epoch)
        length = sampler.remaining  # this pass: the rest of a resumed epoch (len() is the epoch's)
        ledger.append(
            "segment",
            epoch=epoch,
            step=step,
            length=length,
            world=world,
            **family.declared(sampler),
        )
        stream, taken = iter(sampler), 0
        while taken < length:
            batch = list(itertools.islice(stream, args.batch_size))
            taken += len(batch)
            step += 1
            faults.maybe_kill(ledger, step, "before-ledger")
            ledger.append("items", epoch=epoch, step=step, indices=_flat(batch))
            faults.maybe_kill(ledger, step, "after-ledger")
            faults.maybe_halt(ledger, step)
            dist.all_reduce(token)  # lockstep, as DDP's gradient sync
            if args.step_seconds:
                time.sleep(args.step_seconds)
            if rank == 0 and (step % args.every == 0 or taken == length):
                state = {
                    "step": step,
                    "epoch": epoch,
                    "complete": taken == length,
                    "world_size": world,
                    "sampler": sampler.state_dict(),
                }
                checkpoint.save(
                    ckpt_dir, state, lambda s=step: faults.maybe_kill(ledger, s, "mid-checkpoint")
                )
    dist.barrier()
    ledger.append("done", step=step)
    ledger.close()
    time.sleep(0.1)  # torch < 2.9: gloo frees the last collective's tensors first (docs/faults.md)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
