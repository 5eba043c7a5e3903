"""Hugging Face ``datasets`` (real package, data generated here, offline).

Lengths come from an Arrow column without a Python loop over rows, for the
three length-driven batch samplers; a ``datasets.IterableDataset`` with
``n_shards`` shards drives ``ShardedIterable`` shard mode through real
DataLoader workers with equal counts per rank, where datasets' own
``split_dataset_by_node`` gives unequal ones.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

import numpy as np
import pytest
from torch.utils.data import DataLoader

import fairshard
from fairshard.integrations.hf_datasets import iterable_shards, sharded_iterable

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
datasets = pytest.importorskip(
    "datasets", reason="the [integrations] extra (datasets) is not installed"
)

N = 120
LENGTHS = 1 + (np.arange(N) * 37) % 29
SAMPLERS = {
    "length-bucket": lambda lengths: fairshard.LengthBucketBatchSampler(
        lengths, 4, num_replicas=2, rank=1, seed=3
    ),
    "token-budget": lambda lengths: fairshard.TokenBudgetBatchSampler(
        lengths, 64, num_replicas=2, rank=1, seed=3
    ),
    "packing": lambda lengths: fairshard.PackingBatchSampler(
        lengths, 64, 2, num_replicas=2, rank=1, seed=3
    ),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_lengths_from_an_arrow_column_without_a_python_loop(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    ds = datasets.Dataset.from_dict({"length": LENGTHS, "text": ["x"] * N})
    expected = list(SAMPLERS[name](LENGTHS))
    shuffled = ds.shuffle(seed=0)  # an index mapping over the Arrow table
    order = np.asarray(shuffled.with_format("numpy")["length"])
    # No row-by-row reading: iterating a Column is the Python loop this avoids.
    monkeypatch.setattr(
        datasets.arrow_dataset.Column, "__iter__", lambda self: pytest.fail("row loop")
    )
    for column in (ds["length"], ds.with_format("numpy")["length"], ds.data.column("length")):
        assert list(SAMPLERS[name](column)) == expected
    assert list(SAMPLERS[name](shuffled["length"])) == list(SAMPLERS[name](order))


def test_a_column_with_missing_lengths_is_refused() -> None:
    ds = datasets.Dataset.from_dict({"length": [3, None, 4]})
    with pytest.raises(fairshard.ConfigError, match="1 missing values"):
        fairshard.LengthBucketBatchSampler(ds["length"], 2, num_replicas=1, rank=0)


SIZES = [3, 9, 4, 7, 5, 8, 2, 6]  # eight unequal shards, 44 rows


def _generate(shards: list[int]) -> Any:
    for s in shards:
        for k in range(SIZES[s]):
            yield {"id": 100 * s + k}


def _stream() -> Any:
    return datasets.IterableDataset.from_generator(
        _generate, gen_kwargs={"shards": list(range(len(SIZES)))}
    )


def _read(stream: Any, workers: int) -> list[int]:
    loader = DataLoader(stream, batch_size=None, num_workers=workers)
    return [int(row["id"]) for row in loader]


@pytest.mark.timeout(120)
def test_iterable_dataset_shards_drive_shard_mode_with_equal_counts() -> None:
    ids = _stream()
    assert ids.n_shards == len(SIZES) and len(iterable_shards(ids)) == len(SIZES)
    for tail in ("drop", "pad"):
        per_rank = []
        for rank in range(2):
            stream = sharded_iterable(ids, tail=tail, num_replicas=2, rank=rank, seed=1)
            stream.set_epoch(1)
            rows = _read(stream, workers=2)  # real DataLoader worker processes
            assert len(rows) == len(stream)
            per_rank.append(rows)
        assert len(per_rank[0]) == len(per_rank[1])  # the same steps on both ranks
        seen = Counter(per_rank[0] + per_rank[1])
        if tail == "drop":
            assert max(seen.values()) == 1  # disjoint
        else:
            assert set(seen) == {100 * s + k for s in range(len(SIZES)) for k in range(SIZES[s])}
    # shard_sizes given: no counting pass; the same stream
    given = sharded_iterable(ids, shard_sizes=SIZES, tail="drop", num_replicas=2, rank=0, seed=1)
    counted = sharded_iterable(ids, tail="drop", num_replicas=2, rank=0, seed=1)
    assert list(given) == list(counted)
    # datasets' own split gives the two nodes unequal counts here.
    from datasets.distributed import split_dataset_by_node

    counts = [sum(1 for _ in split_dataset_by_node(ids, rank=r, world_size=2)) for r in range(2)]
    assert counts[0] != counts[1]


def test_iterable_shards_refuses_what_has_no_shards() -> None:
    with pytest.raises(fairshard.ConfigTypeError, match="datasets.IterableDataset"):
        iterable_shards(list(range(4)))
