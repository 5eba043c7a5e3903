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
  reading through ``fairshard.Readahead.read`` (each block read whole once,
  ``WILLNEED`` on this and the next windows);
* ``locality, touch``: the same order read one ``pread`` per record, the
  dataset calling ``Readahead.touch`` for the hints alone (the 0.2 recipe);
* ``locality, no hint``: the same order without ``Readahead``.

A last table gives the disk's own ceiling: MiB/s of 1, 4 and 16 MiB
``pread``s of the evicted file, in file order and at scattered offsets.

In one thread, and through a ``DataLoader`` with 2 workers (batches of 64,
timed from the first batch, so worker start-up is left out). Medians of
``--reps``; the ratios are taken within each rep (same file, same run).

mosaicml streaming, the reference for shuffle algorithms, reads the same
records (written once as its MDS shards, evicted the same way before every
cell) with each of ``py1e``, ``py1br``, ``py1s`` and ``naive`` at their
default block sizes, in the same two readers, interleaved with fairshard's
cells; it runs in a venv of its own (``_streaming_peer.py``; ``make bench``
makes ``.venv-streaming``, or set ``BENCH_STREAMING_PYTHON``), and its
cells are left out, saying so, where that venv is missing. Quality beside
speed: each order's mean class entropy per batch of 64 over the records it
read, with the file taken as sorted into 10 classes (record ``i`` of ``n``
has class ``10 * i // n``; a full shuffle gives about 3.3 bits, reading in
order 0).

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

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from _evict import evict
from _harness import bench_args, spread, table
from _peers import STREAMING
from torch.utils.data import DataLoader, Dataset

import fairshard
from fairshard._diagnostics.quality import batch_entropy

RECORDS = (4096, 65536)
ORDERS = ("sequential", "random", "locality", "locality, touch", "locality, no hint")
ALGOS = ("py1e", "py1br", "py1s", "naive")
CLASSES, BATCH = 10, 64
AHEAD = 1  # Readahead's default


def sampler_for(order: str, n: int, record: int) -> Any:
    if order == "sequential":
        return fairshard.DistributedSampler(n, 1, 0, shuffle=False)
    if order == "random":
        return fairshard.DistributedSampler(n, 1, 0, seed=1)
    return fairshard.DistributedSampler(
        n, 1, 0, seed=1, order="locality", block_size=max(1, (1 << 20) // record)
    )


class Records(Dataset[int]):
    def __init__(
        self, path: str, n: int, record: int, readahead: Any, read_blocks: bool = False
    ) -> None:
        self.path, self.n, self.record, self.readahead = path, n, record, readahead
        self.read_blocks = read_blocks
        self._fd: tuple[int, int] | None = None

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, index: int) -> int:
        if self._fd is None or self._fd[0] != os.getpid():
            self._fd = (os.getpid(), os.open(self.path, os.O_RDONLY))
        if self.readahead is not None:
            if self.read_blocks:
                return len(self.readahead.read(index))
            self.readahead.touch(index)
        return len(os.pread(self._fd[1], self.record, index * self.record))


def measure(
    path: str, n: int, record: int, order: str, workers: int, limit: int
) -> tuple[float, list[int]]:
    """Records per second of ``order`` read cold, and the indices it read."""
    sampler = sampler_for(order, n, record)
    indices = list(sampler)[:limit]
    hint = None
    if order in ("locality", "locality, touch"):
        hint = fairshard.Readahead(sampler, path, record_bytes=record, ahead=AHEAD)
    data = Records(path, n, record, hint, read_blocks=order == "locality")
    evict(path)
    if workers == 0:
        start = time.perf_counter()
        for i in indices:
            data[i]
        return len(indices) / (time.perf_counter() - start), indices
    loader = DataLoader(data, sampler=indices, batch_size=64, num_workers=workers)
    it = iter(loader)
    next(it)
    start = time.perf_counter()
    count = sum(len(b) for b in it)
    return count / (time.perf_counter() - start), indices


FULL_BYTES = 1024 << 20  # the full run's file
FULL_RECORDS = 65536  # 4 KiB records read per cell in the full run (a quarter at 64 KiB)


