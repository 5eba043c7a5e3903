"""Order quality in the simulator: class entropy per batch, adjacent correlation, block spread."""

from __future__ import annotations

import numpy as np

import fairshard
from fairshard._diagnostics.quality import adjacent_correlation, batch_entropy, block_spread


def test_the_three_numbers_tell_sorted_shuffled_and_local_orders_apart() -> None:
    n = 20_000
    labels = np.arange(n) * 10 // n  # class-sorted
    sequential = np.arange(n)
    shuffled = np.asarray(list(fairshard.DistributedSampler(n, 1, 0)))
    local = np.asarray(list(fairshard.DistributedSampler(n, 1, 0, order="locality")))
    assert batch_entropy(sequential, labels, 64) < 0.05
    assert batch_entropy(shuffled, labels, 64) > 3.1  # log2(10) = 3.32
    assert batch_entropy(local, labels, 64) > 0.9 * batch_entropy(shuffled, labels, 64)
    assert adjacent_correlation(sequential) > 0.999
    assert abs(adjacent_correlation(shuffled) or 0) < 0.05
    assert block_spread(sequential, 256) == 16
    assert block_spread(local, 256) == 64  # one window of the default 64 blocks
    assert block_spread(shuffled, 256) > 70  # every block of the 78


def test_simulate_reports_them_per_rank() -> None:
    labels = np.arange(8192) // 1024
    report = fairshard.simulate(
        "DistributedSampler",
        2,
        dataset_size=8192,
        labels=labels,
        kwargs={"order": "locality", "block_size": 64, "window": 4},
        spread_block=64,
    )
    rank = report.epochs[0].ranks[0]
    assert rank.block_spread == 64 and rank.batch_entropy is not None
    assert "order quality" in report.to_text()
    assert set(report.to_dict()["epochs"][0]["ranks"][0]) >= {
        "batch_entropy",
        "adjacent_correlation",
        "block_spread",
    }
