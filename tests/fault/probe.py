"""Does a gloo process group come back after a torchrun restart? Both ways, measured.

Launches ``restart_probe.py`` under ``torchrun --standalone --nproc-per-node 2
--max-restarts 1`` with plain ``init_process_group("gloo", timeout=20s)`` and
with ``fairshard.init_elastic_process_group``, and prints for each whether
generation 1 joined, the exit code, the seconds taken and gloo's error.
With ``--two-agents``, also on two node agents (``--nnodes 1:2``): a node
loss with torchrun's shared store and plain init, and a grow with the
shared store and with ``TORCH_DISABLE_SHARE_RDZV_TCP_STORE=1``::

    python -m tests.fault.probe 3 --two-agents
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from fairshard._distributed.launch import DISABLE_SHARED_STORE
from tests.fault.elastic import TRAIN, ElasticSpec, generations, run_elastic
from tests.fault.families import REGISTRY
from tests.multinode import Cluster

__all__ = ["main", "probe"]

ROOT = Path(__file__).resolve().parents[2]
PROBE = Path(__file__).with_name("restart_probe.py")


def probe(mode: str, timeout: float = 400.0) -> dict[str, object]:
    """Run the two-generation job once; report what happened to generation 1."""
    env = {k: v for k, v in os.environ.items() if k not in {"RANK", "WORLD_SIZE", "LOCAL_RANK"}}
    env.update(
        {"PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "src")]), "OMP_NUM_THREADS": "1"}
    )
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc-per-node=2",
        "--max-restarts=1",
        "--monitor-interval=0.5",
        str(PROBE),
        mode,
    ]
    began = time.monotonic()
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)
        out, _ = proc.communicate()
    text = out.decode(errors="replace")
    error = re.search(r"RuntimeError: (Gloo connectFullMesh failed[^\n]*)", text)
    return {
        "mode": mode,
        "joined": "GENERATION 1 JOINED" in text,
        "exit": proc.returncode,
        "seconds": round(time.monotonic() - began),
        "error": error.group(1) if error else "",
    }


def shrink_two_agents(run_dir: Path) -> dict[str, object]:
    """Two agents on the shared store, plain ``init_process_group``, one node lost."""
    spec = ElasticSpec(
        REGISTRY["distributed-pad-lazy"],
        grow=False,
        dataset_size=120,
        shared_store=True,
        plain_init=True,
    )
    job = run_elastic(spec, run_dir, timeout=240)
    logs = "".join(p.read_text(errors="replace") for p in run_dir.glob("agent*.log"))
    return {
        "probe": "shrink, shared store, plain init",
        "resumed on 2 ranks": 2 in job.worlds,
        "gloo connect errors logged": logs.count("RuntimeError: Gloo connectFullMesh"),
        "problems": job.problems,
    }


def grow_two_agents(run_dir: Path, shared: bool, wait: float = 120.0) -> dict[str, object]:
    """One agent runs on 2 ranks, a second arrives: does the job grow to 4 ranks?"""
    spec = ElasticSpec(REGISTRY["distributed-pad-lazy"], dataset_size=2000)
    args = [
        *("--family", spec.family.name, "--run-dir", str(run_dir), "--launch", "0"),
        *("--dataset-size", str(spec.dataset_size), "--epochs", "1", "--elastic"),
        *("--step-seconds", str(spec.step_seconds)),
    ]
    began = time.monotonic()
    with Cluster(TRAIN, args, run_dir, nnodes="1:2", max_restarts=2, shared_store=shared) as c:
        c.start(0)
        while time.monotonic() - began < wait and not any(
            g.world == 2 and g.last > g.resume for g in generations(run_dir).values()
        ):
            time.sleep(0.2)
        c.start(1)
        grew = False
        while time.monotonic() - began < 2 * wait and not grew:
            grew = any(g.world == 4 and g.last > g.resume for g in generations(run_dir).values())
            time.sleep(0.2)
        logs = c.tail(100000)
    return {
        "probe": f"grow, {'shared store' if shared else DISABLE_SHARED_STORE + '=1'}",
        "grew to 4 ranks": grew,
        "seconds": round(time.monotonic() - began),
        "newcomer waited for MASTER_ADDR": "keys: /torch.rendezvous" in logs
        and "MASTER_ADDR" in logs,
    }


def main(argv: list[str] | None = None) -> int:
    """Print one line per run; exit 1 unless the recipe worked every time.

    Whether plain ``init_process_group`` rejoins is a race (a rank that reads
    its peer's address key before the peer rewrites it gets the dead
    generation's address), so it is reported as a count, not asserted.
    """
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("runs", type=int, nargs="?", default=3, help="single-agent runs of each")
    p.add_argument("--two-agents", action="store_true", help="also the two-agent probes")
    args = p.parse_args(argv)
    joined = {"plain": 0, "helper": 0}
    for _ in range(args.runs):
        for mode in joined:
            result = probe(mode)
            joined[mode] += bool(result["joined"])
            print(result, flush=True)
    print(
        f"generation 1 joined: plain {joined['plain']}/{args.runs}, "
        f"helper {joined['helper']}/{args.runs}",
        flush=True,
    )
    ok = joined["helper"] == args.runs
    if args.two_agents:
        base = Path(tempfile.mkdtemp(prefix="fairshard-probe-"))
        print(shrink_two_agents(base / "shrink-shared"), flush=True)
        print(grow_two_agents(base / "grow-shared", shared=True), flush=True)
        recipe = grow_two_agents(base / "grow-recipe", shared=False)
        print(recipe, flush=True)
        ok = ok and bool(recipe["grew to 4 ranks"])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
