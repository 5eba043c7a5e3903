"""Regressions for defects found in review: each test pins one fixed behaviour."""

from __future__ import annotations

import pytest
import torch

from fairshard import (
    BatchShardSampler,
    ClassBatchSampler,
    ConfigError,
    ConfigTypeError,
    ExactMetrics,
    LengthBucketBatchSampler,
    ShardedIterable,
    TokenBudgetBatchSampler,
)


@pytest.mark.parametrize(
    "build",
    [
        lambda: LengthBucketBatchSampler(list(range(10)), 4, num_replicas=4, rank=0, tail="drop"),
        lambda: TokenBudgetBatchSampler([5] * 3, 5, num_replicas=4, rank=0, tail="drop"),
        lambda: ClassBatchSampler([0, 0, 1, 1], 1, num_replicas=4, rank=0, tail="drop"),
    ],
)
def test_drop_with_fewer_batches_than_ranks_is_an_error(build) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError, match=r"tail='drop' with \d+ plan items .* 0 steps"):
        len(build())


def test_batch_shard_rejects_negative_indices() -> None:
    sampler = BatchShardSampler([[-1, 2]], num_replicas=1, rank=0)
    with pytest.raises(ConfigError, match="negative index -1 in batch 0"):
        list(sampler)


def test_metrics_refuse_float_targets() -> None:
    metrics = ExactMetrics(2)
    with pytest.raises(ConfigTypeError, match="targets must hold integer class labels"):
        metrics.update(torch.tensor([1, 1]), torch.tensor([1.7, 0.2]))


def test_shard_size_error_names_the_shard() -> None:
    expected = r"shard_sizes\[1\] must be >= 0, got shard_sizes\[1\]=-1"
    with pytest.raises(ConfigError, match=expected):
        ShardedIterable([[1], [2]], mode="shard", shard_sizes=[1, -1], num_replicas=1, rank=0)


@pytest.mark.parametrize(
    ("policy", "match"), [("pad", "cannot pad ranks"), ("drop", "gives every rank 0 items")]
)
def test_shard_mode_with_an_empty_rank_is_refused_in_len_and_iteration(
    policy: str, match: str
) -> None:
    # Refused at construction (issue 14.8), so neither len() nor a pass is ever reached.
    for rank in (0, 1):
        with pytest.raises(ConfigError, match=match):
            ShardedIterable(
                [[1, 2, 3], []],
                mode="shard",
                shard_sizes=[3, 0],
                tail=policy,
                num_replicas=2,
                rank=rank,
                shuffle_shards=False,
            )
