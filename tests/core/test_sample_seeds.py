"""Per-sample seeds: an item's augmentation depends on (seed, epoch, index) alone."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st
from torch.utils.data import DataLoader

import fairshard
from fairshard import IndexedDataset, StepSampler, sample_seed
from fairshard._random.seeding import StreamId

N = 23
G = 8
SEED = 11


def jitter(sample: int, generator: torch.Generator) -> float:
    return sample + float(torch.rand(1, generator=generator))


def reference(epoch: int, index: int) -> float:
    generator = torch.Generator()
    generator.manual_seed(sample_seed(SEED, epoch, index))
    return index + float(torch.rand(1, generator=generator))


def _served(world: int, workers: int, start_step: int, steps: int) -> dict[tuple[int, int], float]:
    """(epoch, index) -> augmented value, as every rank's loader served it."""
    data = IndexedDataset(list(range(N)), transform=jitter, seed=SEED)
    out: dict[tuple[int, int], float] = {}
    b = G // world
    for rank in range(world):
        inner = fairshard.DistributedSampler(N, num_replicas=world, rank=rank, seed=3)
        sampler = StepSampler(
            inner, micro_batch_size=b, global_batch_size=G, start_step=start_step, with_epoch=True
        )
        keys = iter(sampler)
        wanted = [next(keys) for _ in range(steps * b)]
        loader = DataLoader(data, batch_size=b, sampler=wanted, num_workers=workers)
        for (indices, values), chunk in zip(loader, np.array_split(wanted, steps), strict=True):
            assert indices.tolist() == [i for _, i in chunk]
            for (epoch, index), value in zip(chunk.tolist(), values.tolist(), strict=True):
                out[(epoch, index)] = value
    return out


@settings(max_examples=6, deadline=None)
@given(
    world=st.sampled_from([1, 2, 4]),
    workers=st.sampled_from([0, 2]),
    start_step=st.integers(min_value=0, max_value=9),
)
@example(world=4, workers=2, start_step=7)
@example(world=1, workers=0, start_step=0)
def test_augmentation_is_the_same_for_any_worker_rank_world_or_resume(
    world: int, workers: int, start_step: int
) -> None:
    served = _served(world, workers, start_step, steps=4)
    assert len({e for e, _ in served}) >= 1
    for (epoch, index), value in served.items():
        assert value == reference(epoch, index)


def test_sample_seed_is_one_stream_word() -> None:
    from fairshard._random.seeding import stream_words

    assert sample_seed(SEED, 2, 9) == int(stream_words(StreamId.SAMPLE, 2, SEED, 1, sub_id=9)[0])
    seeds = {sample_seed(SEED, e, i) for e in range(4) for i in range(50)}
    assert len(seeds) == 200  # seed + index would collide across epochs
    assert sample_seed(-1, 0, 0) == sample_seed(2**64 - 1, 0, 0)
    with pytest.raises(fairshard.ConfigError):
        sample_seed(0, -1, 0)


def test_indexed_dataset_keys_and_epochs() -> None:
    data = IndexedDataset(list(range(5)), transform=jitter, seed=SEED)
    assert data[(2, 4)] == (4, reference(2, 4))
    assert data[4] == (4, reference(0, 4))
    data.set_epoch(2)
    assert data[4] == data[(2, 4)]
    assert IndexedDataset(["a", "b"])[1] == (1, "b")
    with pytest.raises(fairshard.ConfigTypeError, match="callable"):
        IndexedDataset([1], transform=3)  # type: ignore[arg-type]


def test_plain_keys_without_transform_are_unchanged() -> None:
    data: Any = IndexedDataset(list(range(3)))
    assert [data[i] for i in range(3)] == [(0, 0), (1, 1), (2, 2)]
