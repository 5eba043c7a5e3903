"""``ShardedIterable(shuffle_buffer=k)``: a deterministic buffer whose state resumes exactly."""

from __future__ import annotations

import json
from collections import Counter
from types import SimpleNamespace
from typing import Any
from unittest import mock

import pytest

import fairshard
from fairshard import ShardedIterable, StateDictError

SHARDS = [list(range(s * 10, s * 10 + 7 + s % 4)) for s in range(12)]
SIZES = [len(s) for s in SHARDS]


class Opaque:
    """A shard that can only be iterated (no len, no indexing)."""

    def __init__(self, items: list[int]) -> None:
        self.items = items

    def __iter__(self) -> Any:
        return iter(self.items)


def as_worker(w: int, n: int) -> Any:
    return mock.patch(
        "torch.utils.data.get_worker_info", return_value=SimpleNamespace(id=w, num_workers=n)
    )


MAKERS = {
    "item": lambda buffer=8, **k: ShardedIterable(list(range(97)), shuffle_buffer=buffer, **k),
    "shard": lambda buffer=5, **k: ShardedIterable(
        SHARDS, mode="shard", shard_sizes=SIZES, shuffle_buffer=buffer, **k
    ),
    "shard-unsized-opaque": lambda buffer=6, **k: ShardedIterable(
        SHARDS, mode="shard", tail="uneven", open_shard=Opaque, shuffle_buffer=buffer, **k
    ),
}


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_state_at_every_point_resumes_exactly(name: str) -> None:
    make = MAKERS[name]
    full = list(make(num_replicas=2, rank=1))
    plain = list(make(buffer=0, num_replicas=2, rank=1))
    assert sorted(full) == sorted(plain) and full != plain  # the same items, shuffled
    size = make(num_replicas=2, rank=1).shuffle_buffer
    cuts = {0, 1, size - 1, size, size + 1, 2 * size + 2, len(full) // 2, len(full) - 1}
    for k in sorted(cuts | {len(full)}):
        ds = make(num_replicas=2, rank=1)
        it = iter(ds)
        head = [next(it) for _ in range(k)]
        fresh = make(num_replicas=2, rank=1)
        fresh.load_state_dict(json.loads(json.dumps(ds.state_dict())))
        assert head + list(fresh) == full, f"resume after {k} of {len(full)}"


def test_order_is_a_function_of_seed_and_epoch() -> None:
    first = list(MAKERS["shard"](num_replicas=2, rank=0))
    assert first == list(MAKERS["shard"](num_replicas=2, rank=0))
    b = MAKERS["shard"](num_replicas=2, rank=0)
    b.set_epoch(1)
    assert first != list(b)
    c = ShardedIterable(SHARDS, mode="shard", shard_sizes=SIZES, shuffle_buffer=5, seed=1)
    assert list(c) != list(MAKERS["shard"](num_replicas=1, rank=0))


def test_a_plain_dataloader_state_with_workers_resumes_exactly() -> None:
    """loader_state_dict of a rank whose 2 workers each shuffle their own windows."""
    b = 3

    def worker_lists(ds: ShardedIterable[Any]) -> list[list[int]]:
        out = []
        for w in range(2):
            with as_worker(w, 2):
                out.append(list(ds))
        return out

    def batches(parts: list[list[int]]) -> list[list[int]]:
        queues = [[p[i : i + b] for i in range(0, len(p), b)] for p in parts]
        return [q[k] for k in range(max(map(len, queues))) for q in queues if k < len(q)]

    full = batches(worker_lists(MAKERS["shard"](num_replicas=2, rank=0)))
    for cut in (1, 4, len(full) - 1):
        ds = MAKERS["shard"](num_replicas=2, rank=0)
        loader = SimpleNamespace(dataset=ds, batch_size=b, drop_last=False, num_workers=2)
        state = fairshard.loader_state_dict(loader, batches=cut)
        fresh = MAKERS["shard"](num_replicas=2, rank=0)
        fresh.load_state_dict(json.loads(json.dumps(state)))
        rest = batches(worker_lists(fresh))  # the round robin restarts at worker 0
        assert Counter(map(tuple, full[:cut] + rest)) == Counter(map(tuple, full))


def test_another_shape_is_refused_with_the_fix() -> None:
    ds = MAKERS["item"](num_replicas=2, rank=0)
    it = iter(ds)
    [next(it) for _ in range(5)]
    state = ds.state_dict()
    with pytest.raises(StateDictError, match="shuffle buffer"):
        MAKERS["item"](num_replicas=3, rank=0).load_state_dict(state)
    assert Counter(list(MAKERS["item"](num_replicas=1, rank=0))) == Counter(range(97))
