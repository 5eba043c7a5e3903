"""bench_packing runs each cell ``--reps`` times, interleaved, and reports median (range)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import bench_packing  # noqa: E402

TIME = re.compile(r"^\d+\.\d{3} s \(\d+\.\d{3}-\d+\.\d{3}\)$")
MS = re.compile(r"^\d+\.\d{2} ms \(\d+\.\d{2}-\d+\.\d{2}\)$")


def test_plan_rows_report_median_and_range_over_the_reps() -> None:
    (row,) = bench_packing.rows(2000, ["fairshard PackingBatchSampler"], reps=2)
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[0] == "fairshard PackingBatchSampler"
    assert TIME.match(cells[5]), row


def test_command_line_takes_reps() -> None:
    args = bench_packing.parse_args(["--quick", "--reps", "5"])
    assert args.quick and args.reps == 5
    assert bench_packing.parse_args([]).reps == 3


def test_every_plan_cell_comes_from_one_definition() -> None:
    cells = bench_packing.plan_cells(1000, list(bench_packing.CASES))
    assert list(cells) == list(bench_packing.CASES)
    for setup, body in cells.values():
        assert "N = 1000" in setup and body
