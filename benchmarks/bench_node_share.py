"""Plans per node, not per rank: memory and build time of 8 local ranks, shared vs not.

For each materialized family at ``n`` items (1e7; ``--quick``: 1e5), eight
processes start together as the eight local ranks of one node
(``LOCAL_WORLD_SIZE=8``); each makes its inputs, then, on one signal to all,
builds its sampler for its rank, plans epoch 0 and reads its share of it.
With ``FAIRSHARD_SHARE_PLANS=0`` every rank builds its own plan; with
sharing (the default under torchrun) one rank builds and the others map it.

* node memory: what the plan added on the node once every rank holds it
  (measured from after the family's class is resolved: ``import fairshard``
  is lazy, and the first ``fs.<Family>`` imports torch and the family's
  modules, about 130 MiB of a process's own memory and a second, which
  are no part of the plan),
  the sum of each rank's private growth (``RssAnon``) plus the shared plan
  once (the largest size a rank maps of the plan files in the tmpfs folder,
  or its ``RssShmem`` growth if larger), read from ``/proc/<pid>/status``
  while all eight still hold their plans;
* ``x one rank``: node memory / the same growth of a single rank alone;
* node build time: from the signal to the last rank's first item (each
  rank's own time to its first item, the slowest of the eight).

Then the restart cost: a fresh process builds the epoch's plan, or maps it
from ``FAIRSHARD_PLAN_CACHE`` (populated by a previous process).

    python benchmarks/bench_node_share.py [--quick] [--reps N]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import bench_args, inputs, spread, table

SRC = str(Path(__file__).resolve().parents[1] / "src")
RANKS = 8

FAMILIES = {
    'DistributedSampler(order="torch")': 'fs.DistributedSampler(N, order="torch", **W)',
    "WeightedSampler(replacement=False)": "fs.WeightedSampler(weights, replacement=False, **W)",
    "ClassBalancedSampler(replacement=False)": (
        "fs.ClassBalancedSampler(labels, replacement=False, num_samples=N // 2, **W)"
    ),
    "LengthBucketBatchSampler": "fs.LengthBucketBatchSampler(lengths, batch_size=64, **W)",
    "TokenBudgetBatchSampler": "fs.TokenBudgetBatchSampler(lengths, max_tokens=16384, **W)",
    "ClassBatchSampler": (
        "fs.ClassBatchSampler(labels % 100, {c: 2 for c in range(100)}, batch_size=200, **W)"
    ),
    "PackingBatchSampler": "fs.PackingBatchSampler(lengths, 4096, 8, **W)",
}

_CHILD = (
    r"""
import json, os, sys, time
sys.path.insert(0, SRC)
import numpy as np
import fairshard as fs
N = int(sys.argv[1]); RANK = int(sys.argv[2])
eval(BUILD.split("(", 1)[0])  # resolve the family: its lazy import is not the plan's cost
"""
    + inputs()
    + r"""W = dict(num_replicas=8, rank=RANK)
def status():
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("RssAnon", "RssShmem"):
                out[key] = int(value.split()[0]) * 1024
    return out
before = status()
print("ready", flush=True)
sys.stdin.readline()
t0 = time.perf_counter()
sampler = eval(BUILD)
items = iter(sampler)
first = next(items)
seconds = time.perf_counter() - t0
for _ in items:  # the rank reads its whole share: every page of the plan it maps is touched
    pass
after = status()
folder = os.environ.get("FAIRSHARD_SHARE_DIR", "")
mapped = 0  # bytes of plan files this rank maps (a tmpfs file is in memory whole)
with open("/proc/self/maps") as f:
    for line in f:
        if folder and folder in line:
            begin, end = line.split()[0].split("-")
            mapped += int(end, 16) - int(begin, 16)
print(json.dumps({"seconds": seconds, "anon": after["RssAnon"] - before["RssAnon"],
                  "shmem": after["RssShmem"] - before["RssShmem"], "mapped": mapped}), flush=True)
