"""bench_formats: a smoke run prints every table; fairshard resumes exactly on another world
size; litdata's side writes, reads and resumes.

No speed is checked here: the figures are ``make bench``'s. The smoke run
leaves the venv peers out (their own tests below run where their venvs are).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
sys.path.insert(0, str(BENCH))

import bench_formats  # noqa: E402
from _harness import spread  # noqa: E402
from _peers import LITDATA, STREAMING  # noqa: E402

NO_PEERS = {"BENCH_STREAMING_PYTHON": "/nonexistent", "BENCH_LITDATA_PYTHON": "/nonexistent"}


def _row(out: str, first_cell: str) -> list[str]:
    """The cells of the first table row that starts with ``first_cell``."""
    line = next(line for line in out.splitlines() if line.startswith(f"| {first_cell} |"))
    return [cell.strip() for cell in line.strip("|").split("|")]


@pytest.mark.timeout(300)
def test_a_smoke_run_prints_every_table_and_fairshard_resumes_exactly() -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(BENCH / "bench_formats.py"),
            *("--records", "1024", "--reps", "1", "--sections", "reads", "resume"),
        ],
        capture_output=True,
        text=True,
        timeout=280,
        env={**os.environ, **NO_PEERS},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = done.stdout
    assert "left out (no venv; `make bench` builds them): mosaicml streaming, litdata" in out
    for heading in (
        "### Records per second from opening the dataset",
        "### Records per second after the first batch",
        "### Seconds from opening the dataset to the first batch",
        "### Class entropy per batch of 64",
        "### Resume after 5 of 16 batches",
    ):
        assert heading in out
    local = _row(out, "local disk")  # in the first table: rates, then fairshard tar / peers
    assert local[-2].endswith("webdataset")  # the only peer left: the fastest of one
    ours = _row(out, "fairshard tar (locality)")
    assert [ours[2], ours[4], ours[5]] == ["0 / 0"] * 3  # local, S3, onto 3 workers
    theirs = _row(out, "webdataset (restarts the epoch)")
    assert theirs[2] == "0 / 320"  # 5 batches of 64 read again


def test_rates_and_the_resume_cell() -> None:
    read = bench_formats.Read(first=1.0, elapsed=3.0, count=64 + 200, ids=[])
    assert read.rate == 88.0 and read.steady == 100.0
    assert spread([3.0, 1.0, 2.0], ".1f", " s") == "2.0 s (1.0-3.0)"
    timed = [(0.5, 0, 2, ""), (0.25, 1, 0, ""), (0.75, 0, 0, "")]
    assert bench_formats.resume_cell(timed, True) == [
        "0.50 (0.25-0.75)",
        "1 / 2",
    ]
    refused = [(None, 0, 0, "ValueError: workers | changed\n2 -> 3")]
    assert bench_formats.resume_cell(refused, False) == [
        "refused: ValueError: workers / changed 2 -> 3"
    ]


def test_the_fastest_peer_at_fairshards_quality() -> None:
    n = 640
    shuffled = [(7 * i) % n for i in range(n)]  # every batch of 64 spans the 10 classes
    got = {
        "fairshard tar": [bench_formats.Read(0.0, 1.0, 300, shuffled)],
        "fast, sorted": [bench_formats.Read(0.0, 1.0, 900, list(range(n)))],
        "slow, shuffled": [bench_formats.Read(0.0, 1.0, 100, shuffled)],
    }
    peers = ["fast, sorted", "slow, shuffled"]
    floor = bench_formats.bits(shuffled, n) - bench_formats.SLACK
    assert bench_formats.best_peer(got, peers, 0.0, n) == "fast, sorted"
    assert bench_formats.best_peer(got, peers, floor, n) == "slow, shuffled"
    assert bench_formats.versus(got, "slow, shuffled") == "3.00x (3.00-3.00) slow, shuffled"
    assert bench_formats.versus(got, None) == "no peer"


@pytest.mark.timeout(120)
def test_fairshard_resumes_exactly_from_2_onto_3_ranks_each_in_its_own_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fairshard side of the bench's 2 -> 3 cell (4 -> 2 is the same code, run by the bench)."""
    for name, value in NO_PEERS.items():
        monkeypatch.setenv(name, value)
    sets = bench_formats.Sets(tmp_path, 1001, 0.0, remote=False)
    bench_formats.fairshard_set(sets, "tar", False, None)  # the index, before the ranks
    got = bench_formats.elastic_resume(sets, "fairshard", 2, 3, timeout=100)
    # 2 ranks x 2 batches of 64 taken, 745 left: 249 per rank, 2 of them declared padding.
    assert got.refused == "" and got.seconds is not None
    assert (got.lost, got.repeated, got.declared) == (0, 2, 2)


