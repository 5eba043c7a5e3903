"""Checkpoint cost per step: what a sampler adds to each ``StatefulDataLoader`` snapshot.

``StatefulDataLoader(snapshot_every_n_steps=1)`` calls the sampler's
``state_dict()`` at every step, in the main process. For each family at
``n`` items (1e6; ``--quick``: 1e4), rank 0 of 8, mid-epoch (after 100
items), the median time of one ``state_dict()`` call over 2,000 calls, in a
fresh process; beside it torchdata's own samplers in the same run
(``torchdata.stateful_dataloader.sampler.RandomSampler`` and its
``StatefulDistributedSampler``), where torchdata is installed.

A second table times the same call where users meet it: inside
``StatefulDataLoader(num_workers=2, snapshot_every_n_steps=1)`` (batch size
4, or the batch sampler's own batches, collated by ``len``), the median time of the sampler's
``state_dict()`` over up to 200 steps after 2 warm-up steps, the loader's
workers running beside it.

    python benchmarks/bench_snapshot.py [--quick] [--reps N]
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _harness import bench_args, inputs, run_cells, table

SRC = str(Path(__file__).resolve().parents[1] / "src")

_SETUP = f"""
import sys, time, itertools, statistics
sys.path.insert(0, {SRC!r})
import numpy as np, torch
import fairshard as fs
N = {{n}}
{inputs(100)}W = dict(num_replicas=8, rank=0)
sampler = {{build}}
iterator = iter(sampler)
if not hasattr(sampler, "state_dict"):  # torchdata keeps the state on the iterator
    sampler = iterator
for _ in itertools.islice(iterator, 100):
    pass
"""

_BODY = """
times = []
for _ in range(2000):
    t0 = time.perf_counter()
    sampler.state_dict()
    times.append(time.perf_counter() - t0)
RESULT = statistics.median(times)
"""

FAMILIES = {
    "DistributedSampler": "fs.DistributedSampler(N, **W)",
    'DistributedSampler(order="torch")': 'fs.DistributedSampler(N, order="torch", **W)',
    "WeightedSampler": "fs.WeightedSampler(weights, **W)",
    "ClassBalancedSampler": "fs.ClassBalancedSampler(labels, **W)",
    "HardExampleSampler": "fs.HardExampleSampler(N, **W)",
    "MixtureSampler": "fs.MixtureSampler([N // 2, N // 2], [0.5, 0.5], **W)",
    "LengthBucketBatchSampler": "fs.LengthBucketBatchSampler(lengths, batch_size=32, **W)",
    "TokenBudgetBatchSampler": "fs.TokenBudgetBatchSampler(lengths, max_tokens=16384, **W)",
    "PackingBatchSampler": "fs.PackingBatchSampler(lengths, 4096, 8, **W)",
    "torchdata RandomSampler": (
        "__import__('torchdata.stateful_dataloader.sampler', fromlist=['x'])"
        ".RandomSampler(range(N), generator=torch.Generator().manual_seed(0))"
    ),
    "torchdata StatefulDistributedSampler": (
        "__import__('torchdata.stateful_dataloader.sampler', fromlist=['x'])"
        ".StatefulDistributedSampler(range(N), **W)"
    ),
}


_LOADER_BODY = """
from torchdata.stateful_dataloader import StatefulDataLoader

class Items(torch.utils.data.Dataset):
    def __len__(self):
        return N

    def __getitem__(self, i):
        return i

sampler = {build}
times = []
original = sampler.state_dict

def timed(*args, **kwargs):
    t0 = time.perf_counter()
    out = original(*args, **kwargs)
    times.append(time.perf_counter() - t0)
    return out

sampler.state_dict = timed
kind = "batch_sampler" if "Batch" in type(sampler).__name__ else "sampler"
extra = dict(batch_size=4) if kind == "sampler" else dict(collate_fn=len)  # packed rows vary
loader = StatefulDataLoader(
    Items(), num_workers=2, snapshot_every_n_steps=1, **{{kind: sampler}}, **extra
)
steps = iter(loader)
for _ in itertools.islice(steps, 2):
    pass
times.clear()
for _ in itertools.islice(steps, 200):
    pass
RESULT = statistics.median(times)
"""

_LOADER_SETUP = f"""
import sys, time, itertools, statistics
sys.path.insert(0, {SRC!r})
import numpy as np, torch
import fairshard as fs
N = {{n}}
{inputs(100)}W = dict(num_replicas=8, rank=0)
"""


def _rows(results: dict[str, list[Any]]) -> list[list[str]]:
    rows = []
    for name, ms in results.items():
        good = [m for m in ms if m.ok and isinstance(m.result, float)]
        if not good:
            rows.append([name, ms[0].status if ms else "n/a"])
            continue
        values = sorted(float(str(m.result)) * 1e6 for m in good)
        rows.append([name, f"{values[len(values) // 2]:.1f} us ({values[0]:.1f}-{values[-1]:.1f})"])
    return rows


def main() -> None:
    args = bench_args(__doc__)
    n = 10_000 if args.quick else 1_000_000
    cells = {name: (_SETUP.format(n=n, build=build), _BODY) for name, build in FAMILIES.items()}
    results = run_cells(cells, args.reps)
    print(f"### Snapshot cost: one sampler.state_dict() mid-epoch, n={n:.0e}, rank 0 of 8\n")
    print(
        table(["sampler", "per snapshot (median of 2,000 calls; range over reps)"], _rows(results))
    )
    in_loader = {
        name: (_LOADER_SETUP.format(n=n), _LOADER_BODY.format(build=build))
        for name, build in FAMILIES.items()
        if name != "torchdata RandomSampler"  # its state lives on its iterator
    }
    results = run_cells(in_loader, args.reps)
    print(
        "\n### Snapshot cost inside StatefulDataLoader(num_workers=2, snapshot_every_n_steps=1), "
        f"n={n:.0e}, rank 0 of 8\n"
    )
    print(
        table(
            ["sampler", "sampler.state_dict() per step (median; range over reps)"], _rows(results)
        )
    )


if __name__ == "__main__":
    main()
