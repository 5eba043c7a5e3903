"""Does a gloo process group come back after a torchrun restart? Both ways, measured.

Launches ``restart_probe.py`` under ``torchrun --standalone --nproc-per-node 2
--max-restarts 1`` with plain ``init_process_group("gloo", timeout=20s)`` and
with ``fairshard.init_elastic_process_group``, and prints for each whether
generation 1 joined, the exit code, the seconds taken and gloo's error::

    python -m tests.fault.probe 3   # runs of each
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

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


def main(argv: list[str] | None = None) -> int:
    """Print one line per run; exit 1 unless the helper rejoined every time.

    Whether plain ``init_process_group`` rejoins is a race (a rank that reads
    its peer's address key before the peer rewrites it gets the dead
    generation's address), so it is reported as a count, not asserted.
    """
    runs = int((argv if argv is not None else sys.argv[1:] or ["3"])[0])
    joined = {"plain": 0, "helper": 0}
    for _ in range(runs):
        for mode in joined:
            result = probe(mode)
            joined[mode] += bool(result["joined"])
            print(result, flush=True)
    print(f"generation 1 joined: plain {joined['plain']}/{runs}, helper {joined['helper']}/{runs}")
    return 0 if joined["helper"] == runs else 1


if __name__ == "__main__":
    sys.exit(main())
