"""Real elastic membership changes: lose a whole node agent, shrink, grow back.

Two torchrun node agents (``--nnodes 1:2 --nproc-per-node 2``, c10d
rendezvous, ``tests/multinode.py``) run ``tests/fault/train.py --elastic``.
For each cycle the controller waits until a generation on 4 ranks has made
a few steps, SIGKILLs one whole node (its agent and every worker), waits for
the survivor to re-rendezvous and resume on 2 ranks from the last checkpoint,
then starts a fresh agent: the survivor sees it waiting, stops its workers
(a membership change, not counted as a restart) and the job grows back to 4
ranks at the next rendezvous. Finally ``replay`` checks the ledgers: nothing
lost, nothing repeated beyond declared padding and the counted redo window.

Run as a script (``make faults`` runs the full matrix)::

    python -m tests.fault.elastic --cycles 1 --families all --seed 3
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from tests.fault.families import Family, resolve
from tests.fault.ledger import read_ledgers
from tests.fault.replay import ReplayResult, replay
from tests.multinode import Cluster, job_processes

__all__ = ["ElasticResult", "ElasticSpec", "main", "run_elastic"]

TRAIN = Path(__file__).with_name("train.py")


@dataclass(frozen=True)
class ElasticSpec:
    """One elastic job of one family: ``cycles`` node losses, each followed by a grow."""

    family: Family
    cycles: int = 1
    seed: int = 0
    grow: bool = True
    dataset_size: int = 240
    epochs: int = 2
    every: int = 3
    step_seconds: float = 0.05
    shared_store: bool = False  # torchrun's default store sharing (for probes)
    plain_init: bool = False  # plain init_process_group instead of the recipe (for probes)

    def scaled(self, steps: int = 60) -> ElasticSpec:
        """This spec with the dataset grown until an epoch on 4 ranks has ``steps`` steps.

        Batch families take several indices a step; without this their jobs
        would end before the node losses the spec plans.
        """
        size = self.dataset_size
        while len(self.family.build(size, 4, 0, self.seed)) < steps:
            size += self.dataset_size
        return replace(self, dataset_size=size)


@dataclass
class ElasticResult:
    """What happened to the job and what its ledgers add up to."""

    spec: ElasticSpec
    replay: ReplayResult
    worlds: list[int]  # world size of each generation, in order
    kills: int
    grows: int
    seconds: float
    leftover: list[int] = field(default_factory=list)  # job processes alive after the job
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Exact replay, and every planned kill and grow happened."""
        return self.replay.ok and not self.problems


@dataclass
class _Gen:
    world: int = 0
    resume: int = 0
    last: int = 0
    done: int = 0


def generations(run_dir: Path) -> dict[int, _Gen]:
    """Per generation: its world size, resume step, last step recorded, ranks done."""
    gens: dict[int, _Gen] = {}
    if not (run_dir / "ledgers").exists():
        return gens
    for r in read_ledgers(run_dir / "ledgers"):
        g = gens.setdefault(r["gen"], _Gen())
        if r["t"] == "start":
            g.world, g.resume = r["world"], r["resume_step"]
        elif r["t"] == "items":
            g.last = max(g.last, r["step"])
        elif r["t"] == "done":
            g.done += 1
    return gens


