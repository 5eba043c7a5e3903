"""A torchft job on CPU: lighthouse, replica groups, a SIGKILL, a late join, the replay.

``run_job`` starts ``torchft_lighthouse`` and one torchrun per replica group
(``tests/fault/torchft_train.py``, in the torchft venv), SIGKILLs group 1 at
``die_at`` (the group kills its agent and its processes before that step's
commit), starts one more group once the survivors have committed
``join_at`` steps (they hold before their next quorum until its Manager is
up, so it joins live groups), waits for every live group to finish ``epochs`` epochs,
and replays the ledgers (``replay``): per epoch, every plan position in the
committed steps once, duplicates only declared padding, holes only declared
drops; repeats are the items of steps no group committed.

Run as a script (prints the replay and the timings as JSON)::

    python -m tests.fault.torchft_job --family distributed --groups 2 --procs 1
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tests.fault.ledger import read_ledgers

__all__ = ["TORCHFT_PYTHON", "flat", "TorchftResult", "replay", "run_job", "torchft_missing"]

ROOT = Path(__file__).resolve().parents[2]
TRAIN = "tests.fault.torchft_train"
#: The torchft venv (``make venv-torchft``); ``FAIRSHARD_TORCHFT_VENV`` moves it.
VENV = Path(os.environ.get("FAIRSHARD_TORCHFT_VENV", ROOT / ".venv-torchft"))
TORCHFT_PYTHON = VENV / "bin" / "python"
LIGHTHOUSE = VENV / "bin" / "torchft_lighthouse"


def flat(item: object) -> list[int]:
    """Dataset indices of one item (an index, a batch, or packed rows)."""
    if isinstance(item, list | tuple):
        return [i for x in item for i in flat(x)]
    if hasattr(item, "tolist"):
        return flat(item.tolist())
    return [int(item)]  # type: ignore[call-overload]


def torchft_missing() -> str | None:
    """Why the torchft job cannot run here, or ``None`` when it can."""
    for path in (TORCHFT_PYTHON, LIGHTHOUSE):
        if not path.exists():
            return f"no torchft venv ({path} is missing): run `make venv-torchft`"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class TorchftResult:
    """What a job's ledgers show."""

    lost: int = 0
    unexplained: int = 0
    padded: int = 0
    dropped: int = 0
    redone: int = 0
    committed_items: int = 0
    recover_s: float | None = None
    join_s: float | None = None
    wall_s: float = 0.0
    healed: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """0 lost, 0 repeats beyond declared padding, every group ended as planned."""
        return self.lost == 0 and self.unexplained == 0 and not self.problems


def replay(
    directory: Path,
    family: str,
    totals: dict[int, int],
    expected: dict[int, Counter[int]],
    out: TorchftResult | None = None,
) -> TorchftResult:
    """Check ``family``'s records in the ledgers of ``directory`` against its epochs' plans.

    A step's items are trained when some group committed that step in that
    quorum (its allreduce held every participant's gradient).

    Args:
        directory: The job's ledger directory.
        family: The catalog name whose records are checked.
        totals: Plan length per epoch.
        expected: Dataset indices per epoch (the plan's multiset).
        out: A result to add to (default: a new one).
    """
    out = TorchftResult() if out is None else out
    records = list(read_ledgers(directory))
    commits = {(r["step"], r["quorum"]) for r in records if r["t"] == "commit"}
    per_epoch: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        if r["t"] == "items" and r["family"] == family:
            if (r["step"], r["quorum"]) in commits:
                per_epoch[r["epoch"]].append(r)
            else:
                out.redone += len(r["indices"])
    for epoch, total in totals.items():
        recs = per_epoch.get(epoch, [])
        positions = Counter(p for r in recs for p in r["positions"])
        indices = Counter(i for r in recs for i in r["indices"])
        padded = sum(r["padded"] for r in recs)
        last = max(recs, key=lambda r: r["step"], default=None)
        dropped = 0 if last is None else last["dropped"]
        missing = sum(1 for p in range(total) if positions[p] == 0)
        dups = sum(positions.values()) - (total - missing)
        lost, unexplained = max(0, missing - dropped), max(0, dups - padded)
        if missing < dropped or dups < padded:
            out.problems.append(f"{family} epoch {epoch}: fewer holes/duplicates than declared")
        out.lost += lost
        out.unexplained += unexplained
        if lost or unexplained:
            out.problems.append(f"{family} epoch {epoch}: {lost} lost, {unexplained} repeated")
        out.padded += padded
        out.dropped += dropped
        out.committed_items += sum(indices.values())
        if not dropped and not padded and indices != expected[epoch]:
            out.problems.append(f"{family} epoch {epoch}: trained indices differ from the plan's")
    return out