def write_records(path: str | Path, size: int) -> None:
    """``size`` bytes of random records at ``path`` (written beside it, then renamed)."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    part = f"{path}.part"
    with open(part, "wb") as f:
        chunk = os.urandom(1 << 20)
        for _ in range(size >> 20):
            f.write(chunk)
    os.replace(part, path)


def cold_cells(path: str | Path, record: int, workers: int) -> dict[str, tuple[str, str]]:
    """The full run's sequential and locality cells at ``record`` bytes, each in a fresh process.

    bench_check's cells for the "locality / sequential" figure: the setup
    writes the 1 GiB file at ``path`` when it is missing (untimed); the
    body evicts it and reads as the full run's cell does. ``RESULT`` is
    seconds per record, so the check's ratio sequential / locality of
    ``RESULT`` is the rates' locality / sequential.
    """
    cap = FULL_RECORDS if record == 4096 else FULL_RECORDS // 4
    here = str(Path(__file__).resolve().parent)
    setup = (
        f"import os, sys\nsys.path.insert(0, {here!r})\nimport bench_cold\n"
        f"if not os.path.exists({str(path)!r}):\n"
        f"    bench_cold.write_records({str(path)!r}, {FULL_BYTES})\n"
    )
    body = (
        "RESULT = 1 / bench_cold.measure({path!r}, {n}, {record}, {order!r}, {workers}, {cap})[0]"
    )
    return {
        order: (
            setup,
            body.format(
                path=str(path),
                n=FULL_BYTES // record,
                record=record,
                order=order,
                workers=workers,
                cap=cap,
            ),
        )
        for order in ("locality", "sequential")
    }


CHUNKS = (1 << 20, 4 << 20, 16 << 20)  # the disk table's read sizes
DISK_BYTES = 512 << 20  # read per disk cell


def chunk_rate(path: str, chunk: int, scattered: bool, total: int) -> float:
    """MiB/s of ``total`` bytes read cold in ``chunk``-byte ``pread``s, in file order or scattered.

    The ceiling of any read order: the locality order reads whole blocks at
    scattered offsets, so where this disk serves scattered reads of every
    size below its rate in file order, no order that mixes distant parts of
    the file (as a class-sorted file needs for a good shuffle) can read at
    the rate of a file read in order. Scattered reads are told so with
    ``POSIX_FADV_RANDOM`` (no kernel readahead past each chunk).
    """
    offsets = list(range(0, os.path.getsize(path) - chunk + 1, chunk))
    if scattered:
        np.random.default_rng(1).shuffle(offsets)
    offsets = offsets[: max(1, total // chunk)]
    evict(path)
    fd = os.open(path, os.O_RDONLY)
    try:
        if scattered:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
        start = time.perf_counter()
        for offset in offsets:
            os.pread(fd, chunk, offset)
        return len(offsets) * chunk / (time.perf_counter() - start) / (1 << 20)
    finally:
        os.close(fd)


def disk_table(path: str, reps: int, total: int, chunks: tuple[int, ...] = CHUNKS) -> str:
    """The disk's own rates: chunk reads in file order and scattered, interleaved reps."""
    if any(c > os.path.getsize(path) for c in chunks):
        raise ValueError(f"disk_table: chunks {chunks} must fit in {path}")
    cells = [(c, s) for c in chunks for s in (False, True)]
    rates: dict[tuple[int, bool], list[float]] = {c: [] for c in cells}
    for rep in range(reps):
        shift = rep % len(cells)
        for cell in cells[shift:] + cells[:shift]:
            rates[cell].append(chunk_rate(path, cell[0], cell[1], min(total, DISK_BYTES)))
    rows = [
        [
            f"{chunk >> 20} MiB",
            spread(rates[(chunk, False)], ",.0f"),
            spread(rates[(chunk, True)], ",.0f"),
            spread(
                [s / o for s, o in zip(rates[(chunk, True)], rates[(chunk, False)], strict=True)],
                ".2f",
            ),
        ]
        for chunk in chunks
    ]
    return table(
        ["chunk", "in file order (MiB/s)", "scattered (MiB/s)", "scattered / in order"], rows
    )


def bits(indices: list[int], n: int) -> float:
    """Mean class entropy per batch of ``indices`` on the file taken as class-sorted."""
    labels = (np.arange(n, dtype=np.int64) * CLASSES) // n
    got = batch_entropy(np.asarray(indices, dtype=np.int64), labels, BATCH)
    return float("nan") if got is None else got