def _await(
    cluster: Cluster, what: str, ready: Callable[[dict[int, _Gen]], int | None], timeout: float
) -> int | None:
    """Poll the ledgers until ``ready`` names a generation; ``None`` if the job ended."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        gens = generations(cluster.run_dir)
        found = ready(gens)
        if found is not None:
            return found
        if any(g.done and g.done == g.world for g in gens.values()):
            return None
        if not any(a.alive() for a in cluster.agents):
            return None
        time.sleep(0.1)
    raise TimeoutError(f"waited {timeout:.0f}s for {what}:\n{cluster.tail()}")


def run_elastic(spec: ElasticSpec, run_dir: Path, timeout: float = 300.0) -> ElasticResult:
    """Run one family's job through its node losses and grows, then replay it."""
    rng = random.Random(f"{spec.seed}:{spec.family.name}")
    args = [
        *("--family", spec.family.name, "--run-dir", str(run_dir), "--launch", "0"),
        *("--dataset-size", str(spec.dataset_size), "--epochs", str(spec.epochs)),
        *("--seed", str(spec.seed), "--every", str(spec.every), "--elastic"),
        *("--step-seconds", str(spec.step_seconds)),
        *(["--plain-init"] if spec.plain_init else []),
    ]
    began, problems, kills, grows = time.monotonic(), [], 0, 0
    with Cluster(
        TRAIN,
        args,
        run_dir,
        nnodes="1:2",
        nproc_per_node=2,
        max_restarts=spec.cycles + 2,
        shared_store=spec.shared_store,
    ) as cluster:
        live = [cluster.start(0), cluster.start(1)]
        seen = -1
        for _ in range(spec.cycles):
            lead = rng.randint(1, 4)

            def on_four(gens: dict[int, _Gen], after: int = seen, lead: int = lead) -> int | None:
                ok = [n for n, g in gens.items() if n > after and g.world == 4]
                return next((n for n in ok if gens[n].last >= gens[n].resume + lead), None)

            four = _await(cluster, "a generation on 4 ranks", on_four, timeout)
            if four is None:
                problems.append(f"the job ended before node loss {kills + 1}")
                break
            victim = live.pop(rng.randrange(len(live)))
            cluster.kill_node(victim)
            kills += 1

            def on_two(gens: dict[int, _Gen], after: int = four) -> int | None:
                ok = [n for n, g in gens.items() if n > after and g.world == 2]
                return next((n for n in ok if gens[n].last > gens[n].resume), None)

            two = _await(cluster, "the shrink to 2 ranks", on_two, timeout)
            if two is None:
                problems.append(f"the job ended before it resumed on 2 ranks (loss {kills})")
                break
            seen = two
            if spec.grow:
                live.append(cluster.start(victim.node))
                grows += 1
        codes = cluster.wait(live, timeout)
        if codes != [0] * len(live):
            problems.append(f"agents exited {codes}; logs in {run_dir}")
    leftover = job_processes(cluster.token)
    if leftover:
        problems.append(f"processes left behind: {leftover}")
    result = replay(run_dir, spec.family, spec.dataset_size, spec.seed, spec.epochs)
    gens = generations(run_dir)
    worlds = [gens[n].world for n in sorted(gens)]
    shrunk = worlds.index(2) if 2 in worlds else len(worlds)
    if kills and shrunk == len(worlds):
        problems.append(f"the job never shrank to 2 ranks: worlds {worlds}")
    elif spec.grow and kills and 4 not in worlds[shrunk:]:
        problems.append(f"the job never grew back to 4 ranks: worlds {worlds}")
    seconds = time.monotonic() - began
    return ElasticResult(spec, result, worlds, kills, grows, seconds, leftover, problems)


HEADER = (
    f"{'family':<24} {'node kills':>10} {'grows':>5} {'worlds visited':<22} {'lost':>4} "
    f"{'repeated':>8} {'redo':>4} {'padded':>6} {'dropped':>7} {'secs':>5}  result"
)


def summary_row(job: ElasticResult) -> str:
    """One line of the summary table."""
    r = job.replay
    worlds = "->".join(str(w) for i, w in enumerate(job.worlds) if i == 0 or job.worlds[i - 1] != w)
    padded = sum(e.padded for e in r.epochs)
    dropped = sum(e.dropped for e in r.epochs)
    verdict = "ok" if job.ok else "FAIL: " + "; ".join(job.problems + r.problems)
    return (
        f"{job.spec.family.name:<24} {job.kills:>10} {job.grows:>5} {worlds:<22} {r.lost:>4} "
        f"{r.repeated:>8} {r.redo:>4} {padded:>6} {dropped:>7} {job.seconds:>5.0f}  {verdict}"
    )


def main(argv: list[str] | None = None) -> int:
    """Run the jobs, print the summary table; exit status 1 if any job failed."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--cycles", type=int, default=1, help="node losses (each then grown back)")
    p.add_argument("--families", default="all", help="'all' or comma-separated names")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-grow", action="store_true", help="shrink only")
    p.add_argument("--dataset-size", type=int, default=240)
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--run-dir", type=Path, default=None, help="keep ledgers here")
    args = p.parse_args(argv)
    base = args.run_dir or Path(tempfile.mkdtemp(prefix="fairshard-elastic-"))
    print(HEADER, flush=True)
    jobs: list[ElasticResult] = []
    for family in resolve(args.families):
        if not family.equal_steps:  # the job's ranks run in lockstep (an all_reduce a step)
            print(f"{family.name:<24} uneven tail: no lockstep job", flush=True)
            continue
        if not family.elastic:  # its states refuse another world size, by design
            print(f"{family.name:<24} not elastic: left out of membership changes", flush=True)
            continue
        spec = ElasticSpec(
            family,
            cycles=args.cycles,
            seed=args.seed,
            grow=not args.no_grow,
            dataset_size=args.dataset_size,
            epochs=args.epochs,
        ).scaled()
        jobs.append(run_elastic(spec, base / family.name))
        print(summary_row(jobs[-1]), flush=True)
    totals: dict[str, Any] = {
        "node kills": sum(j.kills for j in jobs),
        "grows": sum(j.grows for j in jobs),
        "lost": sum(j.replay.lost for j in jobs),
        "repeated beyond padding": sum(j.replay.repeated for j in jobs),
        "redone in redo windows": sum(j.replay.redo for j in jobs),
    }
    print("total: " + ", ".join(f"{v} {k}" for k, v in totals.items()) + f"; ledgers in {base}")
    return 0 if all(j.ok for j in jobs) else 1


if __name__ == "__main__":
    sys.exit(main())
