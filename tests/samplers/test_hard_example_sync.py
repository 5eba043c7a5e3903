"""``HardExampleSampler.set_epoch`` checks that every rank built the sampler alike.

Ranks exchange their config, seed and target epoch together with their loss
records, and check them before applying any record: a dataset of another
size on one rank is a ``RankMismatchError`` on *every* rank, naming the field
and each rank's value, instead of an ``IndexError`` on some ranks while the
others hang in the next collective.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from fairshard import ConfigError, HardExampleSampler, RankMismatchError

from .._dist import run_ranks


def _mismatch(rank: int, world_size: int, field: str) -> str:
    kwargs: dict[str, Any] = {"num_samples_total": 100, "seed": 3}
    epoch = 1
    if rank == 1 and field == "n":
        kwargs["num_samples_total"] = 90
    if rank == 1 and field == "temperature":
        kwargs["temperature"] = 0.5
    if rank == 1 and field == "epoch":
        epoch = 2
    sampler = HardExampleSampler(**kwargs)
    sampler.record([95 if rank == 0 else 5, 1], [2.0, 1.0])
    before = sampler.scores()
    try:
        sampler.set_epoch(epoch)
    except RankMismatchError as exc:
        assert np.array_equal(sampler.scores(), before, equal_nan=True)  # nothing applied
        assert sampler.epoch == 0
        return str(exc)
    return "no error"


def _other_world(rank: int, world_size: int) -> str:
    sampler = HardExampleSampler(10, num_replicas=3, rank=rank)
    sampler.set_epoch(1)  # nothing recorded: nothing to share, no error
    sampler.record([1], [1.0])
    try:
        sampler.set_epoch(2)
    except ConfigError as exc:
        return str(exc)
    return "no error"


def _scenarios(rank: int, world_size: int) -> dict[str, str]:
    out = {field: _mismatch(rank, world_size, field) for field in ("n", "temperature", "epoch")}
    out["other_world"] = _other_world(rank, world_size)
    return out


@pytest.mark.distributed
def test_ranks_built_differently_all_raise_naming_the_field() -> None:
    results = run_ranks(_scenarios, 2, timeout=120, pg_timeout=20)
    expected = {
        "n": ("rank 0 has n=100", "rank 1 has n=90"),
        "temperature": ("rank 0 has temperature=1.0", "rank 1 has temperature=0.5"),
        "epoch": ("rank 0 has epoch=1", "rank 1 has epoch=2"),
    }
    for out in results:
        for field, values in expected.items():
            message = out[field]
            prefix = f"HardExampleSampler.set_epoch: ranks disagree on the sampler's {field}:"
            assert message.startswith(prefix), message
            assert all(v in message for v in values), message
        # A sampler of another world with records to share: refused, no collective.
        assert "num_replicas=3 but the process group has 2 ranks" in out["other_world"]
