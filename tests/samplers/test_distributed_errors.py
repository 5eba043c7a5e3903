"""Bad input to DistributedSampler gets a clear error naming the parameter."""

from __future__ import annotations

import pytest
from torch.utils.data import IterableDataset

from fairshard import ConfigError, ConfigTypeError, DistributedSampler


class Stream(IterableDataset[int]):
    def __iter__(self):  # type: ignore[no-untyped-def]
        yield 1


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"dataset": Stream()}, ConfigTypeError, "dataset must define __len__.*ShardedIterable"),
        ({"dataset": object()}, ConfigTypeError, "dataset must define __len__"),
        ({"dataset": -5}, ConfigError, "dataset size must be >= 0, got dataset=-5"),
        ({"dataset": 10, "shuffle": "yes"}, ConfigTypeError, "shuffle must be a bool"),
        ({"dataset": 10, "drop_last": 2}, ConfigTypeError, "drop_last must be a bool"),
        ({"dataset": 10, "drop_last": None}, ConfigTypeError, "drop_last must be a bool"),
        ({"dataset": 10, "seed": 1.5}, ConfigTypeError, "seed must be an int, got seed=1.5"),
        ({"dataset": 10, "seed": 2**64}, ConfigError, "seed must be between"),
        ({"dataset": 10, "order": "numpy"}, ConfigError, "order must be one of 'lazy', 'torch'"),
        ({"dataset": 10, "layout": "zigzag"}, ConfigError, "layout must be one of"),
        ({"dataset": 10, "tail": "wrap"}, ConfigError, "tail must be one of"),
        (
            {"dataset": 10, "order": "torch", "layout": "blocked"},
            ConfigError,
            "order='torch' reproduces",
        ),
        ({"dataset": 10, "auto_epoch": "no"}, ConfigError, "auto_epoch must be a bool"),
    ],
)
def test_constructor_errors(kwargs: dict, error: type, match: str) -> None:
    kwargs.setdefault("num_replicas", 2)
    kwargs.setdefault("rank", 0)
    with pytest.raises(error, match=match):
        DistributedSampler(**kwargs)


@pytest.mark.parametrize(
    ("epoch", "error"), [(-1, ConfigError), (1.0, ConfigTypeError), (None, ConfigTypeError)]
)
def test_set_epoch_errors(epoch: object, error: type) -> None:
    with pytest.raises(error, match="epoch"):
        DistributedSampler(10, 2, 0).set_epoch(epoch)  # type: ignore[arg-type]


def test_dataset_that_changes_length_is_caught() -> None:
    data = list(range(10))
    s = DistributedSampler(data, 2, 0)
    data.append(10)
    with pytest.raises(
        ConfigError, match="had 10 samples when the DistributedSampler was built and has 11 now"
    ):
        list(s)


def test_negative_seed_is_accepted_like_torch() -> None:
    a = DistributedSampler(50, 1, 0, seed=-3)
    assert sorted(a) == list(range(50))