def _timings(directory: Path, dead: int, joiner: int | None, out: TorchftResult) -> None:
    records = list(read_ledgers(directory))
    died = [r["time"] for r in records if r["t"] == "items" and r["launch"] == dead]
    if died:
        t_kill = max(died)
        after = [
            r["time"]
            for r in records
            if r["t"] == "commit" and r["launch"] != dead and r["time"] > t_kill
        ]
        out.recover_s = min(after) - t_kill if after else None
    if joiner is not None:
        start = [r["t0"] for r in records if r["t"] == "start" and r["launch"] == joiner]
        first = [r["time"] for r in records if r["t"] == "commit" and r["launch"] == joiner]
        if start and first:
            out.join_s = min(first) - min(start)


def _committed_steps(directory: Path, launch: int) -> int:
    return sum(1 for r in read_ledgers(directory) if r["t"] == "commit" and r["launch"] == launch)


def run_job(
    family: str,
    *,
    groups: int = 2,
    procs: int = 1,
    dataset_size: int = 48,
    epochs: int = 2,
    seed: int = 5,
    items_per_rank: int = 2,
    die_at: int = 3,
    join_at: int = 6,
    step_s: float = 0.05,
    join_delay_s: float = 0.0,
    first_delay_s: float = 0.0,
    heartbeat_ms: int = 600,
    timeout: float = 120.0,
    directory: Path | None = None,
) -> TorchftResult:
    """Run one job (see the module docstring) and replay it.

    Args:
        family: Catalog names, comma-separated: the job reads one sampler of
            each in every step and each is replayed on its own.
        join_delay_s: Seconds the joiner waits after it is let in, before its
            Manager: a joiner slower than the survivors' whole run.
        first_delay_s: Seconds group 0 waits before its Manager: a first group
            slower to start than the group that is killed.
    """
    missing = torchft_missing()
    if missing:
        raise RuntimeError(missing)
    t_start = time.monotonic()
    tmp = tempfile.TemporaryDirectory(prefix="fairshard-torchft-")
    ledgers = Path(directory or tmp.name) / "ledgers"
    ledgers.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    env = {
        **os.environ,
        "PYTHONPATH": f"{ROOT / 'src'}:{ROOT}",
        "TORCHFT_LIGHTHOUSE": f"http://localhost:{port}",
        "PYTHONUNBUFFERED": "1",
    }
    env.pop("OMP_NUM_THREADS", None)
    env["OMP_NUM_THREADS"] = "1"
    logs = Path(directory or tmp.name)
    lighthouse = subprocess.Popen(
        [str(LIGHTHOUSE), "--min_replicas", "1", "--bind", f"[::]:{port}",
         "--join_timeout_ms", "300", "--quorum_tick_ms", "20",
         "--heartbeat_timeout_ms", str(heartbeat_ms)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    procs_by_group: dict[int, subprocess.Popen[bytes]] = {}
    log_files: list[Any] = []

    def launch(group: int, die: int, wait: int) -> None:
        cmd = [
            str(TORCHFT_PYTHON), "-m", "torch.distributed.run", "--standalone",
            f"--nproc-per-node={procs}", "--max-restarts=0", "-m", TRAIN, str(ledgers),
            family, str(dataset_size), str(seed), str(epochs), str(group), str(die),
            str(items_per_rank), str(wait), str(step_s),
            str(join_delay_s if not wait else first_delay_s if group == 0 else 0),
        ]  # fmt: skip
        log = open(logs / f"group{group}.log", "wb")  # noqa: SIM115 (closed with the job)
        log_files.append(log)
        procs_by_group[group] = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )

    out = TorchftResult()
    try:
        for g in range(groups):
            launch(g, die_at if g == 1 else -1, groups)
        joiner, let_in = groups, False
        launch(joiner, -1, 0)  # imports now, starts its Manager at join_at
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if not let_in and _committed_steps(ledgers, 0) >= join_at:
                (ledgers / "join").touch()
                let_in = True
            if let_in and all(p.poll() is not None for g, p in procs_by_group.items() if g != 1):
                break
            time.sleep(0.05)
        else:
            out.problems.append(f"the job did not finish in {timeout:.0f} s")
        for g, p in procs_by_group.items():
            rc = p.poll()
            if g != 1 and rc != 0:
                out.problems.append(f"group {g} ended with rc={rc}")
        if procs_by_group[1].wait(timeout=10) == 0:
            out.problems.append("group 1 was to be SIGKILLed and exited normally")
        result = TorchftResult(problems=out.problems)
        for name in family.split(","):
            totals, expected = _plans(name, dataset_size, seed, epochs)
            replay(ledgers, name, totals, expected, result)
        result.healed = sum(1 for r in read_ledgers(ledgers) if r["t"] == "healed")
        records = list(read_ledgers(ledgers))
        dead = {r["quorum"] for r in records if r["t"] == "commit" and r["launch"] == 1}
        seen = {r["quorum"] for r in records if r["t"] == "commit" and r["launch"] != 1}
        if dead and dead.isdisjoint(seen):
            result.problems.append(
                "group 1 committed only in quorums no other group was in, then died: nothing"
                " carried its commits on, so their repeats say nothing about the sampler"
            )
        if not any(r["t"] == "healed" and r["launch"] == joiner for r in read_ledgers(ledgers)):
            result.problems.append(
                f"group {joiner} never healed from a live group: it trained alone from step 0,"
                " so its repeats say nothing about the sampler"
            )
        _timings(ledgers, 1, joiner, result)
        result.wall_s = time.monotonic() - t_start
        if not result.ok:
            for g in procs_by_group:
                tail = (logs / f"group{g}.log").read_text(errors="replace")[-3000:]
                result.problems.append(f"group {g} log tail:\n{tail}")
        return result
    finally:
        for p in [*procs_by_group.values(), lighthouse]:
            if p.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(p.pid, 9)
                p.wait(timeout=10)
        for log in log_files:
            log.close()
        tmp.cleanup()


def _plans(
    family: str, dataset_size: int, seed: int, epochs: int
) -> tuple[dict[int, int], dict[int, Counter[int]]]:
    """Plan length and indices per epoch, from the family's plan in this process."""
    from tests.catalog import sampler_families

    entry = {e.name: e for e in sampler_families()}[family]
    sampler = entry.make(dataset_size, 0, 1, seed=seed)
    totals: dict[int, int] = {}
    expected: dict[int, Counter[int]] = {}
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        plan = sampler.plan(epoch)
        totals[epoch] = len(plan)
        expected[epoch] = Counter(
            i for item in plan.items(np.arange(len(plan), dtype=np.int64)) for i in flat(item)
        )
    return totals, expected


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--family", default="distributed")
    parser.add_argument("--groups", type=int, default=2)
    parser.add_argument("--procs", type=int, default=1)
    parser.add_argument("--dataset-size", type=int, default=48)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--die-at", type=int, default=3)
    parser.add_argument("--join-at", type=int, default=6)
    parser.add_argument("--items-per-rank", type=int, default=2)
    parser.add_argument("--heartbeat-ms", type=int, default=600, help="the lighthouse's timeout")
    args = parser.parse_args(argv)
    result = run_job(
        args.family, groups=args.groups, procs=args.procs, dataset_size=args.dataset_size,
        epochs=args.epochs, die_at=args.die_at, join_at=args.join_at,
        items_per_rank=args.items_per_rank, heartbeat_ms=args.heartbeat_ms,
    )  # fmt: skip
    print(json.dumps({k: v for k, v in vars(result).items()}, indent=1, default=str))
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