@pytest.mark.matrix
@pytest.mark.timeout(300)
@pytest.mark.parametrize("peer", ["streaming", "litdata"])
def test_a_peer_resumes_from_2_onto_3_ranks_as_docs_formats_says(
    peer: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The peers' side of the 2 -> 3 cell (``-m matrix``: 15-30 s each, their venvs' imports)."""
    if {"streaming": STREAMING, "litdata": LITDATA}[peer].python() is None:
        pytest.skip(f"no {peer} venv (make bench makes .venv-{peer})")
    other = {"streaming": LITDATA, "litdata": STREAMING}[peer]
    monkeypatch.setenv(other.variable, "/nonexistent")  # only this peer's set is written
    sets = bench_formats.Sets(tmp_path, 1001, 0.0, remote=False)
    got = bench_formats.elastic_resume(sets, peer, 2, 3, timeout=240)
    assert got.refused == ""  # neither refuses a state of another world size
    # 2 ranks x 2 batches of 64 taken, 745 left.
    if peer == "streaming":  # exact: the rest re-partitioned, 2 padded to 249 per rank
        assert (got.lost, got.repeated) == (0, 2)
    else:  # 256 taken rounded down to 192 (3 x 64): 64 read again; and it loses more of
        # the rest than the drop its epoch on 3 ranks declares (drop_last)
        assert got.repeated == 64 and got.lost > -got.declared > 0


def test_the_elastic_cell_and_what_a_reader_declares() -> None:
    got = [
        bench_formats.Elastic(0.5, 0, 2, 2, ""),
        bench_formats.Elastic(0.25, 1, 0, 2, ""),
    ]
    assert bench_formats.elastic_cell(got) == ["0.38 (0.25-0.50)", "1 / 2", "+2"]
    refused = [bench_formats.Elastic(None, 0, 0, 0, "ValueError: world | size\n2 -> 3")]
    assert bench_formats.elastic_cell(refused) == [
        "refused",
        "refused: ValueError: world / size 2 -> 3",
        "",
    ]
    before = list(range(8))
    ours = [{"declared": {"remaining": 1}}, {"declared": {"remaining": 1}}]
    assert bench_formats.declared(ours, before, 9) == 1  # 1 left on 2 ranks: 1 padded
    theirs = [{"declared": {"epoch_per_rank": 4}}] * 2
    assert bench_formats.declared(theirs, before, 9) == -1  # drop_last: 8 of 9
    assert bench_formats.declared([{"declared": {}}], before, 9) == 0


@pytest.mark.timeout(300)
def test_litdata_writes_reads_and_resumes_its_chunks(tmp_path: Path) -> None:
    python = LITDATA.python()
    if python is None:
        pytest.skip("no litdata venv (make bench makes .venv-litdata)")
    folder = tmp_path / "chunks"
    assert LITDATA.run(python, "write", folder, 300, 1000, timeout=240) == {"written": 1000}
    got = LITDATA.run(python, "read", folder, "full", 2, 500, timeout=240)
    assert got["read"] >= 500 and len(set(got["indices"])) == 500
    assert set(got["indices"]) <= set(range(1000))
    resumed = LITDATA.run(python, "resume", folder, 2, 5, 3, timeout=240)  # 2 -> 3 workers
    seen = Counter(resumed["before"]) + Counter(resumed["after"])
    assert len(resumed["before"]) == 5 * 64
    assert seen == Counter(range(1000))  # nothing lost, nothing read twice
