"""Every fairshard warning points at the user's line, however deep it was raised.

``warn`` walks out of fairshard's frames (and of ``torch.utils.data``'s, when
a DataLoader iterates the sampler), so the warning's file is the file of the
code that built the sampler, called ``iter`` or ran ``for batch in loader``:
here, this test file. The CLI prints warnings as its own lines instead of
naming a module inside fairshard.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest
from torch.utils.data import BatchSampler, DataLoader

import fairshard
from fairshard import DegenerateConfigWarning, DistributedSampler
from fairshard._cli.main import main


def _twice(sampler: Any) -> None:
    list(sampler)
    list(sampler)  # forgotten set_epoch


def _loader_twice(workers: int) -> Callable[[], None]:
    def run() -> None:
        loader = DataLoader(
            list(range(8)), sampler=DistributedSampler(8, 1, 0), num_workers=workers
        )
        for _ in loader:
            pass
        for _ in loader:  # forgotten set_epoch
            pass

    return run


def _batch_shard_tail() -> None:
    inner = BatchSampler(range(10), batch_size=4, drop_last=False)  # 3 batches on 2 ranks
    list(fairshard.BatchShardSampler(inner, num_replicas=2, rank=0))


TRIGGERS: dict[str, Callable[[], Any]] = {
    "construction": lambda: DistributedSampler(0, 1, 0),
    "iter twice": lambda: _twice(DistributedSampler(5, 1, 0)),
    "iter twice, weighted": lambda: _twice(fairshard.WeightedSampler([1.0, 2.0], num_replicas=1)),
    "DataLoader, no workers": _loader_twice(0),
    "DataLoader, 2 workers": _loader_twice(2),
    "batch shard tail": _batch_shard_tail,
    "token budget skips": lambda: list(
        fairshard.TokenBudgetBatchSampler(
            [1, 50, 2], max_tokens=10, skip_oversized=True, num_replicas=1
        )
    ),
    "split empty part": lambda: fairshard.split(3, [0.9, 0.1, 0.0]),
    "stream with too few shards": lambda: fairshard.ShardedIterable(
        [[1], [2]], mode="shard", num_replicas=4, rank=0, policy="uneven"
    ),
}


@pytest.mark.parametrize("name", sorted(TRIGGERS))
def test_warning_points_at_this_file(name: str) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        TRIGGERS[name]()
    ours = [w for w in caught if issubclass(w.category, fairshard.FairshardWarning)]
    assert ours, f"{name}: no fairshard warning"
    for w in ours:
        assert w.filename == __file__, (name, w.filename, w.lineno, str(w.message))


def test_cli_prints_warnings_as_its_own_lines(capsys: pytest.CaptureFixture[str]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        assert main(["simulate", "-n", "0", "-w", "2", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert (
        "fairshard simulate: warning: DegenerateConfigWarning: DistributedSampler: the dataset "
        "is empty" in err
    )
    assert "fairshard/" not in err and ".py:" not in err


def test_user_stacklevel_counts_from_the_caller_of_warn() -> None:
    with pytest.warns(DegenerateConfigWarning) as record:
        fairshard._errors.warn("direct", DegenerateConfigWarning)
    assert record[0].filename == __file__
