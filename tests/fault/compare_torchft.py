"""One job two ways: a SIGKILL under torchrun restarts vs under torchft's quorum.

The same family, dataset, epochs, per-rank batch and per-step compute, on two
ranks: the restart path (``tests/fault/controller.py``: torchrun
``--max-restarts=1``, ``init_elastic_process_group``, a checkpoint of the
sampler state every ``--every`` steps, one rank SIGKILLed) and the torchft
path (``tests/fault/torchft_job.py``: two replica groups of one process,
group 1 SIGKILLed, a third group joining later). For each: samples lost,
repeated beyond padding, redone (work thrown away by the failure), the time
from the failure to the next step (restart: the kill record to the first
record of the restarted generation; torchft: the dead group's last record
to the survivors' next commit) and the job's wall time.

Run from the repository root (the restart side in this interpreter, the
torchft side in the torchft venv)::

    python -m tests.fault.compare_torchft --families distributed,length-bucket --repeats 2
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

from tests.fault.controller import JobSpec, run_job
from tests.fault.families import REGISTRY
from tests.fault.ledger import read_ledgers
from tests.fault.torchft_job import run_job as run_torchft

STEP_S = 0.05


def restart_row(family: str, seed: int, size: int, epochs: int, per_rank: int) -> dict[str, float]:
    """The restart path: one kill on 2 ranks, torchrun restarts the group."""
    with tempfile.TemporaryDirectory(prefix="fairshard-cmp-") as tmp:
        spec = JobSpec(
            REGISTRY[family], kills=1, seed=seed, worlds=(2,), dataset_size=size,
            epochs=epochs, every=3, batch_size=per_rank, step_seconds=STEP_S,
        )  # fmt: skip
        job = run_job(spec, Path(tmp))
        records = list(read_ledgers(Path(tmp) / "ledgers"))
        kill = min(r["at"] for r in records if r["t"] == "kill")
        after = min(r["at"] for r in records if r["t"] == "items" and r["gen"] >= 1)
        return {
            "ok": float(job.ok),
            "lost": job.replay.lost,
            "repeated": job.replay.repeated,
            "redone": job.replay.redo,
            "to_next_step_s": after - kill,
            "wall_s": job.seconds,
        }


def torchft_row(family: str, seed: int, size: int, epochs: int, per_rank: int) -> dict[str, float]:
    """The torchft path: group 1 of 2 SIGKILLed, the survivor goes on, a third group joins."""
    rng = random.Random(seed)
    result = run_torchft(
        family, groups=2, procs=1, dataset_size=size, epochs=epochs, seed=seed,
        items_per_rank=per_rank, die_at=rng.randrange(2, 8), join_at=10, step_s=STEP_S,
    )  # fmt: skip
    return {
        "ok": float(result.ok),
        "lost": result.lost,
        "repeated": result.unexplained,
        "redone": result.redone,
        "to_next_step_s": result.recover_s if result.recover_s is not None else float("nan"),
        "wall_s": result.wall_s,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--families", default="distributed,length-bucket")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--dataset-size", type=int, default=96)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--per-rank", type=int, default=2)
    args = parser.parse_args(argv)
    print("| family | path | ok | lost | repeated | redone | failure -> next step (s) | wall (s) |")
    print("|---|---|---|---|---|---|---|---|")
    ok = True
    for family in args.families.split(","):
        for seed in range(args.repeats):
            for name, row in (
                ("restart", restart_row),
                ("torchft", torchft_row),
            ):
                r = row(family, seed, args.dataset_size, args.epochs, args.per_rank)
                ok &= bool(r["ok"])
                print(
                    f"| {family} | {name} | {'yes' if r['ok'] else 'NO'} | {r['lost']} | "
                    f"{r['repeated']} | {r['redone']} | {r['to_next_step_s']:.2f} | "
                    f"{r['wall_s']:.1f} |",
                    flush=True,
                )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
