"""bench_mixture runs each cell ``--reps`` times, interleaved, and reports median (range)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import bench_mixture  # noqa: E402

TIME = re.compile(r"^\d+\.\d{3} s \(\d+\.\d{3}-\d+\.\d{3}\)$")
NS = re.compile(r"^\d+ ns \(\d+-\d+\)$")
MIB = re.compile(r"^\d+\.\d MiB \(\d+\.\d-\d+\.\d\)$")


def test_rows_report_median_and_range_over_the_reps() -> None:
    names = ["fairshard MixtureSampler", "Megatron blended-index rule (Python reimpl.)"]
    got = bench_mixture.rows(2000, names, reps=2)
    assert len(got) == len(names)
    for name, row in zip(names, got, strict=True):
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert cells[0] == name
        assert TIME.match(cells[2]), row
        assert NS.match(cells[3]), row
        assert MIB.match(cells[4]), row
        assert float(cells[5]) <= 1.0, row  # both keep within one sample


def test_float_rows_run_once() -> None:
    (row,) = bench_mixture.float_rows(2000)
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[0] == "2e+03" and float(cells[1]) <= 1.0, row


def test_command_line_takes_reps() -> None:
    args = bench_mixture.parse_args(["--quick", "--reps", "5"])
    assert args.quick and args.reps == 5
    assert bench_mixture.parse_args([]).reps == 3


def test_every_cell_comes_from_one_definition() -> None:
    cells = bench_mixture.mixture_cells(1000, list(bench_mixture.CASES))
    assert list(cells) == list(bench_mixture.CASES)
    for setup, body in cells.values():
        assert "N = 1000" in setup and "RESULT" in body
