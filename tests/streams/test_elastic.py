"""Elastic resume of ``ShardedIterable``: finish an epoch on another world size or num_workers.

Each scenario runs an epoch in stages: on each shape ``(world size, DataLoader
workers)`` every rank reads its part (workers simulated, batches handed out
round robin as a DataLoader does), the loop takes ``cut`` batches, rank 0's
state is saved with the loader's own accounting and loaded by every rank of
the next shape. The items every stage took must account exactly for the
epoch: nothing lost or repeated beyond the tail the last shape declares (and,
in shard mode, the first shape's: its rank streams are cut or wrapped to one
length).
"""

from __future__ import annotations

import json
import pickle
from collections import Counter
from types import SimpleNamespace
from typing import Any
from unittest import mock

import pytest
from torch.utils.data import DataLoader

import fairshard
from fairshard import ShardedIterable, StateDictError

N = 101
SHARDS = [list(range(s * 10, s * 10 + 10 - s % 3)) for s in range(11)]  # uneven sizes
SIZES = [len(s) for s in SHARDS]

CHAINS = [
    ([(2, 2), (3, 1), (1, 0)], [5, 4, None]),
    ([(2, 2), (1, 0)], [7, None]),
    ([(2, 2), (2, 3)], [3, None]),
    ([(3, 0), (2, 2), (4, 1)], [6, 2, None]),
    ([(2, 2), (3, 1), (2, 2)], [1, 1, None]),
    ([(3, 0), (2, 1), (4, 2)], [4, 3, None]),
]


def as_worker(w: int, n: int) -> Any:
    return mock.patch(
        "torch.utils.data.get_worker_info", return_value=SimpleNamespace(id=w, num_workers=n)
    )


def worker_items(ds: ShardedIterable[Any], workers: int) -> list[list[Any]]:
    """Each worker's items; as in a DataLoader, workers read copies of the dataset."""
    if workers == 0:
        return [list(ds)]
    out = []
    for w in range(workers):
        with as_worker(w, workers):
            out.append(list(pickle.loads(pickle.dumps(ds))))
    return out


def round_robin(parts: list[list[Any]], b: int) -> list[list[Any]]:
    """A DataLoader's batches: each worker's in turn, skipping exhausted workers."""
    queues = [[p[i : i + b] for i in range(0, len(p), b)] for p in parts]
    out: list[list[Any]] = []
    for k in range(max(map(len, queues))):
        out.extend(q[k] for q in queues if k < len(q))
    return out


def run(make: Any, chain: list[tuple[int, int]], cuts: list[int | None], b: int = 3) -> Any:
    """Items each stage took (a Counter per stage) and the size of the last stage's share."""
    stages: list[Counter[Any]] = []
    state: dict[str, Any] | None = None
    for (world, workers), cut in zip(chain, cuts, strict=True):
        seen: Counter[Any] = Counter()
        saved = []
        counts = set()
        for rank in range(world):
            ds = make(world, rank)
            if state is not None:
                ds.load_state_dict(state)
            batches = round_robin(worker_items(ds, workers), b)
            counts.add(sum(map(len, batches)))
            taken = batches if cut is None else batches[:cut]
            for batch in taken:
                seen.update(batch)
            if cut is not None:
                loader = SimpleNamespace(
                    dataset=ds, batch_size=b, drop_last=False, num_workers=workers
                )
                saved.append(fairshard.loader_state_dict(loader, batches=cut))
            elif state is not None and json.loads(json.dumps(state))["world_size"] != world:
                assert len(ds) == sum(map(len, batches)), "len() is what is left"
        if ds.tail != "uneven":
            assert len(counts) == 1, "ranks of one shape must take equal steps"
        stages.append(seen)
        state = None if not saved else json.loads(json.dumps(saved[0]))
    return stages


def refused_under_uneven(tail: str, chain: Any, cuts: Any, make: Any) -> bool:
    """Under ``uneven`` a state saved with workers cannot move: the ranks' workers differ."""
    saved = [w for (_, w), cut in zip(chain, cuts, strict=True) if cut is not None]
    if tail != "uneven" or max(saved) <= 1:
        return False
    with pytest.raises(StateDictError, match="tail='uneven'"):
        run(make, chain, cuts)
    return True


