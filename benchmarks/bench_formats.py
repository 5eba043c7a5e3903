"""Sharded formats beside the peers, on the same records: cold throughput, shuffle quality, resume.

One set of records (4 KiB each; 256 MiB, 64 MiB with ``--quick``; record
``i`` is taken as class ``10 * i // n``, so the file is class-sorted) is
written as WebDataset tar shards (8 MiB each) and, by mosaicml streaming's
own ``MDSWriter`` (its default shard size), as MDS. Each cell reads the
first records of one reader's epoch through a ``DataLoader`` with 2 workers
(batches of 64, timed from the first batch) and reports records per second
and the mean class entropy per batch (a full shuffle: about 3.3 bits, in
order: 0):

* ``fairshard tar`` / ``fairshard mds``: ``fairshard.formats.open_webdataset``
  / ``open_mds`` with ``DistributedSampler(order="locality",
  block_size=dataset.block_size)`` and ``dataset.read_ahead(sampler)``;
  ``fairshard tar, random``: the default order (a full shuffle);
* ``webdataset``: ``WebDataset(shardshuffle=True).shuffle(1000)`` (its
  shuffle buffer), split by worker;
* ``streaming``: ``StreamingDataset(shuffle=True)`` with its default
  shuffle (``py1e``), in its own venv (``_streaming_peer.py``).

Local cells evict every shard from the page cache first
(``posix_fadvise(DONTNEED)``); remote cells read from moto's S3 server on
127.0.0.1 in a process of its own (``_s3_server.py``) with ``--latency``
seconds per request, through an empty local cache each time (fairshard's
``ChunkCache`` through s3fs, streaming's local folder through boto3;
webdataset streams each shard over HTTP with curl, its objects public, and
keeps nothing). Cells are interleaved, the order
rotating per repeat; ratios are taken within a repeat.

Resume: each reader takes a third of an epoch's batches, saves what it can,
and starts again in a new loader; the table gives the seconds from the
restart to the first batch and, over the whole epoch, how many records were
never read (lost) or read twice (repeated). webdataset has no state: it
starts the epoch again.

    python benchmarks/bench_formats.py [--quick] [--reps N] [--latency S]
"""

from __future__ import annotations

import io
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import numpy as np
from _evict import evict_tree
from _harness import table
from bench_cold import peer, peer_python
from torch.utils.data import DataLoader

import fairshard
from fairshard import formats
from fairshard._diagnostics.quality import batch_entropy

RECORD, BATCH, WORKERS, CLASSES = 4096, 64, 2, 10
TAR_SHARD = 8 << 20
SERVER = Path(__file__).with_name("_s3_server.py")


def write_tar(folder: Path, n: int) -> None:
    folder.mkdir(parents=True)
    chunk = os.urandom(1 << 20)
    per = TAR_SHARD // (RECORD + 1536)  # a record's members, headers and padding
    for k, first in enumerate(range(0, n, per)):
        with tarfile.open(folder / f"shard-{k:06d}.tar", "w") as tar:
            for i in range(first, min(n, first + per)):
                start = (i * RECORD) % ((1 << 20) - RECORD + 1)
                for ext, data in (("i", str(i).encode()), ("x", chunk[start : start + RECORD])):
                    info = tarfile.TarInfo(f"{i:08d}.{ext}")
                    info.size = len(data)
                    tar.addfile(info, io.BytesIO(data))


def key_id(sample: dict[str, Any]) -> int:
    return int(sample["__key__"])


def mds_id(sample: dict[str, Any]) -> int:
    return int(sample["i"])


