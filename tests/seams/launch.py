"""Start one launch of the seam matrix under its driver's real launcher and read the verdicts."""

from __future__ import annotations

import sys
from pathlib import Path

from tests._dist import free_port
from tests._launch import child_env, run_job
from tests.seams.cells import WORLD, Cell, read_ledgers, verdict

JOB = Path(__file__).with_name("job.py")
ROOT = JOB.parents[2]


def command(driver: str) -> list[str]:
    """The launcher's command line before the job's arguments."""
    if driver in ("plain", "trainer"):
        return [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            f"--nproc-per-node={WORLD}",
            str(JOB),
        ]
    if driver == "accelerate":
        return [
            sys.executable,
            "-m",
            "accelerate.commands.launch",
            "--multi_gpu",
            f"--num_processes={WORLD}",
            "--num_machines=1",
            "--mixed_precision=no",
            "--dynamo_backend=no",
            f"--main_process_port={free_port()}",
            str(JOB),
        ]
    return [sys.executable, str(JOB)]  # Lightning starts its second process; Ray its workers


def run(
    driver: str, workers: int, cells: list[Cell], out: Path, timeout: float
) -> dict[str, list[str]]:
    """Run ``cells`` (one driver and ``workers``) in one launch: ``cell id -> problems``."""
    args = [driver, str(workers), str(out), *(c.id for c in cells)]
    env = child_env(PYTHONPATH=f"{ROOT / 'src'}:{ROOT}")
    proc = run_job(
        [*command(driver), *args],
        cwd=ROOT,
        env=env,
        timeout=timeout,
    )
    tail = (
        f"exit {proc.returncode}\n--- stdout\n{proc.stdout[-3000:]}\n"
        f"--- stderr\n{proc.stderr[-3000:]}"
    )
    verdicts = {}
    for cell in cells:
        ledgers = read_ledgers(out / cell.id)
        errors = [ledger["error"] for ledger in ledgers if "error" in ledger]
        if cell.refusal:
            problems = (
                []
                if len(errors) == WORLD and all(cell.refusal in e for e in errors)
                else [
                    f"expected every rank to refuse with {cell.refusal!r}, "
                    f"got {errors or 'no error'}"
                ]
            )
        elif errors:
            problems = [e[-2000:] for e in errors]
        else:
            problems = verdict(cell, ledgers)
        if problems and proc.returncode != 0:
            problems.append(tail)
        verdicts[cell.id] = problems
    return verdicts
