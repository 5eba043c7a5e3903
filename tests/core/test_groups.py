"""``group=`` and the data-parallel state, in one process (the gloo jobs: test_mesh_jobs.py)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

import fairshard
from fairshard import ConfigTypeError
from fairshard._distributed.groups import Group, check_not_model_parallel, model_parallel_groups


def test_group_of_the_wrong_type_names_what_it_takes() -> None:
    with pytest.raises(ConfigTypeError, match=r"group must be a torch.distributed ProcessGroup"):
        fairshard.DistributedSampler(10, group="dp")
    with pytest.raises(ConfigTypeError, match="group must be"):
        fairshard.ShardedIterable(list(range(10)), group=2)


def test_no_process_group_no_model_parallel_groups() -> None:
    assert model_parallel_groups() == []
    check_not_model_parallel(4, 0, "arguments")  # nothing to compare with: no error


def test_group_travels_in_process_and_is_dropped_by_pickle() -> None:
    ref = Group(object(), None, 4, 1)
    assert copy.deepcopy(ref) is ref
    clone = pickle.loads(pickle.dumps(ref))
    assert (clone.pg, clone.mesh, clone.size, clone.rank) == (None, None, 4, 1)


def test_verify_fingerprints_packed_batches() -> None:
    """Packed rows differ in length: the fingerprint must not build a rectangular array."""
    sampler = fairshard.PackingBatchSampler(
        1 + np.arange(40) % 7, 16, 2, num_replicas=1, rank=0, seed=5
    )
    fp = fairshard.verify(sampler)  # raised ValueError (inhomogeneous shape) before
    assert fp["kind"] == "PackingBatchSampler" and fp["len"] == len(sampler)


@pytest.mark.parametrize("name", ["distributed", "mixture", "packing"])
def test_state_mixed_leaf_by_leaf_across_ranks_loads(name: str) -> None:
    """torch.distributed.checkpoint keeps each leaf from any one rank: rank 1's ``rank``
    beside rank 0's other fields is still the job's state."""
    from .test_mesh_jobs import ALL

    ranks = [ALL[name](40, r, 2) for r in range(2)]
    for sampler in ranks:
        next(iter(sampler))
    saved = [s.state_dict() for s in ranks]
    assert saved[0]["checksum"] == saved[1]["checksum"]  # one state per job
    mixed = {**saved[0], "rank": saved[1]["rank"]}  # checksum mismatch before
    left = len(ranks[0].plan()) - 2  # one step taken on each of 2 ranks
    for world in (2, 4, 1):
        fresh = ALL[name](40, 0, world)
        fresh.load_state_dict(mixed)
        assert fresh.remaining == -(-left // world)  # the rest of the epoch, padded evenly
        assert len(fresh) == 1 + fresh.remaining  # the epoch's: the step taken, and the rest
