from __future__ import annotations

import itertools
import warnings
from collections import Counter
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from torch.utils.data import DataLoader

from fairshard import (
    ConfigError,
    ConfigTypeError,
    DegenerateConfigWarning,
    ShardedIterable,
    StateDictError,
)
from fairshard._streams.layout import Consumer, shard_order, shard_segments

POLICIES = ("drop", "pad", "uneven")

# 4 workers on a 2-core machine is what the tests want; torch warns about it.
pytestmark = pytest.mark.filterwarnings("ignore:This DataLoader will create:UserWarning")


class Stream:
    """A re-iterable stream without random access; counts the items it produced."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.reads = 0

    def __iter__(self) -> Iterator[int]:
        for i in range(self.n):
            self.reads += 1
            yield i


class Indexed:
    """A sized, indexable source; records which indices were read."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.read: list[int] = []

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> int:
        self.read.append(i)
        return i


class Shard:
    """A streaming shard of (shard, i) items."""

    def __init__(self, sid: int, size: int) -> None:
        self.sid, self.size = sid, size

    def __iter__(self) -> Iterator[tuple[int, int]]:
        return ((self.sid, i) for i in range(self.size))


def as_worker(w: int, num_workers: int) -> Any:
    return mock.patch(
        "torch.utils.data.get_worker_info",
        return_value=SimpleNamespace(id=w, num_workers=num_workers),
    )


def run_rank(ds: ShardedIterable[Any], workers: int) -> list[list[Any]]:
    """Items per simulated DataLoader worker (workers=0: in process)."""
    if workers == 0:
        return [list(ds)]
    out = []
    for w in range(workers):
        with as_worker(w, workers):
            out.append(list(ds))
    return out


