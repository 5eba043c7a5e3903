"""order="torch" reproduces torch.utils.data.DistributedSampler item for item."""

from __future__ import annotations

import random
import warnings

import pytest
import torch.utils.data as tud

from fairshard import ConfigError, DegenerateConfigWarning, DistributedSampler


def configs(count: int) -> list[tuple[int, int, int, int, int, bool, bool]]:
    rng = random.Random(20261129)
    out = []
    while len(out) < count:
        n = rng.choice([rng.randint(0, 12), rng.randint(0, 3000)])
        world = rng.randint(1, 16)
        rank = rng.randrange(world)
        seed = rng.choice([0, 1, rng.randint(0, 2**31), rng.randint(0, 2**62)])
        epoch = rng.randint(0, 50)
        shuffle, drop_last = rng.random() < 0.7, rng.random() < 0.4
        if drop_last and 0 < n < world:
            continue  # fairshard refuses: every rank would get nothing (tested below)
        out.append((n, world, rank, seed, epoch, shuffle, drop_last))
    return out


@pytest.mark.parametrize(
    ("n", "world", "rank", "seed", "epoch", "shuffle", "drop_last"), configs(240)
)
def test_torch_order_matches_pytorch(
    n: int, world: int, rank: int, seed: int, epoch: int, shuffle: bool, drop_last: bool
) -> None:
    theirs = tud.DistributedSampler(
        range(n), world, rank, shuffle=shuffle, seed=seed, drop_last=drop_last
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DegenerateConfigWarning)
        ours = DistributedSampler(
            range(n), world, rank, shuffle=shuffle, seed=seed, drop_last=drop_last, order="torch"
        )
    theirs.set_epoch(epoch)
    ours.set_epoch(epoch)
    expected = list(theirs)
    assert list(ours) == expected
    assert len(ours) == len(theirs) == len(expected)
    assert (ours.num_samples, ours.total_size) == (theirs.num_samples, theirs.total_size)


def test_pytorch_silently_empties_every_rank_and_fairshard_refuses() -> None:
    theirs = tud.DistributedSampler(range(3), num_replicas=8, rank=0, drop_last=True)
    assert list(theirs) == []  # the silent failure
    with pytest.raises(ConfigError, match="3 samples on num_replicas=8 ranks gives every rank 0"):
        DistributedSampler(range(3), num_replicas=8, rank=0, drop_last=True)
