"""bench_cold's disk table: both read patterns cover the same bytes and the table says so."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_cold


def test_disk_table_reads_both_patterns(tmp_path: Path) -> None:
    path = tmp_path / "records.bin"
    bench_cold.write_records(path, 4 << 20)
    text = bench_cold.disk_table(str(path), reps=2, total=2 << 20, chunks=(1 << 20, 2 << 20))
    rows = [
        line
        for line in text.splitlines()
        if line.startswith("| 1 MiB") or line.startswith("| 2 MiB")
    ]
    assert len(rows) == 2
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert float(cells[1].split()[0].replace(",", "")) > 0
        assert float(cells[2].split()[0].replace(",", "")) > 0


def test_chunk_rate_scattered_reads_every_chunk_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "records.bin"
    bench_cold.write_records(path, 8 << 20)
    seen: list[tuple[int, int]] = []
    real = bench_cold.os.pread

    def spy(fd: int, n: int, offset: int) -> bytes:
        seen.append((n, offset))
        return real(fd, n, offset)

    monkeypatch.setattr(bench_cold.os, "pread", spy)
    bench_cold.chunk_rate(str(path), 1 << 20, True, 8 << 20)
    assert sorted(o for _, o in seen) == [i << 20 for i in range(8)]
    assert [o for _, o in seen] != sorted(o for _, o in seen)  # scattered, not in file order
    seen.clear()
    bench_cold.chunk_rate(str(path), 1 << 20, False, 4 << 20)
    assert [o for _, o in seen] == [i << 20 for i in range(4)]


def test_disk_table_refuses_chunks_larger_than_the_file(tmp_path: Path) -> None:
    path = tmp_path / "records.bin"
    bench_cold.write_records(path, 1 << 20)
    with pytest.raises(ValueError, match="must fit"):
        bench_cold.disk_table(str(path), reps=1, total=1 << 20, chunks=(2 << 20,))
