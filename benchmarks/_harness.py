"""Measure a code snippet in a fresh child process: wall time and peak extra RSS.

Each measurement runs ``setup`` then times ``body`` in a new Python process,
so peak memory of one case never leaks into another. "Peak extra RSS" is the
process's peak resident set size (``VmHWM``, reset after ``setup`` through
``/proc/self/clear_refs``) minus its resident size right after ``setup``:
what the timed code itself added at its worst.
A ``MemoryError`` (or a kill by the memory limit) is reported, not raised.

NOTE (bytecode): before the first cell, fairshard's sources are compiled to
``__pycache__`` once (``compile_sources``). An installed package has its
bytecode from the install; a checkout run with ``PYTHONDONTWRITEBYTECODE``
set (as some machines and CI images do) would otherwise compile every
module it imports again in every fresh process -- about 0.1 s at the first
use of ``fairshard``, counted in any cell that times it (measured
2026-12-04: a ``FairshardTrainer`` resume took 0.44 s instead of 0.29 s).
"""

from __future__ import annotations

import argparse
import compileall
import json
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

_CHILD = r"""
import json, os, resource, sys, time
def _rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
def _hwm():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
ns = {}
exec(compile(SETUP, "<setup>", "exec"), ns)
try:  # reset the peak (Linux >= 4.0), so the setup's own transient peak is not counted
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
except OSError:
    pass
base = _rss()
t0 = time.perf_counter()
try:
    exec(compile(BODY, "<body>", "exec"), ns)
    status = "ok"
except MemoryError:
    status = "MemoryError"
seconds = time.perf_counter() - t0
peak = _hwm()
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


def inputs(classes: int = 1000) -> str:
    """Code that makes the benches' synthetic inputs of ``N`` items (``N``, ``np`` defined first).

    Log-normal lengths clipped to [1, 4096], labels in ``range(classes)``,
    uniform weights, all from ``default_rng(0)``: the same arrays in every
    bench that reads them, so their tables compare.
    """
    return (
        "rng = np.random.default_rng(0)\n"
        "lengths = np.clip(np.rint(rng.lognormal(5.0, 0.8, N)), 1, 4096).astype(np.int64)\n"
        f"labels = rng.integers(0, {classes}, N)\n"
        "weights = rng.random(N)\n"
    )


# ------------------------------------------------------- interleaved repeats
Cell = tuple[str, str]  # (setup, body) for ``measure``


_SOURCES = Path(__file__).resolve().parents[1] / "src"
_compiled: list[bool] = []


def compile_sources() -> None:
    """Write the bytecode of fairshard's sources once per bench process (module NOTE)."""
    if not _compiled:
        compileall.compile_dir(str(_SOURCES), quiet=1)
        _compiled.append(True)


def run_cells(cells: dict[str, Cell], reps: int, **kwargs: object) -> dict[str, list[Measurement]]:
    """Measure every cell ``reps`` times, interleaved: rep 1 of all cells, then rep 2, ...

    The order of the cells rotates from one rep to the next, so a burst of
    load from other processes on a shared machine does not always land on
    the same cell. Each measurement is a fresh process (``measure``), run
    on compiled sources (``compile_sources``).
    """
    compile_sources()
    names = list(cells)
    out: dict[str, list[Measurement]] = {name: [] for name in names}
    for rep in range(reps):
        shift = rep % len(names)
        for name in names[shift:] + names[:shift]:
            setup, body = cells[name]
            out[name].append(measure(setup, body, **kwargs))  # type: ignore[arg-type]
    return out


def _ok(ms: list[Measurement]) -> list[Measurement]:
    return [m for m in ms if m.ok]


def median(values: list[float]) -> float:
    s = sorted(values)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def spread(values: list[float], spec: str, unit: str = "") -> str:
    """Median and range of ``values`` in ``spec``: ``0.53 s (0.50-0.61)`` for ``".2f", " s"``."""
    return f"{median(values):{spec}}{unit} ({min(values):{spec}}-{max(values):{spec}})"


def fmt_time(ms: list[Measurement], scale: float = 1.0, unit: str = "s") -> str:
    """Median time with its range over the reps: ``0.53 s (0.50-0.61)``."""
    good = _ok(ms)
    if not good:
        return ms[0].status if ms else "n/a"
    digits = 3 if unit == "s" else 2
    return spread([m.seconds * scale for m in good], f".{digits}f", f" {unit}")


def fmt_mem(ms: list[Measurement]) -> str:
    """Median peak extra RSS with its range over the reps: ``147.5 MiB (146.9-148.0)``."""
    good = _ok(ms)
    if not good:
        return ms[0].status if ms else "n/a"
    return spread([m.peak_extra_mib for m in good], ".1f", " MiB")


def fmt_ratio(theirs: list[Measurement], ours: list[Measurement]) -> str:
    """theirs / ours per rep (the cells of one rep ran back to back): median (range)."""
    pairs = [(a.seconds / b.seconds) for a, b in zip(theirs, ours, strict=False) if a.ok and b.ok]
    if not pairs:
        return "n/a"
    return spread(pairs, ".2f", "x")


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def bench_args(doc: str, argv: list[str] | None = None) -> argparse.Namespace:
    """The command line every ``bench_*.py`` takes: ``--quick`` and ``--reps``."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, runs in a minute")
    parser.add_argument("--reps", type=int, default=3, help="interleaved repeats per cell")
    return parser.parse_args(argv)
