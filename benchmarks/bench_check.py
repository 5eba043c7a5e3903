"""Rerun README.md's headline cells quickly and print each beside the README's figure.

``make bench-check`` (minutes, not part of ``make test``): does the table still
hold on this machine? Each headline cell is the bench module's own definition
(``bench_batch.plan_cells``, ``bench_packing.plan_cells``,
``bench_samplers.epoch_cells`` and ``resume_cells``, ``bench_weighted.compare_cells``
and ``large_cells``, ``bench_steps.step_cells``, ``bench_streams.stream_cells``,
``bench_cold.cold_cells``: one implementation of each cell), every cell in a
fresh process, all cells interleaved, ``--reps`` times (default 3). The
README's figure is read from README.md's table (the row found by its label
under its heading), so the check follows the README; a row that is missing
stops the check, naming it, before anything is measured.

Two kinds of figure: a time (lower is better; ``now / README`` above 1 is
slower) and a ratio peer / fairshard of one rep (higher is better; ``now /
README`` below 1 means fairshard's lead shrank, reported as slower; a ratio
the README gives the other way up, fairshard / peer such as ``ShardedIterable
/ recipe``, is lower-is-better and reported the same way round). A cell
within ``--tolerance`` (default 10%) of its figure holds. The machine's load
average at the start is printed with the table: on a loaded machine a time
runs slower and a ratio moves less.

    python benchmarks/bench_check.py [--reps N] [--tolerance 0.1] [--only TEXT]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_batch
import bench_cold
import bench_packing
import bench_samplers
import bench_steps
import bench_streams
import bench_weighted
from _harness import Cell, Measurement, median, run_cells, table

HERE = Path(__file__).resolve().parent
README = HERE.parent / "README.md"
N_PLAN = 10**7
N_WEIGHTS = 1 << 24
N_LARGE_WEIGHTS = 10**8
N_STREAM = 4 * 10**6
#: Where the cold-read cells write their 1 GiB file (removed when the check ends).
COLD_DIR = Path(os.environ.get("BENCH_COLD_DIR") or tempfile.gettempdir()) / (
    f"fairshard-bench-check-{os.getpid()}"
)


@dataclass(frozen=True)
class Headline:
    """One README figure and the cells that measure it now."""

    label: str  # the name printed in the check's table
    heading: str  # the start of the README heading the table sits under
    row: tuple[str, ...]  # the row's leading cells (its label)
    column: str  # the header of the column that holds the figure
    cells: Callable[[], dict[str, Cell]]  # the bench module's cells
    ours: str  # the fairshard cell
    theirs: str | None = None  # the peer cell of a ratio figure (peer / fairshard)
    by_result: bool = False  # the cells time themselves (RESULT: their best pass's seconds)
    lower_is_better: bool = False  # a ratio written fairshard / peer (ours / theirs)

    @property
    def kind(self) -> str:
        if self.theirs is None:
            return "time"
        return "inverse ratio" if self.lower_is_better else "ratio"


def _pick(cells: dict[str, Cell], *names: str) -> dict[str, Cell]:
    return {name: cells[name] for name in names}


_PLAN_1E7 = "Build and plan one epoch: fairshard at 1e+07 items"
_PLAN_COLUMN = "build + plan one epoch"


def _plan(name: str) -> Headline:
    return Headline(
        f"{name} plan, 1e7",
        _PLAN_1E7,
        (name, f"{N_PLAN:.0e}"),
        _PLAN_COLUMN,
        lambda: _pick(bench_batch.plan_cells(N_PLAN, peers=False), name),
        name,
    )


def _weighted(replacement: bool) -> Headline:
    return Headline(
        f"WeightedSampler vs WeightedRandomSampler, 2**24, replacement={replacement}",
        "WeightedSampler vs WeightedRandomSampler",
        (f"{N_WEIGHTS:,}", str(replacement)),
        "torch / fairshard",
        lambda: bench_weighted.compare_cells(N_WEIGHTS, replacement),
        "fairshard",
        "torch",
    )


def _steps(n: int) -> Headline:
    return Headline(
        f"Megatron random / StepSampler, {n:.0e}",
        "StepSampler iteration",
        (f"{n:.0e}",),
        "Megatron random / StepSampler",
        lambda: _pick(bench_steps.step_cells(n, 3), "StepSampler", "Megatron random"),
        "StepSampler",
        "Megatron random",
        by_result=True,
    )


def _resume(n: int) -> Headline:
    return Headline(
        f"DistributedSampler fresh-process resume, {n:.0e}",
        "Resume in a fresh process",
        (f"{n:.0e}",),
        "fairshard (build + load_state_dict + first)",
        lambda: _pick(bench_samplers.resume_cells(n), "fairshard"),
        "fairshard",
    )


def _stream(kind: str) -> Headline:
    return Headline(
        f"ShardedIterable / islice recipe, {kind}, 0 workers",
        "ShardedIterable item mode vs the islice recipe",
        (kind, "0"),
        "ShardedIterable / recipe",
        lambda: bench_streams.stream_cells(N_STREAM, kind, 0, peers=False),
        "fairshard",
        "recipe",
        lower_is_better=True,
    )


def _cold(where: str, workers: int) -> Headline:
    return Headline(
        f"cold read, {where}, 4 KiB: locality / sequential",
        "Cold-cache reads",
        (where, "4 KiB"),
        "locality / sequential",
        lambda: bench_cold.cold_cells(COLD_DIR / "records.bin", 4096, workers),
        "locality",
        "sequential",
        by_result=True,  # RESULT: seconds per record, so sequential / locality is the rates'
    )


PACKER = "fairshard PackingBatchSampler"

HEADLINES: list[Headline] = [
    _plan("ClassBatchSampler(P=16 x K=4, stop)"),
    _plan("LengthBucketBatchSampler(32)"),
    _plan("TokenBudgetBatchSampler(16384)"),
    Headline(
        "PackingBatchSampler plan, 1e7",
        "Packing log-normal lengths into rows of 4096 tokens",
        (PACKER, f"{N_PLAN:.0e}"),
        "plan time",
        lambda: bench_packing.plan_cells(N_PLAN, [PACKER]),
        PACKER,
    ),
    Headline(
        "DistributedSampler epoch, rank 0 of 8, 1e7: torch / fairshard",
        "DistributedSampler: one full epoch of rank 0",
        (f"{N_PLAN:.0e}", "8"),
        "torch / fairshard",
        lambda: _pick(bench_samplers.epoch_cells(N_PLAN, 8, peers=True), "fairshard", "torch"),
        "fairshard",
        "torch",
    ),
    _weighted(True),
    _weighted(False),
    *(_steps(n) for n in (10**6, 10**8)),
    *(_resume(n) for n in (10**6, 10**8)),
    Headline(
        "WeightedSampler 1e8 weights, no replacement, rank 0 of 8",
        "WeightedSampler at 1e+08 weights",
        (f"{N_LARGE_WEIGHTS:,}", "False", "8"),
        "build + epoch",
        lambda: _pick(bench_weighted.large_cells(N_LARGE_WEIGHTS, [8]), "False/8"),
        "False/8",
    ),
    *(_stream(kind) for kind in ("list", "stream")),
    _cold("one thread", 0),
    _cold("DataLoader, 2 workers", 2),
]


# ------------------------------------------------------------- the README
class MissingRow(LookupError):
    """README.md has no row (or column) for a headline figure."""


Table = tuple[str, list[str], list[list[str]]]  # heading, header, rows


def readme_tables(text: str) -> list[Table]:
    """Every markdown table of ``text`` with the heading it sits under."""
    tables: list[Table] = []
    heading = ""
    current: Table | None = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            heading, current = stripped.lstrip("#").strip(), None
        elif stripped.startswith("|"):
            cells = [c.strip() for c in stripped.strip("|").split("|")]
            if current is None:
                current = (heading, cells, [])
                tables.append(current)
            elif not all(c and set(c) <= set("-:") for c in cells):
                current[2].append(cells)
        else:
            current = None
    return tables


_FIGURE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|ms|x)?\b")


def parse_figure(cell: str) -> float:
    """``'0.804 s (0.785-0.807)'`` -> 0.804 (seconds); ``'17.84x (...)'`` -> 17.84."""
    match = _FIGURE.match(cell)
    if match is None:
        raise ValueError(f"not a figure: {cell!r} (expected e.g. '0.804 s (0.785-0.807)')")
    value = float(match.group(1))
    return value / 1e3 if match.group(2) == "ms" else value


def readme_figure(text: str, headline: Headline, name: str = "README.md") -> tuple[float, str]:
    """The headline's figure in the README: (value, the cell as written)."""
    for heading, header, rows in readme_tables(text):
        if not heading.startswith(headline.heading) or headline.column not in header:
            continue
        col = header.index(headline.column)
        for row in rows:
            if tuple(row[: len(headline.row)]) == headline.row and col < len(row):
                return parse_figure(row[col]), row[col]
    raise MissingRow(
        f"{name} has no row {' | '.join(headline.row)!r} with a column "
        f"{headline.column!r} in a table under a heading starting {headline.heading!r} "
        f"(the figure of {headline.label!r}); run `make bench` to rewrite the tables, "
        "or update HEADLINES in benchmarks/bench_check.py"
    )