sys.stdin.readline()
"""
)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FAIRSHARD_")}
    env.update(OMP_NUM_THREADS="1", **extra)
    return env


def node(build: str, n: int, ranks: int, share: bool, folder: str) -> dict[str, float]:
    """Start ``ranks`` local ranks together; their memory and the node's build time."""
    code = f"SRC = {SRC!r}\nBUILD = {build!r}\n" + textwrap.dedent(_CHILD)
    env = _env(
        LOCAL_WORLD_SIZE=str(ranks),
        FAIRSHARD_SHARE_PLANS="auto" if share else "0",
        FAIRSHARD_SHARE_DIR=folder,
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, str(n), str(r)],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for r in range(ranks)
    ]
    try:
        for p in procs:
            assert p.stdout is not None and p.stdout.readline().strip() == "ready"
        start = time.perf_counter()
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("\n")
            p.stdin.flush()
        reports = [json.loads(p.stdout.readline()) for p in procs if p.stdout]
        wall = time.perf_counter() - start
    finally:
        for p in procs:
            p.communicate("\n", timeout=600)
    anon = sum(r["anon"] for r in reports)
    shmem = max(max(r["shmem"], r["mapped"]) for r in reports)
    del wall  # includes the passes; the build is each rank's time to its first item
    return {"memory": anon + shmem, "seconds": max(r["seconds"] for r in reports)}


_RESTART = (
    r"""
import sys, time
sys.path.insert(0, SRC)
import numpy as np
import fairshard as fs
N = int(sys.argv[1])
eval(BUILD.split("(", 1)[0])  # resolve the family: its lazy import is not the restart's cost
"""
    + inputs()
    + r"""W = dict(num_replicas=8, rank=0)
t0 = time.perf_counter()
next(iter(eval(BUILD)))
print(time.perf_counter() - t0)
"""
)


def restart(build: str, n: int, cache: str | None) -> float:
    """Seconds from building the sampler to its first item in a fresh process."""
    code = f"SRC = {SRC!r}\nBUILD = {build!r}\n" + textwrap.dedent(_RESTART)
    extra = {"FAIRSHARD_PLAN_CACHE": cache} if cache else {"FAIRSHARD_SHARE_PLANS": "0"}
    out = subprocess.run(
        [sys.executable, "-c", code, str(n)],
        env=_env(**extra),
        capture_output=True,
        text=True,
        check=True,
    )
    return float(out.stdout.split()[-1])


def mib(value: float) -> str:
    return f"{value / 2**20:.0f} MiB"


def _node_memory(ms: list[dict[str, float]], single: float) -> str:
    """The node's memory (median) and, per rep, its multiple of one rank's: median (range)."""
    got = [m["memory"] for m in ms]
    return f"{mib(statistics.median(got))}, {spread([g / single for g in got], '.2f', 'x')}"


def main() -> None:
    args = bench_args(__doc__)
    n = 100_000 if args.quick else 10_000_000
    print(
        f"Plan memory on one node of {RANKS} local ranks at n={n:.0e} (rank r of 8 each), "
        "and the node's build time (8 processes on this machine's cores):\n"
    )
    header = ["family", "one rank", "node, per-rank plans", "node, shared plan"]
    print(table([*header, "node build, per-rank", "node build, shared"], []), flush=True)
    restarts = []
    # The plan folder on tmpfs, as in a job (/dev/shm/fairshard-<uid>): a mapped plan then
    # counts in each rank's RssShmem. On disk it would be page cache, which no rank's
    # RssAnon or RssShmem shows, and the shared column would leave the plan out.
    shm = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(prefix="fairshard-bench-", dir=shm) as tmp:
        folder = os.path.join(tmp, "shm")
        for name, build in FAMILIES.items():
            one = [node(build, n, 1, False, folder)["memory"] for _ in range(args.reps)]
            alone, shared = [], []
            for _ in range(args.reps):  # interleaved: shared and not, one after the other
                alone.append(node(build, n, RANKS, False, folder))
                shared.append(node(build, n, RANKS, True, folder))
            single = statistics.median(one)

            row = [
                name,
                f"{mib(single)} ({mib(min(one))}-{mib(max(one))})",
                _node_memory(alone, single),
                _node_memory(shared, single),
                spread([m["seconds"] for m in alone], ".2f", " s"),
                spread([m["seconds"] for m in shared], ".2f", " s"),
            ]
            print("| " + " | ".join(row) + " |", flush=True)  # a row as soon as it is measured
            cache = os.path.join(tmp, "cache-" + str(len(restarts)))
            restart(build, n, cache)  # populates the cache
            built, mapped = [], []
            for _ in range(args.reps):  # interleaved: build, then map
                built.append(restart(build, n, None))
                mapped.append(restart(build, n, cache))
            restarts.append(
                [
                    name,
                    spread(built, ".3f", " s"),
                    spread(mapped, ".3f", " s"),
                    spread([b / m for b, m in zip(built, mapped, strict=True)], ".1f", "x"),
                ]
            )
    print(f"\nRestart: a fresh process's time to its first item at n={n:.0e}, ")
    print("building the epoch's plan vs mapping it from FAIRSHARD_PLAN_CACHE:\n")
    print(table(["family", "build", "map from cache", "ratio"], restarts))


if __name__ == "__main__":
    main()
