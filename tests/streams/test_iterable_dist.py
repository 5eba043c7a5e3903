"""Two real gloo ranks, each with two DataLoader workers (one spawn)."""

from __future__ import annotations

import multiprocessing
import warnings
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from torch.utils.data import DataLoader

from fairshard import ShardedIterable, stop_together

from .._dist import run_ranks

pytestmark = pytest.mark.distributed

SIZES = [5, 9, 2, 7, 4, 6, 3]


class Stream:
    def __init__(self, n: int) -> None:
        self.n = n

    def __iter__(self) -> Iterator[int]:
        return iter(range(self.n))


def open_shard(spec: tuple[int, int]) -> Iterator[tuple[int, int]]:
    sid, size = spec
    return ((sid, i) for i in range(size))


def _on_rank(rank: int, world_size: int) -> dict[str, Any]:
    # run_ranks starts daemonic ranks (killed with the parent); DataLoader workers are
    # children of the rank, which a daemonic process may not have. The parent still
    # kills this rank on timeout.
    multiprocessing.current_process().daemon = False
    warnings.simplefilter("ignore")  # DataLoader worker-count advice on small machines
    # rank and world size come from the process group
    items = ShardedIterable(Stream(45), tail="drop")
    # fork: the rank was spawned, and workers spawned from it would re-import torch
    item_loader = DataLoader(items, batch_size=None, num_workers=2, multiprocessing_context="fork")
    item_out = [int(x) for x in item_loader]
    shards: ShardedIterable[tuple[int, int]] = ShardedIterable(
        [(s, n) for s, n in enumerate(SIZES)],
        mode="shard",
        open_shard=open_shard,
        tail="uneven",
        seed=3,
    )
    loader = DataLoader(
        shards, batch_size=2, num_workers=2, collate_fn=list, multiprocessing_context="fork"
    )
    stopper = stop_together(loader)
    steps = [batch for batch in stopper]
    batches = list(loader)
    return {
        "rank": shards.rank,
        "world": shards.num_replicas,
        "items": item_out,
        "steps": len(steps),
        "dropped": stopper.dropped,
        "batches": len(batches),
        "shard_items": [x for batch in batches for x in batch],
    }


def test_two_gloo_ranks_with_two_workers_each() -> None:
    out = run_ranks(_on_rank, 2, timeout=180)
    assert [o["rank"] for o in out] == [0, 1] and {o["world"] for o in out} == {2}
    # item mode, drop: 22 items each, together exactly the first 44 of the stream
    assert [len(o["items"]) for o in out] == [22, 22]
    assert sorted(out[0]["items"] + out[1]["items"]) == list(range(44))
    # shard mode, uneven: every item exactly once over ranks x workers
    every = Counter((s, i) for s, n in enumerate(SIZES) for i in range(n))
    assert Counter(x for o in out for x in map(tuple, o["shard_items"])) == every
    # stop_together: both ranks took the same number of steps, the shorter rank's count
    assert out[0]["steps"] == out[1]["steps"]
    assert out[0]["steps"] == min(o["batches"] for o in out) < max(o["batches"] for o in out)
    assert [o["dropped"] for o in out] == [int(o["batches"] > o["steps"]) for o in out]