# ------------------------------------------------------------- measuring
def now_values(headline: Headline, got: dict[str, list[Measurement]]) -> list[float]:
    """The headline's figure in each rep that ran: seconds, or peer / fairshard."""

    def seconds(m: Measurement) -> float:
        return float(m.result) if headline.by_result else m.seconds

    ours = got[key(headline, headline.ours)]
    if headline.theirs is None:
        return [seconds(m) for m in ours if m.ok]
    theirs = got[key(headline, headline.theirs)]
    pairs = [(seconds(t), seconds(o)) for t, o in zip(theirs, ours, strict=True) if t.ok and o.ok]
    if headline.lower_is_better:
        return [o / t for t, o in pairs]
    return [t / o for t, o in pairs]


def key(headline: Headline, cell: str) -> str:
    return f"{headline.label}: {cell}"


def fmt_value(value: float, kind: str) -> str:
    if kind != "time":
        return f"{value:.2f}x"
    return f"{value * 1e3:.2f} ms" if value < 0.1 else f"{value:.3f} s"


def verdict(readme: float, now: float, kind: str, tolerance: float) -> str:
    """holds / slower by X% / faster by X%: fairshard's time, or its lead over the peer."""
    lower_is_better = kind in ("time", "inverse ratio")
    slowdown = now / readme if lower_is_better else readme / now  # > 1: fairshard slower
    if slowdown > 1 + tolerance:
        return f"slower by {slowdown - 1:.0%}"
    if slowdown < 1 / (1 + tolerance):
        return f"faster by {1 / slowdown - 1:.0%}"
    return "holds"


