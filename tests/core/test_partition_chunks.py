"""Regression: blocked padding must wrap in every chunk, not only in the last one."""

from __future__ import annotations

import numpy as np
import pytest

from fairshard import DistributedSampler, Partition


@pytest.mark.parametrize("shuffle", [False, True])
def test_blocked_pad_share_longer_than_a_chunk_stays_in_range(shuffle: bool) -> None:
    # 1029 on 4 ranks: rank 3 takes slots 774..1031; its first 256-item chunk ends at
    # slot 1029, the first padding slot, although 256 * 4 < 1029.
    shares = [
        list(DistributedSampler(1029, 4, r, shuffle=shuffle, layout="blocked", tail="pad"))
        for r in range(4)
    ]
    flat = [i for share in shares for i in share]
    assert max(flat) < 1029 and sorted(set(flat)) == list(range(1029))
    assert len(flat) - 1029 == 3


def test_any_window_of_positions_equals_the_full_share() -> None:
    p = Partition(25, 4, "blocked", "pad")
    for rank in range(4):
        full = p.positions(rank, 0, p.num_items(rank))
        windows = np.concatenate(
            [
                p.positions(rank, b, min(b + 3, p.num_items(rank)))
                for b in range(0, p.num_items(rank), 3)
            ]
        )
        assert np.array_equal(windows, full) and full.max() < 25
