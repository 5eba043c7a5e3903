"""Sharded formats beside the peers, on the same records: cold throughput, shuffle quality, resume.

One set of records (4 KiB each; 256 MiB, 64 MiB with ``--quick``; record
``i`` is taken as class ``10 * i // n``, so the file is class-sorted) is
written as WebDataset tar shards (8 MiB each), by mosaicml streaming's own
``MDSWriter`` as MDS, and by litdata's ``optimize`` as its chunks (both at
their default 64 MiB). Each cell reads the first records of one reader's
epoch through a ``DataLoader`` with 2 workers (batches of 64) and reports
records per second (timed from the first batch), the seconds from opening
the dataset to that first batch, and the mean class entropy per batch (a
full shuffle: about 3.3 bits, in order: 0):

* ``fairshard tar`` / ``fairshard mds``: ``fairshard.formats.open_webdataset``
  / ``open_mds`` with ``DistributedSampler(order="locality",
  block_size=dataset.block_size)`` and ``dataset.read_ahead(sampler)``;
  ``fairshard tar, random``: the default order (a full shuffle);
* ``webdataset``: ``WebDataset(shardshuffle=True).shuffle(1000)`` (its
  shuffle buffer), split by worker;
* ``streaming``: ``StreamingDataset(shuffle=True)`` with its default
  shuffle (``py1e``), in its own venv (``_streaming_peer.py``);
* ``litdata``: ``StreamingDataset(shuffle=True)`` through its
  ``StreamingDataLoader``, in its own venv (``_litdata_peer.py``).

A peer whose venv is missing (``make bench`` builds ``.venv-streaming`` and
``.venv-litdata``; ``BENCH_STREAMING_PYTHON`` / ``BENCH_LITDATA_PYTHON``
name others) is left out, saying so. Local cells evict every shard from the
page cache first (``posix_fadvise(DONTNEED)``); remote cells read from
moto's S3 server on 127.0.0.1 in a process of its own (``_s3_server.py``)
with ``--latency`` seconds per request, through an empty local cache each
time (fairshard's ``ChunkCache`` through s3fs, streaming's local folder
through boto3, litdata's through boto3 and obstore; webdataset streams each
shard over HTTP with curl, its objects public, and keeps nothing). Cells are
interleaved, the order rotating per repeat; ratios are taken within a
repeat; each figure is the median with the range over the repeats.

Resume: each reader takes a third of an epoch's batches, saves what it can,
and starts again in a new dataset and loader -- local, from the S3 server
(into an empty cache again, as on a new node), and local onto 3 workers;
the table gives the seconds from the restart to the first batch and, over
the whole epoch, how many records were never read (lost) or read twice
(repeated), the most over the repeats. webdataset has no state: it starts
the epoch again.

Resume on another world size (local files): each reader's ranks run at
once, one process per rank (``_peers.run_ranks``: ``RANK``,
``WORLD_SIZE``, ``LOCAL_RANK``, ``LOCAL_WORLD_SIZE``, ``GLOBAL_RANK``,
``MASTER_ADDR`` / ``MASTER_PORT`` in each rank's environment, one node, as
torchrun sets them and the peers read them; streaming makes its own gloo
group from them). Each of ``W1`` ranks reads a third of its share of the
epoch's batches and saves its state; ``W2`` ranks load them (new rank ``r``
old rank ``r % W1``'s) and finish the epoch. The table gives the seconds
from building a rank's dataset to its first resumed batch (the slowest
rank), the records lost and repeated over the epoch (the most over the
repeats), and what the reader declares: padding (+, records its ranks
repeat to be equal) or a drop (-, records ``drop_last`` leaves out) --
fairshard's from ``sampler.remaining``, the peers' from ``len(dataset)``
per rank on ``W2`` ranks. A refusal is recorded with its message.

    python benchmarks/bench_formats.py [--quick] [--reps N] [--latency S] [--records N]
        [--sections reads resume elastic]
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
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import numpy as np
from _evict import evict_tree
from _harness import spread, table
from _peers import LITDATA, STREAMING, run_ranks
from torch.utils.data import DataLoader

import fairshard
from fairshard import formats
from fairshard._diagnostics.quality import batch_entropy

RECORD, BATCH, WORKERS, CLASSES = 4096, 64, 2, 10
#: "Equal quality": a peer within this many bits of fairshard tar's class entropy per batch.
SLACK = 0.1
#: Cells left out of the S3 row, and why (printed under the table).
NOT_REMOTE = {
    "litdata, full shuffle": (
        "from its local cache litdata decodes through the file path, reading the whole 64 MiB "
        "chunk again for each sample's window: 66 records/s on 1,024 records (2026-12-04), "
        "an epoch would take hours"
    ),
}
TAR_SHARD = 8 << 20
SERVER = Path(__file__).with_name("_s3_server.py")
MAIN_RANKS = Path(__file__).with_name("_main_ranks.py")
SECTIONS = ("reads", "resume", "elastic")


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

    def __init__(self, root: Path, n: int, latency: float, remote: bool = True) -> None:
        self.root, self.n, self.latency = root, n, latency
        self.tar, self.mds, self.litdata = root / "tar", root / "mds", root / "litdata"
        self.index = root / "index"
        self.streaming_python = STREAMING.python()
        self.litdata_python = LITDATA.python()
        write_tar(self.tar, n)
        folders = [self.tar]
        if self.streaming_python:
            STREAMING.run(self.streaming_python, "write", self.mds, RECORD, n)
            folders.append(self.mds)
        if self.litdata_python:
            LITDATA.run(self.litdata_python, "write", self.litdata, RECORD, n)
            folders.append(self.litdata)
        self.tar_names = sorted(p.name for p in self.tar.glob("*.tar"))
        self.server: subprocess.Popen[str] | None = None
        if remote:
            self.serve(folders, latency)

    def serve(self, folders: list[Path], latency: float) -> None:
        """Start the S3 server and put every set in it."""
        self.server = subprocess.Popen(
            [sys.executable, str(SERVER), str(latency)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.server.stdout is not None
        self.endpoint = f"http://127.0.0.1:{int(self.server.stdout.readline())}"
        os.environ.update(  # for the peers (boto3), which inherit them
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
        for folder in folders:
            for path in sorted(folder.glob("*")):  # public: webdataset reads them over HTTP
                fs.put_file(str(path), f"bench/{folder.name}/{path.name}", ACL="public-read")

    def peers(self) -> list[str]:
        """The peers measured here: webdataset, and each venv peer that is installed."""
        return [
            "webdataset",
            *(["streaming"] if self.streaming_python else []),
            *(["litdata", "litdata, full shuffle"] if self.litdata_python else []),
        ]

    def close(self) -> None:
        if self.server is None:
            return
        assert self.server.stdin is not None
        self.server.stdin.close()
        try:
            self.server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.server.kill()  # this bench's own child
            self.server.wait(timeout=10)


# ---------------------------------------------------------------- readers
class Read(NamedTuple):
    """One cell: seconds from opening the dataset to the first and to the last batch, the
    records read, the first ``limit`` indices in order."""

    first: float
    elapsed: float
    count: int
    ids: list[int]

    @property
    def rate(self) -> float:
        """Records per second from opening the dataset: a cold start included."""
        return self.count / self.elapsed

    @property
    def steady(self) -> float:
        """Records per second after the first batch."""
        return (self.count - BATCH) / (self.elapsed - self.first)


def _rate(loader: Any, limit: int, ids: Any, begin: float) -> Read:
    it = iter(loader)
    seen = ids(next(it))
    first = time.perf_counter() - begin
    for batch in it:
        seen.extend(ids(batch))
        if len(seen) >= limit:
            break
    return Read(first, time.perf_counter() - begin, len(seen), seen[:limit])


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


def fairshard_cell(sets: Sets, fmt: str, order: str, remote: bool, limit: int) -> Read:
    with tempfile.TemporaryDirectory(dir=sets.root, ignore_cleanup_errors=True) as cache_dir:
        if not remote:
            evict_tree(sets.tar if fmt == "tar" else sets.mds)
        begin = time.perf_counter()
        ds = fairshard_set(sets, fmt, remote, Path(cache_dir))
        sampler = fairshard_sampler(ds, order)
        if order == "locality":
            ds.read_ahead(sampler)
        loader = DataLoader(ds, sampler=sampler, batch_size=BATCH, num_workers=WORKERS)
        return _rate(loader, limit, _tensor_ids, begin)


def webdataset_urls(sets: Sets, remote: bool) -> list[str]:
    if remote:
        return [f"{sets.endpoint}/bench/tar/{name}" for name in sets.tar_names]
    return [str(sets.tar / name) for name in sets.tar_names]


def webdataset_loader(sets: Sets, remote: bool, workers: int = WORKERS) -> Any:
    import webdataset as wds

    data = (
        wds.WebDataset(webdataset_urls(sets, remote), shardshuffle=True, empty_check=False)
        .shuffle(1000)
        .map(key_id)
        .batched(BATCH, collation_fn=list)
    )
    return DataLoader(data, batch_size=None, num_workers=workers)


def webdataset_cell(sets: Sets, remote: bool, limit: int) -> Read:
    if not remote:
        evict_tree(sets.tar)
    begin = time.perf_counter()
    return _rate(webdataset_loader(sets, remote), limit, lambda b: [int(i) for i in b], begin)


def _peer_read(got: dict[str, Any]) -> Read:
    return Read(float(got["first"]), float(got["elapsed"]), int(got["read"]), list(got["indices"]))


def streaming_cell(sets: Sets, remote: bool, limit: int) -> Read:
    assert sets.streaming_python
    args: list[Any] = ["read", sets.mds, "py1e", WORKERS, limit]
    if remote:
        args = ["read", sets.root / "streaming-cache", "py1e", WORKERS, limit, "s3://bench/mds"]
    return _peer_read(STREAMING.run(sets.streaming_python, *args))


def litdata_cell(sets: Sets, window: str, remote: bool, limit: int) -> Read:
    assert sets.litdata_python
    args: list[Any] = ["read", sets.litdata, window, WORKERS, limit]
    if remote:
        args = ["read", sets.root / "litdata-cache", window, WORKERS, limit, "s3://bench/litdata"]
    return _peer_read(LITDATA.run(sets.litdata_python, *args))


def read_cell(sets: Sets, cell: str, remote: bool, limit: int) -> Read:
    """Run one cell by its name (``fairshard tar, random``, ``webdataset``, ...)."""
    if cell == "webdataset":
        return webdataset_cell(sets, remote, limit)
    if cell == "streaming":
        return streaming_cell(sets, remote, limit)
    if cell.startswith("litdata"):
        return litdata_cell(
            sets, "full" if cell.endswith("full shuffle") else "auto", remote, limit
        )
    fmt = cell.split()[1].rstrip(",")
    order = "random" if cell.endswith("random") else "locality"
    return fairshard_cell(sets, fmt, order, remote, limit)


# ----------------------------------------------------------------- resume
#: A resume: seconds from the restart to the first batch (None where it was
#: refused), records lost, records repeated, what a refusal said.
Resumed = tuple[float | None, int, int, str]


def _counts(before: list[int], after: list[int], n: int) -> tuple[int, int]:
    seen = Counter(before) + Counter(after)
    lost = n - len(seen)
    repeated = sum(c - 1 for c in seen.values() if c > 1)
    return lost, repeated


def fairshard_resume(sets: Sets, cut: int, remote: bool, after: int) -> Resumed:
    with tempfile.TemporaryDirectory(dir=sets.root, ignore_cleanup_errors=True) as tmp:
        ds = fairshard_set(sets, "tar", remote, Path(tmp) / "first")
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
        ds = fairshard_set(sets, "tar", remote, Path(tmp) / "again")  # an empty cache again
        again = fairshard_sampler(ds, "locality")
        again.load_state_dict(state)
        ds.read_ahead(again)
        it = iter(DataLoader(ds, sampler=again, batch_size=BATCH, num_workers=after))
        rest = _tensor_ids(next(it))
        seconds = time.perf_counter() - start
        for batch in it:
            rest.extend(_tensor_ids(batch))
    return (seconds, *_counts(before, rest, len(ds)), "")


def webdataset_resume(sets: Sets, cut: int, remote: bool, after: int) -> Resumed:
    before: list[int] = []
    for k, batch in enumerate(webdataset_loader(sets, remote)):
        before.extend(int(i) for i in batch)
        if k + 1 == cut:
            break
    start = time.perf_counter()
    it = iter(webdataset_loader(sets, remote, after))  # no state: the epoch starts again
    rest = [int(i) for i in next(it)]
    seconds = time.perf_counter() - start
    for batch in it:
        rest.extend(int(i) for i in batch)
    return (seconds, *_counts(before, rest, sets.n), "")


def _peer_resume(got: dict[str, Any], n: int) -> Resumed:
    if "refused" in got:
        return (None, 0, 0, str(got["refused"]))
    return (float(got["seconds"]), *_counts(got["before"], got["after"], n), "")


def streaming_resume(sets: Sets, cut: int, remote: bool, after: int) -> Resumed:
    assert sets.streaming_python
    where = [sets.root / "streaming-cache", WORKERS, cut, after, "s3://bench/mds"]
    args = ["resume", *(where if remote else [sets.mds, WORKERS, cut, after])]
    return _peer_resume(STREAMING.run(sets.streaming_python, *args), sets.n)


def litdata_resume(sets: Sets, cut: int, remote: bool, after: int) -> Resumed:
    assert sets.litdata_python
    where = [sets.root / "litdata-cache", WORKERS, cut, after, "s3://bench/litdata"]
    args = ["resume", *(where if remote else [sets.litdata, WORKERS, cut, after])]
    return _peer_resume(LITDATA.run(sets.litdata_python, *args), sets.n)


RESUMES = {
    "fairshard tar (locality)": fairshard_resume,
    "webdataset (restarts the epoch)": webdataset_resume,
    "streaming (StreamingDataLoader state)": streaming_resume,
    "litdata (StreamingDataLoader state)": litdata_resume,
}
#: Where each resume runs: (label, from the S3 server, workers after the restart).
RESUME_CASES = (
    ("local", False, WORKERS),
    ("S3", True, WORKERS),
    ("local, 2 -> 3 workers", False, 3),
)


def resume_cell(got: list[Resumed], seconds: bool) -> list[str]:
    """One case of one reader over the repeats: [first batch (s)], lost / repeated."""
    refused = [g[3] for g in got if g[0] is None]
    if refused:
        said = " ".join(refused[0].replace("|", "/").split())
        return (["refused"] if seconds else []) + [f"refused: {said}"]
    times = [g[0] for g in got if g[0] is not None]
    counts = f"{max(g[1] for g in got):,} / {max(g[2] for g in got):,}"
    return ([spread(times, ".2f")] if seconds else []) + [counts]


# ------------------------------------------------- resume on another world size
#: (ranks the epoch starts on, ranks it resumes on).
ELASTIC_CASES = ((2, 3), (4, 2))


class Elastic(NamedTuple):
    """One resume on another world size: seconds from building a rank's dataset to its first
    resumed batch (the slowest rank; None where refused), records lost and repeated over the
    epoch, the padding (+) or drop (-) the reader declares, what a refusal said."""

    seconds: float | None
    lost: int
    repeated: int
    declared: int
    refused: str


def elastic_argv(sets: Sets, reader: str, cut: int, phase: str, states: str, old: int) -> list[str]:
    """One rank's command line for ``reader`` (``fairshard``, ``webdataset``, a venv peer)."""
    tail = [str(WORKERS), str(cut), phase, states, str(old)]
    if reader in ("fairshard", "webdataset"):
        return [sys.executable, str(MAIN_RANKS), reader, str(sets.tar), str(sets.index), *tail]
    if reader == "streaming":
        assert sets.streaming_python
        return [sets.streaming_python, str(STREAMING.script_path), "rank", str(sets.mds), *tail]
    assert sets.litdata_python
    return [sets.litdata_python, str(LITDATA.script_path), "rank", str(sets.litdata), *tail]