def check(
    headlines: list[Headline], readme_text: str, reps: int, tolerance: float
) -> tuple[list[list[str]], list[str]]:
    """Measure; return the table's rows and a verdict line per headline."""
    figures = [readme_figure(readme_text, h) for h in headlines]  # every row, before measuring
    cells = {key(h, name): cell for h in headlines for name, cell in h.cells().items()}
    got = run_cells(cells, reps, timeout=900)
    rows, verdicts = [], []
    for h, (readme, written) in zip(headlines, figures, strict=True):
        values = now_values(h, got)
        if not values:
            status = got[key(h, h.ours)][0].status
            rows.append([h.label, written, status, "n/a"])
            verdicts.append(f"{h.label}: did not run ({status})")
            continue
        now = median(values)
        rows.append(
            [
                h.label,
                written,
                f"{fmt_value(now, h.kind)} ({fmt_value(min(values), h.kind)}"
                f"-{fmt_value(max(values), h.kind)})",
                f"{now / readme:.2f}",
            ]
        )
        verdicts.append(f"{h.label}: {verdict(readme, now, h.kind, tolerance)}")
    return rows, verdicts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3, help="interleaved repeats per cell")
    parser.add_argument("--tolerance", type=float, default=0.10, help="'holds' within this")
    parser.add_argument("--only", action="append", help="only headlines whose label has TEXT")
    parser.add_argument("--readme", type=Path, default=README, help="the README to check")
    args = parser.parse_args(argv)
    headlines = [h for h in HEADLINES if not args.only or any(t in h.label for t in args.only)]
    if not headlines:
        parser.error(f"--only {args.only!r} matches no headline; labels: {labels()}")
    text = args.readme.read_text()
    try:
        for h in headlines:
            readme_figure(text, h, str(args.readme))
    except MissingRow as exc:
        print(f"bench-check: {exc}", file=sys.stderr)
        return 2
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(
        f"bench-check: {len(headlines)} headline cells of {args.readme.name}, {args.reps} "
        f"interleaved reps each, {os.cpu_count()} CPUs, load average at the start "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (1, 5, 15 min)\n",
        flush=True,
    )
    try:
        rows, verdicts = check(headlines, text, args.reps, args.tolerance)
    finally:
        shutil.rmtree(COLD_DIR, ignore_errors=True)
    print(table(["cell", "README", "now median (range)", "now / README"], rows))
    print(
        f"\nVerdicts (holds: within {args.tolerance:.0%}; a ratio is peer / fairshard, "
        "so a smaller ratio is slower):"
    )
    for line in verdicts:
        print(f"- {line}")
    return 1 if any("did not run" in v for v in verdicts) else 0


def labels() -> list[str]:
    return [h.label for h in HEADLINES]


if __name__ == "__main__":
    raise SystemExit(main())
