"""Launch fault-injected torchrun jobs, shrink them, and replay their ledgers.

For each sampler family: plan ``--kills`` SIGKILLs of random ranks at random
global steps (and random phases: before or after the ledger write, or in the
middle of rank 0's checkpoint), spread over launches on ``--worlds`` ranks
(default 4, 3, 2). Each launch is ``python -m torch.distributed.run
--standalone --nproc-per-node=W --max-restarts=R tests/fault/train.py``
with ``R`` equal to its planned kills, so torchrun restarts the group after
each kill and an unplanned failure exhausts the restarts and shows. Every
launch but the last ends with the node lost (rank 0 SIGKILLs the agent and
itself); the next launch resumes from the same checkpoint directory on fewer
ranks. Finally ``replay`` checks the ledgers.

Run as a script::

    python -m tests.fault.controller --kills 10 --families all --seed 1
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.fault.families import Family, resolve
from tests.fault.ledger import read_ledgers
from tests.fault.replay import ReplayResult, replay

__all__ = ["JobResult", "JobSpec", "main", "plan_faults", "run_job"]

ROOT = Path(__file__).resolve().parents[2]
TRAIN = ROOT / "tests" / "fault" / "train.py"
PHASES = ("before-ledger", "after-ledger")


@dataclass(frozen=True)
class JobSpec:
    """One fault-injected job of one family."""

    family: Family
    kills: int
    seed: int
    worlds: tuple[int, ...] = (4, 3, 2)
    dataset_size: int = 53
    epochs: int = 3
    every: int = 3
    batch_size: int = 1
    step_seconds: float = 0.0

    def min_steps(self) -> int:
        """A lower bound on the job's global steps (largest world, shortest epoch)."""
        sampler = self.family.build(self.dataset_size, max(self.worlds), 0, self.seed)
        total = 0
        for epoch in range(self.epochs):
            sampler.set_epoch(epoch)
            total += len(sampler) // self.batch_size
        return total


@dataclass
class JobResult:
    """A job's plan, its replay and what went wrong around it."""

    spec: JobSpec
    plan: dict[str, Any]
    replay: ReplayResult
    seconds: float
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """The replay is exact and every launch ended as planned."""
        return self.replay.ok and not self.problems


def plan_faults(spec: JobSpec, rng: random.Random) -> dict[str, Any]:
    """Kills and halts at strictly increasing global steps.

    Every kill or halt happens before its step's ``all_reduce``, so no
    checkpoint of that step exists and the next generation resumes strictly
    before it; a later event at a larger step is therefore always reached.
    """
    launches = len(spec.worlds)
    events = spec.kills + launches - 1
    if events > spec.min_steps():
        raise ValueError(
            f"{events} faults do not fit in {spec.min_steps()} steps; "
            "raise --dataset-size or --epochs"
        )
    steps = iter(sorted(rng.sample(range(1, spec.min_steps() + 1), events)))
    per_launch = [0] * launches
    for _ in range(spec.kills):
        per_launch[rng.randrange(launches)] += 1
    kills: list[dict[str, Any]] = []
    halts: list[dict[str, Any]] = []
    for launch, (world, count) in enumerate(zip(spec.worlds, per_launch, strict=True)):
        for gen in range(count):
            step, rank = next(steps), rng.randrange(world)
            phases = PHASES + (("mid-checkpoint",) if rank == 0 and step % spec.every == 0 else ())
            kills.append(
                {
                    "launch": launch,
                    "gen": gen,
                    "rank": rank,
                    "step": step,
                    "phase": rng.choice(phases),
                }
            )
        if launch < launches - 1:
            halts.append({"launch": launch, "gen": count, "step": next(steps)})
    return {"kills": kills, "halts": halts, "restarts": per_launch}


def _reap(run_dir: Path, launch: int) -> None:
    """SIGKILL workers of ``launch`` left behind when their agent was killed."""
    for record in read_ledgers(run_dir / "ledgers"):
        if record["t"] != "start" or record["launch"] != launch:
            continue
        try:
            cmdline = Path(f"/proc/{record['pid']}/cmdline").read_bytes()
        except OSError:
            continue  # already gone
        if str(TRAIN).encode() in cmdline and str(run_dir).encode() in cmdline:
            os.kill(record["pid"], signal.SIGKILL)