def declared(reports: list[dict[str, Any]], before: list[int], n: int) -> int:
    """What the resumed ranks declare beyond the records left: + padding, - a drop.

    fairshard's ranks declare the steps they have left (``remaining``); the
    peers their epoch's length per rank (``epoch_per_rank``) on the new world;
    webdataset declares nothing.
    """
    said = [r["declared"] for r in reports]
    if all("remaining" in d for d in said):
        return sum(d["remaining"] for d in said) - (n - len(set(before)))
    if all("epoch_per_rank" in d for d in said):
        return sum(d["epoch_per_rank"] for d in said) - n
    return 0


def elastic_resume(sets: Sets, reader: str, old: int, new: int, timeout: float = 600.0) -> Elastic:
    """``reader`` saved on ``old`` ranks after a third of their batches, resumed on ``new``."""
    cut = max(1, (sets.n // BATCH // old) // 3)
    with tempfile.TemporaryDirectory(dir=sets.root) as states:
        saved = run_ranks(elastic_argv(sets, reader, cut, "save", states, old), old, timeout)
        again = run_ranks(elastic_argv(sets, reader, cut, "resume", states, old), new, timeout)
    before = [i for r in saved for i in r["before"]]
    refused = [r["refused"] for r in again if "refused" in r]
    if refused:
        return Elastic(None, 0, 0, 0, refused[0])
    after = [i for r in again for i in r["after"]]
    lost, repeated = _counts(before, after, sets.n)
    seconds = max(float(r["seconds"]) for r in again)
    return Elastic(seconds, lost, repeated, declared(again, before, sets.n), "")


def elastic_cell(got: list[Elastic]) -> list[str]:
    """One case of one reader over the repeats: first batch (s), lost / repeated, declared."""
    refused = [g.refused for g in got if g.seconds is None]
    if refused:
        said = " ".join(refused[0].replace("|", "/").split())
        return ["refused", f"refused: {said}", ""]
    times = [g.seconds for g in got if g.seconds is not None]
    counts = f"{max(g.lost for g in got):,} / {max(g.repeated for g in got):,}"
    return [spread(times, ".2f"), counts, f"{got[0].declared:+,}"]


def print_elastic(sets: Sets, reps: int, n: int, peers: list[str]) -> None:
    """Every reader on every world-size change, interleaved over ``reps`` repeats."""
    names = [name for name in RESUMES if name.split()[0] in ("fairshard", *peers)]
    got: dict[tuple[str, tuple[int, int]], list[Elastic]] = {}
    for rep in range(reps):
        shift = rep % len(names)
        for name in names[shift:] + names[:shift]:
            for case in ELASTIC_CASES:
                got.setdefault((name, case), []).append(
                    elastic_resume(sets, name.split()[0], *case)
                )
    header = ["reader"]
    for old, new in ELASTIC_CASES:
        header += [
            f"{old} -> {new} ranks: restart to first batch (s)",
            f"{old} -> {new}: lost / repeated",
            f"{old} -> {new}: declared padding (+) / drop (-)",
        ]
    rows = [
        [name] + [cell for case in ELASTIC_CASES for cell in elastic_cell(got[name, case])]
        for name in names
    ]
    cuts = ", ".join(
        f"{max(1, (n // BATCH // old) // 3)} of {-(-n // BATCH // old)} on {old}"
        for old, _ in ELASTIC_CASES
    )
    print(f"\n### Resume on another world size, local (batches per rank before the save: {cuts})\n")
    print(table(header, rows))
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


# ------------------------------------------------------------------- main
def bits(indices: list[int], n: int) -> float:
    labels = (np.arange(n, dtype=np.int64) * CLASSES) // n
    got = batch_entropy(np.asarray(indices, dtype=np.int64), labels, BATCH)
    return float("nan") if got is None else got


def main(argv: list[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="64 MiB of records, not 256")
    parser.add_argument("--reps", type=int, default=3, help="interleaved repeats per cell")
    parser.add_argument("--latency", type=float, default=0.02, help="seconds per S3 request")
    parser.add_argument("--records", type=int, help="this many records instead (a smoke run)")
    parser.add_argument(
        "--sections",
        nargs="+",
        choices=SECTIONS,
        default=list(SECTIONS),
        help="reads: throughput and quality; resume: on the same world size; "
        "elastic: on another world size (local files only)",
    )
    args = parser.parse_args(argv)
    n = args.records or ((64 if args.quick else 256) << 20) // RECORD
    limit = n // 2
    load = os.getloadavg()[0]
    remote = bool({"reads", "resume"} & set(args.sections))
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_COLD_DIR")) as tmp:
        sets = Sets(Path(tmp), n, args.latency, remote=remote)
        try:
            start = time.perf_counter()
            for where in (False, True) if remote else (False,):
                for fmt in ("tar", "mds") if sets.streaming_python else ("tar",):
                    fairshard_set(sets, fmt, where, None)
            index_seconds = time.perf_counter() - start
            run(sets, args, n, limit, load, index_seconds)
        finally:
            sets.close()


def measure_store(sets: Sets, cells: list[str], remote: bool, reps: int, limit: int) -> Any:
    """Every cell ``reps`` times, interleaved, the order rotating per repeat."""
    got: dict[str, list[Read]] = {c: [] for c in cells}
    for rep in range(reps):
        shift = rep % len(cells)
        for cell in cells[shift:] + cells[:shift]:
            got[cell].append(read_cell(sets, cell, remote, limit))
    return got


def column(got: dict[str, list[Read]], cell: str, value: Any) -> str:
    """``value`` of a cell's reads over the repeats, or ``left out`` where it was not run."""
    return str(value(got[cell])) if cell in got else "left out"


def best_peer(got: dict[str, list[Read]], peers: list[str], floor: float, n: int) -> str | None:
    """The fastest peer (median rate) whose median entropy is at least ``floor`` bits."""
    good = [p for p in peers if statistics.median(bits(r.ids, n) for r in got[p]) >= floor]
    return max(good, key=lambda p: statistics.median(r.rate for r in got[p]), default=None)


def versus(got: dict[str, list[Read]], peer: str | None) -> str:
    """fairshard tar's rate over ``peer``'s, per repeat: median (range) and the peer."""
    if peer is None:
        return "no peer"
    pairs = zip(got["fairshard tar"], got[peer], strict=True)
    return f"{spread([a.rate / b.rate for a, b in pairs], '.2f', 'x')} {peer}"


def run(sets: Sets, args: Any, n: int, limit: int, load: float, index_seconds: float) -> None:
    peers = sets.peers()
    print(
        f"{n:,} records of {RECORD // 1024} KiB ({n * RECORD >> 20} MiB), {limit:,} read per cell;"
    )
    print(f"load average {load:.1f} at the start; index passes, every set: {index_seconds:.1f} s")
    missing = [
        p.name
        for p, py in ((STREAMING, sets.streaming_python), (LITDATA, sets.litdata_python))
        if not py
    ]
    if missing:
        print(f"left out (no venv; `make bench` builds them): {', '.join(missing)}")
    print("\nEach figure: the median (the range) over the repeats.")
    if "reads" in args.sections:
        print_reads(sets, args, n, limit, peers)
    if "resume" in args.sections:
        print_resumes(sets, args.reps, n, peers)
    if "elastic" in args.sections:
        print_elastic(sets, args.reps, n, peers)


def print_reads(sets: Sets, args: Any, n: int, limit: int, peers: list[str]) -> None:
    """Throughput, first batch and class entropy of every reader, local and from S3."""
    ours = [
        "fairshard tar",
        *(["fairshard mds"] if sets.streaming_python else []),
        "fairshard tar, random",
    ]
    cells = [*ours, *peers]
    rows: dict[str, list[list[str]]] = {"rate": [], "steady": [], "first": []}
    quality: dict[str, dict[str, str]] = {}
    for remote in (False, True):
        here = [c for c in cells if not (remote and c in NOT_REMOTE)]
        got = measure_store(sets, here, remote, args.reps, limit)
        where = f"S3 (moto, {args.latency * 1000:.0f} ms/request)" if remote else "local disk"
        entropy = {c: statistics.median(bits(r.ids, n) for r in got[c]) for c in here}
        quality[where] = {c: f"{entropy[c]:.2f}" if c in got else "left out" for c in cells}
        there = [p for p in peers if p in got]
        fastest = best_peer(got, there, 0.0, n)
        equal = best_peer(got, there, entropy["fairshard tar"] - SLACK, n)
        rates = [column(got, c, lambda rs: spread([r.rate for r in rs], ",.0f")) for c in cells]
        rows["rate"].append([where, *rates, versus(got, fastest), versus(got, equal)])
        steady = [column(got, c, lambda rs: spread([r.steady for r in rs], ",.0f")) for c in cells]
        rows["steady"].append([where, *steady])
        first = [column(got, c, lambda rs: spread([r.first for r in rs], ".2f")) for c in cells]
        rows["first"].append([where, *first])
    print("\n### Records per second from opening the dataset (a cold start included)\n")
    header = ["store", *cells, "fairshard tar / fastest peer"]
    print(
        table(
            [*header, f"fairshard tar / fastest peer within {SLACK} bit of its entropy"],
            rows["rate"],
        )
    )
    for cell, why in NOT_REMOTE.items():
        if cell in cells:
            print(f"\n{cell}, left out of the S3 row: {why}.")
    print("\n### Records per second after the first batch\n")
    print(table(["store", *cells], rows["steady"]))
    print("\n### Seconds from opening the dataset to the first batch\n")
    print(table(["store", *cells], rows["first"]))
    print(f"\n### Class entropy per batch of {BATCH} (bits; {CLASSES} sorted classes)\n")
    keys = list(quality)
    print(table(["reader", *keys], [[c, *[quality[k][c] for k in keys]] for c in cells]))


def print_resumes(sets: Sets, reps: int, n: int, peers: list[str]) -> None:
    """Every reader's resume in every case, interleaved over ``reps`` repeats."""
    cut = (n // BATCH) // 3
    names = [name for name in RESUMES if name.split()[0] in ("fairshard", *peers)]
    got: dict[tuple[str, str], list[Resumed]] = {}
    for rep in range(reps):
        shift = rep % len(names)
        for name in names[shift:] + names[:shift]:
            for label, remote, after in RESUME_CASES:
                got.setdefault((name, label), []).append(RESUMES[name](sets, cut, remote, after))
    header = ["reader"]
    for label, _, after in RESUME_CASES:
        timed = [f"{label}: restart to first batch (s)"] if after == WORKERS else []
        header += [*timed, f"{label}: records lost / repeated"]
    rows = [
        [name]
        + [
            cell
            for label, _, after in RESUME_CASES
            for cell in resume_cell(got[name, label], after == WORKERS)
        ]
        for name in names
    ]
    print(f"\n### Resume after {cut} of {n // BATCH} batches ({WORKERS} workers)\n")
    print(table(header, rows))


if __name__ == "__main__":
    main()