def expected_items(n: int, world: int, policy: str) -> Counter[int]:
    if policy == "uneven":
        return Counter(range(n))
    if policy == "drop":
        return Counter(range(n // world * world))
    rows = -(-n // world)
    return Counter(p % n for p in range(rows * world))


def check_items(n: int, world: int, workers: int, policy: str, kind: str) -> None:
    per_rank: list[list[int]] = []
    for rank in range(world):
        source = Stream(n) if kind == "stream" else Indexed(n)
        total = n if kind == "stream-total" else None
        if kind == "stream-total":
            source = Stream(n)
        ds = ShardedIterable(source, tail=policy, total=total, num_replicas=world, rank=rank)
        parts = run_rank(ds, workers)
        items = [i for part in parts for i in part]
        if kind != "stream":
            assert len(ds) == len(items)
        else:
            with pytest.raises(TypeError, match="no len"):
                len(ds)
        per_rank.append(items)
        if workers and policy != "uneven":  # equal per-worker counts -> equal batches
            assert [len(p) for p in parts] == [
                len(range(w, len(items), workers)) for w in range(workers)
            ]
    assert Counter(i for items in per_rank for i in items) == expected_items(n, world, policy)
    if policy != "uneven":
        assert len({len(items) for items in per_rank}) == 1
    else:
        assert max(map(len, per_rank)) - min(map(len, per_rank)) <= 1


@pytest.mark.parametrize("world", range(1, 9))
@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("kind", ["stream", "stream-total", "indexed"])
def test_item_mode_over_ranks_and_simulated_workers(world: int, policy: str, kind: str) -> None:
    for n, workers in [(37, 0), (37, 1), (20, 3), (8, 4), (world, 2)]:
        if policy == "drop" and n < world:
            continue
        check_items(n, world, workers, policy, kind)


@given(
    n=st.integers(1, 60),
    world=st.integers(1, 8),
    workers=st.integers(0, 4),
    policy=st.sampled_from(POLICIES),
    kind=st.sampled_from(["stream", "stream-total", "indexed"]),
)
def test_item_mode_property(n: int, world: int, workers: int, policy: str, kind: str) -> None:
    if policy == "drop" and n < world:
        with pytest.raises(ConfigError, match="every rank empty"):
            check_items(n, world, workers, policy, kind)
        return
    check_items(n, world, workers, policy, kind)


def shard_run(
    sizes: list[int],
    world: int,
    workers: int,
    policy: str,
    seed: int = 0,
    epoch: int = 0,
    known: bool = True,
) -> list[list[tuple[int, int]]]:
    per_rank = []
    for rank in range(world):
        ds: ShardedIterable[tuple[int, int]] = ShardedIterable(
            list(range(len(sizes))),
            mode="shard",
            open_shard=lambda s: Shard(s, sizes[s]),
            shard_sizes=sizes if known else None,
            tail=policy,
            seed=seed,
            num_replicas=world,
            rank=rank,
        )
        ds.set_epoch(epoch)
        parts = run_rank(ds, workers)
        items = [i for part in parts for i in part]
        if known:
            assert len(ds) == len(items)
        per_rank.append(items)
        if workers and policy != "uneven":  # same per-worker counts on every rank
            assert [len(p) for p in parts] == [
                (w + 1) * len(items) // workers - w * len(items) // workers for w in range(workers)
            ]
    return per_rank


@given(
    sizes=st.lists(st.integers(0, 9), min_size=1, max_size=12),
    world=st.integers(1, 8),
    workers=st.integers(0, 4),
    policy=st.sampled_from(POLICIES),
    seed=st.integers(0, 3),
    epoch=st.integers(0, 3),
)
def test_shard_mode_property(
    sizes: list[int], world: int, workers: int, policy: str, seed: int, epoch: int
) -> None:
    def run() -> list[list[tuple[int, int]]]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateConfigWarning)
            return shard_run(sizes, world, workers, policy, seed, epoch)

    if sum(sizes) == 0:
        with pytest.raises(ConfigError, match="no items"):
            run()
        return
    if policy == "pad" and len(sizes) < world:
        with pytest.raises(ConfigError, match="at least one shard per rank"):
            run()
        return
    try:
        per_rank = run()
    except ConfigError as exc:  # a rank with only empty shards: refused, never silent
        assert (
            (policy == "pad" and "cannot pad ranks" in str(exc))
            or (policy == "drop" and "gives every rank 0 items" in str(exc))
            or "some epoch would give a rank only empty shards" in str(exc)
        )
        return
    # Accepted at construction means every epoch is valid (decided up front, never later).
    for other in range(8):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DegenerateConfigWarning)
            shard_run(sizes, world, workers, policy, seed, other)
    every = Counter((s, i) for s, size in enumerate(sizes) for i in range(size))
    seen = Counter(x for items in per_rank for x in items)
    if policy == "uneven":
        assert seen == every
    else:
        assert len({len(items) for items in per_rank}) == 1
    if policy == "drop":
        assert max(seen.values(), default=1) == 1 and not seen - every
    if policy == "pad":  # each rank: its own stream, then repeats of its own head
        assert set(seen) == set(every)
        for items in per_rank:
            distinct = list(dict.fromkeys(items))
            assert items == list(itertools.islice(itertools.cycle(distinct), len(items)))


def test_shard_mode_uneven_without_sizes_reads_whole_shards() -> None:
    sizes = [5, 0, 3, 7, 2, 4, 6]
    per_rank = shard_run(sizes, 3, 2, "uneven", known=False)
    assert Counter(x for items in per_rank for x in items) == Counter(
        (s, i) for s, size in enumerate(sizes) for i in range(size)
    )
    ds = ShardedIterable([[1], [2]], mode="shard", tail="uneven", num_replicas=1, rank=0)
    with pytest.raises(TypeError, match="shard_sizes="):
        len(ds)
    assert sorted(ds) == [1, 2]  # shards that are lists are read as they are


def test_shard_order_depends_on_seed_and_epoch_only() -> None:
    sizes = [3] * 16

    def order(seed: int, epoch: int, world: int) -> list[int]:
        per_rank = shard_run(sizes, world, 0, "drop", seed, epoch)
        firsts = [s for items in per_rank for (s, i) in items if i == 0]
        return firsts

    assert order(0, 0, 1) == order(0, 0, 1)
    assert order(0, 0, 1) != order(0, 1, 1)
    assert order(0, 0, 1) != order(1, 0, 1)
    assert sorted(order(0, 0, 4)) == list(range(16))
    assert order(0, 0, 4)[:4] == order(0, 0, 1)[0:16:4]  # rank r takes order[r::R]


def test_forgetting_set_epoch_in_shard_mode_warns() -> None:
    ds = ShardedIterable([[1], [2]], mode="shard", shard_sizes=[1, 1], num_replicas=1, rank=0)
    list(ds)
    with pytest.warns(DegenerateConfigWarning, match="set_epoch"):
        list(ds)
    ds.set_epoch(1)
    list(ds)  # no warning after set_epoch


@pytest.mark.parametrize("workers", [0, 1, 4])
def test_real_dataloader_workers_item_mode(workers: int) -> None:
    world, n = 3, 50
    per_rank = []
    for rank in range(world):
        ds = ShardedIterable(Stream(n), total=n, tail="pad", num_replicas=world, rank=rank)
        loader = DataLoader(ds, batch_size=None, num_workers=workers)
        items = [int(x) for x in loader]
        assert len(loader) == len(ds) == len(items) == 17
        simulated = [i for part in run_rank(ds, workers) for i in part]
        assert sorted(items) == sorted(simulated)
        per_rank.append(items)
    assert Counter(i for items in per_rank for i in items) == expected_items(n, world, "pad")


def open_shard(spec: tuple[int, int]) -> Shard:
    return Shard(*spec)


def test_real_dataloader_workers_shard_mode_batches() -> None:
    sizes = [7, 3, 9, 1, 4, 8, 2, 6, 5]
    world, workers = 2, 4
    batches = []
    for rank in range(world):
        ds: ShardedIterable[tuple[int, int]] = ShardedIterable(
            [(s, size) for s, size in enumerate(sizes)],
            mode="shard",
            open_shard=open_shard,
            shard_sizes=sizes,
            tail="drop",
            seed=5,
            num_replicas=world,
            rank=rank,
        )
        loader = DataLoader(ds, batch_size=3, num_workers=workers, collate_fn=list)
        got = list(loader)
        assert sum(map(len, got)) == len(ds)
        batches.append(got)
    assert len(batches[0]) == len(batches[1])  # equal steps, not only equal items
    flat = [x for rank in batches for b in rank for x in b]
    assert len(flat) == len(set(flat))


def test_in_process_resume_skips_by_index() -> None:
    source = Indexed(40)
    ds = ShardedIterable(source, tail="drop", num_replicas=3, rank=1)
    with as_worker(1, 2):
        it = iter(ds)
        head = [next(it) for _ in range(3)]
        state = ds.state_dict()
        rest_expected = list(it)
    source2 = Indexed(40)
    ds2 = ShardedIterable(source2, tail="drop", num_replicas=3, rank=1)
    with as_worker(1, 2):
        ds2.load_state_dict(state)
        rest = list(ds2)
    assert rest == rest_expected and not set(head) & set(rest)
    assert sorted(source2.read) == sorted(rest)  # nothing consumed was read again


def test_in_process_resume_in_shard_mode_skips_whole_segments() -> None:
    sizes = [4, 6, 5, 3, 7, 2]
    opened: list[int] = []

    def opener(s: int) -> Shard:
        opened.append(s)
        return Shard(s, sizes[s])

    def make() -> ShardedIterable[tuple[int, int]]:
        return ShardedIterable(
            list(range(6)),
            mode="shard",
            open_shard=opener,
            shard_sizes=sizes,
            tail="pad",
            num_replicas=2,
            rank=0,
        )

    reference = make()
    reference.set_epoch(2)
    full = list(reference)
    ds = make()
    ds.set_epoch(2)
    it = iter(ds)
    cut = len(full) - 4
    head = [next(it) for _ in range(cut)]
    state = ds.state_dict()
    opened.clear()
    ds2 = make()
    ds2.load_state_dict(state)
    assert ds2.epoch == 2
    rest = list(ds2)
    assert head + rest == full
    segments = shard_segments(shard_order(6, 0, 2, True), np.array(sizes), Consumer(0, 2), "pad")
    ends = np.cumsum([b - a for _, a, b in segments])  # type: ignore[operator]
    assert opened == [s for (s, _, _), end in zip(segments, ends, strict=True) if end > cut]


# torchdata 0.11 calls a torch helper that torch 2.13 deprecates.
@pytest.mark.filterwarnings("ignore:'set_vital' is deprecated:UserWarning")
def test_stateful_dataloader_resume_mid_stream() -> None:
    sdl = pytest.importorskip("torchdata.stateful_dataloader")
    n, world, rank = 101, 2, 1

    def loader() -> Any:
        ds = ShardedIterable(Indexed(n), tail="pad", num_replicas=world, rank=rank)
        return sdl.StatefulDataLoader(ds, batch_size=4, num_workers=2, collate_fn=list)

    full = list(loader())
    first = loader()
    it = iter(first)
    head = [next(it) for _ in range(5)]
    state = first.state_dict()
    del it
    second = loader()
    second.load_state_dict(state)
    rest = list(second)
    assert head + rest == full
    assert sorted(x for b in full for x in b) == sorted([*range(1, 101, 2), 0])


def test_state_rejects_other_consumer_and_config() -> None:
    ds = ShardedIterable(Stream(10), num_replicas=2, rank=0)
    state = ds.state_dict()
    with pytest.raises(StateDictError, match="same num_replicas, rank and DataLoader"):
        ShardedIterable(Stream(10), num_replicas=2, rank=1).load_state_dict(state)
    with as_worker(0, 2), pytest.raises(StateDictError, match="num_workers"):
        ShardedIterable(Stream(10), num_replicas=2, rank=0).load_state_dict(state)
    with pytest.raises(StateDictError, match="policy"):
        ShardedIterable(Stream(10), tail="pad", num_replicas=2, rank=0).load_state_dict(state)
    with pytest.raises(StateDictError, match="seed"):
        ShardedIterable(Stream(10), seed=1, num_replicas=2, rank=0).load_state_dict(state)


def test_bad_inputs_raise_clear_errors() -> None:
    with pytest.raises(ConfigError, match="no items"):
        list(ShardedIterable(Stream(0), num_replicas=1, rank=0))
    with pytest.raises(ConfigError, match="no items"):
        ShardedIterable([], num_replicas=1, rank=0)
    with pytest.raises(ConfigError, match="yielded 9 items but total=10"):
        list(ShardedIterable(Stream(9), total=10, num_replicas=2, rank=0))
    with pytest.raises(ConfigError, match="yielded 11 items but total=10"):
        list(ShardedIterable(Stream(11), total=10, num_replicas=2, rank=0))
    with pytest.raises(ConfigTypeError, match="one-shot iterator"):
        ShardedIterable(iter(range(3)), num_replicas=1, rank=0)
    with pytest.raises(ConfigError, match="tail must be one of"):
        ShardedIterable(Stream(3), tail="even", num_replicas=1, rank=0)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="needs shard_sizes"):
        ShardedIterable([[1]], mode="shard", num_replicas=1, rank=0)
    with pytest.raises(ConfigError, match="one size per shard"):
        ShardedIterable([[1]], mode="shard", shard_sizes=[1, 2], num_replicas=1, rank=0)
    with pytest.raises(ConfigError, match="no shards"):
        ShardedIterable([], mode="shard", tail="uneven", num_replicas=1, rank=0)
    with pytest.raises(ConfigError, match="every rank empty"):
        ShardedIterable(Indexed(2), num_replicas=3, rank=0)
    with pytest.raises(ConfigError, match="total=5 but the source has len"):
        ShardedIterable(Indexed(4), total=5, num_replicas=1, rank=0)
    with pytest.raises(ConfigError, match="mode='shard' only"):
        ShardedIterable(Stream(3), shard_sizes=[3], num_replicas=1, rank=0)
    with pytest.raises(ConfigError, match="shard 0 ended before item 3"):
        list(ShardedIterable([Shard(0, 2)], mode="shard", shard_sizes=[3], num_replicas=1, rank=0))
    with pytest.raises(ConfigError, match="shard 0 has 2 items but shard_sizes"):
        list(ShardedIterable([[1, 2]], mode="shard", shard_sizes=[3], num_replicas=1, rank=0))
    with pytest.warns(DegenerateConfigWarning, match="some ranks get no shard"):
        ShardedIterable([[1]], mode="shard", tail="uneven", num_replicas=2, rank=0)


def test_layout_doc_example_matches_dataset() -> None:
    order = np.arange(4, dtype=np.int64)
    sizes = np.array([3, 1, 2, 2], dtype=np.int64)
    segs = shard_segments(order, sizes, Consumer(1, 2), "pad")
    ds = ShardedIterable(
        [Shard(s, int(sizes[s])) for s in range(4)],
        mode="shard",
        shard_sizes=[3, 1, 2, 2],
        shuffle_shards=False,
        tail="pad",
        num_replicas=2,
        rank=1,
    )
    assert list(ds) == [(s, i) for s, a, b in segs for i in range(a, b or 0)]