def account(stages: list[Counter[Any]], universe: set[Any], base: int, world: int, tail: str):
    """Check the items against the declared tail of the last shape."""
    before = sum((s for s in stages[:-1]), Counter())
    assert max(before.values(), default=1) == 1, "an item was read twice before the last stage"
    seen = before + stages[-1]
    left = base - sum(before.values())  # what the last shape reads
    missing = universe - set(seen)
    repeats = sum(v - 1 for v in seen.values())
    return left, missing, repeats, seen


@pytest.mark.parametrize("tail", ["drop", "pad", "uneven"])
@pytest.mark.parametrize("chain,cuts", CHAINS)
def test_item_mode_resumes_exactly_on_other_shapes(tail: str, chain: Any, cuts: Any) -> None:
    def make(world: int, rank: int) -> ShardedIterable[int]:
        return ShardedIterable(list(range(N)), tail=tail, num_replicas=world, rank=rank)

    if refused_under_uneven(tail, chain, cuts, make):
        return
    stages = run(make, chain, cuts)
    world = chain[-1][0]
    left, missing, repeats, _ = account(stages, set(range(N)), N, world, tail)
    if tail == "drop":
        assert (len(missing), repeats) == (left % world, 0)
    elif tail == "pad":
        assert (len(missing), repeats) == (0, -left % world)
    else:
        assert (len(missing), repeats) == (0, 0)


@pytest.mark.parametrize("tail", ["drop", "pad", "uneven"])
@pytest.mark.parametrize("chain,cuts", CHAINS)
def test_shard_mode_resumes_exactly_on_other_shapes(tail: str, chain: Any, cuts: Any) -> None:
    def make(world: int, rank: int) -> ShardedIterable[int]:
        return ShardedIterable(
            SHARDS, mode="shard", shard_sizes=SIZES, tail=tail, num_replicas=world, rank=rank
        )

    first = make(chain[0][0], 0)
    totals = [len(make(chain[0][0], r)) for r in range(chain[0][0])]
    base = sum(totals)  # the first shape's rank streams, cut or wrapped to its tail
    first_drop = sum(SIZES) - base if tail == "drop" else 0
    first_pad = base - sum(SIZES) if tail == "pad" else 0
    assert first.tail == tail
    if refused_under_uneven(tail, chain, cuts, make):
        return
    stages = run(make, chain, cuts)
    world = chain[-1][0]
    left, missing, repeats, _ = account(stages, {i for s in SHARDS for i in s}, base, world, tail)
    if tail == "drop":
        assert (len(missing), repeats) == (first_drop + left % world, 0)
    elif tail == "pad":
        assert (len(missing), repeats) == (0, first_pad + -left % world)
    else:
        assert (len(missing), repeats) == (0, 0)


def test_real_dataloader_two_by_two_to_three_by_one_and_one_by_zero() -> None:
    """Save under real DataLoader workers (2 ranks x 2 workers); finish on 3 x 1, or 1 x 0."""
    data = list(range(60))
    loaders = []
    taken: Counter[int] = Counter()
    for rank in range(2):
        ds = ShardedIterable(data, num_replicas=2, rank=rank)
        loader = DataLoader(ds, batch_size=4, num_workers=2, collate_fn=list)
        it = iter(loader)
        for _ in range(3):
            taken.update(next(it))
        loaders.append(fairshard.loader_state_dict(loader, batches=3))
        del it
    for world, workers in ((3, 1), (1, 0)):
        rest: Counter[int] = Counter()
        for rank in range(world):
            ds = ShardedIterable(data, num_replicas=world, rank=rank)
            ds.load_state_dict(loaders[0])
            for batch in DataLoader(ds, batch_size=4, num_workers=workers, collate_fn=list):
                rest.update(batch)
        assert taken + rest == Counter(data), (world, workers)


def test_an_elastic_state_saved_again_and_continued_on_the_same_shape() -> None:
    """A state taken in an elastic pass (num_workers=0) continues exactly on its own shape."""
    ds = ShardedIterable(list(range(N)), num_replicas=2, rank=0)
    it = iter(ds)
    head = [next(it) for _ in range(10)]
    state = ds.state_dict()
    ranks = [ShardedIterable(list(range(N)), num_replicas=3, rank=r) for r in range(3)]
    firsts = []
    for r in ranks:
        r.load_state_dict(state)
        it2 = iter(r)
        firsts.append([next(it2) for _ in range(5)])
    again = [json.loads(json.dumps(r.state_dict())) for r in ranks]
    rest = []
    for r, s in enumerate(again):
        fresh = ShardedIterable(list(range(N)), num_replicas=3, rank=r)
        fresh.load_state_dict(s)
        rest.append(list(fresh))
    uninterrupted = []
    for r in range(3):
        ref = ShardedIterable(list(range(N)), num_replicas=3, rank=r)
        ref.load_state_dict(state)
        uninterrupted.append(list(ref))
    assert [f + x for f, x in zip(firsts, rest, strict=True)] == uninterrupted
    seen = Counter(head) + Counter(i for u in uninterrupted for i in u)
    # rank 1 of the first shape read 10 items too; the new shape reads the rest exactly once
    assert max(seen.values()) == 1 and len(seen) == N - 10


