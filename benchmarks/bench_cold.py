"""Cold-cache read throughput: sequential, random and the locality order (with Readahead).

One file of fixed-size records (1 GiB; 256 MiB with ``--quick``) is written
once, synced, and before every measurement evicted from the page cache with
``posix_fadvise(POSIX_FADV_DONTNEED)`` -- the cache is emptied for that file
only, without root. Each cell reads the first records of rank 0's order
(``--records`` caps it) with ``os.pread`` and reports records per second:

* ``sequential``: ``DistributedSampler(shuffle=False)``: the disk's limit;
* ``random``: ``DistributedSampler`` (the default keyed permutation, like
  ``RandomSampler``);
* ``locality``: ``DistributedSampler(order="locality")`` with
  ``block_size = 1 MiB // record`` and the default window, the dataset
  calling ``fairshard.Readahead`` (``WILLNEED`` on this and the next window);
* ``locality, no hint``: the same order without ``Readahead``.

In one thread, and through a ``DataLoader`` with 2 workers (batches of 64,
timed from the first batch, so worker start-up is left out). Medians of
``--reps``; the ratios are taken within each rep (same file, same run).
mosaicml streaming is not measured here.

    python benchmarks/bench_cold.py [--quick] [--reps N]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from _harness import bench_args, table
from torch.utils.data import DataLoader, Dataset

import fairshard

RECORDS = (4096, 65536)
ORDERS = ("sequential", "random", "locality", "locality, no hint")


def evict(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def sampler_for(order: str, n: int, record: int) -> Any:
    if order == "sequential":
        return fairshard.DistributedSampler(n, 1, 0, shuffle=False)
    if order == "random":
        return fairshard.DistributedSampler(n, 1, 0, seed=1)
    return fairshard.DistributedSampler(
        n, 1, 0, seed=1, order="locality", block_size=max(1, (1 << 20) // record)
    )


class Records(Dataset[int]):
    def __init__(self, path: str, n: int, record: int, readahead: Any) -> None:
        self.path, self.n, self.record, self.readahead = path, n, record, readahead
        self._fd: tuple[int, int] | None = None

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: int) -> int:
        if self._fd is None or self._fd[0] != os.getpid():
            self._fd = (os.getpid(), os.open(self.path, os.O_RDONLY))
        if self.readahead is not None:
            self.readahead.touch(index)
        return len(os.pread(self._fd[1], self.record, index * self.record))


def measure(path: str, n: int, record: int, order: str, workers: int, limit: int) -> float:
    sampler = sampler_for(order, n, record)
    indices = list(sampler)[:limit]
    hint = None
    if order == "locality":
        hint = fairshard.Readahead(sampler, path, record_bytes=record)
    data = Records(path, n, record, hint)
    evict(path)
    if workers == 0:
        start = time.perf_counter()
        for i in indices:
            data[i]
        return len(indices) / (time.perf_counter() - start)
    loader = DataLoader(data, sampler=indices, batch_size=64, num_workers=workers)
    it = iter(loader)
    next(it)
    start = time.perf_counter()
    count = sum(len(b) for b in it)
    return count / (time.perf_counter() - start)


def main() -> None:
    args = bench_args(__doc__)
    size = (256 if args.quick else 1024) << 20
    limit = 16384 if args.quick else 65536
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_COLD_DIR")) as tmp:
        path = str(Path(tmp) / "records.bin")
        with open(path, "wb") as f:
            chunk = os.urandom(1 << 20)
            for _ in range(size >> 20):
                f.write(chunk)
        rows = []
        for workers in (0, 2):
            for record in RECORDS:
                n = size // record
                cap = min(n, limit if record == 4096 else limit // 4)
                rates: dict[str, list[float]] = {o: [] for o in ORDERS}
                for _ in range(args.reps):
                    for order in ORDERS:
                        rates[order].append(measure(path, n, record, order, workers, cap))
                med = {o: statistics.median(v) for o, v in rates.items()}
                ratio = statistics.median(
                    a / b for a, b in zip(rates["locality"], rates["random"], strict=True)
                )
                seq = statistics.median(
                    a / b for a, b in zip(rates["locality"], rates["sequential"], strict=True)
                )
                where = "one thread" if workers == 0 else "DataLoader, 2 workers"
                rows.append(
                    [where, f"{record // 1024} KiB", f"{cap:,}"]
                    + [f"{med[o]:,.0f}" for o in ORDERS]
                    + [f"{ratio:.2f}x", f"{seq:.2f}"]
                )
    print(
        table(
            [
                "reader",
                "record",
                "records read",
                *[f"{o} (rec/s)" for o in ORDERS],
                "locality / random",
                "locality / sequential",
            ],
            rows,
        )
    )
    print(
        f"\nFile {size >> 20} MiB of random bytes, evicted with posix_fadvise(DONTNEED) "
        "before every cell; locality: block_size = 1 MiB of records, window = "
        f"{fairshard.DistributedSampler(1, 1, 0, order='locality').window} blocks (the "
        "default), Readahead(ahead=1)."
    )


if __name__ == "__main__":
    main()
