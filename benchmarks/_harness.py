"""Measure a code snippet in a fresh child process: wall time and peak extra RSS.

Each measurement runs ``setup`` then times ``body`` in a new Python process,
so peak memory of one case never leaks into another. "Peak extra RSS" is the
process's peak resident set size (``ru_maxrss``) minus its resident size
right after ``setup``: what the timed code itself added at its worst.
A ``MemoryError`` (or a kill by the memory limit) is reported, not raised.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass

_CHILD = r"""
import json, os, resource, sys, time
def _rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
ns = {}
exec(compile(SETUP, "<setup>", "exec"), ns)
base = _rss()
t0 = time.perf_counter()
try:
    exec(compile(BODY, "<body>", "exec"), ns)
    status = "ok"
except MemoryError:
    status = "MemoryError"
seconds = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
result = ns.get("RESULT")
print("@@RESULT@@" + json.dumps({"seconds": seconds, "peak_extra": max(0, peak - base),
                               "status": status, "result": result}))
"""


@dataclass
class Measurement:
    """One measured run."""

    seconds: float
    peak_extra_mib: float
    status: str  # "ok", "MemoryError", "killed", "timeout", "error: ..."
    result: object = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def measure(
    setup: str, body: str, *, timeout: float = 900.0, memory_limit_gib: float | None = None
) -> Measurement:
    """Run ``setup`` then time ``body`` in a fresh interpreter.

    ``body`` may assign ``RESULT`` (JSON-serializable) to report a value.
    ``memory_limit_gib`` caps the child's address space (``RLIMIT_AS``) so a
    runaway allocation fails with ``MemoryError`` instead of swapping.
    """
    prelude = ""
    if memory_limit_gib is not None:
        limit = int(memory_limit_gib * (1 << 30))
        prelude = f"import resource\nresource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit}))\n"
    code = (
        prelude + f"SETUP = {textwrap.dedent(setup)!r}\nBODY = {textwrap.dedent(body)!r}\n" + _CHILD
    )
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        return Measurement(float("nan"), float("nan"), "timeout")
    for line in proc.stdout.splitlines():
        if line.startswith("@@RESULT@@"):
            data = json.loads(line[len("@@RESULT@@") :])
            return Measurement(
                data["seconds"], data["peak_extra"] / 2**20, data["status"], data["result"]
            )
    if "MemoryError" in proc.stderr:
        return Measurement(float("nan"), float("nan"), "MemoryError")
    if proc.returncode < 0:
        return Measurement(float("nan"), float("nan"), "killed")
    tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
    return Measurement(float("nan"), float("nan"), f"error: {tail}")


def fmt_seconds(m: Measurement) -> str:
    return f"{m.seconds:.3f} s" if m.ok else m.status


def fmt_mib(m: Measurement) -> str:
    return f"{m.peak_extra_mib:.1f} MiB" if m.ok else m.status


def ratio(theirs: Measurement, ours: Measurement) -> str:
    """theirs / ours, as 'N.Nx' (how many times ours is better)."""
    if not (theirs.ok and ours.ok) or ours.seconds <= 0:
        return "n/a"
    return f"{theirs.seconds / ours.seconds:.1f}x"