def main() -> None:
    args = bench_args(__doc__)
    size = (256 << 20) if args.quick else FULL_BYTES
    limit = 16384 if args.quick else FULL_RECORDS
    python = STREAMING.python()
    algos = ALGOS if python else ()
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_COLD_DIR")) as tmp:
        path = str(Path(tmp) / "records.bin")
        write_records(path, size)
        if python:
            version = STREAMING.run(python, "version")["version"]
            for record in RECORDS:
                STREAMING.run(python, "write", Path(tmp) / f"mds{record}", record, size // record)
        rows, peer_rows, quality = [], [], {}
        for workers in (0, 2):
            for record in RECORDS:
                n = size // record
                cap = min(n, limit if record == 4096 else limit // 4)
                cells = [*ORDERS, *(f"streaming {a}" for a in algos)]
                rates: dict[str, list[float]] = {o: [] for o in cells}
                entropy: dict[str, list[float]] = {o: [] for o in cells}
                for rep in range(args.reps):
                    shift = rep % len(cells)
                    for order in cells[shift:] + cells[:shift]:
                        if order.startswith("streaming "):
                            got = STREAMING.run(
                                python or "",
                                "read",
                                Path(tmp) / f"mds{record}",
                                order.split()[1],
                                workers,
                                cap,
                            )
                            rate, read = float(got["rate"]), list(got["indices"])
                        else:
                            rate, read = measure(path, n, record, order, workers, cap)
                        rates[order].append(rate)
                        entropy[order].append(bits(read, n))
                where = "one thread" if workers == 0 else "DataLoader, 2 workers"
                rows.append(
                    [where, f"{record // 1024} KiB", f"{cap:,}"]
                    + [spread(rates[o], ",.0f") for o in ORDERS]
                    + [_ratio(rates, "locality", "random", "x")]
                    + [_ratio(rates, "locality", "sequential")]
                )
                if algos:
                    peer_rows.append(
                        [where, f"{record // 1024} KiB", spread(rates["locality"], ",.0f")]
                        + [spread(rates[f"streaming {a}"], ",.0f") for a in algos]
                        + [_ratio(rates, "locality", f"streaming {a}", "x") for a in algos]
                    )
                quality[(where, record)] = {o: statistics.median(v) for o, v in entropy.items()}
        disk = disk_table(path, args.reps, size // 2)
    print("### Cold-cache reads: records per second by order\n")
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
        f"default), Readahead(ahead={AHEAD}); locality: its blocks read whole with "
        "Readahead.read, touch: one pread a record with Readahead.touch's hints."
    )
    if algos:
        print(f"\n### mosaicml streaming {version} on the same records (MDS shards)\n")
        print(
            table(
                ["reader", "record", "fairshard locality (rec/s)"]
                + [f"streaming {a} (rec/s)" for a in algos]
                + [f"locality / {a}" for a in algos],
                peer_rows,
            )
        )
        print(
            "\nStreamingDataset(local=..., shuffle=True, shuffle_algo=..., batch_size=64), "
            "default shuffle_block_size, its shard files evicted before every cell."
        )
    else:
        print(
            "\nmosaicml streaming: not measured (no .venv-streaming; `make bench` makes it, "
            "or set BENCH_STREAMING_PYTHON)."
        )
    print("\n### The disk: cold chunk reads in file order and at scattered offsets\n")
    print(disk)
    print(
        f"\nOne thread, {min(size, DISK_BYTES) >> 20} MiB read per cell, the file evicted "
        "before each; scattered: the chunks in a seeded random order, POSIX_FADV_RANDOM. "
        "The locality order reads scattered blocks: where scattered reads of every size "
        "run below reads in file order, that gap bounds locality / sequential above."
    )
    orders = [*ORDERS[:3], *(f"streaming {a}" for a in algos)]
    keys = list(quality)
    print(
        f"\n### Quality: class entropy per batch of {BATCH} (the file as {CLASSES} sorted "
        "classes; bits, medians over the reps)\n"
    )
    print(
        table(
            ["order", *[f"{w}, {r // 1024} KiB" for w, r in keys]],
            [[o, *[f"{quality[k][o]:.2f}" for k in keys]] for o in orders],
        )
    )


def _ratio(rates: dict[str, list[float]], a: str, b: str, unit: str = "") -> str:
    """``a``'s rate over ``b``'s per rep (the same rep: same file, same load): median (range)."""
    return spread([x / y for x, y in zip(rates[a], rates[b], strict=True)], ".2f", unit)


if __name__ == "__main__":
    main()
