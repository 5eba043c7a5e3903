"""Stream sources that would be silently wrong are refused up front (issue 14, items 7 and 8)."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from fairshard import ConfigError, ConfigTypeError, DegenerateConfigWarning, ShardedIterable

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("source", [{"a", "b", "c", "d"}, frozenset(range(8))])
def test_unordered_sources_are_refused(source: object) -> None:
    with pytest.raises(ConfigTypeError, match=r"iteration order differs between processes.*sorted"):
        ShardedIterable(source, num_replicas=2, rank=0)  # type: ignore[arg-type]


def test_dict_views_keep_insertion_order_and_are_accepted() -> None:
    d = {f"k{i}": i for i in range(6)}
    parts = [list(ShardedIterable(d.keys(), num_replicas=2, rank=r)) for r in (0, 1)]
    assert sorted(parts[0] + parts[1]) == sorted(d)


def test_why_sets_are_refused_string_sets_differ_across_processes() -> None:
    # The defect behind the rule: two processes iterate the same set of strings differently.
    code = "print(list({'alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta'}))"
    orders = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in range(6)
    }
    assert len(orders) > 1


@pytest.mark.parametrize("tail", ["drop", "pad"])
def test_empty_shards_that_a_later_shuffle_could_isolate_are_refused_at_construction(
    tail: str,
) -> None:
    # 2 of 4 shards empty on 2 ranks: each rank takes 2 shards, so some epoch's
    # shuffle gives one rank both empty shards. Before, epoch 0 passed and a
    # later epoch failed mid-training.
    with pytest.raises(ConfigError, match="only empty shards|cannot pad ranks"):
        ShardedIterable(
            [[1, 2], [], [3], []],
            mode="shard",
            shard_sizes=[2, 0, 1, 0],
            tail=tail,  # type: ignore[arg-type]
            num_replicas=2,
            rank=0,
        )


@pytest.mark.parametrize(
    ("sizes", "world"),
    [([2, 0, 1, 3], 2), ([0, 1, 1, 1, 1, 1], 3), ([5, 0, 4, 4, 3, 2, 0, 1], 2)],
)
def test_accepted_shard_configs_are_valid_in_every_epoch(sizes: list[int], world: int) -> None:
    shards = [list(range(s)) for s in sizes]
    for tail in ("drop", "pad"):
        datasets = [
            ShardedIterable(
                shards,
                mode="shard",
                shard_sizes=sizes,
                tail=tail,  # type: ignore[arg-type]
                num_replicas=world,
                rank=r,
            )
            for r in range(world)
        ]
        for epoch, ds in itertools.product(range(40), datasets):
            ds.set_epoch(epoch)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DegenerateConfigWarning)
                assert len(ds) > 0
                assert len(list(ds)) == len(ds)


def test_policy_is_a_deprecated_alias_of_tail() -> None:
    with pytest.warns(DeprecationWarning, match=r"policy='pad'.*write tail='pad'") as caught:
        ds = ShardedIterable(list(range(5)), policy="pad", num_replicas=2, rank=1)
    assert ds.tail == "pad" and ds.policy == "pad"
    assert caught[0].filename == __file__  # points at the caller's line
    assert len(list(ds)) == 3


def test_a_negative_shard_size_error_names_the_shard() -> None:
    expected = r"shard_sizes\[1\] must be >= 0, got shard_sizes\[1\]=-1"
    with pytest.raises(ConfigError, match=expected):
        ShardedIterable([[1], [2]], mode="shard", shard_sizes=[1, -1], num_replicas=1, rank=0)


@pytest.mark.parametrize(
    ("tail", "match"), [("pad", "cannot pad ranks"), ("drop", "gives every rank 0 items")]
)
def test_shard_mode_with_an_empty_rank_is_refused_at_construction(tail: str, match: str) -> None:
    # Refused at construction (issue 14.8), so neither len() nor a pass is ever reached.
    for rank in (0, 1):
        with pytest.raises(ConfigError, match=match):
            ShardedIterable(
                [[1, 2, 3], []],
                mode="shard",
                shard_sizes=[3, 0],
                tail=tail,  # type: ignore[arg-type]
                num_replicas=2,
                rank=rank,
                shuffle_shards=False,
            )