class Sets:
    """Where the records are: local folders, the S3 server and its options."""

    def __init__(self, root: Path, n: int, latency: float) -> None:
        self.root, self.n, self.latency = root, n, latency
        self.tar, self.mds = root / "tar", root / "mds"
        self.index = root / "index"
        self.python = peer_python()
        write_tar(self.tar, n)
        if self.python:
            peer(self.python, "write", self.mds, RECORD, n)
        self.server = subprocess.Popen(
            [sys.executable, str(SERVER), str(latency)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.server.stdout is not None
        self.endpoint = f"http://127.0.0.1:{int(self.server.stdout.readline())}"
        os.environ.update(  # for streaming's peer (boto3), which inherits them
            S3_ENDPOINT_URL=self.endpoint,
            AWS_ACCESS_KEY_ID="bench",
            AWS_SECRET_ACCESS_KEY="bench",
            AWS_DEFAULT_REGION="us-west-2",
        )
        self.options = {
            "key": "bench",
            "secret": "bench",
            "endpoint_url": self.endpoint,
            "client_kwargs": {"region_name": "us-west-2"},
            "config_kwargs": {"max_pool_connections": 32},
        }
        import s3fs

        fs = s3fs.S3FileSystem(**self.options)
        fs.mkdir("bench", acl="public-read")
        for folder in (self.tar, self.mds):
            for path in sorted(folder.glob("*")):  # public: webdataset reads them over HTTP
                fs.put_file(str(path), f"bench/{folder.name}/{path.name}", ACL="public-read")
        self.tar_names = sorted(p.name for p in self.tar.glob("*.tar"))

    def close(self) -> None:
        assert self.server.stdin is not None
        self.server.stdin.close()
        try:
            self.server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.server.kill()  # this bench's own child
            self.server.wait(timeout=10)


# ---------------------------------------------------------------- readers
def _rate(loader: Any, limit: int, ids: Any) -> tuple[float, list[int]]:
    it = iter(loader)
    seen = ids(next(it))
    start = time.perf_counter()
    count = 0
    for batch in it:
        got = ids(batch)
        seen.extend(got)
        count += len(got)
        if len(seen) >= limit:
            break
    return count / (time.perf_counter() - start), seen[:limit]


def _tensor_ids(batch: Any) -> list[int]:
    return [int(i) for i in batch.tolist()]


def fairshard_set(sets: Sets, fmt: str, remote: bool, cache_dir: Path | None) -> Any:
    if remote:
        cache = formats.ChunkCache(cache_dir or sets.root / "chunks", max_bytes=4 << 30)
        where = {"cache": cache, "storage_options": sets.options}
        url = f"s3://bench/{fmt}"
    else:
        where, url = {}, str(sets.tar if fmt == "tar" else sets.mds)
    if fmt == "tar":
        return formats.open_webdataset(url, decode=key_id, index_dir=sets.index, **where)
    return formats.open_mds(url, decode=mds_id, index_dir=sets.index, **where)


def fairshard_sampler(ds: Any, order: str) -> Any:
    if order == "random":
        return fairshard.DistributedSampler(len(ds), 1, 0, seed=1)
    return fairshard.DistributedSampler(
        len(ds), 1, 0, seed=1, order="locality", block_size=ds.block_size
    )


def fairshard_cell(sets: Sets, fmt: str, order: str, remote: bool, limit: int) -> Any:
    with tempfile.TemporaryDirectory(dir=sets.root, ignore_cleanup_errors=True) as cache_dir:
        ds = fairshard_set(sets, fmt, remote, Path(cache_dir))
        sampler = fairshard_sampler(ds, order)
        if order == "locality":
            ds.read_ahead(sampler)
        if not remote:
            evict_tree(sets.tar if fmt == "tar" else sets.mds)
        loader = DataLoader(ds, sampler=sampler, batch_size=BATCH, num_workers=WORKERS)
        return _rate(loader, limit, _tensor_ids)


def webdataset_urls(sets: Sets, remote: bool) -> list[str]:
    if remote:
        return [f"{sets.endpoint}/bench/tar/{name}" for name in sets.tar_names]
    return [str(sets.tar / name) for name in sets.tar_names]


def webdataset_loader(sets: Sets, remote: bool) -> Any:
    import webdataset as wds

    data = (
        wds.WebDataset(webdataset_urls(sets, remote), shardshuffle=True, empty_check=False)
        .shuffle(1000)
        .map(key_id)
        .batched(BATCH, collation_fn=list)
    )
    return DataLoader(data, batch_size=None, num_workers=WORKERS)


def webdataset_cell(sets: Sets, remote: bool, limit: int) -> Any:
    if not remote:
        evict_tree(sets.tar)
    return _rate(webdataset_loader(sets, remote), limit, lambda b: [int(i) for i in b])


def streaming_cell(sets: Sets, remote: bool, limit: int) -> Any:
    assert sets.python
    args: list[Any] = ["read", sets.mds, "py1e", WORKERS, limit]
    if remote:
        args = ["read", sets.root / "streaming-cache", "py1e", WORKERS, limit, "s3://bench/mds"]
    got = peer(sets.python, *args)
    return float(got["rate"]), list(got["indices"])


# ----------------------------------------------------------------- resume
def _counts(before: list[int], after: list[int], n: int) -> tuple[int, int]:
    seen = Counter(before) + Counter(after)
    lost = n - len(seen)
    repeated = sum(c - 1 for c in seen.values() if c > 1)
    return lost, repeated


def fairshard_resume(sets: Sets, cut: int) -> tuple[float, int, int]:
    ds = fairshard_set(sets, "tar", False, None)
    sampler = fairshard_sampler(ds, "locality")
    ds.read_ahead(sampler)
    loader = DataLoader(ds, sampler=sampler, batch_size=BATCH, num_workers=WORKERS)
    before: list[int] = []
    for k, batch in enumerate(loader):
        before.extend(_tensor_ids(batch))
        if k + 1 == cut:
            break
    state = fairshard.loader_state_dict(loader, batches=cut)
    del loader
    start = time.perf_counter()
    again = fairshard_sampler(ds, "locality")
    again.load_state_dict(state)
    it = iter(DataLoader(ds, sampler=again, batch_size=BATCH, num_workers=WORKERS))
    after = _tensor_ids(next(it))
    seconds = time.perf_counter() - start
    for batch in it:
        after.extend(_tensor_ids(batch))
    return (seconds, *_counts(before, after, len(ds)))


def webdataset_resume(sets: Sets, cut: int) -> tuple[float, int, int]:
    before: list[int] = []
    for k, batch in enumerate(webdataset_loader(sets, False)):
        before.extend(int(i) for i in batch)
        if k + 1 == cut:
            break
    start = time.perf_counter()
    it = iter(webdataset_loader(sets, False))  # no state: the epoch starts again
    after = [int(i) for i in next(it)]
    seconds = time.perf_counter() - start
    for batch in it:
        after.extend(int(i) for i in batch)
    return (seconds, *_counts(before, after, sets.n))


def streaming_resume(sets: Sets, cut: int) -> tuple[float, int, int]:
    assert sets.python
    got = peer(sets.python, "resume", sets.mds, WORKERS, cut)
    return (float(got["seconds"]), *_counts(got["before"], got["after"], sets.n))


# ------------------------------------------------------------------- main
def bits(indices: list[int], n: int) -> float:
    labels = (np.arange(n, dtype=np.int64) * CLASSES) // n
    got = batch_entropy(np.asarray(indices, dtype=np.int64), labels, BATCH)
    return float("nan") if got is None else got


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.02)
    args = parser.parse_args()
    size = (64 if args.quick else 256) << 20
    n = size // RECORD
    limit = n // 2
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_COLD_DIR")) as tmp:
        sets = Sets(Path(tmp), n, args.latency)
        try:
            start = time.perf_counter()
            for remote in (False, True):
                for fmt in ("tar", "mds") if sets.python else ("tar",):
                    fairshard_set(sets, fmt, remote, None)
            index_seconds = time.perf_counter() - start
            run(sets, args, n, limit, load, index_seconds)
        finally:
            sets.close()


def run(sets: Sets, args: Any, n: int, limit: int, load: float, index_seconds: float) -> None:
    peers = ["webdataset", *(["streaming"] if sets.python else [])]
    ours = ["fairshard tar", *(["fairshard mds"] if sets.python else []), "fairshard tar, random"]
    rows, quality = [], {}
    for remote in (False, True):
        cells = [*ours, *peers]
        rates: dict[str, list[float]] = {c: [] for c in cells}
        entropy: dict[str, list[float]] = {c: [] for c in cells}
        for rep in range(args.reps):
            shift = rep % len(cells)
            for cell in cells[shift:] + cells[:shift]:
                if cell == "webdataset":
                    rate, read = webdataset_cell(sets, remote, limit)
                elif cell == "streaming":
                    rate, read = streaming_cell(sets, remote, limit)
                else:
                    fmt = cell.split()[1].rstrip(",")
                    order = "random" if cell.endswith("random") else "locality"
                    rate, read = fairshard_cell(sets, fmt, order, remote, limit)
                rates[cell].append(rate)
                entropy[cell].append(bits(read, n))
        where = f"S3 (moto, {args.latency * 1000:.0f} ms/request)" if remote else "local disk"
        best = max(peers, key=lambda p: statistics.median(rates[p]))
        ratio = statistics.median(
            x / y for x, y in zip(rates["fairshard tar"], rates[best], strict=True)
        )
        rows.append(
            [where]
            + [f"{statistics.median(rates[c]):,.0f}" for c in cells]
            + [f"{ratio:.2f}x {best}"]
        )
        quality[where] = {c: statistics.median(v) for c, v in entropy.items()}
    print(
        f"{n:,} records of {RECORD // 1024} KiB ({n * RECORD >> 20} MiB), {limit:,} read per cell; "
    )
    print(f"load average {load:.1f} at the start; index passes, every set: {index_seconds:.1f} s\n")
    print(
        table(
            ["store", *[f"{c} (rec/s)" for c in [*ours, *peers]], "fairshard tar / best peer"],
            rows,
        )
    )
    print(f"\n### Class entropy per batch of {BATCH} (bits; {CLASSES} sorted classes)\n")
    keys = list(quality)
    print(
        table(
            ["reader", *keys],
            [[c, *[f"{quality[k][c]:.2f}" for k in keys]] for c in [*ours, *peers]],
        )
    )
    cut = (n // BATCH) // 3
    resume_rows = []
    runs = {
        "fairshard tar (locality)": fairshard_resume,
        "webdataset (restarts the epoch)": webdataset_resume,
        **({"streaming (StreamingDataLoader state)": streaming_resume} if sets.python else {}),
    }
    for name, fn in runs.items():
        got = [fn(sets, cut) for _ in range(args.reps)]
        resume_rows.append(
            [
                name,
                f"{statistics.median(g[0] for g in got):.2f}",
                f"{max(g[1] for g in got):,}",
                f"{max(g[2] for g in got):,}",
            ]
        )
    print(f"\n### Resume after {cut} of {n // BATCH} batches (local disk, {WORKERS} workers)\n")
    print(
        table(
            ["reader", "restart to first batch (s)", "records lost", "records repeated"],
            resume_rows,
        )
    )


if __name__ == "__main__":
    main()