def _launch(spec: JobSpec, run_dir: Path, launch: int, restarts: int, timeout: float) -> int:
    world = spec.worlds[launch]
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nnodes=1",
        f"--nproc-per-node={world}",
        f"--max-restarts={restarts}",
        str(TRAIN),
        "--family",
        spec.family.name,
        "--run-dir",
        str(run_dir),
        "--launch",
        str(launch),
        "--dataset-size",
        str(spec.dataset_size),
        "--epochs",
        str(spec.epochs),
        "--seed",
        str(spec.seed),
        "--every",
        str(spec.every),
        "--batch-size",
        str(spec.batch_size),
        "--step-seconds",
        str(spec.step_seconds),
    ]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "src")]),
        "OMP_NUM_THREADS": "1",
        "MASTER_ADDR": "127.0.0.1",
    }
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "FAIRSHARD_VERIFY"):
        env.pop(name, None)
    with open(run_dir / f"launch{launch}.log", "w") as log:
        agent = subprocess.Popen(
            cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=ROOT
        )
        try:
            code = agent.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(agent.pid, signal.SIGKILL)
            agent.wait()
            code = -1000
        finally:
            time.sleep(0.2)  # let orphaned workers fail on their own first
            _reap(run_dir, launch)
    return code


def run_job(spec: JobSpec, run_dir: Path, launch_timeout: float = 120.0) -> JobResult:
    """Run one family's job with its planned faults and replay the ledgers."""
    run_dir.mkdir(parents=True, exist_ok=True)
    plan = plan_faults(spec, random.Random(f"{spec.seed}:{spec.family.name}"))
    (run_dir / "plan.json").write_text(json.dumps(plan, indent=1))
    began = time.monotonic()
    problems: list[str] = []
    last = len(spec.worlds) - 1
    for launch, restarts in enumerate(plan["restarts"]):
        code = _launch(spec, run_dir, launch, restarts, launch_timeout + 20.0 * restarts)
        wanted = 0 if launch == last else -signal.SIGKILL
        if code != wanted:
            problems.append(
                f"launch {launch} on {spec.worlds[launch]} ranks exited {code}, "
                f"expected {wanted}; see {run_dir / f'launch{launch}.log'}"
            )
            break
    result = replay(run_dir, spec.family, spec.dataset_size, spec.seed, spec.epochs)
    if result.kills != spec.kills:
        problems.append(f"{result.kills} kills happened, {spec.kills} were planned")
    if result.halts != last:
        problems.append(f"{result.halts} node losses happened, {last} were planned")
    return JobResult(spec, plan, result, time.monotonic() - began, problems)


HEADER = (
    f"{'family':<24} {'worlds':<8} {'kills':>5} {'halts':>5} {'gens':>4} {'lost':>4} "
    f"{'repeated':>8} {'redo':>4} {'padded':>6} {'dropped':>7} {'secs':>5}  result"
)


def summary_row(job: JobResult) -> str:
    """One line of the summary table."""
    r = job.replay
    worlds = "->".join(str(w) for w in job.spec.worlds)
    padded = sum(e.padded for e in r.epochs)
    dropped = sum(e.dropped for e in r.epochs)
    verdict = "ok" if job.ok else "FAIL: " + "; ".join(job.problems + r.problems)
    return (
        f"{job.spec.family.name:<24} {worlds:<8} {r.kills:>5} {r.halts:>5} "
        f"{r.generations:>4} {r.lost:>4} {r.repeated:>8} {r.redo:>4} {padded:>6} "
        f"{dropped:>7} {job.seconds:>5.0f}  {verdict}"
    )


def main(argv: list[str] | None = None) -> int:
    """Run the jobs, print the summary table; exit status 1 if any job failed."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--kills", type=int, default=3, help="SIGKILLs per family")
    p.add_argument("--families", default="all", help="'all' or comma-separated names")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--worlds", default="4,3,2", help="ranks of each launch, e.g. 4,3,2")
    p.add_argument("--dataset-size", type=int, default=53)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--every", type=int, default=3, help="checkpoint every k steps")
    p.add_argument("--run-dir", type=Path, default=None, help="keep ledgers here")
    args = p.parse_args(argv)
    worlds = tuple(int(w) for w in args.worlds.split(","))
    base = args.run_dir or Path(tempfile.mkdtemp(prefix="fairshard-faults-"))
    print(HEADER, flush=True)
    jobs: list[JobResult] = []
    for family in resolve(args.families):
        if not family.equal_steps:  # the job's ranks run in lockstep (an all_reduce a step)
            print(f"{family.name:<24} uneven tail: no lockstep job", flush=True)
            continue
        # A family whose states cannot resume on another world size relaunches on the same one.
        launches = worlds if family.elastic else (worlds[0],) * len(worlds)
        spec = JobSpec(
            family, args.kills, args.seed, launches, args.dataset_size, args.epochs, args.every
        )
        jobs.append(run_job(spec, base / family.name))
        print(summary_row(jobs[-1]), flush=True)
    total = sum(j.replay.kills for j in jobs)
    lost = sum(j.replay.lost for j in jobs)
    repeated = sum(j.replay.repeated for j in jobs)
    redo = sum(j.replay.redo for j in jobs)
    print(
        f"total: {total} kills, {lost} lost, {repeated} repeated beyond padding, "
        f"{redo} redone in redo windows; ledgers in {base}"
    )
    return 0 if all(j.ok for j in jobs) else 1


if __name__ == "__main__":
    sys.exit(main())