def test_next_epoch_after_an_elastic_resume_is_the_new_shapes_own() -> None:
    ds = ShardedIterable(SHARDS, mode="shard", shard_sizes=SIZES, num_replicas=2, rank=0)
    it = iter(ds)
    [next(it) for _ in range(7)]
    state = ds.state_dict()
    resumed = ShardedIterable(SHARDS, mode="shard", shard_sizes=SIZES, num_replicas=3, rank=1)
    resumed.load_state_dict(state)
    list(resumed)
    resumed.set_epoch(1)
    ref = ShardedIterable(SHARDS, mode="shard", shard_sizes=SIZES, num_replicas=3, rank=1)
    ref.set_epoch(1)
    assert list(resumed) == list(ref) and len(resumed) == len(ref)


class Stream:
    def __iter__(self) -> Any:
        return iter(range(20))


def test_a_shape_change_that_cannot_be_exact_is_refused_with_the_fix() -> None:
    state = ShardedIterable(Stream(), total=20, num_replicas=2, rank=0).state_dict()
    with pytest.raises(StateDictError, match="sized, indexable source"):
        ShardedIterable(Stream(), total=20, num_replicas=3, rank=0).load_state_dict(state)
    shards = [[1, 2], [3]]
    state = ShardedIterable(shards, mode="shard", tail="uneven", num_replicas=2, rank=0)
    saved = state.state_dict()
    with pytest.raises(StateDictError, match="shard_sizes="):
        ShardedIterable(
            shards, mode="shard", tail="uneven", num_replicas=1, rank=0
        ).load_state_dict(saved)
    with as_worker(0, 2):  # one StatefulDataLoader worker's state: not its rank's
        worker_state = ShardedIterable(list(range(20)), num_replicas=2, rank=0).state_dict()
    with pytest.raises(StateDictError, match="loader_state_dict"):
        ShardedIterable(list(range(20)), num_replicas=3, rank=0).load_state_dict(worker_state)


FOUND = [  # cases a randomized search found (each failed before its fix)
    ("shard", "pad", [(3, 3), (4, 3), (2, 2)], [5, 2, None], 1, [1, 8, 7, 10, 3, 5]),
    ("item", "drop", [(4, 0), (4, 2), (3, 1)], [0, 3, None], 4, 57),  # state, then workers
    ("item", "pad", [(2, 0), (2, 2)], [2, None], 5, 33),  # a num_workers=0 state, 2 workers
]


@pytest.mark.parametrize("mode,tail,chain,cuts,b,data", FOUND)
def test_cases_found_by_search(mode: str, tail: str, chain: Any, cuts: Any, b: int, data: Any):
    if mode == "item":
        items = list(range(data))

        def make(world: int, rank: int) -> ShardedIterable[int]:
            return ShardedIterable(items, tail=tail, num_replicas=world, rank=rank)

        base, universe = data, set(items)
    else:
        shards, at = [], 0
        for size in data:
            shards.append(list(range(at, at + size)))
            at += size

        def make(world: int, rank: int) -> ShardedIterable[int]:
            return ShardedIterable(
                shards, mode="shard", shard_sizes=data, tail=tail, num_replicas=world, rank=rank
            )

        base = sum(len(make(chain[0][0], r)) for r in range(chain[0][0]))
        universe = set(range(at))
    stages = run(make, chain, cuts, b)
    seen = sum(stages, Counter())
    assert universe <= set(seen) or tail == "drop"
    if tail == "drop":
        left = base - sum(sum(s.values()) for s in stages[:-1])
        assert max(seen.values()) == 1 and len(universe - set(seen)) == left % chain[-1][0]
    else:  # pad: only the tails' declared repeats (at most a batch per worker each stage)
        assert sum(v - 1 for v in seen.values()) <= sum(max(1, w) * b for _, w in chain)
