"""Run every ``benchmarks/bench_*.py`` and write their tables into README.md.

Each bench script prints markdown (its own ``--quick`` and ``--reps``
options, cells in fresh processes, interleaved). This runner starts them one
after the other, passes the options through, echoes their output and saves
it, stamped with the date and machine, to ``benchmarks/results/<bench>.md``
(``results-quick/`` with ``--quick``: a smoke run's output, not kept in
git, since its figures come from too few records to quote). After a full
run it rebuilds the part of README.md between the two bench markers from every saved full result --
only this script writes there. A new ``bench_*.py`` joins without edits
(``bench_check.py``, which checks those tables, is left out).

    python benchmarks/run.py                          # full: long; writes README.md
    python benchmarks/run.py --quick                  # minutes; README.md untouched
    python benchmarks/run.py --only bench_streams     # re-measure one; README.md updated
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
README = HERE.parent / "README.md"
BEGIN = "<!-- bench:begin (written by `make bench`, benchmarks/run.py; do not edit by hand) -->"
END = "<!-- bench:end -->"


def machine() -> str:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"load average {load:.1f} at the start"
    )


FRESH = "each in a fresh process"
#: Scripts that print no README table: bench_check.py (``make bench-check``) compares
#: the README's headline figures with a rerun.
NOT_TABLES = {"bench_check.py"}
#: How a bench runs its cells, where that is not one fresh process per cell.
HOW = {
    "bench_cold.py": (
        "fairshard's cells in one process and streaming's each in a fresh one, "
        "the files evicted before each cell"
    ),
    "bench_node_share.py": (
        "each node cell 8 fresh processes started together (about a minute at 1e7), "
        "each restart a fresh process, shared and per-rank cells one after the other"
    ),
    "bench_formats.py": (
        "fairshard's and webdataset's cells in one process, streaming's and litdata's each "
        "in a fresh one, the shards evicted before each local cell"
    ),
}


def run_one(script: Path, args: argparse.Namespace) -> str:
    """Run one bench; return its markdown, headed by when and where it was measured."""
    passthrough = ["--reps", str(args.reps)] + (["--quick"] if args.quick else [])
    print(f"\n## {script.name}\n", flush=True)
    where = machine()  # the load at the start, before the bench adds its own
    proc = subprocess.run(
        [sys.executable, str(script), *passthrough], capture_output=True, text=True, check=False
    )
    sys.stdout.write(proc.stdout)
    out = proc.stdout
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["?"])[-1]
        out += f"\n*{script.name} failed (exit {proc.returncode}): {tail}*\n"
        print(out.splitlines()[-1])
    stamp = datetime.date.today().isoformat()
    header = (
        f"*`{script.name}`, measured {stamp} ({'quick' if args.quick else 'full'} run, "
        f"{args.reps} interleaved reps per cell, {HOW.get(script.name, FRESH)}; {where}).*\n\n"
    )
    return header + out.strip() + "\n"


def write_readme(results: Path) -> None:
    text = README.read_text()
    if BEGIN not in text or END not in text:
        raise SystemExit(f"README.md lacks the markers {BEGIN!r} ... {END!r}")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    body = "\n".join(p.read_text() for p in sorted(results.glob("bench_*.md")))
    README.write_text(f"{head}{BEGIN}\n{body.strip()}\n{END}{tail}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes; README untouched")
    parser.add_argument("--reps", type=int, default=3, help="interleaved repeats per cell")
    parser.add_argument("--only", action="append", help="run only this bench (repeatable)")
    parser.add_argument("--no-readme", action="store_true", help="do not write README.md")
    args = parser.parse_args(argv)
    scripts = [s for s in sorted(HERE.glob("bench_*.py")) if s.name not in NOT_TABLES]
    if args.only:
        scripts = [s for s in scripts if s.stem in args.only or s.name in args.only]
    results = HERE / ("results-quick" if args.quick else "results")
    results.mkdir(exist_ok=True)
    for script in scripts:
        (results / f"{script.stem}.md").write_text(run_one(script, args))
    if not (args.quick or args.no_readme):
        write_readme(results)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
