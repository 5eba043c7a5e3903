"""ShardedIterable item mode vs the plain ``itertools.islice`` recipe (and accelerate).

The recipe every tutorial shows for splitting an iterable across ranks and
DataLoader workers is ``islice(source, rank + R * worker, None, R * workers)``:
C speed, but no exact ``len()``, no equal counts under a ragged tail and no
resume. ShardedIterable gives those; this measures what they cost. Cases:
rank 0 of 8, a list and a re-iterable generator stream (``total`` given, so
``len()`` is exact), with no DataLoader workers and with 2 (batches of 1024
items, collated as lists). accelerate's ``IterableDatasetShard`` (batch size
1) is shown where it installs. Each cell is a fresh process, interleaved,
``--reps`` times; median (range), ratios per rep.

    python benchmarks/bench_streams.py [--quick] [--reps N]
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import bench_args, fmt_ratio, fmt_time, run_cells, table

SRC = str(Path(__file__).resolve().parents[1] / "src")
WORLD = 8

_SETUP = f"""
import sys, itertools
sys.path.insert(0, {SRC!r})
from collections import deque
import torch.utils.data as tud
import fairshard
fairshard.ShardedIterable  # the lazy import's first use, outside the timed body
N = {{n}}

class Stream:
    def __iter__(self):
        return (x for x in range(N))

class Recipe(tud.IterableDataset):
    def __init__(self, source):
        self.source = source
    def __iter__(self):
        info = tud.get_worker_info()
        w, k = (0, 1) if info is None else (info.id, info.num_workers)
        return itertools.islice(iter(self.source), w * {WORLD}, None, {WORLD} * k)

class Wrap(tud.IterableDataset):
    def __init__(self, inner):
        self.inner = inner
    def __iter__(self):
        return iter(self.inner)

source = list(range(N)) if {{is_list}} else Stream()

def consume(ds, workers):
    if workers == 0:
        deque(ds, maxlen=0)
        return
    loader = tud.DataLoader(ds, batch_size=1024, num_workers=workers, collate_fn=list)
    deque(loader, maxlen=0)
"""


def stream_cells(n: int, kind: str, workers: int, peers: bool) -> dict[str, tuple[str, str]]:
    """The islice recipe's, fairshard's and (``peers``, no workers) accelerate's cells.

    ``kind``: ``"list"`` or ``"stream"`` (a source without ``len``); also
    bench_check's cells.
    """
    setup = _SETUP.format(n=n, is_list=kind == "list")
    total = "" if kind == "list" else ", total=N"
    ours = f"fairshard.ShardedIterable(source{total}, num_replicas={WORLD}, rank=0)"
    cells = {
        "recipe": (setup, f"consume(Recipe(source), {workers})"),
        "fairshard": (setup, f"consume({ours}, {workers})"),
    }
    if peers and workers == 0:
        cells["accelerate"] = (
            setup + "from accelerate.data_loader import IterableDatasetShard\n",
            f"consume(IterableDatasetShard(Wrap(source), 1, num_processes={WORLD}, "
            "process_index=0), 0)",
        )
    return cells


def row(n: int, kind: str, workers: int, reps: int, peers: bool) -> list[str]:
    got = run_cells(stream_cells(n, kind, workers, peers), reps)
    acc = got.get("accelerate")
    return [
        kind,
        str(workers),
        fmt_time(got["recipe"]),
        fmt_time(got["fairshard"]),
        fmt_ratio(got["fairshard"], got["recipe"]),
        fmt_time(acc) if acc else "-",
        fmt_ratio(acc, got["recipe"]) if acc else "-",
    ]


def main(argv: list[str] | None = None) -> int:
    args = bench_args(__doc__, argv)
    n = 4 * 10**5 if args.quick else 4 * 10**6
    try:
        import accelerate  # noqa: F401

        peers = True
    except ImportError:
        peers = False
    rows = [row(n, kind, w, args.reps, peers) for kind in ("list", "stream") for w in (0, 2)]
    print(f"### ShardedIterable item mode vs the islice recipe ({n:.0e} items, rank 0 of 8)\n")
    print(
        table(
            [
                "source",
                "workers",
                "islice recipe",
                "ShardedIterable",
                "ShardedIterable / recipe",
                "accelerate IterableDatasetShard",
                "accelerate / recipe",
            ],
            rows,
        ),
        flush=True,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
