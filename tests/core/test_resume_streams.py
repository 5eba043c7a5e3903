"""``ShardedIterable`` through a plain DataLoader with 2 workers: exact resume per worker.

The workers read copies of the dataset; ``fairshard.loader_state_dict``
works out each worker's position from the batches the loop took (the loader
yields them round robin, skipping exhausted workers), and each worker's copy
picks its own entry on resume.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from torch.utils.data import DataLoader

import fairshard
from fairshard import ConfigError

N = 103


def _item() -> Any:
    return fairshard.ShardedIterable(list(range(N)), num_replicas=2, rank=1, tail="pad")


def _shard() -> Any:
    shards = [list(range(i, min(i + 10, N))) for i in range(0, N, 10)]
    return fairshard.ShardedIterable(
        shards, mode="shard", shard_sizes=[len(s) for s in shards], num_replicas=2, rank=1
    )


def _loader(dataset: Any, workers: int) -> DataLoader[Any]:
    return DataLoader(
        dataset,
        batch_size=4,
        num_workers=workers,
        multiprocessing_context="fork" if workers else None,
    )


@pytest.mark.timeout(180)
@pytest.mark.parametrize("workers", [0, 2])
@pytest.mark.parametrize("make", [_item, _shard], ids=["item", "shard"])
def test_stream_resumes_exactly_at_every_cut(make: Any, workers: int) -> None:
    full = [i for b in _loader(make(), workers) for i in b.tolist()]
    batches = -(-len(full) // 4) + 1
    for cut in range(batches + 1):
        loader = _loader(make(), workers)
        before: list[int] = []
        state = fairshard.loader_state_dict(loader, 0) if cut == 0 else None
        for k, batch in enumerate(loader if cut else [], start=1):
            before += batch.tolist()
            if k == cut:
                state = fairshard.loader_state_dict(loader, k)
                break
        if state is None:
            continue  # fewer batches than cut
        resumed = make()
        resumed.load_state_dict(state)
        after = [i for b in _loader(resumed, workers) for i in b.tolist()]
        assert sorted(before + after) == sorted(full), f"cut after {cut} batches"


def _small(mode: str) -> Any:
    n = 38  # rank 1 of 2: 19 items (item), 18 (shard): a short last batch for most workers
    if mode == "item":
        return fairshard.ShardedIterable(list(range(n)), num_replicas=2, rank=1, seed=5)
    shards = [list(range(i, min(i + 6, n))) for i in range(0, n, 6)]
    sizes = [len(s) for s in shards]
    return fairshard.ShardedIterable(
        shards, mode="shard", shard_sizes=sizes, num_replicas=2, rank=1, seed=5
    )


@pytest.mark.filterwarnings("ignore:This DataLoader will create:UserWarning")  # 3 workers
@pytest.mark.timeout(180)
@pytest.mark.parametrize(
    "workers",
    [pytest.param(1, marks=pytest.mark.matrix), 2, pytest.param(3, marks=pytest.mark.matrix)],
)  # 2 workers (resumed by 2 and by 3) in make test; 1 and 3 in make faults
@pytest.mark.parametrize("mode", ["item", "shard"])
def test_every_cut_resumes_exactly_on_the_same_and_another_num_workers(
    mode: str, workers: int
) -> None:
    """Nothing repeated, nothing lost: what the loop took plus the resumed rest is the epoch.

    The class of the shard-mode "mid-epoch resume under workers" report: every cut of a
    pass read by 1, 2 or 3 workers, resumed by as many workers and by another count.
    """
    full = list(_loader(_small(mode), workers))  # an in-order pass: its first k batches
    epoch = sorted(i for b in _loader(_small(mode), 0) for i in b.tolist())
    assert sorted(i for b in full for i in b.tolist()) == epoch
    other = workers % 3 + 1
    for cut in range(len(full) + 1):
        stream = _small(mode)
        state = fairshard.loader_state_dict(_loader(stream, workers), cut)
        before = [i for b in full[:cut] for i in b.tolist()]
        for again in (workers, other):
            resumed = _small(mode)
            resumed.load_state_dict(state)
            after = [i for b in _loader(resumed, again) for i in b.tolist()]
            where = f"{mode}: cut after {cut} batches of {workers} workers, resumed by {again}"
            assert sorted(before + after) == epoch, where


@pytest.mark.timeout(60)
def test_stream_state_of_two_workers_finishes_in_one_process_and_needs_a_known_length() -> None:
    full = [i for b in _loader(_item(), 2) for i in b.tolist()]
    loader = _loader(_item(), 2)
    before = next(iter(loader)).tolist()
    state = fairshard.loader_state_dict(loader, 1)
    resumed = _item()
    resumed.load_state_dict(state)
    after = list(resumed)  # read in this process: the epoch finishes on the new shape
    assert len(before + after) == len(full) == N // 2 + 1  # the rank's 51 items and one pad
    own = [i for i in before + after if i % 2 == 1]  # rank 1 of 2 owns the odd items
    assert sorted(own) == list(range(1, N, 2))  # each exactly once; the pad may differ
    unknown = fairshard.ShardedIterable(iter_again(), num_replicas=1, rank=0, tail="uneven")
    with pytest.raises(ConfigError, match="total="):
        fairshard.loader_state_dict(_loader(unknown, 0), 1)


class iter_again:
    def __iter__(self) -> Any:
        return iter(range(10))


@pytest.mark.timeout(120)
@pytest.mark.parametrize("workers", [0, 2])
@pytest.mark.parametrize("policy", ["uneven", "drop"])
def test_end_of_epoch_state_then_set_epoch_reads_the_next_epoch(workers: int, policy: str) -> None:
    """StatefulDataLoader restores lazily, after set_epoch(1): epoch 1, not epoch 0 again."""
    torchdata = pytest.importorskip("torchdata.stateful_dataloader")
    shards = [list(range(i, min(i + 10, N))) for i in range(0, N, 10)]

    def make() -> Any:
        sizes = [len(s) for s in shards]
        return fairshard.ShardedIterable(
            shards, mode="shard", shard_sizes=sizes, num_replicas=1, rank=0, tail=policy
        )

    def stateful(dataset: Any) -> Any:
        context = "fork" if workers else None
        return torchdata.StatefulDataLoader(
            dataset, batch_size=4, num_workers=workers, multiprocessing_context=context
        )

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "'set_vital' is deprecated")
        loader = stateful(make())
        list(loader)
        state = loader.state_dict()
        ref = make()
        ref.set_epoch(1)
        expected = [i for b in stateful(ref) for i in b.tolist()]
        resumed = make()
        loader = stateful(resumed)
        loader.load_state_dict(state)
        resumed.set_epoch(1)
        assert [i for b in loader for i in b.tolist()] == expected
